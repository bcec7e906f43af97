"""The seed's node similarity (seed 001, ``calculate_node_similarity``), exactly:

    score = 0.7 x embedding cosine + 0.2 x name similarity + 0.1 x metadata overlap

- embedding cosine: of the two node vectors (LanceDB ``graph_nodes``: the name, and the
  description when it is the node's own, see ``stores.node_vectors``); 0 when a node has no
  vector, as in the seed;
- name similarity: 1 - Levenshtein distance / length of the longer name, on lower-cased names with
  ``_`` read as a space (rapidfuzz); two empty names are identical (1.0);
- metadata overlap: keys of either node's metadata whose values agree on both, over the keys of
  either (``values_agree``: equal with case and white space aside; two numbers only when equal;
  two texts also when the words of one hold the other's, rapidfuzz token-set ratio >= 90). The
  seed leaves this function open. Two different whole numbers under one key (a year, a date or an
  id written as digits) are a conflict (``metadata_conflict``): the cascade keeps such a pair apart, as it does names
  that differ by a number.
  It counts only when BOTH nodes have metadata: an empty map is no evidence either way, so it
  contributes nothing. Without metadata on both sides the score is taken over the two signals
  present, renormalised to their weights: ``(0.7 x embedding + 0.2 x name) / 0.9``. A pair of
  pipeline nodes (which carry no metadata) then needs the same embedding and name agreement as
  any other to reach the threshold, instead of +0.1 for nothing (1.0 for two empty maps, as before,
  put FOXO1 / FOXO4 sharing one sentence at 0.9537); 0 instead would cap such pairs at 0.9, below
  the default threshold, so that no two pipeline nodes could ever merge on the score. At 0.95 a
  renormalised pair needs 0.7 x embedding + 0.2 x name >= 0.855: an identical name and a cosine of
  0.936, or a name similarity of 0.8 and a cosine of 0.993. ``metadata`` is None then (stored as 0
  in ``duplicate_candidates``, the reason says the score is over embedding and name).

Only nodes of the same type are ever compared (the callers group by type).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import numpy as np
from rapidfuzz import fuzz
from rapidfuzz.distance import Levenshtein

EMBEDDING_WEIGHT, NAME_WEIGHT, METADATA_WEIGHT = 0.7, 0.2, 0.1
DEFAULT_THRESHOLD = 0.95
TEXT_AGREEMENT = 90  # rapidfuzz token-set ratio at which two metadata texts agree


@dataclass(frozen=True)
class NodeSimilarity:
    embedding: float
    name: float
    metadata: float | None  # None: not both nodes have metadata, the score is over embedding and name

    @property
    def total(self) -> float:
        both = EMBEDDING_WEIGHT * self.embedding + NAME_WEIGHT * self.name
        if self.metadata is None:
            return both / (EMBEDDING_WEIGHT + NAME_WEIGHT)
        return both + METADATA_WEIGHT * self.metadata


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


_NUMBER = re.compile(r"[-+]?[$€£]?\s*\d[\d,]*(\.\d+)?")


def _value(value: object) -> str:
    return " ".join(str(value).casefold().split()) if not isinstance(value, (dict, list)) else json.dumps(value)


def _number(value: str) -> float | None:
    """The value as a number when it is one (a year, a price, a date or id written as digits)."""
    if not _NUMBER.fullmatch(value):
        return None
    try:
        return float(re.sub(r"[^\d.+-]", "", value))
    except ValueError:
        return None


def values_agree(value_a: object, value_b: object) -> bool:
    """Equal once case and white space are set aside; two numbers only when equal; two texts also
    when one's words contain the other's, spelling aside (token-set ratio >= 90: ``sigmod record``
    and ``acm sigmod record``, authors listed in another order)."""
    a, b = _value(value_a), _value(value_b)
    if a == b:
        return True
    number_a, number_b = _number(a), _number(b)
    if number_a is not None or number_b is not None:
        return number_a == number_b
    return fuzz.token_set_ratio(a, b) >= TEXT_AGREEMENT


def metadata_overlap(meta_a: object, meta_b: object) -> float | None:
    """Share of the keys of either node whose values agree on both (``values_agree``); None unless
    both nodes have metadata."""
    a, b = metadata_of(meta_a), metadata_of(meta_b)
    if not a or not b:
        return None
    keys = set(a) | set(b)
    return sum(1 for k in keys if k in a and k in b and values_agree(a[k], b[k])) / len(keys)


def metadata_conflict(meta_a: object, meta_b: object) -> str | None:
    """A key both nodes have whose values are two different whole numbers (a year, a date or an id
    written as digits): two records of two things, like names that differ by a number. Amounts
    with decimals (a price, a measurement) vary between two records of one thing: they only lower
    the overlap."""
    a, b = metadata_of(meta_a), metadata_of(meta_b)
    for key in sorted(set(a) & set(b)):
        value_a, value_b = _value(a[key]), _value(b[key])
        if value_a.isdigit() and value_b.isdigit() and int(value_a) != int(value_b):
            return f"metadata {key} differs: {a[key]} / {b[key]}"
    return None


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
