"""Retrieval quality of the current graph on labelled questions, and whether it dropped.

Labelled files: ``<data_dir>/eval/<collection>.jsonl`` (``retrieval.eval_dir`` moves the folder;
never inside the inbox, whose files are ingested as documents). One JSON object a line:
``{"question": "...", "gold_titles": ["title of a document that answers it", ...]}``; blank lines
and lines starting with ``#`` are skipped, anything else that is not such an object is an error
naming the file and line. A collection without a file is not measured.

For each labelled collection, every question is answered by ``ChunkRetriever`` (the configured
variant, that collection only) and, per cut-off k of ``retrieval.quality_k``:
- recall@k: share of the question's gold titles among the first k distinct document titles,
  averaged over the questions;
- all-gold@k: share of questions whose gold titles are all among the first k.

**Accepted figures.** Each measurement is stored in ``retrieval_quality``, one row per
(collection, k), with ``accepted`` true or false. The baseline of a collection is its last
accepted measurement *with the same labelled file (hash) and variant*: changing the questions or
the variant starts a new baseline. A measurement is accepted when
- there is no baseline yet, or
- no recall@k falls more than ``retrieval.quality_tolerance`` below the baseline's (a rise is
  accepted at once, so the baseline follows improvements), or
- the run was told to accept it (the asset's ``accept`` run config: a drop one has examined and
  chose to keep).
A measurement that is not accepted leaves the baseline where it was, so the check keeps warning
until quality is back or someone accepts the new figure.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import duckdb

from kg_pipelines.collections import validate_collection_name
from kg_pipelines.stores.warehouse import fetch_dicts, insert_rows, transaction

MAX_LABELLED_QUESTIONS = 10_000


@dataclass(frozen=True)
class LabelledQuestion:
    question: str
    gold_titles: tuple[str, ...]


@dataclass
class CollectionQuality:
    collection: str
    variant: str
    labels_hash: str
    questions: int
    recall: dict[int, float]
    all_gold: dict[int, float]
    misses: list[dict] = field(default_factory=list)  # questions with a gold title missing at the largest k
    baseline: dict[int, float] | None = None  # accepted recall@k it was compared with
    drops: dict[int, float] = field(default_factory=dict)  # k -> recall lost beyond the tolerance
    accepted: bool = True


def eval_dir(settings) -> Path:
    return Path(settings.retrieval.eval_dir or Path(settings.data_dir) / "eval")


def labelled_files(settings) -> dict[str, Path]:
    """collection -> its labelled file, for every ``<collection>.jsonl`` in the eval folder."""
    folder = eval_dir(settings)
    if not folder.is_dir():
        return {}
    found = {}
    for path in sorted(folder.glob("*.jsonl")):
        try:
            found[validate_collection_name(path.stem)] = path
        except ValueError:
            continue  # not a collection's file
    return found


def load_labelled(path: Path) -> list[LabelledQuestion]:
    """The questions of a labelled file; ValueError naming the line when one is malformed."""
    questions = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}:{number}: not JSON ({exc.msg})") from exc
        question = data.get("question") if isinstance(data, dict) else None
        gold = data.get("gold_titles") if isinstance(data, dict) else None
        if not isinstance(question, str) or not question.strip():
            raise ValueError(f'{path}:{number}: needs a non-empty "question" string')
        if not isinstance(gold, list) or not gold or not all(isinstance(t, str) and t.strip() for t in gold):
            raise ValueError(f'{path}:{number}: needs "gold_titles", a non-empty list of titles')
        questions.append(LabelledQuestion(question.strip(), tuple(dict.fromkeys(t.strip() for t in gold))))
        if len(questions) > MAX_LABELLED_QUESTIONS:
            raise ValueError(f"{path}: more than {MAX_LABELLED_QUESTIONS} questions")
    return questions


def labels_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def ranked_titles(chunks) -> list[str]:
    """Document titles of ranked chunks, best first, each once."""
    return list(dict.fromkeys(c.title for c in chunks))


def percentile(values: list[float], share: float) -> float:
    """The nearest-rank ``share`` percentile of ``values`` (0.5: the median, 0.95: p95); 0.0 when
    there are none. What per-question latency is reported by (``retrieve --questions``, the
    retrieval benchmark)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))] if ordered else 0.0


def measure_collection(
    retriever, collection: str, questions: list[LabelledQuestion], ks: list[int], variant: str, digest: str
) -> CollectionQuality:
    ks = sorted(set(ks))
    found_sum = {k: 0.0 for k in ks}
    all_sum = {k: 0.0 for k in ks}
    misses = []
    for labelled in questions:
        chunks = retriever.retrieve(labelled.question, k=retriever.options.candidates, collections=[collection])
        titles = ranked_titles(chunks)
        gold = set(labelled.gold_titles)
        for k in ks:
            found = gold.intersection(titles[:k])
            found_sum[k] += len(found) / len(gold)
            all_sum[k] += float(found == gold)
        missing = gold.difference(titles[: ks[-1]])
        if missing:
            misses.append({"question": labelled.question, "missing": sorted(missing), "top": titles[:3]})
    n = max(1, len(questions))
    return CollectionQuality(
        collection,
        variant,
        digest,
        len(questions),
        {k: found_sum[k] / n for k in ks},
        {k: all_sum[k] / n for k in ks},
        misses,
    )


def accepted_baseline(
    conn: duckdb.DuckDBPyConnection, collection: str, digest: str, variant: str
) -> dict[int, float] | None:
    """recall@k of the collection's last accepted measurement with these labels and variant."""
    rows = fetch_dicts(
        conn,
        """SELECT k, recall FROM retrieval_quality
        WHERE collection = ? AND labels_hash = ? AND variant = ? AND accepted
          AND measured_at = (SELECT max(measured_at) FROM retrieval_quality
                             WHERE collection = ? AND labels_hash = ? AND variant = ? AND accepted)""",
        [collection, digest, variant, collection, digest, variant],
    )
    return {r["k"]: r["recall"] for r in rows} or None


def judge(quality: CollectionQuality, baseline: dict[int, float] | None, tolerance: float, accept: bool) -> None:
    """Fill ``baseline``, ``drops`` and ``accepted`` (see the module doc)."""
    quality.baseline = baseline
    if baseline:
        quality.drops = {
            k: round(baseline[k] - recall, 6)
            for k, recall in quality.recall.items()
            if k in baseline and recall < baseline[k] - tolerance
        }
    quality.accepted = accept or not quality.drops


def record(
    conn: duckdb.DuckDBPyConnection, results: list[CollectionQuality], measured_at: datetime, graph_version: str | None
) -> int:
    rows = [
        {
            "measured_at": measured_at,
            "collection": q.collection,
            "variant": q.variant,
            "k": k,
            "questions": q.questions,
            "recall": q.recall[k],
            "all_gold": q.all_gold[k],
            "accepted_recall": None if q.baseline is None else q.baseline.get(k),
            "accepted": q.accepted,
            "labels_hash": q.labels_hash,
            "graph_version": graph_version,
        }
        for q in results
        for k in sorted(q.recall)
    ]
    with transaction(conn):
        return insert_rows(conn, "retrieval_quality", rows)


def measure_quality(settings, retriever, conn, now: datetime, accept: bool = False) -> list[CollectionQuality]:
    """Measure every labelled collection the graph holds, judge it against its accepted figures and
    store the rows (one transaction)."""
    options = settings.retrieval
    known = set(retriever.collections())
    results = []
    for collection, path in labelled_files(settings).items():
        if collection not in known:
            continue
        questions = load_labelled(path)
        if not questions:
            continue
        digest = labels_hash(path)
        quality = measure_collection(retriever, collection, questions, options.quality_k, options.variant, digest)
        judge(quality, accepted_baseline(conn, collection, digest, options.variant), options.quality_tolerance, accept)
        results.append(quality)
    snapshot, _, _ = retriever.graph()
    record(conn, results, now, None if snapshot is None else snapshot.version)
    return results
