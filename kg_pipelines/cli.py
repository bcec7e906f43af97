"""The ``kg-pipelines`` command: runs the same Dagster assets in-process, with a progress bar.

    kg-pipelines [--data-dir PATH] [--config FILE] init | demo | ingest DIR --collection NAME |
                                                    sync [COLLECTION...] [--document ID] |
                                                    remove PATH | retry [--collection NAME] | summary |
                                                    merge-pages BUNDLE [--dry-run] [--json]

Runs go to the Dagster instance under ``<data_dir>/dagster_home``, so they show up in the UI
(``make dev``) next to the runs launched by the sensor.
"""

from __future__ import annotations

import os
import shutil
import sys
import warnings
from datetime import UTC
from pathlib import Path

import click

from kg_pipelines.config import KGSettings, load_settings

SAMPLE_INBOX = Path(__file__).resolve().parents[1] / "data" / "inbox"


def _prepare(data_dir: str | None, config: str | None) -> KGSettings:
    """Settings, and the environment for the in-process runs (nothing is created here)."""
    settings = load_settings(data_dir, config)
    os.environ["DAGSTER_HOME"] = str(settings.dagster_home)
    os.environ["KG_DATA_DIR"] = str(settings.data_dir)
    if config:
        os.environ["KG_CONFIG"] = str(Path(config).resolve())
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    return settings


@click.group()
@click.option(
    "--data-dir",
    type=click.Path(file_okay=False),
    envvar="KG_DATA_DIR",
    help="Folder holding every store of this graph (default: KG_DATA_DIR, else ./data).",
)
@click.option(
    "--config",
    type=click.Path(dir_okay=False, exists=True),
    envvar="KG_CONFIG",
    help="Settings YAML (default: <data-dir>/kg.yaml if present).",
)
@click.pass_context
def main(ctx: click.Context, data_dir: str | None, config: str | None) -> None:
    """Documents in, a knowledge graph out."""
    warnings.filterwarnings("ignore", category=Warning, module="dagster")
    try:
        ctx.obj = _prepare(data_dir, config)
    except (ValueError, FileNotFoundError) as exc:
        raise click.ClickException(str(exc)) from exc


@main.command()
@click.option(
    "--dagster-storage",
    metavar="URL",
    default=None,
    help="Where Dagster keeps runs, event logs and schedules: postgresql://USER@HOST:PORT/DB, or `sqlite` "
    "(the default, under the data dir). Default: $KG_DAGSTER_STORAGE, else unchanged.",
)
@click.pass_obj
def init(settings: KGSettings, dagster_storage: str | None) -> None:
    """Create the data dir, the Dagster home and the warehouse tables."""
    from dagster import DagsterInstance

    from kg_pipelines.dagster_shell.instance_storage import current_storage, redacted
    from kg_pipelines.dagster_shell.run_guard import ensure_pool_limit
    from kg_pipelines.stores import warehouse

    _ensure_home(settings, dagster_storage)
    warehouse.connect(settings.warehouse_path).close()
    settings.inbox.mkdir(parents=True, exist_ok=True)
    ensure_pool_limit(DagsterInstance.get())
    click.echo(f"data dir ready: {settings.data_dir}")
    click.echo(f"dagster storage: {redacted(current_storage(settings.dagster_home))}")


@main.command()
@click.argument("directory", type=click.Path(exists=True, file_okay=False))
@click.option("--collection", required=True, help="Knowledge collection the documents belong to.")
@click.pass_obj
def ingest(settings: KGSettings, directory: str, collection: str) -> None:
    """Sync COLLECTION with every .txt/.md/.pdf file under DIRECTORY.

    New and edited files are ingested; files ingested from DIRECTORY before and gone now are removed.
    """
    from kg_pipelines.ingestion.inbox import scan_directory
    from kg_pipelines.stores.source_registry import SourceRegistry

    _check_collection(collection)
    files = scan_directory(Path(directory), collection)
    if not files:
        raise click.ClickException(f"no .txt, .md or .pdf files under {directory}")
    _ensure_home(settings)
    root = str(Path(directory).resolve()).rstrip("/") + "/"
    present = {f.document_id for f in files}
    gone = [
        s.document_id
        for s in SourceRegistry(settings.source_registry_path).for_collection(collection)
        if s.path.startswith(root) and s.document_id not in present
    ]
    failures = _run(
        settings,
        lambda echo, instance, should_stop: _runner().ingest_sources(
            settings, [f.to_source() for f in files], instance, removed=gone, echo=echo, should_stop=should_stop
        ),
    )
    _print_summary(settings)
    if failures:
        sys.exit(1)


@main.command()
@click.argument("collections", nargs=-1)
@click.option(
    "--document",
    "documents",
    multiple=True,
    metavar="DOCUMENT_ID",
    help="Re-process only this document (repeatable), even if nothing changed.",
)
@click.pass_obj
def sync(settings: KGSettings, collections: tuple[str, ...], documents: tuple[str, ...]) -> None:
    """Sync COLLECTIONS (default: every registered one) with their registered sources.

    With --document, the run is restricted to those documents and re-processes them on purpose.
    """
    from kg_pipelines.stores.source_registry import SourceRegistry

    registry = SourceRegistry(settings.source_registry_path) if settings.source_registry_path.exists() else None
    known = registry.collections() if registry else []
    if documents:
        owners = {s.document_id: s.collection for s in registry.all()} if registry else {}
        unknown = [d for d in documents if d not in owners]
        if unknown:
            raise click.ClickException(
                f"unknown document id(s): {', '.join(unknown)} (ids look like <collection>/<path>)"
            )
        collections = tuple(sorted({owners[d] for d in documents}))
    for collection in collections:
        if collection not in known:
            raise click.ClickException(f"unknown collection {collection!r}; known: {', '.join(known) or 'none'}")
    targets = list(collections or known)
    if not targets:
        raise click.ClickException(f"nothing is registered in {settings.data_dir}: ingest a folder first")
    _ensure_home(settings)
    failures = _run(
        settings,
        lambda echo, instance, should_stop: _runner().sync_collections(
            settings, targets, instance, only=documents or None, echo=echo, should_stop=should_stop
        ),
    )
    _print_summary(settings)
    if failures:
        sys.exit(1)


@main.command()
@click.pass_obj
def demo(settings: KGSettings) -> None:
    """Ingest the sample corpus (data/inbox of the project) and show what came out."""
    from kg_pipelines.ingestion.inbox import scan_inbox

    files = scan_inbox(SAMPLE_INBOX)
    if not files:
        raise click.ClickException(f"no sample documents found under {SAMPLE_INBOX}")
    click.echo(f"kg-pipelines demo: {len(files)} sample documents from {SAMPLE_INBOX}")
    click.echo(f"LLM provider: {settings.llm.provider}; stores under {settings.data_dir}\n")
    _ensure_home(settings)
    failures = _run(
        settings,
        lambda echo, instance, should_stop: _runner().ingest_sources(
            settings, [f.to_source() for f in files], instance, echo=echo, should_stop=should_stop
        ),
    )
    _print_summary(settings)
    failures += _demo_merge_pages(settings)
    _demo_retrieval(settings)
    failures += _demo_graph_health(settings)
    click.echo(
        "\nWhere to look next:\n"
        "  make dev                      the Dagster UI on http://127.0.0.1:3000 (assets, lineage, checks, sensors)\n"
        f"  {settings.warehouse_path}    DuckDB: documents, chunks, entities, kg_nodes, kg_edges, ...\n"
        f"  {settings.lancedb_dir}    chunk, question and node vectors\n"
        f"  {settings.data_dir / 'pictures'}    before/after pictures of consolidation and merge passes\n"
        "  kg-pipelines search TERM / ask QUESTION / retrieve QUESTION   (docs/retrieval.md)\n"
        f"  drop files into {settings.inbox}/<collection>/ with `make dev` running: the sensor ingests them\n"
        f"\nSee the graph: kg-pipelines --data-dir {settings.data_dir} serve, then open the explorer at\n"
        f"  http://127.0.0.1:{settings.api.port}/explore?term={DEMO_SEARCH_TERM}   (the API's docs: /docs)"
    )
    if failures:
        sys.exit(1)


DEMO_SEARCH_TERM = "Oleoylethanolamide"
DEMO_QUESTION = "Which bacterium does oleoylethanolamide increase?"


def _demo_merge_pages(settings: KGSettings) -> int:
    """The knowledge merger on the sample page bundles (data/inbox/pages)."""
    from kg_pipelines.dagster_shell.merger_runner import merge_page_bundle
    from kg_pipelines.merger.pages import find_bundles

    bundles, _skipped = find_bundles(SAMPLE_INBOX / "pages")
    failures = 0
    for bundle_id, path in bundles.items():
        click.echo(f"\n== knowledge merger: page bundle {path.name}")

        def merge(echo, instance, _stop, bundle_id=bundle_id, path=path):
            return merge_page_bundle(settings, bundle_id, path, instance, echo)

        failures += _run(settings, merge)
        plan = _stored_merge_plan(settings, bundle_id)
        if plan is not None:
            nodes = [n for sg in plan.subgraphs for n in sg.nodes.values()]
            merged = sum(n.decision == "MERGE" for n in nodes)
            click.echo(
                f"{len(nodes)} pages: {len(nodes) - merged} created, {merged} merged into existing pages "
                f"({plan.status}); plan.md in {settings.data_dir / 'merges' / bundle_id}"
            )
    return failures


def _demo_retrieval(settings: KGSettings) -> None:
    """Graph search and rationale QA on what was just ingested (both read the graph snapshot)."""
    from kg_pipelines.retrieval.graph_search import format_paths, search_graph
    from kg_pipelines.retrieval.rationale_qa import ask, format_answer

    _quiet_model_loading()
    click.echo(f"\n== graph search: kg-pipelines search {DEMO_SEARCH_TERM} --limit 3")
    for line in format_paths(search_graph(settings, DEMO_SEARCH_TERM, None, 3)):
        click.echo(line)
    click.echo(f'\n== rationale QA: kg-pipelines ask "{DEMO_QUESTION}"')
    for line in format_answer(ask(settings, DEMO_QUESTION)):
        click.echo(line)


def _demo_graph_health(settings: KGSettings) -> int:
    """Consolidation's summarize (topic clusters, communities) and a dry run of duplicate detection."""
    import json

    import duckdb

    from kg_pipelines.dagster_shell.dedup_runs import run_dedup

    click.echo("\n== graph consolidation: kg-pipelines consolidate summarize")
    holder: dict = {}

    def summarize(echo, instance, _stop):
        holder["outcome"] = _runner().run_consolidation_job(settings, "summarize", instance, echo=echo)
        return holder["outcome"]

    failures = _run(settings, summarize)
    run_id = holder["outcome"].report_run_id
    if run_id is not None:
        report_path = settings.data_dir / "consolidation_reports" / f"{run_id}.json"
        click.echo(_consolidation_text(json.loads(report_path.read_text(encoding="utf-8"))))
    click.echo("\n== duplicate nodes: kg-pipelines dedup --dry-run")
    failures += _run(settings, lambda echo, instance, _stop: run_dedup(settings, instance, dry_run=True, echo=echo))
    conn = duckdb.connect(str(settings.warehouse_path), read_only=True)
    try:
        counts = conn.execute("SELECT decision, count(*) FROM duplicate_candidates GROUP BY 1 ORDER BY 1").fetchall()
    finally:
        conn.close()
    found = ", ".join(f"{n} {decision}" for decision, n in counts) or "none"
    click.echo(f"candidate pairs by decision: {found} (nothing merged: a dry run)")
    return failures


@main.command()
@click.argument("path", type=click.Path())
@click.pass_obj
def remove(settings: KGSettings, path: str) -> None:
    """Remove the document(s) ingested from PATH (a file, or every file under a folder).

    Runs the same sync job as ingestion, so the run shows in the Dagster UI.
    """
    from kg_pipelines.stores.source_registry import SourceRegistry

    if not settings.source_registry_path.exists():
        raise click.ClickException(
            f"no ingested document comes from {path} (nothing is registered in {settings.data_dir})"
        )
    registry = SourceRegistry(settings.source_registry_path)
    target = str(Path(path).resolve())
    ids = [s.document_id for s in registry.all() if s.path == target or s.path.startswith(target.rstrip("/") + "/")]
    if not ids:
        raise click.ClickException(f"no ingested document comes from {path}")
    failures = _run(
        settings,
        lambda echo, instance, should_stop: _runner().ingest_sources(
            settings, [], instance, removed=ids, echo=echo, should_stop=should_stop
        ),
    )
    click.echo(f"removed {len(ids)} document(s)")
    _print_summary(settings)
    if failures:
        sys.exit(1)


@main.command()
@click.option("--collection", help="Only this collection (default: every collection).")
@click.pass_obj
def retry(settings: KGSettings, collection: str | None) -> None:
    """Re-queue quarantined chunks (they failed every retry round) and sync their collections."""
    from kg_pipelines.ingestion.chunk_state import requeue_quarantined
    from kg_pipelines.stores import warehouse

    if not settings.warehouse_path.exists():
        raise click.ClickException(f"the graph in {settings.data_dir} is empty: nothing to retry")
    _ensure_home(settings)
    conn = warehouse.connect(settings.warehouse_path)
    try:
        with warehouse.transaction(conn):
            counts = requeue_quarantined(conn, collection, _now())
    finally:
        conn.close()
    if not counts:
        click.echo("no quarantined chunks" + (f" in {collection}" if collection else ""))
        return
    click.echo("re-queued " + ", ".join(f"{n} chunk stage(s) of {c}" for c, n in sorted(counts.items())))
    failures = _run(
        settings,
        lambda echo, instance, should_stop: _runner().sync_collections(
            settings, sorted(counts), instance, echo=echo, should_stop=should_stop
        ),
    )
    _print_summary(settings)
    if failures:
        sys.exit(1)


@main.command()
@click.pass_obj
def summary(settings: KGSettings) -> None:
    """Print what the graph holds."""
    _print_summary(settings)


# -- knowledge merger (seed 000) ------------------------------------------------------------------


@main.command("merge-pages")
@click.argument("bundle", type=click.Path(exists=True))
@click.option("--dry-run", is_flag=True, help="Plan only (phases 1-2) and print plan.md; the warehouse is not written.")
@click.option("--json", "as_json", is_flag=True, help="Print the MergePlan as JSON instead of plan.md.")
@click.pass_obj
def merge_pages(settings: KGSettings, bundle: str, dry_run: bool, as_json: bool) -> None:
    """Merge the page bundle BUNDLE (a .json file or a folder of .md pages) into the graph.

    Runs the merge_page_bundle job (one partition per bundle) in-process, so it shows in the Dagster
    UI; plan.md is printed and written to <data-dir>/merges/<bundle>/.
    """
    import json as json_lib

    from kg_pipelines.merger.pages import BundleError, bundle_id_for

    bundle_id = bundle_id_for(bundle)
    try:  # BundleError: a bad bundle; ValueError: settings (an openai provider without a key)
        plan = _merge_dry_run(settings, bundle, bundle_id) if dry_run else None
    except (BundleError, ValueError) as exc:
        raise click.ClickException(str(exc)) from exc
    if plan is None:
        _ensure_home(settings)
        try:  # bad input is told before a run starts
            _merge_dry_run(settings, bundle, bundle_id, validate_only=True)
        except BundleError as exc:
            raise click.ClickException(str(exc)) from exc
        from kg_pipelines.dagster_shell.merger_runner import merge_page_bundle

        failures = _run(
            settings,
            lambda echo, instance, _should_stop: merge_page_bundle(settings, bundle_id, bundle, instance, echo),
        )
        plan = _stored_merge_plan(settings, bundle_id)
        if plan is None:
            sys.exit(1)
    else:
        failures = 0
    if as_json:
        click.echo(json_lib.dumps(plan.to_json(), indent=2, default=str))
    else:
        from kg_pipelines.merger.plan_document import render_plan

        click.echo(render_plan(plan))
    if failures or plan.status == "FAILED":
        sys.exit(1)


def _merge_dry_run(settings: KGSettings, bundle: str, bundle_id: str, validate_only: bool = False):
    """Validate (and, unless ``validate_only``, plan) the bundle against the graph, writing nothing.
    The stored plan of the same bundle content is what a run would execute, so it is shown instead."""
    import duckdb

    from kg_pipelines.llm.client import LLMClient
    from kg_pipelines.llm.providers import make_provider
    from kg_pipelines.merger.knowledge_merger import embedding_scorer, make_plan, read_bundle, stored_plan
    from kg_pipelines.stores import warehouse

    try:
        if settings.warehouse_path.exists():
            conn = duckdb.connect(str(settings.warehouse_path), read_only=True)
        else:
            conn = duckdb.connect()
            warehouse.ensure_schema(conn)
    except duckdb.Error as exc:
        raise click.ClickException(
            f"cannot read the warehouse {settings.warehouse_path} (a run may be writing it): {exc}"
        ) from exc
    try:
        parsed = read_bundle(conn, bundle, bundle_id)
        if validate_only:
            return None
        plan = stored_plan(conn, parsed)
        if plan is None:
            llm = LLMClient(make_provider(settings.llm), settings.resolved_entity_types)
            plan = make_plan(conn, parsed, embedding_scorer(conn, settings), llm, settings, _now())
        return plan
    finally:
        conn.close()


def _stored_merge_plan(settings: KGSettings, bundle_id: str):
    import duckdb

    from kg_pipelines.merger.plans import load_plan

    if not settings.warehouse_path.exists():
        return None
    conn = duckdb.connect(str(settings.warehouse_path), read_only=True)
    try:
        return load_plan(conn, bundle_id)
    finally:
        conn.close()


# -- retrieve: ranked chunks for a question (retrieval/chunk_retrieval.py) ----------------------------


@main.command()
@click.argument("question", required=False)
@click.option("--k", "k", type=click.IntRange(1, 1000), default=10, show_default=True, help="Chunks to return.")
@click.option("--collections", help="Comma-separated collections (default: every collection).")
@click.option("--json", "as_json", is_flag=True, help="One JSON object instead of the table.")
@click.option(
    "--questions",
    "questions_file",
    type=click.Path(dir_okay=False, exists=True),
    help='A JSONL file of {"qid", "question"} lines: one JSON line per question on stdout.',
)
@click.option(
    "--variant",
    type=click.Choice(
        ["bm25", "vector", "hybrid", "graph", "graph_first", "hybrid_graph_rrf", "graph_seeded", "graph_seeded_rrf"]
    ),
    help="Ranking variant (default: the retrieval.variant setting).",
)
@click.pass_obj
def retrieve(
    settings: KGSettings,
    question: str | None,
    k: int,
    collections: str | None,
    as_json: bool,
    questions_file: str | None,
    variant: str | None,
) -> None:
    """Rank the chunks that answer QUESTION: full-text and vector search per collection and the
    graph walk from the names it mentions (README "Retrieval"). Reads LanceDB and the published
    graph snapshot only, so it answers while ingestion writes."""
    import json

    from kg_pipelines.retrieval.chunk_retrieval import ChunkRetriever
    from kg_pipelines.retrieval.retrieval_quality import percentile, ranked_titles

    if (question is None) == (questions_file is None):
        raise click.ClickException("give a QUESTION or --questions FILE.jsonl (one of the two)")
    retriever = ChunkRetriever(settings)
    chosen = [c.strip() for c in collections.split(",") if c.strip()] if collections else None
    try:
        chosen = retriever.check_collections(chosen)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from exc

    def answer(text: str) -> list:
        text = (text or "").strip()
        if not text:
            raise ValueError("the question is empty")
        limit = settings.retrieval.max_question_chars
        if len(text) > limit:
            raise ValueError(f"the question has {len(text)} characters; at most {limit} (retrieval.max_question_chars)")
        return retriever.retrieve(text, k=k, collections=chosen, variant=variant)

    if questions_file is not None:
        import time

        latencies: list[float] = []
        for number, line in enumerate(Path(questions_file).read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            qid = number
            try:
                item = json.loads(line)
                if not isinstance(item, dict) or not isinstance(item.get("question"), str):
                    raise ValueError('expected {"qid": ..., "question": "..."}')
                qid = item.get("qid", number)
                started = time.perf_counter()
                chunks = answer(item["question"])
                latencies.append(1000 * (time.perf_counter() - started))
                out = {
                    "qid": qid,
                    "titles": ranked_titles(chunks),
                    "chunk_ids": [c.chunk_id for c in chunks],
                    "scores": [round(c.score, 6) for c in chunks],
                    "ms": round(latencies[-1], 1),
                }
            except ValueError as exc:  # a bad line is reported in its place; the others are answered
                out = {"qid": qid, "error": f"line {number}: {exc}", "titles": [], "chunk_ids": [], "scores": []}
            click.echo(json.dumps(out, ensure_ascii=False))
        if latencies:  # on stderr, so stdout stays one JSON object a line
            p50, p95 = percentile(latencies, 0.5), percentile(latencies, 0.95)
            summary = f"{len(latencies)} questions answered: latency p50 {p50:.0f} ms, p95 {p95:.0f} ms a question"
            click.echo(summary, err=True)
        return
    try:
        chunks = answer(question)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from exc
    if as_json:
        payload = {
            "question": question,
            "collections": chosen,
            "variant": variant or settings.retrieval.variant,
            "results": [
                {
                    "rank": rank,
                    "chunk_id": c.chunk_id,
                    "document_id": c.document_id,
                    "collection": c.collection,
                    "title": c.title,
                    "score": round(c.score, 6),
                    "found_by": list(c.found_by),
                    "text": c.text,
                }
                for rank, c in enumerate(chunks, 1)
            ],
        }
        click.echo(json.dumps(payload, ensure_ascii=False, indent=1))
        return
    if not chunks:
        click.echo("no chunk found" + ("" if chosen else " (nothing ingested yet)"))
        return
    for rank, c in enumerate(chunks, 1):
        snippet = " ".join(c.text.split())[:160]
        found_by = "+".join(c.found_by) or "-"
        click.echo(f"{rank:>3}. {c.score:.4f}  {c.title}  [{c.collection}; {c.chunk_id}; {found_by}]")
        click.echo(f"     {snippet}")


# -- graph search, rationale QA, HTTP API (readers: the graph snapshot and LanceDB, never DuckDB) ----


@main.command()
@click.argument("term")
@click.option("--depth", type=int, default=None, help="Hops to follow out of the term's entity (default 2).")
@click.option("--limit", type=int, default=None, help="Paths to show (default 10).")
@click.option("--json", "as_json", is_flag=True, help="One JSON object instead of text.")
@click.pass_obj
def search(settings: KGSettings, term: str, depth: int | None, limit: int | None, as_json: bool) -> None:
    """Paths that lead out of the entity TERM names, each hop with its relationship's description."""
    import json

    from kg_pipelines.retrieval.graph_search import GraphSearchError, format_paths, search_graph

    _quiet_model_loading()
    try:
        result = search_graph(settings, term, depth, limit)
    except GraphSearchError as exc:
        raise click.ClickException(str(exc)) from None
    if as_json:
        click.echo(json.dumps(result.to_dict(), ensure_ascii=False, indent=1))
        return
    if result.message and not result.matched:
        click.echo(f"{result.message} (data dir {settings.data_dir})")
        return
    for line in format_paths(result):
        click.echo(line)


@main.command()
@click.argument("question")
@click.option("--collections", help="Comma-separated collections (default: every collection).")
@click.option(
    "--strategy",
    type=click.Choice(["auto", "general", "factual", "analytical", "procedural"]),
    default="auto",
    show_default=True,
    help="Fusion strategy across collections (auto: from the question's wording).",
)
@click.option("--budget", "token_budget", type=int, default=None, help="Token budget of the context.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object (answer, trace, sources) instead of text.")
@click.pass_obj
def ask(
    settings: KGSettings,
    question: str,
    collections: str | None,
    strategy: str,
    token_budget: int | None,
    as_json: bool,
) -> None:
    """Answer QUESTION by agentic rationale retrieval over the atomic-question index (PIKE-RAG)."""
    import json

    from kg_pipelines.retrieval.rationale_qa import QAError, QAUnavailable, format_answer
    from kg_pipelines.retrieval.rationale_qa import ask as answer

    chosen = [c.strip() for c in collections.split(",") if c.strip()] if collections else None
    _quiet_model_loading()
    try:
        result = answer(settings, question, chosen, strategy, token_budget)
    except (QAError, QAUnavailable) as exc:
        raise click.ClickException(str(exc)) from None
    if as_json:
        click.echo(json.dumps(result.to_dict(), ensure_ascii=False, indent=1))
        return
    for line in format_answer(result):
        click.echo(line)


@main.command()
@click.option("--host", default=None, help="Interface to listen on (default api.host, 127.0.0.1: loopback only).")
@click.option("--port", type=click.IntRange(1, 65535), default=None, help="Port (default api.port, 8000).")
@click.pass_obj
def serve(settings: KGSettings, host: str | None, port: int | None) -> None:
    """Serve the HTTP API (graph search, QA, collections, health; OpenAPI docs at /docs).

    On a host other than loopback the environment variable KG_API_KEY must hold a secret (16+
    characters) and every request must send 'Authorization: Bearer <key>'; on loopback the API is
    open unless KG_API_KEY is set. The key is never a command-line value and never logged."""
    import uvicorn

    from kg_pipelines.api.app import create_app
    from kg_pipelines.api.auth import APIKeyError, serving_api_key

    host = host or settings.api.host
    port = port or settings.api.port
    try:
        api_key = serving_api_key(host, os.environ)
    except APIKeyError as exc:
        raise click.ClickException(str(exc)) from None
    _quiet_model_loading()
    access = "requests must send 'Authorization: Bearer $KG_API_KEY'" if api_key else "no authentication (loopback)"
    click.echo(f"serving {settings.data_dir} on http://{host}:{port} (docs: /docs; {access}); Ctrl-C stops")
    app = create_app(settings, api_key=api_key)
    server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning"))
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    if server.should_exit:
        click.echo("stopped", err=True)


def _quiet_model_loading() -> None:
    """No progress bars from loading the embedding model (a server's log, a search's output)."""
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    try:
        from transformers.utils import logging as transformers_logging
    except ImportError:
        return
    transformers_logging.disable_progress_bar()


# -- graph consolidation (seed 002) and bring your own graph ---------------------------------------


@main.group()
def consolidate() -> None:
    """Consolidate the graph (seed 002): prune weak edges, merge duplicate edges, summarize (topic
    clusters, communities); restore what a prune removed."""


def _consolidation_command(operation: str, help_text: str):
    """``consolidate prune`` / ``merge-edges`` / ``summarize``: the asset through Dagster on this data
    dir's instance (the run shows in the UI)."""

    @consolidate.command(operation, help=help_text)
    @click.option("--dry-run", is_flag=True, help="Report what would change; change nothing.")
    @click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
    @click.option(
        "--decay-half-life-days",
        type=click.FloatRange(min=0),
        help="Strength halves per this many inactive days before the prune threshold (0: no decay).",
    )
    @click.pass_obj
    def command(settings: KGSettings, dry_run: bool, as_json: bool, decay_half_life_days: float | None) -> None:
        _consolidate(settings, operation, dry_run, as_json, decay_half_life_days)

    return command


for _operation, _help in (
    ("prune", "Prune weak, inactive edges (never user-made, protected, structural or bridge edges)."),
    ("merge-edges", "Merge duplicate edges of the same node pair into the strongest one."),
    ("summarize", "Find topic clusters and communities, with their summaries."),
):
    _consolidation_command(_operation, _help)


def _consolidate(
    settings: KGSettings, operation: str, dry_run: bool, as_json: bool, decay_half_life_days: float | None
) -> None:
    import json

    if not settings.warehouse_path.exists():
        raise click.ClickException(f"the graph in {settings.data_dir} is empty: nothing to consolidate")
    _ensure_home(settings)
    holder: dict = {}

    def work(echo, instance, should_stop):
        holder["outcome"] = _runner().run_consolidation_job(
            settings, operation, instance, dry_run=dry_run, decay_half_life_days=decay_half_life_days, echo=echo
        )
        return holder["outcome"]

    failures = _run(settings, work)
    outcome = holder["outcome"]
    if failures or outcome.report_run_id is None:
        raise click.ClickException(f"consolidate {operation} failed (Dagster run {outcome.dagster_run_id})")
    report = json.loads(
        (settings.data_dir / "consolidation_reports" / f"{outcome.report_run_id}.json").read_text(encoding="utf-8")
    )
    if as_json:
        click.echo(json.dumps(report, indent=1, default=str))
        return
    click.echo(_consolidation_text(report))


@consolidate.command("restore")
@click.argument("run_id")
@click.option(
    "--edge",
    "edge_ids",
    multiple=True,
    metavar="EDGE_ID",
    help="Restore only this edge of the run (repeatable; default: every edge the run pruned).",
)
@click.option(
    "--protect/--no-protect",
    default=True,
    show_default=True,
    help="Mark the restored edges protected, so the next prune keeps them (they are still weak and inactive).",
)
@click.pass_obj
def consolidate_restore(settings: KGSettings, run_id: str, edge_ids: tuple[str, ...], protect: bool) -> None:
    """Put back the edges the prune run RUN_ID removed, with their support (one transaction).

    RUN_ID is the prune's run_id (`consolidate prune --json`, table consolidation_reports or
    edge_prune_log). The next graph snapshot (search, ask, the API) shows the edges again.
    """
    from kg_pipelines.graph.edge_admin import restore_prune_run

    report = _edge_change(settings, lambda conn: restore_prune_run(conn, run_id, list(edge_ids), protect, _now()))
    mark = " (protected: later prunes keep them)" if protect else " (not protected: the next prune may take them)"
    head = f"restored {len(report.restored)} edge(s) of prune run {run_id}{mark if report.restored else ''}"
    skipped = report.skipped()
    click.echo(head + (f"; left out: {'; '.join(skipped)}" if skipped else ""))


def _consolidation_text(report: dict) -> str:
    operation, health = report["operation"], report["health"]
    dry = " (dry run: nothing changed)" if report["dry_run"] else ""
    if operation == "prune":
        head = (
            f"prune{dry}: {report['pruned']} of {report['total']} edges pruned, {report['kept']} kept "
            f"({report['candidates']} weak and inactive; kept as bridges: {report['kept_seed_bridge']} by the seed's "
            f"rule, {report['kept_true_bridge']} true, {report['kept_connectivity']} to keep components connected; "
            f"{report.get('kept_structural', 0)} structural edges never pruned)"
        )
    elif operation == "merge-edges":
        head = (
            f"merge-edges{dry}: {report['total_before']} edges -> {report['total_after']}, "
            f"{report['edges_merged']} merged into {len(report['surviving_edges'])} surviving edges"
        )
    else:
        head = (
            f"summarize{dry}: {len(report['clusters'])} topic clusters, {len(report['communities'])} communities "
            f"({report['algorithm']})"
        )
    within = "within" if health["within"] else "outside"
    return f"{head}\nhealth: {health['actual']}; target: {health['target']} ({within})"


@main.command("import-graph")
@click.argument("nodes", type=click.Path(dir_okay=False))
@click.argument("edges", type=click.Path(dir_okay=False))
@click.pass_obj
def import_graph_command(settings: KGSettings, nodes: str, edges: str) -> None:
    """Import NODES and EDGES (.parquet, .csv, .json or .jsonl; edges in the seed 002 JSON form) into the
    graph in one transaction; bad rows of both files are reported by line and nothing is imported then.
    Files written by export-graph give back the same graph, provenance included."""
    import duckdb

    from kg_pipelines.dagster_shell.graph_health import publish_graph_change
    from kg_pipelines.graph.graph_io import GraphImportError, import_graph
    from kg_pipelines.stores import warehouse

    _wait_for_writers(settings)
    try:
        conn = warehouse.connect(settings.warehouse_path)
    except duckdb.IOException as exc:  # a run started meanwhile and holds the write lock
        raise click.ClickException(f"cannot write {settings.warehouse_path} now (a run holds it): {exc}") from exc
    try:
        try:
            report = import_graph(conn, Path(nodes), Path(edges), _now())
        except GraphImportError as exc:
            raise click.ClickException(f"nothing imported; {len(exc.problems)} problem(s):\n" + str(exc)) from exc
        # node vectors, graph_stats.json and the snapshot readers (search, API) load
        synced = publish_graph_change(conn, settings).vectors
    finally:
        conn.close()
    click.echo(
        f"imported {report.nodes} nodes ({report.nodes_updated} replaced) and {report.edges} edges "
        f"({report.edges_updated} replaced); {synced.embedded} node vector(s) embedded"
    )
    if report.node_support or report.edge_support:
        click.echo(f"provenance: {report.node_support} node and {report.edge_support} edge support row(s)")
    for ignored in report.ignored_fields:  # a field the import does not know: said, never dropped silently
        click.echo(f"ignored field (not in the import schema): {ignored}", err=True)


@main.command("export-graph")
@click.argument("directory", type=click.Path(file_okay=False))
@click.option(
    "--format", "fmt", type=click.Choice(["parquet", "csv", "json", "jsonl"]), default="parquet", show_default=True
)
@click.pass_obj
def export_graph_command(settings: KGSettings, directory: str, fmt: str) -> None:
    """Write the graph to DIRECTORY as nodes.<fmt> and edges.<fmt> (edges in the seed 002 JSON form), every
    column and each row's provenance: import-graph of them into an empty data dir gives the same graph."""
    from kg_pipelines.graph.graph_io import export_graph
    from kg_pipelines.stores import warehouse

    if not settings.warehouse_path.exists():
        raise click.ClickException(f"the graph in {settings.data_dir} is empty: nothing to export")
    try:
        conn = warehouse.connect(settings.warehouse_path, read_only=True)
    except Exception as exc:  # duckdb.IOException: another process holds the write lock
        raise click.ClickException(f"cannot read {settings.warehouse_path} now (a run is writing it): {exc}") from exc
    try:
        node_path, edge_path = export_graph(conn, Path(directory), fmt)
    finally:
        conn.close()
    click.echo(f"wrote {node_path} and {edge_path}")


# -- the operator's levers on single edges (seed 002) ---------------------------------------------


@main.group()
def edge() -> None:
    """Protect, unprotect or add single edges (seed 002: user-made and protected edges are never pruned)."""


@edge.command("protect")
@click.argument("edge_id")
@click.pass_obj
def edge_protect(settings: KGSettings, edge_id: str) -> None:
    """Mark EDGE_ID protected: consolidation never prunes it."""
    _protect(settings, edge_id, True)


@edge.command("unprotect")
@click.argument("edge_id")
@click.pass_obj
def edge_unprotect(settings: KGSettings, edge_id: str) -> None:
    """Clear EDGE_ID's protected mark: a weak, inactive edge may be pruned again."""
    _protect(settings, edge_id, False)


def _protect(settings: KGSettings, edge_id: str, protected: bool) -> None:
    from kg_pipelines.graph.edge_admin import set_protected

    done = _edge_change(settings, lambda conn: set_protected(conn, edge_id, protected))
    state = "protected" if protected else "not protected"
    click.echo(f"edge {edge_id} is {state}" + ("" if done.changed else " (it already was)"))


@edge.command("add")
@click.argument("source")
@click.argument("target")
@click.option("--type", "edge_type", required=True, help="Edge type, e.g. RELATED (letters, digits, underscores).")
@click.option("--explanation", help="Why the edge holds (shown with the edge).")
@click.option("--strength", type=click.FloatRange(0.0, 1.0), default=1.0, show_default=True, help="Initial strength.")
@click.pass_obj
def edge_add(
    settings: KGSettings, source: str, target: str, edge_type: str, explanation: str | None, strength: float
) -> None:
    """Add the edge SOURCE -[TYPE]-> TARGET made by a user (created_by user: never pruned).

    SOURCE and TARGET are node ids, or node names that name exactly one node.
    """
    from kg_pipelines.graph.edge_admin import add_user_edge

    row = _edge_change(
        settings, lambda conn: add_user_edge(conn, source, target, edge_type, explanation, strength, _now())
    )
    click.echo(f"added edge {row['edge_id']} (created_by user, strength {row['strength']:g})")


def _edge_change(settings: KGSettings, change):
    """Run ``change(conn)`` (one transaction, in the core) on the warehouse, then publish what readers
    see (snapshot, graph_stats.json, node vectors), as every graph write does; its result. Waits for a
    run that holds the duckdb pool like import-graph; unknown ids are one-line errors."""
    from kg_pipelines.dagster_shell.graph_health import publish_graph_change
    from kg_pipelines.graph.edge_admin import EdgeAdminError

    if not settings.warehouse_path.exists():
        raise click.ClickException(f"the graph in {settings.data_dir} is empty: no edges yet")
    _wait_for_writers(settings)
    conn = _open_warehouse(settings)
    try:
        try:
            result = change(conn)
        except EdgeAdminError as exc:
            raise click.ClickException(str(exc)) from None
        publish_graph_change(conn, settings)
    finally:
        conn.close()
    return result


def _wait_for_writers(settings: KGSettings) -> None:
    """Wait (up to runs.pool_wait_timeout_s) while a Dagster run holds the duckdb pool."""
    from dagster import DagsterInstance

    from kg_pipelines.dagster_shell.run_guard import PoolWaitTimeout, ensure_pool_limit, wait_for_pool

    _ensure_home(settings)
    instance = DagsterInstance.get()
    ensure_pool_limit(instance)
    try:
        wait_for_pool(instance, settings.runs.pool_wait_timeout_s, lambda m: click.echo(m, err=True))
    except PoolWaitTimeout as exc:
        raise click.ClickException(str(exc)) from exc


# -- duplicate nodes (seed 001) ------------------------------------------------------------------


@main.command()
@click.option(
    "--dry-run", is_flag=True, help="Detect and report only: merge nothing (the plan is duplicate_candidates)."
)
@click.option(
    "--threshold",
    type=click.FloatRange(0.0, 1.0),
    help="Score at or above which nodes merge (default dedup.threshold).",
)
@click.option(
    "--json", "as_json", is_flag=True, help="Print the pairs (ids, names, component scores) and merges as JSON."
)
@click.pass_obj
def dedup(settings: KGSettings, dry_run: bool, threshold: float | None, as_json: bool) -> None:
    """Find duplicate nodes (0.7 embedding + 0.2 name + 0.1 metadata, same type) and merge them.

    Names that differ only by a number, a letter, a Greek letter, a variant word or a sign (FOXO1 /
    FOXO4) are never merged, nor pairs a person or an unmerge marked distinct.

    Runs the Dagster job dedup_nodes (detect_duplicate_nodes with --dry-run) in-process, so the run
    shows in the UI; undo a merge with `kg-pipelines unmerge MERGE_ID`.
    """
    import json

    if not settings.warehouse_path.exists():
        raise click.ClickException(f"the graph in {settings.data_dir} is empty: nothing to deduplicate")
    _ensure_home(settings)
    started = _now()
    failures = _run(
        settings,
        lambda echo, instance, should_stop: _dedup_runs().run_dedup(
            settings, instance, dry_run=dry_run, threshold=threshold, echo=echo
        ),
    )
    if failures:
        sys.exit(1)
    pairs, merges = _dedup_results(settings, started)
    if as_json:
        report = {"dry_run": dry_run, "threshold": threshold or settings.dedup.threshold, "pairs": pairs}
        report["merges"] = merges
        click.echo(json.dumps(report, indent=2, default=str))
        return
    click.echo(f"{len(pairs)} candidate pair(s) at threshold {threshold or settings.dedup.threshold}:")
    for p in pairs:
        click.echo(
            f"  {p['decision']:<12} {p['score']:.3f} (emb {p['embedding_similarity']:.3f}, name "
            f"{p['name_similarity']:.3f}, meta {_meta_shown(p)})  {p['name_a']!r} ~ {p['name_b']!r} "
            f"[{p['node_type']}] {p['stage']}: {p['reason']}"
        )
    if dry_run:
        click.echo("dry run: nothing merged")
    else:
        click.echo(f"{len(merges)} merge(s):")
        for m in merges:
            click.echo(f"  {m['merge_id']}  {m['duplicate_name']!r} -> {m['canonical_name']!r}")
    review = sum(1 for p in pairs if p["decision"] == "needs_review")
    if review:
        path = settings.data_dir / settings.dedup.decisions_file
        click.echo(f"{review} grey-zone pair(s) wait for a person: write same or distinct in {path}")


def _meta_shown(pair: dict) -> str:
    return "none" if "not both nodes have metadata" in (pair.get("reason") or "") else f"{pair['metadata_overlap']:.2f}"


@main.command()
@click.argument("merge_id")
@click.pass_obj
def unmerge(settings: KGSettings, merge_id: str) -> None:
    """Undo the merge MERGE_ID: both nodes, their links and provenance as they were before it.

    The pair is written `distinct` in the decisions file (dedup.decisions_file) in the same
    operation, so no later pass, periodic or at formation time, merges it again; write `same`
    there to let it merge."""
    if not settings.warehouse_path.exists():
        raise click.ClickException(f"the graph in {settings.data_dir} is empty: no merge {merge_id}")
    conn = _open_warehouse(settings)
    try:
        found = conn.execute(
            "SELECT duplicate_name, canonical_name, undone_at FROM node_merges WHERE merge_id = ?", [merge_id]
        ).fetchall()
    finally:
        conn.close()
    if not found:
        raise click.ClickException(f"unknown merge {merge_id!r} (see `kg-pipelines dedup --json` or node_merges)")
    if found[0][2] is not None:
        raise click.ClickException(f"merge {merge_id} was already undone at {found[0][2]}")
    _ensure_home(settings)
    failures = _run(
        settings,
        lambda echo, instance, should_stop: _dedup_runs().run_dedup(
            settings, instance, unmerge_ids=[merge_id], echo=echo
        ),
    )
    if failures:
        sys.exit(1)
    decisions = settings.data_dir / settings.dedup.decisions_file
    click.echo(f"unmerged {merge_id}: {found[0][0]!r} is back beside {found[0][1]!r}")
    click.echo(f"recorded as distinct in {decisions}: no later pass merges them again")


def _dedup_runs():
    from kg_pipelines.dagster_shell import dedup_runs

    return dedup_runs


def _open_warehouse(settings: KGSettings):
    """The warehouse, or a one-line error while another process (a run) holds its lock."""
    import duckdb

    from kg_pipelines.stores import warehouse

    try:
        return warehouse.connect(settings.warehouse_path)
    except duckdb.IOException as exc:
        raise click.ClickException(
            f"cannot open {settings.warehouse_path} now: another run holds it; try again when it ends ({exc})"
        ) from exc


def _dedup_results(settings: KGSettings, since) -> tuple[list[dict], list[dict]]:
    from kg_pipelines.stores import warehouse

    conn = _open_warehouse(settings)
    try:
        pairs = warehouse.fetch_dicts(
            conn,
            """SELECT node_a, node_b, node_type, name_a, name_b, embedding_similarity, name_similarity,
                      metadata_overlap, score, stage, decision, reason
               FROM duplicate_candidates ORDER BY score DESC, node_a, node_b""",
        )
        merges = warehouse.fetch_dicts(
            conn,
            """SELECT merge_id, canonical_id, duplicate_id, canonical_name, duplicate_name, node_type, score,
                      decision, strategy, edges_redirected, edges_combined, self_loops_dropped
               FROM node_merges WHERE merged_at >= ? AND origin = 'cli' ORDER BY merged_at, merge_id""",
            [since],
        )
    finally:
        conn.close()
    return pairs, merges


# -- helpers --------------------------------------------------------------------------------------


def _now():
    from datetime import datetime

    return datetime.now(UTC)


def _runner():
    from kg_pipelines.dagster_shell import runner

    return runner


def _ensure_home(settings: KGSettings, dagster_storage: str | None = None) -> None:
    """The data dir and a Dagster home with our instance template (only for commands that write),
    its storage set from ``dagster_storage`` or $KG_DAGSTER_STORAGE when either is given."""
    from kg_pipelines.dagster_shell.instance_storage import (
        ENV_VAR,
        StorageSettingError,
        apply_storage,
        check_reachable,
        validate_storage_url,
    )

    settings.data_dir.mkdir(parents=True, exist_ok=True)
    home = settings.dagster_home
    home.mkdir(parents=True, exist_ok=True)
    if not (home / "dagster.yaml").exists():
        shutil.copy(Path(__file__).with_name("dagster.yaml"), home / "dagster.yaml")
    _check_vector_store(settings)
    wanted = dagster_storage or os.environ.get(ENV_VAR, "").strip() or None
    if wanted is None:
        return
    try:
        url = validate_storage_url(wanted)
        if url.startswith("postgres"):
            check_reachable(url)
        apply_storage(home, url)
    except StorageSettingError as exc:
        raise click.ClickException(str(exc)) from exc


def _check_vector_store(settings: KGSettings) -> None:
    """Object storage for the vectors is asked once before a run, so a wrong bucket, endpoint or
    credential is one line here, not a traceback from the middle of a run."""
    from kg_pipelines.stores.vectors import VectorStore, is_remote

    if not is_remote(settings.vectors_location):
        return
    try:
        VectorStore.for_settings(settings).table_names()
    except Exception as exc:  # lancedb raises OSError / ValueError / RuntimeError by backend
        reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise click.ClickException(f"cannot reach the vector store {settings.vectors_location}: {reason}") from exc


def _check_collection(name: str) -> None:
    from kg_pipelines.collections import validate_collection_name

    try:
        validate_collection_name(name)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from exc


class _SignalWatch:
    """Records SIGINT / SIGTERM however they are handled: Dagster replaces the Python handlers while
    a run executes and turns the signal into whatever error the interrupted code raised, so the
    signal numbers are read from a wakeup file descriptor, which no handler can take away."""

    def __enter__(self):
        import signal

        self._read, write = os.pipe()
        for fd in (self._read, write):
            os.set_blocking(fd, False)
        self._write = write
        self._previous_fd = signal.set_wakeup_fd(write)
        self._previous = {sig: signal.signal(sig, self._raise) for sig in (signal.SIGINT, signal.SIGTERM)}
        self._seen: set[int] = set()
        return self

    @staticmethod
    def _raise(_signum, _frame):
        raise KeyboardInterrupt

    def received(self) -> bool:
        import signal

        try:
            self._seen.update(os.read(self._read, 1024))
        except BlockingIOError:
            pass
        return bool(self._seen & {signal.SIGINT, signal.SIGTERM})

    def __exit__(self, *exc):
        import signal

        self.received()
        signal.set_wakeup_fd(self._previous_fd)
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
        os.close(self._read)
        os.close(self._write)


def _run(settings: KGSettings, work) -> int:
    """Run ``work(echo, instance, should_stop)`` with progress bars; Ctrl-C or SIGTERM stop it with
    one line.

    Every write is a transaction per batch, so an interrupted run loses at most a batch in flight
    and the same command resumes. Returns the number of failed runs.
    """
    from dagster import DagsterInstance

    from kg_pipelines.dagster_shell.run_guard import PoolWaitTimeout

    outcome = None
    with _SignalWatch() as signals:
        try:
            with _ProgressBars() as bars:
                outcome = work(bars.echo, DagsterInstance.get(), signals.received)
        except KeyboardInterrupt:
            pass
        except PoolWaitTimeout as exc:
            raise click.ClickException(str(exc)) from exc
        interrupted = signals.received()
    if interrupted or outcome is None:
        click.echo("\ninterrupted; run the same command again to resume", err=True)
        sys.exit(130)
    for error in outcome.errors:
        click.echo(error, err=True)
    return outcome.failed_runs


class _ProgressBars:
    """A tqdm bar per stage, fed by ``kg_pipelines.progress`` while the run executes in-process."""

    def __enter__(self):
        from tqdm import tqdm

        from kg_pipelines import progress

        self._bars: dict[str, tqdm] = {}

        def listener(stage: str, done: int, total: int) -> None:
            if total == 0:
                return  # nothing to do in this stage: no bar
            bar = self._bars.get(stage)
            if bar is None or bar.disable:
                bar = self._bars[stage] = tqdm(total=total, desc=f"{stage:<30}", unit="", leave=True, file=sys.stderr)
            bar.update(done - bar.n)
            if done >= total:
                bar.close()  # stages run one after the other: finish this line before the next bar

        self._listener = listener
        progress.add_listener(listener)
        return self

    def echo(self, message: str) -> None:
        from tqdm import tqdm

        tqdm.write(message, file=sys.stderr)

    def __exit__(self, *exc):
        from kg_pipelines import progress

        progress.remove_listener(self._listener)
        for bar in self._bars.values():
            bar.close()


def _print_summary(settings: KGSettings) -> None:
    from kg_pipelines.reports import graph_summary

    if not settings.warehouse_path.exists():
        click.echo(f"the graph in {settings.data_dir} is empty: nothing ingested yet")
        return
    click.echo("\n" + graph_summary(settings))


if __name__ == "__main__":
    main()
