"""Choosing the provider behind the LLM client from settings."""

from __future__ import annotations

from kg_pipelines.config import LLMSettings
from kg_pipelines.llm.client import LLMProvider


def make_provider(settings: LLMSettings) -> LLMProvider:
    if settings.provider == "offline":
        from kg_pipelines.llm.offline_provider import OfflineProvider

        return OfflineProvider()
    if settings.provider == "openai":
        from kg_pipelines.llm.openai_provider import OpenAIProvider

        return OpenAIProvider.from_settings(settings)
    raise ValueError(f"unknown LLM provider {settings.provider!r}: use 'offline' or 'openai'")
