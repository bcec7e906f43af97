"""Phase 2, planning, per sub-graph and top-down: a MERGE / CREATE_NEW decision for every page.

- Same-type search only: a page is compared with wiki pages of its own type, nothing else.
- A root is searched for across the graph's pages of its type.
- Scoped search: a child is compared only with the children (of its type) of the page its parent
  merges into, so an Implementation under Principle_X' never merges with one under Principle_Y.
- Inherited CREATE_NEW: when every parent is created, so is the child, with no search.
- Heuristic tie-breaker (any page with several parents): the lowest parent (closest to the leaves)
  scopes the search first; with no match there, the next higher parent; else CREATE_NEW.
- "Agent decides": ``Decider`` asks the LLM client (the offline provider decides by the score
  against ``merger.merge_threshold``).

Then the execution order (bottom-up: Environment, Heuristic, Implementation, Principle, Workflow;
breadth-first order within a level) and the deferred edges (parent_id, edge_type) of each page.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

import duckdb
import numpy as np

from kg_pipelines.config import MergerSettings
from kg_pipelines.llm.client import LLMClient, LLMError
from kg_pipelines.merger.offline_decisions import merger_client
from kg_pipelines.merger.pages import EXECUTION_RANK, LEVEL, WIKI_NODE_KIND, PageBundle, WikiPage
from kg_pipelines.merger.plans import MergePlan, NodePlan, SubGraphPlan
from kg_pipelines.merger.subgraphs import SubGraph, detect_subgraphs, link_graph
from kg_pipelines.stores.node_vectors import NodeVectors, node_text


@dataclass
class GraphPage:
    node_id: str
    page_type: str
    title: str
    overview: str


class GraphPages:
    """The wiki pages of the graph and the page -> page edges between them, read once."""

    def __init__(self, pages: dict[str, GraphPage], children: dict[str, list[str]]):
        self.pages = pages
        self._children = children

    @classmethod
    def read(cls, conn: duckdb.DuckDBPyConnection) -> GraphPages:
        pages = {
            r[0]: GraphPage(r[0], r[1], r[2], r[3] or "")
            for r in conn.execute(
                "SELECT node_id, node_type, name, description FROM kg_nodes WHERE node_kind = ? ORDER BY node_id",
                [WIKI_NODE_KIND],
            ).fetchall()
        }
        children: dict[str, list[str]] = {}
        for source, target in conn.execute(
            "SELECT source_id, target_id FROM kg_edges WHERE source_id IN (SELECT node_id FROM kg_nodes WHERE "
            "node_kind = ?) ORDER BY source_id, target_id",
            [WIKI_NODE_KIND],
        ).fetchall():
            if target in pages:
                children.setdefault(source, []).append(target)
        return cls(pages, children)

    def types(self) -> dict[str, str]:
        return {n: p.page_type for n, p in self.pages.items()}

    def of_type(self, page_type: str) -> list[str]:
        return [n for n, p in self.pages.items() if p.page_type == page_type]

    def children(self, node_id: str, page_type: str) -> list[str]:
        return [c for c in self._children.get(node_id, []) if self.pages[c].page_type == page_type]


class Scorer(Protocol):
    def rank(self, page: WikiPage, page_type: str, candidates: Sequence[str] | None) -> list[tuple[str, float]]:
        """(node_id, similarity) best first, among ``candidates`` (None: every page of ``page_type``)."""


class EmbeddingScorer:
    """Cosine similarity of the page's embedding (``title. overview``, as graph nodes are embedded)
    to the graph's node vectors in LanceDB ``graph_nodes``."""

    def __init__(self, store: NodeVectors, embedder, search_k: int = 20):
        self.store = store
        self.embedder = embedder
        self.search_k = search_k
        self._cache: dict[str, np.ndarray] = {}

    def _vector(self, page: WikiPage) -> np.ndarray:
        text = node_text(page.title, page.overview)
        if text not in self._cache:
            self._cache[text] = np.asarray(self.embedder.embed([text])[0], dtype=np.float32)
        return self._cache[text]

    def rank(self, page: WikiPage, page_type: str, candidates: Sequence[str] | None) -> list[tuple[str, float]]:
        vector = self._vector(page)
        if candidates is None:
            return self.store.search(vector, self.search_k, node_type=page_type)
        found = self.store.vectors(list(candidates))
        scored = [(node_id, float(np.dot(vector, v) / (np.linalg.norm(v) or 1.0))) for node_id, v in found.items()]
        return sorted(scored, key=lambda x: (-x[1], x[0]))


@dataclass
class Choice:
    decision: str
    target_id: str | None
    score: float | None
    reason: str


class Decider:
    """MERGE or CREATE_NEW among ranked same-type candidates, through the LLM client."""

    def __init__(self, llm: LLMClient, settings: MergerSettings):
        self.llm = merger_client(llm)
        self.settings = settings
        self.offline = llm.provider.name == "offline"

    def decide(
        self, conversation_id: str, page: WikiPage, ranked: list[tuple[str, float]], graph: GraphPages
    ) -> Choice:
        best = ranked[0][1] if ranked else None
        floor = 0.0 if self.offline else self.settings.candidate_threshold
        offered = [(n, s) for n, s in ranked if s >= floor][: self.settings.max_candidates]
        if not ranked:
            return Choice("CREATE_NEW", None, None, f"no {page.page_type} page in scope to compare with")
        if not offered:
            return Choice("CREATE_NEW", None, best, f"no candidate reaches {floor:.2f} (merger.candidate_threshold)")
        candidates = [
            {"node_id": n, "score": round(s, 4), "title": graph.pages[n].title, "overview": graph.pages[n].overview}
            for n, s in offered
        ]
        try:
            answer = self.llm.decide_merge(conversation_id, page.to_dict(), candidates, self.settings.merge_threshold)
        except LLMError as exc:  # the plan still gets made: by the score, saying why
            n, s = offered[0]
            if s >= self.settings.merge_threshold:
                return Choice("MERGE", n, s, f"LLM failed ({exc}); similarity {s:.2f} reaches the merge threshold")
            return Choice("CREATE_NEW", None, best, f"LLM failed ({exc}); best similarity {s:.2f} is below threshold")
        if answer.decision == "MERGE":
            score = dict(offered)[answer.target_id]
            return Choice("MERGE", answer.target_id, score, answer.reason)
        return Choice("CREATE_NEW", None, best, answer.reason)


def plan_bundle(
    bundle: PageBundle, graph: GraphPages, scorer: Scorer, decider: Decider, now: datetime | None = None
) -> MergePlan:
    """Phases 1 and 2 for a validated bundle."""
    links = link_graph(bundle)
    pages = bundle.by_id()
    plan = MergePlan(bundle.bundle_id, bundle.content_hash, [], planned_at=now)
    for subgraph in detect_subgraphs(bundle):
        plan.subgraphs.append(plan_subgraph(bundle.bundle_id, subgraph, pages, links, graph, scorer, decider))
    return plan


def plan_subgraph(bundle_id, subgraph: SubGraph, pages, links, graph: GraphPages, scorer, decider) -> SubGraphPlan:
    bfs = {page_id: i for i, page_id in enumerate(subgraph.page_ids)}
    top_down = sorted(subgraph.page_ids, key=lambda p: (LEVEL[pages[p].page_type], bfs[p]))
    nodes: dict[str, NodePlan] = {}
    for page_id in top_down:
        page = pages[page_id]
        # lowest parent first (closest to the leaves), then breadth-first order
        parents = sorted(links.predecessors(page_id), key=lambda p: (-LEVEL[pages[p].page_type], bfs[p]))
        deferred = [
            {"parent_id": p, "edge_type": links.edges[p, page_id]["edge_type"], "edge_metadata": {}} for p in parents
        ]
        choice = _choose(bundle_id, page, parents, nodes, graph, scorer, decider)
        nodes[page_id] = NodePlan(
            page_id=page_id,
            page_type=page.page_type,
            page=page,
            decision=choice.decision,
            merge_target_id=choice.target_id,
            best_match_score=None if choice.score is None else round(choice.score, 4),
            parent_id=parents[0] if parents else None,
            deferred_edges=deferred,
            reason=choice.reason,
        )
    order = sorted(subgraph.page_ids, key=lambda p: (EXECUTION_RANK[pages[p].page_type], bfs[p]))
    return SubGraphPlan(subgraph.subgraph_id, subgraph.root_id, nodes, order)


def _choose(bundle_id, page, parents, nodes, graph: GraphPages, scorer: Scorer, decider: Decider) -> Choice:
    conversation = f"merge:{bundle_id}:{page.page_id}"
    if not parents:
        ranked = _same_type(scorer.rank(page, page.page_type, None), page.page_type, None, graph)
        choice = decider.decide(conversation, page, ranked, graph)
        if choice.decision == "MERGE":
            choice.reason = f"root: {choice.reason}"
        return choice
    merged_parents = [p for p in parents if nodes[p].decision == "MERGE"]
    if not merged_parents:
        return Choice("CREATE_NEW", None, None, f"inherited from parent {parents[0]} (CREATE_NEW)")
    best: float | None = None
    looked: list[str] = []
    why: list[str] = []
    for parent in merged_parents:  # lowest first; escalate upward while nothing matches
        scope = graph.children(nodes[parent].merge_target_id, page.page_type)
        looked.append(f"[{', '.join(scope)}] under {nodes[parent].merge_target_id}")
        if not scope:
            continue
        ranked = _same_type(scorer.rank(page, page.page_type, scope), page.page_type, scope, graph)
        choice = decider.decide(conversation, page, ranked, graph)
        if choice.decision == "MERGE":
            choice.reason = f"scoped search in [{', '.join(scope)}]: {choice.reason}"
            return choice
        if choice.score is not None:
            best = choice.score if best is None else max(best, choice.score)
        why.append(choice.reason)
    reason = f"no match in {'; then '.join(looked)}" + (f" ({'; '.join(why)})" if why else "")
    return Choice("CREATE_NEW", None, best, reason)


def _same_type(ranked, page_type: str, scope: Sequence[str] | None, graph: GraphPages) -> list[tuple[str, float]]:
    """The scorer's ranking kept to wiki pages of the type (and the scope): whatever a scorer returns,
    the merger never merges across types or outside the parent's scope."""
    allowed = set(scope) if scope is not None else None
    kept = [
        (n, float(s))
        for n, s in ranked
        if n in graph.pages and graph.pages[n].page_type == page_type and (allowed is None or n in allowed)
    ]
    return sorted(kept, key=lambda x: (-x[1], x[0]))
