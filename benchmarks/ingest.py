"""Ingestion speed against the physical floor: the embedder.

    python benchmarks/ingest.py CORPUS [--limit N] [--collection NAME]

CORPUS is a folder of .txt/.md/.pdf files, or a JSON passage corpus (HotpotQA style: a dict
title -> list of sentences; MuSiQue style: a list of {title, text}), written out as one document
per passage. The whole ingestion job (documents -> chunks -> entities, relationships, questions ->
graph) runs in-process with the offline provider on a fresh data dir, as `kg-pipelines ingest`
does. Then, in the same process, the embedder alone embeds the same texts the pipeline embedded
(every chunk and every atomic question), and the script prints both times and their ratio.
The embedding model is loaded before either timing starts, so neither pays for the load.

It also runs the same core stages without Dagster on another fresh data dir, so the report
separates what the pipeline's own work costs from Dagster's per-run and per-partition bookkeeping.

Target (issue 2): pipeline time <= 1.5 x embedding time.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def write_passages(corpus: Path, out: Path, limit: int | None) -> int:
    data = json.loads(corpus.read_text(encoding="utf-8"))
    if isinstance(data, dict):
        passages = [(title, "".join(sentences)) for title, sentences in data.items()]
    else:
        passages = [(p["title"], p["text"]) for p in data]
    passages = passages[:limit] if limit else passages
    out.mkdir(parents=True, exist_ok=True)
    for i, (title, text) in enumerate(passages):
        slug = re.sub(r"[^A-Za-z0-9]+", "_", title).strip("_")[:60] or "passage"
        (out / f"{i:05d}_{slug}.md").write_text(f"# {title}\n\n{text.strip()}\n", encoding="utf-8")
    return len(passages)


def run_core_stages(settings, sources) -> None:
    """The same stages as the assets, called directly (no Dagster): what the pipeline itself costs."""
    from datetime import datetime, timezone

    from kg_pipelines.ingestion.chunk_jobs import RetryPolicy
    from kg_pipelines.ingestion.chunking import build_chunks
    from kg_pipelines.ingestion.documents import load_documents
    from kg_pipelines.embedding import embedder_for
    from kg_pipelines.ingestion.extraction import extract_chunks
    from kg_pipelines.graph.graph_building import update_graph
    from kg_pipelines.llm.client import LLMClient
    from kg_pipelines.llm.providers import make_provider
    from kg_pipelines.ingestion.questions import generate_questions
    from kg_pipelines.stores import warehouse
    from kg_pipelines.stores.source_registry import SourceRegistry
    from kg_pipelines.stores.vectors import VectorStore
    from kg_pipelines.ingestion.tokens import default_token_counter

    registry = SourceRegistry(settings.source_registry_path)
    registry.register(sources)
    ids = [s.document_id for s in sources]
    llm = LLMClient(make_provider(settings.llm), settings.resolved_entity_types, settings.questions_min, settings.questions_max)
    jobs = settings.chunk_jobs
    policy = RetryPolicy(jobs.max_chunk_retries, jobs.backoff_base_s, jobs.backoff_max_s)
    embedder = lambda collection: embedder_for(settings.embedding_model_for(collection))  # noqa: E731
    vectors, now = VectorStore(settings.lancedb_dir), datetime.now(timezone.utc)
    conn = warehouse.connect(settings.warehouse_path)
    load_documents(conn, registry.lookup(ids), ids, int(settings.max_document_mb * 1e6), now)
    build_chunks(conn, vectors, lambda c, t, p: llm.summarize(c, t, p).summary, embedder, ids, settings.chunk_tokens,
                 default_token_counter(), policy, jobs.workers, now)
    extract_chunks(conn, llm.extract, ids, policy, jobs.workers, now)
    generate_questions(conn, vectors, llm.atomic_questions, embedder, ids, policy, jobs.workers, now)
    update_graph(conn, ids, now)
    conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--limit", type=int, default=None, help="only the first N passages/files")
    parser.add_argument("--collection", default="bench")
    parser.add_argument("--instance-config", type=Path, default=None,
                        help="dagster.yaml for the run's instance (default: the project's template, SQLite storage)")
    args = parser.parse_args()

    from dagster import DagsterInstance

    import kg_pipelines

    from kg_pipelines.config import load_settings
    from kg_pipelines.dagster_shell.runner import ingest_sources
    from kg_pipelines.embedding import embedder_for
    from kg_pipelines.ingestion.inbox import scan_directory
    from kg_pipelines.stores import warehouse

    with tempfile.TemporaryDirectory(prefix="kg-bench-") as tmp:
        tmp = Path(tmp)
        if args.corpus.is_dir():
            folder = args.corpus
        else:
            folder = tmp / "corpus"
            print(f"writing passages of {args.corpus} ...", file=sys.stderr)
            write_passages(args.corpus, folder, args.limit)
        files = scan_directory(folder, args.collection)
        if args.corpus.is_dir() and args.limit:
            files = files[: args.limit]
        home = tmp / "dagster_home"
        home.mkdir()
        template = args.instance_config or Path(kg_pipelines.__file__).with_name("dagster.yaml")  # as the CLI does
        shutil.copy(template, home / "dagster.yaml")
        os.environ["DAGSTER_HOME"] = str(home)
        os.environ["KG_DATA_DIR"] = str(tmp / "graph")
        settings = load_settings(tmp / "graph")
        embedder = embedder_for(settings.embedding_model_for(args.collection))
        embedder.embed(["warm up the model"])

        instance = DagsterInstance.get()
        started = time.perf_counter()
        outcome = ingest_sources(settings, [f.to_source() for f in files], instance)
        pipeline_s = time.perf_counter() - started
        if outcome.failed_runs:
            sys.exit("ingestion failed: " + "; ".join(outcome.errors))

        conn = warehouse.connect(settings.warehouse_path)
        chunks = [r[0] for r in conn.execute("SELECT text FROM chunks ORDER BY chunk_id").fetchall()]
        questions = [r[0] for r in conn.execute("SELECT question FROM atomic_questions ORDER BY question_id").fetchall()]
        docs = conn.execute("SELECT count(*) FROM documents").fetchone()[0]
        nodes, edges = (conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("kg_nodes", "kg_edges"))
        conn.close()

        started = time.perf_counter()
        embedder.embed(chunks)
        embedder.embed(questions)
        embed_s = time.perf_counter() - started

        core_settings = load_settings(tmp / "core")
        started = time.perf_counter()
        run_core_stages(core_settings, [f.to_source() for f in files])
        core_s = time.perf_counter() - started

    ratio = pipeline_s / embed_s
    dagster_s = pipeline_s - core_s
    print(f"corpus                 {args.corpus} ({len(files)} documents)")
    print(f"dagster instance       {args.instance_config or 'project template (SQLite storage)'}")
    print(f"documents ingested     {docs}   chunks {len(chunks)}   questions {len(questions)}   nodes {nodes}   edges {edges}")
    print(f"pipeline               {pipeline_s:8.1f} s   {docs / pipeline_s:7.1f} documents/s   {len(chunks) / pipeline_s:7.1f} chunks/s")
    print(f"embedder alone         {embed_s:8.1f} s   (same {len(chunks)} chunks + {len(questions)} questions)")
    print(f"pipeline / embedder    {ratio:8.2f} x   (target <= 1.5 x)")
    print(f"core stages alone      {core_s:8.1f} s   {core_s / embed_s:7.2f} x the embedder   (same stages, called without Dagster)")
    print(f"Dagster bookkeeping    {dagster_s:8.1f} s   {1000 * dagster_s / max(docs, 1):7.1f} ms per document "
          f"(run creation, one planned + one materialization event per asset and document)")


if __name__ == "__main__":
    main()
