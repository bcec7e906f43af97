"""Ingestion speed against the physical floor: the embedder.

    python benchmarks/ingest.py CORPUS [CORPUS ...] [--limit N] [--long-documents N] [--one-collection]

Each CORPUS is ``[NAME=]PATH``: a folder of .txt/.md/.pdf files, or a JSON passage corpus
(HotpotQA style: a dict title -> list of sentences; MuSiQue style: a list of {title, text}) written
out as one Markdown document per passage (``# title`` then the text). Each corpus is a knowledge
collection (NAME, default the file's stem). The whole sync job (documents -> chunks -> entities,
relationships, questions -> graph) runs in-process with the offline provider on a fresh data dir,
one run per collection, as `kg-pipelines ingest` does. Then, in the same process:
- the embedder alone embeds the texts the pipeline has to embed (every chunk, every atomic
  question and every named node's name): the floor. What a process pays once is paid before any
  timing starts: loading the model, importing the Dagster definitions, creating the Dagster
  instance's storage;
- the same core stages run without Dagster on another fresh data dir: what the pipeline's own
  work costs, so that pipeline - core = Dagster's own time (runs, steps, events); each stage is
  timed (seconds and milliseconds per passage), and the graph step part by part
  (``graph/graph_step.py``: graph building, node vectors, stated aliases, formation-time dedup,
  publication, checks).

Dagster's own time is also measured inside the runs, free of the noise between two runs: the runs'
CPU less the CPU of the core calls the assets make (documents, chunks, extraction, questions, graph
step: ``core_calls_timed``), i.e. the engine, its event log, the assets' metadata and checks; and
the events the runs wrote, by type (every event is a write to the instance's storage).

``--long-documents N`` writes each JSON corpus as N long documents instead (its passages in turn,
each under a ``## title`` heading); ``--one-collection`` makes all corpora one collection (one run).
The graph step's share is the ``knowledge_graph`` step's time in the Dagster runs over the whole
pipeline time. Peak RSS is the process's (the pipeline, then the floor and the core run).

Targets (issue 22): pipeline / embedder <= 1.2 at every size, the graph step under 10 % of the run,
each stage's time per passage and the peak RSS flat as the corpus grows; Dagster's own time per
document flat and under 5 ms at the largest size.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import sys
import tempfile
import time
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def read_passages(corpus: Path, limit: int | None) -> list[tuple[str, str]]:
    data = json.loads(corpus.read_text(encoding="utf-8"))
    if isinstance(data, dict):
        passages = [(title, "".join(sentences)) for title, sentences in data.items()]
    else:
        passages = [(p["title"], p["text"]) for p in data]
    return passages[:limit] if limit else passages


def write_passages(corpus: Path, out: Path, limit: int | None, long_documents: int = 0) -> int:
    """One Markdown document per passage, or ``long_documents`` documents of consecutive passages
    (each under a ``## title`` heading). The number of documents written."""
    passages = read_passages(corpus, limit)
    out.mkdir(parents=True, exist_ok=True)
    if long_documents:
        per = -(-len(passages) // long_documents)
        parts = [passages[i : i + per] for i in range(0, len(passages), per)]
        for i, part in enumerate(parts):
            body = "\n\n".join(f"## {title}\n\n{text.strip()}" for title, text in part)
            (out / f"{i:05d}_{corpus.stem}_part_{i + 1}.md").write_text(
                f"# {corpus.stem} part {i + 1}\n\n{body}\n", encoding="utf-8"
            )
        return len(parts)
    for i, (title, text) in enumerate(passages):
        slug = re.sub(r"[^A-Za-z0-9]+", "_", title).strip("_")[:60] or "passage"
        (out / f"{i:05d}_{slug}.md").write_text(f"# {title}\n\n{text.strip()}\n", encoding="utf-8")
    return len(passages)


def collection_files(spec: str, tmp: Path, limit: int | None, long_documents: int = 0, name: str | None = None):
    """(collection name, its files); ``name`` puts the corpus into that collection (a sub-folder)."""
    from kg_pipelines.ingestion.inbox import scan_directory

    own, _, path = spec.rpartition("=")
    path = Path(path)
    own = own or re.sub(r"[^A-Za-z0-9_]+", "_", path.stem).strip("_")
    if path.is_dir():
        return name or own, scan_directory(path, name or own)[:limit]
    folder = tmp / "corpus" / (name or own) / f"{own}_{path.stem}"
    print(f"writing passages of {path} ...", file=sys.stderr)
    write_passages(path, folder, limit, long_documents)
    return name or own, scan_directory(folder, name or own)


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def rss_mb() -> float:
    """The process's resident size now (Linux), what it keeps between runs; 0 where unknown."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            return next(int(line.split()[1]) / 1024 for line in status if line.startswith("VmRSS:"))
    except (OSError, StopIteration):
        return 0.0


def graph_step_seconds(instance) -> tuple[float, float]:
    """(the knowledge_graph steps' seconds, all steps' seconds) over the instance's runs."""
    graph = total = 0.0
    for run in instance.get_runs():
        for stat in instance.get_run_step_stats(run.run_id):
            if stat.start_time and stat.end_time:
                total += stat.end_time - stat.start_time
                if stat.step_key == "knowledge_graph":
                    graph += stat.end_time - stat.start_time
    return graph, total


class HashEmbedder:
    """A stand-in for the model (``--hash-embedder``): each text's vector from hashed character
    trigrams, so everything but the model's own time is measured (what the graph step costs as the
    corpus grows, without an hour of embedding)."""

    def __init__(self, model_name: str, dim: int = 384):
        self.model_name, self.dim = model_name, dim

    def embed(self, texts: list[str]):
        import hashlib

        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            padded = f"  {text.lower()} "
            for i in range(len(padded) - 2):
                out[row, int(hashlib.md5(padded[i : i + 3].encode()).hexdigest()[:8], 16) % self.dim] += 1.0
            out[row] /= np.linalg.norm(out[row]) or 1.0
        return out


@contextmanager
def core_calls_timed():
    """CPU seconds of the core calls the assets make (the same functions ``run_core_stages``
    calls), summed while the block runs: a run's CPU less these is Dagster's own."""
    from kg_pipelines.dagster_shell import graph_assets, ingestion_assets

    spent = {"cpu": 0.0}
    calls = [(ingestion_assets, n) for n in ("sync_documents", "sync_chunks", "extract_chunks", "generate_questions")]
    calls.append((graph_assets, "run_graph_step"))
    originals = [(module, name, getattr(module, name)) for module, name in calls]

    def timed(call):
        def wrapper(*args, **kwargs):
            cpu = time.process_time()
            try:
                return call(*args, **kwargs)
            finally:
                spent["cpu"] += time.process_time() - cpu

        return wrapper

    for module, name, call in originals:
        setattr(module, name, timed(call))
    try:
        yield spent
    finally:
        for module, name, call in originals:
            setattr(module, name, call)


def events_by_type(instance) -> Counter:
    """The events the instance's runs wrote, by type (log lines as ``LOG``)."""
    counts: Counter = Counter()
    for run in instance.get_runs():
        for entry in instance.all_logs(run.run_id):
            counts[entry.dagster_event.event_type_value if entry.dagster_event else "LOG"] += 1
    return counts


def run_core_stages(
    settings, sources, collections, embedder=None, per_collection: list | None = None
) -> tuple[dict[str, float], dict[str, tuple[float, float]], dict[str, float]]:
    """The same stages as the assets, called directly (no Dagster): what the pipeline itself costs.
    (seconds by stage, (seconds, CPU seconds) by part of the graph step, CPU seconds by stage),
    summed over the collections;
    ``per_collection`` gets (collection, its stage seconds, its graph parts' seconds, peak RSS MB,
    RSS MB after it) for each. ``embedder``: one embedder for every text instead of the settings' models."""
    from kg_pipelines.embedding import embedder_for
    from kg_pipelines.graph.graph_step import run_graph_step
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
        embedder_for=lambda c: embedder or embedder_for(settings.embedding_model_for(c)),
    )
    node_embedder = embedder or embedder_for(settings.node_embedding_model, settings.llm)
    stages: dict[str, float] = {}
    stages_cpu: dict[str, float] = {}
    parts: dict[str, tuple[float, float]] = {}  # part -> (seconds, CPU seconds)

    def timed(stage: str, call, *args):
        started, cpu = time.perf_counter(), time.process_time()
        result = call(*args)
        stages[stage] = stages.get(stage, 0.0) + time.perf_counter() - started
        stages_cpu[stage] = stages_cpu.get(stage, 0.0) + time.process_time() - cpu
        return result

    for collection in collections:
        before = dict(stages)
        scope = SyncScope(collection)
        timed("documents", sync_documents, ctx, scope, registry.for_collection(collection))
        timed("chunks", sync_chunks, ctx, scope, default_token_counter())
        timed("extract", extract_chunks, ctx, scope)
        timed("questions", generate_questions, ctx, scope)
        step = timed("knowledge_graph", run_graph_step, conn, settings, scope, ctx.now(), node_embedder)
        for part, seconds in step.timings.items():
            was = parts.get(part, (0.0, 0.0))
            parts[part] = (was[0] + seconds, was[1] + step.cpu_timings[part])
        if per_collection is not None:
            mine = {k: v - before.get(k, 0.0) for k, v in stages.items()}
            per_collection.append((collection, mine, dict(step.timings), peak_rss_mb(), rss_mb()))
    conn.close()
    return stages, parts, stages_cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpora", nargs="+", help="[NAME=]PATH, one collection each")
    parser.add_argument("--limit", type=int, default=None, help="only the first N passages/files of each corpus")
    parser.add_argument(
        "--long-documents", type=int, default=0, help="each JSON corpus as N long documents (default: one a passage)"
    )
    parser.add_argument("--one-collection", default=None, metavar="NAME", help="all corpora in one collection NAME")
    parser.add_argument("--label", default=None, help="the corpus's name in the Markdown row printed last")
    parser.add_argument(
        "--core-only",
        action="store_true",
        help="only the core stages (no Dagster run, no floor): each collection's stage times per passage and RSS",
    )
    parser.add_argument(
        "--hash-embedder", action="store_true", help="with --core-only: hashed trigrams instead of the model"
    )
    parser.add_argument(
        "--instance-config",
        type=Path,
        default=None,
        help="dagster.yaml for the run's instance (default: the project's template, SQLite storage)",
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=None,
        help="torch's threads (default: torch's choice); 1 makes CPU times mean work on a loaded machine "
        "(waiting threads of a multi-threaded run spin and count as CPU)",
    )
    args = parser.parse_args()
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)

    from dagster import DagsterInstance

    import kg_pipelines
    from kg_pipelines.config import load_settings
    from kg_pipelines.dagster_shell.runner import ingest_sources
    from kg_pipelines.embedding import embedder_for
    from kg_pipelines.stores import warehouse
    from kg_pipelines.stores.node_vectors import UNEMBEDDED_KINDS, node_text

    with tempfile.TemporaryDirectory(prefix="kg-bench-") as tmp:
        tmp = Path(tmp)
        collections: dict[str, list] = {}
        for spec in args.corpora:
            name, found = collection_files(spec, tmp, args.limit, args.long_documents, args.one_collection)
            collections.setdefault(name, []).extend(found)
        files = [f for found in collections.values() for f in found]
        if args.core_only:
            core_only(args, tmp, collections, files)
            return
        home = tmp / "graph" / "dagster_home"
        home.mkdir(parents=True)
        template = args.instance_config or Path(kg_pipelines.__file__).with_name("dagster.yaml")  # as the CLI does
        shutil.copy(template, home / "dagster.yaml")
        os.environ["DAGSTER_HOME"] = str(home)
        os.environ["KG_DATA_DIR"] = str(tmp / "graph")
        settings = load_settings(tmp / "graph")
        embedders = {embedder_for(settings.embedding_model_for(c)) for c in collections}
        embedders.add(embedder_for(settings.node_embedding_model, settings.llm))
        for embedder in embedders:
            # texts of every length the run will embed (a name to a chunk cut at the model's limit),
            # so that first-use costs of longer sequences fall before the timings, not in the pipeline's
            embedder.embed([" ".join(["warm up the model"] * n) for n in (1, 4, 16, 64, 256) for _ in range(16)])
        embedder = embedder_for(settings.embedding_model_for(next(iter(collections))))
        node_embedder = embedder_for(settings.node_embedding_model, settings.llm)

        instance = DagsterInstance.get()
        import kg_pipelines.definitions  # noqa: F401  (imports are paid once per process, like the model load)

        with core_calls_timed() as inside:
            started, cpu = time.perf_counter(), time.process_time()
            outcome = ingest_sources(settings, [f.to_source() for f in files], instance)
            pipeline_s, pipeline_cpu = time.perf_counter() - started, time.process_time() - cpu
        events = events_by_type(instance)
        if outcome.failed_runs:
            sys.exit("ingestion failed: " + "; ".join(outcome.errors))
        graph_s, steps_s = graph_step_seconds(instance)
        from dagster import AssetKey

        event = instance.get_latest_materialization_event(AssetKey("kg_nodes"))
        dagster_parts = event.asset_materialization.metadata["seconds_by_part"].value if event else {}
        pipeline_rss = peak_rss_mb()

        conn = warehouse.connect(settings.warehouse_path)
        chunks = [r[0] for r in conn.execute("SELECT text FROM chunks ORDER BY chunk_id").fetchall()]
        questions = [
            r[0] for r in conn.execute("SELECT question FROM atomic_questions ORDER BY question_id").fetchall()
        ]
        names = [
            node_text(r[0], None)
            for r in conn.execute(
                "SELECT name FROM kg_nodes WHERE node_kind NOT IN (SELECT unnest(?::VARCHAR[])) ORDER BY node_id",
                [list(UNEMBEDDED_KINDS)],
            ).fetchall()
        ]
        docs = conn.execute("SELECT count(*) FROM documents").fetchone()[0]
        nodes, edges = (conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("kg_nodes", "kg_edges"))
        conn.close()

        floor: dict[str, float] = {}
        floor_cpu: dict[str, float] = {}
        cpu = time.process_time()
        for label, texts, model in (("chunks", chunks, embedder), ("questions", questions, embedder)) + (
            ("node names", names, node_embedder),
        ):
            started, part_cpu = time.perf_counter(), time.process_time()
            model.embed(texts)
            floor[label] = time.perf_counter() - started
            floor_cpu[label] = time.process_time() - part_cpu
        embed_s, embed_cpu = sum(floor.values()), time.process_time() - cpu
        # the same texts through sentence-transformers' own encode (its batching by characters):
        # the floor as a user calling the library would measure it
        plain_s = None
        if all(hasattr(m, "_model") for m in (embedder, node_embedder)):
            started = time.perf_counter()
            for texts, model in ((chunks, embedder), (questions, embedder), (names, node_embedder)):
                model._model.encode(texts, batch_size=model.batch_size, normalize_embeddings=True)
            plain_s = time.perf_counter() - started

        core_settings = load_settings(tmp / "core")
        run_core_stages(load_settings(tmp / "warm"), [], [])  # imports paid before timing, as for the pipeline
        started, cpu = time.perf_counter(), time.process_time()
        stages, parts, stages_cpu = run_core_stages(core_settings, [f.to_source() for f in files], list(collections))
        core_s, core_cpu = time.perf_counter() - started, time.process_time() - cpu

    passages = max(docs, 1)
    if args.long_documents:
        passages = sum(len(read_passages(Path(spec.rpartition("=")[2]), args.limit)) for spec in args.corpora)
    ratio = pipeline_s / embed_s
    dagster_s = pipeline_s - core_s
    sizes = ", ".join(f"{name} {len(found)}" for name, found in collections.items())
    print(f"collections            {sizes} documents ({outcome.runs} sync runs), {passages} passages")
    print(f"dagster instance       {args.instance_config or 'project template (SQLite storage)'}")
    print(f"torch threads          {args.threads or 'default'}   load average {os.getloadavg()[0]:.1f} at the end")
    print(f"documents ingested     {docs}   chunks {len(chunks)}   questions {len(questions)}   ", end="")
    print(f"named nodes {len(names)}   nodes {nodes}   edges {edges}")
    print(f"pipeline               {pipeline_s:8.1f} s   {docs / pipeline_s:7.1f} documents/s")
    print(
        f"embedder alone         {embed_s:8.1f} s   ("
        + ", ".join(f"{label} {floor[label]:.1f} s" for label in floor)
        + f": {len(chunks)} chunks, {len(questions)} questions, {len(names)} node names)"
    )
    print("  in CPU time          " + ", ".join(f"{label} {floor_cpu[label]:.1f} s" for label in floor_cpu))
    print(f"pipeline / embedder    {ratio:8.2f} x   (target <= 1.2 x)")
    if plain_s:
        print(
            f"  against plain encode {pipeline_s / plain_s:8.2f} x   (the same texts through sentence-transformers' "
            f"encode, its own batching by characters: {plain_s:.1f} s)"
        )
    print(
        f"  in CPU time          {pipeline_cpu / embed_cpu:8.2f} x   ({pipeline_cpu:.1f} s / {embed_cpu:.1f} s of the "
        "process's CPU, all threads: the ratio whatever else the machine runs)"
    )
    print(
        f"graph step (Dagster)   {graph_s:8.1f} s   {100 * graph_s / pipeline_s:5.1f} % of the pipeline "
        f"(steps in all: {steps_s:.1f} s; aim < 10 %)"
    )
    print(f"core stages alone      {core_s:8.1f} s   {core_s / embed_s:7.2f} x the embedder   ", end="")
    print(f"(same stages without Dagster; CPU {core_cpu:.1f} s, {core_cpu / embed_cpu:.2f} x the embedder's)")
    for stage, seconds in stages.items():
        print(
            f"  {stage:20s} {seconds:8.1f} s   {1000 * seconds / passages:7.2f} ms per passage   "
            f"CPU {stages_cpu[stage]:7.2f} s"
        )
    beyond = stages.get("knowledge_graph", 0.0) - parts.get("node_vectors", (0.0, 0.0))[0]
    print(
        f"graph step beyond its embedding {beyond:.1f} s: {100 * beyond / core_s:.1f} % of the core run "
        "(the node vectors' embedding is part of the floor)"
    )
    in_dagster = ", ".join(f"{k} {v:.2f} s" for k, v in dagster_parts.items())
    print(f"graph step by part in the last Dagster run: {in_dagster}")
    print("graph step by part (core run)")
    for part, (seconds, cpu_s) in parts.items():
        print(f"  {part:20s} {seconds:8.2f} s   {1000 * seconds / passages:7.2f} ms per passage   CPU {cpu_s:7.2f} s")
    print(
        f"Dagster's own time     {dagster_s:8.1f} s   {1000 * dagster_s / max(docs, 1):7.2f} ms per document "
        "(target < 5 ms at the largest size)"
    )
    print(f"  in CPU time          {pipeline_cpu - core_cpu:8.1f} s   (the pipeline's CPU less the core run's)")
    own_cpu = pipeline_cpu - inside["cpu"]
    print(
        f"  inside the runs      {own_cpu:8.2f} s   {1000 * own_cpu / max(docs, 1):7.2f} ms per document "
        f"(CPU: the runs' less their core calls'; {outcome.runs} run(s), {sum(events.values())} events: "
        + ", ".join(f"{kind} {n}" for kind, n in events.most_common())
        + ")"
    )
    print(f"peak RSS               {pipeline_rss:8.0f} MB after the pipeline, {peak_rss_mb():.0f} MB at the end")
    graph_core = stages.get("knowledge_graph", 0.0)
    print()
    print(
        f"| {args.label or sizes} | {passages:,} | {docs:,} | {pipeline_s:.1f} s | {embed_s:.1f} s | **{ratio:.2f}** | "
        f"{pipeline_cpu / embed_cpu:.2f} | "
        f"{100 * graph_s / pipeline_s:.1f} % | "
        + " / ".join(f"{1000 * stages.get(s, 0.0) / passages:.1f}" for s in ("chunks", "extract", "questions"))
        + f" / {1000 * graph_core / passages:.1f} | {pipeline_rss:.0f} MB |"
    )


def core_only(args, tmp: Path, collections: dict[str, list], files: list) -> None:
    """The core stages alone, collection after collection: each stage's milliseconds per document
    and the peak RSS after each collection, to show them flat (or not) as the graph grows."""
    from kg_pipelines.config import load_settings

    os.environ["KG_DATA_DIR"] = str(tmp / "core")
    settings = load_settings(tmp / "core")
    embedder = HashEmbedder(settings.node_embedding_model) if args.hash_embedder else None
    run_core_stages(load_settings(tmp / "warm"), [], [], embedder)  # imports (and the model) paid before timing
    rows: list = []
    started = time.perf_counter()
    run_core_stages(settings, [f.to_source() for f in files], list(collections), embedder, rows)
    elapsed = time.perf_counter() - started
    print(f"core stages, {len(files)} documents in {len(collections)} collections: {elapsed:.1f} s")
    print(f"embedder: {'hashed trigrams (no model)' if embedder else 'the settings models'}")
    stages = list(rows[0][1]) if rows else []
    parts = list(rows[0][2]) if rows else []
    print("| collection | documents (so far) | " + " | ".join(stages + parts) + " | peak RSS | RSS after it |")
    print("|---" * (4 + len(stages) + len(parts)) + "|")
    seen = 0
    for collection, stage_s, part_s, rss, rss_after in rows:
        n = max(len(collections[collection]), 1)
        seen += len(collections[collection])
        cells = [f"{1000 * stage_s[k] / n:.2f}" for k in stages] + [f"{1000 * part_s[k] / n:.2f}" for k in parts]
        print(f"| {collection} | {n:,} ({seen:,}) | " + " | ".join(cells) + f" | {rss:.0f} MB | {rss_after:.0f} MB |")
    print("(milliseconds per document; peak RSS of the process so far, and its resident size after the collection)")


if __name__ == "__main__":
    main()
