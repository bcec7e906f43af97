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


class RunSettings(_Strict):
    pool_wait_timeout_s: float = Field(
        default=600.0,
        gt=0,
        description="How long a CLI run waits for another ingestion run that holds the duckdb pool before giving up",
    )


class ConsolidationSettings(_Strict):
    """Seed 002: prune weak edges, merge duplicate edges, topic clusters and communities, on schedules."""

    enabled: bool = Field(default=True, description="Feature flag: the schedules run consolidation only when true")
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
