"""The offline (no-LLM) mode: extractive summaries, heuristic entity/relationship extraction and
template questions, built from the text alone.

Deterministic (same text, same answer; no randomness, no dependence on set ordering), no network,
no model. ``kg_pipelines.llm.offline_provider.OfflineProvider`` exposes it as an LLM provider.

- ``lexicon``: the curated gazetteer, relation cues, word lists (names are normalised by
  ``kg_pipelines.ingestion.names``, the one normalizer);
- ``vocabulary``: general vocabulary (places, given names, head nouns, disease words, drug stems);
- ``entities``: tokenisation, mention recognition (gazetteer + patterns), relationships;
- ``summaries``: extractive summary of a block, aware of the previous block's summary;
- ``questions``: atomic questions from definitions, relationships, entities and key phrases.

The three tasks of a chunk share one analysis of its text (``entities.analyze``, kept from the
summary to the questions by ``analysis_cache``).
"""

from kg_pipelines.offline.entities import analyze, extract, extraction_payload
from kg_pipelines.offline.lexicon import display_name
from kg_pipelines.offline.questions import generate_questions
from kg_pipelines.offline.summaries import summarize

__all__ = ["analyze", "display_name", "extract", "extraction_payload", "generate_questions", "summarize"]
