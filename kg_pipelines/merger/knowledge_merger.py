"""The merger's steps as the assets, the CLI and the tests run them: read and validate a bundle,
store its pages, plan it (or reuse the plan of the same bundle content), execute it, write plan.md.

A bundle is known by its id (file stem or folder name) and content hash. Submitting the same
content again reuses the stored plan, whose pages are all COMPLETED: nothing in the graph changes.
Changed content is planned again (pages it created before are now candidates to merge into).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import duckdb

from kg_pipelines.config import KGSettings
from kg_pipelines.llm.client import LLMClient
from kg_pipelines.merger.execution import Executor, MergeOutcome, run_merge
from kg_pipelines.merger.pages import PageBundle, load_bundle, validate_bundle
from kg_pipelines.merger.plan_document import render_plan
from kg_pipelines.merger.planning import Decider, EmbeddingScorer, GraphPages, Scorer, plan_bundle
from kg_pipelines.merger.plans import MergePlan, load_plan, load_proposed_pages, save_plan, save_proposed_pages
from kg_pipelines.stores.warehouse import transaction

PAGES_FOLDER = "pages"  # <inbox>/pages/: page bundles, never a knowledge collection


@dataclass
class StoredBundle:
    bundle: PageBundle
    changed: bool  # its content differs from what proposed_pages held


def read_bundle(conn: duckdb.DuckDBPyConnection, path: Path | str, bundle_id: str | None = None) -> PageBundle:
    """Load and validate a bundle against the graph's pages (``BundleError`` lists every problem)."""
    bundle = load_bundle(path, bundle_id)
    validate_bundle(bundle, GraphPages.read(conn).types())
    return bundle


def store_bundle(conn: duckdb.DuckDBPyConnection, bundle: PageBundle, now: datetime) -> StoredBundle:
    stored = load_proposed_pages(conn, bundle.bundle_id)
    if stored is not None and stored.content_hash == bundle.content_hash:
        return StoredBundle(bundle, False)
    with transaction(conn):
        save_proposed_pages(conn, bundle, now)
    return StoredBundle(bundle, True)


def embedding_scorer(conn: duckdb.DuckDBPyConnection, settings: KGSettings) -> EmbeddingScorer:
    """Scores from LanceDB ``graph_nodes``, first brought in step with the graph's nodes."""
    from kg_pipelines.embedding import embedder_for
    from kg_pipelines.stores.node_vectors import NodeVectors, sync_node_vectors

    embedder = embedder_for(settings.node_embedding_model, settings.llm)
    store = NodeVectors.for_settings(settings)
    sync_node_vectors(conn, store, embedder)
    return EmbeddingScorer(store, embedder)


def make_plan(
    conn: duckdb.DuckDBPyConnection, bundle: PageBundle, scorer: Scorer, llm: LLMClient, settings: KGSettings, now
) -> MergePlan:
    """Phases 1 and 2 (nothing written)."""
    return plan_bundle(bundle, GraphPages.read(conn), scorer, Decider(llm, settings.merger), now)


def stored_plan(conn: duckdb.DuckDBPyConnection, bundle: PageBundle) -> MergePlan | None:
    """The bundle's stored plan when it was made from this content."""
    stored = load_plan(conn, bundle.bundle_id)
    return stored if stored is not None and stored.bundle_hash == bundle.content_hash else None


def planned(
    conn: duckdb.DuckDBPyConnection,
    bundle: PageBundle,
    make_scorer: Callable[[], Scorer],
    llm: LLMClient,
    settings: KGSettings,
    now,
) -> tuple[MergePlan, bool]:
    """The bundle's stored plan when it was made from the same content, else a new one, stored.
    (plan, reused). ``make_scorer`` is called only when a plan must be made."""
    stored = stored_plan(conn, bundle)
    if stored is not None:
        return stored, True
    plan = make_plan(conn, bundle, make_scorer(), llm, settings, now)
    with transaction(conn):
        save_plan(conn, plan, render_plan(plan, now), bundle.source_path, now)
    return plan, False


def execute(conn, plan: MergePlan, llm: LLMClient, settings: KGSettings, **executor_options) -> MergeOutcome:
    """Phases 3 to 5, resuming where a previous run stopped."""
    executor = Executor(conn, llm, settings.merger, **executor_options)
    return run_merge(executor, plan, render_plan)


def plan_dir(settings: KGSettings, bundle_id: str) -> Path:
    return settings.data_dir / "merges" / bundle_id


def write_plan_files(settings: KGSettings, plan: MergePlan, plan_md: str) -> Path:
    """plan.md and merge_plan.json beside the bundle's results (``<data_dir>/merges/<bundle>/``)."""
    folder = plan_dir(settings, plan.bundle_id)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "plan.md").write_text(plan_md, encoding="utf-8")
    (folder / "merge_plan.json").write_text(json.dumps(plan.to_json(), indent=2), encoding="utf-8")
    return folder / "plan.md"


def merge_bundle(
    conn: duckdb.DuckDBPyConnection,
    path: Path | str,
    settings: KGSettings,
    llm: LLMClient,
    scorer: Scorer,
    now: datetime,
    **executor_options,
) -> MergeOutcome:
    """Every phase for one bundle, without Dagster (tests; the assets run the same steps one by one)."""
    bundle = read_bundle(conn, path)
    store_bundle(conn, bundle, now)
    plan, _ = planned(conn, bundle, lambda: scorer, llm, settings, now)
    return execute(conn, plan, llm, settings, **executor_options)
