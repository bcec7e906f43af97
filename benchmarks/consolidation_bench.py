"""Consolidation benchmark (issue 8, seed 002): prune + merge + summarize on synthetic graphs of
1M and 10M edges, against the seed's per-edge algorithm ported line by line to Python on the same
1M edges (same results asserted), with the speed-up ratio and peak memory.

    PYTHONPATH=. .venv/bin/python benchmarks/consolidation_bench.py            # 1M + port, then 10M
    PYTHONPATH=. .venv/bin/python benchmarks/consolidation_bench.py --edges 100000 --skip-large
    PYTHONPATH=. .venv/bin/python benchmarks/consolidation_bench.py --communities louvain igraph  # and ratios

The synthetic graph is generated inside DuckDB from hashes of the row number (deterministic, no
Python loop): nodes with ~10 edges each, 2 % of edges to leaf nodes (the seed's bridge rule),
3 % duplicate pairs (merge), 12 % weak edges, activity spread over 60 days, 2 % user-made,
1 % protected edges, 40 topic keys (``--topic-keys``). Each scale runs in its own process, so its
peak memory (ru_maxrss of that process: DuckDB, Arrow, numpy and Python together) is its own.
``--communities`` times summarize with other community algorithms beside ours (igraph's Leiden,
graspologic-native's), each scale with each in turn, and prints the ratios to the first named; every
row records the machine's 1-minute load at its start and end (on a shared machine compare ratios).

Two modes of ours are timed: "seed mode" (decay off, true-bridge protection off: the seed's rule,
so its results can be compared with the port) and "full" (the defaults: decay half-life 30 days,
true bridges). Ours is timed end to end (SQL, the graph algorithms, the writes with the prune log
and provenance moves, the reports, communities, and a last CHECKPOINT: what closing the connection
would still write). The port is timed end to end too, as the seed's functions run: each loads the
edges from its store and saves what it changed (``loadEdges`` / ``saveEdges`` over the seed's JSON
key-value store, here a JSON file a key); its storage time is also reported apart, with the
speed-up against its compute alone. Its topic clusters pass over every edge once for each topic key
(seed 002 section 4.3), so its time grows with ``--topic-keys``; ours does not.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

NOW = datetime(2026, 11, 1, tzinfo=UTC)
NOW_MS = int(NOW.timestamp() * 1000)


# -- the synthetic graph ------------------------------------------------------------------------------


def generate(conn, edges: int, topic_keys: int = 40) -> None:
    """Nodes and edges straight into kg_nodes / kg_edges (see the module doc for the mix)."""
    nodes = max(10, edges // 5)
    conn.execute("SET VARIABLE bench_now = ?::TIMESTAMPTZ", [NOW])
    conn.execute("CREATE OR REPLACE TEMP MACRO h(x) AS (hash(x) % 9223372036854775807)::BIGINT")
    conn.execute(
        f"""INSERT INTO kg_edges
        WITH base AS (
            SELECT i, CASE WHEN i % 33 = 0 AND i > 0 THEN i - 1 ELSE i END AS k FROM range({edges}) t(i)),
        ends AS (
            SELECT i, k,
                   h(k * 2) % {nodes} AS a,
                   CASE WHEN k % 50 = 1 THEN -1 - k ELSE h(k * 2 + 1) % {nodes} END AS b
            FROM base),
        named AS (
            SELECT i, a, b,
                   CASE WHEN i % 33 = 0 AND i > 0 THEN b ELSE a END AS s,
                   CASE WHEN i % 33 = 0 AND i > 0 THEN a ELSE b END AS t
            FROM ends)
        SELECT 'e' || lpad(i::VARCHAR, 9, '0'),
               CASE WHEN s < 0 THEN 'leaf' || (-s) ELSE 'n' || s END,
               CASE WHEN t < 0 THEN 'leaf' || (-t) ELSE 'n' || t END,
               ['RELATED', 'similar', 'extends'][1 + h(i * 3) % 3],
               CASE WHEN h(i * 7) % 100 < 12 THEN 0.001 + (h(i * 11) % 48) / 1000.0
                    ELSE 0.05 + (h(i * 11) % 950) / 1000.0 END,
               (h(i * 5) % 6)::INTEGER,
               getvariable('bench_now') - to_milliseconds((h(i * 13) % (60 * 86400000::BIGINT))::BIGINT),
               CASE WHEN h(i * 17) % 2 = 0 THEN NULL
                    ELSE getvariable('bench_now') - to_milliseconds((h(i * 19) % (30 * 86400000::BIGINT))::BIGINT) END,
               CASE WHEN h(i * 37) % 3 = 0
                    THEN getvariable('bench_now') - to_milliseconds((h(i * 41) % (20 * 86400000::BIGINT))::BIGINT) END,
               CASE WHEN h(i * 23) % 50 = 0 THEN 'user' ELSE 'pipeline' END,
               h(i * 29) % 100 = 0,
               'synthetic edge ' || i,
               [],
               'tag:t' || (abs(s) % {topic_keys}),
               'tag:t' || (abs(t) % {topic_keys}),
               1
        FROM named"""
    ).fetchall()
    conn.execute(
        """INSERT INTO kg_nodes (node_id, node_kind, node_type, name, description, topic_key, energy, base_weight,
               support_count, created_by, created_at, updated_at, metadata, merge_history)
        SELECT node_id, 'entity', 'concept', 'Concept ' || node_id, NULL, NULL, '{}', 1.0, 1, 'pipeline',
               getvariable('bench_now'), getvariable('bench_now'), '{}', '[]'
        FROM (SELECT source_id AS node_id FROM kg_edges UNION SELECT target_id FROM kg_edges)"""
    ).fetchall()
    conn.execute(
        """INSERT INTO kg_edge_support SELECT edge_id, 'doc' || (hash(edge_id) % 1000), 'chunk-' || edge_id,
               'bench', NULL, [] FROM kg_edges"""
    ).fetchall()


# -- the seed's algorithm, line by line -------------------------------------------------------------


class SeedStorage:
    """The seed's store, chrome.storage.local: each key's value kept as JSON (here, a file a key).
    loadEdges / saveEdges read and write the key ``atom_knowledge_graph_v1`` (seed 002 section 6,
    "Dependencies": storage/knowledge_graph.js). ``io_s`` adds up the time spent in get and set."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.io_s = 0.0

    def get(self, key):
        start = time.perf_counter()
        value = json.loads((self.folder / f"{key}.json").read_text())
        self.io_s += time.perf_counter() - start
        return value

    def set(self, key, value):
        start = time.perf_counter()
        (self.folder / f"{key}.json").write_text(json.dumps(value))
        self.io_s += time.perf_counter() - start


def load_edges(storage):
    return storage.get("atom_knowledge_graph_v1")


def save_edges(storage, edges):
    storage.set("atom_knowledge_graph_v1", edges)


def build_adjacency_index(edges):
    adjacency_index = {}
    for edge in edges:
        adjacency_index.setdefault(edge["sourceId"], []).append(edge)
        adjacency_index.setdefault(edge["targetId"], []).append(edge)
    return adjacency_index


def is_bridge_edge(edge, adjacency_index):
    source_neighbors = adjacency_index.get(edge["sourceId"]) or []
    target_neighbors = adjacency_index.get(edge["targetId"]) or []
    # If removing this edge would isolate either node
    return len(source_neighbors) <= 1 or len(target_neighbors) <= 1


def is_protected(edge):
    return bool(edge.get("protected"))


def prune_weak_edges(storage, prune_threshold=0.05, min_inactive_days=7, dry_run=False):
    edges = load_edges(storage)
    adjacency_index = build_adjacency_index(edges)
    now = NOW_MS
    kept = []
    pruned = []
    for edge in edges:
        last_active = edge["lastActivatedAt"] or edge["lastReinforcedAt"] or edge["createdAt"]
        days_since = (now - last_active) / 86400000
        should_prune = (
            (edge["strength"] or 1.0) < prune_threshold
            and days_since >= min_inactive_days
            and not is_bridge_edge(edge, adjacency_index)
            and edge["createdBy"] != "user"  # User-created edges protected
            and not is_protected(edge)  # section 2.2: not marked important by the user
        )
        if should_prune:
            pruned.append(edge)
        else:
            kept.append(edge)
    if not dry_run and len(pruned) > 0:
        save_edges(storage, kept)
    return {
        "total": len(edges),
        "pruned": len(pruned),
        "kept": len(kept),
        "prunedEdgeIds": [e["edgeId"] for e in pruned],
    }


def merge_duplicate_edges(storage, dry_run=False, absorbed_by=None):
    """``absorbed_by`` (not the seed's: for the comparison) collects each winner's absorbed edge ids."""
    edges = load_edges(storage)
    pair_map = {}
    for edge in edges:
        pair_key = "|".join(sorted([edge["sourceId"], edge["targetId"]]))
        if pair_key not in pair_map:
            pair_map[pair_key] = []
        pair_map[pair_key].append(edge)
    merged = []
    merge_count = 0
    for _pair_key, group in pair_map.items():
        if len(group) == 1:
            merged.append(group[0])
            continue
        group.sort(key=lambda e: -(e["strength"] or 0))
        winner = dict(group[0])
        other_strengths = 0
        for e in group[1:]:
            other_strengths = other_strengths + (e["strength"] or 0)
        winner["strength"] = min(1.0, (winner["strength"] or 0) + 0.5 * other_strengths)
        winner["strength"] = math.floor(winner["strength"] * 100 + 0.5) / 100  # Math.round
        winner["activationCount"] = sum(e["activationCount"] or 0 for e in group)
        winner["explanation"] = f"[Merged {len(group)} edges] {winner['explanation'] or ''}"
        merged.append(winner)
        merge_count += len(group) - 1
        if absorbed_by is not None:
            absorbed_by[winner["edgeId"]] = [e["edgeId"] for e in group[1:]]
    if not dry_run and merge_count > 0:
        save_edges(storage, merged)
    return {"totalBefore": len(edges), "totalAfter": len(merged), "edgesMerged": merge_count, "merged": merged}


def extract_topic_prefix(topic_key):
    if not topic_key:
        return None
    parts = topic_key.split(":")
    if len(parts) < 2:
        return topic_key
    return topic_key


def discover_clusters(storage, min_cluster_size=3):
    edges = load_edges(storage)
    build_adjacency_index(edges)  # the seed builds it (and does not use it)
    topic_groups = {}
    for edge in edges:
        source_prefix = extract_topic_prefix(edge["sourceTopicKey"])
        target_prefix = extract_topic_prefix(edge["targetTopicKey"])
        if source_prefix:
            topic_groups.setdefault(source_prefix, set()).add(edge["sourceId"])
        if target_prefix:
            topic_groups.setdefault(target_prefix, set()).add(edge["targetId"])
    clusters = []
    for topic_key, session_ids in topic_groups.items():
        if len(session_ids) >= min_cluster_size:
            internal_edges = 0
            ids = list(session_ids)
            for edge in edges:
                if edge["sourceId"] in session_ids and edge["targetId"] in session_ids:
                    internal_edges += 1
            clusters.append(
                {
                    "topicKey": topic_key,
                    "sessionIds": ids,
                    "sessionCount": len(ids),
                    "internalEdges": internal_edges,
                    "connectivity": internal_edges / (len(ids) * (len(ids) - 1) / 2) if len(ids) > 1 else 0,
                }
            )
    storage.set("atom_kg_clusters_v1", {"clusters": clusters, "lastUpdated": NOW_MS})
    return clusters


def load_seed_edges(conn):
    """kg_edges in the seed's own form (camelCase, epoch ms), ordered by edge id."""
    cursor = conn.execute(
        """SELECT edge_id, source_id, target_id, edge_type, strength, epoch_ms(created_at),
                  epoch_ms(last_activated_at), epoch_ms(last_reinforced_at), activation_count, created_by,
                  explanation, source_topic_key, target_topic_key, protected
           FROM kg_edges ORDER BY edge_id"""
    )
    keys = ["edgeId", "sourceId", "targetId", "type", "strength", "createdAt", "lastActivatedAt", "lastReinforcedAt"]
    keys += ["activationCount", "createdBy", "explanation", "sourceTopicKey", "targetTopicKey", "protected"]
    return [dict(zip(keys, row, strict=True)) for row in cursor.fetchall()]


# -- one scale, in its own process --------------------------------------------------------------------


def settings_for(data_dir: Path, mode: str):
    from kg_pipelines.config import load_settings

    options = {"decay_half_life_days": 0, "true_bridges": False} if mode == "seed" else {}
    (data_dir / "kg.yaml").write_text(json.dumps({"consolidation": options}))
    return load_settings(data_dir)


def run_ours(conn, settings, data_dir: Path) -> tuple[dict, dict]:
    from kg_pipelines.graph.consolidation import run_consolidation

    times, results = {}, {}
    for operation in ("prune", "merge-edges", "summarize"):
        start = time.perf_counter()
        results[operation] = run_consolidation(conn, settings, operation, now=NOW, data_dir=data_dir).report
        times[operation] = time.perf_counter() - start
    # what closing the connection would still write (each scheduled run or CLI call closes its own):
    # a commit checkpoints only past DuckDB's WAL threshold, so the last operation's changes may be left
    start = time.perf_counter()
    conn.execute("CHECKPOINT")
    times["checkpoint"] = time.perf_counter() - start
    return times, results


def leiden(n: int, source: np.ndarray, target: np.ndarray, weight: np.ndarray, resolution: float = 1.0) -> np.ndarray:
    """graspologic-native's Leiden (MIT, Rust, one thread; ``pip install graspologic-native``, not a
    dependency of the project) on the same symmetric CSR matrix as our Louvain, without copying it;
    fixed seed. Only for the comparison (``--communities leiden``)."""
    try:
        from graspologic_native import leiden_csr
    except ImportError:
        raise SystemExit("--communities leiden needs graspologic-native: pip install graspologic-native") from None
    from kg_pipelines.graph.communities import _symmetric

    adjacency = _symmetric(n, source, target, weight)
    if adjacency.nnz == 0:  # the library cannot take a graph without edges: every node alone
        return np.arange(n, dtype=np.int64)
    _, found = leiden_csr(
        adjacency.indptr.astype(np.int64, copy=False),
        adjacency.indices.astype(np.int32, copy=False),
        adjacency.data,
        n,
        resolution=resolution,
        seed=42,
    )
    membership = np.empty(n, dtype=np.int64)  # the library's answer is a dict of every node's community
    membership[np.fromiter(found.keys(), np.int64, len(found))] = np.fromiter(found.values(), np.int64, len(found))
    return membership


def igraph_leiden(
    n: int, source: np.ndarray, target: np.ndarray, weight: np.ndarray, resolution: float = 1.0, iterations: int = 2
) -> np.ndarray:
    """igraph's C Leiden (GPL-2.0-or-later, one thread; ``pip install igraph``, not a dependency of the
    project) with modularity as its objective on the same weighted edges as our Louvain. igraph's
    modularity resolution means what ours means: it weighs each node by its weighted degree and
    divides γ by their sum (2m), so its quality is Σ_ij (A_ij - γ k_i k_j / 2m) δ / 2m, the
    ``communities.modularity`` formula (checked: the two agree to the last digit). Seeded through a
    ``random.Random`` of its own (igraph draws from a Python generator). Only for the comparison
    (``--communities igraph``)."""
    import random

    try:
        import igraph
    except ImportError:
        raise SystemExit("--communities igraph needs igraph: pip install igraph") from None
    graph = igraph.Graph(n=n)
    graph.add_edges(np.column_stack([source, target]))  # faster here than Graph(n, edges=array)
    igraph.set_random_number_generator(random.Random(42))
    found = graph.community_leiden(
        objective_function="modularity", weights=weight, resolution=resolution, n_iterations=iterations
    )
    return np.asarray(found.membership, dtype=np.int64)


def use_communities(algorithm: str, iterations: int = 2) -> dict:
    """Make summarize find its communities with ``algorithm`` (our Louvain, igraph's Leiden or
    graspologic-native's) and keep what it was given and found, so the partition can be measured
    after the timed run. ``iterations``: igraph's Leiden iterations."""
    from functools import partial

    from kg_pipelines.graph import communities, consolidation

    igraph = partial(igraph_leiden, iterations=iterations)
    find = {"louvain": communities.louvain, "igraph": igraph, "leiden": leiden}[algorithm]
    seen = {}

    def finding(n, source, target, weight, resolution=1.0):
        start = time.perf_counter()
        membership = find(n, source, target, weight, resolution)
        seen.update(n=n, source=source, target=target, weight=weight, membership=membership, resolution=resolution)
        seen["seconds"] = time.perf_counter() - start
        return membership

    consolidation.louvain = finding
    return seen


def partition_measures(seen: dict) -> dict:
    """Modularity (the same numpy formula for every algorithm, at the run's resolution), communities,
    and how many of them are connected: a community is connected when its inner edges make one
    component of it."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    from kg_pipelines.graph.communities import modularity

    n, source, target, membership = seen["n"], seen["source"], seen["target"], seen["membership"]
    inner = membership[source] == membership[target]
    links = coo_matrix((np.ones(int(inner.sum())), (source[inner], target[inner])), shape=(n, n))
    _, piece = connected_components(links, directed=False)
    pieces = np.unique(np.stack([membership, piece]), axis=1)  # distinct (community, piece) pairs
    count = len(np.unique(membership))
    return {
        "community_s": round(seen["seconds"], 3),
        "modularity": round(modularity(n, source, target, seen["weight"], membership, seen["resolution"]), 4),
        "all_communities": count,
        "disconnected_communities": int(count - (np.bincount(pieces[0]) == 1).sum()),
    }


def one_scale(
    edges: int, mode: str, with_port: bool, topic_keys: int, algorithm: str = "louvain", iterations: int = 2
) -> dict:
    from kg_pipelines.stores import warehouse

    seen = use_communities(algorithm, iterations)

    root = Path(tempfile.mkdtemp(prefix=f"consolidation-bench-{edges}-"))
    try:
        settings = settings_for(root, mode)
        conn = warehouse.connect(settings.warehouse_path)
        start = time.perf_counter()
        generate(conn, edges, topic_keys)
        generated = time.perf_counter() - start
        named = f"{algorithm} ({iterations} iterations)" if algorithm == "igraph" else algorithm
        out = {"edges": edges, "mode": mode, "communities_by": named, "topic_keys": topic_keys}
        load_at_start = os.getloadavg()[0]  # the machine may be shared: its 1-minute load, start and end
        out["generate_s"] = round(generated, 2)
        storage = SeedStorage(root)
        if with_port:  # the port's store holds the same edges before anything runs (not timed)
            save_edges(storage, load_seed_edges(conn))
            storage.io_s = 0.0
        times, results = run_ours(conn, settings, root)
        out.update({f"{k}_s": round(v, 3) for k, v in times.items()})
        out["ours_s"] = round(sum(times.values()), 3)
        prune, merge, summary = results["prune"], results["merge-edges"], results["summarize"]
        out.update(
            pruned=prune.pruned,
            kept_seed_bridge=prune.kept_seed_bridge,
            kept_true_bridge=prune.kept_true_bridge,
            kept_connectivity=prune.kept_connectivity,
            merged=merge.edges_merged,
            topic_clusters=len(summary.clusters),
            communities=len(summary.communities),
            community_algorithm=summary.algorithm,
        )
        if with_port:
            absorbed_by = {}
            start = time.perf_counter()
            port_prune = prune_weak_edges(storage)
            port_merge = merge_duplicate_edges(storage, absorbed_by=absorbed_by)
            port_clusters = discover_clusters(storage)
            out["port_s"] = round(time.perf_counter() - start, 3)
            out["port_storage_s"] = round(storage.io_s, 3)  # its loadEdges / saveEdges (JSON)
            out["port_compute_s"] = round(out["port_s"] - storage.io_s, 3)
            out["speedup"] = round(out["port_s"] / out["ours_s"], 1)
            out["speedup_vs_compute"] = round(out["port_compute_s"] / out["ours_s"], 1)
            assert sorted(port_prune["prunedEdgeIds"]) == sorted(prune.pruned_edge_ids), "prune differs"
            by_id = {e["edgeId"]: e for e in port_merge["merged"]}
            port_survivors = {
                edge_id: (by_id[edge_id]["strength"], by_id[edge_id]["activationCount"], sorted(absorbed))
                for edge_id, absorbed in absorbed_by.items()
            }
            ours_survivors = {
                e["edge_id"]: (e["new_strength"], e["activation_count"], sorted(e["absorbed_edge_ids"]))
                for e in merge.surviving_edges
            }
            assert port_survivors == ours_survivors, "merge differs"
            assert port_merge["edgesMerged"] == merge.edges_merged
            port_topics = {
                c["topicKey"]: (sorted(c["sessionIds"]), c["internalEdges"], round(c["connectivity"], 12))
                for c in port_clusters
            }
            ours_topics = {
                c["topic_key"]: (list(c["node_ids"]), c["internal_edges"], round(c["connectivity"], 12))
                for c in summary.clusters
            }
            assert port_topics == ours_topics, "topic clusters differ"
            out["same_results"] = True
        conn.close()
        out["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
        out["load"] = f"{load_at_start:.1f}-{os.getloadavg()[0]:.1f}"
        out.update(partition_measures(seen))  # after the peak memory was read: not counted in it
        return out
    finally:
        shutil.rmtree(root, ignore_errors=True)


def child(
    edges: int, mode: str, with_port: bool, topic_keys: int, algorithm: str = "louvain", iterations: int = 2
) -> dict:
    port = "1" if with_port else "0"
    command = [sys.executable, __file__, "--child", str(edges), mode, port, str(topic_keys), algorithm, str(iterations)]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as process:
        try:
            stdout, stderr = process.communicate()
        except KeyboardInterrupt:
            process.wait()  # the child got the same Ctrl-C: let it remove its temporary folder
            raise
    if process.returncode != 0:
        raise SystemExit(f"benchmark of {edges} edges ({mode}) failed:\n{stderr[-4000:]}")
    return json.loads(stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edges", type=int, default=1_000_000, help="edges of the graph compared with the port")
    parser.add_argument("--large", type=int, default=10_000_000, help="edges of the large graph")
    parser.add_argument("--skip-large", action="store_true")
    parser.add_argument(
        "--topic-keys",
        type=int,
        default=40,
        help="distinct topic keys of the synthetic graph (the port's topic clusters pass over every edge once a key)",
    )
    parser.add_argument(
        "--communities",
        nargs="+",
        choices=["louvain", "igraph", "leiden"],
        default=["louvain"],
        help="community algorithms of summarize (louvain: ours; igraph: igraph's Leiden; leiden: "
        "graspologic-native's); several: each run done with each, interleaved, and their ratios to the first",
    )
    parser.add_argument("--repeat", type=int, default=1, help="runs of each scale (and algorithm), interleaved")
    parser.add_argument(
        "--leiden-iterations",
        type=int,
        default=2,
        help="iterations of igraph's Leiden (-1: until an iteration no longer improves the partition)",
    )
    parser.add_argument("--child", nargs=6, help=argparse.SUPPRESS)
    args = parser.parse_args()
    for name in ("edges", "large", "topic_keys", "repeat"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.child:
        edges, mode, port, keys, algorithm, iterations = args.child
        print(json.dumps(one_scale(int(edges), mode, port == "1", int(keys), algorithm, int(iterations))))
        return
    keys = args.topic_keys
    algorithms = list(dict.fromkeys(args.communities))
    scales = [(args.edges, "seed"), (args.edges, "full")] + ([] if args.skip_large else [(args.large, "full")])
    rows = []
    for run in range(args.repeat):
        for edges, mode in scales:
            # the algorithms one after the other on each scale, their order reversed every other run;
            # the port (its results do not depend on the communities) only in the first run
            for algorithm in algorithms[:: -1 if run % 2 else 1]:
                row = child(edges, mode, mode == "seed" and run == 0, keys, algorithm, args.leiden_iterations)
                rows.append(row | {"run": run + 1, "algorithm": algorithm})
                print(json.dumps(rows[-1]), file=sys.stderr, flush=True)  # each run as it ends
    print(
        "| edges | mode | communities by | prune s | merge s | summarize s (communities s) | last checkpoint s "
        "| total s | port s (storage s) | speed-up (vs its compute alone) | pruned | merged | clusters "
        "| communities (all) | modularity | disconnected communities | peak RSS MB | load (1 min) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        port = f"{r['port_s']} ({r['port_storage_s']})" if "port_s" in r else ""
        speedup = f"{r['speedup']}x ({r['speedup_vs_compute']}x)" if "speedup" in r else ""
        print(
            f"| {r['edges']:,} | {r['mode']} | {r['communities_by']} | {r['prune_s']} | {r['merge-edges_s']} | "
            f"{r['summarize_s']} ({r['community_s']}) | {r['checkpoint_s']} | {r['ours_s']} | {port} | {speedup} | "
            f"{r['pruned']:,} | {r['merged']:,} | {r['topic_clusters']:,} | {r['communities']:,} "
            f"({r['all_communities']:,}) | {r['modularity']} | {r['disconnected_communities']:,} | "
            f"{r['peak_rss_mb']:,} | {r['load']} |"
        )
    if len(algorithms) > 1:
        base = algorithms[0]
        print(f"\nagainst {base}, same run and scale (total, summarize, communities, peak RSS):")
        for start in range(0, len(rows), len(algorithms)):
            group = {r["algorithm"]: r for r in rows[start : start + len(algorithms)]}
            first = group[base]
            for name in algorithms[1:]:
                ratios = [group[name][k] / first[k] for k in ("ours_s", "summarize_s", "community_s", "peak_rss_mb")]
                where = f"run {first['run']} {first['edges']:,} {first['mode']} {name}/{base}"
                print(f"{where}: " + " ".join(f"{x:.2f}" for x in ratios))
    for r in rows:
        print(json.dumps(r))
    seed_run = rows[0]
    print(
        f"\nseed-mode results identical to the line-by-line port on {seed_run['edges']:,} edges: "
        f"{seed_run.get('same_results', False)}; speed-up {seed_run['speedup']}x"
    )


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        raise SystemExit("consolidation benchmark interrupted") from None
