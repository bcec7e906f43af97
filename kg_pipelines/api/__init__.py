"""The HTTP API (FastAPI): graph search, rationale QA, collections, health. See ``app.py``."""
