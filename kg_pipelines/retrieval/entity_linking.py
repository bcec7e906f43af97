"""Linking a question's names to graph nodes: exact, then fuzzy, then vector (cheap to costly).

- **exact**: every run of up to ``MAX_NAME_WORDS`` words of the question is keyed as the graph
  keys names (``node_key``: case- and separator-insensitive) and looked up among entity and title
  nodes; the longest runs win and the words they cover are not used again ("New York City" is
  taken whole, not also as "York");
- **fuzzy**: runs of capitalised words (or words with digits) left unlinked are compared with every
  name by rapidfuzz's ``ratio`` (spelling variants, a missing accent, a plural), kept above
  ``fuzzy_cutoff``;
- **vector**: the question's embedding against the ``graph_nodes`` LanceDB table (the
  ``node_embedding_model``), nearest entity or title nodes above ``vector_min_similarity``: a
  question that names nothing literally still gets a start.

Runs made only of function words ("the", "which", "of the") are never looked up.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rapidfuzz import fuzz, process

from kg_pipelines.ingestion.names import EDGE_PUNCT, LOWER_PARTICLES, node_key
from kg_pipelines.retrieval.graph_ranking import PassageGraph

MAX_NAME_WORDS = 8
LINKED_KINDS = ("entity", "title")
TITLE_QUALIFIER = re.compile(r"\s*\([^()]*\)\s*$")
_WORD = re.compile(r"[^\s,;:!?\"“”()\[\]{}]+")
# words that never name anything on their own: question words, auxiliaries, pronouns
FUNCTION_WORDS = (
    frozenset(
        """
what which who whom whose where when why how is are was were be been being do does did has have had
can could would should will shall may might must this that these those it its they them their he him
his she her we our you your i me my one ones there here than then not no yes both either neither
also as if so such same other another more most less least many much very
    """.split()
    )
    | LOWER_PARTICLES
)


@dataclass(frozen=True)
class LinkedNode:
    position: int
    node_id: str
    name: str
    method: str  # exact | fuzzy | vector
    score: float  # 1.0 for exact, the ratio / 100 for fuzzy, the cosine similarity for vector
    mention: str  # the words of the question it was linked from ('' for vector)


@dataclass
class NameIndex:
    """Entity and title names of a passage graph: key -> positions, and the keys for fuzzy lookup."""

    by_key: dict[str, list[int]]
    keys: list[str]

    @classmethod
    def build(cls, graph: PassageGraph) -> NameIndex:
        by_key: dict[str, list[int]] = {}
        for position, (kind, name) in enumerate(zip(graph.kinds, graph.names)):
            if kind not in LINKED_KINDS or not name:
                continue
            keys = {node_key(name)}
            if kind == "title":  # "Mercury (planet)" is also found as "Mercury", as graph building links it
                keys.add(node_key(TITLE_QUALIFIER.sub("", name)))
            for key in keys - {""}:
                by_key.setdefault(key, []).append(position)
        return cls(by_key, list(by_key))


def question_words(question: str) -> list[str]:
    words = (w.strip(EDGE_PUNCT) for w in _WORD.findall(question))
    return [w.removesuffix("'s").removesuffix("’s") if w.endswith(("'s", "’s")) else w for w in words if w]


def _meaningful(words: list[str]) -> bool:
    return any(w.casefold() not in FUNCTION_WORDS and len(w) > 1 for w in words)


def link_exact(words: list[str], names: NameIndex, graph: PassageGraph) -> tuple[list[LinkedNode], set[int]]:
    """Longest word runs first; returns the links and the positions of the words they cover."""
    links: list[LinkedNode] = []
    covered: set[int] = set()
    for length in range(min(MAX_NAME_WORDS, len(words)), 0, -1):
        for start in range(0, len(words) - length + 1):
            span = range(start, start + length)
            if covered.intersection(span) or not _meaningful(words[start : start + length]):
                continue
            mention = " ".join(words[start : start + length])
            found = names.by_key.get(node_key(mention))
            if not found:
                continue
            covered.update(span)
            links += [LinkedNode(p, graph.node_ids[p], graph.names[p], "exact", 1.0, mention) for p in found]
    return links, covered


def _name_like(word: str) -> bool:
    return word[:1].isupper() or any(c.isdigit() for c in word)


def link_fuzzy(
    words: list[str], covered: set[int], names: NameIndex, graph: PassageGraph, cutoff: float
) -> list[LinkedNode]:
    """Runs of name-like words not linked exactly, matched by spelling similarity."""
    runs, current = [], []
    for i, word in enumerate(words):
        if i not in covered and _name_like(word) and word.casefold() not in FUNCTION_WORDS:
            current.append(word)
        elif current:
            runs.append(current)
            current = []
    if current:
        runs.append(current)
    links = []
    for run in runs:
        mention = " ".join(run)
        if len(mention) < 4 or not names.keys:
            continue
        for key, score, _ in process.extract(
            node_key(mention), names.keys, scorer=fuzz.ratio, score_cutoff=cutoff, limit=3
        ):
            links += [
                LinkedNode(p, graph.node_ids[p], graph.names[p], "fuzzy", score / 100.0, mention)
                for p in names.by_key[key]
            ]
    return links


def link_vector(question_vector, node_vectors, graph: PassageGraph, k: int, min_similarity: float) -> list[LinkedNode]:
    if question_vector is None or node_vectors is None:
        return []
    links = []
    for node_id, similarity in node_vectors.search(question_vector, k=k * 3):
        position = graph.position.get(node_id)
        if position is None or graph.kinds[position] not in LINKED_KINDS or similarity < min_similarity:
            continue
        links.append(LinkedNode(position, node_id, graph.names[position], "vector", float(similarity), ""))
        if len(links) == k:
            break
    return links


def link_question(
    question: str,
    graph: PassageGraph,
    names: NameIndex,
    fuzzy_cutoff: float = 90.0,
    question_vector=None,
    node_vectors=None,
    vector_k: int = 3,
    vector_min_similarity: float = 0.5,
) -> list[LinkedNode]:
    """Every node the question names, best link per node (exact > fuzzy > vector)."""
    if graph.empty:
        return []
    words = question_words(question)
    exact, covered = link_exact(words, names, graph)
    found = exact + link_fuzzy(words, covered, names, graph, fuzzy_cutoff)
    found += link_vector(question_vector, node_vectors, graph, vector_k, vector_min_similarity)
    best: dict[int, LinkedNode] = {}
    for link in found:
        if link.position not in best:
            best[link.position] = link
    return list(best.values())
