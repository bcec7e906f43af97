"""Duplicate node detection (seed 001): speed at scale and quality on labelled data.

    PYTHONPATH=. .venv/bin/python benchmarks/dedup_eval.py [--nodes 100000] [--sample 10000]
        [--datasets ../shared/datasets] [--skip-scale] [--skip-quality] [--only biored,febrl,...]
        [--biored-abstracts 250] [--biored-rest] [--biored-unit node|mention] [--show-merges] [--febrl-entities 1000]
        [--pairs N] [--products benchmarks/data/product_pairs.csv]

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
     seed 21, the reported figure; ``--biored-rest``: the abstracts that sample leaves out, the
     design split on which rules are chosen). Each abstract is one chunk, written to ``chunks``
     and ``kg_node_support`` for the nodes it holds, as graph building does (the species rule reads
     the organisms a node's chunks name). Two separate figures:
     (a) ingestion identity: graph building makes every mention of one type and one ``node_key``
         (case- and separator-insensitive name, ``ingestion/names.py``) one node, so ``MMP2`` and
         ``Mmp2`` are never two nodes. Its precision: over every pair of distinct mention strings
         it folds together, the share that share a database id. The pipeline's own figure, not
         dedup's;
     (b) dedup: one node per (type, ``node_key``), as the pipeline holds them (dedup, at formation
         time or periodic, only ever compares nodes with different keys), named by its first
         mention and described by that mention's sentence, as graph building does; mentions
         without a database id left out. A node's gold is the set of database ids of all its
         mentions; two nodes are the same when the sets intersect (what ingestion folded is its
         line (a), not dedup's fault); the stricter reading, only each node's most frequent id(s),
         is printed beside it as ``default_majority_id``. Candidates come from the real search
         (k = 10 nearest of the type + same-token names), so the hard negatives are the siblings
         the embedding puts close. Per type too: BioRED's gene ids are per species (human MMP-2
         and mouse mmp2 are two ids), which no name can tell apart. ``--biored-unit mention``
         gives one node per distinct mention string instead (dedup then also judges the pairs
         ingestion folds, which it never sees in the pipeline); ``--show-merges`` prints each
         merge at 0.95, right or WRONG by the gold (whether the two nodes share a chunk, the
         organisms of gene nodes, the sentences of a wrong one) and each merge the species rule
         took away;
   - FEBRL dataset2 (``--febrl-entities N``: N of the 4,000 persons, all their records): node
     name = given name + surname, description = address, metadata = date of birth, postcode,
     soc. sec. id; candidates from the real search;
   - Amazon-Google and DBLP-ACM (the Ditto test splits, ``--pairs N`` to sample): each record an
     imported node (name = title, metadata = manufacturer and price / authors, venue and year),
     every labelled pair judged by the cascade.
   - product pairs, our own (``--only products``; ``--products PATH``, CSV or JSONL, default
     ``benchmarks/data/product_pairs.csv``; ``product_pairs_heldout.csv`` is the held-out set):
     name_a, name_b, description_a, description_b, label (same / distinct), kind; each listing a
     node with its shop sentence, no metadata, every pair through the cascade like the Ditto
     sets; ``--show-merges`` prints the merges, the missed same pairs and distinct ones >= 0.85.
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
from kg_pipelines.graph.species_context import is_species_specific, organisms_in  # noqa: E402
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


def fresh_graph(root: Path, nodes: list[dict], chunks: dict[str, str] | None = None):
    """A graph of ``nodes``; with ``chunks`` (chunk id -> text, one chunk a document), the chunks
    and each node's support rows (its ``chunk_ids``) as graph building writes them."""
    conn = warehouse.connect(root / "w.duckdb")
    warehouse.insert_rows(conn, "kg_nodes", node_rows(nodes))
    if chunks:
        ids = list(chunks)
        warehouse.insert_rows(
            conn,
            "chunks",
            pa.table(
                {
                    "chunk_id": ids,
                    "document_id": ids,
                    "collection": ["eval"] * len(ids),
                    "seq": [0] * len(ids),
                    "text": [chunks[i] for i in ids],
                    "token_count": [len(chunks[i].split()) for i in ids],
                    "text_hash": [""] * len(ids),
                }
            ),
        )
        support = [(x["node_id"], c, x["name"], x.get("description")) for x in nodes for c in x.get("chunk_ids", ())]
        warehouse.insert_rows(
            conn,
            "kg_node_support",
            pa.table(
                {
                    "node_id": [r[0] for r in support],
                    "document_id": [r[1] for r in support],
                    "chunk_id": [r[1] for r in support],
                    "collection": ["eval"] * len(support),
                    "name": [r[2] for r in support],
                    "description": [r[3] for r in support],
                }
            ),
        )
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


def scores_of(nodes: list[dict], chunks: dict[str, str] | None = None) -> list[tuple[str, str, float, str]]:
    """(id, id, score, stage) of every candidate pair the real detection finds over ``nodes`` (LanceDB
    k = 10 nearest of the same type plus same-token names, then the cascade; grey zone opened down
    to 0.5 so that lower thresholds can be read off), with the real embedder and the pipeline's
    node text (name, and the description only when it is the node's own)."""
    with tempfile.TemporaryDirectory() as tmp:
        conn, store = fresh_graph(Path(tmp), nodes, chunks)
        sync_node_vectors(conn, store, _embedder())
        report = detect_duplicates(conn, store, MergeExclusions(), threshold=0.95, grey_zone_low=0.5, k=10)
        conn.close()
    # a pair the species rule changed carries the stage it had before: organism_conflict:<stage>
    return [
        (
            p.node_a.node_id,
            p.node_b.node_id,
            p.score,
            p.stage + (":" + p.reason.rsplit("(else ", 1)[1].split(":")[0] if p.stage.startswith("organism_") else ""),
        )
        for p in report.pairs
    ]


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
    # the merges at the default threshold the species rule (organism_conflict, organism_unknown) took away
    by_organism = [
        (a, b)
        for a, b, s, stage in scored
        if stage.startswith("organism_")
        and (stage.split(":")[1] in MERGING_STAGES or (stage.split(":")[1] in SCORED_STAGES and s >= 0.95))
    ]
    return {
        "gold_pairs": len(gold),
        "merges_at_default": len(predicted(0.95)),
        "kept_apart_as_siblings": kept_apart,
        "of_which_gold": wrongly_kept,
        "merges_taken_by_species_rule": len(by_organism),
        "species_rule_of_which_gold": sum(1 for pair in by_organism if pair in gold),
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


PRODUCT_PAIRS = Path(__file__).parent / "data" / "product_pairs.csv"


def read_product_pairs(path: Path) -> list[dict]:
    """Labelled product pairs, CSV or JSONL: name_a, name_b, description_a, description_b, label
    (same / distinct), kind."""
    import csv
    import json

    if path.suffix == ".jsonl":
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


def product_pairs(path: Path, show_merges: bool = False) -> dict:
    """Our own labelled product pairs (``benchmarks/data/product_pairs.csv``): two listings of one
    product written differently (word order, brand dropped, units, punctuation) against siblings
    (storage, size, colour, generation, edition, an added Pro / Max / Mini / Ultra, body against
    kit, pack counts). Each listing a node named by its name and described by its shop sentence
    (siblings often share the catalogue's sentence, which then is no node's own description), no
    metadata, as pipeline nodes; every pair through the cascade with the real embedder."""
    rows = read_product_pairs(path)
    pairs = []
    for row in rows:
        records = [
            {
                "key": row[f"name_{s}"] + "|" + (row.get(f"description_{s}") or ""),
                "name": row[f"name_{s}"],
                "description": row.get(f"description_{s}") or None,
            }
            for s in ("a", "b")
        ]
        pairs.append((records[0], records[1], row["label"].strip().lower() == "same"))
    scored, gold = judged_pairs(pairs)
    result = {"labelled_pairs": len(pairs), "same": len(gold), **at_thresholds(scored, gold)}
    by_index = {int(a): (score, stage) for a, _, score, stage in scored}
    for kind in sorted({row.get("kind", "") for row in rows}):
        mine = [s for s in scored if rows[int(s[0])].get("kind", "") == kind]
        found = at_thresholds(mine, {g for g in gold if rows[int(g[0])].get("kind", "") == kind})
        result[kind or "-"] = {"merges": found["merges_at_default"], **found["default"]}
    if show_merges:
        for i, row in enumerate(rows):
            score, stage = by_index.get(i, (None, "dropped"))
            merged = stage in MERGING_STAGES or (stage in SCORED_STAGES and score is not None and score >= 0.95)
            same = (str(i), "") in gold
            near = not same and stage in SCORED_STAGES and score is not None and score >= 0.85
            if merged or same or near:
                verdict = ("right" if same else "WRONG") if merged else ("missed" if same else "near (distinct)")
                shown = "-" if score is None else f"{score:.3f}"
                print(
                    f"  {verdict} [{row.get('kind')}] {row['name_a']!r} / {row['name_b']!r}: {shown} {stage}",
                    flush=True,
                )
    return result


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\[])")


def _sentence_at(text: str, offset: int) -> str:
    start = 0
    for match in _SENTENCE_END.finditer(text):
        if match.start() >= offset:
            return text[start : match.start()].strip()
        start = match.end()
    return text[start:].strip()


def _db_ids(field: str) -> list[str]:
    """The database ids of one BioRED mention (a composite mention lists several; ``-`` is none)."""
    return [i.strip() for i in field.replace(";", ",").split(",") if i.strip() and i.strip() != "-"]


def ingestion_identity(strings: dict[tuple[str, str], dict[str, set[str]]]) -> dict:
    """Precision of the pipeline's own identity (``node_key``): every pair of distinct mention
    strings that graph building folds into one node (same type and key, e.g. ``MMP2`` and ``Mmp2``)
    is right when the two strings share a database id."""
    pairs = right = 0
    wrong: list[tuple[str, str]] = []
    for surfaces in strings.values():
        names = sorted(surfaces)
        for i, a in enumerate(names):
            for b in names[i + 1 :]:
                pairs += 1
                if surfaces[a] & surfaces[b]:
                    right += 1
                elif len(wrong) < 5:
                    wrong.append((a, b))
    return {"folded_string_pairs": pairs, "precision": right / pairs if pairs else None, "wrong_examples": wrong}


def _biored_abstracts(root: Path, sample: int | None, rest: bool):
    """BioRED Train + Dev, ``sample`` abstracts of them (``rest``: the others): per abstract, its key,
    its title, its text (title + abstract) and its mentions (start, surface, type, database ids)."""
    documents: dict[str, list[str]] = defaultdict(list)
    for name in ("Train.PubTator", "Dev.PubTator"):
        block: list[str] = []
        for line in (root / "biomedical" / name).read_text().splitlines() + [""]:
            if line.strip():
                block.append(line)
            elif block:
                documents[block[0].split("|", 1)[0] + name] = block
                block = []
    chosen = _sample(sorted(documents), sample)
    if rest:
        chosen = sorted(set(documents) - set(chosen))
    for doc in chosen:
        lines = documents[doc]
        title = lines[0].split("|", 2)[2]
        abstract = lines[1].split("|", 2)[2] if len(lines) > 1 and "|a|" in lines[1] else ""
        mentions = []
        for line in lines[2:]:
            parts = line.split("\t")
            if len(parts) == 6 and parts[1].isdigit():
                mentions.append((int(parts[1]), parts[3].strip(), parts[4], _db_ids(parts[5])))
        yield doc, title, title + " " + abstract, mentions


def _described_by(title: str, text: str, start: int) -> str:
    """The sentence a mention at ``start`` is in, as graph building describes a node (the title for
    a mention in the title)."""
    return title if start < len(title) else _sentence_at(text, start)


def biored_pairs(root: Path, sample: int | None = None, rest: bool = False, show_merges: bool = False) -> dict:
    """BioRED as labelled pairs, the form a held-out set of synonym pairs takes: one record per type
    and ``node_key`` (its first mention, described by that mention's sentence, as graph building
    describes a node), every pair of one type sharing a database id (a synonym written otherwise,
    "HNF-6" / "hepatocyte nuclear factor-6") and every pair of different ids whose names are alike
    (rapidfuzz ratio >= 70: the hard negatives, "TIM-1" / "TIM-3"), each through ``judge_pair`` with
    the real embedder, no candidate search. The species rule needs a node's texts, which a pair
    alone lacks; precision at 0.95 is also given with it applied to each record's own sentence
    (``sentence``) and to its whole abstract (``abstract``: what the pipeline's supporting chunk
    gives)."""
    from rapidfuzz import fuzz

    from kg_pipelines.graph.species_context import organism_check
    from kg_pipelines.ingestion.names import node_key

    records: dict[tuple[str, str], dict] = {}
    for _doc, title, text, mentions in _biored_abstracts(root, sample, rest):
        for start, surface, kind, db_ids in mentions:
            key = node_key(surface)
            if not key or not db_ids:
                continue
            record = records.setdefault(
                (kind, key),
                {
                    "key": f"{kind}|{key}",
                    "name": surface,
                    "type": kind,
                    "ids": set(),
                    "description": _described_by(title, text, start),
                    "text": text,
                },
            )
            record["ids"].update(db_ids)
    by_type: dict[str, list[dict]] = defaultdict(list)
    for record in records.values():
        by_type[record["type"]].append(record)
    pairs = []
    for group in by_type.values():
        for i, a in enumerate(group):
            for b in group[i + 1 :]:
                same = bool(a["ids"] & b["ids"])
                if same or fuzz.ratio(a["name"].lower(), b["name"].lower()) >= 70:
                    pairs.append((a, b, same))
    scored, gold = judged_pairs(pairs)
    result = {"records": len(records), "pairs": len(pairs), "same": len(gold), **at_thresholds(scored, gold)}
    if show_merges:
        for index, _, score, stage in sorted(scored, key=lambda s: -s[2]):
            a, b, same = pairs[int(index)]
            if stage in MERGING_STAGES or (stage in SCORED_STAGES and score >= 0.95):
                print(
                    f"  {'right' if same else 'WRONG'} merge [{a['type']}] {a['name']!r} {sorted(a['ids'])} + "
                    f"{b['name']!r} {sorted(b['ids'])}: {score:.3f} {stage}",
                    flush=True,
                )
                if not same:
                    print(f"      a: {a['description']}\n      b: {b['description']}", flush=True)
    for context in ("sentence", "abstract"):
        merges = wrong = 0
        for index, _, score, stage in scored:
            a, b, same = pairs[int(index)]
            if not (stage in MERGING_STAGES or (stage in SCORED_STAGES and score >= 0.95)):
                continue
            field = "description" if context == "sentence" else "text"
            if is_species_specific(a["type"]) and organism_check(organisms_in(a[field]), organisms_in(b[field])):
                continue  # kept apart, or sent to review
            merges += 1
            wrong += not same
        result[f"species_rule_on_{context}"] = {
            "merges": merges,
            "precision": (merges - wrong) / merges if merges else None,
        }
    return result


def biored(
    root: Path, sample: int | None = None, unit: str = "node", show_merges: bool = False, rest: bool = False
) -> dict:
    """BioRED Train + Dev, built as the pipeline builds its graph (``unit="node"``): one node per
    (type, ``node_key`` of the mention), since graph building makes every mention with that key one
    node at ingestion and dedup (formation time and periodic) only ever compares nodes of different
    keys. A node is named by its first mention and described by that mention's sentence (as graph
    building does); its gold is the set of database ids of all its mentions, and two nodes are the
    same entity when these sets intersect (a node ``MMP2`` holding human and mouse mentions is right
    to merge with either: its folding is ingestion's doing, measured on its own line). The stricter
    reading, each node only its most frequent id(s) (all of them on a tie), is reported beside it. Mentions
    without a database id are left out (no gold says what they are). ``unit="mention"``: one node
    per distinct mention string instead (the pairs ingestion already folds are then judged by dedup
    too, which the pipeline never does). Candidates come from the real search (k nearest + same
    tokens), so the hard negatives are the siblings the embedding puts near each other. ``sample``:
    that many abstracts; ``rest``: the abstracts the sample leaves out instead (the design split:
    rules are chosen there, the sample's figure is the one reported)."""
    from collections import Counter

    from kg_pipelines.ingestion.names import node_key

    nodes: dict[tuple[str, str], dict] = {}
    ids: dict[tuple[str, str], Counter] = defaultdict(Counter)
    strings: dict[tuple[str, str], dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    chunks: dict[str, str] = {}  # one chunk an abstract: BioRED's fit in one 1000-token chunk
    for doc, title, text, mentions in _biored_abstracts(root, sample, rest):
        chunks[doc] = text
        for start, surface, kind, db_ids in mentions:
            folded = node_key(surface)
            if not folded:
                continue
            key = (kind, folded if unit == "node" else surface)
            if db_ids:
                strings[(kind, folded)][surface].update(db_ids)
            if key not in nodes:
                nodes[key] = {
                    "node_id": f"m{len(nodes):06d}",
                    "node_type": kind,
                    "name": surface,
                    "description": _described_by(title, text, start),
                    "chunk_ids": [],
                }
            if doc not in nodes[key]["chunk_ids"]:
                nodes[key]["chunk_ids"].append(doc)
            ids[key].update(db_ids)
    # a mention without a database id (BioRED writes -) has no gold: left out
    listed = [node for key, node in nodes.items() if ids.get(key)]
    groups, majority = defaultdict(list), defaultdict(list)
    for key, found in ids.items():
        if not found:
            continue
        for db_id in found:
            groups[f"{key[0]}:{db_id}"].append(nodes[key]["node_id"])
        top = max(found.values())
        for db_id in (i for i, c in found.items() if c == top):
            majority[f"{key[0]}:{db_id}"].append(nodes[key]["node_id"])
    scored, gold = scores_of(listed, chunks), gold_from_groups(groups)
    result = {"unit": unit, "nodes": len(listed), **at_thresholds(scored, gold)}
    strict = at_thresholds(scored, gold_from_groups(majority))["default"]
    result["default_majority_id"] = {k: strict[k] for k in ("precision", "recall", "f1")}
    if unit == "node":
        result["ingestion_identity"] = ingestion_identity(strings)
    kind = {node["node_id"]: node["node_type"] for node in listed}
    for node_type in sorted({node["node_type"] for node in listed}):
        mine = [s for s in scored if kind[s[0]] == node_type]
        found = at_thresholds(mine, {g for g in gold if kind[g[0]] == node_type})
        result[node_type] = {"merges": found["merges_at_default"], **found["default"]}
    if show_merges:
        by_id = {node["node_id"]: (key, node) for key, node in nodes.items()}
        for a, b, score, stage in sorted(scored, key=lambda s: -s[2]):
            if stage in MERGING_STAGES or (stage in SCORED_STAGES and score >= 0.95):
                (ka, na), (kb, nb) = by_id[a], by_id[b]
                verdict = "right" if (a, b) in gold or (b, a) in gold else "WRONG"
                shared = " one chunk" if set(na["chunk_ids"]) & set(nb["chunk_ids"]) else ""
                organisms = ""
                if is_species_specific(na["node_type"]):
                    found = [organisms_in(" ".join(chunks[c] for c in n["chunk_ids"])) for n in (na, nb)]
                    organisms = f" organisms {sorted(found[0])} / {sorted(found[1])}"
                print(
                    f"  {verdict} merge [{na['node_type']}] {na['name']!r} {sorted(ids[ka])} + {nb['name']!r} "
                    f"{sorted(ids[kb])}: {score:.3f} {stage}{shared}{organisms}",
                    flush=True,
                )
                if verdict == "WRONG":
                    print(f"      a: {na['description']}\n      b: {nb['description']}", flush=True)
        for a, b, score, stage in sorted(scored, key=lambda s: -s[2]):
            before = stage.split(":")[1] if stage.startswith("organism_") else None
            if before in MERGING_STAGES or (before in SCORED_STAGES and score >= 0.95):
                (ka, na), (kb, nb) = by_id[a], by_id[b]
                verdict = "right" if (a, b) in gold or (b, a) in gold else "WRONG"
                print(
                    f"  {stage.split(':')[0]}, was a {verdict} merge [{na['node_type']}] {na['name']!r} "
                    f"{sorted(ids[ka])} + {nb['name']!r} {sorted(ids[kb])}: {score:.3f} {before}",
                    flush=True,
                )
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--sample", type=int, default=10_000)
    parser.add_argument("--datasets", default="../shared/datasets")
    parser.add_argument("--skip-scale", action="store_true")
    parser.add_argument("--skip-quality", action="store_true")
    parser.add_argument(
        "--only", help="Comma-separated quality sets: febrl, amazon_google, dblp_acm, products, biored, biored_pairs"
    )
    parser.add_argument("--biored-abstracts", type=int, default=None, help="Sample this many abstracts (all: 500)")
    parser.add_argument(
        "--biored-rest",
        action="store_true",
        help="BioRED: the abstracts the --biored-abstracts sample leaves out (the design split) instead of the sample",
    )
    parser.add_argument("--febrl-entities", type=int, default=None, help="Sample this many persons (all: 4,000)")
    parser.add_argument(
        "--biored-unit",
        choices=("node", "mention"),
        default="node",
        help="BioRED nodes: one per node_key as the pipeline builds them (default), or one per mention string",
    )
    parser.add_argument(
        "--show-merges",
        action="store_true",
        help=(
            "Print every BioRED and product merge at 0.95, right or WRONG by the gold "
            "(products: the missed too, and distinct pairs scoring >= 0.85)"
        ),
    )
    parser.add_argument(
        "--products", default=str(PRODUCT_PAIRS), help="Labelled product pairs (CSV or JSONL) for --only products"
    )
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
            "products": ("product pairs", lambda: product_pairs(Path(args.products), args.show_merges)),
            "biored": (
                "biored train+dev",
                lambda: biored(root, args.biored_abstracts, args.biored_unit, args.show_merges, args.biored_rest),
            ),
            "biored_pairs": (
                "biored train+dev as labelled pairs",
                lambda: biored_pairs(root, args.biored_abstracts, args.biored_rest, args.show_merges),
            ),
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
