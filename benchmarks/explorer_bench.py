"""How fast the explorer answers on a large graph (default 100k entity nodes, 500k RELATED edges).

    PYTHONPATH=. .venv/bin/python benchmarks/explorer_bench.py [--nodes N] [--edges M] [--queries Q]

The synthetic graph of ``graph_search_bench.py`` (names from syllables, Zipf-skewed targets, so a
few hubs hold thousands of edges) is published as a real snapshot folder, and the real app answers
HTTP requests in-process (FastAPI's test client: routing, validation, JSON, no network):
- ``/explore/api/neighbourhood?term=NAME&depth=2&limit=300``: the graph search of the term (its
  paths) plus the bounded neighbourhood, what the page asks when a user searches;
- ``/explore/api/expand?node_id=ID&limit=300``: an "N more" expansion, including from the
  biggest hubs;
- ``/explore/api/node?node_id=ID``: a click on a node.
Baseline in the same run: ``/graph-search?term=NAME&depth=2`` alone. Printed: p50 / p95 / max in
ms, the ratio of each p95 to the baseline's and to the target of 500 ms. The search index of a
snapshot version is built once per version (timed apart; a server builds it in the background
before it serves a new version).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
from fastapi.testclient import TestClient

from kg_pipelines.api.app import create_app
from kg_pipelines.config import load_settings
from kg_pipelines.retrieval.graph_search import search_index
from kg_pipelines.stores.graph_snapshot import FORMAT_VERSION, MANIFEST, POINTER, SNAPSHOT_DIR, load_graph_snapshot

TARGET_MS = 500.0


def _synthetic_snapshot(nodes: int, edges: int):
    spec = importlib.util.spec_from_file_location(
        "graph_search_bench", Path(__file__).with_name("graph_search_bench.py")
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.synthetic_snapshot(nodes, edges)


def publish(snapshot, data_dir: Path) -> None:
    """Write the in-memory snapshot as the data dir's current snapshot version."""
    root = data_dir / SNAPSHOT_DIR
    folder = root / "v-bench"
    folder.mkdir(parents=True)
    tables = ("nodes", "edges", "node_support", "edge_support", "chunks", "documents", "merges")
    for name in tables:
        pq.write_table(getattr(snapshot, name), folder / f"{name}.parquet")
    manifest = {"format": FORMAT_VERSION, "version": "v-bench", "published_at": time.time(), "rows": {}}
    (folder / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    (root / POINTER).write_text("v-bench", encoding="utf-8")


def timed(client: TestClient, path: str, params: list[dict]) -> list[float]:
    samples = []
    for query in params:
        start = time.perf_counter()
        response = client.get(path, params=query)
        samples.append((time.perf_counter() - start) * 1000)
        if response.status_code != 200:
            raise SystemExit(f"{path} {query}: {response.status_code} {response.text[:300]}")
    return samples


def row(label: str, samples: list[float], baseline_p95: float | None) -> str:
    ordered = sorted(samples)
    p50, p95 = statistics.median(ordered), ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    ratio = f"{p95 / baseline_p95:.2f}" if baseline_p95 else "1.00"
    return f"| {label} | {p50:.1f} | {p95:.1f} | {ordered[-1]:.1f} | {ratio} | {p95 / TARGET_MS:.3f} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--edges", type=int, default=500_000)
    parser.add_argument("--queries", type=int, default=100)
    args = parser.parse_args()
    if args.nodes < 2 or args.edges < 1 or args.queries < 1:
        raise SystemExit("--nodes must be at least 2, --edges and --queries at least 1")

    snapshot = _synthetic_snapshot(args.nodes, args.edges)
    with tempfile.TemporaryDirectory(prefix="explorer-bench-") as tmp:
        data_dir = Path(tmp)
        publish(snapshot, data_dir)
        settings = load_settings(data_dir=data_dir)
        start = time.perf_counter()
        search_index(load_graph_snapshot(settings))
        index_s = time.perf_counter() - start
        client = TestClient(create_app(settings))

        rng = np.random.default_rng(11)
        names = snapshot.nodes.column("name").to_pylist()
        ids = snapshot.nodes.column("node_id").to_pylist()
        picks = rng.integers(0, len(names), args.queries)
        degree = np.bincount(
            np.searchsorted(np.array(sorted(ids), dtype=object), snapshot.edges.column("target_id").to_pylist()),
            minlength=len(ids),
        )
        hubs = [sorted(ids)[i] for i in np.argsort(-degree)[:20]]

        # warm-up (first requests import and cache)
        timed(client, "/graph-search", [{"term": names[0]}])
        timed(client, "/explore/api/neighbourhood", [{"term": names[0]}])
        baseline = timed(client, "/graph-search", [{"term": names[i], "depth": 2} for i in picks])
        search = timed(
            client, "/explore/api/neighbourhood", [{"term": names[i], "depth": 2, "limit": 300} for i in picks]
        )
        expand = timed(client, "/explore/api/expand", [{"node_id": ids[i], "limit": 300} for i in picks])
        expand_hubs = timed(client, "/explore/api/expand", [{"node_id": h, "limit": 300} for h in hubs])
        node = timed(client, "/explore/api/node", [{"node_id": ids[i]} for i in picks])

    base95 = sorted(baseline)[min(len(baseline) - 1, int(0.95 * len(baseline)))]
    print(f"graph: {args.nodes:,} nodes, {args.edges:,} edges; search index built once in {index_s:.2f} s")
    print("| request | p50 ms | p95 ms | max ms | p95 / graph-search p95 | p95 / 500 ms |")
    print("|---|---:|---:|---:|---:|---:|")
    print(row("`/graph-search` depth 2 (baseline)", baseline, None))
    print(row("search: neighbourhood by term, depth 2, 300 nodes", search, base95))
    print(row("expand: neighbourhood by node id, 300 nodes", expand, base95))
    print(row("expand the 20 biggest hubs, 300 nodes", expand_hubs, base95))
    print(row("node details", node, base95))


if __name__ == "__main__":
    main()
