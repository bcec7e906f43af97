"""Ranking chunks by the graph: personalized PageRank from the nodes a question names.

The graph read here is the published snapshot (``stores/graph_snapshot.py``), never DuckDB, so
retrieval works while ingestion writes. Of it, the passage graph is kept:

- chunk nodes, entity nodes and title nodes;
- MENTIONS (chunk - entity), RELATED (entity - entity, weighted by the edge's strength),
  TITLE_OF (title - chunk) and NAMES (title - entity), all walked both ways, plus a shortcut from
  an entity to the passages titled by its name (NAMES then TITLE_OF), so the passage about a name
  is as near to it as a passage that mentions it.

Atomic questions (ANSWERS_IN) are left out: they repeat their chunk's words and would only add a
detour. The walk is the random walk with restart of HippoRAG (Gutiérrez et al., 2024): from the
seed distribution, follow an edge with probability ``damping``, jump back to the seeds otherwise;
the stationary probability of each chunk node ranks it. A passage two hops away (question ->
entity -> passage that mentions it -> entity it names -> title -> the passage about that name)
receives mass that no text ranking gives it. Power iteration on a scipy sparse matrix: on a graph
of a few hundred thousand edges, a few milliseconds per question.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from scipy import sparse

WALKED_EDGES = ("MENTIONS", "RELATED", "TITLE_OF", "NAMES")
WALKED_KINDS = ("entity", "title", "chunk")


@dataclass
class PassageGraph:
    """The passage graph of one snapshot, as arrays (built once per snapshot version)."""

    node_ids: list[str]
    names: list[str]
    kinds: list[str]
    position: dict[str, int]
    transition: sparse.csr_matrix  # column-stochastic: column j spreads node j's mass to its neighbours
    chunk_positions: np.ndarray  # positions of chunk nodes
    chunk_ids: list[str]  # chunk id of each entry of chunk_positions
    chunk_count: np.ndarray  # per node: the chunks it touches (its specificity is 1 / this)

    @property
    def empty(self) -> bool:
        return len(self.node_ids) == 0


def build_passage_graph(nodes: pa.Table, edges: pa.Table) -> PassageGraph:
    """The passage graph of ``nodes`` (node_id, node_kind, name) and ``edges`` (source_id,
    target_id, edge_type, strength), as published in the snapshot."""
    nodes = nodes.filter(pc.is_in(nodes.column("node_kind"), pa.array(WALKED_KINDS)))
    node_ids = nodes.column("node_id").to_pylist()
    kinds = nodes.column("node_kind").to_pylist()
    names = nodes.column("name").to_pylist()
    position = {n: i for i, n in enumerate(node_ids)}
    edges = edges.filter(pc.is_in(edges.column("edge_type"), pa.array(WALKED_EDGES)))
    rows, cols, weights = [], [], []
    titled: dict[int, list[int]] = {}  # title -> its chunks
    named: list[tuple[int, int]] = []  # (title, entity)

    def link(a: int, b: int, weight: float) -> None:
        rows.extend((a, b))
        cols.extend((b, a))
        weights.extend((weight, weight))

    for source, target, edge_type, strength in zip(
        edges.column("source_id").to_pylist(),
        edges.column("target_id").to_pylist(),
        edges.column("edge_type").to_pylist(),
        edges.column("strength").to_pylist(),
    ):
        a, b = position.get(source), position.get(target)
        if a is None or b is None or a == b:
            continue
        # RELATED carries the evidence of the relation (strength); structural links count fully
        link(a, b, float(strength) if edge_type == "RELATED" else 1.0)
        if edge_type == "TITLE_OF":
            titled.setdefault(a, []).append(b)
        elif edge_type == "NAMES":
            named.append((a, b))
    # an entity is one step from the passages titled by its name, as from a passage that mentions
    # it: without this shortcut a passing mention (one hop) would outrank the passage about the
    # name (entity -> title -> passage, two hops)
    for title, entity in named:
        for chunk in titled.get(title, ()):
            link(entity, chunk, 1.0)
    n = len(node_ids)
    adjacency = sparse.csr_matrix((weights, (rows, cols)), shape=(n, n), dtype=np.float64)
    adjacency.sum_duplicates()
    out_weight = np.asarray(adjacency.sum(axis=0)).ravel()
    inverse = np.divide(1.0, out_weight, out=np.zeros_like(out_weight), where=out_weight > 0)
    transition = (adjacency @ sparse.diags(inverse)).tocsr()
    is_chunk = np.array([k == "chunk" for k in kinds], dtype=bool)
    chunk_positions = np.flatnonzero(is_chunk)
    chunk_ids = [node_ids[i].removeprefix("chunk:") for i in chunk_positions]
    # chunks touched per node: a chunk touches itself; an entity / title, the chunks linked to it
    links = (adjacency > 0).astype(np.float64).tocsr()
    chunk_count = np.asarray(links[:, is_chunk].sum(axis=1)).ravel()
    chunk_count[is_chunk] = 1.0
    return PassageGraph(node_ids, names, kinds, position, transition, chunk_positions, chunk_ids, chunk_count)


def personalized_pagerank(
    graph: PassageGraph, seeds: dict[int, float], damping: float = 0.5, iterations: int = 50, tolerance: float = 1e-7
) -> np.ndarray:
    """Stationary distribution of the walk with restart to ``seeds`` (position -> weight)."""
    n = len(graph.node_ids)
    restart = np.zeros(n)
    for position, weight in seeds.items():
        if 0 <= position < n and weight > 0:
            restart[position] += weight
    total = restart.sum()
    if n == 0 or total <= 0:
        return np.zeros(n)
    restart /= total
    rank = restart.copy()
    for _ in range(iterations):
        spread = graph.transition @ rank
        # mass on nodes without edges returns to the seeds, so the vector keeps summing to one
        updated = damping * spread + (1.0 - damping * spread.sum()) * restart
        if np.abs(updated - rank).sum() < tolerance:
            rank = updated
            break
        rank = updated
    return rank


def rank_chunks(
    graph: PassageGraph, rank: np.ndarray, k: int, allowed: set[str] | None = None
) -> list[tuple[str, float]]:
    """The ``k`` chunks of highest walk probability (of the ``allowed`` chunk ids if given)."""
    if graph.empty or not rank.any():
        return []
    scores = rank[graph.chunk_positions]
    order = np.argsort(-scores, kind="stable")
    ranked = []
    for i in order:
        if scores[i] <= 0:
            break
        chunk_id = graph.chunk_ids[i]
        if allowed is None or chunk_id in allowed:
            ranked.append((chunk_id, float(scores[i])))
            if len(ranked) == k:
                break
    return ranked
