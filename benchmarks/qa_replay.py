"""Replay the offline reasoner on captured contexts: how a reasoner change moves every question.

    python benchmarks/qa_replay.py capture --data-dir DIR --out CONTEXTS.pkl SETS.jsonl...
    python benchmarks/qa_replay.py replay CONTEXTS.pkl... [--against OLD.tsv] > NEW.tsv

``capture`` asks every question of the sets (as ``qa_eval.py`` does, nothing recorded) and keeps
what the loop hands the offline reasoner (``kg_pipelines.offline.rationale.reason``): the question,
the gathered passages, the graph's names and descriptions of their entities, and which passage
follows which. It takes about as long as ``qa_eval.py`` on the same sets (run two at once on two
cores, one file each).

``replay`` runs the reasoner of this checkout on those inputs alone, with no store and no retrieval,
several times faster (about 8 minutes for all sets on two cores, against 45 for the capture): one
line per question (class, set, id, kind, answer entity, answer, passages, why it refuses), classes
``OK`` (right; for an absent question, unsupported), ``MISS`` (unsupported), ``WRONGSUP`` (supported
and wrong) and ``BADABS`` (an absent question answered).
Counts go to stderr; with ``--against``, the questions whose class or answer entity changed from an
earlier replay's lines. To compare two versions of the code, replay from a checkout of each
(``git worktree add``). A change to gathering or to the extractor (the graph) is not seen here: run
``qa_eval.py`` on a data dir the new code built.
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
from collections import Counter
from pathlib import Path

from qa_eval import is_right  # (importing it puts this checkout first on sys.path)


def capture(data_dir: Path, out: Path, sets: list[Path]) -> None:
    import kg_pipelines.retrieval.rationale_qa as loop
    from kg_pipelines.config import load_settings

    seen: dict = {}
    real = loop.reason

    def spy(question, context, max_sentences=4, known_names=(), descriptions=None, follows=None):
        seen["args"] = {
            "question": question,
            "context": list(context),
            "max_sentences": max_sentences,
            "known_names": list(known_names),
            "descriptions": dict(descriptions or {}),
            "follows": dict(follows or {}),
        }
        return real(
            question, context, max_sentences, known_names=known_names, descriptions=descriptions, follows=follows
        )

    loop.reason = spy
    settings = load_settings(data_dir)
    out.write_bytes(b"")
    for path in sets:
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            item = json.loads(line)
            seen.clear()
            result = loop.ask(settings, item["question"], record=False)
            row = {"set": path.stem, "item": item, "args": seen.get("args"), "answer": result.answer}
            with out.open("ab") as f:  # each question kept as soon as it is asked, one pickle after another
                pickle.dump(row, f)
            print(f"{item['id']}\t{result.supported}\t{result.answer[:100]}", file=sys.stderr, flush=True)


def _rows(path: Path):
    """The captured questions of one file, in the order they were asked."""
    with path.open("rb") as f:
        while True:
            try:
                yield pickle.load(f)
            except EOFError:
                return


def replay(files: list[Path], against: Path | None) -> None:
    from kg_pipelines.offline.rationale import reason

    lines = {}
    for path in files:
        for row in _rows(path):
            item, args = row["item"], row["args"]
            if args is None:  # the loop stopped before reasoning (nothing gathered): unsupported
                cls = "OK" if item["kind"] == "absent" else "MISS"
                entity, answer, why, passages = "", row["answer"], "nothing reached the reasoner", 0
            else:
                found = reason(
                    args["question"],
                    args["context"],
                    args["max_sentences"],
                    known_names=args["known_names"],
                    descriptions=args["descriptions"],
                    follows=args["follows"],
                )
                right = is_right(item, found.answer, found.supported)
                if item["kind"] == "absent":
                    cls = "OK" if right else "BADABS"
                else:
                    cls = "OK" if right else "WRONGSUP" if found.supported else "MISS"
                entity, answer, why = found.answer_entity or "", found.answer, found.reason
                passages = len(args["context"])
            fields = [cls, row["set"], item["id"], item["kind"], entity, answer[:150], str(passages), why[:150]]
            lines[item["id"]] = [" ".join(f.split()) for f in fields]
            print("\t".join(lines[item["id"]]), flush=True)
    counts = Counter(fields[0] for fields in lines.values())
    print(" ".join(f"{cls} {n}" for cls, n in sorted(counts.items())), file=sys.stderr)
    if against is not None:
        old = {f[2]: f for f in (line.split("\t") for line in against.read_text().splitlines() if line)}
        for qid, new in lines.items():
            if qid in old and (old[qid][0], old[qid][4]) != (new[0], new[4]):
                print(f"{qid}\t{old[qid][0]} -> {new[0]}\t{old[qid][4]} -> {new[4]}", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    take = commands.add_parser("capture", help="ask every question and keep the reasoner's inputs")
    take.add_argument("--data-dir", type=Path, required=True)
    take.add_argument("--out", type=Path, required=True)
    take.add_argument("sets", type=Path, nargs="+")
    again = commands.add_parser("replay", help="run this checkout's reasoner on captured inputs")
    again.add_argument("files", type=Path, nargs="+")
    again.add_argument("--against", type=Path, help="an earlier replay's output, to list what changed")
    args = parser.parse_args()
    try:
        if args.command == "capture":
            capture(args.data_dir, args.out, args.sets)
        else:
            replay(args.files, args.against)
    except KeyboardInterrupt:
        raise SystemExit("interrupted") from None


if __name__ == "__main__":
    main()
