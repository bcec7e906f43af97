"""Aliases a text states: "long form (SHORT)", "SHORT (long form)", "X, also known as Y", "X, formerly Y".

A definition in the text is the strongest evidence two names are one thing, stronger than any
similarity score: the author says so. ``find_stated_aliases`` finds them, sentence by sentence.

**Abbreviations** follow Schwartz and Hearst, "A simple algorithm for identifying abbreviation
definitions in biomedical text" (PSB 2003):

- each parenthesis opened after a space gives a pair of candidates: the text before it (back to the
  sentence start or the previous closing parenthesis) and the text inside, cut at the first ", " or
  "; ". When the inside has more than two words, or is longer than the text before, the definition
  is the other way round, "SHORT (long form)": the short form is the word before the parenthesis;
- a short form is 2 to 10 characters long, holds a letter, and starts with a letter or digit;
- the long form is found by matching the short form's letters and digits right to left in the text
  before it, the first one at the start of a word; the long form starts at that word. It has at most
  min(|A| + 5, 2 |A|) words (|A|: letters and digits of the short form), is no shorter than the
  short form, and does not contain the short form as a word.

Deviations, each for precision (identity before recall, DESIGN.md "Trust"): a short form holds no
space (so "(Figure 2)" or "(n = 12)" is no abbreviation) and is not a single lower-case word
("(see below)"); a parenthesis that reads as a citation (a year from 1800 to 2099, or "et al") is
none; a Greek letter matches its spelled name ("TNF-α" is defined by "tumour necrosis factor
alpha"), by its Unicode name, so no table is needed.

**Cue phrases** ("also known as", "formerly", ... one a line in ``data/alias_cues.txt``) state
"X, CUE Y" and "X (CUE Y)". Where X starts and Y ends is not marked in the text, so each side is
the run of words up to the nearest clause break (comma, semicolon, colon, bracket, sentence end),
and the caller matches its word-suffixes (X) and word-prefixes (Y), longest first, against known
names (``StatedAlias.keys_a`` / ``keys_b``): "the bacterium Clostridioides difficile, formerly
Clostridium difficile" pairs the nodes of the two species names and nothing else. No variant
starts or ends with a particle word ("the", "of", ...).

Pure Python: the graph's step that merges the nodes is ``graph/alias_merging.py``.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from kg_pipelines.ingestion.names import LOWER_PARTICLES, node_key, normalize_name
from kg_pipelines.ingestion.sentences import split_sentences

ABBREVIATION, CUE = "abbreviation", "cue"
MAX_SHORT_FORM_CHARS = 10
MAX_CUE_SIDE_WORDS = 8  # a name longer than this is not told apart from its clause
_CITATION = re.compile(r"\b(?:1[89]|20)\d\d\b|\bet al\b", re.IGNORECASE)
_CLAUSE_BREAK = re.compile(r"[,;:()\[\]]")
_TRAILING = ".,;:!?\"'"


@dataclass(frozen=True)
class StatedAlias:
    """Two names the text says are one. ``name_a`` is the one the text prefers (the long form, or
    the current name), ``name_b`` the other; ``keys_a`` / ``keys_b`` are the node keys to try for
    each, longest first (one for an abbreviation; the side's word-suffixes / prefixes for a cue)."""

    name_a: str
    name_b: str
    evidence: str
    kind: str
    keys_a: tuple[str, ...]
    keys_b: tuple[str, ...]


@dataclass(frozen=True)
class Cue:
    phrase: str
    after_preferred: bool  # "X, now called Y": Y is the current name
    pattern: re.Pattern


def name_key(name: str) -> str:
    """The graph's node key of a name as the text writes it (see ``ingestion/names.py``)."""
    return node_key(normalize_name(name))


@lru_cache(maxsize=1)
def load_cues() -> tuple[Cue, ...]:
    """The cue phrases of ``data/alias_cues.txt``, longest first (so "formerly known as" wins over
    "formerly")."""
    text = resources.files("kg_pipelines.graph").joinpath("data/alias_cues.txt").read_text(encoding="utf-8")
    cues = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        phrase, _, side = (part.strip() for part in line.partition("|"))
        if side not in ("", "after"):
            raise ValueError(f"alias_cues.txt:{number}: expected `cue` or `cue | after`, not {raw!r}")
        words = r"\s+".join(re.escape(w) for w in phrase.lower().split())
        # ", CUE " or "(CUE "; the name after it follows
        pattern = re.compile(rf"(?:,\s*|\s\(\s*)(?<![\w.]){words}(?![\w])\s+", re.IGNORECASE)
        cues.append(Cue(phrase.lower(), side == "after", pattern))
    return tuple(sorted(cues, key=lambda c: -len(c.phrase)))


# -- Schwartz-Hearst -----------------------------------------------------------------------------
def _spelled(text: str) -> str:
    """Greek letters as their names ("α" -> "alpha"), so "TNF-α" matches "... factor alpha"; every
    other character unchanged (spaces too: word positions are kept)."""
    out = []
    for char in text:
        name = unicodedata.name(char, "") if not char.isascii() else ""
        if name.startswith(("GREEK SMALL LETTER ", "GREEK CAPITAL LETTER ")) and " WITH " not in name:
            out.append(name.rsplit(" ", 1)[1].lower())
        else:
            out.append(char)
    return "".join(out)


def _alnum_count(text: str) -> int:
    return sum(c.isalnum() for c in text)


def is_valid_short_form(short: str) -> bool:
    """2-10 characters, a letter, first character a letter or digit; no space, not a lower-case word."""
    return (
        2 <= len(short) <= MAX_SHORT_FORM_CHARS
        and any(c.isalpha() for c in short)
        and short[0].isalnum()
        and not any(c.isspace() for c in short)
        and not (short.isalpha() and short.islower())
    )


def best_long_form(short: str, candidate: str) -> str | None:
    """The shortest end of ``candidate`` whose letters spell ``short`` right to left, the first one at
    a word start (Schwartz-Hearst ``findBestLongForm``); None when there is none."""
    s, lf = _spelled(short).lower(), _spelled(candidate).lower()
    s_index, l_index = len(s) - 1, len(lf) - 1
    while s_index >= 0:
        char = s[s_index]
        if not char.isalnum():
            s_index -= 1
            continue
        while l_index >= 0 and (lf[l_index] != char or (s_index == 0 and l_index > 0 and lf[l_index - 1].isalnum())):
            l_index -= 1
        if l_index < 0:
            return None
        s_index -= 1
        l_index -= 1
    start = lf.rfind(" ", 0, l_index + 1) + 1
    words = len(lf[start:].split())  # the same number of words in the original
    original = candidate.split()
    return " ".join(original[len(original) - words :]) if words else None


def _accept(short: str, long: str) -> bool:
    size = _alnum_count(short)
    words = len(long.split())
    return (
        2 <= len(short)
        and len(long) >= len(short)
        and (short + " ") not in long
        and not long.endswith(short)
        and words <= min(size + 5, 2 * size)
        and size <= MAX_SHORT_FORM_CHARS
    )


def _parentheses(sentence: str) -> list[tuple[int, int]]:
    """(open, close) of each top-level parenthesis opened after a space (or at the start)."""
    spans, depth, opened = [], 0, -1
    for i, char in enumerate(sentence):
        if char == "(":
            if depth == 0:
                opened = i
            depth += 1
        elif char == ")" and depth > 0:
            depth -= 1
            if depth == 0 and opened > 0 and sentence[opened - 1].isspace():
                spans.append((opened, i))
    return spans


def find_abbreviations(sentence: str) -> list[tuple[str, str]]:
    """(long form, short form) of each "long form (SHORT)" or "SHORT (long form)" in ``sentence``."""
    pairs: list[tuple[str, str]] = []
    if "(" not in sentence:
        return pairs  # no parenthesis, no abbreviation (most sentences)
    lower = sentence.lower()
    cue_phrases = [c.phrase for c in load_cues()]
    previous_close = 0
    for opened, closed in _parentheses(sentence):
        before = sentence[previous_close:opened].strip()
        previous_close = closed + 1
        inside = sentence[opened + 1 : closed].strip()
        if not before or not inside or _CITATION.search(inside):
            continue
        if any(lower[opened + 1 :].lstrip().startswith(p + " ") for p in cue_phrases):
            continue  # "X (also known as Y)": a cue, not an abbreviation
        inside = re.split(r"[,;] ", inside, maxsplit=1)[0].strip()
        if len(inside.split()) > 2 or len(inside) > len(before):
            short, candidate = before.split()[-1].strip(_TRAILING), inside  # "SHORT (long form)"
        else:
            short, candidate = inside, before
        if not is_valid_short_form(short):
            continue
        long = best_long_form(short, candidate)
        if long is not None:
            long = long.strip(_TRAILING)
            if _accept(short, long):
                pairs.append((long, short))
    return pairs


# -- cue phrases -----------------------------------------------------------------------------------
def _side_keys(words: list[str], suffixes: bool) -> tuple[str, ...]:
    """Node keys of the word-suffixes (or prefixes) of a side, longest first, none starting or
    ending with a particle word."""
    particle = [w.lower() in LOWER_PARTICLES for w in words]
    while words and particle[-1 if suffixes else 0]:  # "also called the O5 Pro": the name is "O5 Pro"
        words, particle = (words[:-1], particle[:-1]) if suffixes else (words[1:], particle[1:])
    words = words[-MAX_CUE_SIDE_WORDS:] if suffixes else words[:MAX_CUE_SIDE_WORDS]
    keys = []
    for n in range(len(words), 0, -1):
        part = words[-n:] if suffixes else words[:n]
        if part[0].lower() in LOWER_PARTICLES or part[-1].lower() in LOWER_PARTICLES:
            continue
        key = name_key(" ".join(part))
        if key and key not in keys:
            keys.append(key)
    return tuple(keys)


@lru_cache(maxsize=1)
def any_cue() -> re.Pattern:
    """One pattern that matches where any cue's does: most sentences state no alias, and one search
    tells them apart instead of one per cue (17 today)."""
    words = "|".join(r"\s+".join(re.escape(w) for w in c.phrase.split()) for c in load_cues())
    return re.compile(rf"(?:,\s*|\s\(\s*)(?<![\w.])(?:{words})(?![\w])\s+", re.IGNORECASE)


def find_cue_aliases(sentence: str) -> list[tuple[str, str, bool]]:
    """(X, Y, Y is the preferred name) of each "X, CUE Y" / "X (CUE Y)" in ``sentence``; X and Y are
    the runs of words to the nearest clause break."""
    found, taken = [], []
    if any_cue().search(sentence) is None:
        return found
    for cue in load_cues():
        for match in cue.pattern.finditer(sentence):
            if any(s <= match.start() < e for s, e in taken):
                continue  # a longer cue already covers it ("formerly known as" / "formerly")
            taken.append((match.start(), match.end()))
            left = sentence[: match.start()]
            breaks = list(_CLAUSE_BREAK.finditer(left))
            x = left[breaks[-1].end() :] if breaks else left
            right = sentence[match.end() :]
            stop = _CLAUSE_BREAK.search(right)
            y = (right[: stop.start()] if stop else right).strip().rstrip(_TRAILING)
            x = x.strip().strip(_TRAILING)
            if x and y:
                found.append((x, y, cue.after_preferred))
    return found


def find_stated_aliases(text: str) -> list[StatedAlias]:
    """Every alias ``text`` states, with the sentence that states it, in text order."""
    out: list[StatedAlias] = []
    for sentence in split_sentences(text):
        evidence = " ".join(sentence.text.split())
        for long, short in find_abbreviations(evidence):
            key_a, key_b = name_key(long), name_key(short)
            if key_a and key_b and key_a != key_b:
                out.append(StatedAlias(long, short, evidence, ABBREVIATION, (key_a,), (key_b,)))
        for x, y, y_preferred in find_cue_aliases(evidence):
            keys_x = _side_keys(x.split(), suffixes=True)
            keys_y = _side_keys(y.split(), suffixes=False)
            if not keys_x or not keys_y:
                continue
            if y_preferred:
                out.append(StatedAlias(y, x, evidence, CUE, keys_y, keys_x))
            else:
                out.append(StatedAlias(x, y, evidence, CUE, keys_x, keys_y))
    return out


def stated_names(name: str, description: str | None) -> list[str]:
    """The other names a node's own description states for it: "... co-receptor for fibroblast
    growth factor 23 (FGF23)" gives FGF23 to Fibroblast Growth Factor 23 (extraction makes the
    abbreviation a mention of the long form, so no node is named FGF23). Readers link a question's
    or a search term's FGF23 to the node through it."""
    # every statement opens with "(" or ", " ("X (FGF23)", "X, also called Y"): most texts hold neither
    if not description or ("(" not in description and ("," not in description or not any_cue().search(description))):
        return []
    key = name_key(name)
    found: list[str] = []
    for alias in find_stated_aliases(description):
        other = alias.name_b if key in alias.keys_a else alias.name_a if key in alias.keys_b else None
        if other and other not in found:
            found.append(other)
    return found
