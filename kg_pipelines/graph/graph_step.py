"""The graph step of ingestion, the core of the ``knowledge_graph`` asset, timed part by part.

One call per collection run, in this order (each part's reason is in its own module):

1. ``graph_building``: nodes, edges and their support rows for the documents whose stage outputs
   changed (``graph_building.sync_graph``, set-based SQL, batches of documents);
2. ``node_vectors``: the new and changed named nodes embedded (``stores/node_vectors``; a text
   already embedded for another node is reused, not embedded again);
3. ``stated_aliases``: nodes joined by an alias the text states (``alias_merging``);
4. ``formation_dedup``: new entity nodes absorbed by an existing duplicate (``formation_dedup``:
   one batch of ANN queries per node type);
5. ``publication``: what readers see brought in step once per run: merged-away nodes lose their
   vector, ``graph_stats.json``, one graph snapshot (``stores/graph_snapshot``);
6. ``checks``: the audits the asset reports (dangling edges, quarantined chunks).

``GraphStepReport.timings`` holds the seconds each part took, ``cpu_timings`` the process's CPU
seconds in it (all threads: what the part costs whatever else the machine runs); the asset's
metadata and ``benchmarks/ingest.py`` show them. Core: no Dagster here.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime

import duckdb

from kg_pipelines import audits
from kg_pipelines.graph.alias_merging import stated_alias_step
from kg_pipelines.graph.formation_dedup import formation_dedup
from kg_pipelines.graph.graph_building import GraphReport, sync_graph
from kg_pipelines.graph.graph_stats import publish_graph_stats
from kg_pipelines.stores.graph_snapshot import publish_graph_snapshot
from kg_pipelines.stores.node_vectors import NodeVectors, NodeVectorSync, sync_node_vectors

PARTS = ("graph_building", "node_vectors", "stated_aliases", "formation_dedup", "publication", "checks")


@dataclass
class Publication:
    """What a graph write left for readers: the snapshot version, the figures, the vector sync."""

    snapshot: str
    stats: dict
    vectors: NodeVectorSync


def publish_graph(conn: duckdb.DuckDBPyConnection, settings, store: NodeVectors, embedder, now=None) -> Publication:
    """Bring readers' view in step with the graph just written: vectors (by difference), the
    figures for the schedules, then the snapshot (last, so a reader that sees it finds the vectors
    already in step)."""
    vectors = sync_node_vectors(conn, store, embedder)
    stats = publish_graph_stats(conn, settings.data_dir, now)
    snapshot = publish_graph_snapshot(conn, settings)
    return Publication(snapshot.name, stats, vectors)


@dataclass
class GraphStepReport:
    graph: GraphReport
    node_vectors_embedded: int = 0
    node_vectors_reused: int = 0
    stated_aliases: str = ""  # Markdown, for the materialization metadata
    formation_dedup: str = ""
    publication: Publication | None = None
    checks: dict[str, audits.AuditFinding] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)  # part (PARTS) -> seconds
    cpu_timings: dict[str, float] = field(default_factory=dict)  # part -> CPU seconds of the process (all threads)


def run_graph_step(
    conn: duckdb.DuckDBPyConnection,
    settings,
    scope,
    now: datetime,
    embedder,
    progress: Callable | None = None,
    store: NodeVectors | None = None,
) -> GraphStepReport:
    """The graph step for ``scope`` (a ``SyncScope``), its parts timed (module doc)."""
    timings: dict[str, float] = {}
    cpu_timings: dict[str, float] = {}

    @contextmanager
    def part(name: str):
        started, cpu = time.perf_counter(), time.process_time()
        try:
            yield
        finally:
            timings[name] = timings.get(name, 0.0) + time.perf_counter() - started
            cpu_timings[name] = cpu_timings.get(name, 0.0) + time.process_time() - cpu

    store = store or NodeVectors.for_settings(settings)
    with part("graph_building"):
        graph = sync_graph(conn, scope, now, progress=progress)
    report = GraphStepReport(graph, timings=timings, cpu_timings=cpu_timings)
    # formation-time dedup (seed 001 Strategy 2) compares the new nodes' vectors: embed them first
    with part("node_vectors"):
        synced = sync_node_vectors(conn, store, embedder)
    report.node_vectors_embedded, report.node_vectors_reused = synced.embedded, synced.reused
    # aliases the text states ("long form (SHORT)", "X, also known as Y") join their nodes first
    with part("stated_aliases"):
        report.stated_aliases = stated_alias_step(conn, store, settings, graph.synced_documents, now)
    with part("formation_dedup"):
        report.formation_dedup = formation_dedup(conn, store, settings, now)
    # readers never open DuckDB: vectors (absorbed nodes lose theirs), the schedules' stats and the
    # graph snapshot are brought in step, as after every other graph write
    with part("publication"):
        report.publication = publish_graph(conn, settings, store, embedder, now)
    with part("checks"):
        report.checks = {
            "no_dangling_edges": audits.dangling_edges(conn),
            "no_quarantined_chunks": audits.quarantined_chunks(conn, scope.collection),
        }
    return report
