"""The HTTP API's contract: one pydantic model per request and response body.

FastAPI turns these into ``/openapi.json``, and the routes return them, so what the schema says is
what the server sends: a client generated from the schema parses every answer, errors included.

- Every error is an :class:`ErrorResponse`, ``{"detail": "<one line>"}``, whatever its status
  (400 refused, 401 unauthenticated, 404 no such path, 405 wrong method, 422 malformed, 503 the
  LLM is unusable); FastAPI's own list-shaped 422 is replaced by the app (see ``app.py``).
- The QA answer's models accept fields they do not name (``extra="allow"``): the QA loop may grow
  a field before this contract does, and a new field must not turn an answer into a 500. The
  schema says so (``additionalProperties: true``).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from kg_pipelines.collections import MAX_COLLECTION_NAME_LENGTH

STRATEGIES = ("auto", "general", "factual", "analytical", "procedural")
# the collection name rule of kg_pipelines/collections.py, as a JSON-Schema pattern (ECMA regex: "$"
# is the end of the string there)
COLLECTION_NAME_PATTERN = rf"^[A-Za-z0-9][A-Za-z0-9_]{{0,{MAX_COLLECTION_NAME_LENGTH - 1}}}$"
# a term or question must hold a character the server does not strip: "   " is refused (400) by the
# search and the QA. Spelled out rather than \S: a JSON-Schema (ECMA) \s lacks the information
# separators U+001C-U+001F and NEL U+0085 that Python's str.split() and str.strip() treat as space,
# so \S would call a lone U+001F valid while the server finds the term blank
VISIBLE = r"[^\s\u001c-\u001f\u0085]"


class ErrorResponse(BaseModel):
    """Every error the API answers: one line saying what is wrong and, where it helps, what is allowed."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"detail": "term: Field required"}]})
    detail: str = Field(description="What is wrong, in one line")


# -- /health -------------------------------------------------------------------------------------


class SnapshotInfo(BaseModel):
    version: str = Field(description="The graph snapshot's version (sorts by publication)")
    published_at: float = Field(description="When it was published (Unix time, seconds)")
    nodes: int = Field(ge=0)
    edges: int = Field(ge=0)


class HealthResponse(BaseModel):
    status: Literal["ok"]
    data_dir: str = Field(description="The data dir being served")
    snapshot: SnapshotInfo | None = Field(description="The snapshot being served; null before the first ingestion")


# -- /collections --------------------------------------------------------------------------------


class CollectionInfo(BaseModel):
    name: str
    documents: int = Field(ge=0, description="Documents in the served snapshot")
    chunks: int = Field(ge=0)
    atomic_questions: int = Field(ge=0)
    embedding_model: str


class CollectionsResponse(BaseModel):
    collections: list[CollectionInfo]


# -- /graph-search -------------------------------------------------------------------------------


class MatchedNode(BaseModel):
    node_id: str
    name: str
    node_type: str
    match: Literal["exact", "fuzzy", "vector"]
    score: float


class Hop(BaseModel):
    source_id: str
    source: str
    target_id: str
    target: str
    edge_id: str
    edge_type: str
    description: str
    strength: float
    direction: Literal["out", "in"] = Field(description="out: walked source to target; in: walked backwards")


class PathSource(BaseModel):
    chunk_id: str
    document_id: str
    collection: str
    title: str


class GraphPath(BaseModel):
    score: float
    hops: list[Hop]
    sources: list[PathSource] = Field(description="Chunks that support the path's edges")
    lines: list[str] = Field(description="Each hop as `Source --[description]--> Target`")


class GraphSearchResponse(BaseModel):
    term: str
    depth: int
    limit: int
    matched: list[MatchedNode] = Field(description="The entities the term named, best first")
    paths: list[GraphPath]
    snapshot_version: str | None
    message: str | None = Field(description="Why there are no paths, when there are none")


# -- /qa -----------------------------------------------------------------------------------------


class QARequestBase(BaseModel):
    """The body of ``POST /qa``; ``app.py`` adds the limits of the settings (``qa_request_model``)."""

    model_config = ConfigDict(extra="forbid")


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class AtomicMatch(_Open):
    sub_question: str
    atomic_question: str
    question_id: str
    chunk_id: str
    collection: str
    score: float = Field(description="Cosine similarity in the collection's embedding space")
    linked: list[str] = Field(default=[], description="Graph entities of the sub-question that led to this chunk")


class QARound(_Open):
    iteration: int
    sub_questions: list[str]
    matches: list[AtomicMatch]
    selected: AtomicMatch | None = None
    chunk_added: str | None = None
    stop_reason: str | None = None


class ContextChunk(_Open):
    chunk_id: str
    document_id: str
    collection: str
    title: str | None
    text: str
    via_question: str
    score: float
    round: int


class QASource(_Open):
    chunk_id: str
    document_id: str
    collection: str
    title: str | None
    via_question: str
    score: float


class Evidence(_Open):
    id: str = Field(description="Sentence id `p.s`: sentence s of passage p of the context")
    chunk_id: str
    collection: str
    text: str


class QAResponse(_Open):
    question: str
    answer: str
    supported: bool = Field(description="True only when the gathered text states what the answer claims")
    collections: list[str]
    provider: str
    rounds: list[QARound] = []
    context: list[ContextChunk] = Field(default=[], description="The chunks handed to the reasoner")
    gathered: int = Field(default=0, description="Chunks the loop gathered (the context may be cut to the budget)")
    sources: list[QASource] = []
    stop_reason: str = ""
    degraded: str | None = Field(default=None, description="What failed, when the answer had to do without the LLM")
    strategy: str | None = None
    token_budget: int | None = None
    tokens_used: int | None = None
    edge_ids: list[str] = Field(default=[], description="The ANSWERS_IN edges the answer followed")
    evidence: list[Evidence] = Field(default=[], description="The sentences the answer rests on, with their chunks")
    answer_entity: str | None = Field(default=None, description="What a supported answer names")
    bridges: list[str] = Field(default=[], description="Entities a two-hop answer went through")
