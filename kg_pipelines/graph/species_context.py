"""The species rule of duplicate detection: a gene named in a rat study is not the human gene.

A gene or protein name stands for one species' gene: every gene and protein database keeps human
MMP2 and rat Mmp2, human p27Kip1 and mouse p27-kip1 as two records, and authors write both in
every notation (MMP-2, Mmp2, mmp2), so no name tells them apart. The text around a name often
does: the study says which organism it worked on ("in a rat model", "patients", "mice").

A node's **organism context** is the set of organisms named (``data/organisms.txt``) in the
texts it was found in: the chunks that support it (``kg_node_support`` -> ``chunks``) and its
description. For two nodes of a species-specific type (``data/species_specific_types.txt``: gene,
protein ...) that the rest of the cascade would merge or send to review:

- both contexts known and disjoint (one found only in texts about rats, the other only in texts
  about people): a conflict, kept apart, as two records whose metadata conflict are;
- one context known, the other empty (its texts name no organism): unsure, left for review (the
  LLM or a person; formation time, which has no grey zone, does not merge it): the name alone
  does not say the species agree;
- an organism in common, but one context names others too (one paper on human and mouse p38
  MAPK, the other on human p38MAPK; orthologs share their names): unsure, left for review;
- neither names one (a gene list, an imported record): unsure too, left for review;
- both name the same one organism: the rest of the cascade decides.

A name identifies a gene only with its species, so a merge of two gene nodes on their names
needs the texts to say the species agree.

Other types (a disease, a compound, a process) are the same thing in a mouse study and a human
one, and are never checked.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

import duckdb

from kg_pipelines.graph.data_files import data_lines

_TYPE_SEPARATORS = re.compile(r"[\s_\-]+")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")


@functools.cache
def organism_words() -> dict[str, str]:
    """Word or phrase (lower case) -> the organism it names."""
    found = {}
    for line in data_lines("organisms.txt"):
        organism, _, words = line.partition("|")
        for word in words.split(","):
            if word.strip():
                found[" ".join(word.strip().lower().split())] = organism.strip()
    return found


@functools.cache
def _pattern() -> re.Pattern:
    phrases = sorted(organism_words(), key=len, reverse=True)  # guinea pig before pig
    body = "|".join(r"\s+".join(map(re.escape, p.split())) for p in phrases)
    # whole words; "non-human" and "nonhuman" name no human
    return re.compile(r"(?<![\w-])(?<!non-)(" + body + r")(?![\w-])", re.IGNORECASE)


def organisms_in(text: str | None) -> frozenset[str]:
    """The organisms a text names (lower case or capitalised words: an all-capitals word such as
    CAT or RAT is a symbol, not an animal)."""
    if not text:
        return frozenset()
    words = organism_words()
    found = set()
    for match in _pattern().finditer(text):
        written = match.group(1)
        letters = [c for c in written if c.isalpha()]
        if len(letters) > 1 and all(c.isupper() for c in letters):
            continue
        found.add(words[" ".join(written.lower().split())])
    return frozenset(found)


def _type_key(node_type: str) -> str:
    return _TYPE_SEPARATORS.sub(" ", _CAMEL.sub(" ", node_type or "")).strip().lower()


@functools.cache
def species_specific_types() -> frozenset[str]:
    return frozenset(_type_key(t) for t in data_lines("species_specific_types.txt"))


def is_species_specific(node_type: str) -> bool:
    """Whether names of this type stand for one species' thing (gene, protein, GeneOrGeneProduct ...)."""
    return _type_key(node_type) in species_specific_types()


CONFLICT, UNSURE = "conflict", "unsure"


def organism_check(context_a: frozenset[str], context_b: frozenset[str]) -> tuple[str, str] | None:
    """How the organism contexts of two nodes of a species-specific type bear on merging them:
    ``(CONFLICT, why)`` when both are known and disjoint (two genes of two species: kept apart);
    ``(UNSURE, why)`` when only one is known (the texts of one name an organism, those of the
    other none), when neither is known, or when they share an organism but one of them names
    others too (a paper on human and mouse p38 MAPK: either species' gene): nothing says the
    species agree, so the pair is left for review instead of merging on its name alone; None only
    when both name the same one organism (the rest of the cascade decides)."""
    if context_a and context_b:
        if context_a == context_b and len(context_a) == 1:
            return None
        shown = f"{', '.join(sorted(context_a))} / {', '.join(sorted(context_b))}"
        if context_a & context_b:
            return UNSURE, f"the texts name several organisms ({shown}): either may be another species' gene"
        return CONFLICT, f"found in texts about different organisms: {shown}"
    if context_a or context_b:
        known = ", ".join(sorted(context_a or context_b))
        return UNSURE, f"the texts of one node name an organism ({known}), the other's none: the species may differ"
    return UNSURE, "the texts of neither node name an organism: the species may differ"


def organism_contexts(conn: duckdb.DuckDBPyConnection, node_ids: Iterable[str]) -> dict[str, frozenset[str]]:
    """node_id -> the organisms named in the chunks that support it and in its description (and
    the descriptions of its supporting mentions). Nodes not in the graph get an empty context."""
    ids = sorted(set(node_ids))
    texts: dict[str, list[str]] = {i: [] for i in ids}
    if not ids:
        return {}
    tables = {r[0] for r in conn.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
    queries = ["SELECT node_id, description FROM kg_nodes WHERE node_id IN (SELECT unnest(?::VARCHAR[]))"]
    if "kg_node_support" in tables:
        queries.append(
            "SELECT node_id, description FROM kg_node_support WHERE node_id IN (SELECT unnest(?::VARCHAR[]))"
        )
        if "chunks" in tables:
            queries.append(
                "SELECT DISTINCT s.node_id, c.text FROM kg_node_support s JOIN chunks c USING (chunk_id) "
                "WHERE s.node_id IN (SELECT unnest(?::VARCHAR[]))"
            )
    for sql in queries:
        for node_id, text in conn.execute(sql, [ids]).fetchall():
            if text:
                texts[node_id].append(text)
    return {node_id: frozenset().union(*(organisms_in(t) for t in found)) for node_id, found in texts.items()}
