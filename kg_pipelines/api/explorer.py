"""The graph explorer: ``/explore`` (a static page shipped in the package) and the small JSON
endpoints it calls under ``/explore/api/`` (a term's neighbourhood with its graph-search paths,
one node, one edge, the latest health reports). Same host, port and authentication as the API;
the page itself and its static files hold no data and are served to anyone who can reach the
server, every data request goes through the API's checks.

The drawing library is cytoscape.js (vendored in ``static/vendor/cytoscape/`` as its built file
with its licence; MIT): a maintained graph library with a layout engine that runs in the browser
without a build step, hit testing for node and edge clicks, and styles computed from data (colour
by node type, width by edge strength).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, Depends, FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field

from kg_pipelines.api.models import VISIBLE
from kg_pipelines.config import KGSettings
from kg_pipelines.retrieval.graph_explorer import (
    MAX_DEPTH,
    MAX_LIMIT,
    ExplorerError,
    chunk_snippets,
    edge_details,
    evidence,
    latest_reports,
    neighbourhood,
    node_details,
)
from kg_pipelines.retrieval.graph_search import search_graph, validate_search
from kg_pipelines.stores.graph_snapshot import load_graph_snapshot

STATIC = Path(__file__).with_name("static")
MAX_ID_CHARS = 1000
MAX_EVIDENCE_CHUNKS = 50
EMPTY = "The graph is empty: ingest documents first (kg-pipelines ingest DIR --collection NAME)."


class ExplorerNode(BaseModel):
    id: str
    name: str
    type: str
    depth: int = Field(description="Hops from the nodes the request started at")


class ExplorerEdge(BaseModel):
    id: str
    source: str
    target: str
    type: str
    strength: float
    explanation: str | None = None


class ExplorerPath(BaseModel):
    lines: list[str] = Field(description="The seed's form: `A --[description]--> B`, one hop a line")
    edge_ids: list[str]
    node_ids: list[str]
    score: float


class MatchedTerm(BaseModel):
    node_id: str
    name: str
    node_type: str
    match: str
    score: float


class Neighbourhood(BaseModel):
    matched: list[MatchedTerm] = Field(default_factory=list)
    paths: list[ExplorerPath] = Field(default_factory=list)
    nodes: list[ExplorerNode]
    edges: list[ExplorerEdge]
    more: dict[str, int] = Field(description="Per node id: neighbours left out by the node limit")
    truncated: bool
    snapshot_version: str | None = None
    message: str | None = None


class SourceChunk(BaseModel):
    chunk_id: str
    document_id: str
    collection: str
    title: str
    snippet: str


class NodeDetails(BaseModel):
    id: str
    name: str
    type: str
    kind: str | None = None
    description: str | None = None
    energy: dict | str | None = None
    merge_history: list | dict | str = Field(default_factory=list)
    support_count: int | None = None
    created_by: str | None = None
    degree: int
    sources: list[SourceChunk]


class EdgeDetails(BaseModel):
    id: str
    source: str
    target: str
    type: str
    strength: float
    explanation: str | None = None
    keywords: list[str] = Field(default_factory=list)
    support_count: int | None = None
    activation_count: int | None = None
    last_activated_at: str | None = None
    created_by: str | None = None
    protected: bool | None = None
    sources: list[SourceChunk]


class MergeRow(BaseModel):
    merge_id: str
    merged_at: str | None = None
    canonical_name: str
    duplicate_name: str
    node_type: str
    score: float | None = None
    decision: str
    origin: str | None = None
    undone_at: str | None = None


class HealthReports(BaseModel):
    consolidation: dict[str, dict] = Field(description="Per operation, the newest report (what --json prints)")
    merges: list[MergeRow] = Field(description="The newest merges of duplicate nodes")
    dagster_ui: str = Field(description="Where the Dagster UI of this data dir is expected")


def _store(settings: KGSettings):
    from kg_pipelines.stores.vectors import VectorStore, vectors_exist

    return VectorStore.for_settings(settings) if vectors_exist(settings) else None


def _path_nodes(path) -> list[str]:
    ids: list[str] = []
    for hop in path.hops:
        for node_id in (hop.source_id, hop.target_id):
            if node_id not in ids:
                ids.append(node_id)
    return ids


def _as_neighbourhood(snapshot, graph: dict, **extra) -> Neighbourhood:
    """The answer for what the core drew (``neighbourhood`` or ``evidence``) on ``snapshot``."""
    return Neighbourhood(
        nodes=[ExplorerNode(**n) for n in graph["nodes"]],
        edges=[ExplorerEdge(**e) for e in graph["edges"]],
        more=graph["more"],
        truncated=graph["truncated"],
        snapshot_version=snapshot.version,
        **extra,
    )


def _empty(message: str) -> Neighbourhood:
    return Neighbourhood(nodes=[], edges=[], more={}, truncated=False, message=message)


def _refuse_unknown_parameters(request: Request) -> None:
    """A query parameter the route does not take is a 422 (``?nodeid=`` is a typo, not a default)."""
    route = request.scope.get("route")
    known = {param.alias for param in route.dependant.query_params} if route is not None else set()
    unknown = sorted(set(request.query_params) - known)
    if unknown:
        raise RequestValidationError(
            [{"loc": ("query", name), "msg": "unknown query parameter", "type": "extra_forbidden"} for name in unknown]
        )


def explorer_router(settings: KGSettings, errors: Callable[..., dict]) -> APIRouter:
    """The page's endpoints; ``errors(*statuses)`` gives a route's documented error responses."""
    router = APIRouter(prefix="/explore/api", tags=["explorer"], dependencies=[Depends(_refuse_unknown_parameters)])
    search_rules = settings.graph_search

    def snapshot_or_none():
        return load_graph_snapshot(settings)

    def drawn(snapshot, starts, depth, limit, matched=(), paths=(), message=None) -> Neighbourhood:
        graph = neighbourhood(
            snapshot,
            starts,
            depth,
            limit,
            keep_node_ids=[n for p in paths for n in p.node_ids],
            keep_edge_ids=[e for p in paths for e in p.edge_ids],
        )
        return _as_neighbourhood(snapshot, graph, matched=list(matched), paths=list(paths), message=message)

    @router.get(
        "/neighbourhood",
        response_model=Neighbourhood,
        responses=errors(400, 422),
        summary="The neighbourhood of the nodes a term names, with its graph-search paths",
    )
    def get_neighbourhood(
        term: str = Query(min_length=1, max_length=search_rules.max_term_chars, json_schema_extra={"pattern": VISIBLE}),
        depth: int = Query(default=1, ge=1, le=MAX_DEPTH),
        limit: int = Query(default=300, ge=1, le=MAX_LIMIT),
    ) -> Neighbourhood:
        """Start at the nodes ``term`` matches (graph search's matching, with its paths); at most
        ``limit`` nodes, strongest edges first; the paths are drawn whole."""
        search_depth = min(depth + 1, search_rules.max_depth)
        validate_search(term, search_depth, 10, settings)  # a blank term is a 400, whatever the graph holds
        snapshot = snapshot_or_none()
        if snapshot is None or snapshot.empty:
            return _empty(EMPTY)
        found = search_graph(settings, term, search_depth, 10, record=False)
        paths = [
            ExplorerPath(lines=p.lines, edge_ids=p.edge_ids, node_ids=_path_nodes(p), score=p.score)
            for p in found.paths
        ]
        known = _known_ids(snapshot)  # the search may have served the previous snapshot
        starts = [m.node_id for m in found.matched[:3] if m.node_id in known]
        if not starts:
            return _empty(found.message or f"No node matches {term!r}.")
        matched = [MatchedTerm(**vars(m)) for m in found.matched]
        return drawn(snapshot, starts, depth, limit, matched, paths, found.message)

    @router.get(
        "/expand",
        response_model=Neighbourhood,
        responses=errors(404, 422),
        summary="The neighbourhood of one node (the page's 'N more')",
    )
    def get_expand(
        node_id: str = Query(min_length=1, max_length=MAX_ID_CHARS),
        depth: int = Query(default=1, ge=1, le=MAX_DEPTH),
        limit: int = Query(default=300, ge=1, le=MAX_LIMIT),
    ) -> Neighbourhood:
        snapshot = snapshot_or_none()
        if snapshot is None or snapshot.empty:
            raise ExplorerError(f"no node {node_id!r} in the graph")
        return drawn(snapshot, [node_id], depth, limit)

    @router.get("/evidence", response_model=Neighbourhood, responses=errors(400, 422), summary="What chunks hold")
    def get_evidence(
        chunk_id: Annotated[list[str], Query(min_length=1, max_length=MAX_EVIDENCE_CHUNKS)],
        limit: int = Query(default=300, ge=1, le=MAX_LIMIT),
    ) -> Neighbourhood:
        """The named nodes and edges the given chunks support (an answer's sources), to highlight."""
        snapshot = snapshot_or_none()
        if snapshot is None or snapshot.empty:
            return _empty(EMPTY)
        if any(len(c) > MAX_ID_CHARS for c in chunk_id):
            raise ExplorerError(f"a chunk id is at most {MAX_ID_CHARS} characters")
        return _as_neighbourhood(snapshot, evidence(snapshot, chunk_id, limit))

    @router.get("/node", response_model=NodeDetails, responses=errors(404, 422), summary="One node and its sources")
    def get_node(node_id: str = Query(min_length=1, max_length=MAX_ID_CHARS)) -> NodeDetails:
        snapshot = snapshot_or_none()
        if snapshot is None:
            raise ExplorerError(f"no node {node_id!r} in the graph")
        store = _store(settings)
        return NodeDetails(
            **node_details(snapshot, node_id, lambda wanted, focus: chunk_snippets(store, wanted, focus))
        )

    @router.get("/edge", response_model=EdgeDetails, responses=errors(404, 422), summary="One edge and its sources")
    def get_edge(edge_id: str = Query(min_length=1, max_length=MAX_ID_CHARS)) -> EdgeDetails:
        snapshot = snapshot_or_none()
        if snapshot is None:
            raise ExplorerError(f"no edge {edge_id!r} in the graph")
        store = _store(settings)
        return EdgeDetails(
            **edge_details(snapshot, edge_id, lambda wanted, focus: chunk_snippets(store, wanted, focus))
        )

    @router.get(
        "/health",
        response_model=HealthReports,
        responses=errors(),
        summary="The latest consolidation and dedup reports",
    )
    def get_health() -> HealthReports:
        snapshot = snapshot_or_none()
        merges = []
        if snapshot is not None and snapshot.merges.num_rows:
            for row in snapshot.merges.to_pylist():
                row = {k: (v.isoformat() if hasattr(v, "isoformat") else v) for k, v in row.items()}
                merges.append(MergeRow(**row))
        reports = latest_reports(settings.data_dir)
        return HealthReports(
            consolidation=reports["consolidation"], merges=merges, dagster_ui=settings.api.dagster_ui_url
        )

    return router


def _known_ids(snapshot):
    from kg_pipelines.retrieval.graph_search import search_index

    return search_index(snapshot).position


def add_explorer(app: FastAPI, settings: KGSettings, errors: Callable[..., dict]) -> None:
    """Mount the page, its static files and its endpoints on ``app`` (``errors``: see explorer_router)."""

    @app.exception_handler(ExplorerError)
    async def _explorer_error(_request, exc: ExplorerError) -> JSONResponse:
        status = 404 if str(exc).startswith("no ") else 400
        return JSONResponse(status_code=status, content={"detail": str(exc)})

    @app.get("/explore", include_in_schema=False)
    def explore_page() -> FileResponse:
        return FileResponse(STATIC / "explore.html", media_type="text/html")

    app.mount("/explore/static", StaticFiles(directory=STATIC), name="explore-static")
    app.include_router(explorer_router(settings, errors))
