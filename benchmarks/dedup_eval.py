"""Duplicate node detection (seed 001): speed at scale and quality on labelled data.

    PYTHONPATH=. .venv/bin/python benchmarks/dedup_eval.py [--nodes 100000] [--sample 10000]
        [--datasets ../shared/datasets] [--skip-scale] [--skip-quality]

1. Scale: a synthetic graph of ``--nodes`` nodes over 5 types (random 384-d unit vectors, made-up
   names; 5 % of them planted near-duplicates: the vector plus noise and a one-letter typo). The
   vectors go straight into LanceDB ``graph_nodes`` (embedding 100k names on this CPU would take
   ten minutes and measures the embedder, not detection). Timed: the whole ``detect_duplicates``
   (IVF index build, k = 10 same-type neighbours per node, the cascade and the exact score).
   Recall: an exact brute-force pass (every node of a ``--sample`` sample against every node of its
   type, numpy) finds every pair scoring >= 0.95 that involves a sampled node; recall is the share
   of them that detection also found.
2. Quality, real data with gold labels (nodes embedded with the default all-MiniLM-L6-v2):
   - FEBRL dataset2 (5,000 person records; rec-N-org / rec-N-dup-k are one person): node name =
     given name + surname, description = address, metadata = date of birth, postcode, soc. sec. id;
   - Amazon-Google products (the labelled test pairs): name = title, description = manufacturer,
     metadata = manufacturer and price; each labelled pair is scored directly;
   - BioRED (Train + Dev): one node per distinct mention text and type; two nodes are the same
     when their mentions share a database id.
   Precision, recall and F1 at the default threshold (0.95) and at the threshold with the best F1
   (what the default trades). Nothing is tuned to these sets: the default stays 0.95.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pyarrow as pa

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from kg_pipelines.graph.duplicate_detection import MERGE, detect_duplicates  # noqa: E402
from kg_pipelines.graph.merge_exclusions import MergeExclusions  # noqa: E402
from kg_pipelines.graph.node_similarity import node_similarity  # noqa: E402
from kg_pipelines.stores import warehouse  # noqa: E402
from kg_pipelines.stores.node_vectors import TABLE, NodeVectors, sync_node_vectors  # noqa: E402
from kg_pipelines.stores.vectors import vectors_column  # noqa: E402

T0 = datetime(2026, 1, 1, tzinfo=UTC)
TYPES = ["gene", "protein", "compound", "disease", "process"]
LETTERS = "abcdefghijklmnopqrstuvwxyz"


def node_rows(nodes: list[dict]) -> pa.Table:
    n = len(nodes)
    return pa.table(
        {
            "node_id": [x["node_id"] for x in nodes],
            "node_kind": ["entity"] * n,
            "node_type": [x["node_type"] for x in nodes],
            "name": [x["name"] for x in nodes],
            "description": [x.get("description") for x in nodes],
            "topic_key": ["type:" + x["node_type"] for x in nodes],
            "energy": ["{}"] * n,
            "base_weight": [1.0] * n,
            "support_count": [0] * n,
            "created_by": ["import"] * n,
            "created_at": [T0] * n,
            "updated_at": [T0] * n,
            "metadata": [x.get("metadata", "{}") for x in nodes],
            "merge_history": ["[]"] * n,
        }
    )


def fresh_graph(root: Path, nodes: list[dict]):
    conn = warehouse.connect(root / "w.duckdb")
    warehouse.insert_rows(conn, "kg_nodes", node_rows(nodes))
    return conn, NodeVectors(root / "lancedb")


# -- 1. scale ----------------------------------------------------------------------------------------
def synthetic(n: int, rng: np.random.Generator, dim: int = 384) -> tuple[list[dict], np.ndarray]:
    base = int(n * 0.95)
    vectors = rng.standard_normal((n, dim)).astype(np.float32)
    names, types = [], []
    for i in range(base):
        names.append(" ".join("".join(rng.choice(list(LETTERS), rng.integers(4, 9))) for _ in range(2)))
        types.append(TYPES[i % len(TYPES)])
    for j in range(n - base):
        source = int(rng.integers(0, base))
        vectors[base + j] = vectors[source] + rng.normal(0, 0.12, dim).astype(np.float32) * np.linalg.norm(
            vectors[source]
        ) / np.sqrt(dim)
        name = list(names[source])
        pos = int(rng.integers(0, len(name)))
        name[pos] = LETTERS[(LETTERS.find(name[pos]) + 1) % 26] if name[pos] != " " else " "
        names.append("".join(name))
        types.append(types[source])
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    nodes = [{"node_id": f"n{i:07d}", "node_type": types[i], "name": names[i]} for i in range(n)]
    return nodes, vectors


def write_vectors(store: NodeVectors, nodes: list[dict], vectors: np.ndarray) -> None:
    rows = pa.table(
        {
            "node_id": [x["node_id"] for x in nodes],
            "node_type": [x["node_type"] for x in nodes],
            "node_kind": ["entity"] * len(nodes),
            "name": [x["name"] for x in nodes],
            "text_hash": [""] * len(nodes),
            "embedding_model": ["synthetic"] * len(nodes),
            "vector": vectors_column(vectors),
        }
    )
    store.db.create_table(TABLE, data=rows)


def brute_force_pairs(nodes, vectors, sample: list[int], threshold: float) -> set[tuple[str, str]]:
    """Every pair scoring >= threshold that involves a sampled node: the exact, O(sample x N) pass."""
    by_type = defaultdict(list)
    for i, x in enumerate(nodes):
        by_type[x["node_type"]].append(i)
    cos_floor = (threshold - 0.3) / 0.7  # below it the score cannot reach the threshold
    found = set()
    for node_type, members in by_type.items():
        members = np.array(members)
        queries = [i for i in sample if nodes[i]["node_type"] == node_type]
        for start in range(0, len(queries), 1024):
            q = np.array(queries[start : start + 1024])
            sims = vectors[q] @ vectors[members].T
            for row, col in zip(*np.nonzero(sims >= cos_floor)):
                a, b = int(q[row]), int(members[col])
                if a == b:
                    continue
                sim = node_similarity(vectors[a], vectors[b], nodes[a]["name"], nodes[b]["name"])
                if sim.total >= threshold:
                    ida, idb = nodes[a]["node_id"], nodes[b]["node_id"]
                    found.add((ida, idb) if ida < idb else (idb, ida))
    return found


def scale(n: int, sample_size: int) -> dict:
    rng = np.random.default_rng(7)
    nodes, vectors = synthetic(n, rng)
    with tempfile.TemporaryDirectory() as tmp:
        conn, store = fresh_graph(Path(tmp), nodes)
        write_vectors(store, nodes, vectors)
        started = time.perf_counter()
        report = detect_duplicates(conn, store, MergeExclusions(), threshold=0.95, grey_zone_low=0.95, k=10)
        seconds = time.perf_counter() - started
        conn.close()
    detected = {(p.node_a.node_id, p.node_b.node_id) for p in report.pairs if p.decision == MERGE}
    sample = sorted(random.Random(7).sample(range(n), sample_size))
    started = time.perf_counter()
    exact = brute_force_pairs(nodes, vectors, sample, 0.95)
    brute_seconds = time.perf_counter() - started
    found = len(exact & detected)
    return {
        "nodes": n,
        "detect_seconds": round(seconds, 1),
        "candidate_pairs": report.candidate_pairs,
        "pairs_at_0.95": len(detected),
        "sample": sample_size,
        "brute_force_pairs": len(exact),
        "recall": round(found / len(exact), 4) if exact else None,
        "brute_force_seconds_on_sample": round(brute_seconds, 1),
    }


# -- 2. quality ------------------------------------------------------------------------------------------
def scores_of(nodes: list[dict]) -> list[tuple[str, str, float, str]]:
    """(id, id, score, stage) of every candidate pair detection finds (score >= 0.5), real embedder."""
    from kg_pipelines.embedding import embedder_for

    with tempfile.TemporaryDirectory() as tmp:
        conn, store = fresh_graph(Path(tmp), nodes)
        sync_node_vectors(conn, store, embedder_for("all-MiniLM-L6-v2", None))
        report = detect_duplicates(conn, store, MergeExclusions(), threshold=0.95, grey_zone_low=0.5, k=10)
        conn.close()
    return [(p.node_a.node_id, p.node_b.node_id, p.score, p.stage) for p in report.pairs]


def prf(predicted: set, gold: set) -> tuple[float, float, float]:
    tp = len(predicted & gold)
    p = tp / len(predicted) if predicted else 0.0
    r = tp / len(gold) if gold else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def at_thresholds(scored: list[tuple[str, str, float, str]], gold: set) -> dict:
    def predicted(t):
        return {(a, b) for a, b, s, stage in scored if stage == "exact_name" or s >= t}

    default = prf(predicted(0.95), gold)
    best_t, best = 0.95, default
    for t in np.arange(0.50, 1.0001, 0.01):
        found = prf(predicted(float(t)), gold)
        if found[2] > best[2]:
            best_t, best = float(t), found
    return {
        "gold_pairs": len(gold),
        "default": {"threshold": 0.95, "precision": default[0], "recall": default[1], "f1": default[2]},
        "best": {"threshold": round(best_t, 2), "precision": best[0], "recall": best[1], "f1": best[2]},
    }


def gold_from_groups(groups: dict[str, list[str]]) -> set[tuple[str, str]]:
    gold = set()
    for members in groups.values():
        members = sorted(set(members))
        gold.update((a, b) for i, a in enumerate(members) for b in members[i + 1 :])
    return gold


def febrl(root: Path) -> dict:
    import csv
    import json

    nodes, groups = [], defaultdict(list)
    with (root / "entity_resolution/febrl/dataset2.csv").open(newline="") as handle:
        for row in csv.DictReader(handle, skipinitialspace=True):
            rid = row["rec_id"].strip()
            name = f"{row['given_name'].strip()} {row['surname'].strip()}".strip() or rid
            address = ", ".join(
                row[k].strip() for k in ("street_number", "address_1", "address_2", "suburb", "postcode", "state")
            )
            meta = {k: row[k].strip() for k in ("date_of_birth", "postcode", "soc_sec_id") if row[k].strip()}
            nodes.append(
                {
                    "node_id": rid,
                    "node_type": "person",
                    "name": name,
                    "description": address,
                    "metadata": json.dumps(meta),
                }
            )
            groups[rid.split("-")[1]].append(rid)
    return {"records": len(nodes), **at_thresholds(scores_of(nodes), gold_from_groups(groups))}


def _ditto_record(text: str) -> dict:
    fields, key = {}, None
    for token in text.split(" "):
        if token == "COL":
            key = None
            continue
        if key is None and token not in ("VAL",):
            key, fields[token] = token, ""
            continue
        if token == "VAL":
            continue
        fields[key] = (fields[key] + " " + token).strip()
    return fields


def amazon_google(root: Path) -> dict:
    import json

    from kg_pipelines.embedding import embedder_for

    pairs = []
    for line in (root / "entity_resolution/amazon_google/test.txt").read_text().splitlines():
        left, right, label = line.split("\t")
        pairs.append((_ditto_record(left), _ditto_record(right), label.strip() == "1"))
    texts = {}
    for a, b, _ in pairs:
        for r in (a, b):
            texts.setdefault(r.get("title", ""), r)
    embedder = embedder_for("all-MiniLM-L6-v2", None)
    titles = list(texts)
    from kg_pipelines.stores.node_vectors import node_text

    vectors = dict(zip(titles, embedder.embed([node_text(t, texts[t].get("manufacturer")) for t in titles])))
    scored, gold = [], set()
    for i, (a, b, label) in enumerate(pairs):
        meta = [json.dumps({k: r.get(k) for k in ("manufacturer", "price") if r.get(k)}) for r in (a, b)]
        sim = node_similarity(
            vectors[a.get("title", "")], vectors[b.get("title", "")], a.get("title", ""), b.get("title", ""), *meta
        )
        scored.append((str(i), "", sim.total, "score"))
        if label:
            gold.add((str(i), ""))
    return {"labelled_pairs": len(pairs), **at_thresholds(scored, gold)}


def biored(root: Path) -> dict:
    mentions = defaultdict(set)  # (type, text) -> database ids
    for name in ("Train.PubTator", "Dev.PubTator"):
        for line in (root / "biomedical" / name).read_text().splitlines():
            parts = line.split("\t")
            if len(parts) == 6 and parts[1].isdigit():
                text, kind, ids = parts[3].strip(), parts[4], parts[5]
                for db_id in ids.replace(";", ",").split(","):
                    if db_id.strip() and db_id.strip() != "-":
                        mentions[(kind, text.lower())].add(db_id.strip())
    nodes, groups = [], defaultdict(list)
    for i, ((kind, text), ids) in enumerate(sorted(mentions.items())):
        node_id = f"m{i:06d}"
        nodes.append({"node_id": node_id, "node_type": kind, "name": text})
        for db_id in ids:
            groups[f"{kind}:{db_id}"].append(node_id)
    return {"nodes": len(nodes), **at_thresholds(scores_of(nodes), gold_from_groups(groups))}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--sample", type=int, default=10_000)
    parser.add_argument("--datasets", default="../shared/datasets")
    parser.add_argument("--skip-scale", action="store_true")
    parser.add_argument("--skip-quality", action="store_true")
    args = parser.parse_args()
    if not args.skip_scale:
        print("scale:", scale(args.nodes, min(args.sample, args.nodes)), flush=True)
    if not args.skip_quality:
        root = Path(args.datasets)
        if not root.exists():
            print(f"no datasets at {root}: quality skipped", file=sys.stderr)
            return 0
        for name, run in (("febrl dataset2", febrl), ("amazon_google test", amazon_google), ("biored", biored)):
            started = time.perf_counter()
            result = run(root)
            result["seconds"] = round(time.perf_counter() - started, 1)
            print(f"{name}:", _rounded(result), flush=True)
    return 0


def _rounded(value):
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    return round(value, 3) if isinstance(value, float) else value


if __name__ == "__main__":
    raise SystemExit(main())
