"""The one loader of the offline extractor's word lists and tables, kept as data files in
``kg_pipelines/offline/data`` (one entry a line, or one table row a line; ``#`` comments and blank
lines skipped). Each file is read once (``functools.cache``); the Python modules keep the rules.

Also built here, from their files: the negation cues (used by the offline relation extractor and by
extraction's post-processing of any provider's answer) and the clause words that tell a list item
from a clause.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources


@cache
def data_lines(name: str) -> tuple[str, ...]:
    """The entries of a word list in ``kg_pipelines/offline/data`` (one a line, in file order;
    ``#`` comments and blank lines skipped)."""
    text = resources.files("kg_pipelines.offline").joinpath("data", name).read_text(encoding="utf-8")
    return tuple(line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#"))


@cache
def word_set(name: str) -> frozenset[str]:
    """A word list as a set (membership tests)."""
    return frozenset(data_lines(name))


def word_tuple(name: str) -> tuple[str, ...]:
    """A word list in file order (word endings for ``str.endswith``, lists tried first to last)."""
    return data_lines(name)


@cache
def phrase_alternation(name: str) -> str:
    """The phrases of a word list as one regex alternation, longest first ("is now called" before
    "is now"), each phrase's words matched with any whitespace between them."""
    phrases = sorted(data_lines(name), key=len, reverse=True)
    return "|".join(r"\s+".join(map(re.escape, p.split())) for p in phrases)


@cache
def data_table(name: str, sep: str = "\t") -> tuple[tuple[str, ...], ...]:
    """The rows of a small table: each entry split at ``sep`` (a tab unless told), cells stripped."""
    return tuple(tuple(cell.strip() for cell in line.split(sep)) for line in data_lines(name))


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
