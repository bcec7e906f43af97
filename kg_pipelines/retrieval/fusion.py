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
Selection is greedy by fused score within a token budget (tokens counted with the project's
offline WordPiece tokenizer, or taken from a result's ``token_count`` metadata); the selected
results are then ordered for the LLM (primacy / recency: best first, second best last). Every
result, selected or not, comes back as a :class:`MergedResult` carrying its ranks, per-list
contributions, quality multipliers, diversity penalty and the reason it was (not) selected.

The diversity penalty is computed lazily (CELF): a result's fused score can only fall as the
context grows, so its last computed score is an upper bound and only results that reach the top
of the heap are re-scored. That keeps ``fuse`` exact and a few milliseconds for 1000 results.
"""

from __future__ import annotations

import heapq
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any

from pydantic import ConfigDict

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
    metadata: Mapping = field(
        default_factory=dict
    )  # optional quality signals (created_at, file_type, token_count, seq)


class FusionConfig(FusionSettings):
    """One fusion's parameters; defaults are :class:`~kg_pipelines.config.FusionSettings`'."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    @classmethod
    def from_settings(cls, settings: FusionSettings | KGSettings, **overrides: Any) -> FusionConfig:
        fusion = settings.fusion if isinstance(settings, KGSettings) else settings
        return cls.model_validate({**fusion.model_dump(), **overrides})


@dataclass(frozen=True)
class MergedResult:
    """One fused result with its source attribution (seed 004's MergedResult, extended)."""

    item: RetrievedItem  # the representative: the copy with the largest contribution
    fused_score: float  # the final score (an upper bound when diversity_penalty is None)
    rrf_score: float  # base RRF: sum of 1 / (k + rank) over the lists that hold it
    weighted_score: float  # sum of weight / (k + rank)
    quality_multiplier: float
    quality_signals: Mapping[str, float]  # signal name -> multiplier (only the ones that applied)
    diversity_penalty: float | None  # fraction taken off (f x maxsim); None: never examined
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
    excluded: tuple[MergedResult, ...]  # best fused score first, each with its reason
    strategy: str
    strategy_reason: str
    tokens_used: int
    token_budget: int
    k: float
    diversity_factor: float
    collection_weights: Mapping[str, float]  # effective weight per list (settings x authority)
    empty_collections: tuple[str, ...] = ()

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
    """created_at as an aware datetime: datetime, date, ISO string or epoch seconds; else None."""
    try:
        if isinstance(value, datetime):
            found = value
        elif isinstance(value, date):
            found = datetime(value.year, value.month, value.day)
        elif isinstance(value, int | float) and not isinstance(value, bool):
            return datetime.fromtimestamp(float(value), tz=UTC)
        elif isinstance(value, str) and value.strip():
            found = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        else:
            return None
    except (ValueError, OverflowError, OSError):
        return None
    return found if found.tzinfo else found.replace(tzinfo=UTC)


def quality_signals(
    item: RetrievedItem, config: FusionConfig, preset: StrategyPreset, now: datetime
) -> dict[str, float]:
    """The seed's quality multipliers that apply to one result (name -> multiplier)."""
    q = config.quality
    signals: dict[str, float] = {}
    length = len(item.text)
    if q.optimal_min_chars <= length <= q.optimal_max_chars:
        signals["medium length"] = q.optimal_length_boost
    elif length < q.short_below_chars:
        signals["short"] = q.short_penalty
    elif length > q.long_above_chars:
        signals["long"] = q.long_penalty
    metadata = item.metadata or {}
    if item.title or metadata.get("has_title"):
        signals["title"] = q.title_boost
    file_type = metadata.get("file_type")
    if file_type and str(file_type).lower().lstrip(".") in {t.lower().lstrip(".") for t in q.structured_file_types}:
        signals["structured file"] = q.structured_file_boost
    created = _as_datetime(metadata.get("created_at"))
    if created is not None and (now - created).total_seconds() < q.recent_days * 86400:
        signals["recent"] = preset.recency_boost if preset.recency_boost is not None else q.recency_boost
    if preset.step_boost != 1.0 and is_step_by_step(item.text):
        signals["step by step"] = preset.step_boost
    return {name: m for name, m in signals.items() if m != 1.0}


class _Candidate:
    """Working state of one fused result while scores and the selection are computed."""

    __slots__ = (
        "best_rank",
        "contributions",
        "copies",
        "duplicates",
        "examined",
        "fused",
        "item",
        "maxsim",
        "multiplier",
        "order",
        "penalty",
        "quality",
        "rank_key",
        "ranks",
        "reason",
        "rrf",
        "selected",
        "signals",
        "similar_to",
        "text_key",
        "tokens",
        "version",
        "weighted",
        "words",
    )

    def __init__(self, item: RetrievedItem):
        self.item = item
        self.copies: dict[tuple[str, str], RetrievedItem] = {(item.collection, item.item_id): item}
        self.ranks: dict[str, int] = {}
        self.rank_key: dict[str, tuple[str, str]] = {}  # list -> which copy had that rank
        self.contributions: dict[str, float] = {}
        self.maxsim = 0.0
        self.similar_to: str | None = None
        self.penalty: float | None = None
        self.tokens: int | None = None
        self.words: frozenset[str] | None = None
        self.examined = False
        self.selected = False
        self.reason = ""
        self.version = 0

    def word_set(self) -> frozenset[str]:
        if self.words is None:
            self.words = frozenset(self.item.text.lower().split())
        return self.words


def _label(item: RetrievedItem) -> str:
    return f"{item.collection}/{item.item_id}"


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a or not b:
        return 0.0
    inter = len(a & b) if len(a) < len(b) else len(b & a)
    return inter / (len(a) + len(b) - inter)


def _collect(results: Mapping[str, Sequence[RetrievedItem]]) -> tuple[list[_Candidate], list[str]]:
    """One candidate per distinct result: the same (collection, item_id) or the same text found
    in several lists is one result whose lists all contribute (each list once, its best rank)."""
    by_id: dict[tuple[str, str], _Candidate] = {}
    by_text: dict[str, _Candidate] = {}
    candidates: list[_Candidate] = []
    empty: list[str] = []
    for list_name, items in results.items():
        if not isinstance(list_name, str) or not list_name:
            raise ValueError(f"collection names must be non-empty strings, got {list_name!r}")
        if items is None or len(items) == 0:
            empty.append(list_name)
            continue
        for item in items:
            if not isinstance(item, RetrievedItem):
                raise TypeError(f"{list_name}: expected RetrievedItem, got {type(item).__name__}")
            rank = item.rank
            if isinstance(rank, bool) or not isinstance(rank, int) or rank < 1:
                raise ValueError(f"{list_name}: rank must be an integer >= 1, got {rank!r} for {item.item_id!r}")
            key = (item.collection, item.item_id)
            text = item.text if isinstance(item.text, str) else ""
            found = by_id.get(key)
            if found is None and text.strip():
                found = by_text.get(text)
            if found is None:
                found = _Candidate(item)
                found.text_key = text
                candidates.append(found)
            elif key not in found.copies:
                found.copies[key] = item
            by_id[key] = found
            if text.strip():
                by_text.setdefault(text, found)
            previous = found.ranks.get(list_name)
            if previous is None or rank < previous:
                found.ranks[list_name] = rank
                found.rank_key[list_name] = key
    return candidates, empty


def _score(
    candidates: list[_Candidate],
    weights: Mapping[str, float],
    config: FusionConfig,
    preset: StrategyPreset,
    now: datetime,
) -> None:
    k = config.k
    for cand in candidates:
        base = []
        best_list, best_contribution = None, -1.0
        for list_name, rank in cand.ranks.items():
            contribution = weights[list_name] / (k + rank)
            cand.contributions[list_name] = contribution
            base.append(1.0 / (k + rank))
            if contribution > best_contribution:
                best_list, best_contribution = list_name, contribution
        if len(base) == 1:
            cand.rrf, cand.weighted = base[0], best_contribution
        else:
            cand.rrf = math.fsum(base)
            cand.weighted = math.fsum(cand.contributions.values())
        cand.best_rank = min(cand.ranks.values())
        representative = cand.copies[cand.rank_key[best_list]]
        cand.item = representative
        cand.duplicates = tuple(c for key, c in cand.copies.items() if c is not representative)
        cand.signals = quality_signals(representative, config, preset, now)
        multiplier = 1.0
        for value in cand.signals.values():
            multiplier *= value
        cand.multiplier = multiplier
        cand.quality = cand.weighted * multiplier


def _tokens(cand: _Candidate, counter: Any) -> int:
    if cand.tokens is None:
        known = (cand.item.metadata or {}).get("token_count")
        if isinstance(known, int) and not isinstance(known, bool) and known >= 0:
            cand.tokens = known
        else:
            cand.tokens = counter.count(cand.item.text)
    return cand.tokens


def _min_tokens(cand: _Candidate, counter: Any) -> int | None:
    """A cheap lower bound on the token count, to skip tokenizing results that cannot fit: the
    offline WordPiece tokenizer gives every whitespace-separated word at least one token."""
    if cand.tokens is not None:
        return cand.tokens
    if getattr(counter, "name", "").startswith("wordpiece:"):
        return len(cand.item.text.split())
    return None


def _update_similarity(cand: _Candidate, selected: list[_Candidate], start: int) -> None:
    words = cand.word_set()
    for other in selected[start:]:
        sim = _jaccard(words, other.word_set())
        if sim > cand.maxsim:
            cand.maxsim = sim
            cand.similar_to = _label(other.item)


def _select(candidates: list[_Candidate], config: FusionConfig, diversity: float, counter: Any) -> int:
    """Greedy selection by fused score within the budget; returns the tokens used."""
    budget = config.max_context_tokens
    remaining = budget
    selected: list[_Candidate] = []
    lazy = diversity > 0 and config.diversity_against == "selected"
    if diversity > 0 and config.diversity_against == "ranked_above":
        # The seed's code: each result is penalised by its similarity to every result ranked above.
        for position, cand in enumerate(candidates):
            words = cand.word_set()
            for other in candidates[:position]:
                sim = _jaccard(words, other.word_set())
                if sim > cand.maxsim:
                    cand.maxsim, cand.similar_to = sim, _label(other.item)
            cand.penalty = diversity * cand.maxsim
            cand.fused = cand.quality * (1.0 - cand.penalty)
    else:
        for cand in candidates:
            cand.penalty = 0.0 if not lazy else None
            cand.fused = cand.quality
    heap = [(-cand.fused, cand.order) for cand in candidates]
    heapq.heapify(heap)
    stopped: str | None = None
    while heap:
        _neg, order = heapq.heappop(heap)
        cand = candidates[order]
        if lazy and cand.penalty is None and not selected:
            cand.penalty, cand.version = 0.0, 0  # nothing selected yet: no penalty, score is exact
        elif lazy and (cand.penalty is None or cand.version != len(selected)):
            # stale upper bound: bring the penalty up to date with the results selected since
            _update_similarity(cand, selected, cand.version if cand.penalty is not None else 0)
            cand.penalty = diversity * cand.maxsim
            cand.fused = cand.quality * (1.0 - cand.penalty)
            cand.version = len(selected)
            heapq.heappush(heap, (-cand.fused, order))
            continue
        cand.examined = True
        if stopped is not None:
            cand.reason = stopped
            continue
        if not cand.item.text.strip():
            cand.reason = "empty text: nothing to put in the context"
            continue
        if cand.quality <= 0:
            cand.reason = "zero weight: every list that found it has collection weight 0"
            continue
        if remaining <= 0:
            stopped = f"budget full: {budget - remaining} of {budget} tokens used before its turn"
            cand.reason = stopped
            continue
        at_least = _min_tokens(cand, counter)
        if at_least is not None and at_least > remaining:
            cand.reason = f"does not fit: at least {at_least} tokens (one per word), {remaining} of {budget} left"
            if not config.fill_after_misfit:
                stopped = f"not tried: selection stops at the first result that does not fit ({_label(cand.item)})"
            continue
        tokens = _tokens(cand, counter)
        if tokens <= remaining:
            cand.selected = True
            selected.append(cand)
            remaining -= tokens
        else:
            cand.reason = f"does not fit: {tokens} tokens, {remaining} of {budget} left"
            if not config.fill_after_misfit:
                stopped = f"not tried: selection stops at the first result that does not fit ({_label(cand.item)})"
    return budget - remaining


def _selection_reason(cand: _Candidate, score_rank: int, total: int) -> str:
    parts = [f"#{score_rank} of {total} by fused score {cand.fused:.5f}"]
    placed = sorted(cand.ranks.items(), key=lambda pair: (-cand.contributions[pair[0]], pair[0]))
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


def order_context(results: Sequence[MergedResult], order: str) -> list[MergedResult]:
    """The final context order of the selected results (best fused score first in ``results``).

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
        groups: dict[str, list[MergedResult]] = {}
        for result in by_score:
            groups.setdefault(result.document_id or _label(result.item), []).append(result)

        def reading_order(result: MergedResult) -> tuple[int, int, int]:
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

    candidates, empty = _collect(results)
    lists = [name for name in results if name not in empty]
    weights = effective_weights(lists, config, preset)
    _score(candidates, weights, config, preset, now)
    # deterministic order whatever the mapping's order: quality, best rank, then identity
    candidates.sort(key=lambda c: (-c.quality, c.best_rank, c.item.collection, c.item.item_id))
    for order, cand in enumerate(candidates):
        cand.order = order
    if token_counter is None:
        from kg_pipelines.ingestion.tokens import default_token_counter

        token_counter = default_token_counter()
    tokens_used = _select(candidates, config, diversity, token_counter)

    # final score order: examined results by their exact fused score, the rest by their bound
    candidates.sort(key=lambda c: (-c.fused, c.best_rank, c.item.collection, c.item.item_id))
    total = len(candidates)
    merged_selected: list[MergedResult] = []
    merged_excluded: list[MergedResult] = []
    for score_rank, cand in enumerate(candidates, 1):
        if cand.selected:
            reason = _selection_reason(cand, score_rank, total)
        elif cand.examined:
            reason = cand.reason
        else:
            reason = (
                f"budget full: {tokens_used} of {config.max_context_tokens} tokens used before its turn "
                f"(score before the diversity penalty, an upper bound)"
            )
        merged = MergedResult(
            item=cand.item,
            fused_score=cand.fused,
            rrf_score=cand.rrf,
            weighted_score=cand.weighted,
            quality_multiplier=cand.multiplier,
            quality_signals=cand.signals,
            diversity_penalty=cand.penalty,
            similar_to=cand.similar_to,
            ranks=cand.ranks,
            contributions=cand.contributions,
            duplicates=cand.duplicates,
            tokens=cand.tokens,
            selected=cand.selected,
            selection_reason=reason,
            score_rank=score_rank,
        )
        (merged_selected if cand.selected else merged_excluded).append(merged)
    context_order = preset.context_order
    ordered = order_context(merged_selected, context_order)
    placed = tuple(_with_position(result, position) for position, result in enumerate(ordered, 1))
    return FusionResult(
        selected=placed,
        excluded=tuple(merged_excluded),
        strategy=choice.strategy,
        strategy_reason=choice.reason,
        tokens_used=tokens_used,
        token_budget=config.max_context_tokens,
        k=config.k,
        diversity_factor=diversity,
        collection_weights=weights,
        empty_collections=tuple(empty),
    )


def _with_position(result: MergedResult, position: int) -> MergedResult:
    from dataclasses import replace

    return replace(result, position=position)
