"""Rationale QA quality on the sample corpus: are supported answers right, are absent answers flagged?

    python benchmarks/qa_eval.py --data-dir DIR [--questions data/eval/answers/qa.jsonl] [--details]

``DIR`` is a data dir holding the sample corpus, ingested (``kg-pipelines --data-dir DIR demo``
builds one). Sets: ``data/eval/answers/qa.jsonl`` (the default, the set the reasoner was designed
on) and ``data/eval/answers/qa_heldout.jsonl`` (written later from the documents alone). Every
question of the set (id, kind, question, answers; kinds
``one_hop`` (paraphrased), ``two_hop_doc`` (two hops within one document), ``two_hop_cross`` (two
hops across documents), ``absent`` (no document answers it; ``answers`` empty)) is asked through
``kg_pipelines.retrieval.rationale_qa.ask`` with the data dir's settings (the offline provider
unless its kg.yaml says otherwise), nothing recorded.

An answer is **right** when a gold answer string (or one of its aliases) occurs in the answer text,
case-insensitively; an absent-answer question is right when the answer is marked unsupported.
**Named right** is stricter: the thing the answer names (``answer_entity``, the offline reasoner's
"NAME: sentence") must hold a gold string or lie inside one, so an answer that names the wrong
entity beside a sentence that happens to write the gold one is not counted (without a named
entity, as from an LLM provider, the answer text is read as for "right").
Printed:
- supported answers that are right (share of the supported answers, absent questions included:
  a supported answer to one of them is wrong);
- absent-answer questions marked unsupported;
- right overall (share of all questions), and per kind; the same with named right.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

KINDS = ("one_hop", "two_hop_doc", "two_hop_cross", "absent")


def is_right(item: dict, answer: str, supported: bool) -> bool:
    if item["kind"] == "absent":
        return not supported
    text = answer.casefold()
    return supported and any(gold.casefold() in text for gold in item["answers"])


def comparable(name: str) -> str:
    """A name as the graph keys it, Greek symbols spelled out and separators dropped: PPARα and
    PPAR-alpha are one string."""
    from kg_pipelines.graph.sibling_names import greek_letters
    from kg_pipelines.ingestion.names import node_key

    spelled = "".join(greek_letters().get(c, c) for c in name)
    return node_key(spelled).replace(" ", "")


def is_named_right(item: dict, answer: str, supported: bool, named: str | None) -> bool:
    """``is_right`` judged on the entity the answer names, when it names one."""
    if item["kind"] == "absent" or not named:
        return is_right(item, answer, supported)
    named = comparable(named)
    return supported and any(comparable(gold) in named or named in comparable(gold) for gold in item["answers"])


def share(part: int, whole: int) -> str:
    return f"{part / whole:.2f} ({part}/{whole})" if whole else "n/a (0)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, required=True, help="an ingested data dir of the sample corpus")
    parser.add_argument("--questions", type=Path, default=ROOT / "data" / "eval" / "answers" / "qa.jsonl")
    parser.add_argument("--details", action="store_true", help="print every question, its verdict and answer")
    args = parser.parse_args()

    from kg_pipelines.config import load_settings
    from kg_pipelines.retrieval.rationale_qa import ask

    settings = load_settings(args.data_dir)
    items = [json.loads(line) for line in args.questions.read_text(encoding="utf-8").splitlines() if line.strip()]
    unknown = sorted({i["kind"] for i in items} - set(KINDS))
    if unknown:
        raise SystemExit(f"{args.questions}: unknown kind(s) {unknown}; use {', '.join(KINDS)}")
    rows = []
    started = time.perf_counter()
    for item in items:
        result = ask(settings, item["question"], record=False)
        right = is_right(item, result.answer, result.supported)
        named = is_named_right(item, result.answer, result.supported, result.answer_entity)
        rows.append((item, result.supported, right, named))
        if args.details:
            mark = "RIGHT" if right and named else "TEXT" if right else "WRONG"
            flag = "supported" if result.supported else "unsupported"
            print(f"{mark:5} {flag:11} [{item['kind']}] {item['question']}\n      {result.answer[:300]}")
    elapsed = time.perf_counter() - started

    supported = [r for r in rows if r[1]]
    absent = [r for r in rows if r[0]["kind"] == "absent"]
    print(f"questions: {len(rows)} ({args.questions.name}), provider {settings.llm.provider}, {elapsed:.1f} s")
    print(f"supported answers that are right:      {share(sum(r[2] for r in supported), len(supported))}")
    print(f"absent-answer questions unsupported:   {share(sum(not r[1] for r in absent), len(absent))}")
    print(f"right overall:                         {share(sum(r[2] for r in rows), len(rows))}")
    print(
        f"named right: supported / overall:      {share(sum(r[3] for r in supported), len(supported))} / "
        f"{share(sum(r[3] for r in rows), len(rows))}"
    )
    for kind in KINDS:
        of_kind = [r for r in rows if r[0]["kind"] == kind]
        print(
            f"  {kind:14} right {share(sum(r[2] for r in of_kind), len(of_kind))}, "
            f"named right {sum(r[3] for r in of_kind)}, supported {sum(r[1] for r in of_kind)}"
        )


if __name__ == "__main__":
    main()
