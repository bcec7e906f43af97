"""Periodic merging (seed 001, Strategy 1, ``PeriodicMerger.run_merge_pass``): detect, then merge.

``plan_duplicates`` runs the detection cascade over the whole graph and replaces
``duplicate_candidates`` with its scored pairs (the dry-run plan a person reviews in the UI or with
``kg-pipelines dedup --dry-run``); grey-zone pairs left for a person go to the decisions file.
``merge_planned`` merges the plan's ``merge`` pairs, best score first, in ONE transaction: a
crash in the middle leaves the graph as it was. The weekly schedule, the CLI and the UI run both.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import duckdb

from kg_pipelines.config import KGSettings
from kg_pipelines.graph.duplicate_detection import (
    MERGE,
    NEEDS_REVIEW,
    DetectionReport,
    detect_duplicates,
    keep_apart_check,
)
from kg_pipelines.graph.merge_exclusions import append_review_pairs, load_exclusions
from kg_pipelines.graph.node_merging import MergeOutcome, PlannedMerge, merge_pairs
from kg_pipelines.stores.node_vectors import NodeVectors
from kg_pipelines.stores.warehouse import fetch_dicts, insert_rows, transaction


@dataclass
class PassReport:
    merges: list[MergeOutcome] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # why planned pairs did not merge


def plan_duplicates(
    conn: duckdb.DuckDBPyConnection,
    store: NodeVectors,
    settings: KGSettings,
    now: datetime,
    threshold: float | None = None,
    llm=None,
) -> DetectionReport:
    options = settings.dedup
    exclusions = load_exclusions(settings.data_dir, options.never_merge_file, options.decisions_file)
    threshold = options.threshold if threshold is None else threshold
    report = detect_duplicates(
        conn,
        store,
        exclusions,
        threshold=threshold,
        grey_zone_low=min(options.grey_zone_low, threshold),
        k=options.neighbours,
        index_min_rows=options.index_min_rows,
        llm=llm,
        node_kinds=options.node_kinds,
    )
    with transaction(conn):
        conn.execute("DELETE FROM duplicate_candidates")
        insert_rows(conn, "duplicate_candidates", [p.row(now) for p in report.pairs])
    review = [p.row(now) for p in report.pairs if p.decision == NEEDS_REVIEW]
    if review:
        append_review_pairs(Path(settings.data_dir) / options.decisions_file, review)
    return report


def merge_planned(
    conn: duckdb.DuckDBPyConnection,
    store: NodeVectors,
    settings: KGSettings,
    now: datetime,
    origin: str = "cli",
    fail_after: int | None = None,
) -> PassReport:
    """Merge the ``merge`` pairs of ``duplicate_candidates`` that still hold (both nodes still in the
    graph), in one transaction. ``fail_after`` (tests only) raises after that many merges."""
    plan = fetch_dicts(
        conn,
        """SELECT c.node_a, c.node_b, c.score, c.stage FROM duplicate_candidates c
           WHERE c.decision = ? AND c.node_a IN (SELECT node_id FROM kg_nodes)
             AND c.node_b IN (SELECT node_id FROM kg_nodes)
           ORDER BY c.score DESC, c.node_a, c.node_b""",
        [MERGE],
    )
    stale = conn.execute(
        "SELECT count(*) FROM duplicate_candidates WHERE decision = ? AND "
        "(node_a NOT IN (SELECT node_id FROM kg_nodes) OR node_b NOT IN (SELECT node_id FROM kg_nodes))",
        [MERGE],
    ).fetchone()[0]
    report = PassReport()
    if stale:
        report.skipped.append(f"{stale} planned pair(s) whose nodes left the graph since detection")
    pairs = [PlannedMerge(p["node_a"], p["node_b"], p["score"], p["stage"]) for p in plan]
    if fail_after is not None:
        pairs = _failing(pairs, fail_after)
    # a pair that resolves, through earlier merges of the pass, to two names a person keeps apart
    options = settings.dedup
    exclusions = load_exclusions(settings.data_dir, options.never_merge_file, options.decisions_file)
    keep_apart = keep_apart_check(conn, exclusions)
    with transaction(conn):
        report.merges = merge_pairs(conn, pairs, now, strategy=options.strategy, origin=origin, keep_apart=keep_apart)
    store.delete([m.duplicate_id for m in report.merges])
    return report


def _failing(pairs: list[PlannedMerge], after: int):
    for number, pair in enumerate(pairs):
        if number == after:
            raise RuntimeError(f"simulated crash after {after} merge(s)")
        yield pair
