"""Graph search from a short term: the paths that lead out of the term's entity (seed 003).

``Oleoylethanolamide`` gives, among others::

    Oleoylethanolamide --[A randomized clinical trial ... (Appetite. 2019). … Oleoylethanolamide
        increased the abundance of ...]--> Akkermansia Muciniphila
    Akkermansia Muciniphila --[... controls diet-induced obesity (PNAS. 2013).]--> Diet-Induced Obesity

How:
1. **Find the entity**, cheapest first (the dedup cascade of Graphiti): exact on the normalized name
   (``node_key``: case- and separator-insensitive, so ``oleoylethanolamide`` finds
   ``Oleoylethanolamide``), else fuzzy, in tiers, the first that finds something winning: names
   holding every word of the term (rapidfuzz WRatio), else a misspelled whole name (Levenshtein
   ratio), else a misspelled part of a name (every word of the term matches a word of the name by
   ratio, words shorter than ``fuzzy_min_word_chars`` only exactly: ``akermansia`` finds
   Akkermansia Muciniphila; ``entity_linking.WordFuzzyIndex``), all >= ``fuzzy_min_score``; else
   the nearest node vectors (LanceDB ``graph_nodes``, cosine >= ``vector_min_similarity``). Chunks
   and atomic questions are not entities: only named nodes are matched and walked.
2. **Walk out of it** over the edges between named nodes (RELATED and the merger's typed edges; not
   MENTIONS / ANSWERS_IN, which lead to text), up to ``depth`` hops, never visiting a node twice in
   one path. Each node contributes its ``fanout`` strongest edges; each depth keeps the ``beam`` best
   partial paths, so a hub of ten thousand edges costs what a node of ``fanout`` edges costs.
   A term whose entity has no outgoing edge is walked backwards (``A <--[...]-- term``).
3. **Rank**: a path is as good as its start (the match score) times the geometric mean of its hops'
   edge strengths (so length is not a penalty by itself), times small factors for what makes a path
   revealing: well-supported hops (``1 + 0.1 * ln(1 + mean support)``), hops whose description names
   both of their ends other than as two items of one list ("Metformin, prebiotic fibre, polyphenols
   and Oleoylethanolamide increase ..." relates none of them to another; else 0.8), consecutive
   hops that some document supports together (else 0.9), and nodes that are not hubs
   (``1 / (1 + 0.05 * ln(1 + degree))``, geometric mean over the path). Then the
   ``continuity_candidates`` (32) best paths of several hops count ``x (1 + continuity_weight *
   continuity)``: the mean cosine similarity (``node_embedding_model``) of consecutive hops'
   sentences, two hops of one sentence counting 0. A path that carries one story on (a trial in
   people with obesity --> Akkermansia --> controls diet-induced obesity: 0.68) reveals more than
   one that changes the subject at its middle node (--> its main source of carbon: 0.34). Sentence
   vectors are cached per snapshot version; without an embedder the factor is left out. On the
   demo corpus it moves the seed's example path for ``Oleoylethanolamide`` from 6th to 3rd.
   Only maximal paths are returned (a path that stopped at ``depth`` or at a node with nowhere new
   to go): its prefixes are in it.
4. **Deduplicate** (the same line of names and descriptions reached through two start nodes or two
   edges is one path), **diversify** (a path whose first hop an already chosen path took counts 0.9
   per such path, so ten paths show more than one neighbour's neighbourhood) and **limit**. Each
   path carries the chunks and documents that support its edges (``kg_edge_support``, via the
   snapshot).

Everything is read from the graph snapshot (never DuckDB) and from LanceDB; the structures built
from a snapshot (name index, adjacency in CSR arrays) are built once per snapshot version.
"""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from rapidfuzz import fuzz, process

from kg_pipelines.graph.stated_aliases import stated_names
from kg_pipelines.ingestion.names import is_blank, node_key
from kg_pipelines.retrieval.entity_linking import WordFuzzyIndex
from kg_pipelines.stores.graph_snapshot import GraphSnapshot

HUB_PENALTY = 0.05  # a path into a node of 120 edges counts 0.8; of 6 edges, 0.9
TEXT_KINDS = ("chunk", "question", "title")  # text and documents, not things: never matched nor walked


class GraphSearchError(ValueError):
    """A request the search refuses (the message says why and what is allowed)."""


@dataclass
class MatchedNode:
    node_id: str
    name: str
    node_type: str
    match: str  # exact | fuzzy | vector
    score: float


@dataclass
class Hop:
    source_id: str
    source: str
    target_id: str
    target: str
    edge_id: str
    edge_type: str
    description: str
    strength: float
    direction: str  # out: source --> target is the walk's direction; in: walked backwards

    def text(self) -> str:
        """The seed's form: ``Source --[description]--> Target``."""
        return f"{self.source} --[{self.description}]--> {self.target}"


@dataclass
class Source:
    chunk_id: str
    document_id: str
    collection: str
    title: str


@dataclass
class GraphPath:
    score: float
    hops: list[Hop]
    sources: list[Source]

    @property
    def lines(self) -> list[str]:
        return [hop.text() for hop in self.hops]

    @property
    def edge_ids(self) -> list[str]:
        return [hop.edge_id for hop in self.hops]


@dataclass
class GraphSearchResult:
    term: str
    depth: int
    limit: int
    matched: list[MatchedNode] = field(default_factory=list)
    paths: list[GraphPath] = field(default_factory=list)
    snapshot_version: str | None = None
    message: str | None = None

    @property
    def edge_ids(self) -> list[str]:
        return sorted({edge for path in self.paths for edge in path.edge_ids})

    def to_dict(self) -> dict:
        data = asdict(self)
        for path, raw in zip(self.paths, data["paths"]):
            raw["lines"] = path.lines
        return data


def validate_search(term: str, depth: int, limit: int, settings) -> str:
    """The stripped term, or GraphSearchError saying what is wrong and what is allowed."""
    rules = settings.graph_search
    if not isinstance(term, str) or is_blank(term):
        raise GraphSearchError("term is empty: give a name, e.g. 'Oleoylethanolamide'")
    term = " ".join(term.split())
    if len(term) > rules.max_term_chars:
        raise GraphSearchError(f"term is {len(term)} characters long; at most {rules.max_term_chars} are allowed")
    if not 1 <= depth <= rules.max_depth:
        raise GraphSearchError(f"depth must be between 1 and {rules.max_depth}, got {depth}")
    if not 1 <= limit <= rules.max_limit:
        raise GraphSearchError(f"limit must be between 1 and {rules.max_limit}, got {limit}")
    return term


# -- the structures built once per snapshot -------------------------------------------------------


@dataclass
class SearchIndex:
    node_ids: list[str]
    names: list[str]
    types: list[str]
    named: np.ndarray  # indexes of named nodes (not chunks / questions)
    by_key: dict[str, list[int]]  # node_key(name) -> node indexes (named nodes only)
    named_keys: list[str]  # node_key of each named node, aligned with ``named``
    key_ids: np.ndarray  # per node, an integer id of its node_key (two types of one name share it)
    words: WordFuzzyIndex  # the words of ``named_keys`` -> positions in ``named``
    position: dict[str, int]
    specificity: np.ndarray  # per node, 1 / (1 + HUB_PENALTY * ln(1 + degree)): hubs reveal less
    log_specificity: list[float]
    # CSR adjacency over edges between named nodes, each node's edges strongest first
    out_offsets: np.ndarray
    out_edges: np.ndarray  # edge row numbers
    in_offsets: np.ndarray
    in_edges: np.ndarray
    edge_source: np.ndarray
    edge_target: np.ndarray
    edge_strength: np.ndarray
    edge_support: np.ndarray
    edge_ids: list[str]
    edge_types: list[str]
    edge_explanations: list[str | None]
    support_offsets: np.ndarray  # edge row -> range of rows in support_* arrays
    support_chunk: list[str]
    support_document: list[str]
    support_collection: list[str]
    chunk_titles: dict[str, str]


def _csr(keys: np.ndarray, strength: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    order = np.lexsort((-strength, keys))  # by node, strongest first
    counts = np.bincount(keys, minlength=n)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return offsets, order.astype(np.int64)


def build_search_index(snapshot: GraphSnapshot) -> SearchIndex:
    nodes, edges = snapshot.nodes, snapshot.edges
    node_ids = nodes.column("node_id").to_pylist()
    names = nodes.column("name").to_pylist()
    kinds = nodes.column("node_kind").to_pylist()
    types = nodes.column("node_type").to_pylist()
    position = {node_id: i for i, node_id in enumerate(node_ids)}
    named = np.array([i for i, kind in enumerate(kinds) if kind not in TEXT_KINDS], dtype=np.int64)
    all_keys = [node_key(name) for name in names]
    named_keys = [all_keys[i] for i in named]
    by_key: dict[str, list[int]] = {}
    for i, key in zip(named.tolist(), named_keys):
        by_key.setdefault(key, []).append(i)
    # a name a node's description states for it ("fibroblast growth factor 23 (FGF23)") finds it,
    # unless a node of its own has that name
    descriptions = nodes.column("description").to_pylist()
    stated: dict[str, list[int]] = {}
    for i in named.tolist():
        for key in {node_key(alias) for alias in stated_names(names[i], descriptions[i])} - by_key.keys():
            stated.setdefault(key, []).append(i)
    by_key.update(stated)
    key_numbers: dict[str, int] = {}
    key_ids = np.array([key_numbers.setdefault(key, len(key_numbers)) for key in all_keys], dtype=np.int64)
    # word -> positions in ``named``: a term that is part of a longer name finds it without a full scan
    words = WordFuzzyIndex.build(named_keys)

    n = len(node_ids)
    ids_array = nodes.column("node_id")
    source = pc.index_in(edges.column("source_id"), value_set=ids_array).to_numpy(zero_copy_only=False)
    target = pc.index_in(edges.column("target_id"), value_set=ids_array).to_numpy(zero_copy_only=False)
    # an edge of a half-written graph could name a missing node: index_in gives null -> NaN
    source = np.nan_to_num(np.asarray(source, dtype=np.float64), nan=-1).astype(np.int64)
    target = np.nan_to_num(np.asarray(target, dtype=np.float64), nan=-1).astype(np.int64)
    is_named = np.zeros(n + 1, dtype=bool)
    is_named[named] = True
    walkable = (source >= 0) & (target >= 0) & is_named[source] & is_named[target]
    strength = edges.column("strength").to_numpy(zero_copy_only=False).astype(np.float64)
    support = edges.column("support_count").to_numpy(zero_copy_only=False).astype(np.float64)
    rows = np.nonzero(walkable)[0]
    out_offsets, out_order = _csr(source[rows], strength[rows], n)
    in_offsets, in_order = _csr(target[rows], strength[rows], n)
    degree = np.diff(out_offsets) + np.diff(in_offsets)
    specificity = 1.0 / (1.0 + HUB_PENALTY * np.log1p(degree))
    log_specificity = np.log(specificity).tolist()

    # support rows grouped by edge row (the snapshot sorts them by edge_id)
    edge_ids = edges.column("edge_id").to_pylist()
    edge_support = snapshot.edge_support
    support_rows = pc.index_in(edge_support.column("edge_id"), value_set=edges.column("edge_id"))
    support_rows = np.nan_to_num(
        np.asarray(support_rows.to_numpy(zero_copy_only=False), dtype=np.float64), nan=-1
    ).astype(np.int64)
    keep = support_rows >= 0
    order = np.argsort(support_rows[keep], kind="stable")
    kept = np.nonzero(keep)[0][order]
    counts = np.bincount(support_rows[keep], minlength=len(edge_ids))
    support_offsets = np.zeros(len(edge_ids) + 1, dtype=np.int64)
    np.cumsum(counts, out=support_offsets[1:])
    taken = edge_support.take(pa.array(kept, type=pa.int64()))
    chunks = snapshot.chunks
    return SearchIndex(
        node_ids=node_ids,
        names=names,
        types=types,
        named=named,
        by_key=by_key,
        named_keys=named_keys,
        key_ids=key_ids,
        words=words,
        position=position,
        specificity=specificity,
        log_specificity=log_specificity,
        out_offsets=out_offsets,
        out_edges=rows[out_order],
        in_offsets=in_offsets,
        in_edges=rows[in_order],
        edge_source=source,
        edge_target=target,
        edge_strength=strength,
        edge_support=support,
        edge_ids=edge_ids,
        edge_types=edges.column("edge_type").to_pylist(),
        edge_explanations=edges.column("explanation").to_pylist(),
        support_offsets=support_offsets,
        support_chunk=taken.column("chunk_id").to_pylist(),
        support_document=taken.column("document_id").to_pylist(),
        support_collection=taken.column("collection").to_pylist(),
        chunk_titles=dict(zip(chunks.column("chunk_id").to_pylist(), chunks.column("title").to_pylist())),
    )


def search_index(snapshot: GraphSnapshot) -> SearchIndex:
    return snapshot.derived(INDEX_KEY, build_search_index)


# -- step 1: find the entity ------------------------------------------------------------------------


def match_term(
    index: SearchIndex, term: str, settings, embed: Callable[[str], np.ndarray] | None = None, node_vectors=None
) -> list[MatchedNode]:
    """The nodes the term names: exact, else fuzzy, else vector (see the module doc)."""
    rules = settings.graph_search

    def matched(i: int, how: str, score: float) -> MatchedNode:
        return MatchedNode(index.node_ids[i], index.names[i], index.types[i], how, round(float(score), 4))

    key = node_key(term)
    exact = index.by_key.get(key, [])
    if exact:
        return [matched(i, "exact", 1.0) for i in exact[: rules.max_start_nodes]]
    if key and index.named_keys:
        found = _fuzzy(index, key, rules)
        if found:
            return [matched(int(index.named[pos]), "fuzzy", score / 100.0) for score, pos in found]
    if embed is None or node_vectors is None:
        return []
    vector = embed(term)
    hits = []
    for node_id, similarity in node_vectors.search(vector, k=rules.max_start_nodes):
        i = index.position.get(node_id)  # a vector of a node the snapshot no longer has is ignored
        if i is not None and similarity >= rules.vector_min_similarity:
            hits.append(matched(i, "vector", similarity))
    return hits


def _fuzzy(index: SearchIndex, key: str, rules) -> list[tuple[float, int]]:
    """(score, position in ``named``) of the best fuzzy matches, in tiers, cheapest and closest first:
    1. names that hold every word of the term (a part of a longer name: ``akkermansia``), scored by
       WRatio (which rewards a term contained in a name) among those few;
    2. else a misspelled whole name: Levenshtein ratio over every name (rapidfuzz's C++ scan,
       milliseconds for 100k names, where WRatio over all of them takes a third of a second), for a
       term of at least ``fuzzy_min_word_chars`` characters;
    3. else a misspelled part of a name: every word of the term matches a word of the name
       (``akermansia`` -> Akkermansia Muciniphila, whose whole-name ratio is 61)."""
    words = index.words
    postings = [words.postings[words.word_number[w]] if w in words.word_number else None for w in key.split()]
    if postings and all(postings):
        holders = set(postings[0]).intersection(*postings[1:]) if len(postings) > 1 else postings[0]
        holders = sorted(holders)[:5000]
        found = process.extract(
            key,
            [index.named_keys[p] for p in holders],
            scorer=fuzz.WRatio,
            score_cutoff=rules.fuzzy_min_score,
            limit=rules.max_start_nodes,
        )
        if found:
            return [(score, holders[k]) for _name, score, k in found]
    if len(key) < rules.fuzzy_min_word_chars:
        return []  # a short term is a name or an abbreviation, not a misspelling of one
    found = process.extract(
        key, index.named_keys, scorer=fuzz.ratio, score_cutoff=rules.fuzzy_min_score, limit=rules.max_start_nodes
    )
    if found:
        return [(score, k) for _name, score, k in found]
    return words.match(key, rules.fuzzy_min_score, rules.fuzzy_min_word_chars, rules.max_start_nodes)


# -- steps 2-4: walk, rank, deduplicate ---------------------------------------------------------------


def _walk(index: SearchIndex, start: int, depth: int, fanout: int, beam: int, backwards: bool):
    """Maximal paths out of ``start`` as (edge rows, node indexes), with their mean log strength."""
    offsets, edge_rows = (index.in_offsets, index.in_edges) if backwards else (index.out_offsets, index.out_edges)
    following = index.edge_source if backwards else index.edge_target
    keys = index.key_ids
    frontier = [((), (start,), 0.0)]  # (edges, nodes, sum of log strength)
    finished = []
    for _hop in range(depth):
        grown = []
        for edges, nodes, log_sum in frontier:
            last = nodes[-1]
            extended = False
            lo = offsets[last]
            hi = min(offsets[last + 1], lo + fanout)
            for row in edge_rows[lo:hi].tolist():
                nxt = int(following[row])
                if any(keys[nxt] == keys[n] for n in nodes):
                    continue  # never back to a node of the path, nor to another type of the same name
                grown.append((edges + (row,), nodes + (nxt,), log_sum + math.log(max(index.edge_strength[row], 1e-6))))
                extended = True
            if not extended and edges:
                finished.append((edges, nodes, log_sum))
        if not grown:
            break
        grown.sort(key=lambda p: p[2] / len(p[0]), reverse=True)
        frontier = grown[:beam]
    else:
        finished.extend(frontier)  # reached ``depth``: maximal by definition
    return finished


def _sources(index: SearchIndex, edge_rows: tuple[int, ...], per_path: int = 20) -> list[Source]:
    seen: dict[str, Source] = {}
    for row in edge_rows:
        for k in range(index.support_offsets[row], index.support_offsets[row + 1]):
            chunk = index.support_chunk[k]
            if chunk not in seen and len(seen) < per_path:
                seen[chunk] = Source(
                    chunk_id=chunk,
                    document_id=index.support_document[k],
                    collection=index.support_collection[k],
                    title=index.chunk_titles.get(chunk, index.support_document[k]),
                )
    return list(seen.values())


def graph_search(
    snapshot: GraphSnapshot | None,
    term: str,
    settings,
    depth: int | None = None,
    limit: int | None = None,
    embed: Callable[[str], np.ndarray] | None = None,
    node_vectors=None,
    embed_texts: Callable[[list[str]], np.ndarray] | None = None,
) -> GraphSearchResult:
    """The ranked, deduplicated paths out of the entity that ``term`` names (see the module doc).
    ``embed_texts`` (normalized vectors of sentences) scores how each hop continues the one before;
    without it, paths are ranked without that factor."""
    rules = settings.graph_search
    depth = rules.default_depth if depth is None else depth
    limit = rules.default_limit if limit is None else limit
    term = validate_search(term, depth, limit, settings)
    result = GraphSearchResult(term=term, depth=depth, limit=limit)
    if snapshot is None or snapshot.empty:
        result.message = "the graph is empty: no snapshot has been published yet (ingest documents first)"
        return result
    result.snapshot_version = snapshot.version
    index = search_index(snapshot)
    result.matched = match_term(index, term, settings, embed, node_vectors)
    if not result.matched:
        result.message = f"no entity matches {term!r}"
        return result

    candidates = []
    grounded_rows: dict[int, bool] = {}  # per search: a hub's edges recur in many paths
    documents_rows: dict[int, frozenset] = {}
    for match in result.matched:
        start = index.position[match.node_id]
        backwards = index.out_offsets[start] == index.out_offsets[start + 1]
        for edges, nodes, log_sum in _walk(index, start, depth, rules.fanout, rules.beam, backwards):
            for row in edges:
                if row not in grounded_rows:
                    grounded_rows[row] = _names_both_ends(index, row)
                    documents_rows[row] = _edge_documents(index, row)
            mean_support = sum(index.edge_support[row] for row in edges) / len(edges)
            grounded = sum(grounded_rows[row] for row in edges) / len(edges)
            pairs = list(zip(edges, edges[1:]))
            coherent = sum(bool(documents_rows[a] & documents_rows[b]) for a, b in pairs) / len(pairs) if pairs else 1.0
            specific = math.exp(sum(index.log_specificity[n] for n in nodes[1:]) / (len(nodes) - 1))
            score = (
                match.score
                * math.exp(log_sum / len(edges))
                * (1 + 0.1 * math.log1p(mean_support))
                * (GROUNDED_SHARE + (1 - GROUNDED_SHARE) * grounded)
                * (COHERENT_SHARE + (1 - COHERENT_SHARE) * coherent)
                * specific
            )
            candidates.append((score, edges, nodes, backwards))
    candidates.sort(key=lambda c: (-c[0], len(c[1]), [index.names[n] for n in c[2]]))
    if embed_texts is not None and rules.continuity_weight > 0:
        try:
            candidates = _rank_by_continuity(snapshot, index, candidates, embed_texts, rules)
        except Exception as exc:  # noqa: BLE001 - an embedder that fails (a remote model down) must not fail search
            result.message = f"ranked without sentence continuity: the embedder failed ({type(exc).__name__}: {exc})"
    result.paths = _select_diverse(index, candidates, limit)
    if not result.paths:
        names = ", ".join(m.name for m in result.matched)
        result.message = f"{names}: no relationship leads out of it"
    return result


GROUNDED_SHARE = 0.8  # a hop whose description names only one of its ends counts 0.8
COHERENT_SHARE = 0.9  # two hops with no supporting document in common count 0.9
SHARED_PREFIX_PENALTY = 0.9  # per path already chosen that starts with the same edge


def _description(index: SearchIndex, row: int) -> str:
    return " ".join(((index.edge_explanations[row] or "").strip() or index.edge_types[row]).split())


def continuity(index: SearchIndex, edges: tuple[int, ...], vectors: dict[str, np.ndarray]) -> float:
    """How well each hop continues the one before, 0..1: the mean cosine similarity of consecutive
    hops' sentences, negative counted as 0. Two hops stated by one sentence count 0: such a path
    restates that sentence (often three names it lists), where two statements joined at a node
    reveal a connection no single sentence makes."""
    pairs = list(zip(edges, edges[1:]))
    total = 0.0
    for a, b in pairs:
        first, second = _description(index, a), _description(index, b)
        if first != second:
            total += max(0.0, float(vectors[first] @ vectors[second]))
    return total / len(pairs)


def _rank_by_continuity(snapshot, index: SearchIndex, candidates: list, embed_texts, rules) -> list:
    """The ``continuity_candidates`` best paths re-scored x (1 + continuity_weight x continuity),
    the rest as they were. A path whose second hop carries on the story of its first
    (Oleoylethanolamide --[a trial in people with obesity]--> Akkermansia --[controls diet-induced
    obesity]--> Diet-Induced Obesity, cosine 0.68) reveals more than one that changes the subject
    at the middle node (--[its main source of carbon]--> Carbon, 0.34). Sentence vectors are kept
    per snapshot version, so a sentence is embedded once."""
    top, rest = candidates[: rules.continuity_candidates], candidates[rules.continuity_candidates :]
    cache: dict[str, np.ndarray] = snapshot.derived(VECTORS_KEY, lambda _snapshot: {})
    needed = sorted(
        {_description(index, row) for _score, edges, *_ in top if len(edges) > 1 for row in edges} - cache.keys()
    )
    if needed:
        for text, vector in zip(needed, np.asarray(embed_texts(needed), dtype=np.float32)):
            cache[text] = vector
    rescored = [
        (
            score * (1 + rules.continuity_weight * continuity(index, edges, cache)) if len(edges) > 1 else score,
            edges,
            nodes,
            backwards,
        )
        for score, edges, nodes, backwards in top
    ]
    rescored.sort(key=lambda c: (-c[0], len(c[1]), [index.names[n] for n in c[2]]))
    return rescored + rest


VECTORS_KEY = "graph_search_sentence_vectors"


# what may stand between two items of one list: ", " / " and " / ", or " and other short items
# ("Metformin, prebiotic fibre, polyphenols and Oleoylethanolamide"); a verb or a longer phrase
# between two names makes them more than items of one list
_LIST_GAP = re.compile(
    r"^(?:\s*,\s*(?:[\w'+-]+\s+){0,2}[\w'+-]+)*"  # ", prebiotic fibre, polyphenols": other items
    r"\s*(?:,\s*(?:(?:and|or)\s+)?|(?:and|or|and/or|as well as)\s+)$"  # then the separator: ", " or " and "
)


def _names_both_ends(index: SearchIndex, row: int) -> bool:
    """Whether the edge's description names both of its nodes (it explains this very link), other
    than as two items of one list (which says they share something, not how they are related)."""
    text = node_key(index.edge_explanations[row] or "")
    keys = [node_key(index.names[int(end)]) for end in (index.edge_source[row], index.edge_target[row])]
    if not all(keys) or not all(key in text for key in keys):
        return False
    return not _listed_together(text, *keys)


def _listed_together(text: str, first: str, second: str) -> bool:
    """Whether the two names occur in ``text`` only as neighbouring items of one list."""
    spans = []
    for a, b in ((first, second), (second, first)):
        start = text.find(a)
        while start >= 0:
            end = text.find(b, start + len(a))
            if end >= 0:
                spans.append(text[start + len(a) : end])
            start = text.find(a, start + 1)
    return bool(spans) and all(_LIST_GAP.match(gap) for gap in spans)


def _edge_documents(index: SearchIndex, row: int) -> frozenset[str]:
    """Documents supporting the edge. Coherence of a path: the share of its consecutive hops that
    some document supports together (the path stays on a topic a source discusses, rather than
    jumping between unrelated documents through a common name)."""
    return frozenset(index.support_document[index.support_offsets[row] : index.support_offsets[row + 1]])


def _select_diverse(index: SearchIndex, candidates: list, limit: int) -> list[GraphPath]:
    """Best paths first, deduplicated, a path that repeats an already chosen first hop a little
    lower for each such path (so ten paths show more than one neighbour's neighbourhood)."""
    chosen: list[GraphPath] = []
    seen: set[tuple] = set()
    first_hops: dict[int, int] = {}
    pool = []
    for score, edges, _nodes, backwards in candidates:
        # the line as shown (names and descriptions), without building the hops of every candidate
        key = tuple((index.edge_source[row], index.edge_explanations[row], index.edge_target[row]) for row in edges)
        key = tuple((index.names[a], d, index.names[b]) for a, d, b in key)
        if key not in seen:
            seen.add(key)
            pool.append((score, edges, backwards))
    while pool and len(chosen) < limit:
        best = max(
            range(len(pool)),
            key=lambda k: (
                pool[k][0] * SHARED_PREFIX_PENALTY ** first_hops.get(pool[k][1][0], 0)
                if len(pool[k][1]) > 1
                else pool[k][0]
            ),
        )
        score, edges, backwards = pool.pop(best)
        hops = [_hop(index, row, backwards) for row in edges]
        if backwards:
            hops.reverse()  # walked into the term: shown as a chain that ends at it
        shown = score * SHARED_PREFIX_PENALTY ** first_hops.get(edges[0], 0) if len(edges) > 1 else score
        first_hops[edges[0]] = first_hops.get(edges[0], 0) + 1
        chosen.append(GraphPath(score=round(shown, 6), hops=hops, sources=_sources(index, edges)))
    return chosen


def _hop(index: SearchIndex, row: int, backwards: bool) -> Hop:
    source, target = int(index.edge_source[row]), int(index.edge_target[row])
    description = (index.edge_explanations[row] or "").strip() or index.edge_types[row]
    return Hop(
        source_id=index.node_ids[source],
        source=index.names[source],
        target_id=index.node_ids[target],
        target=index.names[target],
        edge_id=index.edge_ids[row],
        edge_type=index.edge_types[row],
        description=" ".join(description.split()),
        strength=round(float(index.edge_strength[row]), 4),
        direction="in" if backwards else "out",
    )


def format_paths(result: GraphSearchResult) -> list[str]:
    """Text lines for a terminal: each path's hops in the seed's form, one hop a line."""
    lines = []
    if result.matched:
        found = ", ".join(f"{m.name} ({m.node_type}, {m.match} {m.score:.2f})" for m in result.matched)
        lines.append(f"matched: {found}")
    if result.message:
        lines.append(result.message)
    for number, path in enumerate(result.paths, 1):
        lines.append("")
        lines.append(f"path {number} (score {path.score:.3f})")
        lines.extend(f"  {line}" for line in path.lines)
        titles = sorted({s.title for s in path.sources})
        if titles:
            lines.append(f"  sources: {'; '.join(titles)}")
    return lines


class _LazyNodeVectors:
    """``NodeVectors`` opened on first use: exact and fuzzy matches never touch LanceDB."""

    def __init__(self, settings):
        self.settings = settings
        self._store = None

    def search(self, vector, k: int = 10, node_type: str | None = None):
        from kg_pipelines.stores.node_vectors import NodeVectors
        from kg_pipelines.stores.vectors import vectors_exist

        if not vectors_exist(self.settings):
            return []
        if self._store is None:
            self._store = NodeVectors.for_settings(self.settings)
        return self._store.search(vector, k, node_type)


def search_graph(settings, term: str, depth: int | None = None, limit: int | None = None, record: bool = True):
    """Graph search on the current snapshot (what the CLI and the API call); the edges of the
    returned paths are queued as used (``retrieval/activations.py``) when ``record``."""
    from kg_pipelines.embedding import embedder_for
    from kg_pipelines.retrieval.activations import record_activations
    from kg_pipelines.stores.graph_snapshot import load_graph_snapshot

    def embed_texts(texts: list[str]) -> np.ndarray:
        return embedder_for(settings.node_embedding_model, settings.llm).embed(texts)

    def embed(text: str) -> np.ndarray:
        return embed_texts([text])[0]

    result = graph_search(
        _serving_snapshot(settings, load_graph_snapshot(settings)),
        term,
        settings,
        depth,
        limit,
        embed=embed,
        node_vectors=_LazyNodeVectors(settings),
        embed_texts=embed_texts,
    )
    if record and result.paths:
        record_activations(settings, result.edge_ids, "search")
    return result


INDEX_KEY = "graph_search_index"
_serving: dict[str, GraphSnapshot] = {}  # data dir -> the newest snapshot whose index is built
_serving_lock = threading.Lock()


def _serving_snapshot(settings, current: GraphSnapshot | None) -> GraphSnapshot | None:
    """The snapshot to search: the current one once its index is built. Building the index of a
    big graph takes seconds (5 s for 500k edges): a server must not stall its requests meanwhile,
    so a newer version is indexed in a background thread, waited for ``reload_wait_s`` at most,
    and the previous version answers until it is ready."""
    if current is None:
        return None
    root = str(settings.data_dir)
    previous = _serving.get(root)
    if current.has_derived(INDEX_KEY) or previous is None or previous.version >= current.version:
        search_index(current)  # built already, or nothing older to answer with
        with _serving_lock:
            if root not in _serving or _serving[root].version < current.version:
                _serving[root] = current
        return current
    builder = _builders.get(current.version)
    if builder is None:
        with _serving_lock:
            builder = _builders.get(current.version)
            if builder is None:
                builder = threading.Thread(target=_index_then_serve, args=(root, current), daemon=True)
                _builders.clear()  # only the newest version is worth building
                _builders[current.version] = builder
                builder.start()
    builder.join(settings.graph_search.reload_wait_s)
    if not current.has_derived(INDEX_KEY) and not builder.is_alive():
        search_index(current)  # the background build died: build here, so its error is seen
    return current if current.has_derived(INDEX_KEY) else previous


_builders: dict[str, threading.Thread] = {}


def _index_then_serve(root: str, snapshot: GraphSnapshot) -> None:
    search_index(snapshot)
    with _serving_lock:
        if root not in _serving or _serving[root].version < snapshot.version:
            _serving[root] = snapshot
