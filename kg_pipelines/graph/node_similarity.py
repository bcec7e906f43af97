"""The seed's node similarity (seed 001, ``calculate_node_similarity``), exactly:

    score = 0.7 x embedding cosine + 0.2 x name similarity + 0.1 x metadata overlap

- embedding cosine: of the two node vectors (LanceDB ``graph_nodes``, text ``name. description``);
  0 when a node has no vector, as in the seed;
- name similarity: 1 - Levenshtein distance / length of the longer name, on lower-cased names with
  ``_`` read as a space (rapidfuzz); two empty names are identical (1.0);
- metadata overlap: keys of either node's metadata whose values are equal on both, over the keys
  of either. The seed leaves this function open; two nodes without metadata have nothing that
  disagrees and score 1.0 (with 0 the score of two pipeline nodes could never reach 0.95: 0.7 + 0.2
  is its ceiling then), and one node with metadata against one without scores 0.

Only nodes of the same type are ever compared (the callers group by type).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
from rapidfuzz.distance import Levenshtein

EMBEDDING_WEIGHT, NAME_WEIGHT, METADATA_WEIGHT = 0.7, 0.2, 0.1
DEFAULT_THRESHOLD = 0.95


@dataclass(frozen=True)
class NodeSimilarity:
    embedding: float
    name: float
    metadata: float

    @property
    def total(self) -> float:
        return EMBEDDING_WEIGHT * self.embedding + NAME_WEIGHT * self.name + METADATA_WEIGHT * self.metadata


def normalized_name(name: str) -> str:
    """Lower-cased, ``_`` as a space, runs of spaces as one (the seed's name preparation)."""
    return " ".join((name or "").lower().replace("_", " ").split())


def name_similarity(name_a: str, name_b: str) -> float:
    a, b = normalized_name(name_a), normalized_name(name_b)
    if not a and not b:
        return 1.0
    return float(Levenshtein.normalized_similarity(a, b))


def metadata_of(value: object) -> dict:
    """A node's metadata as a dict (kg_nodes stores JSON text; anything else counts as none)."""
    if isinstance(value, dict):
        return value
    if isinstance(value, str) and value.strip():
        try:
            loaded = json.loads(value)
        except json.JSONDecodeError:
            return {}
        return loaded if isinstance(loaded, dict) else {}
    return {}


def metadata_overlap(meta_a: object, meta_b: object) -> float:
    a, b = metadata_of(meta_a), metadata_of(meta_b)
    keys = set(a) | set(b)
    if not keys:
        return 1.0
    return sum(1 for k in keys if k in a and k in b and a[k] == b[k]) / len(keys)


def cosine(vector_a: np.ndarray | None, vector_b: np.ndarray | None) -> float:
    if vector_a is None or vector_b is None:
        return 0.0
    norm = float(np.linalg.norm(vector_a) * np.linalg.norm(vector_b))
    return 0.0 if norm == 0.0 else float(np.dot(vector_a, vector_b) / norm)


def node_similarity(
    vector_a: np.ndarray | None,
    vector_b: np.ndarray | None,
    name_a: str,
    name_b: str,
    meta_a: object = None,
    meta_b: object = None,
) -> NodeSimilarity:
    return NodeSimilarity(
        embedding=cosine(vector_a, vector_b),
        name=name_similarity(name_a, name_b),
        metadata=metadata_overlap(meta_a, meta_b),
    )


def name_floor(score_floor: float) -> float:
    """The lowest name similarity with which a pair can still reach ``score_floor`` (perfect
    embedding and metadata): the cascade's cheap fuzzy check drops pairs below it before any
    vector work."""
    return max(0.0, (score_floor - EMBEDDING_WEIGHT - METADATA_WEIGHT) / NAME_WEIGHT)
