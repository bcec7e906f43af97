"""Word lists of the offline extractor kept as data files (``kg_pipelines/offline/data``, one
entry a line, ``#`` comments), read once at import: the negation cues (used by the offline
relation extractor and by extraction's post-processing of any provider's answer) and the clause
words that tell a list item from a clause.
"""

from __future__ import annotations

import re
from importlib import resources


def data_lines(name: str) -> list[str]:
    """The entries of a word list in ``kg_pipelines/offline/data`` (one a line; ``#`` comments and
    blank lines skipped)."""
    text = resources.files("kg_pipelines.offline").joinpath("data", name).read_text(encoding="utf-8")
    return [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def _negation_regexes() -> dict[str, re.Pattern[str]]:
    """One regex per scope of ``data/negation_cues.txt`` (gap, clause, ignore)."""
    by_scope: dict[str, list[str]] = {"gap": [], "clause": [], "ignore": []}
    for line in data_lines("negation_cues.txt"):
        cue, _, scope = line.rpartition(" ")
        if scope not in by_scope or not cue:
            raise ValueError(f"negation_cues.txt: {line!r} is not '<cue> gap|clause|ignore'")
        words = r"\s+".join(re.escape(w) for w in cue.split())
        by_scope[scope].append(words if cue.startswith("n'") else rf"\b{words}")
    return {
        scope: re.compile(r"(?:" + "|".join(sorted(cues, key=len, reverse=True)) + r")\b", re.IGNORECASE)
        for scope, cues in by_scope.items()
    }


# Negation cues (data/negation_cues.txt): "gap" cues negate a pair they stand between, "clause"
# cues also the pairs after them in their clause, "ignore" phrases are masked first ("not only").
NEGATION = _negation_regexes()
# Words that make a phrase a clause rather than a list item (data/clause_words.txt).
CLAUSE_WORDS = frozenset(w.lower() for w in data_lines("clause_words.txt"))
