"""Quality of the offline extraction, measured on text it was not written for.

    python benchmarks/extraction_eval.py [--biored PUBTATOR] [--hotpotqa JSON] [--musique JSON]
                                         [--limit N] [--errors N] [--json OUT]

Defaults point at ``../shared/datasets/`` (BioRED Dev, the HotpotQA and MuSiQue passage corpora);
a missing file is skipped. Nothing here is read by the tests, and nothing of the data is kept.

BioRED (PubTator: title, abstract, gold mentions with offsets and types)
    Each abstract is given to the provider as the pipeline would see a Markdown document,
    ``# <title>\\n\\n<abstract>``; the gold offsets are shifted accordingly. The provider's mentions
    (``analyze``) get the type its entity has in ``extract`` with the base entity types, and our
    types map to BioRED's:

        gene, protein                   -> GeneOrGeneProduct (a gene mention may also match a SequenceVariant:
                                           the offline provider types variants such as "V600E" gene)
        compound (geroprotector)        -> ChemicalEntity
        disease, phenotype              -> DiseaseOrPhenotypicFeature
        microbe, organism (model_org.)  -> OrganismTaxon
        cell_type                       -> CellLine

    Precision counts only predicted mentions whose type maps to a BioRED type (a ``concept`` or a
    ``location`` is neither right nor wrong here). BioRED annotates cell lines, not cell types: a
    ``cell_type`` mention counts toward CellLine recall and the CellLine row's precision, but not
    toward overall precision. Two matching rules, both typed (the mapped type
    must equal the gold type):
      - exact: same start and end offsets;
      - overlap: the spans share at least one character.
    A predicted mention is correct if it matches some gold mention; a gold mention is found if some
    predicted mention matches it. Overall recall is over all gold mentions, SequenceVariant included.

    A third rule, by strings (``strings``; untyped, no offsets): the gold of an abstract is its
    distinct mention strings, lower-cased (SequenceVariant and CellLine mentions left out); the
    prediction is its extracted entities (their names). Lower-cased, an entity matches a gold
    string when they are equal or one lies inside the other and covers at least half of it.
    Recall is over gold strings (found by an entity of any type); precision is over the entities
    typed gene, protein, compound, disease, phenotype, organism or microbe. ``--errors`` lists
    those entities that match nothing, by type, and the missed gold strings.

BioRED relations (a precision proxy)
    BioRED's document-level relations (``PMID<TAB>type<TAB>id1<TAB>id2<TAB>novelty``) join the
    database ids of gold mentions. Each relationship the provider answers (negated ones and those
    grounding leaves out are not answered) is counted when both its endpoint mentions match gold
    mentions by the overlap rule above (typed) and the ids at one end differ from those at the
    other; it is right when BioRED relates an id of one end to an id of the other (any type, either
    order). A proxy: BioRED annotates the abstract's main findings, not every relation a sentence
    states (a true "X reduced Y in rats" between an entity and a species is counted wrong), and a
    right pair of ids may come from a sentence that does not state it.

HotpotQA / MuSiQue passages
    Each passage is written as the pipeline writes it, ``# <title>\\n\\n<text>``. Title recall is the
    share of passages whose own title, without a trailing parenthetical ("Kinshasa (film)" ->
    "Kinshasa"), is among the entities extracted from that passage (names compared with the
    pipeline's ``node_key``: case- and separator-insensitive). The type distribution counts the
    entities extracted (one per name per passage) by type.

Also reported: milliseconds per passage for ``extract`` alone (analysis included, cache cleared).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kg_pipelines.entity_types import BASE_ENTITY_TYPES  # noqa: E402
from kg_pipelines.ingestion.names import node_key  # noqa: E402
from kg_pipelines.llm.offline_provider import _grounded_only  # noqa: E402
from kg_pipelines.offline import entities as offline  # noqa: E402

SHARED = ROOT.parent / "shared" / "datasets"
BIORED_TYPES = (
    "GeneOrGeneProduct",
    "ChemicalEntity",
    "DiseaseOrPhenotypicFeature",
    "OrganismTaxon",
    "CellLine",
    "SequenceVariant",
)
# Our type -> the BioRED types a mention of it may match (the first one is where its precision is
# counted). A sequence variant ("V600E", "rs1042522") is typed gene: a gene mention matches a
# GeneOrGeneProduct or a SequenceVariant.
TYPE_MAP = {
    "gene": ("GeneOrGeneProduct", "SequenceVariant"),
    "protein": ("GeneOrGeneProduct",),
    "compound": ("ChemicalEntity",),
    "geroprotector": ("ChemicalEntity",),
    "disease": ("DiseaseOrPhenotypicFeature",),
    "phenotype": ("DiseaseOrPhenotypicFeature",),
    "microbe": ("OrganismTaxon",),
    "organism": ("OrganismTaxon",),
    "model_organism": ("OrganismTaxon",),
    "cell_type": ("CellLine",),
}
# BioRED annotates cell lines (HeLa, HEK293), not cell types (T cells, fibroblasts): a cell_type
# mention counts toward CellLine recall, but it is left out of overall precision (like a location,
# it is neither right nor wrong); the CellLine row still shows its own precision.
NOT_IN_OVERALL_PRECISION = frozenset({"cell_type"})
ALLOWED = frozenset(BASE_ENTITY_TYPES)
# The string rule: the entity types whose names are counted, and the gold types left out.
STRING_RULE_TYPES = frozenset({"gene", "protein", "compound", "disease", "phenotype", "organism", "microbe"})
STRING_RULE_SKIP = frozenset({"SequenceVariant", "CellLine"})
_PARENTHETICAL = re.compile(r"\s*\([^()]*\)\s*$")


# -- extraction as the pipeline sees it ------------------------------------------------------------


@dataclass(frozen=True)
class Predicted:
    start: int
    end: int
    name: str
    type: str


def predict(text: str) -> tuple[list[Predicted], list]:
    """Mentions with their entity's type, and the extracted entities."""
    result = offline.extract(text, ALLOWED)
    # what the provider answers: entities whose description grounding would reject are left out
    answered = _grounded_only(offline.extraction_payload(text, tuple(ALLOWED)), text)
    kept = {e["entity_name"] for e in answered["entities"]}
    type_of = {e.name.casefold(): e.type for e in result.entities if e.name in kept}
    mentions = []
    for m in offline.analyze(text).mentions:
        etype = type_of.get(m.name.casefold())
        if etype is not None:
            mentions.append(Predicted(m.start, m.end, m.name, etype))
    return mentions, [e for e in result.entities if e.name in kept]


def clear_caches() -> None:
    offline.analyze.cache_clear()
    offline.extract.cache_clear()


# -- BioRED ----------------------------------------------------------------------------------------


def read_pubtator(path: Path, limit: int | None) -> list[dict]:
    docs: list[dict] = []
    current: dict | None = None
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            current = None
            continue
        if "|t|" in line[:20] and current is None:
            pmid, _, title = line.split("|", 2)
            current = {"pmid": pmid, "title": title, "abstract": "", "mentions": [], "ids": [], "relations": set()}
            docs.append(current)
        elif current is not None and line.startswith(current["pmid"] + "|a|"):
            current["abstract"] = line.split("|", 2)[2]
        elif current is not None:
            parts = line.split("\t")
            if len(parts) >= 6 and parts[1].isdigit():
                current["mentions"].append((int(parts[1]), int(parts[2]), parts[3], parts[4]))
                current["ids"].append(frozenset(i.strip() for i in parts[5].split(",") if i.strip() not in ("", "-")))
            elif len(parts) >= 4 and not parts[1].isdigit():  # PMID, relation type, id1, id2[, novelty]
                current["relations"].add(frozenset((parts[2], parts[3])))
    return docs[:limit] if limit else docs


def biored_text(doc: dict, with_ids: bool = False) -> tuple[str, list]:
    """The Markdown form of the abstract and the gold mentions shifted to it (with ``with_ids``,
    each mention followed by its set of database ids)."""
    title, abstract = doc["title"], doc["abstract"]
    text = f"# {title}\n\n{abstract}"
    gold = []
    for (start, end, surface, gtype), ids in zip(doc["mentions"], doc["ids"], strict=True):
        shift = 2 if start < len(title) + 1 else 3  # "# " before the title; "\n\n" instead of " "
        s, e = start + shift, end + shift
        if text[s:e] != surface:  # defensive: never count a mis-shifted span
            continue
        gold.append((s, e, surface, gtype, ids) if with_ids else (s, e, surface, gtype))
    return text, gold


def string_match(name: str, gold: str) -> bool:
    """The string rule's match: lower-cased, equal, or one inside the other covering at least half of it."""
    a, b = name.lower(), gold.lower()
    if a == b:
        return True
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    return bool(short) and short in long and 2 * len(short) >= len(long)


def string_rule(entities: list, gold: list[tuple[int, int, str, str]]) -> tuple[list, list, list, list]:
    """(matched entities, unmatched entities, found gold strings, missed gold strings) of one abstract."""
    strings = sorted({g[2].lower() for g in gold if g[3] not in STRING_RULE_SKIP})
    counted = [e for e in entities if e.type in STRING_RULE_TYPES]
    right = [e for e in counted if any(string_match(e.name, g) for g in strings)]
    wrong = [e for e in counted if e not in right]
    found = [g for g in strings if any(string_match(e.name, g) for e in entities)]
    missed = [g for g in strings if g not in found]
    return right, wrong, found, missed


def evaluate_biored(path: Path, limit: int | None, errors: int) -> dict:
    docs = read_pubtator(path, limit)
    counts = {rule: {t: Counter() for t in (*BIORED_TYPES, "all")} for rule in ("exact", "overlap")}
    misses: dict[str, Counter] = defaultdict(Counter)
    wrong: dict[str, Counter] = defaultdict(Counter)
    strings = Counter()
    string_wrong: dict[str, Counter] = defaultdict(Counter)
    string_missed: Counter[str] = Counter()
    clear_caches()
    started = time.perf_counter()
    for doc in docs:
        text, gold = biored_text(doc)
        predicted, entities = predict(text)
        right, bad, found, missed = string_rule(entities, gold)
        strings["tp_pred"] += len(right)
        strings["pred"] += len(right) + len(bad)
        strings["tp_gold"] += len(found)
        strings["gold"] += len(found) + len(missed)
        for e in bad:
            string_wrong[e.type][e.name] += 1
        string_missed.update(missed)
        mapped = [(p, TYPE_MAP[p.type]) for p in predicted if p.type in TYPE_MAP]
        for rule in ("exact", "overlap"):
            c = counts[rule]

            def match(p: Predicted, ptypes: tuple[str, ...], g: tuple, rule: str = rule) -> bool:
                if g[3] not in ptypes:
                    return False
                if rule == "exact":
                    return p.start == g[0] and p.end == g[1]
                return p.start < g[1] and g[0] < p.end

            for p, ptypes in mapped:
                ok = any(match(p, ptypes, g) for g in gold)
                keys = (ptypes[0],) if p.type in NOT_IN_OVERALL_PRECISION else (ptypes[0], "all")
                for key in keys:
                    c[key]["pred"] += 1
                    c[key]["tp_pred"] += ok
                if not ok and rule == "overlap":
                    wrong[ptypes[0]][f"{text[p.start : p.end]} [{p.type}]"] += 1
            for g in gold:
                ok = any(match(p, ptypes, g) for p, ptypes in mapped)
                for key in (g[3], "all"):
                    c[key]["gold"] += 1
                    c[key]["tp_gold"] += ok
                if not ok and rule == "overlap":
                    misses[g[3]][g[2]] += 1
    elapsed = time.perf_counter() - started
    out: dict = {"documents": len(docs), "ms_per_document": 1000 * elapsed / max(1, len(docs))}
    for rule, by_type in counts.items():
        out[rule] = {}
        for t, c in by_type.items():
            p = c["tp_pred"] / c["pred"] if c["pred"] else None
            r = c["tp_gold"] / c["gold"] if c["gold"] else None
            out[rule][t] = {"precision": p, "recall": r, "predicted": c["pred"], "gold": c["gold"]}
    out["strings"] = {
        "precision": strings["tp_pred"] / strings["pred"] if strings["pred"] else None,
        "recall": strings["tp_gold"] / strings["gold"] if strings["gold"] else None,
        "predicted": strings["pred"],
        "gold": strings["gold"],
    }
    if errors:
        out["strings_wrong"] = {t: string_wrong[t].most_common(errors) for t in sorted(string_wrong)}
        out["strings_missed"] = string_missed.most_common(errors)
        out["missed"] = {t: misses[t].most_common(errors) for t in BIORED_TYPES}
        out["wrong"] = {t: wrong[t].most_common(errors) for t in sorted(wrong)}
    return out


def _overlap_match(start: int, end: int, ptypes: tuple[str, ...], g: tuple) -> bool:
    """The overlap rule of ``evaluate_biored``: typed, the spans share at least one character."""
    return g[3] in ptypes and start < g[1] and g[0] < end


def evaluate_relations(path: Path, limit: int | None) -> dict:
    """The relation precision proxy: relationships answered by the provider whose two endpoint
    mentions each match gold mentions (overlap rule) with database ids, different ids at the two
    ends; one is right when BioRED relates an id of one end to an id of the other."""
    docs = read_pubtator(path, limit)
    matched = right = answered = 0
    clear_caches()
    for doc in docs:
        text, gold = biored_text(doc, with_ids=True)
        result = offline.extract(text, ALLOWED)
        payload = _grounded_only(offline.extraction_payload(text, tuple(ALLOWED)), text)
        kept = {(r["source_entity"], r["target_entity"]) for r in payload["relationships"]}
        for r in result.relations:
            if (r.source.name, r.target.name) not in kept:
                continue  # not in the provider's answer (negated, or an entity grounding left out)
            answered += 1
            ends = []
            for entity, start in ((r.source, r.source_start), (r.target, r.target_start)):
                ptypes = TYPE_MAP.get(entity.type)
                mention = next((m for m in offline.analyze(text).mentions if m.start == start), None)
                ids: set[str] = set()
                if ptypes and mention is not None:
                    for g in gold:
                        if _overlap_match(mention.start, mention.end, ptypes, g):
                            ids |= g[4]
                ends.append(ids)
            if not ends[0] or not ends[1] or ends[0] & ends[1]:
                continue
            matched += 1
            right += any(frozenset((x, y)) in doc["relations"] for x in ends[0] for y in ends[1])
    return {
        "documents": len(docs),
        "relations": answered,
        "matched": matched,
        "right": right,
        "precision": right / matched if matched else None,
    }


# -- passages --------------------------------------------------------------------------------------


def read_passages(path: Path, limit: int | None) -> list[tuple[str, str]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(data, dict):
        passages = [(title, "".join(sentences)) for title, sentences in data.items()]
    else:
        passages = [(p["title"], p["text"]) for p in data]
    return passages[:limit] if limit else passages


def _shape(text: str, entity) -> str:
    """How a concept-typed entity stands in its passage: the passage's title, quoted (a work),
    one word or several."""
    if entity.first_start < text.find("\n"):
        return "title"
    before = text[max(0, entity.first_start - 1) : entity.first_start]
    if before in ('"', "“", "'"):
        return "quoted"
    return "one word" if " " not in entity.name else "several words"


def evaluate_passages(path: Path, limit: int | None, errors: int, concepts: int = 0, skip: int = 0) -> dict:
    passages = read_passages(path, None)[skip:]
    passages = passages[:limit] if limit else passages
    found = 0
    types: Counter[str] = Counter()
    missed: list[str] = []
    concept_names: Counter[str] = Counter()
    concept_shapes: Counter[str] = Counter()
    clear_caches()
    started = time.perf_counter()
    for title, body in passages:
        text = f"# {title}\n\n{body.strip()}\n"
        _, entities = predict(text)
        for e in entities:
            types[e.type] += 1
            if e.type == "concept" and concepts:
                concept_names[e.name] += 1
                concept_shapes[_shape(text, e)] += 1
        want = node_key(_PARENTHETICAL.sub("", title))
        if any(node_key(e.name) == want for e in entities):
            found += 1
        elif len(missed) < errors:
            missed.append(title)
    elapsed = time.perf_counter() - started
    total = sum(types.values())
    out = {
        "passages": len(passages),
        "title_recall": found / len(passages) if passages else None,
        "entities": total,
        "entities_per_passage": total / len(passages) if passages else None,
        "types": {t: n / total for t, n in types.most_common()} if total else {},
        "concept_share": types["concept"] / total if total else None,
        "ms_per_passage": 1000 * elapsed / max(1, len(passages)),
    }
    if errors:
        out["missed_titles"] = missed
    if concepts:
        out["concepts"] = concept_names.most_common(concepts)
        out["concept_shapes"] = {k: n / total for k, n in concept_shapes.most_common()}
    return out


# -- report ----------------------------------------------------------------------------------------


def _fmt(x: float | None) -> str:
    return "  -  " if x is None else f"{x:.3f}"


def print_report(results: dict) -> None:
    bio = results.get("biored")
    if bio:
        print(f"BioRED ({bio['documents']} abstracts, {bio['ms_per_document']:.1f} ms each)")
        print(f"{'type':<28}{'exact P':>9}{'exact R':>9}{'overlap P':>11}{'overlap R':>11}{'pred':>7}{'gold':>7}")
        for t in (*BIORED_TYPES, "all"):
            e, o = bio["exact"][t], bio["overlap"][t]
            print(
                f"{t:<28}{_fmt(e['precision']):>9}{_fmt(e['recall']):>9}{_fmt(o['precision']):>11}"
                f"{_fmt(o['recall']):>11}{o['predicted']:>7}{o['gold']:>7}"
            )
        st = bio["strings"]
        print(
            f"{'strings (untyped)':<28}{'':>9}{'':>9}{_fmt(st['precision']):>11}{_fmt(st['recall']):>11}"
            f"{st['predicted']:>7}{st['gold']:>7}"
        )
        for kind in ("missed", "wrong", "strings_wrong"):
            for t, items in bio.get(kind, {}).items():
                if items:
                    print(f"  {kind} {t}: " + ", ".join(f"{s} x{n}" for s, n in items))
        if bio.get("strings_missed"):
            print("  strings_missed: " + ", ".join(f"{s} x{n}" for s, n in bio["strings_missed"]))
        print()
    rel = results.get("biored_relations")
    if rel:
        print(
            f"BioRED relations (proxy, {rel['documents']} abstracts): precision {_fmt(rel['precision'])} over "
            f"{rel['matched']} relations with both ends matched ({rel['right']} right; {rel['relations']} answered)"
        )
        print()
    for name in ("hotpotqa", "musique"):
        res = results.get(name)
        if not res:
            continue
        print(
            f"{name} ({res['passages']} passages, {res['entities_per_passage']:.1f} entities each, "
            f"{res['ms_per_passage']:.1f} ms each)"
        )
        print(f"  title recall   {_fmt(res['title_recall'])}")
        print(f"  concept share  {_fmt(res['concept_share'])}")
        print("  types          " + ", ".join(f"{t} {share:.1%}" for t, share in res["types"].items()))
        if res.get("concept_shapes"):
            print(
                "  concepts by shape (share of all entities): "
                + ", ".join(f"{k} {share:.1%}" for k, share in res["concept_shapes"].items())
            )
            print("  concepts by frequency: " + ", ".join(f"{s} x{n}" for s, n in res["concepts"]))
        if res.get("missed_titles"):
            print("  missed titles: " + "; ".join(res["missed_titles"]))
        print()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--biored", type=Path, default=SHARED / "biomedical" / "Dev.PubTator")
    parser.add_argument("--hotpotqa", type=Path, default=SHARED / "multihop_qa" / "hotpotqa_train_corpus.json")
    parser.add_argument("--musique", type=Path, default=SHARED / "multihop_qa" / "musique_train_corpus.json")
    parser.add_argument("--limit", type=int, default=None, help="first N documents/passages of each set")
    parser.add_argument("--errors", type=int, default=0, help="list the N most frequent misses and wrong mentions")
    parser.add_argument(
        "--concepts", type=int, default=0, help="list the N commonest concept entities of passages, by shape"
    )
    parser.add_argument(
        "--skip", type=int, default=0, help="passages only: leave out the first N (with --limit, a held-out split)"
    )
    parser.add_argument("--json", type=Path, default=None, help="also write the figures as JSON")
    args = parser.parse_args(argv)
    results: dict = {}
    if args.biored and args.biored.exists():
        results["biored"] = evaluate_biored(args.biored, args.limit, args.errors)
        results["biored_relations"] = evaluate_relations(args.biored, args.limit)
    for name in ("hotpotqa", "musique"):
        path = getattr(args, name)
        if path and path.exists():
            results[name] = evaluate_passages(path, args.limit, args.errors, args.concepts, args.skip)
    if not results:
        print("no data set found (see --help)", file=sys.stderr)
        return 1
    print_report(results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
