"""Ranking a collection's chunks for a question: LanceDB full-text (BM25) and vector search.

Each knowledge collection has its own LanceDB table ``chunks__<collection>`` (text + vector of its
own embedding model). Two rankings are read from it:

- **BM25** over the chunk text through LanceDB's native full-text index (``FTS``: lower-cased,
  stemmed, stop words removed, accents folded). Exact rare names ("Oleoylethanolamide",
  "FOXO3") are found here even when an embedding model has never seen them.
- **Vector** search (cosine) with the embedding of the question by the model that embedded the
  collection's chunks (the table records it; ``settings.embedding_model_for`` for a fresh table):
  paraphrases are found here.

The FTS index is created lazily, by the first retrieval that finds it missing (one LanceDB write;
LanceDB admits concurrent writers, so this never waits for ingestion). Rows written after the
index was built are still found: LanceDB searches the unindexed fragments by a flat scan, and
deleted rows are never returned (both tested). A refresh folds the new rows into the index
(``refresh_fts_index``, called by the ``retrieval_quality`` asset once a graph run has written);
that is about speed only, never about what is found.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, replace

import numpy as np

from kg_pipelines.stores.vectors import VectorStore, sql_list, table_name

log = logging.getLogger(__name__)

TEXT_COLUMN = "text"
# LanceDB's query parser is not used (a plain match query), but control characters and runs of
# punctuation add nothing to a bag-of-words query
_QUERY_NOISE = re.compile(r"[\x00-\x1f\x7f]+")
# index refreshed when this share of the rows is outside it (flat-scanned meanwhile)
REFRESH_UNINDEXED_SHARE = 0.2


@dataclass(frozen=True)
class ChunkRow:
    chunk_id: str
    document_id: str
    collection: str
    seq: int
    text: str


# variants whose scores are the probabilities of one walk over the one graph, comparable across
# collections (the text rankings' are not: each collection has its own embedding model)
WALK_SCORED_VARIANTS = ("graph", "graph_seeded")


def fts_index_name(table) -> str | None:
    for index in table.list_indices():
        if index.index_type == "FTS" and TEXT_COLUMN in index.columns:
            return index.name
    return None


def ensure_fts_index(table) -> bool:
    """Create the native FTS index on ``text`` when the table has none; True when created."""
    if fts_index_name(table) is not None:
        return False
    table.create_fts_index(TEXT_COLUMN, use_tantivy=False, replace=True)
    return True


def refresh_fts_index(table) -> str:
    """Make the FTS index cover every row: 'created', 'refreshed' (rows added since were folded
    in) or 'current'."""
    if ensure_fts_index(table):
        return "created"
    stats = table.index_stats(fts_index_name(table))
    if stats is None or not stats.num_unindexed_rows:
        return "current"
    table.optimize()
    return "refreshed"


def clean_query(question: str) -> str:
    return " ".join(_QUERY_NOISE.sub(" ", question).split())


class CollectionIndex:
    """The BM25 and vector rankings of one collection's chunks."""

    def __init__(self, store: VectorStore, collection: str, embedder_for):
        self.store = store
        self.collection = collection
        self._embedder_for = embedder_for
        self._table = None
        self._checked = False
        self._model: str | None = None
        self._model_version: int | None = None

    def table(self):
        """The collection's chunk table (None before anything was ingested); its FTS index ensured
        once per process and refreshed when a good part of the rows lies outside it."""
        if self._table is not None:
            try:  # a long-lived reader (API, --questions) sees what ingestion wrote since
                self._table.checkout_latest()
            except Exception:  # dropped and re-created (another embedding model): open it again
                self._table, self._checked, self._model = None, False, None
        if self._table is None:
            self._table = self.store.open("chunks", self.collection)
        if self._table is not None and not self._checked:
            try:
                if not ensure_fts_index(self._table):
                    stats = self._table.index_stats(fts_index_name(self._table))
                    indexed = stats.num_indexed_rows if stats else 0
                    unindexed = stats.num_unindexed_rows if stats else 0
                    if unindexed > max(100, REFRESH_UNINDEXED_SHARE * indexed):
                        self._table.optimize()
            except Exception as exc:  # a concurrent writer won the race: the flat scan still finds every row
                log.warning("FTS index of %s not refreshed: %s", table_name("chunks", self.collection), exc)
            self._checked = True
        return self._table

    def embedding_model(self) -> str | None:
        """The model that embedded the collection's chunks (read again when the table changed)."""
        table = self.table()
        if table is None:
            return None
        version = table.version  # a re-created table (another model) is a new version too
        if self._model is None or self._model_version != version:
            rows = table.search().select(["embedding_model"]).limit(1).to_arrow()
            self._model = rows.column(0)[0].as_py() if rows.num_rows else None
            self._model_version = version
        return self._model

    def bm25(self, question: str, k: int) -> list[tuple[str, float]]:
        """(chunk_id, BM25 score), best first."""
        table = self.table()
        query = clean_query(question)
        if table is None or not query:
            return []
        rows = table.search(query, query_type="fts").select(["chunk_id", "_score"]).limit(k).to_arrow()
        return list(zip(rows.column("chunk_id").to_pylist(), rows.column("_score").to_pylist()))

    def question_vector(self, question: str) -> np.ndarray | None:
        model = self.embedding_model()
        if model is None or not clean_query(question):
            return None
        return self._embedder_for(model).embed([clean_query(question)])[0]

    def dense(self, question: str, k: int, vector: np.ndarray | None = None) -> list[tuple[str, float]]:
        """(chunk_id, cosine similarity), best first."""
        table = self.table()
        vector = self.question_vector(question) if vector is None else vector
        if table is None or vector is None:
            return []
        rows = (
            table.search(np.asarray(vector, dtype=np.float32), query_type="vector")
            .metric("cosine")
            .select(["chunk_id", "_distance"])
            .limit(k)
            .to_arrow()
        )
        return [
            (chunk_id, 1.0 - float(distance))
            for chunk_id, distance in zip(rows.column("chunk_id").to_pylist(), rows.column("_distance").to_pylist())
        ]

    def rows(self, chunk_ids: list[str]) -> dict[str, ChunkRow]:
        table = self.table()
        if table is None or not chunk_ids:
            return {}
        quoted = sql_list(chunk_ids)
        data = (
            table.search()
            .where(f"chunk_id IN ({quoted})")
            .select(["chunk_id", "document_id", "collection", "seq", "text"])
            .limit(len(chunk_ids))
            .to_arrow()
            .to_pylist()
        )
        return {r["chunk_id"]: ChunkRow(**r) for r in data}

    def bm25_within(self, query: str, chunk_ids: list[str], k: int) -> list[tuple[str, float]]:
        """(chunk_id, BM25 score) of ``query`` among ``chunk_ids`` only (the index's statistics are the
        whole table's, so a word rare in the collection still weighs more), best first."""
        table = self.table()
        query = clean_query(query)
        if table is None or not query or not chunk_ids:
            return []
        rows = (
            table.search(query, query_type="fts")
            .where(f"chunk_id IN ({sql_list(chunk_ids)})", prefilter=True)
            .select(["chunk_id", "_score"])
            .limit(k)
            .to_arrow()
        )
        return list(zip(rows.column("chunk_id").to_pylist(), rows.column("_score").to_pylist()))


# -- the retriever: text ranks, graph ranks, and how they combine ----------------------------------

VARIANTS = (
    "bm25",
    "vector",
    "hybrid",
    "graph",
    "graph_first",
    "hybrid_graph_rrf",
    "graph_seeded",
    "graph_seeded_rrf",
)


@dataclass
class RetrievedChunk:
    chunk_id: str
    document_id: str
    collection: str
    title: str
    text: str
    score: float
    found_by: tuple[str, ...]  # the rankings that returned it: bm25, vector, graph


@dataclass
class QuestionRanking:
    """What one question's retrieval saw, per collection: every ranking, for the variants."""

    question: str
    bm25: dict[str, list[tuple[str, float]]]
    vector: dict[str, list[tuple[str, float]]]
    links: list  # LinkedNode


class ChunkRetriever:
    """Chunks for questions, from LanceDB (text, vectors) and the graph snapshot; one per process
    (it caches the embedders, the tables and the passage graph of the current snapshot)."""

    def __init__(self, settings, snapshot_loader=None):
        from kg_pipelines.embedding import embedder_for
        from kg_pipelines.stores.graph_snapshot import load_graph_snapshot

        self.settings = settings
        self.options = settings.retrieval
        self._embedder_for = lambda model: embedder_for(model, settings.llm)
        self._load_snapshot = snapshot_loader or (lambda: load_graph_snapshot(settings))
        self._store = VectorStore.for_settings(settings)
        self._indexes: dict[str, CollectionIndex] = {}

    # -- what there is ---------------------------------------------------------------------------
    def collections(self) -> list[str]:
        """Collections that have a chunk table."""
        return sorted(name.split("__", 1)[1] for name in self._store.table_names() if name.startswith("chunks__"))

    def index(self, collection: str) -> CollectionIndex:
        if collection not in self._indexes:
            self._indexes[collection] = CollectionIndex(self._store, collection, self._embedder_for)
        return self._indexes[collection]

    def graph(self):
        """(snapshot, passage graph, name index) of the current snapshot, built once per version."""
        from kg_pipelines.retrieval.entity_linking import NameIndex
        from kg_pipelines.retrieval.graph_ranking import build_passage_graph

        snapshot = self._load_snapshot()
        if snapshot is None:
            return None, None, None

        def build(s):
            graph = build_passage_graph(s.nodes, s.edges)
            return graph, NameIndex.build(graph)

        graph, names = snapshot.derived("retrieval.passage_graph", build)
        return snapshot, graph, names

    # -- the rankings ----------------------------------------------------------------------------
    def rank(self, question: str, collections: list[str]) -> QuestionRanking:
        from kg_pipelines.retrieval.entity_linking import link_question

        depth = self.options.candidates
        text = clean_query(question)
        embedded: dict[str, np.ndarray] = {}  # model -> the question's vector: each model embeds it once

        def embed(model: str) -> np.ndarray:
            if model not in embedded:
                embedded[model] = self._embedder_for(model).embed([text])[0]
            return embedded[model]

        bm25, vector = {}, {}
        for collection in collections:
            index = self.index(collection)
            bm25[collection] = index.bm25(question, depth)
            model = index.embedding_model() if text else None
            vector[collection] = index.dense(question, depth, embed(model)) if model else []
        links = []
        _, graph, names = self.graph()
        if graph is not None and not graph.empty:
            node_vectors, question_vector = None, None
            if self.options.link_by_vector and text:
                from kg_pipelines.stores.node_vectors import NodeVectors

                node_vectors = NodeVectors.for_settings(self.settings)
                if node_vectors.count():
                    question_vector = embed(self.settings.node_embedding_model)
            links = link_question(
                question,
                graph,
                names,
                fuzzy_cutoff=self.options.fuzzy_cutoff,
                question_vector=question_vector,
                node_vectors=node_vectors,
                vector_k=self.options.vector_links,
                vector_min_similarity=self.options.vector_link_min_similarity,
            )
        return QuestionRanking(question, bm25, vector, links)

    def graph_ranking(self, ranking: QuestionRanking, collections: list[str], passage_seeds: dict[str, float]):
        """(chunk_id, walk probability) per collection, the walk restarting at the linked names and at
        ``passage_seeds`` (chunk_id -> restart weight, on the scale of a name linked exactly to one
        passage, which weighs 1)."""
        return self._by_collection(self.walk(ranking, passage_seeds), collections)

    def walk(self, ranking: QuestionRanking, passage_seeds: dict[str, float]) -> np.ndarray | None:
        """The walk's probability of every node of the passage graph (None: no graph or no seed)."""
        from kg_pipelines.retrieval.graph_ranking import personalized_pagerank

        _, graph, _ = self.graph()
        if graph is None or graph.empty:
            return None
        seeds: dict[int, float] = {}
        for link in ranking.links:
            weight = seed_weight(link, graph, ranking.question, self.options.passage_seed_weight)
            seeds[link.position] = max(seeds.get(link.position, 0.0), weight)
        for chunk_id, weight in passage_seeds.items():
            position = graph.position.get("chunk:" + chunk_id)
            if position is not None:
                seeds[position] = seeds.get(position, 0.0) + weight
        if not seeds:
            return None
        return personalized_pagerank(graph, seeds, damping=self.options.damping)

    def _by_collection(self, rank: np.ndarray | None, collections: list[str]) -> dict[str, list[tuple[str, float]]]:
        from kg_pipelines.retrieval.graph_ranking import rank_chunks

        snapshot, graph, _ = self.graph()
        per_collection: dict[str, list[tuple[str, float]]] = {c: [] for c in collections}
        if rank is None:
            return per_collection
        owner = _chunk_collections(snapshot)
        for chunk_id, score in rank_chunks(graph, rank, len(graph.chunk_ids)):
            bucket = per_collection.get(owner.get(chunk_id))
            if bucket is not None and len(bucket) < self.options.candidates:
                bucket.append((chunk_id, score))
        return per_collection

    def variant_lists(self, ranking: QuestionRanking, collections: list[str], variant: str):
        """Per collection, the ranked (chunk_id, score) list of ``variant`` (see ``VARIANTS``)."""
        if variant not in VARIANTS:
            raise ValueError(f"unknown retrieval variant {variant!r}; known: {', '.join(VARIANTS)}")
        k_rrf = self.settings.fusion.k
        if variant == "bm25":
            return ranking.bm25
        if variant == "vector":
            return ranking.vector
        hybrid = {c: _rrf([ranking.bm25[c], ranking.vector[c]], k_rrf) for c in collections}
        if variant == "hybrid":
            return hybrid
        if variant in ("graph", "hybrid_graph_rrf", "graph_first"):
            graph = self.graph_ranking(ranking, collections, {})
            if variant == "graph":
                return graph
            if variant == "graph_first":
                # the walk's order, then what it did not reach in the hybrid's order
                return {c: _then(graph[c], hybrid[c], self.options.candidates) for c in collections}
            return {c: _rrf([ranking.bm25[c], ranking.vector[c], graph[c]], k_rrf) for c in collections}
        # HippoRAG 2: passages seed the walk too, with their text-ranking score times a small factor
        # (passage_seed_weight, theirs 0.05), so names lead and the text ranking breaks their ties
        # and carries the questions that name nothing; reciprocal rank (1, 1/2, ...) stands for the
        # score, RRF scores being near-flat over the first ten (1/61 .. 1/70)
        seeds = {
            chunk_id: self.options.passage_seed_weight / rank
            for c in collections
            for rank, (chunk_id, _) in enumerate(hybrid[c][: self.options.seed_passages], 1)
        }
        first = self.walk(ranking, seeds)
        seeded = self._by_collection(first, collections)
        named, related = [], {}
        if self._names_lead(ranking):
            named = self._titles_named_by_best(seeded, collections)
            hops = {c: self._first_hop(ranking, c, seeded.get(c, [])) for c in collections}
            related = self._relation_passages(ranking, first, hops, named)
            named += self._composed_titles(ranking, hops, named)
        if named or related:  # the walk again, also from where its best passages lead (docs/retrieval.md)
            seeds = {c: seeds.get(c, 0.0) + related.get(c, 0.0) for c in {**seeds, **related}}
            seeded = self.graph_ranking(replace(ranking, links=[*ranking.links, *named]), collections, seeds)
        if variant == "graph_seeded":
            # no name linked and no graph: the text ranking stands
            return {c: seeded[c] or hybrid[c] for c in collections}
        return {c: _rrf([hybrid[c], seeded[c]], k_rrf) for c in collections}

    def _names_lead(self, ranking: QuestionRanking) -> bool:
        """Whether the question writes a name the graph knows (an exact, fuzzy or partial link that is
        not a common word): only then do its best passages carry the question's subject, and the titles
        they name are a next hop rather than a neighbour of a passage that merely resembles it."""
        from kg_pipelines.retrieval.entity_linking import writes_name

        return any(writes_name(link, ranking.question) for link in ranking.links)

    def _titles_named_by_best(self, lists: dict[str, list[tuple[str, float]]], collections: list[str]) -> list:
        """Title nodes named in the text of each collection's ``text_title_passages`` best passages of
        a first walk (method ``text``): the k-th passage weighs 1 / k, shared among the titles it
        names (a passage that names ten titles says less about each than one that names one)."""
        from kg_pipelines.retrieval.entity_linking import titles_named_in

        depth = self.options.text_title_passages
        _, graph, names = self.graph()
        if not depth or graph is None or graph.empty:
            return []
        found = []
        for collection in collections:
            best = [chunk_id for chunk_id, _ in lists.get(collection, [])[:depth]]
            rows = self.index(collection).rows(best)
            for rank, chunk_id in enumerate(best, 1):
                position = graph.position.get("chunk:" + chunk_id)
                if chunk_id not in rows or position is None:
                    continue
                own = set(graph.transition[:, position].nonzero()[0].tolist())
                named = titles_named_in(rows[chunk_id].text, names, graph, 1.0 / rank, own)
                found += [replace(link, score=link.score / len(named)) for link in named]
        return found

    def _first_hop(
        self, ranking: QuestionRanking, collection: str, ranked: list[tuple[str, float]]
    ) -> tuple[list[tuple[int, int]], set[str]]:
        """(rank, position) of the first walk's ``relation_hop_passages`` best passages of one
        collection that touch a name the question writes (their subject is the question's, so what
        they mention leads on), and the words their texts write (``written_words``): what the next
        hop need not find again."""
        from kg_pipelines.retrieval.entity_linking import writes_name, written_words

        _, graph, _ = self.graph()
        if graph is None or graph.empty:
            return [], set()
        written = {link.position for link in ranking.links if writes_name(link, ranking.question)}
        indptr, indices = graph.transition.indptr, graph.transition.indices
        out = []
        for rank, (chunk_id, _) in enumerate(ranked[: self.options.relation_hop_passages], 1):
            position = graph.position.get("chunk:" + chunk_id)
            if position is not None and written.intersection(indices[indptr[position] : indptr[position + 1]].tolist()):
                out.append((rank, position))
        if not out:
            return [], set()
        rows = self.index(collection).rows([graph.node_ids[p].removeprefix("chunk:") for _, p in out])
        return out, written_words(row.text for row in rows.values())

    def _composed_titles(
        self, ranking: QuestionRanking, hops: dict[str, tuple[list[tuple[int, int]], set[str]]], named: list
    ) -> list:
        """Titles the question composes from a bridge's name and its own words
        (``entity_linking.composed_titles``; docs/retrieval.md, "Titles composed from a bridge"): the
        bridges are the entities a first-hop passage mentions and the titles its text names, the k-th
        passage's weighing 1 / k, as the titles its text names do."""
        from kg_pipelines.retrieval.entity_linking import composed_titles

        _, graph, names = self.graph()
        if graph is None or graph.empty:
            return []
        indptr, indices, kinds = graph.transition.indptr, graph.transition.indices, graph.kinds
        linked = {link.position for link in ranking.links}
        found: dict[int, object] = {}
        for first, said in hops.values():
            for rank, position in first:
                bridges = {p for p in indices[indptr[position] : indptr[position + 1]] if kinds[p] == "entity"}
                bridges |= {link.position for link in named}
                for link in composed_titles(ranking.question, sorted(bridges - linked), names, graph, 1.0 / rank, said):
                    if link.position not in linked and link.position not in found:
                        found[link.position] = link
        return list(found.values())

    def _relation_passages(
        self,
        ranking: QuestionRanking,
        walked: np.ndarray | None,
        hops: dict[str, tuple[list[tuple[int, int]], set[str]]],
        named: list,
    ) -> dict[str, float]:
        """The next hop chosen by the question's relation (docs/retrieval.md, "The relation's hop").
        First-hop passages (``hops``, per collection, as ``_first_hop`` gives them): the first walk's
        ``relation_hop_passages`` best passages that touch a name the question writes. Bridges: the
        entities they mention that the question does not link, and the titles their text names
        (``named``). The relation: the question's words less
        its names, function words and the words the first-hop passages already write ("the state
        where Henry Worrall died has how many congressional districts" -> state, congressional,
        districts). Each bridge passage scores its BM25 for those words times its first-walk
        probability (a bridge in hundreds of passages spreads thin); the ``relation_hop_seeds`` best
        seed the second walk, the r-th weighing ``passage_seed_weight`` / r, as a text ranking's
        passage does. chunk_id -> restart weight."""
        from kg_pipelines.retrieval.entity_linking import relation_words

        depth, keep = self.options.relation_hop_passages, self.options.relation_hop_seeds
        _, graph, _ = self.graph()
        asked = relation_words(ranking.question, ranking.links)
        if not depth or not keep or not asked or walked is None or graph is None or graph.empty:
            return {}
        indptr, indices, kinds = graph.transition.indptr, graph.transition.indices, graph.kinds

        def neighbours(position: int) -> list[int]:
            return indices[indptr[position] : indptr[position + 1]].tolist()

        linked = {link.position for link in ranking.links}
        out: dict[str, float] = {}
        for collection, (first, said) in hops.items():
            best = [position for _, position in first]
            bridges = {p for b in best for p in neighbours(b) if kinds[p] == "entity"} - linked
            bridges |= {link.position for link in named}
            candidates = sorted({p for b in bridges for p in neighbours(b) if kinds[p] == "chunk"} - set(best))
            if not candidates:
                continue
            index = self.index(collection)
            words = [w for w in asked if w.removesuffix("s") not in said]
            hits = index.bm25_within(
                " ".join(words), [graph.node_ids[p].removeprefix("chunk:") for p in candidates], len(candidates)
            )
            scored = sorted(
                ((score * walked[graph.position["chunk:" + chunk_id]], chunk_id) for chunk_id, score in hits),
                key=lambda pair: (-pair[0], pair[1]),
            )
            for rank, (score, chunk_id) in enumerate(scored[:keep], 1):
                if score > 0:
                    out[chunk_id] = out.get(chunk_id, 0.0) + self.options.passage_seed_weight / rank
        return out

    # -- the answer --------------------------------------------------------------------------------
    def retrieve(
        self, question: str, k: int = 10, collections: list[str] | None = None, variant: str | None = None
    ) -> list[RetrievedChunk]:
        """The ``k`` best chunks for ``question`` across ``collections`` (default: all)."""
        collections = self.check_collections(collections)
        if not clean_query(question) or not collections:
            return []
        ranking = self.rank(question, collections)
        variant = variant or self.options.variant
        lists = self.variant_lists(ranking, collections, variant)
        return self.materialize(ranking, lists, k, question, walk_scored=variant in WALK_SCORED_VARIANTS)

    def check_collections(self, collections: list[str] | None) -> list[str]:
        known = self.collections()
        if collections is None:
            return known
        unknown = [c for c in collections if c not in known]
        if unknown:
            raise ValueError(
                f"unknown collection(s) {', '.join(map(repr, unknown))}; known: {', '.join(known) or 'none'}"
            )
        return list(dict.fromkeys(collections))

    def materialize(
        self,
        ranking: QuestionRanking,
        lists: dict[str, list[tuple[str, float]]],
        k: int,
        question="",
        walk_scored: bool = False,
    ):
        """Chunk rows, titles and attribution for the best ``k`` of ``lists``. With several
        collections: when every list holds scores of the one graph walk (``walk_scored`` and each
        chunk a node of the walked graph), those scores compare across collections, so the best
        ``k`` are taken by score; otherwise the lists are fused by seed 004's enhanced RRF
        (``fusion.fuse``), which uses ranks only, each collection having its own embedding model."""
        found_by: dict[str, set[str]] = {}
        for source, per_collection in (("bm25", ranking.bm25), ("vector", ranking.vector)):
            for ranked in per_collection.values():
                for chunk_id, _ in ranked:
                    found_by.setdefault(chunk_id, set()).add(source)
        for chunk_id in self._linked_chunks(ranking):
            found_by.setdefault(chunk_id, set()).add("graph")
        snapshot, _, _ = self.graph()
        titles = _chunk_titles(snapshot)
        per_collection: dict[str, list[RetrievedChunk]] = {}
        for collection, ranked in lists.items():
            ranked = ranked[:k]
            rows = self.index(collection).rows([chunk_id for chunk_id, _ in ranked])
            per_collection[collection] = [
                RetrievedChunk(
                    chunk_id,
                    rows[chunk_id].document_id,
                    collection,
                    titles.get(chunk_id) or rows[chunk_id].document_id,
                    rows[chunk_id].text,
                    float(score),
                    tuple(sorted(found_by.get(chunk_id, ()))),
                )
                for chunk_id, score in ranked
                if chunk_id in rows  # deleted since it was ranked
            ]
        if len(per_collection) == 1:
            return next(iter(per_collection.values()))
        if walk_scored and self._all_walked(lists, k):
            merged = [chunk for chunks in per_collection.values() for chunk in chunks]
            return sorted(merged, key=lambda c: (-c.score, c.collection, c.chunk_id))[:k]
        return self._fuse_collections(per_collection, k, question or ranking.question)

    def _all_walked(self, lists: dict[str, list[tuple[str, float]]], k: int) -> bool:
        """Whether every listed chunk is a node of the walked graph (a collection whose chunks the
        snapshot does not hold yet falls back to its text ranking, whose scores are not the walk's)."""
        _, graph, _ = self.graph()
        if graph is None or graph.empty:
            return False
        return all("chunk:" + chunk_id in graph.position for ranked in lists.values() for chunk_id, _ in ranked[:k])

    def _linked_chunks(self, ranking: QuestionRanking) -> set[str]:
        """Chunks one hop from a linked name (what 'found by the graph' means in the attribution)."""
        _, graph, _ = self.graph()
        if graph is None or not ranking.links:
            return set()
        positions = [link.position for link in ranking.links]
        reached = graph.transition[:, positions].nonzero()[0]
        return {graph.node_ids[p].removeprefix("chunk:") for p in reached if graph.kinds[p] == "chunk"}

    def _fuse_collections(self, per_collection: dict[str, list[RetrievedChunk]], k: int, question: str):
        """Seed 004's fusion across collections (ranks only: each has its own embedding model);
        the best ``k`` by fused score, each with that score."""
        from kg_pipelines.retrieval.fusion import FusionConfig, RetrievedItem, fuse

        by_key = {(c.collection, c.chunk_id): c for chunks in per_collection.values() for c in chunks}
        items = {
            collection: [
                RetrievedItem(c.chunk_id, collection, c.text, c.score, rank, c.document_id, c.title)
                for rank, c in enumerate(chunks, 1)
            ]
            for collection, chunks in per_collection.items()
        }
        fused = fuse(items, question, FusionConfig.from_settings(self.settings))
        results = []
        for merged in fused.ranked[:k]:
            chunk = by_key[(merged.collection, merged.item_id)]
            results.append(replace(chunk, score=float(merged.fused_score)))
        return results


def seed_weight(link, graph, question: str, resemblance_weight: float) -> float:
    """Restart weight of a linked node (docs/retrieval.md, "Seeds").

    - HippoRAG's node specificity: the link's score over the passages the node touches (a name in
      every passage says little about which one);
    - a link that only *resembles* the question (``vector``: the question's embedding near a node
      name) is evidence of the kind the dense passage seeds carry, so it weighs on their scale
      (``resemblance_weight``, HippoRAG 2's 0.05), not as a name the question wrote;
    - a common word (a lower-case run of a question that capitalises its names, linked to a node
      that happens to bear that name: "big", "budget") weighs on the same scale.
    """
    from kg_pipelines.retrieval.entity_linking import common_word_mention

    weight = link.score / max(1.0, float(graph.chunk_count[link.position]))
    if link.method == "vector" or common_word_mention(link, question):
        weight *= resemblance_weight
    return weight


def _then(first: list[tuple[str, float]], rest: list[tuple[str, float]], limit: int) -> list[tuple[str, float]]:
    """``first``, then the items of ``rest`` it lacks, scored below every item of ``first``."""
    seen = {chunk_id for chunk_id, _ in first}
    floor = min((score for _, score in first), default=1.0)
    tail = [(chunk_id, floor * 0.5 / (1 + i)) for i, (chunk_id, _) in enumerate(c for c in rest if c[0] not in seen)]
    return (first + tail)[:limit]


def _rrf(ranked_lists, k_rrf: float) -> list[tuple[str, float]]:
    from kg_pipelines.retrieval.fusion import reciprocal_rank_fusion

    return reciprocal_rank_fusion(
        {f"list{i}": [chunk_id for chunk_id, _ in ranked] for i, ranked in enumerate(ranked_lists)}, k=k_rrf
    )


def _chunk_collections(snapshot) -> dict[str, str]:
    def build(s):
        return dict(zip(s.chunks.column("chunk_id").to_pylist(), s.chunks.column("collection").to_pylist()))

    return {} if snapshot is None else snapshot.derived("retrieval.chunk_collections", build)


def _chunk_titles(snapshot) -> dict[str, str]:
    def build(s):
        return dict(zip(s.chunks.column("chunk_id").to_pylist(), s.chunks.column("title").to_pylist()))

    return {} if snapshot is None else snapshot.derived("retrieval.chunk_titles", build)
