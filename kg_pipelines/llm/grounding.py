"""Is an extraction answer grounded in its chunk? The seed: descriptions "grounded strictly in
chunk text". Pure functions; ``LLMClient.extract`` applies ``check_extraction`` after the schema
validation and raises ``LLMError("ungrounded", ...)`` when it reports problems.

The rule, per answer:

- every entity description and every relationship description: at least ``MIN_SHARE`` (60 %) of
  its content words occur in the chunk. Words are compared by ``stem``: case-folded, a possessive
  ``'s`` dropped, a plural ending undone ("cells", "studies"), then cut to their first
  ``STEM_LETTERS`` (5) letters, so simple inflections match ("activates" / "activation" /
  "activated"); words holding a digit are compared whole ("IL-6" is
  "il" and "6", "2019" is "2019"). Content words are the words left when ``STOP_WORDS`` are
  removed; a description without content words is not grounded (it states nothing of the chunk);
- every entity name, and both names of every relationship, occur in the chunk
  (``name_occurs``): case-insensitive, tolerant of white space, hyphens and punctuation between the
  words ("Diet-Induced Obesity" ~ "diet induced obesity", "TNF-α" ~ "TNFα") and of simple
  inflection (same stems, word for word), or one of the name's known synonyms does (``aliases``;
  ``LLMClient`` passes ``gazetteer_aliases``: the curated synonyms of the offline gazetteer, so the
  canonical "Caenorhabditis Elegans" is grounded by "C. elegans" in the text). A name abbreviated
  as a binomial ("A. muciniphila" for "Akkermansia Muciniphila") counts as occurring too.

Deliberately simple and tolerant: it catches made-up content (a description the chunk does not
support, an entity the chunk does not mention), not paraphrase.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache

MIN_SHARE = 0.6
STEM_LETTERS = 5
# Bump when the rule changes: it is part of the extraction cache fingerprint.
RULE_VERSION = "1"

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_POSSESSIVE = ("'s", "’s")

STOP_WORDS = frozenset(
    """
    a about above across after again against all along also am amid among an and any are around as at be
    because been before behind being below beneath beside besides between beyond both but by can certain could did
    do does doing down during each either few for from further
    had has have having he her here hers herself him himself his how however i if in into is it its itself
    just may me might more most much must my myself neither no nor not now of off on once only or other
    our ours ourselves out over own per same shall she should so some such than that the their theirs
    them themselves then there these they this those through throughout thus to too toward towards under
    until up upon us very via
    was we were what when where whether which while who whom whose why will with within without would
    yet you your yours yourself yourselves
    """.split()
)

Aliases = Callable[[str], Iterable[str]]


# -- words -----------------------------------------------------------------------------------------


def words(text: str) -> list[str]:
    """The words of ``text``, case-folded, possessive ``'s`` dropped (letters/digits, inner apostrophes)."""
    return list(_words(text))  # a list of its own: callers may change it


@functools.lru_cache(maxsize=1 << 12)  # the same sentences and names are split again and again (rationale QA)
def _words(text: str) -> tuple[str, ...]:
    out = []
    for word in _WORD.findall(text):
        word = word.casefold()
        if len(word) > 3 and word.endswith(_POSSESSIVE):
            word = word[:-2]
        out.append(word.replace("’", "'"))
    return tuple(out)


@functools.lru_cache(maxsize=1 << 16)  # words repeat: every chunk, description and name is stemmed
def stem(word: str) -> str:
    """The comparison form of a case-folded word: a plural ``s`` / ``ies`` undone, then its first
    ``STEM_LETTERS`` letters; the whole word when it holds a digit."""
    if any(c.isdigit() for c in word):
        return word
    if len(word) > 3 and word.endswith("ies"):
        word = word[:-3] + "y"  # "studies" ~ "study"
    elif len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]  # "cells" ~ "cell"
    return word[:STEM_LETTERS]


def content_stems(text: str) -> list[str]:
    """Stems of the words of ``text`` that are not stop words (a lone letter is not a content word)."""
    return [stem(w) for w in words(text) if w not in STOP_WORDS and (len(w) > 1 or w.isdigit())]


# -- the chunk -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ChunkText:
    """A chunk's words, prepared once for checking many descriptions and names against it.
    ``of`` keeps the last few chunks' (the offline provider checks its own answer, then the client
    checks it again), and a chunk keeps each description's support: an extraction describes the
    entities of a sentence by that sentence, so descriptions repeat (HotpotQA as long documents:
    13,672 descriptions, 5,184 distinct within their chunk, checked twice)."""

    words: tuple[str, ...]
    stems: tuple[str, ...]
    stem_set: frozenset[str]
    at_stem: dict[str, list[int]]  # stem -> positions: a name is looked for where it can start
    at_letter: dict[str, list[int]]  # first letter of a word -> positions
    supports: dict[str, Support] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def of(cls, text: str) -> ChunkText:
        return _chunk_text(text)

    @classmethod
    def _prepare(cls, text: str) -> ChunkText:
        ws = tuple(words(text))
        stems = tuple(stem(w) for w in ws)
        at_stem: dict[str, list[int]] = {}
        at_letter: dict[str, list[int]] = {}
        for i, (w, s) in enumerate(zip(ws, stems)):
            at_stem.setdefault(s, []).append(i)
            at_letter.setdefault(w[:1], []).append(i)
        return cls(ws, stems, frozenset(stems), at_stem, at_letter)


@dataclass(frozen=True)
class Support:
    """How much of a description the chunk supports."""

    found: int
    total: int
    missing: tuple[str, ...]  # the description's words whose stems the chunk lacks

    @property
    def share(self) -> float:
        return self.found / self.total if self.total else 0.0

    def grounded(self, min_share: float = MIN_SHARE) -> bool:
        return self.total > 0 and self.share >= min_share


@lru_cache(maxsize=8)  # the chunks being checked now (their tasks run a few at a time)
def _chunk_text(text: str) -> ChunkText:
    return ChunkText._prepare(text)


def description_support(description: str, chunk: ChunkText) -> Support:
    known = chunk.supports.get(description)
    if known is None:
        known = chunk.supports[description] = _support(description, chunk)
    return known


def _support(description: str, chunk: ChunkText) -> Support:
    found, total, missing = 0, 0, []
    for word in words(description):
        if word in STOP_WORDS or (len(word) == 1 and not word.isdigit()):
            continue
        total += 1
        if stem(word) in chunk.stem_set:
            found += 1
        elif word not in missing:
            missing.append(word)
    return Support(found, total, tuple(missing))


def _occurs(name_words: list[str], chunk: ChunkText) -> bool:
    k = len(name_words)
    if not k:
        return False
    name_stems = tuple(stem(w) for w in name_words)
    compact = "".join(name_words)
    cw, cs = chunk.words, chunk.stems
    # word for word, by stems
    if any(cs[i : i + k] == name_stems for i in chunk.at_stem.get(name_stems[0], ())):
        return True
    # a binomial with its genus abbreviated: "A. muciniphila" for "Akkermansia Muciniphila"
    if k >= 2 and len(name_words[0]) > 1:
        for j in chunk.at_stem.get(name_stems[1], ()):
            i = j - 1
            if (
                i >= 0
                and len(cw[i]) == 1
                and cw[i].isalpha()
                and name_words[0].startswith(cw[i])
                and cs[i + 1 : i + k] == name_stems[1:]
            ):
                return True
    for i in chunk.at_letter.get(compact[:1], ()):
        # the same letters with different separators ("TNFα" ~ "TNF-α", "IL6" ~ "IL-6")
        run = ""
        for j in range(i, len(cw)):
            run += cw[j]
            if len(run) >= len(compact):
                if run == compact:
                    return True
                break
            if not compact.startswith(run):
                break
    return False


def name_occurs(name: str, chunk: ChunkText, aliases: Aliases | None = None) -> bool:
    """``name`` (or, with ``aliases``, one of its synonyms) occurs in the chunk; see the module docstring."""
    if _occurs(words(name), chunk):
        return True
    if aliases is not None:
        return any(_occurs(words(alias), chunk) for alias in aliases(name) if alias.casefold() != name.casefold())
    return False


# -- the answer ------------------------------------------------------------------------------------


def _describe(support: Support) -> str:
    if not support.total:
        return "has no content words"
    shown = ", ".join(support.missing[:6]) + (", ..." if len(support.missing) > 6 else "")
    return f"only {support.found} of {support.total} content words occur in the chunk (missing: {shown})"


def check_extraction(result, text: str, aliases: Aliases | None = None, min_share: float = MIN_SHARE) -> list[str]:
    """Problems of an ``EntitiesRelationships`` answer for chunk ``text``; empty when it is grounded.

    Each problem names the offending entity or relationship and says what is wrong.
    """
    chunk = ChunkText.of(text)
    problems: list[str] = []
    seen_names: dict[str, bool] = {}

    def occurs(name: str) -> bool:
        if name not in seen_names:
            seen_names[name] = name_occurs(name, chunk, aliases)
        return seen_names[name]

    for entity in result.entities:
        label = f"entity {entity.entity_name!r}"
        if not occurs(entity.entity_name):
            problems.append(f"{label}: the name does not occur in the chunk")
        support = description_support(entity.entity_description, chunk)
        if not support.grounded(min_share):
            problems.append(f"{label}: the description is not grounded: {_describe(support)}")
    for rel in result.relationships:
        label = f"relationship {rel.source_entity!r} -> {rel.target_entity!r}"
        absent = [n for n in (rel.source_entity, rel.target_entity) if not occurs(n)]
        if absent:
            problems.append(f"{label}: {', '.join(repr(n) for n in absent)} does not occur in the chunk")
        support = description_support(rel.relationship_description, chunk)
        if not support.grounded(min_share):
            problems.append(f"{label}: the description is not grounded: {_describe(support)}")
    return problems


# -- known synonyms --------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _gazetteer_synonyms() -> dict[str, tuple[str, ...]]:
    from kg_pipelines.offline import lexicon

    by_name: dict[str, list[str]] = {}
    for table in (lexicon.GAZETTEER, lexicon.GAZETTEER_EXACT):
        for surface, entry in table.items():
            by_name.setdefault(" ".join(words(entry.name)), []).append(surface)
    return {key: tuple(dict.fromkeys(surfaces)) for key, surfaces in by_name.items()}


def gazetteer_aliases(name: str) -> tuple[str, ...]:
    """The curated synonyms of ``name`` when it is a gazetteer entity (``NMN``: "nicotinamide
    mononucleotide"; ``Caenorhabditis Elegans``: "C. elegans"), else nothing."""
    return _gazetteer_synonyms().get(" ".join(words(name)), ())
