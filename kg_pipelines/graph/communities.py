"""Communities by Louvain (modularity, resolution γ), vectorised with numpy and scipy.sparse so
that graphs of millions of edges take seconds, not the minutes of a pure-Python Louvain.

It is the parallel variant of Louvain's local moving phase (as in GPU and multi-core Louvain
implementations): in each sweep, every node's best neighbouring community is computed from the
sweep's starting state with ``A @ P`` (the node x community weight matrix; block by block of rows,
so that the arrays of a block stay small, the blocks shared out among the cores), and three
quarters (at random) of the nodes that gain by moving do move: moving all at once can make
neighbours swap communities forever, and of two singletons that would swap only the one with the
larger label moves. Sweeps repeat until fewer than ``min_moved`` of the nodes move, then the
communities become the nodes of the next level (Louvain's aggregation), until a level moves
nothing. The gain of moving node i into community C is k_i,in(C) - γ Σ_tot(C) k_i / 2m (the
modularity gain times m).

On a large graph (more than ``COARSEN_ABOVE`` nodes) Louvain runs on a coarse graph: every node
first joins its strongest neighbour (one vectorised pass; the groups are the connected components
of the node -> strongest-neighbour links, the heavy-edge coarsening of multilevel partitioners;
repeated while the coarse graph is still large), then Louvain runs on the groups with at most
``LARGE_SWEEPS`` sweeps a level, and a last local moving phase on the whole graph, from the
communities found, moves the nodes that a group took into the wrong community (a node's strongest
link may leave its community).

Last, each community is split into its connected parts (``connected_parts``): Louvain, unlike
Leiden, can leave a community in pieces. Two libraries' Leiden were measured in its place
(benchmarks/README.md, "Communities: our Louvain or a library's Leiden"): connected communities
and a higher modularity, but a community step 3.5-4.6x this one's with igraph's C Leiden (2
iterations; 2.4-3.5x with 1) and 1.3-3.9x with graspologic-native's, both on one thread: 1M and
10M would miss their targets.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from scipy.sparse import coo_matrix, csr_matrix
from scipy.sparse.csgraph import connected_components

COARSEN_ABOVE = 50_000  # nodes
LARGE_SWEEPS, LARGE_MIN_MOVED = 5, 0.02
REFINE_SWEEPS = 2  # of the last local moving on the whole graph
BLOCK_ENTRIES = 1 << 20  # matrix entries per block of rows in a sweep (at most)
# a sweep's blocks run on this many threads (numpy and scipy.sparse release the GIL in their loops);
# a graph of fewer entries than SHARE_ABOVE is not split for them (threads would cost more)
WORKERS = min(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1, 8)
SHARE_ABOVE = 1 << 16


def louvain(
    n: int,
    source: np.ndarray,
    target: np.ndarray,
    weight: np.ndarray,
    resolution: float = 1.0,
    seed: int = 42,
    max_levels: int = 12,
    max_sweeps: int = 10,
    min_moved: float = 0.01,
    coarsen: bool = True,
) -> np.ndarray:
    """The community number of each of the ``n`` nodes (undirected edges ``source``-``target``);
    every community is connected (see ``connected_parts``)."""
    adjacency = _symmetric(n, source, target, weight)
    return connected_parts(adjacency, _louvain(adjacency, resolution, seed, max_levels, max_sweeps, min_moved, coarsen))


def connected_parts(adjacency: csr_matrix, membership: np.ndarray) -> np.ndarray:
    """Each community split into its connected parts (the components of its inner edges), numbered
    in the order of their first node. Louvain can leave a community in pieces (Traag et al. 2019,
    the flaw Leiden was made to fix): on the consolidation benchmark's graphs most of its
    communities were, before this split (benchmarks/README.md). Splitting never lowers modularity:
    no edge joins the parts, so the inner weight stays, and the parts' squared degree sums add up
    to less than the community's."""
    n = adjacency.shape[0]
    rows = np.repeat(np.arange(n, dtype=adjacency.indices.dtype), np.diff(adjacency.indptr))
    inner = membership[rows] == membership[adjacency.indices]
    kept = np.r_[0, np.cumsum(inner)]  # the inner entries as CSR straight away (no sorting)
    indptr = kept[adjacency.indptr].astype(adjacency.indptr.dtype, copy=False)
    links = csr_matrix((adjacency.data[inner], adjacency.indices[inner], indptr), shape=(n, n))
    _, part = connected_components(links, directed=False)
    return part.astype(np.int64, copy=False)


def _louvain(adjacency: csr_matrix, resolution, seed, max_levels, max_sweeps, min_moved, coarsen) -> np.ndarray:
    n = adjacency.shape[0]
    if coarsen and n > COARSEN_ABOVE:
        # coarsen until the graph is small (or stops shrinking), Louvain on the coarse graph, then
        # one refinement on the whole graph: nodes of a coarse group may belong elsewhere (a
        # node's strongest link can leave its community), local moving from the projected communities
        group_of, coarse = np.arange(n), adjacency
        while coarse.shape[0] > COARSEN_ABOVE:
            groups, group = _strongest_neighbour_groups(coarse)
            if groups > 0.9 * coarse.shape[0]:
                break
            group_of, coarse = group[group_of], _aggregate(coarse, group, groups)
        found = _louvain(
            coarse,
            resolution,
            seed,
            max_levels,
            min(max_sweeps, LARGE_SWEEPS),
            max(min_moved, LARGE_MIN_MOVED),
            coarsen=False,
        )
        rng = np.random.default_rng(seed)
        refined, _ = _local_moving(adjacency, resolution, rng, REFINE_SWEEPS, LARGE_MIN_MOVED, found[group_of])
        return np.unique(refined, return_inverse=True)[1]
    rng = np.random.default_rng(seed)
    membership = np.arange(n, dtype=np.int64)
    for _level in range(max_levels):
        community, moved = _local_moving(adjacency, resolution, rng, max_sweeps, min_moved)
        if not moved:
            break
        labels, community = np.unique(community, return_inverse=True)
        membership = community[membership]
        adjacency = _aggregate(adjacency, community, len(labels))  # communities become the nodes
    _, membership = np.unique(membership, return_inverse=True)
    return membership


def _aggregate(adjacency: csr_matrix, group: np.ndarray, groups: int) -> csr_matrix:
    """The graph whose nodes are the groups: Pᵀ A P, so an edge between two groups weighs the sum of
    the edges between their members, and a group's diagonal holds twice its inner weight (the
    self-loop convention of ``_symmetric``: a node's degree is still the sum of its members')."""
    index = adjacency.indices.dtype
    # A P is A with each column renamed to its group (entries of one group are summed by Pᵀ (A P))
    by_group = csr_matrix(
        (adjacency.data, group.astype(index)[adjacency.indices], adjacency.indptr), shape=(adjacency.shape[0], groups)
    )
    return (_membership(group, groups).T.tocsr() @ by_group).tocsr()


def strongest_neighbour_groups(
    n: int, source: np.ndarray, target: np.ndarray, weight: np.ndarray
) -> tuple[int, np.ndarray]:
    """(number of groups, group of each node): each node linked to its strongest neighbour (ties: the
    smallest index), groups = connected components of those links (a node without neighbours alone)."""
    return _strongest_neighbour_groups(_symmetric(n, source, target, weight))


def _strongest_neighbour_groups(adjacency: csr_matrix) -> tuple[int, np.ndarray]:
    n = adjacency.shape[0]
    adjacency = _without_diagonal(adjacency)
    counts = np.diff(adjacency.indptr)
    has = counts > 0
    rows = np.repeat(np.arange(n, dtype=adjacency.indices.dtype), counts)
    best = np.full(n, -np.inf)
    best[has] = np.maximum.reduceat(adjacency.data, adjacency.indptr[:-1][has])
    first = np.flatnonzero(adjacency.data == np.repeat(best, counts))
    first = first[np.r_[True, rows[first][1:] != rows[first][:-1]]]
    links = coo_matrix((np.ones(len(first)), (rows[first], adjacency.indices[first])), shape=(n, n))
    return connected_components(links, directed=False)


def _membership(group: np.ndarray, groups: int) -> csr_matrix:
    """P: one row per node with a 1 in its group's column (built straight as CSR, 32-bit indices)."""
    n = len(group)
    index = np.int32 if max(n, groups) < np.iinfo(np.int32).max else np.int64
    return csr_matrix((np.ones(n), group.astype(index), np.arange(n + 1, dtype=index)), shape=(n, groups))


def _without_diagonal(adjacency: csr_matrix) -> csr_matrix:
    """The same matrix without its self-loops (entries are kept in row order, sorted or not); the
    matrix itself when it has none (the graph's own matrix: its edges never loop)."""
    if not adjacency.diagonal().any():
        return adjacency
    coo = adjacency.tocoo()
    off = coo.row != coo.col
    indptr = np.r_[0, np.cumsum(np.bincount(coo.row[off], minlength=adjacency.shape[0]))]
    return csr_matrix((coo.data[off], coo.col[off], indptr), shape=adjacency.shape)


def _symmetric(size: int, src: np.ndarray, dst: np.ndarray, wt: np.ndarray) -> csr_matrix:
    """A with A[u, v] = A[v, u] = summed weights; a self-loop (u, u) of weight w counts 2w (its degree).
    Node numbers are made 32-bit while they fit: scipy then builds the matrix two to four times faster."""
    index = np.int32 if max(size, 2 * len(src)) < np.iinfo(np.int32).max else np.int64
    rows = np.concatenate([src, dst]).astype(index, copy=False)
    cols = np.concatenate([dst, src]).astype(index, copy=False)
    weights = np.concatenate([wt, wt]).astype(np.float64, copy=False)
    return coo_matrix((weights, (rows, cols)), shape=(size, size)).tocsr()


def _local_moving(
    adjacency: csr_matrix, resolution: float, rng, max_sweeps: int, min_moved: float, initial: np.ndarray | None = None
):
    size = adjacency.shape[0]
    degree = np.asarray(adjacency.sum(axis=1)).ravel()
    two_m = degree.sum()
    community = np.arange(size, dtype=np.int64) if initial is None else initial.astype(np.int64)
    if two_m == 0:
        return community, False
    off_diagonal = _without_diagonal(adjacency)
    blocks = _row_blocks(off_diagonal.indptr)
    moved_any = False
    # threads of this call only (a pool kept across calls would have none in a forked child); they
    # start on the first block handed out, so a graph in one block starts none
    with ThreadPoolExecutor(WORKERS, thread_name_prefix="louvain") as pool:
        for _sweep in range(max_sweeps):
            if off_diagonal.nnz == 0:
                break  # no node has a neighbour (every community is already closed): nothing can move
            total = np.bincount(community, weights=degree, minlength=size)
            best_community, best_gain, stay = _sweep_moves(
                off_diagonal, blocks, community, degree, total, resolution, two_m, pool
            )
            wants = (best_gain > stay + 1e-12) & (best_community != community)
            # two singletons would swap places forever: only the one with the larger label moves
            # (the singleton rule of parallel Louvain); other movers are thinned to a random 3/4
            members = np.bincount(community, minlength=size)
            swap = (members[community] == 1) & (members[best_community] == 1) & (best_community > community)
            movers = wants & ~swap & (rng.random(size) < 0.75)
            if not movers.any():
                if not wants.any():
                    break
                continue
            community[movers] = best_community[movers]
            moved_any = True
            if movers.sum() < min_moved * size:
                break
    return community, moved_any


def _sweep_moves(
    off_diagonal: csr_matrix, blocks: np.ndarray, community, degree, total, resolution: float, two_m: float, pool
):
    """Every node's best move from the sweep's starting state, block by block of rows (each block
    writes its own rows; the blocks run on the worker threads when there are several)."""
    size = len(community)
    membership = _membership(community, size)
    best_community, best_gain, stay = community.copy(), np.full(size, -np.inf), np.empty(size)

    def decide(lo: int, hi: int) -> None:
        rows = slice(lo, hi)
        best_community[rows], best_gain[rows], stay[rows] = _best_moves(
            off_diagonal[rows] @ membership, community[rows], degree[rows], total, resolution, two_m
        )

    if len(blocks) > 2 and WORKERS > 1:
        list(pool.map(decide, blocks[:-1], blocks[1:]))
    else:
        for lo, hi in zip(blocks[:-1], blocks[1:], strict=True):
            decide(lo, hi)
    return best_community, best_gain, stay


def _row_blocks(indptr: np.ndarray) -> np.ndarray:
    """Bounds of the row blocks of a sweep: blocks of at most BLOCK_ENTRIES entries (the per-entry
    arrays of a block stay small: reused memory instead of fresh pages for each of them), and at
    least one a worker on a graph of more than SHARE_ABOVE entries. Every block reads the sweep's
    starting state, so the decisions do not depend on the blocks."""
    entries = int(indptr[-1])
    blocks = max(-(-entries // BLOCK_ENTRIES), WORKERS if entries > SHARE_ABOVE else 1)
    per_block = max(-(-entries // blocks), 1)
    starts = np.searchsorted(indptr, np.arange(0, entries, per_block))  # first row at or after each offset
    return np.unique(np.r_[0, starts, len(indptr) - 1])


def _best_moves(to_community: csr_matrix, community, degree, total, resolution: float, two_m: float):
    """For a block of nodes, from ``to_community`` (k_i,in per neighbouring community, one row per
    node): each node's best neighbouring community (ties: the first entry), its gain, and the gain of
    staying. Gain of moving i into C: k_i,in(C) - γ Σ_tot(C without i) k_i / 2m."""
    size = len(community)
    counts = np.diff(to_community.indptr)
    rows_of_nnz = np.repeat(np.arange(size, dtype=np.int32), counts)
    degree_of_row = np.repeat(degree, counts)  # per entry: values of its row, repeated (not gathered)
    cols, k_in = to_community.indices, to_community.data
    own = cols == np.repeat(community, counts)
    gain = total[cols] - np.where(own, degree_of_row, 0.0)  # Σ_tot(C) without i, then in place:
    gain *= resolution
    gain *= degree_of_row
    gain /= two_m
    np.subtract(k_in, gain, out=gain)
    # staying: the gain of the own community (k_in may be 0: no entry for it then)
    stay = -resolution * (total[community] - degree) * degree / two_m
    stay_entries = np.flatnonzero(own)
    stay[rows_of_nnz[stay_entries]] = gain[stay_entries]
    best_community = community.copy()
    best_gain = np.full(size, -np.inf)
    has = counts > 0
    if has.any():
        best_gain[has] = np.maximum.reduceat(gain, to_community.indptr[:-1][has])
        first = np.flatnonzero(gain == np.repeat(best_gain, counts))  # the first best entry of each row
        first_rows = rows_of_nnz[first]
        first = first[np.r_[True, first_rows[1:] != first_rows[:-1]]]
        best_community[rows_of_nnz[first]] = cols[first]
    return best_community, best_gain, stay


def modularity(
    n: int, source: np.ndarray, target: np.ndarray, weight: np.ndarray, membership: np.ndarray, resolution: float = 1.0
) -> float:
    """Newman modularity of ``membership`` (for tests and the benchmark)."""
    adjacency = _symmetric(n, source, target, weight)
    degree = np.asarray(adjacency.sum(axis=1)).ravel()
    two_m = degree.sum()
    coo = adjacency.tocoo()
    inside = coo.data[membership[coo.row] == membership[coo.col]].sum()
    total = np.bincount(membership, weights=degree)
    return float(inside / two_m - resolution * np.sum((total / two_m) ** 2))
