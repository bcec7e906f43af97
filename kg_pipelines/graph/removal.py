"""Removing documents from a graph: their rows, their vectors, their source registration, and
their support in the graph (what other documents support stays)."""

from __future__ import annotations

from datetime import datetime
from typing import Sequence

from kg_pipelines.graph.graph_building import GraphReport, remove_documents
from kg_pipelines.stores.source_registry import SourceRegistry
from kg_pipelines.stores.vectors import VectorStore


def remove_documents_everywhere(
    conn, vectors: VectorStore, registry: SourceRegistry, document_ids: Sequence[str], now: datetime
) -> GraphReport:
    report = remove_documents(conn, document_ids, now)
    vectors.delete_documents(document_ids)
    registry.forget(document_ids)
    return report
