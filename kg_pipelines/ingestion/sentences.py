"""Sentence boundaries for scientific prose, used by chunking and by the offline provider.

A rule-based splitter: a sentence ends at `.`, `!` or `?` (optionally followed by a closing quote
or bracket) when whitespace and an upper-case letter, digit, opening bracket or a symbol written
lower case first ("mTORC1", "p53") follow, unless the
period belongs to a known abbreviation ("e.g.", "et al.", "Fig."), a single initial ("A.
muciniphila"), or sits inside parentheses (citations such as "(Appetite. 2019)"). Blank lines and
Markdown headings always end a sentence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ABBREVIATIONS = {
    "e.g",
    "i.e",
    "et al",
    "al",
    "fig",
    "figs",
    "eq",
    "ref",
    "refs",
    "vs",
    "approx",
    "ca",
    "cf",
    "dr",
    "mr",
    "mrs",
    "ms",
    "prof",
    "no",
    "vol",
    "st",
    "jr",
    "sr",
    "inc",
    "ltd",
    "co",
    "etc",
    "sp",
    "spp",
    "var",
    "subsp",
    "min",
    "max",
    "resp",
    "u.s",
    "mg",
    "kg",
}
# a sentence may start with a symbol written lower case first: "mTORC1 also ...", "p53 induces ..."
_END = re.compile(r"[.!?][\"'”’)\]]*(?=\s+(?:[\"'“‘(\[]?[A-Z0-9]|[a-z]{1,3}[A-Z0-9]))")
_LINE = re.compile(r"[^\n]*\n?")
_HEADING = re.compile(r"\s*#{1,6}\s")
_LIST_ITEM = re.compile(r"\s*(?:[-*+]|\d+[.)])\s")


@dataclass(frozen=True)
class Sentence:
    start: int
    end: int
    text: str


def _is_abbreviation(text: str, dot: int) -> bool:
    # the word the period ends, whole: the "A" of "CDKN1A" is no initial
    word = re.search(r"(?<![A-Za-z0-9])([A-Za-z][A-Za-z.]*)$", text[max(0, dot - 12) : dot])
    if not word:
        return False
    token = word.group(1).lower().rstrip(".")
    if token in _ABBREVIATIONS:
        return True
    return len(word.group(1)) == 1 and word.group(1).isupper()  # an initial: "A. muciniphila"


def _inside_parentheses(text: str, pos: int, block_start: int) -> bool:
    opened = text.count("(", block_start, pos) - text.count(")", block_start, pos)
    return opened > 0


def split_sentences(text: str) -> list[Sentence]:
    """Sentences of ``text`` with their character offsets (whitespace trimmed, empties dropped)."""
    sentences: list[Sentence] = []
    for block_start, block_end in _blocks(text):
        start = block_start
        for match in _END.finditer(text, block_start, block_end):
            dot = match.start()
            if text[dot] == "." and _is_abbreviation(text, dot):
                continue
            if _inside_parentheses(text, dot, start):
                continue
            _append(sentences, text, start, match.end())
            start = match.end()
        _append(sentences, text, start, block_end)
    return sentences


def _blocks(text: str) -> list[tuple[int, int]]:
    """Runs of lines that sentences may span: blank lines, headings and list items cut them."""
    blocks: list[tuple[int, int]] = []
    start = None
    for line in _LINE.finditer(text):
        if line.start() == line.end():
            break
        content = line.group(0)
        heading = _HEADING.match(content) is not None
        if not content.strip() or heading or _LIST_ITEM.match(content):
            if start is not None:
                blocks.append((start, line.start()))
            start = None
            if heading:
                blocks.append((line.start(), line.end()))
                continue
            if not content.strip():
                continue
        if start is None:
            start = line.start()
    if start is not None:
        blocks.append((start, len(text)))
    return blocks


def _append(out: list[Sentence], text: str, start: int, end: int) -> None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if end > start:
        out.append(Sentence(start, end, text[start:end]))
