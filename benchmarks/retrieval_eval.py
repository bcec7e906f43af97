"""Multi-hop retrieval quality: every ranking variant on HotpotQA-100 and MuSiQue-100, one run.

    python benchmarks/retrieval_eval.py [--data ../shared/datasets/multihop_qa] [--sets hotpotqa,musique]
                                        [--questions N] [--work-dir DIR] [--variants a,b]
                                        [--distractors] [--analyse]

For each set, its passage corpus is written as one Markdown document per passage (``# title`` then
the text, as ``benchmarks/ingest.py`` does) and ingested through the normal pipeline (the sync job,
offline provider, no LLM) into its own data dir; then every question is answered in-process by
``ChunkRetriever`` for each variant of ``kg_pipelines.retrieval.chunk_retrieval.VARIANTS`` (BM25
only, vector only, their RRF, the graph walk, and the combinations), from the same rankings.

Measures (the data sets' README convention), on the ranked document titles (each title once):
Recall@2 and Recall@5 (share of a question's gold titles in the top k, averaged over questions)
and all-gold@8 (share of questions whose gold titles are all in the top 8); and the latency of the
default variant per question (the question's rankings plus the variant's list), p50 and p95.

**Split.** Every figure is given for the whole set and for its two halves by question index:
questions 0-49 (``report``: never looked at while choosing a rule or a constant) and 50-99
(``tune``: the misses analysed and the rules chosen on these). The targets are read on the whole
set and on ``report``.

``--distractors`` also measures each set against the corpus padded with the other set's passages
(HotpotQA's 994 + MuSiQue's 1,890 passages in one collection, ingested once into ``union-all``):
recall as the corpus grows, with passages that resemble the questions but answer none.

``--analyse`` prints, for the default variant, every gold passage missed in the top 5 of the
``tune`` half with its kind: ``title not seeded`` (the question names the passage's title, its
title node was not linked), ``seeded, outranked`` (it was a seed and still fell out),
``second hop outranked`` (the graph holds the path: a passage of the question shares an entity with
the missed one, or names its title; the walk ranks it below the first passage's neighbours),
``no path`` (no entity links it to the question's passages: the bridge is not a node or not
linked), and whether the walk from the names alone (``graph``) had it (``fusion buried the walk``).

``--questions N`` keeps the first N questions and only the passages listed with them (a small
corpus for development); the figures reported in the README are of the full corpora. The
retriever runs with its default settings; those chosen on these sets were chosen on ``tune``.
With ``--work-dir`` the ingested data dirs are kept and reused by the next run.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ingest import write_passages  # noqa: E402  (the existing benchmark's corpus writer)

from kg_pipelines.retrieval.retrieval_quality import percentile  # noqa: E402

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


def union_corpus(data: Path, out: Path) -> Path:
    """Both sets' passages in one list (the distractor corpus); a passage in both is kept once."""
    passages: dict[tuple[str, str], None] = {}
    for name in ("hotpotqa_train_corpus.json", "musique_train_corpus.json"):
        loaded = json.loads((data / name).read_text(encoding="utf-8"))
        pairs = (
            ((t, "".join(s)) for t, s in loaded.items())
            if isinstance(loaded, dict)
            else ((p["title"], p["text"]) for p in loaded)
        )
        for title, text in pairs:
            passages.setdefault((title, text.strip()), None)
    out.write_text(json.dumps([{"title": t, "text": x} for t, x in passages]), encoding="utf-8")
    return out


def ranked_titles(ranked: list[tuple[str, float]], titles: dict[str, str]) -> list[str]:
    return list(dict.fromkeys(titles.get(chunk_id, chunk_id) for chunk_id, _ in ranked))


# question index halves (see the module docstring): report = 0-49, tune = 50-99
HALVES = {"all": lambda i: True, "report 0-49": lambda i: i < 50, "tune 50-99": lambda i: i >= 50}


def scores_for(ranked: list[str], gold: set[str]) -> dict[str, float]:
    out = {}
    for k in CUTOFFS:
        found = gold.intersection(ranked[:k])
        out[f"R@{k}"] = len(found) / len(gold)
        out[f"all@{k}"] = float(found == gold)
    return out


def evaluate(root: Path, items: list[dict], variants: list[str], analyse: bool) -> dict:
    from kg_pipelines.config import load_settings
    from kg_pipelines.retrieval.chunk_retrieval import ChunkRetriever, _chunk_titles

    settings = load_settings(root / "graph")
    retriever = ChunkRetriever(settings)
    collections = retriever.collections()
    snapshot, _, _ = retriever.graph()
    if snapshot is None:
        sys.exit(f"no graph snapshot under {settings.data_dir}: the graph asset publishes one")
    titles = _chunk_titles(snapshot)
    default = settings.retrieval.variant
    # warm up the embedders and what is built once per snapshot version (passage graph, text frequency)
    retriever.variant_lists(retriever.rank("warm up the embedders", collections), collections, default)
    per_question: list[dict[str, dict[str, float]]] = []
    latencies, misses = [], []
    for i, item in enumerate(items):
        started = time.perf_counter()
        ranking = retriever.rank(item["question"], collections)
        lists = {default: retriever.variant_lists(ranking, collections, default)}
        latencies.append(1000 * (time.perf_counter() - started))
        gold = set(item["gold"])
        figures, ranked_by = {}, {}
        for variant in dict.fromkeys([default, *variants, *(["graph"] if analyse else [])]):
            if variant not in lists:
                lists[variant] = retriever.variant_lists(ranking, collections, variant)
            ranked_by[variant] = ranked_titles([pair for c in collections for pair in lists[variant][c]], titles)
            figures[variant] = scores_for(ranked_by[variant], gold)
        per_question.append(figures)
        if analyse:
            for title in sorted(gold - set(ranked_by[default][:5])):
                misses.append((i, item, title, miss_kind(retriever, ranking, ranked_by, title, gold, default)))
    tables = {}
    for half, keep in HALVES.items():
        chosen = [f for i, f in enumerate(per_question) if keep(i)]
        if chosen:
            tables[half] = {
                v: {m: sum(f[v][m] for f in chosen) / len(chosen) for m in chosen[0][v]} for v in variants
            } | {"_n": len(chosen)}
    return {"tables": tables, "latencies": latencies, "misses": misses, "default": default}


def miss_kind(retriever, ranking, ranked_by: dict[str, list[str]], title: str, gold: set[str], default: str):
    """(kind, detail) of a gold passage missing from the default variant's top 5 (module docstring)."""
    from kg_pipelines.ingestion.names import node_key
    from kg_pipelines.retrieval.chunk_retrieval import _chunk_titles
    from kg_pipelines.retrieval.entity_linking import TITLE_QUALIFIER

    snapshot, graph, _ = retriever.graph()
    titles = _chunk_titles(snapshot)
    if not hasattr(graph, "_by_column"):
        graph._by_column = graph.transition.tocsc()
    by_column = graph._by_column

    def neighbours(positions) -> set[int]:
        out: set[int] = set()
        for p in positions:
            out.update(by_column.indices[by_column.indptr[p] : by_column.indptr[p + 1]].tolist())
        return out

    def chunks_of(name: str) -> list[int]:
        return [graph.position["chunk:" + c] for c, t in titles.items() if t == name and "chunk:" + c in graph.position]

    def keys(name: str) -> set[str]:
        return {node_key(name), node_key(TITLE_QUALIFIER.sub("", name))} - {""}

    def namesakes(around: set[int], name: str) -> list[str]:
        return [graph.names[p] for p in around if graph.kinds[p] == "entity" and node_key(graph.names[p]) in keys(name)]

    default_ranked = ranked_by[default]
    where = f"rank {default_ranked.index(title) + 1}" if title in default_ranked else "not ranked"
    if title in ranked_by["graph"][:5]:
        where += " (the walk from the names alone had it: fusion buried the walk)"
    missed = chunks_of(title)
    if not missed:
        return "not in the graph", where
    around = neighbours(missed)
    linked = {link.position for link in ranking.links}
    if {p for p in around if graph.kinds[p] == "title"} & linked or set(
        namesakes_positions(graph, around, keys(title))
    ) & linked:
        return "seeded, outranked", where
    if any(f" {key} " in f" {words(ranking.question)} " for key in map(words, keys(title))):
        return "title not seeded", f"{where}; the question names {title!r}"
    found = [other for other in sorted(gold - {title}) if other in default_ranked[:5]]
    if not found:
        return "first hop missed too", where
    for other in found:
        bridge = namesakes(neighbours(chunks_of(other)), title) or namesakes(around, other)
        if bridge:
            return "second hop outranked", f"{where}; {other!r} -> {bridge[0]!r} -> {title!r}"
    for other in found:
        rows = {}
        for collection in retriever.collections():
            rows.update(
                retriever.index(collection).rows([graph.node_ids[p].removeprefix("chunk:") for p in chunks_of(other)])
            )
        text = f" {words(' '.join(row.text for row in rows.values()))} "
        if any(f" {key} " in text for key in map(words, keys(title))):
            return "bridge not a node", f"{where}; {other!r} names {title!r} in its text, no entity of that name"
    return "no path", f"{where}; {', '.join(map(repr, found))} does not name it"


def words(text: str) -> str:
    """Lower-case words of a text, one space between them (what "names it in its text" compares)."""
    return " ".join(re.findall(r"\w+", text.casefold()))


def namesakes_positions(graph, around: set[int], keys: set[str]) -> list[int]:
    from kg_pipelines.ingestion.names import node_key

    return [p for p in around if graph.kinds[p] == "entity" and node_key(graph.names[p]) in keys]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=Path("../shared/datasets/multihop_qa"))
    parser.add_argument("--sets", default="hotpotqa,musique")
    parser.add_argument("--questions", type=int, default=None, help="first N questions and their passages only")
    parser.add_argument("--work-dir", type=Path, default=None, help="keep (and reuse) the ingested data dirs here")
    parser.add_argument("--variants", default=None, help="comma-separated variants (default: all)")
    parser.add_argument("--distractors", action="store_true", help="also against both sets' passages together")
    parser.add_argument("--analyse", action="store_true", help="print the default variant's misses by kind")
    args = parser.parse_args()

    from kg_pipelines.retrieval.chunk_retrieval import VARIANTS

    variants = args.variants.split(",") if args.variants else list(VARIANTS)
    keep = args.work_dir is not None
    base = args.work_dir or Path(tempfile.mkdtemp(prefix="kg-retrieval-eval-"))
    results = []

    def ready(root: Path, corpus: Path, name: str, titles: set[str] | None = None) -> None:
        if (root / "graph" / "warehouse.duckdb").exists():
            return
        shutil.rmtree(root, ignore_errors=True)
        root.mkdir(parents=True)
        if name == "union":
            corpus = union_corpus(args.data, root / "union.json")
        elif titles is not None:
            corpus = subset_corpus(corpus, titles, root / "subset.json")
        seconds = ingest(corpus, root, name)
        print(f"  {name}: ingested in {seconds:.0f} s", file=sys.stderr)

    try:
        for name in args.sets.split(","):
            corpus, items, titles = load_set(args.data, name, args.questions)
            root = base / f"{name}-{args.questions or 'all'}"
            ready(root, corpus, name, titles)
            results.append((name, len(items), evaluate(root, items, variants, args.analyse)))
            if args.distractors:
                root = base / "union-all"
                ready(root, corpus, "union")
                results.append((f"{name} + distractors", len(items), evaluate(root, items, variants, args.analyse)))
    finally:
        if not keep:
            shutil.rmtree(base, ignore_errors=True)

    for name, n, result in results:
        lat = result["latencies"]
        print(
            f"\n{name} ({n} questions; default {result['default']}: "
            f"p50 {percentile(lat, 0.5):.0f} ms, p95 {percentile(lat, 0.95):.0f} ms a question)"
        )
        print(f"{'variant':<20} {'half':<12} {'R@2':>6} {'R@5':>6} {'all-gold@8':>11}")
        for variant in variants:
            for half, table in result["tables"].items():
                m = table[variant]
                print(f"{variant:<20} {half:<12} {m['R@2']:6.3f} {m['R@5']:6.3f} {m['all@8']:11.3f}")
        if args.analyse:
            counts: dict[str, dict[str, int]] = {}
            for i, _, _, (kind, _) in result["misses"]:
                half = "report 0-49" if i < 50 else "tune 50-99"
                counts.setdefault(kind, {}).setdefault(half, 0)
                counts[kind][half] += 1
            print(f"\nmisses in the top 5 of {result['default']}, by kind (gold passages):")
            for kind, by_half in sorted(counts.items()):
                print(f"  {kind:<22} " + ", ".join(f"{h}: {c}" for h, c in sorted(by_half.items())))
            print("tune half, each miss:")
            for i, item, title, (kind, detail) in result["misses"]:
                if i >= 50:
                    print(f"  q{i} {item['question'][:90]!r}\n      missed {title!r}: {kind}; {detail}")


if __name__ == "__main__":
    main()
