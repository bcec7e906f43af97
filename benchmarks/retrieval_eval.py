"""Multi-hop retrieval quality: every ranking variant on HotpotQA-100 and MuSiQue-100, one run.

    python benchmarks/retrieval_eval.py [--data ../shared/datasets/multihop_qa] [--sets hotpotqa,musique]
                                        [--questions N] [--work-dir DIR]

For each set, its passage corpus is written as one Markdown document per passage (``# title`` then
the text, as ``benchmarks/ingest.py`` does) and ingested through the normal pipeline (the sync job,
offline provider, no LLM) into its own data dir; then every question is answered in-process by
``ChunkRetriever`` for each variant of ``kg_pipelines.retrieval.chunk_retrieval.VARIANTS`` (BM25
only, vector only, their RRF, the graph walk, and the combinations), from the same rankings.

Measures (the data sets' README convention), on the ranked document titles (each title once):
Recall@2 and Recall@5 (share of a question's gold titles in the top k, averaged over questions)
and all-gold@8 (share of questions whose gold titles are all in the top 8).

``--questions N`` keeps the first N questions and only the passages listed with them (a small
corpus for development); the figures reported in the README are of the full corpora. Nothing
here is tuned to these sets: the retriever runs with its default settings.
With ``--work-dir`` the ingested data dirs are kept and reused by the next run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ingest import write_passages  # noqa: E402  (the existing benchmark's corpus writer)

CUTOFFS = (2, 5, 8)


def load_set(data: Path, name: str, questions: int | None) -> tuple[Path, list[dict], set[str] | None]:
    """(corpus file, [{qid, question, gold}], titles to keep or None for the whole corpus)."""
    if name == "hotpotqa":
        raw = json.loads((data / "hotpotqa_train.json").read_text(encoding="utf-8"))
        items = [
            {"qid": q["_id"], "question": q["question"], "gold": sorted({t for t, _ in q["supporting_facts"]})}
            for q in raw
        ]
        listed = [{t for t, _ in q["context"]} for q in raw]
        corpus = data / "hotpotqa_train_corpus.json"
    elif name == "musique":
        raw = json.loads((data / "musique_train.json").read_text(encoding="utf-8"))
        items = [
            {
                "qid": q["id"],
                "question": q["question"],
                "gold": sorted({p["title"] for p in q["paragraphs"] if p["is_supporting"]}),
            }
            for q in raw
        ]
        listed = [{p["title"] for p in q["paragraphs"]} for q in raw]
        corpus = data / "musique_train_corpus.json"
    else:
        raise SystemExit(f"unknown set {name!r}: hotpotqa or musique")
    if questions is None:
        return corpus, items, None
    return corpus, items[:questions], set().union(*listed[:questions])


def subset_corpus(corpus: Path, keep: set[str], out: Path) -> Path:
    data = json.loads(corpus.read_text(encoding="utf-8"))
    if isinstance(data, dict):
        data = {t: s for t, s in data.items() if t in keep}
    else:
        data = [p for p in data if p["title"] in keep]
    out.write_text(json.dumps(data), encoding="utf-8")
    return out


def ingest(corpus: Path, root: Path, collection: str) -> float:
    """Write the passages and run the sync job into the data dir ``root``; seconds taken."""
    from dagster import DagsterInstance

    import kg_pipelines
    from kg_pipelines.config import load_settings
    from kg_pipelines.dagster_shell.runner import ingest_sources
    from kg_pipelines.ingestion.inbox import scan_directory

    folder = root / "corpus" / collection
    n = write_passages(corpus, folder, None)
    home = root / "graph" / "dagster_home"
    home.mkdir(parents=True)
    shutil.copy(Path(kg_pipelines.__file__).with_name("dagster.yaml"), home / "dagster.yaml")
    os.environ["DAGSTER_HOME"] = str(home)
    os.environ["KG_DATA_DIR"] = str(root / "graph")  # what the runs' resource reads
    settings = load_settings(root / "graph")
    print(f"  ingesting {n} passages into {settings.data_dir} ...", file=sys.stderr)
    started = time.perf_counter()
    with DagsterInstance.from_config(str(home)) as instance:
        outcome = ingest_sources(settings, [f.to_source() for f in scan_directory(folder, collection)], instance)
    if outcome.failed_runs:
        sys.exit("ingestion failed: " + "; ".join(outcome.errors))
    return time.perf_counter() - started


def ranked_titles(ranked: list[tuple[str, float]], titles: dict[str, str]) -> list[str]:
    return list(dict.fromkeys(titles.get(chunk_id, chunk_id) for chunk_id, _ in ranked))


def evaluate(root: Path, items: list[dict], variants: list[str]) -> tuple[dict[str, dict[str, float]], float]:
    from kg_pipelines.config import load_settings
    from kg_pipelines.retrieval.chunk_retrieval import ChunkRetriever, _chunk_titles

    settings = load_settings(root / "graph")
    retriever = ChunkRetriever(settings)
    collections = retriever.collections()
    snapshot, _, _ = retriever.graph()
    if snapshot is None:
        sys.exit(f"no graph snapshot under {settings.data_dir}: the graph asset publishes one")
    titles = _chunk_titles(snapshot)
    retriever.rank("warm up the embedders", collections)
    sums = {v: {f"R@{k}": 0.0 for k in CUTOFFS} | {f"all@{k}": 0.0 for k in CUTOFFS} for v in variants}
    started = time.perf_counter()
    for item in items:
        ranking = retriever.rank(item["question"], collections)
        gold = set(item["gold"])
        for variant in variants:
            lists = retriever.variant_lists(ranking, collections, variant)
            ranked = ranked_titles([pair for c in collections for pair in lists[c]], titles)
            for k in CUTOFFS:
                found = gold.intersection(ranked[:k])
                sums[variant][f"R@{k}"] += len(found) / len(gold)
                sums[variant][f"all@{k}"] += float(found == gold)
    per_question_ms = 1000 * (time.perf_counter() - started) / max(1, len(items))
    return {v: {m: total / len(items) for m, total in sums[v].items()} for v in variants}, per_question_ms


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=Path("../shared/datasets/multihop_qa"))
    parser.add_argument("--sets", default="hotpotqa,musique")
    parser.add_argument("--questions", type=int, default=None, help="first N questions and their passages only")
    parser.add_argument("--work-dir", type=Path, default=None, help="keep (and reuse) the ingested data dirs here")
    args = parser.parse_args()

    from kg_pipelines.retrieval.chunk_retrieval import VARIANTS

    variants = list(VARIANTS)
    keep = args.work_dir is not None
    base = args.work_dir or Path(tempfile.mkdtemp(prefix="kg-retrieval-eval-"))
    tables = []
    try:
        for name in args.sets.split(","):
            corpus, items, titles = load_set(args.data, name, args.questions)
            root = base / f"{name}-{args.questions or 'all'}"
            if not (root / "graph" / "warehouse.duckdb").exists():
                shutil.rmtree(root, ignore_errors=True)
                root.mkdir(parents=True)
                if titles is not None:
                    corpus = subset_corpus(corpus, titles, root / "subset.json")
                seconds = ingest(corpus, root, name)
                print(f"  {name}: ingested in {seconds:.0f} s", file=sys.stderr)
            figures, per_question_ms = evaluate(root, items, variants)
            tables.append((name, len(items), figures, per_question_ms))
    finally:
        if not keep:
            shutil.rmtree(base, ignore_errors=True)

    for name, n, figures, per_question_ms in tables:
        print(f"\n{name} ({n} questions; {per_question_ms:.0f} ms a question for all variants together)")
        print(f"{'variant':<20} {'R@2':>6} {'R@5':>6} {'all-gold@8':>11}")
        for variant, m in figures.items():
            print(f"{variant:<20} {m['R@2']:6.3f} {m['R@5']:6.3f} {m['all@8']:11.3f}")


if __name__ == "__main__":
    main()
