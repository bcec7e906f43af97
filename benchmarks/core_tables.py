"""The core stages' tables, hashed: proof that a change to the core left its output identical.

    python benchmarks/core_tables.py CORPUS [...] [--limit N] [--long-documents N] [--hash-embedder]
                                     [--profile FILE] [--keep DIR]

Runs the core stages (documents, chunks, extraction, questions, graph step; no Dagster) on a fresh
data dir, as ``benchmarks/ingest.py`` does (the same corpus options), then prints each warehouse
table's row count and an MD5 of its sorted rows, and the same for each LanceDB table (ids, node
texts' hashes, vectors rounded to 3 decimals). Left out, as two runs of the same code differ there:
timestamps (columns and values inside text), merge ids, temporary paths,
``graph_documents.input_key``, the order of the lists in ``node_merges.snapshot``, and the model's
vectors beyond the 3rd decimal (they differ in the 7th). Compare two branches' lines with ``diff``.
``--profile FILE`` writes a cProfile of the core run (the model already loaded; imports paid
before) and prints its top functions by self time and by cumulative time.
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import json
import os
import pstats
import re
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from ingest import HashEmbedder, collection_files, run_core_stages  # noqa: E402

# what differs between two runs of the same code: times (in JSON and text cells too), merge ids
# (random), the temporary folders' paths, and graph_documents.input_key (a digest of chunk_state
# rows, their times included)
TIME_VALUE = re.compile(r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:\.\d+)?(?:[+-]\d\d:?\d\d|Z)?")
MERGE_ID = re.compile(r"merge-[0-9a-f]{12}")
LEFT_OUT = {("graph_documents", "input_key")}
# JSON cells whose lists are sets: their order follows a DuckDB scan and differs between two runs of
# the same code (node_merges.snapshot's duplicate_edge_support, on main too); hashed sorted
UNORDERED_JSON = {("node_merges", "snapshot")}
# vectors are hashed rounded to 3 decimals: the model's own output differs between two runs of the
# same code by up to 2e-7 (38 of 6,011 node vectors on the long documents, main against main)
VECTOR_DECIMALS = 3


def _sorted_lists(value):
    if isinstance(value, dict):
        return {k: _sorted_lists(v) for k, v in value.items()}
    if isinstance(value, list):
        return sorted((_sorted_lists(v) for v in value), key=lambda v: json.dumps(v, sort_keys=True))
    return value


def table_hashes(warehouse_path: Path, paths: tuple[str, ...] = ()) -> list[str]:
    from kg_pipelines.stores import warehouse

    conn = warehouse.connect(warehouse_path, read_only=True)
    lines = []
    for table in sorted(warehouse.SCHEMA):
        columns = conn.execute(
            "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = ? "
            "ORDER BY ordinal_position",
            [table],
        ).fetchall()
        kept = [name for name, kind in columns if not kind.startswith("TIMESTAMP") and (table, name) not in LEFT_OUT]
        rows = conn.execute(f"SELECT {', '.join(kept)} FROM {table}").fetchall()
        unordered = [i for i, name in enumerate(kept) if (table, name) in UNORDERED_JSON]
        if unordered:
            rows = [
                tuple(
                    json.dumps(_sorted_lists(json.loads(v)), sort_keys=True) if i in unordered else v
                    for i, v in enumerate(row)
                )
                for row in rows
            ]
        texts = []
        for row in rows:
            text = "\x1f".join(map(repr, row))
            for path in paths:
                text = text.replace(path, "<tmp>")
            texts.append(MERGE_ID.sub("merge-X", TIME_VALUE.sub("T", text)))
        texts.sort()
        digest = hashlib.md5("\x1e".join(texts).encode()).hexdigest()
        if rows:
            lines.append(f"{table:24s} {len(rows):8d} {digest}")
    conn.close()
    return lines


def vector_hashes(settings) -> list[str]:
    """Each LanceDB table (chunks, questions, graph nodes): rows, and an MD5 of ids (with the node
    texts' hashes) and vectors (``VECTOR_DECIMALS``)."""
    import numpy as np

    from kg_pipelines.stores.vectors import VectorStore

    db = VectorStore.for_settings(settings).db  # node vectors live in the same place
    lines = []
    for name in sorted(db.list_tables().tables):
        table = db.open_table(name).to_arrow()
        id_col = next(c for c in table.column_names if c.endswith("_id") or c == "id")
        ids = [str(v) for v in table.column(id_col).to_pylist()]
        if "text_hash" in table.column_names:  # graph_nodes: the text each node was embedded from
            ids = [f"{i}:{h}" for i, h in zip(ids, table.column("text_hash").to_pylist(), strict=True)]
        vectors = np.asarray(table.column("vector").to_pylist(), dtype=np.float64)
        md5 = hashlib.md5()
        for i in sorted(range(len(ids)), key=ids.__getitem__):
            md5.update(ids[i].encode())
            md5.update(np.round(vectors[i], VECTOR_DECIMALS).tobytes())
        lines.append(f"lance:{name:18s} {len(ids):8d} {md5.hexdigest()}")
    return lines


def profile_threads(profilers: list) -> None:
    """Every thread started from now on runs under its own profiler (cProfile sees one thread),
    so the worker pools' work (the chunk stage's summaries) is in the profile too."""
    import threading

    run = threading.Thread.run

    def profiled_run(self):
        profiler = cProfile.Profile()
        profilers.append(profiler)
        profiler.enable()
        try:
            run(self)
        finally:
            profiler.disable()

    threading.Thread.run = profiled_run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpora", nargs="+", help="[NAME=]PATH, one collection each")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--long-documents", type=int, default=0)
    parser.add_argument("--hash-embedder", action="store_true", help="hashed trigrams instead of the model")
    parser.add_argument("--profile", type=Path, default=None, help="write a cProfile of the core run here")
    parser.add_argument("--top", type=int, default=40, help="functions listed from the profile")
    parser.add_argument("--keep", type=Path, default=None, help="the data dir to use (kept after the run)")
    parser.add_argument("--threads", type=int, default=1, help="torch's threads (default 1)")
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        help="chunk_jobs.workers (1: every stage in the main thread, for --profile)",
    )
    parser.add_argument("--no-vectors", action="store_true", help="skip the LanceDB tables' hashes")
    args = parser.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    from kg_pipelines.config import load_settings

    with tempfile.TemporaryDirectory(prefix="kg-tables-") as tmp:
        tmp = Path(tmp)
        data = args.keep or tmp / "core"
        collections: dict[str, list] = {}
        for spec in args.corpora:
            name, found = collection_files(spec, tmp, args.limit, args.long_documents)
            collections.setdefault(name, []).extend(found)
        files = [f for found in collections.values() for f in found]
        os.environ["KG_DATA_DIR"] = str(data)
        settings = load_settings(data)
        if args.workers:
            settings.chunk_jobs.workers = args.workers
        embedder = HashEmbedder(settings.node_embedding_model) if args.hash_embedder else None
        run_core_stages(load_settings(tmp / "warm"), [], [], embedder)  # imports (and the model) paid first
        if embedder is None:
            from kg_pipelines.embedding import embedder_for

            for model in {embedder_for(settings.embedding_model_for(c)) for c in collections} | {
                embedder_for(settings.node_embedding_model, settings.llm)
            }:
                model.embed([" ".join(["warm up the model"] * n) for n in (1, 4, 16, 64, 256) for _ in range(16)])
        profiler = cProfile.Profile() if args.profile else None
        thread_profilers: list = []
        if profiler:
            profile_threads(thread_profilers)
        started, cpu = time.perf_counter(), time.process_time()
        if profiler:
            profiler.enable()
        stages, parts, stages_cpu = run_core_stages(
            settings, [f.to_source() for f in files], list(collections), embedder
        )
        if profiler:
            profiler.disable()
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
        print(f"core run {elapsed:.2f} s, CPU {cpu:.2f} s ({len(files)} documents)")
        print("  " + ", ".join(f"{k} {v:.2f}" for k, v in stages_cpu.items()))
        print("  graph parts CPU: " + ", ".join(f"{k} {v[1]:.2f}" for k, v in parts.items()))
        for line in table_hashes(settings.warehouse_path, (str(tmp), str(data))):
            print(line)
        if not args.no_vectors:
            for line in vector_hashes(settings):
                print(line)
        if profiler:
            stats = pstats.Stats(profiler, *thread_profilers, stream=sys.stdout)
            stats.dump_stats(args.profile)
            for key in ("tottime", "cumulative"):
                print(f"--- top {args.top} by {key} (the main thread and {len(thread_profilers)} others)")
                stats.sort_stats(key).print_stats(args.top)


if __name__ == "__main__":
    main()
