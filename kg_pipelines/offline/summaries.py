"""Extractive summary of a text block: its two or three most central sentences.

A sentence scores by the text-wide frequency of its distinct content words (divided by the square
root of their number, so long sentences do not win by length alone), plus a bonus for the entity
mentions it holds (frequent entities count more). The first two sentences get a slight lead
bonus; sentences of fewer than five words and Markdown headings are avoided. Sentences are
penalised by the share of their content words that the previous block's summary already holds, and
a sentence that the previous summary contains (or that it covers to 80%) is used only when nothing
new is left, so the summary says what is new in this block. The best sentences that fit in
``MAX_CHARS`` (at most ``MAX_SENTENCES``) are returned in
document order, joined by spaces; a single over-long sentence is cut at a word boundary with
"...". Text without any sentence falls back to its first words.
"""

from __future__ import annotations

import math
import re
from collections import Counter

from kg_pipelines.offline import lexicon as lx
from kg_pipelines.offline.entities import analyze, clean_sentence, clip

MAX_CHARS = 400
MAX_SENTENCES = 3
_PRIOR_PENALTY = 0.85
_EMPTY = "Empty text block."
_DEFINITION = re.compile(r"^[^,;]{2,80}?\b(?:is|are|was|were)\s+(?:a|an|the|one)\b", re.IGNORECASE)


def _content(key: str) -> bool:
    return len(key) >= 3 and key not in lx.STOPWORDS and not key.isdigit()


def summarize(text: str, prior_summary: str = "") -> str:
    """The summary of ``text`` (never empty), given the previous block's summary."""
    a = analyze(text)
    usable = [i for i, c in enumerate(a.clean) if c and not a.headings[i]]
    if not usable:
        usable = [i for i, c in enumerate(a.clean) if c]
    if not usable:
        return _fallback(text)

    freq: Counter[str] = Counter()
    words: dict[int, set[str]] = {}
    lengths: Counter[int] = Counter()
    for tok in a.tokens:
        lengths[tok.sent] += 1
        if _content(tok.key):
            freq[tok.key] += 1
            words.setdefault(tok.sent, set()).add(tok.key)
    entity_count: Counter[str] = Counter(m.name for m in a.mentions)
    entities: dict[int, set[str]] = {}
    for m in a.mentions:
        entities.setdefault(m.sent, set()).add(m.name)

    prior_text = " ".join(prior_summary.split()).casefold()
    prior = {t.lower() for t in lx.TOKEN_RE.findall(prior_summary)}
    prior = {lx.strip_possessive(t) for t in prior if _content(lx.strip_possessive(t))}

    scores: dict[int, float] = {}
    repeated: set[int] = set()  # sentences the previous summary already says
    for rank, i in enumerate(usable):
        ws = words.get(i, set())
        score = sum(freq[w] for w in ws) / math.sqrt(len(ws)) if ws else 0.0
        score += sum(min(entity_count[n], 3) for n in entities.get(i, ()))
        if lengths[i] < 5:
            score *= 0.5
        if rank == 0:
            score *= 1.3
        elif rank == 1:
            score *= 1.1
        if _DEFINITION.search(a.clean[i]):
            score *= 1.3  # "X is a ...": defines the block's subject
        if prior and ws:
            overlap = len(ws & prior) / len(ws)
            score *= 1.0 - _PRIOR_PENALTY * overlap
            if overlap >= 0.8:
                repeated.add(i)
        if prior_text and a.clean[i].casefold() in prior_text:
            score *= 0.05
            repeated.add(i)
        scores[i] = score

    ranked = sorted(usable, key=lambda i: (i in repeated, -scores[i], i))
    chosen: list[int] = []
    total = 0
    for i in ranked:
        if i in repeated and chosen:
            continue  # repeat the previous summary only if nothing new is left
        length = len(a.clean[i])
        if not chosen:
            chosen.append(i)
            total = min(length, MAX_CHARS)
        elif total + 1 + length <= MAX_CHARS:
            chosen.append(i)
            total += 1 + length
        if len(chosen) == MAX_SENTENCES:
            break
    chosen.sort()
    summary = " ".join(a.clean[i] for i in chosen)
    return clip(summary, MAX_CHARS) or _fallback(text)


def _fallback(text: str) -> str:
    words = clean_sentence(text.replace("#", " "))
    return clip(words, MAX_CHARS) if words else _EMPTY
