"""The one entity-name normalizer: extraction's post-processing and the offline lexicon both use it.

``normalize_name`` gives the display name of an entity, the same for every spelling a provider
may return, so that one entity has one name across chunks and documents:

- surrounding punctuation and white space are trimmed, inner white space collapsed, unbalanced
  parentheses dropped;
- every space- or hyphen-separated part that is an ordinary word is title-cased
  (``diet-induced obesity`` -> ``Diet-Induced Obesity``, ``alzheimer's disease`` ->
  ``Alzheimer's Disease``);
- a part that holds a digit, an inner capital or a Greek letter is a symbol and is kept exactly as
  written (``SIRT1``, ``mTORC1``, ``NAD+``, ``p16INK4a``, ``IL-6``, ``TNF-α``, ``PGC-1α``,
  ``β-catenin`` -> ``β-Catenin``): ``TNF-α`` never becomes ``TNF-Α``; so is a lower-case word
  with a number after a hyphen, as worm genes are written (``daf-15``, ``bec-1``);
- a particle or short function word inside a name stays lower-case (``Ludwig van Beethoven``,
  ``Charles de Gaulle``, ``University of Vienna``, ``Food and Drug Administration``); as the
  first word it is capitalised like any other.

``node_key`` is the case- and separator-insensitive identity of a name (``Diet-induced obesity``
and ``diet induced  OBESITY`` are one node); ``entity_node_id`` adds the entity type.
"""

from __future__ import annotations

import re
from functools import lru_cache

EDGE_PUNCT = " \t\r\n.,;:!?\"'`()[]{}<>*_#|/\\"
_SPACE = re.compile(r"\s+")
_SEPARATORS = re.compile(r"[-_\s]+")
_NUMBERED_LOWER = re.compile(r"[a-z]{3,4}-\d+[a-z]?")
_GREEK = frozenset("αβγδεζηθικλμνξοπρστυφχψωΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩ")
# Lower-case inside a name: name particles and the short words of titles.
LOWER_PARTICLES = frozenset(
    """
of and the for in on at to by with from a an or de da di du del della dei des der den van von la le los las
y e zu ter ten al bin ibn
    """.split()
)


@lru_cache(maxsize=1 << 16)
def normalize_name(name: str) -> str:
    """The display name for a surface form or canonical name (see the module docstring). Kept for
    the last 65,536 names (a few MB): a name is normalized again and again (each mention the
    offline analysis finds, each entity and relationship endpoint extraction writes, each alias),
    31,238 calls for 7,441 distinct names on HotpotQA as 10 long documents."""
    name = _SPACE.sub(" ", name).strip(EDGE_PUNCT)
    if name.count("(") != name.count(")"):
        name = name.replace("(", "").replace(")", "").strip()
    words = name.split(" ")
    last = len(words) - 1
    return " ".join(_title_word(w, 0 < k < last) for k, w in enumerate(words))


def _title_word(word: str, inner: bool) -> str:
    if inner and word.lower() in LOWER_PARTICLES and (word.islower() or word.istitle()):
        return word.lower()
    if _NUMBERED_LOWER.fullmatch(word):
        return word  # a symbol written in lower case, as worm genes are: "daf-15"
    return "-".join(_title_part(p) for p in word.split("-"))


def _title_part(part: str) -> str:
    if not part or any(c.isdigit() for c in part) or any(c.isupper() for c in part[1:]):
        return part
    if any(c in _GREEK for c in part):
        return part  # a symbol with a Greek letter: kept as written
    if part.isalpha() or "'" in part or "’" in part:
        return part[0].upper() + part[1:].lower()
    return part[0].upper() + part[1:]


def is_blank(text: str) -> bool:
    """Nothing but space: Python's white space or U+FEFF (a byte-order mark, which JSON Schema's ``\\s``
    counts as space). The API's schema refuses the same texts (``api.models.VISIBLE``)."""
    return not text.replace("\ufeff", "").strip()


def node_key(name: str) -> str:
    """Case- and separator-insensitive key: ``Diet-induced obesity`` == ``diet induced  Obesity``."""
    return _SPACE.sub(" ", _SEPARATORS.sub(" ", name.casefold())).strip()


def entity_node_id(name: str, entity_type: str) -> str:
    return f"{entity_type}:{node_key(name)}"
