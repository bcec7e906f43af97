"""Retrieval: chunk retrieval, graph search, rationale QA, fusion across collections, activations."""
