"""Duplicate node detection (seed 001): speed at scale and quality on labelled data.

    PYTHONPATH=. .venv/bin/python benchmarks/dedup_eval.py [--nodes 100000] [--sample 10000]
        [--datasets ../shared/datasets] [--skip-scale] [--skip-quality] [--only biored,febrl,...]
        [--biored-abstracts 250] [--febrl-entities 1000] [--pairs N]

1. Scale: a synthetic graph of ``--nodes`` nodes over 5 types (random 384-d unit vectors, made-up
   names; 5 % of them planted near-duplicates: the vector plus noise and a one-letter typo). The
   vectors go straight into LanceDB ``graph_nodes`` (embedding 100k names on this CPU would take
   ten minutes and measures the embedder, not detection). Timed: the whole ``detect_duplicates``
   (IVF index build, k = 10 same-type neighbours per node, the cascade and the exact score).
   Recall: an exact brute-force pass (every node of a ``--sample`` sample against every node of its
   type, numpy) finds every pair scoring >= 0.95 that involves a sampled node; recall is the share
   of them that detection also found.
2. Quality, real data with gold labels, the real embedder (all-MiniLM-L6-v2) and the whole cascade
   (sibling names, metadata conflicts, exact and same-token names, the score):
   - BioRED Train + Dev (``--biored-abstracts N``: a random sample of N of the 500 abstracts,
     seed 21): one node per entity the pipeline would make (type + ``node_key`` of the mention),
     described by the sentence of its first mention, as graph building does; mentions without a
     database id left out; two nodes are the same when their mentions share a database id.
     Candidates come from the real search (k = 10 nearest of the type + same-token names), so the
     hard negatives are the siblings the embedding puts close. Per type too: BioRED's gene ids
     are per species (human MMP2 and mouse Mmp2 are two ids), which no name can tell apart;
   - FEBRL dataset2 (``--febrl-entities N``: N of the 4,000 persons, all their records): node
     name = given name + surname, description = address, metadata = date of birth, postcode,
     soc. sec. id; candidates from the real search;
   - Amazon-Google and DBLP-ACM (the Ditto test splits, ``--pairs N`` to sample): each record an
     imported node (name = title, metadata = manufacturer and price / authors, venue and year),
     every labelled pair judged by the cascade.
   Precision, recall and F1 of the merges at the default threshold (0.95) and at the threshold
   with the best F1 (what the default trades). Nothing is tuned to these sets: the default stays
   0.95. Run with ``nice``; a run of every set takes about 10 minutes on 2 shared cores.
"""

from __future__ import annotations

import argparse
import os
import random
import re
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
MERGING_STAGES = ("exact_name", "same_tokens", "person")  # merge whatever the threshold
SCORED_STAGES = ("score", "grey_zone")  # merge when the score reaches the threshold


def _embedder():
    from kg_pipelines.embedding import embedder_for

    return embedder_for("all-MiniLM-L6-v2", None)


def scores_of(nodes: list[dict]) -> list[tuple[str, str, float, str]]:
    """(id, id, score, stage) of every candidate pair the real detection finds over ``nodes`` (LanceDB
    k = 10 nearest of the same type plus same-token names, then the cascade; grey zone opened down
    to 0.5 so that lower thresholds can be read off), with the real embedder and the pipeline's
    node text (name, and the description only when it is the node's own)."""
    with tempfile.TemporaryDirectory() as tmp:
        conn, store = fresh_graph(Path(tmp), nodes)
        sync_node_vectors(conn, store, _embedder())
        report = detect_duplicates(conn, store, MergeExclusions(), threshold=0.95, grey_zone_low=0.5, k=10)
        conn.close()
    return [(p.node_a.node_id, p.node_b.node_id, p.score, p.stage) for p in report.pairs]


def judged_pairs(pairs: list[tuple[dict, dict, bool]]) -> tuple[list, set]:
    """Labelled pairs of records (dicts with name, description, metadata) through the cascade, each
    pair as it is (no candidate search): the scored list and the gold set."""
    from kg_pipelines.graph.duplicate_detection import NodeRecord, judge_pair
    from kg_pipelines.graph.node_similarity import cosine
    from kg_pipelines.stores.node_vectors import node_text, own_descriptions

    records = {}
    for a, b, _ in pairs:
        for r in (a, b):
            records.setdefault(r["key"], r)
    own = own_descriptions((k, r.get("description")) for k, r in records.items())
    keys = list(records)
    vectors = dict(zip(keys, _embedder().embed([node_text(records[k]["name"], own[k]) for k in keys])))
    scored, gold = [], set()
    for i, (a, b, _) in enumerate(pairs):
        node_a, node_b = (
            NodeRecord(r["key"], "record", r["name"], r.get("description"), r.get("metadata") or {}, T0, 1.0)
            for r in (a, b)
        )
        judged = judge_pair(node_a, node_b, cosine(vectors[a["key"]], vectors[b["key"]]), MergeExclusions(), 0.95, 0.0)
        if isinstance(judged, str):
            continue
        scored.append((str(i), "", judged.score, judged.stage))
    for i, (_, _, label) in enumerate(pairs):
        if label:
            gold.add((str(i), ""))
    return scored, gold


def prf(predicted: set, gold: set) -> tuple[float, float, float]:
    tp = len(predicted & gold)
    p = tp / len(predicted) if predicted else 0.0
    r = tp / len(gold) if gold else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def at_thresholds(scored: list[tuple[str, str, float, str]], gold: set) -> dict:
    """Precision, recall, F1 of the merges the cascade makes at the default threshold 0.95 and at
    the threshold (0.50 to 1.00, step 0.01) with the best F1. Pairs the cascade keeps apart
    (sibling names, a person's word) never count as merges, whatever their score."""

    def predicted(t):
        return {(a, b) for a, b, s, stage in scored if stage in MERGING_STAGES or (stage in SCORED_STAGES and s >= t)}

    default = prf(predicted(0.95), gold)
    best_t, best = 0.95, default
    for t in np.arange(0.50, 1.0001, 0.01):
        found = prf(predicted(float(t)), gold)
        if found[2] > best[2]:
            best_t, best = float(t), found
    kept_apart = sum(1 for _, _, _, stage in scored if stage == "sibling_names")
    wrongly_kept = sum(1 for a, b, _, stage in scored if stage == "sibling_names" and (a, b) in gold)
    return {
        "gold_pairs": len(gold),
        "merges_at_default": len(predicted(0.95)),
        "kept_apart_as_siblings": kept_apart,
        "of_which_gold": wrongly_kept,
        "default": {"threshold": 0.95, "precision": default[0], "recall": default[1], "f1": default[2]},
        "best": {"threshold": round(best_t, 2), "precision": best[0], "recall": best[1], "f1": best[2]},
    }


def gold_from_groups(groups: dict[str, list[str]]) -> set[tuple[str, str]]:
    gold = set()
    for members in groups.values():
        members = sorted(set(members))
        gold.update((a, b) for i, a in enumerate(members) for b in members[i + 1 :])
    return gold


def _sample(items: list, size: int | None, seed: int = 21) -> list:
    if size is None or len(items) <= size:
        return items
    return random.Random(seed).sample(items, size)


def febrl(root: Path, sample: int | None = None) -> dict:
    """FEBRL dataset2 (5,000 person records): name = given name + surname, description = the
    address, metadata = date of birth, postcode, social security id. ``sample``: that many
    entities (an entity's records all stay together)."""
    import csv
    import json

    by_entity = defaultdict(list)
    with (root / "entity_resolution/febrl/dataset2.csv").open(newline="") as handle:
        for row in csv.DictReader(handle, skipinitialspace=True):
            by_entity[row["rec_id"].strip().split("-")[1]].append(row)
    nodes, groups = [], defaultdict(list)
    for entity in _sample(sorted(by_entity), sample):
        for row in by_entity[entity]:
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
            groups[entity].append(rid)
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


def labelled_pairs(root: Path, name: str, metadata_keys: tuple[str, ...], sample: int | None) -> dict:
    """A Ditto labelled-pair split (the test pairs): each record an imported node, name = title,
    metadata = the other attributes it has; every labelled pair judged by the cascade."""
    pairs = []
    for line in (root / "entity_resolution" / name / "test.txt").read_text().splitlines():
        left, right, label = line.split("\t")
        records = []
        for side, text in (("l", left), ("r", right)):
            fields = _ditto_record(text)
            meta = {k: fields[k] for k in metadata_keys if fields.get(k) and fields[k] != "nan"}
            records.append({"key": side + text, "name": fields.get("title", ""), "metadata": meta})
        pairs.append((records[0], records[1], label.strip() == "1"))
    pairs = _sample(pairs, sample)
    scored, gold = judged_pairs(pairs)
    return {"labelled_pairs": len(pairs), **at_thresholds(scored, gold)}


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\[])")


def _sentence_at(text: str, offset: int) -> str:
    start = 0
    for match in _SENTENCE_END.finditer(text):
        if match.start() >= offset:
            return text[start : match.start()].strip()
        start = match.end()
    return text[start:].strip()


def biored(root: Path, sample: int | None = None) -> dict:
    """BioRED Train + Dev: one node per entity the pipeline would make (type and name key, as
    ``entity_node_id``), described by the sentence of its first mention (as graph building does);
    two nodes are the same when their mentions share a database id. Candidates come from the real
    search (k nearest + same tokens), so the hard negatives are the siblings the embedding puts
    near each other. Mentions without a database id are left out (no gold says what they are).
    ``sample``: that many abstracts."""
    from kg_pipelines.ingestion.names import node_key

    documents: dict[str, list[str]] = defaultdict(list)
    for name in ("Train.PubTator", "Dev.PubTator"):
        block: list[str] = []
        for line in (root / "biomedical" / name).read_text().splitlines() + [""]:
            if line.strip():
                block.append(line)
            elif block:
                documents[block[0].split("|", 1)[0] + name] = block
                block = []
    nodes: dict[tuple[str, str], dict] = {}
    ids: dict[tuple[str, str], set[str]] = defaultdict(set)
    for doc in _sample(sorted(documents), sample):
        lines = documents[doc]
        title = lines[0].split("|", 2)[2]
        abstract = lines[1].split("|", 2)[2] if len(lines) > 1 and "|a|" in lines[1] else ""
        text = title + " " + abstract
        for line in lines[2:]:
            parts = line.split("\t")
            if len(parts) != 6 or not parts[1].isdigit():
                continue
            start, surface, kind, db_ids = int(parts[1]), parts[3].strip(), parts[4], parts[5]
            key = (kind, node_key(surface))
            if not key[1]:
                continue
            if key not in nodes:
                description = title if start < len(title) else _sentence_at(text, start)
                nodes[key] = {
                    "node_id": f"m{len(nodes):06d}",
                    "node_type": kind,
                    "name": surface,
                    "description": description,
                }
            for db_id in db_ids.replace(";", ",").split(","):
                if db_id.strip() and db_id.strip() != "-":
                    ids[key].add(db_id.strip())
    groups = defaultdict(list)
    for key, found in ids.items():
        for db_id in found:
            groups[f"{key[0]}:{db_id}"].append(nodes[key]["node_id"])
    # a mention without a database id (BioRED writes -) has no gold: left out
    listed = [node for key, node in nodes.items() if ids.get(key)]
    scored, gold = scores_of(listed), gold_from_groups(groups)
    result = {"nodes": len(listed), **at_thresholds(scored, gold)}
    kind = {node["node_id"]: node["node_type"] for node in listed}
    for node_type in sorted({node["node_type"] for node in listed}):
        mine = [s for s in scored if kind[s[0]] == node_type]
        found = at_thresholds(mine, {g for g in gold if kind[g[0]] == node_type})
        result[node_type] = {"merges": found["merges_at_default"], **found["default"]}
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--sample", type=int, default=10_000)
    parser.add_argument("--datasets", default="../shared/datasets")
    parser.add_argument("--skip-scale", action="store_true")
    parser.add_argument("--skip-quality", action="store_true")
    parser.add_argument("--only", help="Comma-separated quality sets: febrl, amazon_google, dblp_acm, biored")
    parser.add_argument("--biored-abstracts", type=int, default=None, help="Sample this many abstracts (all: 500)")
    parser.add_argument("--febrl-entities", type=int, default=None, help="Sample this many persons (all: 4,000)")
    parser.add_argument("--pairs", type=int, default=None, help="Sample this many labelled pairs a Ditto set")
    args = parser.parse_args()
    if not args.skip_scale:
        print("scale:", scale(args.nodes, min(args.sample, args.nodes)), flush=True)
    if not args.skip_quality:
        root = Path(args.datasets)
        if not root.exists():
            print(f"no datasets at {root}: quality skipped", file=sys.stderr)
            return 0
        runs = {
            "febrl": ("febrl dataset2", lambda: febrl(root, args.febrl_entities)),
            "amazon_google": (
                "amazon_google test",
                lambda: labelled_pairs(root, "amazon_google", ("manufacturer", "price"), args.pairs),
            ),
            "dblp_acm": (
                "dblp_acm test",
                lambda: labelled_pairs(root, "dblp_acm", ("authors", "venue", "year"), args.pairs),
            ),
            "biored": ("biored train+dev", lambda: biored(root, args.biored_abstracts)),
        }
        chosen = args.only.split(",") if args.only else list(runs)
        for key in chosen:
            name, run = runs[key.strip()]
            started = time.perf_counter()
            result = run()
            result["seconds"] = round(time.perf_counter() - started, 1)
            print(f"{name}:", _rounded(result), flush=True)
    return 0


def _rounded(value):
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    return round(value, 3) if isinstance(value, float) else value


if __name__ == "__main__":
    raise SystemExit(main())
