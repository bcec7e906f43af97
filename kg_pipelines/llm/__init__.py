"""The one LLM client every stage calls, and the providers behind it (offline, openai)."""
