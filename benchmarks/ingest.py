"""Ingestion speed against the physical floor: the embedder.

    python benchmarks/ingest.py CORPUS [CORPUS ...] [--limit N]

Each CORPUS is ``[NAME=]PATH``: a folder of .txt/.md/.pdf files, or a JSON passage corpus
(HotpotQA style: a dict title -> list of sentences; MuSiQue style: a list of {title, text}) written
out as one Markdown document per passage (``# title`` then the text). Each corpus is a knowledge
collection (NAME, default the file's stem). The whole sync job (documents -> chunks -> entities,
relationships, questions -> graph) runs in-process with the offline provider on a fresh data dir,
one run per collection, as `kg-pipelines ingest` does. Then, in the same process:
- the embedder alone embeds the same texts the pipeline embedded (every chunk and every atomic
  question): the floor. What a process pays once is paid before any timing starts: loading the
  model, importing the Dagster definitions, creating the Dagster instance's storage;
- the same core stages run without Dagster on another fresh data dir: what the pipeline's own
  work costs, so that pipeline - core = Dagster's own time (runs, steps, events).

Targets (issue "Ingestion at scale"): pipeline / embedder <= 1.5 at every size (aim 1.2), and
Dagster's own time per document flat and under 5 ms at the largest size.
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


def collection_files(spec: str, tmp: Path, limit: int | None):
    from kg_pipelines.ingestion.inbox import scan_directory

    name, _, path = spec.rpartition("=")
    path = Path(path)
    name = name or re.sub(r"[^A-Za-z0-9_]+", "_", path.stem).strip("_")
    if path.is_dir():
        return name, scan_directory(path, name)[:limit]
    folder = tmp / "corpus" / name
    print(f"writing passages of {path} ...", file=sys.stderr)
    write_passages(path, folder, limit)
    return name, scan_directory(folder, name)


def run_core_stages(settings, sources, collections) -> None:
    """The same stages as the assets, called directly (no Dagster): what the pipeline itself costs."""
    from kg_pipelines.embedding import embedder_for
    from kg_pipelines.graph.graph_building import sync_graph
    from kg_pipelines.ingestion.chunking import sync_chunks
    from kg_pipelines.ingestion.context import StageContext, SyncScope
    from kg_pipelines.ingestion.documents import sync_documents
    from kg_pipelines.ingestion.extraction import extract_chunks
    from kg_pipelines.ingestion.questions import generate_questions
    from kg_pipelines.ingestion.tokens import default_token_counter
    from kg_pipelines.llm.client import LLMClient
    from kg_pipelines.llm.providers import make_provider
    from kg_pipelines.stores import warehouse
    from kg_pipelines.stores.source_registry import SourceRegistry
    from kg_pipelines.stores.vectors import VectorStore

    registry = SourceRegistry(settings.source_registry_path)
    registry.register(sources)
    llm = LLMClient(
        make_provider(settings.llm), settings.resolved_entity_types, settings.questions_min, settings.questions_max
    )
    conn = warehouse.connect(settings.warehouse_path)
    ctx = StageContext(
        conn=conn,
        settings=settings,
        llm=llm,
        vectors=VectorStore.for_settings(settings),
        embedder_for=lambda c: embedder_for(settings.embedding_model_for(c)),
    )
    for collection in collections:
        scope = SyncScope(collection)
        sync_documents(ctx, scope, registry.for_collection(collection))
        sync_chunks(ctx, scope, default_token_counter())
        extract_chunks(ctx, scope)
        generate_questions(ctx, scope)
        sync_graph(conn, scope, ctx.now())
    conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpora", nargs="+", help="[NAME=]PATH, one collection each")
    parser.add_argument("--limit", type=int, default=None, help="only the first N passages/files of each corpus")
    parser.add_argument(
        "--instance-config",
        type=Path,
        default=None,
        help="dagster.yaml for the run's instance (default: the project's template, SQLite storage)",
    )
    args = parser.parse_args()

    from dagster import DagsterInstance

    import kg_pipelines
    from kg_pipelines.config import load_settings
    from kg_pipelines.dagster_shell.runner import ingest_sources
    from kg_pipelines.embedding import embedder_for
    from kg_pipelines.stores import warehouse

    with tempfile.TemporaryDirectory(prefix="kg-bench-") as tmp:
        tmp = Path(tmp)
        collections = dict(collection_files(spec, tmp, args.limit) for spec in args.corpora)
        files = [f for found in collections.values() for f in found]
        home = tmp / "graph" / "dagster_home"
        home.mkdir(parents=True)
        template = args.instance_config or Path(kg_pipelines.__file__).with_name("dagster.yaml")  # as the CLI does
        shutil.copy(template, home / "dagster.yaml")
        os.environ["DAGSTER_HOME"] = str(home)
        os.environ["KG_DATA_DIR"] = str(tmp / "graph")
        settings = load_settings(tmp / "graph")
        embedders = {embedder_for(settings.embedding_model_for(c)) for c in collections}
        for embedder in embedders:
            embedder.embed(["warm up the model"])
        embedder = next(iter(embedders))

        instance = DagsterInstance.get()
        import kg_pipelines.definitions  # noqa: F401  (imports are paid once per process, like the model load)

        started = time.perf_counter()
        outcome = ingest_sources(settings, [f.to_source() for f in files], instance)
        pipeline_s = time.perf_counter() - started
        if outcome.failed_runs:
            sys.exit("ingestion failed: " + "; ".join(outcome.errors))

        conn = warehouse.connect(settings.warehouse_path)
        chunks = [r[0] for r in conn.execute("SELECT text FROM chunks ORDER BY chunk_id").fetchall()]
        questions = [
            r[0] for r in conn.execute("SELECT question FROM atomic_questions ORDER BY question_id").fetchall()
        ]
        docs = conn.execute("SELECT count(*) FROM documents").fetchone()[0]
        nodes, edges = (conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("kg_nodes", "kg_edges"))
        conn.close()

        started = time.perf_counter()
        embedder.embed(chunks)
        embedder.embed(questions)
        embed_s = time.perf_counter() - started

        core_settings = load_settings(tmp / "core")
        run_core_stages(load_settings(tmp / "warm"), [], [])  # imports paid before timing, as for the pipeline
        started = time.perf_counter()
        run_core_stages(core_settings, [f.to_source() for f in files], list(collections))
        core_s = time.perf_counter() - started

    ratio = pipeline_s / embed_s
    dagster_s = pipeline_s - core_s
    sizes = ", ".join(f"{name} {len(found)}" for name, found in collections.items())
    print(f"collections            {sizes} documents ({outcome.runs} sync runs)")
    print(f"dagster instance       {args.instance_config or 'project template (SQLite storage)'}")
    print(f"documents ingested     {docs}   chunks {len(chunks)}   questions {len(questions)}   ", end="")
    print(f"nodes {nodes}   edges {edges}")
    print(f"pipeline               {pipeline_s:8.1f} s   {docs / pipeline_s:7.1f} documents/s")
    print(f"embedder alone         {embed_s:8.1f} s   (same {len(chunks)} chunks + {len(questions)} questions)")
    print(f"pipeline / embedder    {ratio:8.2f} x   (target <= 1.5 x, aim 1.2 x)")
    print(f"core stages alone      {core_s:8.1f} s   {core_s / embed_s:7.2f} x the embedder   ", end="")
    print("(same stages without Dagster)")
    print(
        f"Dagster's own time     {dagster_s:8.1f} s   {1000 * dagster_s / max(docs, 1):7.2f} ms per document "
        "(target < 5 ms at the largest size)"
    )


if __name__ == "__main__":
    main()
