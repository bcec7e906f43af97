"""Fusion of ranked results across knowledge collections (seed 004: enhanced reciprocal rank fusion).

Each collection is searched with its own embedding model, so its scores mean nothing next to
another collection's: fusion uses ranks only. For a result d found in the ranked lists L
(one per collection, or per ranking source such as "fts", "vector", "graph"):

    rrf(d)      = sum_L 1 / (k + rank_L(d))                     base RRF (k = 60 by default)
    weighted(d) = sum_L w_L / (k + rank_L(d))                   w_L = collection weight x authority weight
    quality(d)  = weighted(d) x prod(quality multipliers of d)  length, title, file type, recency, steps
    fused(d)    = quality(d) x (1 - f x maxsim(d))              f = diversity factor, maxsim = highest
                                                                word-set Jaccard similarity to a result
                                                                already in the context
The length signal's bands (seed 004: 200-1000 characters x1.1, under 100 x0.8, over 2000 x0.9)
assume a full chunk of about 1000 characters; this pipeline's chunks are up to ``chunk_tokens``
(1000) tokens, 4,000-4,750 characters, so with the seed's bands every full chunk would count x0.9
and each document's short last chunk would rank above it. The bands are therefore scaled by
``chunk_tokens x chars_per_token / band_chunk_chars`` (1000 x 5 / 1000 = 5: medium 1000-5000
characters, short under 500, long over 10000), so a full chunk of the configured size is medium,
never "too long". A fusion without a chunk size (``FusionConfig.chunk_tokens`` None), with
``scale_length_bands`` off, or with chunks of ``band_chunk_chars`` characters (200 tokens at 5
characters a token) uses the seed's bands exactly.

Selection is greedy by fused score within a token budget (tokens counted with the project's
offline WordPiece tokenizer, or taken from a result's ``token_count`` metadata); the selected
results are then ordered for the LLM (primacy / recency: best first, second best last). Every
result, selected or not, comes back as a :class:`MergedResult` carrying its ranks, per-list
contributions, quality multipliers, diversity penalty and the reason it was (not) selected.

Scores are refined lazily (the CELF algorithm): a heap holds an upper bound per result
(weighted score x the largest quality multiplier, then the quality score, then the fused score
against the selection so far; a penalty only grows as the selection grows) and only a result
that reaches the top is refined. The selection is the same as re-scoring everything each round,
and 1000 results fuse in a few milliseconds. Results the selection never reached are scored
only if the caller reads ``FusionResult.excluded``.
"""

from __future__ import annotations

import heapq
import math
import numbers
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from functools import cached_property
from typing import Any

from pydantic import ConfigDict, Field

from kg_pipelines.config import FusionSettings, KGSettings, StrategyPreset
from kg_pipelines.retrieval.query_strategies import STRATEGIES, QueryClass, classify_query


@dataclass(frozen=True)
class RetrievedItem:
    """One result of one collection's search."""

    item_id: str  # chunk_id (unique within its collection)
    collection: str
    text: str
    score: float  # the collection's own score; never compared across collections
    rank: int  # 1-based rank within its list
    document_id: str | None = None
    title: str | None = None
    # optional quality signals and hints: created_at, file_type, has_title, token_count, seq
    metadata: Mapping = field(default_factory=dict)


class FusionConfig(FusionSettings):
    """One fusion's parameters; defaults are :class:`~kg_pipelines.config.FusionSettings`'."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    chunk_tokens: int | None = Field(
        default=None,
        ge=1,
        description="Chunk size (tokens) of the results; scales the length bands. None: the seed's bands",
    )

    @classmethod
    def from_settings(cls, settings: FusionSettings | KGSettings, **overrides: Any) -> FusionConfig:
        """The fusion settings; from the whole settings, with the chunk size the chunker uses."""
        if isinstance(settings, KGSettings):
            values = {**settings.fusion.model_dump(), "chunk_tokens": settings.chunk_tokens}
        else:
            values = settings.model_dump()
        return cls.model_validate({**values, **overrides})

    @property
    def length_scale(self) -> float:
        """What the length bands are multiplied by (see the module doc): 1.0 keeps the seed's."""
        q = self.quality
        if self.chunk_tokens is None or not q.scale_length_bands:
            return 1.0
        return self.chunk_tokens * q.chars_per_token / q.band_chunk_chars


@dataclass(frozen=True)
class MergedResult:
    """One fused result with its source attribution (seed 004's MergedResult, extended)."""

    item: RetrievedItem  # the representative: the copy with the largest contribution
    fused_score: float  # the final score (an upper bound when diversity_penalty is None)
    rrf_score: float  # base RRF: sum of 1 / (k + rank) over the lists that hold it
    weighted_score: float  # sum of weight / (k + rank)
    quality_multiplier: float
    quality_signals: Mapping[str, float]  # signal name -> multiplier (only the ones that applied)
    diversity_penalty: float | None  # fraction taken off (f x maxsim); None: not up to date (score is a bound)
    similar_to: str | None  # "collection/item_id" of the most similar result already selected
    ranks: Mapping[str, int]  # list (collection) name -> rank there
    contributions: Mapping[str, float]  # list name -> weight / (k + rank)
    duplicates: tuple[RetrievedItem, ...]  # other copies merged into this one (same id or same text)
    tokens: int | None  # None when never counted
    selected: bool
    selection_reason: str
    score_rank: int  # 1-based position by fused score among all results
    position: int | None = None  # 1-based position in the final context (selected only)

    @property
    def item_id(self) -> str:
        return self.item.item_id

    @property
    def collection(self) -> str:
        return self.item.collection

    @property
    def text(self) -> str:
        return self.item.text

    @property
    def document_id(self) -> str | None:
        return self.item.document_id

    @property
    def title(self) -> str | None:
        return self.item.title

    @property
    def final_score(self) -> float:  # the seed's name
        return self.fused_score

    @property
    def quality_score(self) -> float:
        return self.weighted_score * self.quality_multiplier

    @property
    def collections(self) -> tuple[str, ...]:
        return tuple(self.ranks)


@dataclass(frozen=True)
class FusionResult:
    selected: tuple[MergedResult, ...]  # in final context order
    strategy: str
    strategy_reason: str
    tokens_used: int
    token_budget: int
    k: float
    diversity_factor: float
    collection_weights: Mapping[str, float]  # effective weight per list (settings x authority)
    empty_collections: tuple[str, ...] = ()
    candidates: int = 0  # distinct results after duplicates were fused
    # builds the excluded results on first use: a caller that only needs the context does not
    # pay for hundreds of MergedResult objects it never reads
    _excluded: Callable[[], tuple[MergedResult, ...]] = field(default=tuple, repr=False, compare=False)

    @cached_property
    def excluded(self) -> tuple[MergedResult, ...]:
        """The results not selected, best fused score first, each with the reason."""
        return self._excluded()

    @property
    def ranked(self) -> list[MergedResult]:
        """Every result, best fused score first."""
        return sorted((*self.selected, *self.excluded), key=lambda r: r.score_rank)

    def context_text(self) -> str:
        """The selected texts in context order, each headed by its source (for an LLM prompt)."""
        blocks = []
        for result in self.selected:
            source = result.collection + (f" / {result.title}" if result.title else "")
            blocks.append(f"[{result.position}] ({source})\n{result.text}")
        return "\n\n".join(blocks)

    def summary(self) -> str:
        """The seed's context summary: collections, documents, one line per selected result."""
        collections = {c for r in self.selected for c in r.collections}
        documents = {r.document_id or f"{r.collection}/{r.item_id}" for r in self.selected}
        lines = [f"Context from {len(collections)} collections, {len(documents)} documents:"]
        for result in self.selected:
            lines.append(f"[{result.position}] From {result.collection}: {result.text[:100]}...")
        return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# Plain weighted RRF over named id lists (also used within a collection: fts, vector, graph)
# --------------------------------------------------------------------------------------------


def reciprocal_rank_fusion(
    ranked: Mapping[str, Sequence[str]], k: float = 60, weights: Mapping[str, float] | None = None
) -> list[tuple[str, float]]:
    """Weighted RRF: score(d) = sum over lists L of w_L / (k + rank_L(d)), best first.

    A list's position gives the rank (1-based); an id repeated within one list counts once, at
    its first position. A list missing from ``weights`` weighs 1.0. Ties go to the id with the
    better best rank, then to the one seen first (lists in the mapping's order).
    """
    if not k > 0:
        raise ValueError(f"k must be > 0, got {k}")
    parts: dict[str, list[float]] = {}
    best_rank: dict[str, int] = {}
    for name, ids in ranked.items():
        weight = 1.0 if weights is None else weights.get(name, 1.0)
        if not weight >= 0:
            raise ValueError(f"weight of {name!r} must be >= 0, got {weight}")
        seen: set[str] = set()
        for rank, item_id in enumerate(ids, 1):
            if item_id in seen:
                continue
            seen.add(item_id)
            contribution = weight / (k + rank)
            found = parts.get(item_id)
            if found is None:
                parts[item_id] = [contribution]
                best_rank[item_id] = rank
            else:
                found.append(contribution)
                if rank < best_rank[item_id]:
                    best_rank[item_id] = rank
    # fsum is exactly rounded, so a score does not depend on the order of the lists
    scored = [(item_id, math.fsum(c) if len(c) > 1 else c[0]) for item_id, c in parts.items()]
    scored.sort(key=lambda pair: (-pair[1], best_rank[pair[0]]))
    return scored


# --------------------------------------------------------------------------------------------
# Enhanced RRF across collections
# --------------------------------------------------------------------------------------------

_DEFAULT_CONFIG: FusionConfig | None = None


def _default_config() -> FusionConfig:
    global _DEFAULT_CONFIG
    if _DEFAULT_CONFIG is None:
        _DEFAULT_CONFIG = FusionConfig()
    return _DEFAULT_CONFIG


def resolve_strategy(strategy: str, query: str) -> QueryClass:
    """The strategy to use: the configured one, or the classifier's pick under ``auto``."""
    if strategy == "auto":
        return classify_query(query)
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r}; known: auto, {', '.join(STRATEGIES)}")
    return QueryClass(strategy, f"{strategy}: set explicitly")


def effective_weights(lists: Sequence[str], config: FusionConfig, preset: StrategyPreset) -> dict[str, float]:
    """Weight per list: the configured collection weight (1.0 if unset) times the strategy's
    authority weight (the first authority word found in the collection's name, as the seed does)."""
    weights = {}
    for name in lists:
        weight = config.collection_weights.get(name, 1.0)
        lowered = name.lower()
        for word, authority in preset.authority_name_weights.items():
            if word.lower() in lowered:
                weight *= authority
                break
        weights[name] = weight
    return weights


# Numbered or bulleted lines, "step 3", and sequence words mark step-by-step text.
_STEP_LINE = re.compile(r"(?m)^[ \t]*(?:\d{1,2}[.)]|[-*\u2022])[ \t]+\S")
_STEP_WORD = re.compile(r"\bstep\s+\d+\b", re.IGNORECASE)
_SEQUENCE_WORD = re.compile(r"\b(?:first|second|third|then|next|after that|finally|lastly)\b", re.IGNORECASE)


def is_step_by_step(text: str) -> bool:
    """Two numbered / bulleted lines or "step N" mentions, or three distinct sequence words."""
    if len(_STEP_LINE.findall(text)) + len(_STEP_WORD.findall(text)) >= 2:
        return True
    return len({w.lower() for w in _SEQUENCE_WORD.findall(text)}) >= 3


def _as_datetime(value: Any) -> datetime | None:
    """created_at as an aware datetime: datetime, date, ISO string or epoch seconds; else None.
    A time without a zone is taken as UTC."""
    try:
        if isinstance(value, str):
            try:
                found = datetime.fromisoformat(value)
            except ValueError:
                found = datetime.fromisoformat(value.strip()) if value.strip() else None
        elif isinstance(value, datetime):
            found = value
        elif isinstance(value, date):
            found = datetime(value.year, value.month, value.day)
        elif isinstance(value, int | float) and not isinstance(value, bool):
            return datetime.fromtimestamp(float(value), tz=UTC)
        else:
            return None
    except (ValueError, OverflowError, OSError):
        return None
    if found is None:
        return None
    return found if found.tzinfo else found.replace(tzinfo=UTC)


class QualityRules:
    """The seed's quality signals, prepared once per fusion (constants hoisted out of the loop)."""

    def __init__(self, config: FusionConfig, preset: StrategyPreset, now: datetime):
        q = config.quality
        self.q = q
        self.structured = {t.lower().lstrip(".") for t in q.structured_file_types}
        try:
            self.recent_after = now - timedelta(days=q.recent_days)
        except OverflowError:  # a window reaching before year 1: everything is recent
            self.recent_after = datetime.min.replace(tzinfo=UTC)
        self.recency_boost = preset.recency_boost if preset.recency_boost is not None else q.recency_boost
        self.step_boost = preset.step_boost
        scale = config.length_scale
        self.optimal_min = q.optimal_min_chars * scale
        self.optimal_max = q.optimal_max_chars * scale
        self.short_below = q.short_below_chars * scale
        self.long_above = q.long_above_chars * scale
        # the largest product any result can get: weighted score x this bounds its quality score
        self.max_multiplier = (
            max(1.0, q.optimal_length_boost, q.short_penalty, q.long_penalty)
            * max(1.0, q.title_boost)
            * max(1.0, q.structured_file_boost)
            * max(1.0, self.recency_boost)
            * max(1.0, self.step_boost)
        )

    def signals(self, item: RetrievedItem) -> tuple[dict[str, float], float]:
        """Multipliers that apply to one result (name -> multiplier; 1.0 ones left out), and
        their product."""
        q = self.q
        signals: dict[str, float] = {}
        length = len(item.text)
        if self.optimal_min <= length <= self.optimal_max:
            signals["medium length"] = q.optimal_length_boost
        elif length < self.short_below:
            signals["short"] = q.short_penalty
        elif length > self.long_above:
            signals["long"] = q.long_penalty
        metadata = item.metadata
        if item.title or (metadata and metadata.get("has_title")):
            signals["title"] = q.title_boost
        if metadata:
            file_type = metadata.get("file_type")
            if file_type and str(file_type).lower().lstrip(".") in self.structured:
                signals["structured file"] = q.structured_file_boost
            created_at = metadata.get("created_at")
            if created_at is not None:
                created = _as_datetime(created_at)
                if created is not None and created > self.recent_after:
                    signals["recent"] = self.recency_boost
        if self.step_boost != 1.0 and is_step_by_step(item.text):
            signals["step by step"] = self.step_boost
        multiplier = 1.0
        for value in signals.values():
            multiplier *= value
        if 1.0 in signals.values():
            signals = {name: m for name, m in signals.items() if m != 1.0}
        return signals, multiplier


def quality_signals(
    item: RetrievedItem, config: FusionConfig, preset: StrategyPreset, now: datetime
) -> dict[str, float]:
    """The seed's quality multipliers that apply to one result (name -> multiplier)."""
    return QualityRules(config, preset, now).signals(item)[0]


class _Candidate:
    """Working state of one fused result while scores and the selection are computed.

    Plain attributes with class-level defaults: most results keep the defaults, and building
    a thousand of these per query is on the hot path.
    """

    copies: dict[tuple[str, str], RetrievedItem] | None = None  # set once a second copy appears
    rank_key: dict[str, tuple[str, str]] | None = None  # list -> which copy had that rank
    duplicates: tuple[RetrievedItem, ...] = ()
    again = False  # found more than once: its RRF is recomputed from all its ranks
    signals: dict[str, float] | None = None  # None until computed (lazily, see _select)
    multiplier = 1.0
    maxsim = 0.0
    similar_to: str | None = None
    penalty: float | None = None
    tokens: int | None = None
    words: int | None = None  # word set as a bitmask over the fusion's vocabulary
    word_count = 0
    examined = False
    selected = False
    reason = ""
    version = 0

    def __init__(
        self, item: RetrievedItem, has_text: bool, list_name: str, rank: int, weight: float, k: float, index: int
    ):
        self.item = item
        self.has_text = has_text
        self.ranks: dict[str, int] = {list_name: rank}
        self.weighted = weight / (k + rank)
        self.rrf = 1.0 / (k + rank)
        self.best_rank = rank
        self.index = index

    def add_copy(self, key: tuple[str, str], item: RetrievedItem) -> None:
        if self.copies is None:
            first = (self.item.collection, self.item.item_id)
            self.copies = {first: self.item}
            self.rank_key = dict.fromkeys(self.ranks, first)
        self.copies.setdefault(key, item)


class _Vocabulary:
    """Word sets as bitmasks: Jaccard becomes two ANDs and popcounts on Python ints, with no
    set allocated per pair (the diversity penalty's inner loop)."""

    def __init__(self) -> None:
        self.bits: dict[str, int] = {}

    def mask(self, cand: _Candidate) -> int:
        if cand.words is None:
            bits = self.bits
            words = set(cand.item.text.lower().split())
            positions = [bits.setdefault(word, len(bits)) for word in words]
            packed = bytearray(len(bits) // 8 + 1)
            for position in positions:
                packed[position >> 3] |= 1 << (position & 7)
            cand.words, cand.word_count = int.from_bytes(packed, "little"), len(words)
        return cand.words


def _label(item: RetrievedItem) -> str:
    return f"{item.collection}/{item.item_id}"


def text_similarity(a: str, b: str) -> float:
    """Word-set Jaccard similarity, as the seed's ``_calculate_text_similarity``: the measure of
    the diversity penalty (``_select`` computes the same on bitmasks, without building sets)."""
    words_a, words_b = set(a.lower().split()), set(b.lower().split())
    union = len(words_a | words_b)
    return len(words_a & words_b) / union if union else 0.0


def _list_names(results: Mapping[str, Sequence[RetrievedItem]]) -> tuple[list[str], list[str]]:
    """(names of the lists with results, names of the empty ones), in the mapping's order."""
    lists, empty = [], []
    for list_name, items in results.items():
        if not isinstance(list_name, str) or not list_name:
            raise ValueError(f"collection names must be non-empty strings, got {list_name!r}")
        (lists if items is not None and len(items) else empty).append(list_name)
    return lists, empty


def _collect(
    results: Mapping[str, Sequence[RetrievedItem]], lists: list[str], weights: Mapping[str, float], k: float
) -> list[_Candidate]:
    """One candidate per distinct result: the same (collection, item_id) or the same text found
    in several lists is one result whose lists all contribute (each list once, its best rank).

    Lists are read in name order, so the candidates' order (the last tie-break) does not depend
    on the mapping's order. A result's RRF is set from its first rank here; the few found more
    than once are re-scored by ``_rrf_scores``.
    """
    by_id: dict[tuple[str, str], _Candidate] = {}
    by_text: dict[str, _Candidate] = {}
    candidates: list[_Candidate] = []
    again: list[_Candidate] = []
    # locals: this loop runs once per result of every list
    find_id, find_text, add = by_id.get, by_text.get, candidates.append
    candidate, item_type = _Candidate, RetrievedItem
    for list_name in sorted(lists):
        weight = weights[list_name]
        for item in results[list_name]:
            if type(item) is not item_type and not isinstance(item, item_type):
                raise TypeError(f"{list_name}: expected RetrievedItem, got {type(item).__name__}")
            rank = item.rank
            if type(rank) is not int:
                rank = _checked_rank(rank, list_name, item)
            elif rank < 1:
                raise ValueError(f"{list_name}: rank must be an integer >= 1, got {rank!r} for {item.item_id!r}")
            text = item.text
            if type(text) is not str and not isinstance(text, str):
                raise TypeError(f"{list_name}: text of {item.item_id!r} must be a string, got {type(text).__name__}")
            key = (item.collection, item.item_id)
            found = find_id(key)
            if found is None:
                has_text = bool(text) and not text.isspace()
                found = find_text(text) if has_text else None
                if found is None:
                    found = candidate(item, has_text, list_name, rank, weight, k, len(candidates))
                    add(found)
                    by_id[key] = found
                    if has_text:
                        by_text[text] = found
                    continue
                found.add_copy(key, item)
                by_id[key] = found
            if not found.again:
                found.again = True
                again.append(found)
            ranks = found.ranks
            previous = ranks.get(list_name)
            if previous is None or rank < previous:
                ranks[list_name] = rank
                if found.rank_key is not None:
                    found.rank_key[list_name] = key
    _rrf_scores(again, weights, k)
    return candidates


def _checked_rank(rank: Any, list_name: str, item: RetrievedItem) -> int:
    """A rank that is not a plain int: any integer type (numpy's too) >= 1, never a bool."""
    if isinstance(rank, bool) or not isinstance(rank, numbers.Integral) or rank < 1:
        raise ValueError(f"{list_name}: rank must be an integer >= 1, got {rank!r} for {item.item_id!r}")
    return int(rank)


def _rrf_scores(candidates: list[_Candidate], weights: Mapping[str, float], k: float) -> None:
    """Base and weighted RRF of every candidate, its best rank and its representative copy."""
    for cand in candidates:
        ranks = cand.ranks
        if len(ranks) == 1:
            for list_name, rank in ranks.items():
                cand.weighted = weights[list_name] / (k + rank)
                cand.rrf = 1.0 / (k + rank)
                cand.best_rank = rank
        else:
            # fsum is exactly rounded: the score does not depend on the order of the lists
            cand.weighted = math.fsum(weights[name] / (k + rank) for name, rank in ranks.items())
            cand.rrf = math.fsum(1.0 / (k + rank) for rank in ranks.values())
            cand.best_rank = min(ranks.values())
        if cand.copies is not None:
            # representative: the copy with the largest contribution (ties: better rank, then name)
            rank_key = cand.rank_key
            best = min(ranks, key=lambda name: (-weights[name] / (k + ranks[name]), ranks[name], rank_key[name]))
            representative = cand.copies[rank_key[best]]
            cand.item = representative
            cand.duplicates = tuple(c for c in cand.copies.values() if c is not representative)


def _apply_quality(cand: _Candidate, rules: QualityRules) -> None:
    cand.signals, cand.multiplier = rules.signals(cand.item)
    cand.quality = cand.weighted * cand.multiplier


def _contributions(cand: _Candidate, weights: Mapping[str, float], k: float) -> dict[str, float]:
    return {name: weights[name] / (k + rank) for name, rank in cand.ranks.items()}


# Token counts of texts seen recently, per named counter: the same chunks come back query after
# query (and round after round in the QA loop), and the tokenizer costs about a quarter of a
# millisecond a chunk, far more than the rest of the fusion.
_TOKEN_CACHE: dict[tuple[str, str], int] = {}
_TOKEN_CACHE_SIZE = 20_000


# Word counts (the least token count, see _min_tokens) of texts seen recently, for the same reason.
_WORD_COUNTS: dict[str, int] = {}


def clear_token_cache() -> None:
    _TOKEN_CACHE.clear()
    _WORD_COUNTS.clear()


def _counter_name(counter: Any) -> str | None:
    """A counter's name keys the cache; one without a name cannot be told from another."""
    name = getattr(counter, "name", None)
    return name if isinstance(name, str) and name else None


def _known_tokens(cand: _Candidate, counter_name: str | None) -> int | None:
    """The token count without tokenizing: the result's ``token_count`` metadata, else the cache."""
    if cand.tokens is None:
        metadata = cand.item.metadata
        known = metadata.get("token_count") if metadata else None
        if type(known) is int and known >= 0:
            cand.tokens = known
        elif counter_name is not None:
            cand.tokens = _TOKEN_CACHE.get((counter_name, cand.item.text))
    return cand.tokens


def _smallest_known_tokens(candidates: list[_Candidate], counter_name: str | None) -> int | None:
    """The smallest token count (or least count) when every result's is known, else None."""
    words_bound = counter_name is not None and counter_name.startswith("wordpiece:")
    smallest = None
    for cand in candidates:
        metadata = cand.item.metadata
        known = metadata.get("token_count") if metadata else None
        if type(known) is int and known >= 0:
            cand.tokens = known
        else:
            known = _known_tokens(cand, counter_name)
            if known is None and words_bound:
                known = _WORD_COUNTS.get(cand.item.text)  # a least count is enough here
            if known is None:
                return None
        if smallest is None or known < smallest:
            smallest = known
    return smallest


def _tokens(cand: _Candidate, counter: Any, counter_name: str | None) -> int:
    if _known_tokens(cand, counter_name) is None:
        count = int(counter.count(cand.item.text))
        if counter_name is not None:
            if len(_TOKEN_CACHE) >= _TOKEN_CACHE_SIZE:
                _TOKEN_CACHE.clear()  # crude but bounded; refilled by the next queries
            _TOKEN_CACHE[(counter_name, cand.item.text)] = count
        cand.tokens = count
    return cand.tokens


def _min_tokens(cand: _Candidate, counter_name: str | None) -> int | None:
    """The token count if known, else a cheap lower bound to skip tokenizing results that cannot
    fit: the offline WordPiece tokenizer gives every whitespace-separated word at least one token."""
    known = _known_tokens(cand, counter_name)
    if known is not None:
        return known
    if counter_name is not None and counter_name.startswith("wordpiece:"):
        text = cand.item.text
        words = _WORD_COUNTS.get(text)
        if words is None:
            if len(_WORD_COUNTS) >= _TOKEN_CACHE_SIZE:
                _WORD_COUNTS.clear()
            words = _WORD_COUNTS[text] = len(text.split())
        return words
    return None


def _update_similarity(cand: _Candidate, others: Sequence[_Candidate], vocabulary: _Vocabulary) -> None:
    """Raise ``cand.maxsim`` to its highest word-set Jaccard similarity with ``others``."""
    words = vocabulary.mask(cand)
    size = cand.word_count
    best, best_other = cand.maxsim, None
    for other in others:
        inter = (words & vocabulary.mask(other)).bit_count()
        if inter:
            sim = inter / (size + other.word_count - inter)
            if sim > best:
                best, best_other = sim, other
    if best_other is not None:
        cand.maxsim, cand.similar_to = best, _label(best_other.item)


def _heap_entry(cand: _Candidate, index: int, key: float) -> tuple[float, int, int]:
    # ties: the better best rank, then the candidate's place (lists read in name order)
    return (-key, cand.best_rank, index)


def _select(
    candidates: list[_Candidate], config: FusionConfig, diversity: float, counter: Any, rules: QualityRules
) -> tuple[int, str | None]:
    """Greedy selection by fused score within the budget; returns (tokens used, why it stopped).

    Scores are refined lazily, as the CELF algorithm does: the heap holds upper bounds, and a
    popped result whose key is not yet exact is refined and pushed back. Bounds, from loose to
    exact: weighted score x the largest possible quality multiplier (quality signals not yet
    computed), then the quality score (diversity penalty not yet up to date with the selection),
    then the fused score. A penalty only grows as the selection grows, so every key stays an
    upper bound and results come off the heap in exact fused-score order. With
    ``fill_after_misfit`` a result that cannot fit any more (its known or least token count is
    above what is left) is set aside without refining: whatever its score, it cannot be chosen.
    Results never popped keep a bound; ``fuse`` completes them only if the caller reads them.
    """
    budget = config.max_context_tokens
    remaining = budget
    selected: list[_Candidate] = []
    lazy = diversity > 0 and config.diversity_against == "selected"
    fill = config.fill_after_misfit
    vocabulary = _Vocabulary()
    if diversity > 0 and config.diversity_against == "ranked_above":
        # The seed's code: each result is penalised by its similarity to every result ranked
        # above it by quality score, selected or not, so every quality score is needed first.
        for cand in candidates:
            _apply_quality(cand, rules)
        by_quality = sorted(candidates, key=lambda c: (-c.quality, c.best_rank, c.index))
        for position, cand in enumerate(by_quality):
            _update_similarity(cand, by_quality[:position], vocabulary)
            cand.penalty = diversity * cand.maxsim
            cand.fused = cand.quality * (1.0 - cand.penalty)
        heap = [(-cand.fused, cand.best_rank, i) for i, cand in enumerate(candidates)]
    else:
        bound = -rules.max_multiplier
        heap = [(cand.weighted * bound, cand.best_rank, i) for i, cand in enumerate(candidates)]
    heapq.heapify(heap)
    counter_name = _counter_name(counter)
    # when every token count is known (chunks carry token_count), the smallest one tells when
    # nothing can fit any more, and the rest need not be looked at
    smallest = _smallest_known_tokens(candidates, counter_name) if fill else None
    stopped: str | None = None
    while heap:
        entry = heapq.heappop(heap)
        cand = candidates[entry[-1]]
        if not cand.has_text or cand.weighted <= 0:
            if cand.signals is None:
                _apply_quality(cand, rules)
            cand.fused, cand.penalty, cand.examined = cand.quality, 0.0, True
            cand.reason = (
                "empty text: nothing to put in the context"
                if not cand.has_text
                else "zero weight: every list that found it has collection weight 0"
            )
            continue
        if remaining <= 0 or smallest is not None and remaining < smallest:
            stopped = (
                f"budget full: {budget - remaining} of {budget} tokens used"
                + (", less left than any result needs" if remaining > 0 else "")
                + ", before its turn"
            )
            heapq.heappush(heap, entry)
            break
        if cand.signals is None:
            _apply_quality(cand, rules)
            cand.fused = cand.quality
            if not lazy:
                cand.penalty = 0.0
            heapq.heappush(heap, _heap_entry(cand, entry[-1], cand.fused))
            continue
        if fill:
            at_least = _min_tokens(cand, counter_name)
            if at_least is not None and at_least > remaining:
                cand.examined = True
                cand.reason = f"does not fit: {_token_words(cand, at_least)}, {remaining} of {budget} left"
                if lazy and (cand.penalty is None or cand.version != len(selected)) and selected:
                    cand.penalty = None  # not brought up to date: fused is an upper bound
                elif lazy and not selected:
                    cand.penalty = 0.0
                continue
        if lazy:
            if not selected:
                cand.penalty, cand.version = 0.0, 0  # nothing selected yet: no penalty, score exact
            elif cand.penalty is None or cand.version != len(selected):
                # stale: bring the penalty up to date with the results selected since
                _update_similarity(cand, selected[cand.version if cand.penalty is not None else 0 :], vocabulary)
                cand.penalty = diversity * cand.maxsim
                cand.fused = cand.quality * (1.0 - cand.penalty)
                cand.version = len(selected)
                heapq.heappush(heap, _heap_entry(cand, entry[-1], cand.fused))
                continue
        cand.examined = True
        tokens = _tokens(cand, counter, counter_name)
        if tokens <= remaining:
            cand.selected = True
            selected.append(cand)
            remaining -= tokens
        else:
            cand.reason = f"does not fit: {tokens} tokens, {remaining} of {budget} left"
            if not fill:
                stopped = f"not tried: selection stops at the first result that does not fit ({_label(cand.item)})"
                break
    return budget - remaining, stopped


def _token_words(cand: _Candidate, at_least: int) -> str:
    return f"{at_least} tokens" if cand.tokens is not None else f"at least {at_least} tokens (one per word)"


def _selection_reason(cand: _Candidate, contributions: Mapping[str, float], total: int) -> str:
    parts = [f"#{cand.score_rank} of {total} by fused score {cand.fused:.5f}"]
    placed = sorted(cand.ranks.items(), key=lambda pair: (-contributions[pair[0]], pair[0]))
    parts.append(", ".join((f"top-{r}" if r <= 3 else f"rank {r}") + f" in {name}" for name, r in placed))
    if len(cand.ranks) > 1:
        parts.append(f"found by {len(cand.ranks)} lists")
    if cand.duplicates:
        parts.append("same result also as " + ", ".join(_label(d) for d in cand.duplicates))
    if cand.signals:
        parts.append("quality " + ", ".join(f"{name} x{m:g}" for name, m in cand.signals.items()))
    if cand.penalty:
        parts.append(f"diversity penalty -{cand.penalty:.1%} (like {cand.similar_to})")
    if cand.tokens is not None:
        parts.append(f"{cand.tokens} tokens")
    return "; ".join(parts)


def order_context(results: Sequence[Any], order: str) -> list[Any]:
    """The final context order of the selected results (best fused score first in ``results``;
    each has ``.item`` and ``.score_rank``, as MergedResult does).

    primacy_recency: the seed's high-medium-low-medium-high pattern: the 1st, 3rd, 5th, ... best
    from the front, the 2nd, 4th, ... best from the back, so the two best sit at the two ends
    where an LLM attends most. score: best first. document: grouped by document (groups by their
    best result), in reading order (metadata ``seq``) within a document, for step-by-step text.
    """
    by_score = list(results)
    if order == "score" or len(by_score) <= 2 and order == "primacy_recency":
        return by_score
    if order == "primacy_recency":
        return by_score[0::2] + by_score[1::2][::-1]
    if order == "document":
        groups: dict[str, list[Any]] = {}
        for result in by_score:
            groups.setdefault(result.item.document_id or _label(result.item), []).append(result)

        def reading_order(result: Any) -> tuple[int, int, int]:
            seq = (result.item.metadata or {}).get("seq")
            usable = isinstance(seq, int) and not isinstance(seq, bool)
            return (0, seq, result.score_rank) if usable else (1, 0, result.score_rank)

        return [r for group in groups.values() for r in sorted(group, key=reading_order)]
    raise ValueError(f"unknown context order {order!r}")


def fuse(
    results: Mapping[str, Sequence[RetrievedItem]],
    query: str,
    config: FusionConfig | None = None,
    *,
    token_counter: Any = None,
    now: datetime | None = None,
) -> FusionResult:
    """Seed 004's enhanced RRF across collections: weights, quality signals, diversity, token
    budget, selection reasons, source attribution, context order, query-aware strategy.

    ``results`` maps a collection (or any ranked list) name to its results, best first. The same
    result in several lists (same collection and item_id, or identical text) is fused into one.
    ``token_counter`` (``.count(text)``) defaults to the project's offline tokenizer; ``now``
    (for the recency signal) defaults to the current time.
    """
    config = config or _default_config()
    if not isinstance(results, Mapping):
        raise TypeError(f"results must map a collection name to its ranked results, got {type(results).__name__}")
    choice = resolve_strategy(config.strategy, query)
    preset = config.strategies[choice.strategy]
    diversity = preset.diversity_factor if config.diversity_factor is None else config.diversity_factor
    now = now or datetime.now(UTC)
    if now.tzinfo is None:
        now = now.replace(tzinfo=UTC)

    lists, empty = _list_names(results)
    weights = effective_weights(lists, config, preset)
    candidates = _collect(results, lists, weights, config.k)
    rules = QualityRules(config, preset, now)
    if token_counter is None:
        from kg_pipelines.ingestion.tokens import default_token_counter

        token_counter = default_token_counter()
    tokens_used, stopped = _select(candidates, config, diversity, token_counter, rules)

    # Score order. Results the selection decided on came off the heap before any other, so they
    # take the first places; the rest are ranked only if the caller reads ``excluded``.
    examined = sorted((c for c in candidates if c.examined), key=_score_order)
    for score_rank, cand in enumerate(examined, 1):
        cand.score_rank = score_rank
    total = len(candidates)
    ordered = order_context([c for c in examined if c.selected], preset.context_order)
    k = config.k
    selected = []
    for position, cand in enumerate(ordered, 1):
        contributions = _contributions(cand, weights, k)
        reason = _selection_reason(cand, contributions, total)
        selected.append(_merged(cand, contributions, reason, position))
    lazy_penalty = diversity > 0 and config.diversity_against == "selected"
    selected_count = len(selected)

    def excluded() -> tuple[MergedResult, ...]:
        rest = [c for c in candidates if not c.examined]
        for cand in rest:
            if cand.signals is None:
                _apply_quality(cand, rules)
            if not lazy_penalty or selected_count == 0:
                if cand.penalty is None:
                    cand.penalty = 0.0  # no penalty applies (none configured, or nothing selected)
                    cand.fused = cand.quality
            elif cand.penalty is None or cand.version != selected_count:
                # compared with part of the selection at most: the score is an upper bound
                cand.penalty = None
                cand.fused = cand.quality * (1.0 - diversity * cand.maxsim)
            cand.reason = stopped or cand.reason
        rest.sort(key=_score_order)
        for score_rank, cand in enumerate(rest, len(examined) + 1):
            cand.score_rank = score_rank
        return tuple(
            _merged(cand, _contributions(cand, weights, k), _exclusion_reason(cand))
            for cand in (*examined, *rest)
            if not cand.selected
        )

    return FusionResult(
        selected=tuple(selected),
        strategy=choice.strategy,
        strategy_reason=choice.reason,
        tokens_used=tokens_used,
        token_budget=config.max_context_tokens,
        k=config.k,
        diversity_factor=diversity,
        collection_weights=weights,
        empty_collections=tuple(empty),
        candidates=total,
        _excluded=excluded,
    )


def _score_order(cand: _Candidate) -> tuple[float, int, int]:
    return (-cand.fused, cand.best_rank, cand.index)


def _exclusion_reason(cand: _Candidate) -> str:
    if cand.penalty is None and cand.reason:
        return cand.reason + " (fused score is an upper bound: diversity penalty not brought up to date)"
    return cand.reason


def _merged(
    cand: _Candidate, contributions: Mapping[str, float], reason: str, position: int | None = None
) -> MergedResult:
    return MergedResult(
        item=cand.item,
        fused_score=cand.fused,
        rrf_score=cand.rrf,
        weighted_score=cand.weighted,
        quality_multiplier=cand.multiplier,
        quality_signals=cand.signals,
        diversity_penalty=cand.penalty,
        similar_to=cand.similar_to,
        ranks=cand.ranks,
        contributions=contributions,
        duplicates=cand.duplicates,
        tokens=cand.tokens,
        selected=cand.selected,
        selection_reason=reason,
        score_rank=cand.score_rank,
        position=position,
    )
