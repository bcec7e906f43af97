"""Quantities: the kind of quantity a question asks for, and the quantities of that kind a text writes.

"In what year did ...?" asks for a year, "What daily dose ...?" for a dose, "Into how many genera
...?" for a number of genera, "Which residue of AKT ...?" for a position in a protein's sequence
("serine 473": an amino acid and its number, read as a quantity is). The offline reasoner
(``kg_pipelines.offline.rationale``) answers such a question with a quantity of the asked kind
written in a sentence that connects the question's names, as it answers other questions with a
name: the quantities are put into its context graph as things of their own (``Quantity``), and only
those of the asked kind may answer.

A kind's units are data (``data/quantity_units.tsv``), as are the question's phrases
(``data/quantity_questions.tsv``), the words a number may be written as (``data/number_words.txt``)
and the words that hedge it ("about", "roughly": ``data/quantity_hedges.txt``). A year written in
parentheses is a citation's ("(Harrison et al., 2009)", "(Science. 2009)"): when a work was
published, not when what the sentence states happened, so it never answers.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass

from kg_pipelines.ingestion.names import node_key
from kg_pipelines.offline.cue_words import data_lines, data_table

YEAR = "year"
COUNT = "count"
AGE = "age"
RESIDUE = "residue"
DURATION = "duration"
AMOUNT = "amount"
AMOUNT_KINDS = ("dose", "percent")  # an "amount" is written with either's units
AGE_AFTER = r"(?:\s+(?:of\s+age|old))"  # "600 days of age", "two years old"
BETWEEN_WORDS = 2  # words at most between a count's number and its noun ("25 new genera")
ASK_GAP_WORDS = 2  # words at most between "what"/"which" and the quantity noun ("what daily dose")
NOT_BETWEEN = frozenset("with in of by for at to from on and or".split())  # "which gene declines with age"


@dataclass(frozen=True)
class Asked:
    kind: str  # a kind of quantity_units.tsv, "year", "count", or "" (no sentence can state it: "how often")
    noun: str = ""  # for a count: the noun counted, as written ("genera")


@dataclass(frozen=True)
class Quantity:
    key: str  # the number and unit as the graph keys a name ("95 percent"), without a hedge
    name: str  # as written, with its hedge ("about 95 percent")
    start: int  # character offset in the text of its number
    end: int  # ... and of the end of its unit


@functools.cache
def _how_phrases() -> dict[str, str]:
    return {cue: kind for cue, kind in data_table("quantity_questions.tsv") if cue.startswith("how ")}


@functools.cache
def _nouns() -> dict[str, str]:
    return {cue: kind for cue, kind in data_table("quantity_questions.tsv") if not cue.startswith("how ")}


def asked(question: str) -> Asked | None:
    """The quantity ``question`` asks for, else None (it asks for a thing)."""
    text = question.casefold()
    for phrase, kind in sorted(_how_phrases().items(), key=lambda item: -len(item[0])):
        m = re.search(rf"\b{re.escape(phrase)}\b", text)
        if m is None:
            continue
        if kind != COUNT:
            return Asked("" if kind == "-" else kind)
        after = re.findall(r"[\w'-]+", text[m.end() :])
        noun = ""
        for word in after[: BETWEEN_WORDS + 1]:  # "how many older adults were ...": the last word before the verb
            if word in _stops():
                break
            noun = word
        return Asked(COUNT, noun)
    nouns = "|".join(sorted(map(re.escape, _nouns()), key=len, reverse=True))
    for m in re.finditer(rf"\b(?:what|which)\s+((?:[\w']+\s+){{0,{ASK_GAP_WORDS}}}?)({nouns})(?![\w-])", text):
        if not set(m.group(1).split()) & NOT_BETWEEN:
            return Asked(_nouns()[m.group(2)])
    return None


@functools.cache
def _stops() -> frozenset[str]:
    return frozenset(data_lines("auxiliary_verbs.txt")) | NOT_BETWEEN | {"the"}


@functools.cache
def _number() -> str:
    spelled = "|".join(sorted(data_lines("number_words.txt"), key=len, reverse=True))
    one = rf"(?:\d{{1,3}}(?:,\d{{3}})+|\d+(?:\.\d+)?|(?:{spelled})(?:-(?:{spelled}))?)"
    return rf"(?<![\w.,-]){one}(?:\s*(?:-|–|to|and)\s*{one})?"  # a range is one quantity: "20 to 40"


@functools.cache
def _hedge() -> str:
    hedges = "|".join(
        r"\s+".join(map(re.escape, h.split())) for h in sorted(data_lines("quantity_hedges.txt"), key=len)
    )
    return rf"(?:\b(?:{hedges})\s+)?"


@functools.cache
def _units(kind: str) -> str:
    kinds = AMOUNT_KINDS if kind == AMOUNT else (DURATION if kind == AGE else kind,)
    units = sorted((unit for k, unit in data_table("quantity_units.tsv") if k in kinds), key=len, reverse=True)
    return "|".join(map(re.escape, units))


@functools.cache
def _residue() -> re.Pattern:
    acids = sorted([*data_lines("amino_acids.txt"), *data_lines("amino_acid_codes.txt")], key=len, reverse=True)
    return re.compile(rf"\b(?:{'|'.join(acids)})[\s-]?\d{{1,4}}\b", re.IGNORECASE)


def _citation_spans(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in re.finditer(r"\([^()]*\)", text)]


def find(text: str, wanted: Asked, same_noun: Callable[[str, str], bool] | None = None) -> list[Quantity]:
    """The quantities of the kind ``wanted`` that ``text`` writes, in text order; ``same_noun``
    tells whether a word is the counted noun (default: the same word, case aside)."""
    if not wanted.kind:
        return []
    found: list[tuple[int, int, str, str]] = []  # (start, end, key, name)
    if wanted.kind == YEAR:
        cited = _citation_spans(text)
        years = [
            (m.start(), m.end(), m.group(1), m.group(1))
            for m in re.finditer(r"(?<![\w.,-])(1[5-9]\d\d|20\d\d)(?![\w%-]|\.\d)", text)
        ]
        found = [y for y in years if not any(a < y[0] < b for a, b in cited)]
    elif wanted.kind == RESIDUE:  # "threonine 172", "Ser473", "serine-473"
        found = [(m.start(), m.end(), node_key(m.group()), m.group()) for m in _residue().finditer(text)]
    elif wanted.kind == COUNT:
        same = same_noun or (lambda a, b: a.casefold() == b.casefold())
        pattern = rf"({_hedge()})({_number()})((?:\s+[\w'-]+){{1,{BETWEEN_WORDS + 1}}})"
        for m in re.finditer(pattern, text, re.IGNORECASE):
            following = m.group(3).split()
            at = next((i for i, w in enumerate(following) if same(w, wanted.noun)), None)
            if at is not None:
                counted = " ".join([m.group(2), *following[: at + 1]])
                end = m.start(3) + m.group(3).index(following[at]) + len(following[at])
                found.append((m.start(2), end, node_key(counted), m.group(1) + counted))
    else:
        tail = AGE_AFTER if wanted.kind == AGE else ""
        pattern = rf"({_hedge()})({_number()}\s*(?:{_units(wanted.kind)})(?!\w){tail})"
        matches = list(re.finditer(pattern, text, re.IGNORECASE))
        if wanted.kind == DURATION:  # "at 600 days of age", "aged 20 months": an age, not how long
            matches = [
                m
                for m in matches
                if not re.match(AGE_AFTER, text[m.end() :], re.IGNORECASE)
                and not re.search(r"\baged\s+$", text[: m.start(2)], re.IGNORECASE)
            ]
        found = [(m.start(2), m.end(2), node_key(m.group(2)), m.group(1) + m.group(2)) for m in matches]
        if wanted.kind == AGE:  # "mice aged 20 months", "aged 65 to 79"
            aged = rf"\baged\s+({_number()}(?:\s*(?:{_units(wanted.kind)})(?!\w))?)"
            found += [
                (m.start(1), m.end(1), node_key(m.group(1)), m.group(0)) for m in re.finditer(aged, text, re.IGNORECASE)
            ]
    return [Quantity(key, name.strip(), start, end) for start, end, key, name in sorted(found)]
