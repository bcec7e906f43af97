"""The HTTP API: FastAPI over the same core as the CLI, with OpenAPI docs at ``/docs``.

- ``GET /graph-search?term=&depth=&limit=``: paths out of the entity a short term names (seed 003);
- ``POST /qa``: agentic rationale QA (question, collections, strategy, token budget);
- ``GET /collections``: the knowledge collections that can be asked, with their sizes;
- ``GET /health``: liveness and the graph snapshot being served.

It never opens DuckDB (one writer per file; other processes cannot even open it read-only while
an ingestion runs): it serves from the graph snapshot each graph materialization publishes and
from LanceDB, and picks up a newer snapshot on the next request (one ``stat`` of its pointer).
Input is validated by pydantic with limits from the settings (term length, depth, limit, question
length, collections, token budget); a bad request gets a 4xx with a one-line ``detail`` saying what
is wrong. Request values are never pasted into SQL or LanceDB filters: search works on in-memory
indexes of the snapshot and on vectors, collections are checked against the names that exist.
"""

from __future__ import annotations

import logging
from typing import Literal

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from kg_pipelines.config import KGSettings, load_settings
from kg_pipelines.retrieval.graph_search import GraphSearchError, search_graph
from kg_pipelines.retrieval.rationale_qa import QAError, QAUnavailable, available_collections
from kg_pipelines.retrieval.rationale_qa import ask as answer_question
from kg_pipelines.stores.graph_snapshot import load_graph_snapshot

log = logging.getLogger(__name__)


class QARequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    question: str = Field(min_length=1, description="The question, in any language")
    collections: list[str] | None = Field(default=None, description="Collections to ask (default: every one)")
    strategy: Literal["auto", "general", "factual", "analytical", "procedural"] = Field(
        default="auto", description="Fusion strategy across collections (auto: from the question's wording)"
    )
    token_budget: int | None = Field(default=None, ge=1, description="Tokens of context for the reasoner")


def _one_line(exc: RequestValidationError) -> str:
    parts = []
    for error in exc.errors():
        where = ".".join(str(p) for p in error.get("loc", ()) if p not in ("query", "body"))
        parts.append(f"{where or 'request'}: {error.get('msg')}")
    return "; ".join(parts)


def create_app(settings: KGSettings | None = None) -> FastAPI:
    settings = settings or load_settings()
    rules = settings.graph_search
    app = FastAPI(
        title="kg-pipelines",
        version="1",
        description="Graph search and rationale QA over a knowledge graph built by kg-pipelines. "
        "Served from the published graph snapshot and LanceDB: it keeps answering while a pipeline writes.",
    )

    @app.exception_handler(RequestValidationError)
    async def _invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse(status_code=422, content={"detail": _one_line(exc)})

    @app.exception_handler(GraphSearchError)
    @app.exception_handler(QAError)
    async def _refused(_request: Request, exc: ValueError) -> JSONResponse:
        return JSONResponse(status_code=400, content={"detail": str(exc)})

    @app.exception_handler(QAUnavailable)
    async def _unavailable(_request: Request, exc: QAUnavailable) -> JSONResponse:
        return JSONResponse(status_code=503, content={"detail": str(exc)})

    @app.get("/health", summary="Liveness and the graph snapshot being served")
    def health() -> dict:
        snapshot = load_graph_snapshot(settings)
        return {
            "status": "ok",
            "data_dir": str(settings.data_dir),
            "snapshot": None
            if snapshot is None
            else {
                "version": snapshot.version,
                "published_at": snapshot.published_at,
                "nodes": snapshot.nodes.num_rows,
                "edges": snapshot.edges.num_rows,
            },
        }

    @app.get("/collections", summary="Knowledge collections that can be asked")
    def collections() -> dict:
        from kg_pipelines.stores.vectors import VectorStore, vectors_exist

        found = []
        if vectors_exist(settings):
            store = VectorStore.for_settings(settings)
            snapshot = load_graph_snapshot(settings)
            documents: dict[str, int] = {}
            if snapshot is not None:
                for name in snapshot.documents.column("collection").to_pylist():
                    documents[name] = documents.get(name, 0) + 1
            for name in available_collections(store):
                found.append(
                    {
                        "name": name,
                        "documents": documents.get(name, 0),
                        "chunks": store.count("chunks", name),
                        "atomic_questions": store.count("questions", name),
                        "embedding_model": settings.embedding_model_for(name),
                    }
                )
        return {"collections": found}

    @app.get("/graph-search", summary="Paths out of the entity a short term names")
    def graph_search(
        term: str = Query(
            min_length=1,
            max_length=rules.max_term_chars,
            description="A short term: an entity name, e.g. Oleoylethanolamide",
        ),
        depth: int = Query(default=rules.default_depth, ge=1, le=rules.max_depth, description="Hops to follow"),
        limit: int = Query(default=rules.default_limit, ge=1, le=rules.max_limit, description="Paths to return"),
    ) -> dict:
        return search_graph(settings, term, depth, limit).to_dict()

    @app.post("/qa", summary="Answer a question by agentic rationale retrieval (PIKE-RAG)")
    def qa(request: QARequest) -> dict:
        if request.token_budget is not None and request.token_budget > settings.api.max_token_budget:
            raise QAError(f"token_budget: at most {settings.api.max_token_budget}, got {request.token_budget}")
        result = answer_question(
            settings, request.question, request.collections, request.strategy, request.token_budget
        )
        return result.to_dict()

    from kg_pipelines.api.explorer import add_explorer

    add_explorer(app, settings)
    return app


def app_from_environment() -> FastAPI:
    """For ``uvicorn kg_pipelines.api.app:app_from_environment --factory`` (KG_DATA_DIR / KG_CONFIG)."""
    return create_app(load_settings())
