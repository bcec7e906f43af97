"""The HTTP API: FastAPI over the same core as the CLI, with OpenAPI docs at ``/docs``.

- ``GET /graph-search?term=&depth=&limit=``: paths out of the entity a short term names (seed 003);
- ``POST /qa``: agentic rationale QA (question, collections, strategy, token budget);
- ``GET /collections``: the knowledge collections that can be asked, with their sizes;
- ``GET /health``: liveness and the graph snapshot being served.

It never opens DuckDB (one writer per file; other processes cannot even open it read-only while
an ingestion runs): it serves from the graph snapshot each graph materialization publishes and
from LanceDB, and picks up a newer snapshot on the next request (one ``stat`` of its pointer).
The contract is exact (``models.py``): every answer has a pydantic model, and every error,
whatever its status, is ``{"detail": "<one line>"}`` (FastAPI's list-shaped 422 is replaced), listed
per operation in ``/openapi.json`` with the limits the server enforces (maxLength, maximum,
maxItems, patterns). 422: the request does not fit its types (a missing or unknown field, a wrong
type, a number out of range); 400: it fits them but is refused (over a /qa limit, a blank term or
question, an unknown or invalid collection); 503: the configured LLM cannot be used. Request values
are never pasted into SQL or LanceDB filters: search works on in-memory indexes of the snapshot
and on vectors, collections are checked against the names that exist. With an API key
(``auth.py``) every request must send ``Authorization: Bearer <key>`` and the schema says so.
"""

from __future__ import annotations

import logging
import os
from typing import Annotated, Literal

from fastapi import FastAPI, Query, Request, Security
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.security import HTTPBearer
from pydantic import Field, WithJsonSchema, create_model

from kg_pipelines.api.auth import API_KEY_ENV, BearerAuth, check_api_key
from kg_pipelines.api.models import (
    COLLECTION_NAME_PATTERN,
    STRATEGIES,
    VISIBLE,
    CollectionInfo,
    CollectionsResponse,
    ErrorResponse,
    GraphSearchResponse,
    HealthResponse,
    QARequestBase,
    QAResponse,
    SnapshotInfo,
)
from kg_pipelines.config import KGSettings, load_settings
from kg_pipelines.retrieval.graph_search import GraphSearchError, search_graph
from kg_pipelines.retrieval.rationale_qa import QAError, QAUnavailable, available_collections
from kg_pipelines.retrieval.rationale_qa import ask as answer_question
from kg_pipelines.stores.graph_snapshot import load_graph_snapshot

log = logging.getLogger(__name__)


def _one_line(exc: RequestValidationError) -> str:
    parts = []
    for error in exc.errors():
        where = ".".join(str(p) for p in error.get("loc", ()) if p not in ("query", "body"))
        parts.append(f"{where or 'request'}: {error.get('msg')}")
    return "; ".join(parts)


def _errors(*statuses: int, auth: bool) -> dict:
    """The ``responses=`` of a route: each error status it can answer, all as ErrorResponse."""
    why = {
        400: "Refused: a limit of the request exceeded, or a value the server cannot use (the detail says which)",
        401: "Missing or wrong API key (servers started with KG_API_KEY)",
        404: "No such node or edge in the graph being served",
        422: "Malformed request: a missing or unknown field, a wrong type, a value out of range",
        503: "The configured LLM cannot be used (no API key, no endpoint)",
    }
    chosen = (*statuses, 401) if auth else statuses
    responses: dict = {status: {"model": ErrorResponse, "description": why[status]} for status in sorted(chosen)}
    if auth:
        responses[401]["headers"] = {
            "WWW-Authenticate": {"description": "The Bearer challenge (RFC 6750)", "schema": {"type": "string"}}
        }
    return responses


def qa_request_model(settings: KGSettings) -> type[QARequestBase]:
    """The body of ``POST /qa`` with the settings' limits in its schema. Their bounds beyond what
    pydantic checks here (question length, collections, token budget, collection names) are
    enforced by the route and by ``validate_qa`` as 400s with a one-line reason."""
    most = settings.api
    budget = Annotated[
        int, Field(ge=1), WithJsonSchema({"type": "integer", "minimum": 1, "maximum": most.max_token_budget})
    ]
    name = Annotated[str, WithJsonSchema({"type": "string", "pattern": COLLECTION_NAME_PATTERN})]
    names = Annotated[
        list[name],
        WithJsonSchema(
            {
                "type": "array",
                "items": {"type": "string", "pattern": COLLECTION_NAME_PATTERN},
                "maxItems": most.max_collections,
            }
        ),
    ]
    return create_model(
        "QARequest",
        __base__=QARequestBase,
        question=(
            str,
            Field(
                min_length=1,
                description="The question, in any language",
                json_schema_extra={"maxLength": settings.rationale_qa.max_question_chars, "pattern": VISIBLE},
            ),
        ),
        collections=(names | None, Field(default=None, description="Collections to ask (default: every one)")),
        strategy=(
            Literal[STRATEGIES],
            Field(default="auto", description="Fusion strategy across collections (auto: from the question's wording)"),
        ),
        token_budget=(budget | None, Field(default=None, description="Tokens of context for the reasoner")),
    )


def create_app(settings: KGSettings | None = None, api_key: str | None = None) -> FastAPI:
    """The API over ``settings``' data dir; with ``api_key``, every request must send it as
    ``Authorization: Bearer <key>`` (``auth.py``) and the schema says so."""
    settings = settings or load_settings()
    rules = settings.graph_search
    auth = api_key is not None
    if auth:
        check_api_key(api_key)  # a bad key fails here, not at the first request
    app = FastAPI(
        title="kg-pipelines",
        version="1",
        description="Graph search and rationale QA over a knowledge graph built by kg-pipelines. "
        "Served from the published graph snapshot and LanceDB: it keeps answering while a pipeline writes. "
        'Every error is `{"detail": "<one line>"}`.',
        # documents the scheme; BearerAuth (below) enforces it on every request, /docs included
        dependencies=[Security(HTTPBearer(auto_error=False, description=f"The server's {API_KEY_ENV}"))]
        if auth
        else None,
    )
    if auth:
        app.add_middleware(BearerAuth, key=api_key)

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

    @app.get(
        "/health",
        summary="Liveness and the graph snapshot being served",
        response_model=HealthResponse,
        responses=_errors(auth=auth),
    )
    def health() -> HealthResponse:
        snapshot = load_graph_snapshot(settings)
        return HealthResponse(
            status="ok",
            data_dir=str(settings.data_dir),
            snapshot=None
            if snapshot is None
            else SnapshotInfo(
                version=snapshot.version,
                published_at=snapshot.published_at,
                nodes=snapshot.nodes.num_rows,
                edges=snapshot.edges.num_rows,
            ),
        )

    @app.get(
        "/collections",
        summary="Knowledge collections that can be asked",
        response_model=CollectionsResponse,
        responses=_errors(auth=auth),
    )
    def collections() -> CollectionsResponse:
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
                    CollectionInfo(
                        name=name,
                        documents=documents.get(name, 0),
                        chunks=store.count("chunks", name),
                        atomic_questions=store.count("questions", name),
                        embedding_model=settings.embedding_model_for(name),
                    )
                )
        return CollectionsResponse(collections=found)

    @app.get(
        "/graph-search",
        summary="Paths out of the entity a short term names",
        response_model=GraphSearchResponse,
        responses=_errors(400, 422, auth=auth),
    )
    def graph_search(
        term: str = Query(
            min_length=1,
            max_length=rules.max_term_chars,
            json_schema_extra={"pattern": VISIBLE},
            description="A short term: an entity name, e.g. Oleoylethanolamide",
        ),
        depth: int = Query(default=rules.default_depth, ge=1, le=rules.max_depth, description="Hops to follow"),
        limit: int = Query(default=rules.default_limit, ge=1, le=rules.max_limit, description="Paths to return"),
    ) -> dict:
        return search_graph(settings, term, depth, limit).to_dict()

    def qa(request) -> dict:
        most = settings.rationale_qa.max_question_chars
        if len(request.question) > most:
            raise QAError(f"question is {len(request.question)} characters long; at most {most} are allowed")
        if request.token_budget is not None and request.token_budget > settings.api.max_token_budget:
            raise QAError(f"token_budget: at most {settings.api.max_token_budget}, got {request.token_budget}")
        result = answer_question(
            settings, request.question, request.collections, request.strategy, request.token_budget
        )
        return result.to_dict()

    # the body's model is built from the settings here: FastAPI reads it from the annotation
    qa.__annotations__["request"] = qa_request_model(settings)
    app.post(
        "/qa",
        summary="Answer a question by agentic rationale retrieval (PIKE-RAG)",
        response_model=QAResponse,
        responses=_errors(400, 422, 503, auth=auth),
    )(qa)

    from kg_pipelines.api.explorer import add_explorer

    add_explorer(app, settings, lambda *statuses: _errors(*statuses, auth=auth))
    return app


def app_from_environment() -> FastAPI:
    """For ``uvicorn kg_pipelines.api.app:app_from_environment --factory`` (KG_DATA_DIR / KG_CONFIG).
    KG_API_KEY, when set, is required of every request; this factory cannot see uvicorn's
    ``--host``, so it cannot refuse a non-loopback host without one as ``serve`` does: set it."""
    return create_app(load_settings(), api_key=os.environ.get(API_KEY_ENV) or None)
