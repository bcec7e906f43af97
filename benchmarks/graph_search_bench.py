"""Graph search latency on a synthetic graph (default 100k entity nodes, 500k RELATED edges).

    PYTHONPATH=. .venv/bin/python benchmarks/graph_search_bench.py [--nodes N] [--edges M] [--queries Q]

The graph is built as a graph snapshot in memory (the tables readers load from Parquet), with a
skewed degree distribution (edge targets drawn from a Zipf law, so some nodes are hubs of thousands
of edges, as "Mice" or "Humans" are in a real corpus), one supporting chunk per edge. Printed:
- the time to build the search index of a snapshot version (paid once per published version);
- p50 / p95 / max latency of a depth-2 search by exact name (target p95 <= 50 ms), and of depth 3,
  of a fuzzy match (a misspelt name) and of a search from one of the biggest hubs;
- p50 / p95 of a misspelled part of a name (the first word of a name, one letter dropped: the
  fuzzy tier on the words of names);
- with ``--continuity N``: N searches ranked with sentence continuity (the packaged MiniLM embeds
  the sentences of each term's best paths), first with no sentence cached (a new term), then again
  (cached per snapshot version);
- the time to publish the snapshot from DuckDB and load it (``--publish``, optional: it writes the
  tables to a temporary DuckDB file first).
Terms are drawn at random (seeded) among the node names; each query runs the full search (match,
walk, rank, deduplicate, sources) on one process, no activation is queued.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

from kg_pipelines.config import load_settings
from kg_pipelines.retrieval.graph_search import build_search_index, graph_search
from kg_pipelines.stores.graph_snapshot import GraphSnapshot

SYLLABLES = "ka lo mi ne ra tu si ve po da ge hu zi bo fe ny xa qu".split()


def synthetic_snapshot(nodes: int, edges: int, seed: int = 7) -> GraphSnapshot:
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(SYLLABLES), size=(nodes, 4))
    names = [f"{''.join(SYLLABLES[s] for s in row[:3]).title()} {SYLLABLES[row[3]]}{i}" for i, row in enumerate(picks)]
    types = np.array(["gene", "protein", "compound", "disease", "microbe"])[rng.integers(0, 5, nodes)]
    node_ids = [f"{t}:{n.lower()}" for t, n in zip(types, names)]
    source = rng.integers(0, nodes, edges)
    target = (rng.zipf(1.6, edges) - 1 + rng.integers(0, nodes, edges) * (rng.random(edges) < 0.7)) % nodes
    target = np.where(target == source, (target + 1) % nodes, target)
    strength = np.round(rng.uniform(0.25, 1.0, edges), 3)
    ids = np.array(node_ids, dtype=object)
    src, dst = ids[source], ids[target]
    edge_ids = [f"RELATED:{s}->{t}#{k}" for k, (s, t) in enumerate(zip(src, dst))]
    names_array = np.array(names, dtype=object)
    explanations = [
        f"{a} regulates {b} in a synthetic study." for a, b in zip(names_array[source], names_array[target])
    ]
    chunk_ids = [f"doc{k // 20}#c{k % 20}" for k in range(edges)]
    node_table = pa.table(
        {
            "node_id": node_ids,
            "node_kind": ["entity"] * nodes,
            "node_type": types.tolist(),
            "name": names,
            "description": names,
            "topic_key": [None] * nodes,
            "base_weight": [1.0] * nodes,
            "support_count": [1] * nodes,
            "created_by": ["pipeline"] * nodes,
        }
    )
    edge_table = pa.table(
        {
            "edge_id": edge_ids,
            "source_id": src.tolist(),
            "target_id": dst.tolist(),
            "edge_type": ["RELATED"] * edges,
            "strength": strength,
            "activation_count": [0] * edges,
            "last_activated_at": pa.nulls(edges, pa.timestamp("us", tz="UTC")),
            "created_by": ["pipeline"] * edges,
            "protected": [False] * edges,
            "explanation": explanations,
            "keywords": pa.nulls(edges, pa.list_(pa.string())),
            "support_count": [1] * edges,
        }
    )
    support = pa.table(
        {
            "edge_id": edge_ids,
            "chunk_id": chunk_ids,
            "document_id": [c.split("#")[0] for c in chunk_ids],
            "collection": ["synthetic"] * edges,
        }
    )
    unique_chunks = sorted(set(chunk_ids))
    chunks = pa.table(
        {
            "chunk_id": unique_chunks,
            "document_id": [c.split("#")[0] for c in unique_chunks],
            "collection": ["synthetic"] * len(unique_chunks),
            "seq": [int(c.split("#c")[1]) for c in unique_chunks],
            "title": [f"Synthetic document {c.split('#')[0]}" for c in unique_chunks],
        }
    )
    documents = pa.table({"document_id": [], "collection": [], "title": [], "source_path": []})
    node_support = pa.table({"node_id": [], "chunk_id": [], "document_id": [], "collection": []})
    return GraphSnapshot(
        version="v-synthetic",
        path=Path("."),
        published_at=time.time(),
        nodes=node_table,
        edges=edge_table,
        node_support=node_support,
        edge_support=support,
        chunks=chunks,
        documents=documents,
    )


def percentiles(samples_ms: list[float]) -> str:
    ordered = sorted(samples_ms)
    p95 = ordered[max(0, int(round(0.95 * len(ordered))) - 1)]
    return f"p50 {statistics.median(ordered):6.2f} ms   p95 {p95:6.2f} ms   max {ordered[-1]:6.2f} ms"


def timed(snapshot, settings, terms, depth, embed_texts=None) -> tuple[list[float], int]:
    samples, paths = [], 0
    for term in terms:
        started = time.perf_counter()
        result = graph_search(snapshot, term, settings, depth=depth, embed_texts=embed_texts)
        samples.append((time.perf_counter() - started) * 1000)
        paths += len(result.paths)
    return samples, paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--edges", type=int, default=500_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--publish", action="store_true", help="also time publishing and loading the snapshot")
    parser.add_argument("--continuity", type=int, default=0, help="searches to time with sentence continuity")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings(Path(tmp))
        started = time.perf_counter()
        snapshot = synthetic_snapshot(args.nodes, args.edges)
        print(f"synthetic graph: {args.nodes:,} nodes, {args.edges:,} edges ({time.perf_counter() - started:.1f} s)")
        started = time.perf_counter()
        index = snapshot.derived("graph_search_index", build_search_index)
        print(f"search index built once per snapshot version: {time.perf_counter() - started:.2f} s")
        degree = np.diff(index.out_offsets) + np.diff(index.in_offsets)
        print(f"degree: median {int(np.median(degree))}, max {int(degree.max())} (hubs from the Zipf targets)")

        rng = np.random.default_rng(11)
        names = index.names
        terms = [names[i] for i in rng.integers(0, len(names), args.queries)]
        timed(snapshot, settings, terms[:20], 2)  # warm-up
        for depth in (2, 3):
            samples, paths = timed(snapshot, settings, terms, depth)
            label = f"depth {depth}, exact name ({args.queries} terms, {paths / len(terms):.1f} paths each):"
            print(f"{label:<54}{percentiles(samples)}")
        misspelt = [t[:-3] + t[-2:] if len(t) > 4 else t for t in terms[: max(20, args.queries // 5)]]
        samples, _ = timed(snapshot, settings, misspelt, 2)
        label = f"depth 2, fuzzy match ({len(misspelt)} misspelt terms):"
        print(f"{label:<54}{percentiles(samples)}")
        parts = [t.split()[0] for t in terms[: max(20, args.queries // 5)]]
        parts = [p[:2] + p[3:] if len(p) > 5 else p for p in parts]  # one letter dropped
        samples, _ = timed(snapshot, settings, parts, 2)
        label = f"depth 2, misspelled part of a name ({len(parts)} terms):"
        print(f"{label:<54}{percentiles(samples)}")
        if args.continuity:
            from kg_pipelines.embedding import embedder_for

            embed_texts = embedder_for(settings.node_embedding_model).embed
            embed_texts(["warm up"])
            chosen = terms[: args.continuity]
            for label in ("continuity, no sentence cached:", "continuity, sentences cached:"):
                samples, _ = timed(snapshot, settings, chosen, 2, embed_texts)
                print(f"{f'depth 2, {label} ({len(chosen)} terms)':<54}{percentiles(samples)}")
        hubs = [names[i] for i in np.argsort(-degree)[:20]]
        samples, _ = timed(snapshot, settings, hubs, 2)
        print(f"{'depth 2, from the 20 biggest hubs:':<54}{percentiles(samples)}")

        if args.publish:
            from kg_pipelines.stores.graph_snapshot import load_graph_snapshot, publish_graph_snapshot
            from kg_pipelines.stores.warehouse import connect

            conn = connect(settings.warehouse_path)
            for table, data in (("kg_nodes", snapshot.nodes), ("kg_edges", snapshot.edges)):
                conn.register("_t", data)
                conn.execute(f"DELETE FROM {table}")
                extra = ", now() AS created_at, now() AS updated_at" if table == "kg_nodes" else ", now() AS created_at"
                conn.execute(f"INSERT INTO {table} BY NAME SELECT *{extra} FROM _t")
                conn.unregister("_t")
            started = time.perf_counter()
            publish_graph_snapshot(conn, settings)
            published = time.perf_counter() - started
            started = time.perf_counter()
            load_graph_snapshot(settings)
            print(f"publish from DuckDB: {published:.2f} s; load in a reader: {time.perf_counter() - started:.2f} s")
            conn.close()


if __name__ == "__main__":
    main()
