"""Word lists of the offline recogniser: a curated gazetteer, relation cues, and the name casing rule.

The lists and tables are data files in ``kg_pipelines/offline/data`` (``gazetteer.txt``,
``relation_cues.tsv``, ``stopwords.txt`` ...), read once through ``cue_words``; this module names
them and builds the lookups (gazetteer index, cue regexes).

Entity names (``display_name``)
-------------------------------
``display_name`` is ``kg_pipelines.ingestion.names.normalize_name``, the one normalizer that
extraction's post-processing applies too, so an offline name is already normalised: ordinary words
title-cased (``diet-induced obesity`` -> ``Diet-Induced Obesity``), symbols kept as written
(``SIRT1``, ``mTORC1``, ``NAD+``, ``TNF-α``), particles inside a name lower-case (``Ludwig van
Beethoven``, ``University of Vienna``).

Gazetteer entries map every synonym to one canonical form (``C. elegans`` and ``Caenorhabditis
elegans`` are both ``Caenorhabditis Elegans``; ``nicotinamide mononucleotide`` is ``NMN``), so the
same entity gets the same name in every chunk and document. Mouse-style gene symbols found by the
patterns (``Sirt6``, ``Foxo3``) are written upper-case (``SIRT6``) for the same reason.

Gazetteer format (``data/gazetteer.txt``, ``data/gazetteer_common_nouns.txt``)
----------------------------------------------------------------------------
One entry a line: ``canonical | preferred types | synonyms``. Types are tried in order against
the configured entity types (a longevity-extension type such as ``geroprotector`` first, then the
base type), falling back to ``concept``. Synonyms are separated by ``;``. Matching is
case-insensitive, hyphen/space-insensitive and whole-token; a name written with a leading ``=``
matches case-sensitively only (acronyms such as ``=WHO`` or ``=US`` that are also English words).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

# -- name casing ---------------------------------------------------------------------------------
# One normalizer for extraction and the lexicon (``kg_pipelines.ingestion.names``).
from kg_pipelines.ingestion.names import EDGE_PUNCT  # noqa: E402,F401
from kg_pipelines.ingestion.names import normalize_name as display_name
from kg_pipelines.offline import cue_words
from kg_pipelines.offline import vocabulary as voc
from kg_pipelines.offline.cue_words import data_lines, data_table, word_set, word_tuple

_SPACE = re.compile(r"\s+")


# -- tokens --------------------------------------------------------------------------------------

# A token: letters/digits (Unicode, so Greek letters count), inner apostrophes, an optional
# trailing "+" (NAD+). Hyphens and slashes separate tokens; the text between two tokens (the
# "joiner") tells whether they may belong to one name.
TOKEN_RE = re.compile(r"[^\W_]+(?:['’][^\W_]+)*\+?")


def strip_possessive(word: str) -> str:
    if len(word) > 3 and word[-2:].lower() in ("'s", "’s"):
        return word[:-2]
    return word


# -- gazetteer -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class GazetteerEntry:
    name: str  # display name
    types: tuple[str, ...]  # preferred types, best first
    bio_only: bool = False  # a common noun that names an organism only in biomedical text ("mice")


def _parse_gazetteer(lines: Iterable[str]) -> tuple[dict[str, GazetteerEntry], dict[str, GazetteerEntry], int]:
    insensitive: dict[str, GazetteerEntry] = {}
    sensitive: dict[str, GazetteerEntry] = {}
    longest = 1
    for raw in lines:
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        canonical, types, *rest = [part.strip() for part in line.split("|")]
        synonyms = [s.strip() for s in rest[0].split(";")] if rest and rest[0] else []
        bio_only = canonical.startswith("~")
        canonical = canonical.lstrip("~")
        entry = GazetteerEntry(
            display_name(canonical.lstrip("=")), tuple(t.strip() for t in types.split(",")), bio_only
        )
        for surface in [canonical, *synonyms]:
            exact = surface.startswith("=")
            surface = surface.lstrip("=")
            tokens = [t.replace("’", "'") for t in TOKEN_RE.findall(surface)]
            if not tokens:
                continue
            tokens[-1] = strip_possessive(tokens[-1])  # the text side strips it from a span's end too
            longest = max(longest, len(tokens))
            if exact:
                sensitive.setdefault(" ".join(tokens), entry)
            else:
                insensitive.setdefault(" ".join(tokens).lower(), entry)
    return insensitive, sensitive, longest


def _vocabulary_gazetteer() -> list[str]:
    """Gazetteer lines for the general vocabulary (``vocabulary.py``): places (matched as written,
    capitalised), disease words, chemical elements, and organisms named by a common noun."""
    lines = []
    for place in (*voc.COUNTRIES, *voc.REGIONS, *voc.CITIES):
        lines.append(f"={place} | location")
    for word in sorted(voc.DISEASE_WORDS):
        lines.append(f"{word} | disease, phenotype")
    for word in sorted(voc.ELEMENT_WORDS):
        lines.append(f"{word} | compound")
    return lines


GAZETTEER, GAZETTEER_EXACT, GAZETTEER_MAX_TOKENS = _parse_gazetteer(
    [*data_lines("gazetteer.txt"), *data_lines("gazetteer_common_nouns.txt"), *_vocabulary_gazetteer()]
)
GAZETTEER_FIRST = frozenset(k.split(" ")[0] for k in GAZETTEER)
GAZETTEER_EXACT_FIRST = frozenset(k.split(" ")[0] for k in GAZETTEER_EXACT)

# Species epithets of gazetteer binomials, to resolve "A. muciniphila"-style abbreviations.
SPECIES_INDEX: dict[tuple[str, str], GazetteerEntry] = {}
for _key, _entry in GAZETTEER.items():
    _parts = _key.split(" ")
    if len(_parts) == 2 and len(_parts[0]) > 2 and _parts[0].isalpha() and _parts[1].isalpha():
        if _entry.types[0] in ("microbe", "model_organism", "organism"):
            SPECIES_INDEX.setdefault((_parts[0][0], _parts[1]), _entry)

# -- general word lists --------------------------------------------------------------------------

STOPWORDS = word_set("stopwords.txt")

# Capitalised words that start sentences or label things but are not names.
COMMON_CAPITALISED = word_set("common_capitalised.txt")

# Gene/protein symbols found by pattern that belong to protein families (else: gene).
PROTEIN_PREFIXES = word_tuple("protein_prefixes.txt")

# All-caps tokens that look like symbols but are not genes or proteins.
ACRONYM_STOP = word_set("acronym_stop.txt")

# Tokens that look like mixed-case symbols but are units, techniques or journals.
SYMBOL_STOP = word_set("symbol_stop.txt")

# Genera accepted as the first word of a binomial ("Bacteroides fragilis") whatever their ending.
KNOWN_GENERA = word_set("known_genera.txt")
ORGANISM_GENERA = word_set("organism_genera.txt")
# Endings that mark an unknown capitalised word as a genus. Only distinctive ones: "-ia" and "-ium"
# end place names too ("Nigeria", "Virginia", "Belgium"), "-ella" given names ("Isabella").
GENUS_ENDINGS = word_tuple("genus_endings.txt")
SPECIES_ENDINGS = word_tuple("species_endings.txt")
# Words after a genus that are not species epithets ("Bacteroides increased", "Akkermansia abundance").
NOT_SPECIES = word_set("not_species.txt")
NOT_SPECIES_ENDINGS = word_tuple("not_species_endings.txt")

STRONG_COMPOUND_SUFFIXES = voc.STRONG_COMPOUND_SUFFIXES
WEAK_COMPOUND_SUFFIXES = voc.WEAK_COMPOUND_SUFFIXES
WEAK_SUFFIX_MIN = voc.WEAK_SUFFIX_MIN
COMPOUND_STOP = voc.COMPOUND_STOP
DISEASE_SUFFIXES = voc.DISEASE_SUFFIXES
# Distinctive enough to name a disease even capitalised at a sentence start ("Hepatitis ...");
# "-oma" is not ("Thomas", "Oklahoma").
STRONG_DISEASE_SUFFIXES = word_tuple("strong_disease_suffixes.txt")
DISEASE_STOP = voc.DISEASE_STOP

# Heads of multi-word disease names ("chronic kidney disease", "breast cancer").
DISEASE_HEADS = {w: w for w in voc.DISEASE_HEAD_WORDS}
ADJECTIVE_SUFFIXES = word_tuple("adjective_suffixes.txt")
ORGAN_WORDS = word_set("organ_words.txt")
NON_MODIFIERS = word_set("non_modifiers.txt")
CELL_MODIFIERS = word_set("cell_modifiers.txt")

# Capitalised-phrase cues for the general domain.
ORG_WORDS = voc.ORG_LAST
ORG_FIRST = voc.ORG_FIRST
LOCATION_LAST = word_set("location_last.txt")
LOCATION_FIRST = voc.LOCATION_FIRST
DEMONYMS = voc.DEMONYMS
PERSON_TITLES = voc.PERSON_TITLES
NAME_PARTICLES = word_set("name_particles.txt")

# -- relation cues ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cue:
    tag: str  # the relationship keyword
    verb: str | None  # regex of the verbal forms (active or passive), None if none
    noun: str | None  # regex of the nominal/adjectival forms
    base: str | None  # the base verb for questions ("activate"), None if not a verb cue
    kind: str  # "verb" | "assoc" | "effect" | "place" | "other"


CUES: tuple[Cue, ...] = tuple(
    Cue(tag, *(None if cell == "-" else cell for cell in (verb, noun, base)), kind)
    for tag, verb, noun, base, kind in data_table("relation_cues.tsv")
)


def _branches(pattern: str) -> list[str]:
    """The top-level alternatives of a regex."""
    out, depth, start = [], 0, 0
    for i, c in enumerate(pattern):
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "|" and depth == 0:
            out.append(pattern[start:i])
            start = i + 1
    out.append(pattern[start:])
    return out


def _first_letters(pattern: str) -> set[str]:
    """Letters a match of ``pattern`` (a cue regex: literals, groups, ``?``) can start with."""
    letters: set[str] = set()
    for branch in _branches(pattern):
        if branch.startswith("(?:"):
            depth, end = 0, 0
            for i, c in enumerate(branch):
                depth += c == "("
                depth -= c == ")"
                if depth == 0:
                    end = i
                    break
            letters |= _first_letters(branch[3:end])
            if branch[end + 1 : end + 2] == "?":
                letters |= _first_letters(branch[end + 2 :])
        elif branch:
            letters.add(branch[0].lower())
    return letters


def _cue_regexes() -> dict[str, re.Pattern[str]]:
    """One regex per first letter, tried at word starts only (much cheaper than one alternation
    scanned over every character)."""
    parts: dict[str, list[str]] = {}
    for i, cue in enumerate(CUES):
        for kind, pattern in (("v", cue.verb), ("n", cue.noun)):
            if pattern:
                for letter in sorted(_first_letters(pattern)):
                    parts.setdefault(letter, []).append(f"(?P<{kind}{i}>{pattern})")
    return {
        letter: re.compile(r"(?:" + "|".join(alts) + r")(?![\w-])", re.IGNORECASE) for letter, alts in parts.items()
    }


CUE_BY_LETTER = _cue_regexes()


# Negation cues and clause words are word lists in data/ (``cue_words``).
NEGATION = cue_words.NEGATION
CLAUSE_WORDS = cue_words.CLAUSE_WORDS

# Question wording per entity type ("Which compound activates AMPK?").
TYPE_NOUN = dict(data_table("type_nouns.tsv"))
# Types whose role in a disease or process is worth asking about.
ACTOR_TYPES = frozenset(
    "gene protein compound geroprotector microbe intervention pathway biological_process aging_hallmark "
    "cell_type biomarker".split()
)
CONTEXT_TYPES = frozenset("disease phenotype lifespan_outcome biological_process aging_hallmark pathway".split())
PLURAL_WORDS = word_set("plural_words.txt")
