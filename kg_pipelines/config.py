"""Settings: one pydantic model, loaded from an optional YAML file, with a few env overrides.

Where a graph lives is decided by its data dir: ``--data-dir`` on the CLI, else ``KG_DATA_DIR``,
else ``./data``. Every store (DuckDB file, LanceDB folder, Dagster home, source registry) sits
under it, so several graphs can live side by side. Behaviour is configured in ``kg.yaml`` inside
the data dir (or the file named by ``--config`` / ``KG_CONFIG``); secrets stay in the environment.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, field_validator

from kg_pipelines.collections import validate_collection_name
from kg_pipelines.entity_types import BASE_ENTITY_TYPES, resolve_entity_types

DEFAULT_EMBEDDING_MODEL = "all-MiniLM-L6-v2"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class LLMSettings(_Strict):
    provider: Literal["offline", "openai"] = "offline"
    model: str = "gpt-5-mini"
    base_url: str | None = Field(default=None, description="Any OpenAI-compatible endpoint (vLLM, Ollama, ...)")
    api_key_env: str = Field(default="OPENAI_API_KEY", description="Environment variable that holds the key")
    timeout_s: float = Field(default=60.0, gt=0)


class ChunkJobSettings(_Strict):
    """The seed's job queue: a worker pool per document, per-chunk retries with backoff."""

    workers: int = Field(default=4, ge=1, le=64)
    max_chunk_retries: int = Field(default=3, ge=0, le=20, description="Retries after the first attempt")
    backoff_base_s: float = Field(default=1.0, ge=0)
    backoff_max_s: float = Field(default=30.0, ge=0)
    commit_every: int = Field(default=256, ge=1, description="Chunks written per transaction (a crash loses one batch)")
    embed_every: int = Field(
        default=4096,
        ge=1,
        description="New chunks embedded per call, over commit batches (a crash loses that embedding only)",
    )
    max_retry_rounds: int = Field(
        default=8,
        ge=1,
        le=100,
        description="Runs that may retry a failed chunk before it is quarantined (`kg-pipelines retry` re-queues)",
    )
    round_delay_s: float = Field(default=60.0, ge=0, description="Wait before the first retry round; doubles per round")
    round_delay_max_s: float = Field(default=3600.0, ge=0, description="Longest wait between two retry rounds")

    def round_delay(self, rounds: int) -> float:
        """Seconds to wait after the ``rounds``-th failed round (1-based): doubling, capped."""
        return min(self.round_delay_max_s, self.round_delay_s * 2 ** max(0, rounds - 1))


class CollectionSettings(_Strict):
    embedding_model: str = Field(
        default=DEFAULT_EMBEDDING_MODEL,
        description="'all-MiniLM-L6-v2' (packaged, offline), a sentence-transformers name or path, "
        "or 'openai:<model>' for OpenAI embeddings",
    )


class SensorSettings(_Strict):
    max_files_per_tick: int = Field(default=200, ge=1)
    max_queued_runs: int = Field(default=5, ge=1, description="Capacity guard: skip while this many runs wait")
    minimum_interval_s: int = Field(
        default=10,
        ge=1,
        le=86400,
        description="Seconds between two evaluations of each sensor (seed 003's scheduler polls every 10 s); "
        "read when the code location loads (restart `make dev` after a change)",
    )


class RunSettings(_Strict):
    pool_wait_timeout_s: float = Field(
        default=600.0,
        gt=0,
        description="How long a CLI run waits for another ingestion run that holds the duckdb pool before giving up",
    )


class MergerSettings(_Strict):
    """The knowledge merger (seed 000): when a proposed page merges into an existing one."""

    merge_threshold: float = Field(
        default=0.75,
        ge=0,
        le=1,
        description="Offline provider: a page merges into its best same-type match in scope at this "
        "similarity or above, else it is created",
    )
    candidate_threshold: float = Field(
        default=0.5,
        ge=0,
        le=1,
        description="LLM provider: only matches at this similarity or above are offered to the LLM as candidates",
    )
    max_candidates: int = Field(default=5, ge=1, le=50, description="Matches offered per decision")
    max_retries: int = Field(
        default=3, ge=1, le=10, description="Executions of a sub-graph whose audit fails before it is marked FAILED"
    )
    key_content_min_share: float = Field(
        default=0.6,
        ge=0,
        le=1,
        description="Audit of a merged page: share of the proposed page's content words the merged page must hold",
    )


class QualitySignalSettings(_Strict):
    """Seed 004's quality signals: multipliers on a result's fused score (1.0 switches one off)."""

    optimal_min_chars: int = Field(default=200, ge=0, description="Medium-sized text starts here (characters)")
    optimal_max_chars: int = Field(default=1000, ge=0, description="Medium-sized text ends here (characters)")
    optimal_length_boost: float = Field(default=1.1, gt=0, description="Multiplier for medium-sized text")
    short_below_chars: int = Field(default=100, ge=0, description="Text shorter than this is too short")
    short_penalty: float = Field(default=0.8, gt=0, description="Multiplier for too short text")
    long_above_chars: int = Field(default=2000, ge=0, description="Text longer than this is too long")
    long_penalty: float = Field(default=0.9, gt=0, description="Multiplier for too long text")
    scale_length_bands: bool = Field(
        default=True,
        description="Scale the four character bands above to the configured chunk size (chunk_tokens): "
        "x (chunk_tokens x chars_per_token) / band_chunk_chars. false: the seed's bands as written",
    )
    band_chunk_chars: int = Field(
        default=1000,
        gt=0,
        description="Characters of the full chunk the bands are written for: seed 004's medium band "
        "(200-1000) ends at a full chunk. A chunk size of this many characters keeps the seed's bands exactly",
    )
    chars_per_token: float = Field(
        default=5.0,
        gt=0,
        description="Characters a chunker token spans at most on prose, so chunk_tokens x this is a full "
        "chunk's length (MiniLM WordPiece on the sample corpus: 4.0-4.75 in full 1000-token chunks, "
        "up to 5.0 in short tail chunks)",
    )
    title_boost: float = Field(default=1.05, gt=0, description="Multiplier when the result has a title")
    structured_file_types: list[str] = Field(
        default_factory=lambda: ["pdf"], description="metadata file_type values counted as structured documents"
    )
    structured_file_boost: float = Field(default=1.02, gt=0, description="Multiplier for structured documents")
    recent_days: float = Field(default=30.0, ge=0, description="metadata created_at younger than this is recent")
    recency_boost: float = Field(default=1.03, gt=0, description="Multiplier for recent results")


class StrategyPreset(_Strict):
    """What one query-aware strategy changes (seed 004, QueryAwareMerger)."""

    diversity_factor: float = Field(default=0.1, ge=0, le=1, description="Weight of the diversity penalty")
    authority_name_weights: dict[str, float] = Field(
        default_factory=dict,
        description="Collection weight multipliers by a word in the collection name (e.g. official: 1.3)",
    )
    recency_boost: float | None = Field(default=None, gt=0, description="Replaces quality.recency_boost if set")
    step_boost: float = Field(default=1.0, gt=0, description="Multiplier for step-by-step text (numbered steps)")
    context_order: Literal["primacy_recency", "score", "document"] = Field(
        default="primacy_recency",
        description="primacy_recency: best first, second best last; score: best first; "
        "document: grouped by document, in reading order",
    )


def _default_strategy_presets() -> dict[str, StrategyPreset]:
    return {
        "general": StrategyPreset(diversity_factor=0.1),
        "factual": StrategyPreset(
            diversity_factor=0.05, authority_name_weights={"official": 1.3, "wiki": 1.1}, recency_boost=1.06
        ),
        "analytical": StrategyPreset(diversity_factor=0.2),
        "procedural": StrategyPreset(diversity_factor=0.1, step_boost=1.15, context_order="document"),
    }


class FusionSettings(_Strict):
    """Merging ranked results across knowledge collections (seed 004, enhanced reciprocal rank fusion)."""

    k: float = Field(default=60.0, gt=0, description="RRF constant: a result at rank r adds weight / (k + r)")
    collection_weights: dict[str, float] = Field(
        default_factory=dict, description="Weight per collection (default 1.0); 0 silences a collection"
    )
    max_context_tokens: int = Field(default=4000, ge=0, le=1_000_000, description="Token budget of the context")
    strategy: Literal["auto", "general", "factual", "analytical", "procedural"] = Field(
        default="auto", description="auto: chosen by the query classifier from the question's wording"
    )
    diversity_factor: float | None = Field(
        default=None, ge=0, le=1, description="Overrides the strategy's diversity factor when set"
    )
    diversity_against: Literal["selected", "ranked_above"] = Field(
        default="selected",
        description="selected: penalise similarity to results already in the context; "
        "ranked_above: to every result ranked above (the seed's code)",
    )
    fill_after_misfit: bool = Field(
        default=True,
        description="Keep filling the budget with smaller results after one does not fit (false: stop there)",
    )
    quality: QualitySignalSettings = Field(default_factory=QualitySignalSettings)
    strategies: dict[str, StrategyPreset] = Field(default_factory=_default_strategy_presets)

    @field_validator("collection_weights")
    @classmethod
    def _non_negative_weights(cls, value: dict[str, float]) -> dict[str, float]:
        for name, weight in value.items():
            if not weight >= 0:
                raise ValueError(f"collection weight for {name!r} must be >= 0, got {weight}")
        return value

    @field_validator("strategies")
    @classmethod
    def _all_strategies(cls, value: dict[str, StrategyPreset]) -> dict[str, StrategyPreset]:
        defaults = _default_strategy_presets()
        unknown = set(value) - set(defaults)
        if unknown:
            raise ValueError(f"unknown strategies {sorted(unknown)}; known: {sorted(defaults)}")
        return {**defaults, **value}


class GraphSearchSettings(_Strict):
    """Graph search from a short term (seed 003, "short terms revealing paths")."""

    default_depth: int = Field(default=2, ge=1, le=4, description="Hops followed when the request names none")
    max_depth: int = Field(default=4, ge=1, le=6, description="Deepest search a request may ask for")
    default_limit: int = Field(default=10, ge=1, le=100, description="Paths returned when the request names none")
    max_limit: int = Field(default=100, ge=1, le=1000, description="Most paths a request may ask for")
    max_term_chars: int = Field(default=200, ge=1, le=2000, description="Longer terms are refused")
    fanout: int = Field(default=32, ge=1, le=1000, description="Strongest edges followed out of each node per hop")
    beam: int = Field(default=256, ge=1, le=100000, description="Partial paths kept per depth (best first)")
    fuzzy_min_score: float = Field(
        default=88.0,
        ge=0,
        le=100,
        description="rapidfuzz score a name (WRatio, ratio) or a word of a name (ratio) needs when no name "
        "matches exactly",
    )
    fuzzy_min_word_chars: int = Field(
        default=4,
        ge=1,
        le=50,
        description="A word of the term shorter than this matches a word of a name only exactly (no fuzzy), "
        "so a short term does not match every name holding a similar short word",
    )
    vector_min_similarity: float = Field(
        default=0.55, ge=-1, le=1, description="Cosine similarity a node vector needs when no name matches"
    )
    max_start_nodes: int = Field(default=3, ge=1, le=50, description="Matched nodes the paths may start from")
    continuity_weight: float = Field(
        default=1.0,
        ge=0,
        le=10,
        description="A path of several hops counts x (1 + this x continuity), continuity being the mean cosine "
        "similarity of consecutive hops' sentences (node_embedding_model); 0 switches it off",
    )
    continuity_candidates: int = Field(
        default=32,
        ge=1,
        le=10000,
        description="Best paths (before continuity) whose continuity is scored: their sentences are embedded "
        "once per snapshot version (24-27 sentences for a term of the demo corpus)",
    )
    reload_wait_s: float = Field(
        default=1.0,
        ge=0,
        le=60,
        description="How long a search waits for a newer snapshot's index before the previous snapshot answers",
    )


class RationaleQASettings(_Strict):
    """Agentic rationale QA (seed 003, after PIKE-RAG): the decomposer loop, then the reasoner."""

    max_iterations: int = Field(default=5, ge=1, le=20, description="Decomposer rounds at most")
    sub_questions: int = Field(default=3, ge=1, le=10, description="Sub-questions the decomposer proposes per round")
    min_similarity: float = Field(
        default=0.45, ge=-1, le=1, description="An atomic question matched below this cosine similarity stops the loop"
    )
    candidates_per_sub_question: int = Field(
        default=5, ge=1, le=100, description="Atomic questions fetched per sub-question and collection"
    )
    max_question_chars: int = Field(default=2000, ge=1, le=20000, description="Longer questions are refused")
    max_answer_sentences: int = Field(default=4, ge=1, le=20, description="Sentences of an offline extractive answer")


class ActivationSettings(_Strict):
    """Usage feeds the graph: edges used by a search path or an answer are reinforced."""

    enabled: bool = Field(default=True, description="Queue the edges searches and answers use")
    reinforcement: float = Field(
        default=0.05, ge=0, le=1, description="strength <- 1 - (1 - strength) * (1 - reinforcement) per use"
    )
    batch: int = Field(default=5000, ge=1, description="Queued activations applied per transaction")


class APISettings(_Strict):
    """The HTTP API (``kg-pipelines serve``)."""

    host: str = Field(default="127.0.0.1", description="Loopback by default")
    port: int = Field(default=8000, ge=1, le=65535)
    max_token_budget: int = Field(default=32000, ge=1, description="Largest token budget a /qa request may ask for")
    max_collections: int = Field(default=20, ge=1, description="Most collections one /qa request may name")
    dagster_ui_url: str = Field(
        default="http://127.0.0.1:3000", description="The Dagster UI of this data dir (the explorer links to it)"
    )


class RetrievalSettings(_Strict):
    """Chunk retrieval for a question (`kg-pipelines retrieve`, retrieval_quality): BM25 and vector
    ranks per collection, and the graph walk from the names the question mentions."""

    variant: Literal[
        "bm25", "vector", "hybrid", "graph", "graph_first", "hybrid_graph_rrf", "graph_seeded", "graph_seeded_rrf"
    ] = Field(
        default="graph_seeded",
        description="How chunks are ranked: bm25 / vector alone, hybrid (their RRF), graph (walk from the "
        "linked names), graph_first (the walk's order, then the hybrid's for what it did not reach), "
        "hybrid_graph_rrf (RRF of the three), graph_seeded (walk restarting at the linked "
        "names and at the hybrid's best passages, HippoRAG 2 style), graph_seeded_rrf (RRF of hybrid and "
        "graph_seeded). README 'Retrieval' has the measured figures of each",
    )
    candidates: int = Field(default=50, ge=1, le=1000, description="Chunks each ranking returns per collection")
    seed_passages: int = Field(
        default=10, ge=0, le=200, description="Best hybrid passages that seed the graph walk (graph_seeded*)"
    )
    passage_seed_weight: float = Field(
        default=0.05,
        ge=0,
        le=10,
        description="Restart weight of the best hybrid passage in graph_seeded* (the k-th: this / k), next to 1 "
        "for a name linked exactly to a single passage (HippoRAG 2's passage node weight: 0.05)",
    )
    damping: float = Field(
        default=0.7,
        gt=0,
        lt=1,
        description="Probability of following an edge rather than restarting (HippoRAG: 0.5; 0.7 chosen on "
        "questions 50-99 of the benchmark sets, docs/retrieval.md 'Seeds and the walk')",
    )
    text_title_passages: int = Field(
        default=3,
        ge=0,
        le=50,
        description="graph_seeded*: the walk runs again also from the titles named in the text of its best "
        "this-many passages (0: off); docs/retrieval.md 'Seeds and the walk'",
    )
    relation_hop_passages: int = Field(
        default=3,
        ge=0,
        le=50,
        description="graph_seeded*: the bridges of the second hop are the entities the first walk's best "
        "this-many passages mention (0: no relation hop); docs/retrieval.md 'The relation's hop'",
    )
    relation_hop_seeds: int = Field(
        default=3,
        ge=0,
        le=50,
        description="graph_seeded*: the bridges' passages that best match the question's relation words seed "
        "the second walk, at most this many (the r-th weighing passage_seed_weight / r)",
    )
    fuzzy_cutoff: float = Field(
        default=90.0, ge=0, le=100, description="rapidfuzz ratio a question's name needs to link to a node name"
    )
    link_by_vector: bool = Field(default=True, description="Also link the question to its nearest node vectors")
    vector_links: int = Field(default=3, ge=0, le=50, description="Nearest entity / title nodes linked by vector")
    vector_link_min_similarity: float = Field(
        default=0.5, ge=-1, le=1, description="Cosine similarity a node vector needs to be linked"
    )
    max_question_chars: int = Field(
        default=2000, ge=1, le=100_000, description="Longer questions are refused with a clear message"
    )
    eval_dir: Path | None = Field(
        default=None,
        description="Folder of the labelled question files <collection>.jsonl (default <data_dir>/eval)",
    )
    quality_k: list[int] = Field(
        default_factory=lambda: [2, 5, 8],
        description="Cut-offs of recall@k and all-gold@k in retrieval_quality",
    )
    quality_tolerance: float = Field(
        default=0.02,
        ge=0,
        le=1,
        description="retrieval_quality check warns when recall@5 falls more than this below the accepted figure",
    )


class ConsolidationSettings(_Strict):
    """Seed 002: prune weak edges, merge duplicate edges, topic clusters and communities, on schedules."""

    enabled: bool = Field(
        default=True,
        description="Feature flag (seed 002 section 5.2): the four graph-health schedules (prune, merge-edges, "
        "summarize, weekly dedup) request runs only when true; otherwise each tick is skipped with this reason",
    )
    min_edges: int = Field(default=50, ge=0, description="Schedules skip while the graph has fewer edges")
    min_graph_age_days: float = Field(
        default=14.0, ge=0, description="Schedules skip while the graph's first edge is younger than this"
    )
    prune_threshold: float = Field(default=0.05, ge=0, le=1, description="An edge weaker than this may be pruned")
    min_inactive_days: float = Field(
        default=7.0, ge=0, description="Days since last activity (activated, else reinforced, else created)"
    )
    decay_half_life_days: float = Field(
        default=30.0,
        ge=0,
        description="Strength halves per this many inactive days before the threshold is applied; 0: no decay",
    )
    true_bridges: bool = Field(
        default=True,
        description="Also keep every edge whose removal would disconnect a component (beyond the seed's rule)",
    )
    structural_edge_types: list[str] = Field(
        default_factory=lambda: ["MENTIONS", "ANSWERS_IN", "TITLE_OF", "NAMES"],
        description="Edges derived from a document's own rows (chunk -> entity, question -> chunk, title -> "
        "chunk, title -> entity): prune and merge-edges never touch them; they go when their document goes. "
        "Retrieval walks them",
    )
    cluster_min_size: int = Field(default=3, ge=1, description="Nodes a topic cluster needs")
    community_min_size: int = Field(default=3, ge=1, description="Nodes a stored community needs")
    community_resolution: float = Field(default=1.0, gt=0, description="Louvain resolution (higher: smaller)")
    summarize_anchor_date: str = Field(
        default="2026-01-05", description="Monday the every-14-days summarize schedule counts its weeks from"
    )
    summarize_every_weeks: int = Field(default=2, ge=1, description="Summarize runs on every n-th week")


class DedupSettings(_Strict):
    """Duplicate nodes (seed 001): the score, the cascade, the merge strategy, the weekly pass."""

    threshold: float = Field(default=0.95, ge=0, le=1, description="Seed score at or above which two nodes merge")
    grey_zone_low: float = Field(
        default=0.85,
        ge=0,
        le=1,
        description="Pairs scoring in [grey_zone_low, threshold) go to the LLM (provider other than offline) "
        "or to the decisions file for a person to confirm or reject",
    )
    neighbours: int = Field(
        default=10, ge=1, le=200, description="k nearest nodes (same type) asked of LanceDB per node"
    )
    node_kinds: list[str] = Field(
        default_factory=lambda: ["entity", "imported"],
        description="Node kinds compared for duplicates: nodes that name things. Never title nodes (one per "
        "document title: merging two would merge two documents' titles) nor wiki_page nodes (the knowledge "
        "merger owns them)",
    )
    strategy: Literal["prefer_older", "prefer_higher_weight", "prefer_more_links"] = Field(
        default="prefer_older", description="Which node of a pair stays (the canonical node)"
    )
    formation_time: bool = Field(
        default=True, description="An existing same-type node at or above the threshold absorbs a new entity node"
    )
    index_min_rows: int = Field(
        default=20000, ge=256, description="From this many node vectors on, LanceDB gets an ANN index (below: exact)"
    )
    never_merge_file: str = Field(
        default="never_merge.txt", description="Pairs of names never merged, one `name | name` a line (in the data dir)"
    )
    decisions_file: str = Field(
        default="dedup_decisions.csv",
        description="Grey-zone pairs for a person: decision `same` or `distinct` (in the data dir)",
    )


class VectorStoreSettings(_Strict):
    """Where LanceDB keeps the chunk, question and node vectors."""

    uri: str | None = Field(
        default=None,
        description="LanceDB location: a folder, or object storage (s3://bucket/prefix); default <data-dir>/lancedb",
    )
    storage_options: dict[str, str] = Field(
        default_factory=dict,
        description="Passed to lancedb.connect for object storage, e.g. aws_endpoint (an S3-compatible server), "
        "aws_region, allow_http; credentials come from the usual AWS_* environment variables",
    )


class KGSettings(_Strict):
    data_dir: Path
    inbox_dir: Path | None = Field(default=None, description="Defaults to <data_dir>/inbox")
    chunk_tokens: int = Field(default=1000, ge=32, le=32000)
    entity_types: list[str] = Field(default_factory=lambda: list(BASE_ENTITY_TYPES))
    longevity_extension: bool = False
    questions_min: int = Field(default=5, ge=1)
    questions_max: int = Field(default=10, ge=1)
    max_document_mb: float = Field(default=10.0, gt=0, description="Larger files fail with a clear error")
    llm: LLMSettings = Field(default_factory=LLMSettings)
    chunk_jobs: ChunkJobSettings = Field(default_factory=ChunkJobSettings)
    sensor: SensorSettings = Field(default_factory=SensorSettings)
    runs: RunSettings = Field(default_factory=RunSettings)
    collections: dict[str, CollectionSettings] = Field(default_factory=dict)
    node_embedding_model: str = Field(
        default=DEFAULT_EMBEDDING_MODEL,
        description="Embeds the graph's named nodes (LanceDB table graph_nodes), across collections",
    )
    vectors: VectorStoreSettings = Field(default_factory=VectorStoreSettings, description="The LanceDB store")
    merger: MergerSettings = Field(default_factory=MergerSettings)
    fusion: FusionSettings = Field(
        default_factory=FusionSettings, description="Fusion of ranked results across collections (seed 004)"
    )

    graph_search: GraphSearchSettings = Field(default_factory=GraphSearchSettings, description="Graph search")
    rationale_qa: RationaleQASettings = Field(default_factory=RationaleQASettings, description="Rationale QA")
    activations: ActivationSettings = Field(default_factory=ActivationSettings, description="Usage feeds the graph")
    api: APISettings = Field(default_factory=APISettings, description="The HTTP API")
    retrieval: RetrievalSettings = Field(
        default_factory=RetrievalSettings, description="Chunk retrieval: text, vector and graph ranks"
    )
    dedup: DedupSettings = Field(default_factory=DedupSettings)
    consolidation: ConsolidationSettings = Field(default_factory=ConsolidationSettings)

    @field_validator("data_dir", "inbox_dir")
    @classmethod
    def _absolute(cls, value: Path | None) -> Path | None:
        return None if value is None else Path(value).expanduser().resolve()

    @field_validator("collections")
    @classmethod
    def _collection_names(cls, value: dict[str, CollectionSettings]) -> dict[str, CollectionSettings]:
        for name in value:
            validate_collection_name(name)
        return value

    # -- derived locations -------------------------------------------------------------------
    @property
    def inbox(self) -> Path:
        return self.inbox_dir or self.data_dir / "inbox"

    @property
    def warehouse_path(self) -> Path:
        return self.data_dir / "warehouse.duckdb"

    @property
    def lancedb_dir(self) -> Path:
        return self.data_dir / "lancedb"

    @property
    def vectors_location(self) -> str:
        """The LanceDB URI: ``vectors.uri`` (a folder or ``s3://...``), else ``<data-dir>/lancedb``."""
        return self.vectors.uri or str(self.lancedb_dir)

    @property
    def dagster_home(self) -> Path:
        return self.data_dir / "dagster_home"

    @property
    def source_registry_path(self) -> Path:
        return self.data_dir / "sources.sqlite"

    @property
    def resolved_entity_types(self) -> tuple[str, ...]:
        return resolve_entity_types(self.entity_types, self.longevity_extension)

    def embedding_model_for(self, collection: str) -> str:
        found = self.collections.get(collection)
        return found.embedding_model if found else DEFAULT_EMBEDDING_MODEL


def default_data_dir() -> Path:
    return Path(os.environ.get("KG_DATA_DIR") or Path.cwd() / "data").expanduser().resolve()


def load_settings(data_dir: str | Path | None = None, config_path: str | Path | None = None) -> KGSettings:
    """Settings for one graph: file values first, then env overrides, then the data dir."""
    root = Path(data_dir).expanduser().resolve() if data_dir else default_data_dir()
    path = (
        Path(config_path)
        if config_path
        else Path(os.environ["KG_CONFIG"])
        if os.environ.get("KG_CONFIG")
        else root / "kg.yaml"
    )
    values: dict = {}
    if path.exists():
        try:
            loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
        except yaml.YAMLError as exc:
            raise ValueError(f"{path}: not valid YAML: {exc}") from exc
        if loaded is not None and not isinstance(loaded, dict):
            raise ValueError(f"{path}: expected a mapping of settings, got {type(loaded).__name__}")
        values = loaded or {}
    elif config_path:
        raise FileNotFoundError(f"config file not found: {path}")
    if os.environ.get("KG_INBOX_DIR"):
        values["inbox_dir"] = os.environ["KG_INBOX_DIR"]
    if os.environ.get("KG_LLM_PROVIDER"):
        values.setdefault("llm", {})["provider"] = os.environ["KG_LLM_PROVIDER"]
    values["data_dir"] = root
    return KGSettings.model_validate(values)
