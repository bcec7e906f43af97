"""Offline rationale QA: the decomposer and the reasoner of PIKE-RAG without an LLM.

Query-time only (ingestion never calls it, so ``llm/versions.py`` leaves it out of the offline
heuristics' version: changing it re-processes no chunk).

**The context as a graph.** The gathered chunks are split into sentences (numbered ``p.s``:
passage ``p``, sentence ``s``, both from 1; Markdown headings are titles and state nothing, so they
are left out). Each sentence carries the entities the offline extractor finds in it (the same
recognisers as ingestion, so the same nodes the graph holds, with their types; a name the graph
knows, ``known_names``, counts too), and the relations between them: the extractor's relationship
keywords (``increases``, ``activates``, ... ``negated``) between two entities of one sentence. Two
sentences sharing an entity are linked through it: these are the paths the reasoner walks.

**The question.** Read with the same recognisers:
- its *anchors*: the things it names (entity mentions, names of the context's entities it contains,
  and name-like words: capitalised inside the question, all-caps, with a digit or a ``+``), most
  specific first (a written name before a common noun, then the one fewest sentences mention);
- its *wh-phrase* ("Which gut bacterium", "Receptor" in "Receptor of X?"): from the question word to
  the first auxiliary or relation verb; the last *type noun* in it (``data/answer_type_nouns.txt``:
  bacterium -> microbe, receptor -> protein, ...) says what kind of entity the answer is; words of
  the wh-phrase describe the answer and are not anchors ("gut" in "Which gut bacterium");
- its other type nouns ("the *drug* tested in ...", "the *coenzyme* that ..."): what a bridge is;
- its relations: the relation verbs it uses, by class (``data/relation_classes.txt``: "raise" and
  "increase" are one relation);
- its own words for a relation the lexicon does not know ("switch on", "make from"): each is read
  by meaning (``relation_by_meaning``: the nearest verb cue by the packaged embedder's cosine, with a
  margin over other classes); when a chain states that relation, those words count as held.

**Paraphrased questions.** A question rarely uses the text's words. What the reasoner reads as the
same: the members of a group of general verbs and phrases (``data/paraphrase_groups.txt``: "natural
source of" and "produced by", "coined the term" and "named"); an abbreviation the text defines for an
entity ("OEA" for Oleoylethanolamide) and the question's other name for it; the words the question
describes an anchor with ("the gut lipid mediator OEA"), when any sentence or the node description
says them of it; a kind the text states ("X is a tyrosine kinase inhibitor", "a protein called X",
a long form ending in the kind, "fibroblast growth factor 23 (FGF23)"); a name the text introduces
after a kind noun ("a protein called microbial anti-inflammatory molecule") is an entity of that
kind. "Who" asks for a person. A question opening with a setting ("In the epithelial cells lining
the colon, which ...") requires its other names.

**Reasoner** (``reason``). Candidate answers are chains of sentences that start at an anchor:
one hop (a sentence naming an anchor and another entity, the candidate) or two hops (that other
entity is a *bridge*, and a second sentence links the bridge to the candidate). A chain is scored
by the weighted share of the anchors it names (an anchor counts ``ln(1 + n / df)``, n sentences, df
naming it), of the question's relations it states, of the question's remaining content words it
holds (inverse-frequency weighted), and by whether the candidate (and the bridge) are of the kind
the question asks for (the type noun's entity types, or the noun written next to the name, or in
the name); a second hop costs a little, so it is taken only when it explains more.

``supported`` is true only when the best chain states what the question asks: every anchor the
context mentions is in it, at least one anchor is, each of the question's relations is stated by
one of its sentences, no hop is negated ("X does not bind Y"), the candidate is of the asked kind
(when the question says which), and it holds at least ``MIN_WORD_SHARE`` of the question's other
content words. Then the answer is the candidate followed by the chain's sentences. Otherwise it
says that the graph does not support an answer, why, and shows the closest sentences found.

**Decomposer** (``propose_sub_questions``): given the goal, the chunks gathered so far and the
sub-questions already asked, up to ``n`` new ones: the goal itself in the first round; ``What is
<anchor>?`` for anchors no gathered chunk mentions, most specific first; then for the bridges the
reasoner found next to an anchor (the entity the first hop reached, best first: of the kind the
question describes, related to the anchor by a relation cue, specific) the goal rewritten around
the bridge ("Which precursors raise NAD+?" for "Which precursors raise the coenzyme that AMPK
increases?"), ``What <type noun> is related to <bridge>?`` and ``What does <bridge> <verb>?``.
Nothing is proposed once the reasoner finds a supported answer (time to answer), and nothing
already asked (case-insensitive) is proposed again, so the loop ends.
"""

from __future__ import annotations

import functools
import itertools
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from kg_pipelines.graph.sibling_names import greek_letters
from kg_pipelines.graph.species_context import organisms_in
from kg_pipelines.ingestion.names import node_key
from kg_pipelines.llm.grounding import STOP_WORDS, words
from kg_pipelines.offline import quantities
from kg_pipelines.offline.cue_words import NEGATION, data_lines, data_table, phrase_alternation
from kg_pipelines.offline.vocabulary import CITIES, COUNTRIES

QUESTION_WORDS = frozenset(
    "what which who whom whose when where why how does do did is are was were can could should would "
    "tell explain describe name list give show".split()
)
WH_WORDS = frozenset("what which who whom whose where".split())
# the answer is a person: "Who coined the term ...", "Whose group reported ..." (the owner is asked)
PERSON_WH_WORDS = frozenset("who whom whose".split())
PERSON_NOUN = "person"  # the type noun (``data/answer_type_nouns.txt``) of a person
MID_WH_WORDS = frozenset("what which".split())
AUXILIARIES = frozenset(
    "is are was were be been does do did can could should would will has have had may might must".split()
)
_WORD = re.compile(r"[^\W_]+(?:['’\-][^\W_]+)*\+?")
MAX_PHRASE_WORDS = 4
WH_PHRASE_WORDS = 4  # words after the question word (or "is the") that may still say the answer's kind
SUBJECT_OPENERS = frozenset("that which whom whose does do did".split())  # words a verb's subject follows


def _opens_clause(question: str, tokens: list[tuple[int, int, str]], last: int, anchor_tokens: set[int]) -> bool:
    """Whether the name ending at token ``last`` opens its clause, so it is the subject of the verb
    after it: after "that"/"does" ("the protein that mTORC1 phosphorylates", "does AMPK activate") or
    at the start of the question or of a clause; not after a preposition ("in the kidney promote")
    or another verb ("the sirtuin that deacetylates TP53 deacetylate")."""
    first = last
    while first > 0 and first - 1 in anchor_tokens:
        first -= 1
    while first > 0 and tokens[first - 1][2].casefold() in ARTICLES:
        first -= 1
    if first == 0 or re.search(r"[,;:.]", question[tokens[first - 1][1] : tokens[first][0]]):
        return True
    return tokens[first - 1][2].casefold() in SUBJECT_OPENERS


PREPOSITIONS = frozenset("of in from on at for with by to into among within through via after against".split())
# words that end the wh-phrase's noun phrase ("Which residue on the alpha subunit ...": a residue)
NAME_NOUNS = frozenset({"name", "names"})  # "which current name": the name of a thing, not a kind
SORT_NOUNS = frozenset(data_lines("sort_nouns.txt"))  # "which kind of cell": a cell
NAMING_VERBS = frozenset({"called", "named", "classified", "renamed"})  # "What is X now called?"
WH_PHRASE_ENDS = frozenset("of that in from on at for with by to into among within whose which who".split())
MAX_BRIDGES = 3
# entity types whose things the question names even in lower case ("rapamycin", "butyrate"): beside a
# capitalised name, the answer must connect to them too; other lower-case anchors ("liver", "mice",
# "obesity") narrow the question
NAMED_TYPES = frozenset({"compound", "protein", "gene", "microbe"})
MIN_WORD_SHARE = 0.5  # share of the question's other content words a supported chain must hold
# a sentence holding this share of them, and calling its answer the kind asked ("The ELDERMET study
# of older adults in Ireland found ..."), says what the question asks though no verb relates the two
STRONG_WORD_SHARE = 0.8
PINNING_NAMES = 2  # required names one answering sentence writes that pin the question down
PINNED_WORD_SHARE = 0.2  # the word share such a sentence needs
TYPE_WINDOW_WORDS = 6  # a type noun this close to a name describes it ("the nuclear receptor PPAR-alpha")
NO_ANSWER = "The graph does not support an answer to this question."


@functools.lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """The comparison form of a word: case-folded, a plural or verb ending undone ("tested" ~
    "test", "studies" ~ "study", "increases" ~ "increase"), then its first five letters; the whole
    word when it holds a digit."""
    word = word.casefold()
    if any(c.isdigit() for c in word):
        return word
    for suffix, keep in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if len(word) > len(suffix) + 3 and word.endswith(suffix) and not word.endswith(("ss", "us", "is")):
            word = word[: -len(suffix)] + keep
            break
    return word[:5]


def _content_word(word: str) -> bool:
    lowered = word.casefold()
    return lowered not in STOP_WORDS and lowered not in QUESTION_WORDS and (len(word) > 2 or word.isdigit())


# -- data files -----------------------------------------------------------------------------------


def _lines(name: str) -> list[list[str]]:
    return [line.split() for line in data_lines(name)]


@functools.cache
def type_nouns() -> dict[str, frozenset[str]]:
    """stem of a type noun -> the entity types it names (``data/answer_type_nouns.txt``)."""
    return {
        noun_form(row[0]): frozenset() if row[1] == "-" else frozenset(row[1].split(","))
        for row in _lines("answer_type_nouns.txt")
    }


def noun_form(word: str) -> str:
    """A noun as type nouns are compared: case-folded, a plural undone ("receptors", "species" and
    "bacteria" stay apart from "inhibited": no truncation)."""
    word = word.casefold()
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is", "ies")):
        return word[:-1]
    return word


@functools.cache
def relation_class() -> dict[str, str]:
    """relation keyword -> the name of its class (``data/relation_classes.txt``); a keyword in no
    class is its own class. Multi-word tags ("leads to") are written joined by spaces on the line."""
    classes: dict[str, str] = {}
    from kg_pipelines.offline.lexicon import CUES

    tags = sorted({c.tag for c in CUES}, key=len, reverse=True)
    for row in _lines("relation_classes.txt"):
        line = " ".join(row)
        found = []
        for tag in tags:  # longest first, so "leads to" is not read as "leads"
            if re.search(r"(?<!\w)" + re.escape(tag) + r"(?!\w)", line):
                found.append((line.index(tag), tag))
                line = line.replace(tag, " ")
        found.sort()
        for _pos, tag in found:
            classes[tag] = found[0][1]
    return classes


@functools.cache
def verb_tags() -> frozenset[str]:
    """Relation keywords that are verbs ("increases"), not nouns of context ("trial", "abundance")."""
    from kg_pipelines.offline.lexicon import CUES

    return frozenset(c.tag for c in CUES if c.kind == "verb")


def _relation_of(tag: str) -> str:
    return relation_class().get(tag, tag)


# -- key phrases (kept for callers: the names and content-word runs of a text) -------------------


def key_phrases(text: str, limit: int = 8, names_only: bool = False) -> list[str]:
    """Entity names the offline extractor finds in ``text``, then runs of content words they do not
    cover; case-insensitively unique, at most ``limit``."""
    from kg_pipelines.offline import extraction_payload

    found: dict[str, str] = {}
    try:
        names = [e["entity_name"] for e in extraction_payload(text, None)["entities"]]
    except Exception:  # noqa: BLE001 - a heuristic failing on odd text must not stop a question
        names = []
    for name in names:
        found.setdefault(node_key(name), name)
    if names_only:
        return list(found.values())[:limit]
    covered = {w.casefold() for name in found.values() for w in _WORD.findall(name)}
    runs: list[list[str]] = [[]]
    for word in _WORD.findall(text):
        if _content_word(word) and word.casefold() not in covered:
            runs[-1].append(word)
        elif runs[-1]:
            runs.append([])
    for run in sorted((r for r in runs if r), key=len, reverse=True):
        phrase = " ".join(run[:MAX_PHRASE_WORDS])
        found.setdefault(node_key(phrase), phrase)
    return list(found.values())[:limit]


def _mentions(text_key: str, phrase_key: str) -> bool:
    # the substring test first: most names are not in the text, and it costs a fraction of the regex
    return (
        bool(phrase_key)
        and phrase_key in text_key
        and re.search(r"(?<!\w)" + re.escape(phrase_key) + r"(?!\w)", text_key) is not None
    )


# -- the context as sentences, entities and relations ------------------------------------------


@dataclass
class ContextSentence:
    sid: str  # "p.s": passage p, sentence s (1-based)
    passage: int  # 0-based index into the context
    text: str
    key: str  # node_key of the text
    stems: frozenset[str]
    entities: dict[str, str]  # entity key -> display name
    relations: dict[frozenset[str], tuple[str, ...]] = field(default_factory=dict)  # pair -> keywords
    written: dict[str, str] = field(default_factory=dict)  # node_key of a surface ("lps") -> entity key
    # (source, target) -> keywords of each relation the extractor read with a verb, in the sentence's
    # direction ("SIRT1 deacetylates FOXO3": (sirt1, foxo3))
    directed: dict[tuple[str, str], tuple[str, ...]] = field(default_factory=dict)
    # stems of the sentence before, in the same passage, when this one refers back to it ("named this
    # process inflammaging"): what "this process" is, for the question's words a chain holds
    referred: frozenset[str] = frozenset()
    # it opens on an article and a lower-case word ("A later analysis found ...", "The investigators,
    # led by ..."): it goes on about the sentence before it in its passage (see ``_continued``)
    continues: bool = False
    # the noun forms of the words of the section heading above it, when it opens an item of a
    # bulleted list ("## Senolytic drugs" over "- Navitoclax (ABT-263) inhibits ..."): the kind of
    # thing the list lists, which its item's subject is (see ``_listed_as``)
    listed_under: frozenset[str] = frozenset()

    @property
    def asks(self) -> bool:
        """A question the text asks ("How does X interact with Y?"): it states no relation."""
        return self.text.endswith("?")

    @property
    def relation_classes(self) -> set[str]:
        return {_relation_of(t) for tags in self.relations.values() for t in tags}


@dataclass
class ContextGraph:
    sentences: list[ContextSentence]
    types: dict[str, str]  # entity key -> type
    names: dict[str, str]  # entity key -> display name
    by_entity: dict[str, list[int]]  # entity key -> sentence positions
    stem_df: dict[str, int]
    # entity key -> the description the graph holds for it (its node's sentence, from any document):
    # what the graph already knows an entity is ("Spermidine is a natural polyamine ...")
    descriptions: dict[str, str] = field(default_factory=dict)
    # position of a passage's first sentence -> the last sentence of the passage it follows in its
    # document (consecutive chunks of one document: a list item cut by a chunk boundary goes on)
    joined: dict[int, int] = field(default_factory=dict)

    def idf(self, s: str) -> float:
        return math.log(1 + len(self.sentences) / (1 + self.stem_df.get(s, 0)))

    def before(self, position: int) -> int | None:
        """The sentence the text writes right before the one at ``position`` (None at a passage's
        start, unless the passage follows another of the context)."""
        if position in self.joined:
            return self.joined[position]
        if position > 0 and self.sentences[position - 1].passage == self.sentences[position].passage:
            return position - 1
        return None

    def after(self, position: int) -> int | None:
        """The sentence the text writes right after the one at ``position`` (see ``before``)."""
        nxt = position + 1
        if nxt < len(self.sentences) and self.sentences[nxt].passage == self.sentences[position].passage:
            return nxt
        return next((first for first, last in self.joined.items() if last == position), None)


def number_sentences(context: list[str]) -> list[tuple[str, int, str]]:
    """(id ``p.s``, passage index, text) of every statement of the context (headings left out); the
    ids the LLM reasoner cites."""
    from kg_pipelines.offline.entities import analyze

    out = []
    for p, chunk in enumerate(context):
        a = analyze(chunk)
        n = 0
        for i, clean in enumerate(a.clean):
            if a.headings[i] or len(clean.strip()) < 2:
                continue
            n += 1
            out.append((f"{p + 1}.{n}", p, clean.strip()))
    return out


MAX_INTRODUCED_WORDS = 5  # words of a name a text introduces with "a protein called ..."


def _introduced_names(context: list[str]) -> dict[str, str]:
    """Names the text introduces after a kind noun and naming words ("a protein called microbial
    anti-inflammatory molecule (MAM), which ..."): the words up to a parenthesis, comma, semicolon or
    full stop, at most ``MAX_INTRODUCED_WORDS``; each with the first entity type its kind noun names
    ('' for a kind no type captures). Names the recognisers may not know, but the text says are one."""
    nouns = type_nouns()
    naming = "|".join(re.escape(" ".join(p)) for p in NAMING_PHRASES)
    pattern = re.compile(r"\b(?:a|an|the)\s+([^\W\d_]+)\s+(?:" + naming + r")\s+([^,;.()]+?)\s*(?=[,;.(])")
    found: dict[str, str] = {}
    for chunk in context:
        for match in pattern.finditer(chunk):
            noun, name = noun_form(match.group(1)), match.group(2).strip()
            if noun in nouns and 0 < len(name.split()) <= MAX_INTRODUCED_WORDS:
                found.setdefault(name, noun if noun in nouns[noun] else min(nouns[noun], default=""))
    return found


ANAPHORIC_WORDS = frozenset(data_lines("anaphoric_words.txt"))
FORM_NOUNS = frozenset(noun_form(w) for w in data_lines("form_nouns.txt"))  # "a supplement of X": X given so
ABSTRACT_ENDINGS = data_lines("abstract_endings.txt")  # "expression", "activity": a noun of a process
LIST_ITEM = re.compile(r"\s*(?:[-*+]|\d+[.)])\s")  # a bulleted or numbered list item's first sentence
SUBJECT_PRONOUNS = frozenset(data_lines("subject_pronouns.txt"))  # "They ...": the sentence before's subject
CONTINUING_OPENERS = tuple(line.split() for line in data_lines("continuing_openers.txt"))


def _outside(text_key: str, entities: Mapping[str, str], name_key: str) -> str:
    """``text_key`` without the entities of the sentence whose names hold ``name_key`` as words: a
    known name written only inside a longer one ("Klotho" in "beta-Klotho") is not written."""
    for entity in sorted(entities, key=len, reverse=True):
        if entity != name_key and _mentions(entity, name_key):
            text_key = re.sub(r"(?<!\w)" + re.escape(entity) + r"(?!\w)", " ", text_key)
    return text_key


def _goes_on(before: ContextSentence | None, text: str) -> tuple[frozenset[str], bool]:
    """(``referred``, ``continues``) of a sentence written right after ``before``."""
    if before is None:
        return frozenset(), False
    text_words = words(text)
    refers = any(w.casefold() in ANAPHORIC_WORDS for w in text_words) or _counted_before(before, text_words)
    continues = (
        (len(text_words) >= 2 and text_words[0] in ARTICLES | ANAPHORIC_WORDS and text.split()[1][:1].islower())
        or any(text_words[: len(opener)] == opener for opener in CONTINUING_OPENERS)
        or (bool(text_words) and text_words[0].casefold() in SUBJECT_PRONOUNS)  # "They often lose ..."
        or _repeats_definite(words(before.text), text_words)
    )
    return (before.stems if refers else frozenset()), continues


DEFINITE_WORDS = frozenset({"the", "this"})
ORDINAL_WORDS = frozenset(data_lines("ordinal_words.txt"))


def _counted_before(before: ContextSentence, text_words: list[str]) -> bool:
    """Whether the text writes "the <ordinal> <noun>" of a noun the sentence before writes ("Two
    pathways enforce the arrest. In the first pathway, ..."): one of the things it counted."""
    counted = [
        noun_form(noun)
        for article, ordinal, noun in zip(text_words, text_words[1:], text_words[2:])
        if article == "the" and ordinal in ORDINAL_WORDS
    ]
    return bool(counted) and bool(set(counted) & {noun_form(w) for w in words(before.text)})


def _repeats_definite(before_words: list[str], text_words: list[str]) -> bool:
    """Whether the text writes, after "the", two content words the sentence before writes together
    ("AMPK is composed of a catalytic alpha subunit ... . The gamma subunit binds AMP ... . LKB1
    phosphorylates threonine 172 of the alpha subunit"): the thing the sentence before introduced,
    which it goes on about."""
    pairs = set(zip(before_words, before_words[1:]))
    return any(
        article in DEFINITE_WORDS and _content_word(a) and _content_word(b) and (a, b) in pairs
        for article, a, b in zip(text_words, text_words[1:], text_words[2:])
    )


def _resolve_kind_nouns(
    before: ContextSentence, sentence: ContextSentence, names: Mapping[str, str]
) -> ContextSentence:
    """``sentence`` with the entity "the <noun>" refers to, when the sentence before calls one entity
    that noun ("Rapamycin is a macrolide compound produced by the soil bacterium Streptomyces
    hygroscopicus. Researchers isolated the bacterium ... and named the compound after the island"):
    it names that entity, goes on about the sentence before and refers to its words, and what that
    sentence states of the entity holds here too."""
    before_words = words(before.text)
    text_words = words(sentence.text)
    starts = {words(key)[0] for key in sentence.entities if words(key)}
    asked = {  # not "the kinase PKN2": a noun its own name follows is that name's
        noun_form(w)
        for article, w, following in zip(text_words, text_words[1:], [*text_words[2:], ""])
        if article in DEFINITE_WORDS and following not in starts
    }
    kinds: dict[str, set[str]] = {}  # kind noun -> the entities the sentence before calls one
    for key in before.entities:
        others = [words(k) for k in before.entities if k != key]
        for noun in asked & type_nouns().keys():
            if _calls(before_words, words(key), noun, others, text=before.text):  # "the bacterium X"
                kinds.setdefault(noun, set()).add(key)
    referred = {next(iter(keys)) for keys in kinds.values() if len(keys) == 1} - set(sentence.entities)
    if not referred:
        return sentence
    entities = {**sentence.entities, **{key: names.get(key, key) for key in sorted(referred)}}
    relations = {pair: tags for pair, tags in before.relations.items() if pair <= entities.keys() and pair & referred}
    directed = {
        ends: tags for ends, tags in before.directed.items() if {*ends} <= entities.keys() and {*ends} & referred
    }
    return replace(
        sentence,
        entities=entities,
        continues=True,
        referred=sentence.referred | before.stems,
        relations={**relations, **sentence.relations},
        directed={**directed, **sentence.directed},
    )


def build_context_graph(
    context: list[str],
    known_names: Iterable[str] = (),
    descriptions: Mapping[str, str] | None = None,
    follows: Mapping[int, int] | None = None,
) -> ContextGraph:
    """The context's sentences, entities and relations; ``follows``: passage index -> the index of
    the passage it continues in its document (the chunk right before it)."""
    from kg_pipelines.offline.entities import analyze, extract

    sentences: list[ContextSentence] = []
    types: dict[str, str] = {}
    names: dict[str, str] = {}
    introduced = _introduced_names(context)
    known_names = [*known_names, *introduced]
    known = sorted({node_key(n) for n in known_names if n and len(node_key(n)) > 2}, key=len, reverse=True)
    for p, chunk in enumerate(context):
        a = analyze(chunk)
        extraction = extract(chunk, None)
        for e in extraction.entities:
            key = node_key(e.name)
            names.setdefault(key, e.name)
            if types.get(key) in (None, "concept"):
                types[key] = e.type
        per_sentence: dict[int, dict[str, str]] = {}
        surfaces: dict[int, dict[str, str]] = {}
        for m in a.mentions:
            key = node_key(m.name)
            if key in names:
                per_sentence.setdefault(m.sent, {})[key] = names[key]
                surfaces.setdefault(m.sent, {})[node_key(m.surface)] = key
        relations: dict[int, dict[frozenset[str], tuple[str, ...]]] = {}
        directed: dict[int, dict[tuple[str, str], tuple[str, ...]]] = {}
        for r in extraction.relations:
            ends = (node_key(r.source.name), node_key(r.target.name))
            relations.setdefault(r.sent, {})[frozenset(ends)] = tuple(r.keywords)
            if set(r.keywords) & verb_tags():
                directed.setdefault(r.sent, {})[ends] = tuple(r.keywords)
        n = 0
        heading: frozenset[str] = frozenset()
        for i, clean in enumerate(a.clean):
            if a.headings[i]:
                heading = frozenset(noun_form(w) for w in words(clean) if _content_word(w))
            if a.headings[i] or len(clean.strip()) < 2:
                continue
            n += 1
            text = clean.strip()
            key = node_key(text)
            referred, continues = _goes_on(sentences[-1] if n > 1 else None, text)
            asks = text.endswith("?")  # ContextSentence.asks
            text_words = words(text)
            entities = dict(per_sentence.get(i, {}))
            for name_key in known:  # names the graph knows, written in this sentence
                if name_key not in entities and _mentions(_outside(key, entities, name_key), name_key):
                    entities[name_key] = names.setdefault(name_key, name_key)
            sentences.append(
                ContextSentence(
                    sid=f"{p + 1}.{n}",
                    passage=p,
                    text=text,
                    key=key,
                    stems=frozenset(stem(w) for w in text_words if _content_word(w)),
                    entities=entities,
                    # a question the text asks ("How does X interact with Y?") states no relation
                    relations={} if asks else relations.get(i, {}),
                    written=surfaces.get(i, {}),
                    directed={} if asks else directed.get(i, {}),
                    referred=referred,
                    continues=continues,
                    listed_under=heading if LIST_ITEM.match(a.sentences[i].text) else frozenset(),
                )
            )
    for i in range(1, len(sentences)):
        if sentences[i].passage == sentences[i - 1].passage:
            sentences[i] = _resolve_kind_nouns(sentences[i - 1], sentences[i], names)
    for name, kind in introduced.items():  # a kind the text gives a name it introduces is its type
        if node_key(name) in names and names[node_key(name)] == node_key(name):
            names[node_key(name)] = name  # shown as written ("anti-inflammatory"), not as its key
        if types.get(node_key(name)) in (None, "concept") and kind:
            types[node_key(name)] = kind
    by_entity: dict[str, list[int]] = {}
    stem_df: dict[str, int] = {}
    for position, s in enumerate(sentences):
        for key in s.entities:
            by_entity.setdefault(key, []).append(position)
        for st in s.stems:
            stem_df[st] = stem_df.get(st, 0) + 1
    described = {node_key(n): d for n, d in (descriptions or {}).items() if d and node_key(n) in by_entity}
    joined: dict[int, int] = {}
    for p, p0 in (follows or {}).items():
        first = next((i for i, s in enumerate(sentences) if s.passage == p), None)
        last = max((i for i, s in enumerate(sentences) if s.passage == p0), default=None)
        if first is not None and last is not None and p != p0:
            joined[first] = last
            referred, continues = _goes_on(sentences[last], sentences[first].text)
            sentences[first] = replace(sentences[first], referred=referred, continues=continues)
    return ContextGraph(sentences, types, names, by_entity, stem_df, described, joined)


# -- the question ---------------------------------------------------------------------------------


@dataclass
class QuestionParts:
    text: str
    anchors: list[str]  # node keys of what the question names, most specific first
    required: list[str]  # the anchors an answer must connect: those written as names, else the first
    anchor_names: dict[str, str]
    wh_noun: str | None  # the stem of the noun saying what the answer is
    wh_types: frozenset[str]
    wh_stems: frozenset[str]  # stems of the wh-phrase's words (they describe the answer)
    wh_names: list[str]  # name-like words of the wh-phrase ("FOXO" in "Which FOXO protein"), case-folded
    bridge_nouns: list[str]  # stems of the other type nouns
    relations: list[str]  # relation classes of the question's verbs
    relation_verbs: list[tuple[int, int, str]]  # (start, end, base verb) of each relation verb
    stems: frozenset[str]  # the content stems a chain should hold (not anchors, wh-phrase, type nouns)
    wh_end: int  # character offset where the wh-phrase ends
    wh_first: int = 0  # character offset where it starts ("...; which superoxide dismutase does ...")
    # stems of the wh-phrase's describing words ("autophagy-starting" in "which autophagy-starting
    # kinase"): not required, but a chain holding them describes its answer better
    wh_describing: frozenset[str] = frozenset()
    meant: dict[str, frozenset[str]] = field(default_factory=dict)  # relation class -> stems of the
    # question's own phrase that means it ("switch on" -> activates), see ``relation_by_meaning``
    # the noun phrases the question describes by a relative clause outside the wh-phrase but names by
    # no type noun ("the energy sensor that X switches on"): content stems of each
    described: list[frozenset[str]] = field(default_factory=list)
    # what the answer is to the question's verb: its subject ("source": "Which kinase activates X?")
    # or its object ("target": "Which kinase does X activate?", "Which kinase is activated by X?")
    answer_role: str | None = None
    # anchor key -> stems of the words the question describes it with ("the gut lipid mediator OEA",
    # "lipopolysaccharide that leaks out of the gut"): what the anchor is, which a sentence about the
    # anchor or its node description may say, not the answering sentence
    anchor_described: dict[str, frozenset[str]] = field(default_factory=dict)
    # the anchors the question writes as names (capitalised, a symbol, a digit); the others are
    # common nouns ("ileal cells", "premature-aging syndrome")
    names_written: frozenset[str] = frozenset()
    # the common-noun anchors the question writes as one thing it describes ("the short-chain fatty
    # acid that F. prausnitzii makes"): one member of that class, which a chain's bridge may be
    described_classes: frozenset[str] = frozenset()
    # anchor key -> stems of the words the question writes it with ("sirolimus" for the entity
    # rapamycin): held by a chain that names the anchor
    anchor_written: dict[str, frozenset[str]] = field(default_factory=dict)
    # stems of each of the question's own phrases for a relation ("derived from", "coined the term")
    phrase_stems: list[frozenset[str]] = field(default_factory=list)
    # the one-word phrases that go on a noun phrase after a name ("women" of "in older Swedish women")
    name_nouns: list[frozenset[str]] = field(default_factory=list)
    # (stems of a paraphrase-group member the question writes, the stems of each member of its group)
    paraphrases: list[tuple[frozenset[str], tuple[tuple[str, ...], ...]]] = field(default_factory=list)
    asks_setting: bool = False  # "In which country ...", "Where ...": the answer is a setting
    asks_name: bool = False  # "What is the current name of ...": the answer is what the thing is called
    # the first letters of the wh-phrase's words up to its kind noun ("which Toll-like receptor": tlr),
    # which a symbol of that family is written with (TLR4)
    wh_initials: str = ""
    # relation class -> the members of the paraphrase groups its verb belongs to ("clear": kill,
    # eliminate, remove ...): a sentence writing one states the relation in other words
    relation_paraphrases: dict[str, tuple[tuple[str, ...], ...]] = field(default_factory=dict)
    # relation class -> the anchor the question writes as its verb's subject ("the protein that
    # mTORC1 phosphorylates"): a chain states it only between that anchor and another end
    relation_subjects: dict[str, str] = field(default_factory=dict)
    # anchor key -> the relation classes of the question's verbs written right beside it ("increases
    # the abundance of Bacteroides": increases), what the answer must be to that anchor
    anchor_relations: dict[str, frozenset[str]] = field(default_factory=dict)
    # the same of the verbs of a relative clause after the wh-phrase ("the tumour suppressor that ...
    # induces p21": induces), what the question says of a thing between its names and the answer
    clause_relations: dict[str, frozenset[str]] = field(default_factory=dict)
    # the quantity the question asks for ("In what year ...", "How many genera ..."), else None
    quantity: quantities.Asked | None = None


def _names_product(
    graph: ContextGraph, tokens: list[tuple[int, int, str]], noun: int, surfaces: Mapping[str, list[str]]
) -> bool:
    """Whether the type noun at ``noun``, followed by an encoding verb, "by" and an anchor, names that
    anchor itself: "the nuclear receptor encoded by NR1H4" where the graph keeps NR1H4 in the node
    of the receptor FXR (a gene and its product as one node), which is of that kind."""
    kind = noun_form(tokens[noun][2])
    rest = [w.casefold() for _s, _e, w in tokens[noun + 1 : noun + 4]]
    if kind not in type_nouns() or len(rest) < 3 or rest[1] != "by":
        return False
    key = next((k for k, written in surfaces.items() if rest[2] in {w.casefold() for w in written}), None)
    # the gene's symbol read as another node's name, which the text calls a thing of the kind
    return key is not None and key != node_key(rest[2]) and _is_kind(graph, key, kind, frozenset())


def _phrase_start(tokens: list[tuple[int, int, str]], noun: int) -> int:
    """The index of the first word of the noun phrase ending at ``noun`` ("the bile acid-sensing
    nuclear receptor": "bile"), after its article."""
    start = noun
    while start > 0 and _content_word(tokens[start - 1][2]) and tokens[start - 1][2].casefold() not in PREPOSITIONS:
        start -= 1
    return start


def _name_like(word: str, first: bool) -> bool:
    if any(c.isdigit() for c in word) or word.endswith("+"):
        return True
    if len(word) > 1 and word.isupper():
        return True
    if any(c.isupper() for c in word[1:]):
        return True  # a capital inside a word is a symbol's ("mTOR", "alpha-Klotho"), wherever it stands
    return not first and word[:1].isupper()


def _modifier_word(question: str, start: int, end: int) -> bool:
    """Whether the word at ``start:end`` only modifies what follows it: joined by a hyphen to the
    next word ("NAD+-degrading", "TNF-induced"), a possessive ("FOXO3's targets"), or the initial of
    an abbreviated genus ("C. elegans"): a word of the kind asked for, not the answer's own name."""
    rest = question[end : end + 2]
    word = question[start:end]
    if rest[:1] == "-" or word.endswith(("'s", "’s")):
        return True
    return len(word) == 1 and word.isupper() and rest[:1] == "."


def _copular_subject(tokens: list[tuple[int, int, str]], wh_start: int) -> int:
    """The index of the article opening the subject of a copular wh-question ("What is **the**
    enzyme ... called?", "Which was **the** first drug ..."), else ``wh_start``."""
    following = [w.casefold() for _s, _e, w in tokens[wh_start + 1 : wh_start + 3]]
    if len(following) == 2 and following[0] in BE_WORDS and following[1] in ARTICLES:
        return wh_start + 2
    return wh_start


EXCLUSION_PHRASES = tuple(data_lines("exclusion_phrases.txt"))
QUESTION_OPENINGS = re.compile(
    r"(^|[;.:]\s+)(" + "|".join(re.escape(opening) for opening, _ in data_table("question_openings.tsv")) + r")\b",
    re.IGNORECASE,
)
OPENING_READ_AS = {opening: read_as for opening, read_as in data_table("question_openings.tsv")}


def _verb_forms(base: str) -> dict[str, str]:
    """Written form -> its ending ('', 's', 'ed', 'ing') of the verb ``base`` ("put": puts, putting)."""
    cut = base[:-1] if base.endswith("e") else base
    return {
        base: "",
        base + "s": "s",
        base + "es": "s",
        cut + "ed": "ed",
        cut + "ing": "ing",
        base + base[-1] + "ed": "ed",  # "stripped"
        base + base[-1] + "ing": "ing",  # "putting"
    }


def _verb_phrase(phrase: str) -> re.Pattern:
    first, *rest = phrase.split()
    forms = "|".join(map(re.escape, _verb_forms(first)))
    return re.compile(rf"\b({forms})\s+" + r"\s+".join(map(re.escape, rest)) + r"\b", re.IGNORECASE)


# (pattern, written form of the phrase's verb -> its ending, the lexicon verb it is read as), longest
# phrase first
VERB_PHRASES = [
    (_verb_phrase(phrase), _verb_forms(phrase.split()[0]), verb)
    for phrase, verb in sorted(data_table("verb_phrases.tsv"), key=lambda row: -len(row[0]))
]


def _plain_verbs(question: str) -> str:
    """The question with a phrase that says a lexicon verb in other words read as that verb, in the
    same form ("Which kinase puts a phosphate on X?" -> "Which kinase phosphorylates X?")."""
    for pattern, endings, verb in VERB_PHRASES:
        question = pattern.sub(lambda m, e=endings, v=verb: _inflected(v, e.get(m.group(1).casefold(), "")), question)
    return question


def _inflected(verb: str, ending: str) -> str:
    """``verb`` (base form) with ``ending`` ('', 's', 'ed', 'ing'): "phosphorylating"."""
    return (verb[:-1] if verb.endswith("e") and ending in ("ed", "ing") else verb) + ending


def _plain_opening(question: str) -> str:
    """The question with an opening that asks "which" in other words read as "which" ("Name the
    protein that ..." -> "Which protein that ...", "...; what is the name of the gene ...")."""

    def plain(m: re.Match) -> str:
        read_as = OPENING_READ_AS[" ".join(m.group(2).casefold().split())]
        return m.group(1) + (read_as.capitalize() if not m.group(1) else read_as)

    return QUESTION_OPENINGS.sub(plain, question)


def _described_next(tokens: list[tuple[int, int, str]], i: int) -> bool:
    """Whether the noun at token ``i``, after a word written in lower case ("gut"), is described by a
    relative word or a participle after it ("the gut bacterium that ...", "... named after ..."): a
    thing of that kind the question describes, not a word of the name before it."""
    before, after = tokens[i - 1][2], tokens[i + 1][2].casefold() if i + 1 < len(tokens) else ""
    return before == before.casefold() and (after in RELATIVE_WORDS or after.endswith("ed"))


def _kind_word(word: str) -> bool:
    """Whether ``word`` only says what a thing is: a type noun ("drug", "bacteria") or a stop word."""
    return noun_form(word) in type_nouns() or word in STOP_WORDS


def _modifier_only(question: str, surface: str) -> bool:
    """Whether ``question`` writes ``surface`` only as the first part of a hyphenated modifier:
    "rapamycin-sensitive", "FXR-induced", not "TNF-alpha" (a Greek letter) nor "IL-6"."""
    written = rf"(?<![\w-])(?i:{re.escape(surface)})"
    found = list(re.finditer(rf"{written}-([a-z]{{4,}})\b", question))
    return (
        bool(found)
        and len(found) == len(re.findall(rf"{written}\b", question))
        and not any(m.group(1) in greek_letters() for m in found)
    )


def _describes_name(question: str, surface: str, name: str) -> bool:
    """Whether ``question`` writes ``surface`` before kind nouns that ``name`` follows ("the diabetes
    drug metformin", "the gut bacterium Akkermansia"), or as their owner ("Akkermansia's secreted
    protein P9"): a word telling which thing the name is."""
    found = re.search(
        rf"(?i)(?<![\w-]){re.escape(surface)}((?:\s+[\w-]+){{1,2}}?)\s+{re.escape(name)}(?![\w-])", question
    )
    if found is not None and all(noun_form(w) in type_nouns() for w in words(found.group(1))):
        return True
    # the owner of a thing named by its kind: "Akkermansia's secreted protein P9"
    owned = re.search(
        rf"(?i)(?<![\w-]){re.escape(surface)}['’]s((?:\s+[\w-]+){{1,3}}?)\s+{re.escape(name)}(?![\w-])", question
    )
    return owned is not None and noun_form(words(owned.group(1))[-1]) in type_nouns()


APPOSITIVE = re.compile(r"\([^()]*\)|,\s*(?:a|an|the)\s[^,;?]*")  # "X (ABT-263), the BCL-2 inhibitor that ..."


def _in_apposition(question: str, key: str) -> bool:
    """Whether the question writes anchor ``key`` only in a phrase describing the name before it:
    in parentheses after it, or after a comma and an article ("navitoclax (ABT-263), the
    BCL-2/BCL-xL inhibitor that ...")."""
    spans = []
    for m in APPOSITIVE.finditer(question):
        head = node_key(question[: m.start()])
        spans.append((len(head), len(head) + len(node_key(m.group())) + 1))
    found = _starts(node_key(question), key)
    return bool(found) and all(any(lo <= at < hi for lo, hi in spans) for at in found)


def _set_apart(question: str) -> list[tuple[int, int]]:
    """Spans (in ``node_key(question)``) of what the question sets apart from its answer: "Apart from
    LKB1, which ..." up to the next comma, and an aside saying what the answer is not ("the commensal
    proposed as a probiotic (not a traditional lactic acid bacterium)")."""
    patterns = [r"\b" + re.escape(phrase) + r"\s+([^,;?]+)" for phrase in EXCLUSION_PHRASES]
    spans = []
    for pattern in [*patterns, r"\(\s*not\s+([^()]+)\)"]:
        for m in re.finditer(pattern, question, re.IGNORECASE):
            head = node_key(question[: m.start(1)])
            spans.append((len(head), len(head) + len(node_key(m.group(1))) + 1))
    return spans


def _starts(text_key: str, key: str) -> list[int]:
    return [m.start() for m in re.finditer(r"(?<!\w)" + re.escape(key) + r"(?!\w)", text_key)]


APPOSITION = re.compile(r"\s*,\s*(?:a|an|the)\s[^,;?]*,")  # ", an inhibitor of X and Y," after the wh-phrase


def _verb_before_its_object(word: str, following: str) -> bool:
    """Whether ``word``, followed by ``following``, is a verb that ends a wh-phrase: a past form
    before a clause or an object ("What DNA methylation algorithm *showed that* ..."), or a present
    form before its object's article ("What side effect *limits the* use of ...": a plural noun is
    not followed by one)."""
    past = word.endswith("ed") and len(word) > 4 and following in ARTICLES | PREPOSITIONS | {"that"}
    present = word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3 and following in ARTICLES
    return past or present


def _relative(question: str, tokens: list[tuple[int, int, str]], i: int, nouns: Mapping[str, object]) -> bool:
    """Whether the question word at token ``i`` (mid-question) opens a relative clause: before an
    article ("the inflammation to which the secretory phenotype contributes"), or after a comma or a
    preposition and before no type noun ("The ELDERMET cohort, which contrasted ...", "the route by
    which low doses act"; not "Besides X, which protein ...", nor "..., which DNA methylation
    algorithm ...": after a comma, a name opens the asked phrase, as a relative clause's verb does not)."""
    written = tokens[i + 1][2] if i + 1 < len(tokens) else ""
    following = written.casefold()
    comma = i > 0 and "," in question[tokens[i - 1][1] : tokens[i][0]]
    after = (comma and not _name_like(written, False)) or (i > 0 and tokens[i - 1][2].casefold() in PREPOSITIONS)
    return following in ARTICLES or (after and noun_form(following) not in nouns)


def _opens_relative_clause(
    question: str, tokens: list[tuple[int, int, str]], i: int, nouns: Mapping[str, object]
) -> bool:
    """Whether token ``i``, near the start, is a question word after a name and a comma that opens a
    relative clause about it ("Lithocholic acid, which rises in ...", not "In worms, what gene ...")."""
    return (
        i > 0
        and tokens[i][2].casefold() in WH_WORDS
        and "," in question[tokens[i - 1][1] : tokens[i][0]]
        and _relative(question, tokens, i, nouns)
    )


def read_question(question: str, graph: ContextGraph | None = None) -> QuestionParts:
    from kg_pipelines.offline.entities import analyze

    question = _plain_verbs(_plain_opening(question))
    a = analyze(question)
    tokens = [(m.start(), m.end(), m.group()) for m in _WORD.finditer(question)]
    nouns = type_nouns()
    cue_starts = {c.start for c in a.cues if c.verbal}
    # the wh-phrase: a question word (or a leading type noun) up to the first auxiliary or relation verb
    wh_start = wh_end = None
    # where a sentence of the question starts ("... a co-receptor. Apart from FGF19, which ..."): a
    # capital there is no name's; the question's own sentence comes last ("... has a well-known
    # nickname. Who coined it?")
    openings = {0} | {m.end() for m in re.finditer(r"[.!?]\s+", question)}
    last = max((i for i, (start, _e, _w) in enumerate(tokens) if start in openings), default=0)
    for i in [i for i in dict.fromkeys([*range(3), *range(last, last + 3)]) if i < len(tokens)]:
        word = tokens[i][2]
        if _opens_relative_clause(question, tokens, i, nouns):
            continue  # "Lithocholic acid, which rises in ..., activates X; in worms, what gene ...?"
        if word.casefold() in WH_WORDS or (i in (0, last) and noun_form(word) in nouns):
            wh_start = i
            break
    else:  # the question word after a clause: "X raises a sirtuin; which dismutase does it activate?",
        # "The bile acid that ... blocks which receptor?" (which/what only: "whose", "where" relate);
        # not one that opens a relative clause (``_relative``)
        def ends_question(i: int) -> bool:  # "... occurs in which plant?": no clause follows its phrase
            rest = tokens[i + 1 :]
            return 0 < len(rest) <= WH_PHRASE_WORDS and not any(
                w.casefold() in AUXILIARIES or s in cue_starts for s, _e, w in rest
            )

        mid = [i for i, (_s, _e, w) in enumerate(tokens) if w.casefold() in MID_WH_WORDS]
        # all read as relative ("The compound from which metformin was developed occurs in which
        # plant?"): the one whose phrase ends the question asks, else the first
        wh_start = next(
            iter(
                [i for i in mid if not _relative(question, tokens, i, nouns)]
                or [i for i in mid if ends_question(i)]
                or mid
            ),
            None,
        )
    wh_noun = None
    wh_names: list[str] = []
    if wh_start is not None:
        j = wh_start
        # "What is the anti-inflammatory protein ... called?": the copula's subject says what the
        # answer is, so the wh-phrase reads on past "is the"
        phrase_start = _copular_subject(tokens, wh_start)
        while j < len(tokens):
            start, end, word = tokens[j]
            low = word.casefold()
            if j == wh_start + 1 and phrase_start > wh_start:
                j = phrase_start + 1
                continue
            if j == wh_start + 1 and tokens[wh_start][2].casefold() == "where" and low in SETTING_PREPOSITIONS:
                break  # "Where inside the cell ...": the phrase after it is where the answer lies, not its kind
            if j > phrase_start and (
                low in AUXILIARIES
                or start in cue_starts
                or low in WH_PHRASE_ENDS
                or j - phrase_start > WH_PHRASE_WORDS
                or "," in question[tokens[j - 1][1] : start]  # "which tumour suppressor, thereby ..."
                or (
                    j > phrase_start + 1
                    and j + 1 < len(tokens)
                    and _verb_before_its_object(low, tokens[j + 1][2].casefold())
                )
            ):
                break
            possessor = re.sub(r"['’]s$", "", low)
            if possessor != low and j > wh_start and _content_word(possessor):
                # "Which scientist's discovery earned ...": the one whose discovery it is is asked
                wh_noun = noun_form(possessor)
                j += 1
                break
            if low in SORT_NOUNS and j + 2 < len(tokens) and tokens[j + 1][2].casefold() == "of":
                j = phrase_start = j + 2  # "Which kind of senescent cell ...": the phrase after "of" asks
                continue
            if low in NAME_NOUNS:
                # "What is the current name of the probiotic species ...?": a name is of the thing
                # after "of"; the words before it ("current", "formal") say no kind
                wh_noun, wh_names = None, []
                after = j + 1
                if (  # "the name of the species ...", not "the name of Lactobacillus casei"
                    after + 1 < len(tokens)
                    and tokens[after][2].casefold() == "of"
                    and tokens[after + 1][2].casefold() in ARTICLES
                ):
                    j = phrase_start = after + 2
                    continue
                j += 1
                break
            if noun_form(low) in nouns:
                # the kind is named ("Which kinase complex initiates ..."): the phrase ends here, or
                # at the last type noun of a compound ("Which bile acid receptor": a receptor)
                while (
                    j + 1 < len(tokens) and noun_form(tokens[j + 1][2]) in nouns and tokens[j + 1][0] not in cue_starts
                ):
                    j += 1
                wh_noun = noun_form(tokens[j][2])
                j += 1
                break
            if low in PERSON_WH_WORDS:
                wh_noun = PERSON_NOUN  # "Who coined ...": a person, whatever follows
                j += 1
                break
            if (
                j > wh_start
                and len(word) > 1  # "Which G protein-coupled receptor", "Which T cell": a letter modifies
                and _name_like(word, False)
                and low not in QUESTION_WORDS
                and not _modifier_word(question, start, end)
            ):
                wh_names.append(low)  # "Which FOXO protein": the answer's own name must say FOXO
            if j > wh_start and _content_word(word):
                wh_noun = noun_form(low)  # a kind no type captures ("Which statin"): only the text can say it
            j += 1
        wh_end = tokens[j - 1][1] if j > wh_start else tokens[wh_start][1]
    wh_end = wh_end or 0
    wh_first = tokens[wh_start][0] if wh_start is not None else 0

    def in_wh(start: int) -> bool:
        return wh_first <= start < wh_end

    wh_stems = frozenset(stem(w.casefold()) for s, e, w in tokens if in_wh(s))

    anchors: dict[str, str] = {}
    written: set[str] = set()  # the anchors written as names (capitalised, a symbol)
    named: set[str] = set()  # the others of a kind only names denote
    # a surface the text writes for an entity of another key ("Oleoylethanolamide (OEA)": oea ->
    # oleoylethanolamide), when no entity has that key itself
    written_as = (
        {
            surface: entity
            for s in graph.sentences
            for surface, entity in s.written.items()
            if surface != entity and surface not in graph.by_entity and entity in graph.by_entity
        }
        if graph is not None
        else {}
    )

    surfaces: dict[str, list[str]] = {}  # anchor key -> how the question writes it ("sirolimus")

    def add(name: str, start: int, capitalised: bool, surface: str = "", types: Iterable[str] = ()) -> None:
        key = node_key(re.sub(r"['’]s$", "", name))  # "FOXO3's targets" names FOXO3
        if key in written_as:  # "OEA", which the text defines as Oleoylethanolamide: that entity
            key = written_as[key]
        if key and not in_wh(start):
            surfaces.setdefault(key, []).append(surface or name)
        if not key or in_wh(start) or key in anchors:
            return
        if all(_kind_word(w) or w in QUESTION_WORDS for w in key.split()):
            return  # a type noun alone ("drug") says what a thing is, it names nothing
        if (
            graph is not None
            and not capitalised
            and _kind_word(key.split()[-1])
            and RELATIVE_AFTER.match(question, start + len(surface or name))
            and not _anchor_positions(graph, key)
        ):
            # "the gut peptide hormone that P9 stimulates", which no text writes: a kind the clause
            # describes (a thing on the way), not a name
            return
        anchors[key] = name
        if capitalised:
            written.add(key)
        elif NAMED_TYPES & {*types, graph.types.get(key) if graph else None}:
            named.add(key)  # a thing of a kind only names denote ("rapamycin", "butyrate")

    for m in a.mentions:
        add(m.name, m.start, any(_name_like(w, m.start in openings) for w in m.surface.split()), m.surface, m.types)
    qkey = node_key(question)
    if graph is not None:
        for key in sorted(graph.names, key=len, reverse=True):
            if len(key) > 2 and _mentions(qkey, key):
                position = qkey.find(key)
                surface = question[position : position + len(key)] if position >= 0 else key
                add(graph.names[key], position if position >= 0 else wh_end, any(c.isupper() for c in surface))
    for start, _end, word in tokens:
        # a letter names nothing alone: the "E" of "E. coli", the "O" of "the forkhead box O factor"
        if _name_like(word, start in openings) and word.casefold() not in QUESTION_WORDS and len(word) > 1:
            add(word, start, True)
    # a shorter anchor inside a longer one is the same name
    keys = list(anchors)
    for key in keys:
        if any(key != other and _mentions(other, key) for other in keys):
            anchors.pop(key, None)
        elif surfaces.get(key) and all(  # "nicotinamide" of "nicotinamide mononucleotide" (NMN)
            any(
                node_key(s) != node_key(longer) and _mentions(node_key(longer), node_key(s))
                for other in keys
                if other != key
                for longer in surfaces.get(other, ())
            )
            for s in surfaces[key]
        ):
            anchors.pop(key, None)

    def specificity(key: str) -> tuple:
        df = len(graph.by_entity.get(key, ())) or sum(_mentions(s.key, key) for s in graph.sentences) if graph else 0
        return (key not in written, df if df else 10**6, -len(key))

    ordered = sorted(anchors, key=specificity)
    anchor_words = {stem(w) for key in ordered for w in key.split()}
    # token positions of the anchors: a type noun next to one describes it ("the TAME trial", "the
    # nuclear receptor PPAR-alpha"), one standing apart describes a thing the question does not name
    anchor_tokens = {i for i, (_s, _e, w) in enumerate(tokens) if stem(w.casefold()) in anchor_words}
    bridge_nouns = []
    # "Which senolytic drug, an inhibitor of BCL-2 and BCL-xL, removed ...": a noun phrase set off
    # by commas right after the wh-phrase says what the answer is; its head (up to a preposition or
    # a relative word: not "the scaffold protein" of "the counterpart of the scaffold protein that
    # ...") describes no other thing
    apposition = APPOSITION.match(question, wh_end) if wh_end else None
    head_end = -1
    if apposition is not None:
        head_end = next(
            (
                s
                for s, _e, w in tokens
                if apposition.start() < s < apposition.end() and w.casefold() in PREPOSITIONS | OBJECT_ENDS
            ),
            apposition.end(),
        )
    for i, (start, end, w) in enumerate(tokens):
        st = noun_form(w)
        if in_wh(start) or st not in nouns or stem(w) in anchor_words or st in bridge_nouns:
            continue
        if apposition is not None and apposition.start() <= start < head_end:
            continue
        if _name_like(w, start in openings):
            continue  # a capitalised noun is a word of a name ("Physiology or Medicine"), no kind
        if i + 1 in anchor_tokens or (i - 1 in anchor_tokens and not _described_next(tokens, i)):
            continue  # "the TAME trial", "the enzyme CYP7A1" name it; "the gut bacterium named after ..." does not
        if i > 0 and tokens[i - 1][2].casefold() in ANAPHORIC_WORDS:
            continue  # "the fatty acid that those cells prefer": the cells already named
        if (
            0 < i < len(tokens) - 1
            and tokens[i + 1][2].casefold().endswith(ABSTRACT_ENDINGS)
            and _content_word(tokens[i - 1][2].casefold())
        ):
            continue  # "tight junction protein expression": a word of a compound naming a process
        if [w.casefold() for _s, _e, w in tokens[i + 1 : i + 3]] in ([n, "of"] for n in NAME_NOUNS):
            continue  # "the genus name of the bacterium": the bacterium's name, no other thing
        if st in FORM_NOUNS and (
            (i + 1 < len(tokens) and tokens[i + 1][2].casefold() == "of")
            or (i > 0 and _content_word(tokens[i - 1][2]) and tokens[i - 1][2].casefold() not in ARTICLES)
        ):
            continue  # "a supplement of the lipid mediator", "antibiotic treatment": the thing in a form
        if not question[end:].strip(" ?") and re.search(r"\bas\s+an?\s+(?:\S+\s+)?$", question[:start], re.I):
            continue  # "... causes low platelet counts as a side effect?": the role of a thing, no other thing
        bridge_nouns.append(st)
    quantity = quantities.asked(question)  # "In what year ...", "How many genera ..."
    # "Which current name ...", "What is X formally called?" (not "named after whom")
    asks_name = any(w.casefold() in NAME_NOUNS for s, e, w in tokens if in_wh(s)) or any(
        w.casefold() in NAMING_VERBS and (k + 1 == len(tokens) or tokens[k + 1][2].casefold() not in PREPOSITIONS)
        for k, (s, _e, w) in enumerate(tokens)
        if s >= wh_end
    )
    if asks_name and wh_noun is None and bridge_nouns:
        # "Under which current name is the species now classified ...?": the name is the species'
        wh_noun = bridge_nouns.pop(0)
    relations, verbs = [], []
    products: set[str] = set()
    product_words: set[str] = set()
    verb_classes: list[tuple[int, int, str]] = []
    said_as: dict[str, set[str]] = {}
    subjects: dict[str, str] = {}
    for c in a.cues:
        if c.verbal and not in_wh(c.start) and not any(m.start <= c.start < m.end for m in a.mentions):
            before = [i for i, (_s, end, _w) in enumerate(tokens) if end <= c.start]
            # the word written right before the verb, nothing between ("sarcoma, clears": none)
            adjacent = before[-1] if before and not question[tokens[before[-1]][1] : c.start].strip() else None
            if adjacent is not None and tokens[adjacent][2].casefold() in ARTICLES:
                continue  # "rats on a reduced food ration": a participle after an article describes a noun
            subordinate = any(wh_end <= t0 < c.start and w.casefold() in OBJECT_ENDS for t0, _t1, w in tokens)
            if subordinate and _names_nothing_after(question, tokens, c.end, anchor_tokens):
                continue  # "the enzyme that controls the slowest step": a description, no relation asked
            cls = _relation_of(c.cue.tag)
            if (
                cls == ENCODES
                and adjacent is not None
                and graph is not None
                and _names_product(graph, tokens, adjacent, surfaces)
            ):
                # "the nuclear receptor encoded by NR1H4": the graph keeps a gene and its product in one
                # node, so the phrase names the anchor itself, not a thing between it and the answer
                products.add(noun_form(tokens[adjacent][2]))
                product_words.update(stem(w) for _s, _e, w in tokens[_phrase_start(tokens, adjacent) : adjacent + 4])
                continue
            if cls not in relations:
                relations.append(cls)
            verbs.append((c.start, c.end, c.cue.base or c.surface))
            verb_classes.append((c.start, c.end, cls))
            said_as.setdefault(cls, set()).update(full_stem(w) for w in words(c.surface))
            if (
                adjacent is not None
                and adjacent in anchor_tokens
                and c.cue.tag in verb_tags()
                and _opens_clause(question, tokens, adjacent, anchor_tokens)
            ):
                # "the protein that mTORC1 phosphorylates": mTORC1 is who does it
                word = stem(tokens[adjacent][2].casefold())
                subject = next((k for k in ordered if word in {stem(w) for w in k.split()}), None)
                if subject is not None:
                    subjects.setdefault(cls, subject)
    bridge_nouns = [n for n in bridge_nouns if n not in products]
    stems = frozenset(
        stem(w)
        for w in words(question)
        if _content_word(w)
        and stem(w) not in wh_stems
        and stem(w) not in anchor_words
        and stem(w) not in product_words
        and noun_form(w) not in nouns
    )
    meant: dict[str, frozenset[str]] = {}
    cue_spans = [(c.start, c.end) for c in a.cues]
    phrases, after_names = _relation_phrases(question, tokens, (wh_first, wh_end), anchor_tokens, cue_spans)
    phrases += _nominal_relation(question, tokens, wh_first, anchor_tokens)
    phrase_stems = [frozenset(stem(w) for w in words(p) if _content_word(w)) for p in phrases]
    name_nouns = [phrase_stems[k] for k in sorted(after_names) if phrase_stems[k]]
    for phrase in phrases:
        cls = relation_by_meaning(phrase)
        if cls is None:
            continue
        meant[cls] = meant.get(cls, frozenset()) | {stem(w) for w in words(phrase) if _content_word(w)}
    # the anchors written as names; else the most specific one that is no setting ("in the epithelial
    # cells ...": where, not what)
    # a question opening with a setting preposition sets the scene up to its first comma ("In the
    # epithelial cells lining the colon, which ...")
    opening = question.find(",") if tokens and tokens[0][2].casefold() in SETTING_PREPOSITIONS else -1
    opening_length = len(node_key(question[:opening])) if opening > 0 else 0  # no opening: no scene set
    settings = {key for key in ordered if _in_setting(tokens, key) or 0 <= qkey.find(key) < opening_length}
    # "Apart from LKB1, which kinase ...": a name set apart from the answer, or a bare number ("172",
    # "2020"), need not be what the answer connects to
    apart = _set_apart(question)
    set_apart = {key for key in ordered if any(lo <= at < hi for lo, hi in apart for at in _starts(qkey, key))}
    incidental = {
        key
        for key in ordered
        if key.isdigit()
        or _years_of(key) is not None  # "in the mid-1930s": when, as a bare year
        or key in set_apart
        # "the rapamycin-sensitive complex", "their oxygen-consuming metabolism": a name written only
        # as the first part of a hyphenated modifier describes another thing
        or (surfaces.get(key) and all(_modifier_only(question, surface) for surface in surfaces[key]))
        # "the diabetes drug metformin": a word before a kind noun and a name says which one it is
        or any(
            _describes_name(question, surface, other)
            for surface in surfaces.get(key, ())
            for other_key in ordered
            if other_key != key
            for other in surfaces.get(other_key, ())
        )
    }
    # beside a name, a lower-case thing of a named type must be connected too ("What dose of rapamycin
    # was given in the TAME trial?"); alone, it is one anchor among the others
    names = written | named if written else written
    required = (
        [a for a in ordered if a in names and a not in incidental]
        or [a for a in ordered if a in names and _years_of(a) is None and a not in set_apart]
        or [a for a in ordered if a not in settings and a not in incidental][:1]
        or [a for a in ordered if a not in settings and a not in set_apart][:1]  # what the answer is not, last
        or [a for a in ordered if a not in settings][:1]
        or ordered[:1]
    )
    described = _described_phrases(tokens, wh_first, wh_end, anchor_tokens)
    described_classes = frozenset(a for a in ordered if a not in written and _described_member(question, a))
    answer_role = _answer_role(tokens, _after_aside(question, wh_end), cue_starts) if wh_start is not None else None
    cue_tokens = {i for i, (start, _e, _w) in enumerate(tokens) if start in cue_starts}  # verbs
    anchor_described = {
        key: found
        for key in ordered
        if (found := _anchor_descriptors(tokens, anchors[key], cue_tokens, (wh_first, wh_end)))
    }
    return QuestionParts(
        text=question,
        anchors=ordered,
        required=required,
        anchor_names=anchors,
        names_written=frozenset(written),
        described_classes=described_classes,
        wh_noun=wh_noun,
        wh_types=nouns.get(wh_noun, frozenset()) if wh_noun else frozenset(),  # empty: the text must say it
        wh_stems=wh_stems,
        wh_names=[w for w in wh_names if noun_form(w) != wh_noun],
        bridge_nouns=bridge_nouns,
        relations=relations,
        relation_verbs=verbs,
        relation_subjects=subjects,
        anchor_relations=_anchor_relations(question, tokens, surfaces, verb_classes),
        clause_relations=_anchor_relations(
            question, tokens, surfaces, _in_relative_clause(tokens, wh_end, verb_classes)
        ),
        relation_paraphrases={
            cls: tuple(other for group in paraphrase_groups() if any((w,) in group for w in said) for other in group)
            for cls, said in said_as.items()
        },
        stems=stems,
        wh_end=wh_end,
        wh_first=wh_first,
        meant=meant,
        described=described,
        answer_role=answer_role,
        anchor_described=anchor_described,
        anchor_written={key: frozenset(stem(w) for w in words(" ".join(surfaces.get(key, [])))) for key in ordered},
        phrase_stems=[p for p in phrase_stems if p],
        name_nouns=name_nouns,
        paraphrases=_paraphrases(question, anchor_words),
        asks_name=asks_name,
        quantity=quantity,
        asks_setting=wh_start is not None
        and quantity is None  # "In what year ...": a time, not a place
        and (
            tokens[wh_start][2].casefold() == "where"
            or (wh_start > 0 and tokens[wh_start - 1][2].casefold() in SETTING_PREPOSITIONS)
        ),
        wh_initials="".join(
            part[0] for s, _e, w in tokens if in_wh(s) and s > wh_first for part in w.casefold().split("-") if part
        )
        if wh_noun
        else "",
        wh_describing=frozenset(
            stem(w)
            for s, _e, w in tokens
            if in_wh(s)
            and _content_word(w)
            and noun_form(w) not in nouns
            and w.casefold() not in wh_names
            and noun_form(w) != wh_noun
        ),
    )


SETTING_PREPOSITIONS = frozenset(data_lines("setting_prepositions.txt"))


def full_stem(word: str) -> str:
    """A word with a plural or verb ending undone but not cut short ("compounds" -> "compound",
    kept apart from "component"), for matching paraphrases."""
    word = word.casefold()
    for suffix, keep in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if len(word) >= len(suffix) + 3 and word.endswith(suffix) and not word.endswith(("ss", "us", "is")):
            word = word[: -len(suffix)] + keep
            break
    return word[:-1] if len(word) > 3 and word.endswith("e") else word  # "name" ~ "named"


ANY_WORD = "*"  # in a paraphrase member, any one word ("named * after": "named it after")


def _member_words(member: str) -> tuple[str, ...]:
    return tuple(
        w for part in member.split() for w in ((ANY_WORD,) if part == ANY_WORD else map(full_stem, words(part)))
    )


@functools.cache
def paraphrase_groups() -> tuple[tuple[tuple[str, ...], ...], ...]:
    """Each group of ``data/paraphrase_groups.txt``: each member as its words' ``full_stem``s
    (``ANY_WORD`` standing for any one word)."""
    return tuple(
        tuple(_member_words(m) for m in line.split("|") if words(m)) for line in data_lines("paraphrase_groups.txt")
    )


def _run_at(seq: list[str], member: tuple[str, ...]) -> int | None:
    """Where ``seq`` first writes the words of ``member`` in a row (None: nowhere)."""
    n = len(member)
    if ANY_WORD not in member:  # the common case, compared whole (this runs for every sentence and member)
        return next((i for i in range(len(seq) - n + 1) if tuple(seq[i : i + n]) == member), None)
    return next(
        (i for i in range(len(seq) - n + 1) if all(m == ANY_WORD or w == m for w, m in zip(seq[i : i + n], member))),
        None,
    )


def _writes(seq: list[str], member: tuple[str, ...]) -> bool:
    return _run_at(seq, member) is not None


@functools.lru_cache(maxsize=1 << 14)
def _full_stems(text: str) -> list[str]:
    return [full_stem(w) for w in words(text)]


def _paraphrases(question: str, skip: set[str]) -> list[tuple[frozenset[str], tuple[tuple[str, ...], ...]]]:
    """The paraphrase-group members the question writes (outside words whose stem is in ``skip``:
    its names), each as the stems of the question's words, with the other members of its group."""
    written = words(question)
    # "From which plant does X come?", "the compound from which X was developed": the fronted
    # preposition is a later verb's ("come from", "developed from"), each later word tried with it
    question_words = written + [
        w
        for k, (preposition, wh) in enumerate(zip(written[:-2], written[1:-1]))
        if preposition in PREPOSITIONS and wh in WH_WORDS
        for later in written[k + 2 :]
        for w in ("", later, preposition)
    ]
    seq = [full_stem(w) if stem(w) not in skip else "" for w in question_words]
    found = []
    for group in paraphrase_groups():
        for member in group:
            at = _run_at(seq, member)
            if at is not None:  # the question's own stems of the words written ("make": make, not mak)
                others = tuple(other for other in group if other != member)
                written = [w for w, m in zip(question_words[at : at + len(member)], member) if m != ANY_WORD]
                found.append((frozenset(stem(w) for w in written), others))
    return found


def _held_by_paraphrase(q: QuestionParts, graph: ContextGraph, positions: tuple[int, ...]) -> set[str]:
    """The question's stems the sentences at ``positions`` hold in other words: a member of a
    paraphrase group the question writes, where a sentence writes another member of its group
    ("natural source of" is held by "produced by")."""
    if not q.paraphrases:
        return set()
    return _held_in(q, [_full_stems(graph.sentences[p].text) for p in positions])


def _held_in(q: QuestionParts, texts: list[list[str]]) -> set[str]:
    """The question's stems of each paraphrase member it writes whose group has another member
    written in one of ``texts`` (each as its words' ``full_stem``s)."""
    return {m for member, others in q.paraphrases if any(_writes(t, o) for t in texts for o in others) for m in member}


ANCHOR_DESCRIPTOR_WORDS = 3  # content words before an anchor, or in a relative clause after it, that describe it


def _anchor_descriptors(
    tokens: list[tuple[int, int, str]], name: str, skip: set[int], wh_span: tuple[int, int]
) -> frozenset[str]:
    """Stems of the content words the question describes an anchor (written ``name``) with: those right before it
    ("the gut lipid mediator OEA", "to bacterial lipopolysaccharide") and those of a relative clause
    right after it
    ("lipopolysaccharide that leaks out of the gut"), at most ``ANCHOR_DESCRIPTOR_WORDS`` each."""
    name_words = [node_key(w) for w in _WORD.findall(name)]
    found: set[str] = set()
    for i, (_s, _e, word) in enumerate(tokens):
        if not name_words or node_key(word) != name_words[0]:
            continue
        last = i + len(name_words) - 1
        for j in range(i - 1, max(-1, i - ANCHOR_DESCRIPTOR_WORDS - 1), -1):
            w = tokens[j][2]
            if j in skip or wh_span[0] <= tokens[j][0] < wh_span[1] or not _content_word(w):
                break
            found.add(stem(w))
        after = last + 1
        if (
            after < len(tokens)
            and tokens[after][2].casefold() in RELATIVE_WORDS
            and not wh_span[0] <= tokens[after][0] < wh_span[1]  # "..., which receptor": the question word
        ):
            for j in range(last + 2, min(len(tokens), last + 2 + 2 * ANCHOR_DESCRIPTOR_WORDS)):
                if j in skip:
                    break
                if _content_word(tokens[j][2]) and len(found) < 2 * ANCHOR_DESCRIPTOR_WORDS:
                    found.add(stem(tokens[j][2]))
        break
    return frozenset(found) - {stem(w) for w in name_words}


BESIDE_VERB_WORDS = 3  # words at most between a question's verb and the anchor it relates ("the abundance of")


def _anchor_relations(
    question: str,
    tokens: list[tuple[int, int, str]],
    surfaces: dict[str, list[str]],
    verbs: list[tuple[int, int, str]],
) -> dict[str, frozenset[str]]:
    """Anchor key -> the classes of the question's verbs written beside it: its object at most
    ``BESIDE_VERB_WORDS`` words after the verb, or its subject right before it."""
    spans = []  # (first token, last token, class) of each verb
    for start, end, cls in verbs:
        verb_first = next((i for i, t in enumerate(tokens) if t[0] >= start), None)
        verb_last = max((i for i, t in enumerate(tokens) if t[1] <= end), default=None)
        if verb_first is not None and verb_last is not None:
            spans.append((verb_first, verb_last, cls))
    found: dict[str, set[str]] = {}
    for key, written in surfaces.items():
        first = node_key(written[0]).split()[:1]
        at = next((i for i, (_s, _e, w) in enumerate(tokens) if node_key(w).split()[:1] == first), None)
        if not first or at is None:
            continue
        last = at + len(_WORD.findall(written[0])) - 1
        objects, subjects = set(), set()
        for verb_first, verb_last, cls in spans:
            if 0 < at - verb_last <= BESIDE_VERB_WORDS + 1:
                objects.add(cls)
            elif verb_first - last == 1 and not question[tokens[last][1] : tokens[verb_first][0]].strip():
                subjects.add(cls)  # "... does AMPK phosphorylate": not "Ewing sarcoma, clears"
        if objects or subjects:
            found[key] = objects or subjects  # "activates AMPK increases": AMPK is what is activated
    return {k: frozenset(v) for k, v in found.items()}


def _in_relative_clause(
    tokens: list[tuple[int, int, str]], wh_end: int, verbs: list[tuple[int, int, str]]
) -> list[tuple[int, int, str]]:
    """The verbs written after the first relative word that follows the wh-phrase."""
    relative = next((s for s, _e, w in tokens if s >= wh_end and w.casefold() in RELATIVE_WORDS), None)
    return [] if relative is None else [v for v in verbs if v[0] > relative]


def _in_setting(tokens: list[tuple[int, int, str]], key: str) -> bool:
    """Whether the question writes anchor ``key`` right after a setting preposition (an article or
    adjectives between: "In the epithelial cells lining the colon")."""
    first = key.split()[0] if key else ""
    for i, (_s, _e, word) in enumerate(tokens):
        if node_key(word).split()[:1] != [first]:
            continue
        for j in range(i - 1, max(-1, i - 4), -1):
            low = tokens[j][2].casefold()
            if low in SETTING_PREPOSITIONS:
                return True
            adjective = _content_word(tokens[j][2]) and not _name_like(tokens[j][2], j == 0)
            if low not in ARTICLES and not adjective:
                break
        return False
    return False


DO_WORDS = frozenset("does do did".split())
BE_WORDS = frozenset("is are was were".split())
BE_AFTER_WH = BE_WORDS | {"be"}  # "Which kinase is ...", "Which kinase can be ..." (after a modal)
MODAL_WORDS = frozenset("can could may might must should will would".split())


def _answer_role(tokens: list[tuple[int, int, str]], wh_end: int, cue_starts: set[int]) -> str | None:
    """The answer's role to the verb right after the wh-phrase: "Which kinase activates X" makes it
    the subject ('source'); "Which kinase does X activate" and "Which kinase is activated by X" the
    object ('target'); None when the question is worded otherwise."""
    after = [(start, word.casefold()) for start, _end, word in tokens if start >= wh_end]
    if after[:1] and after[0][1] in MODAL_WORDS:
        if len(after) < 2 or (after[1][1] not in BE_AFTER_WH and after[1][0] not in cue_starts):
            return "target"  # "Which kinase can X phosphorylate?": the modal stands where "does" would
        after = after[1:]  # "Which kinase can phosphorylate X?", "... can be activated by X?"
    if after[:1] and after[0][1] in PREPOSITIONS:  # "Which species in the guts of X produces Y?": the
        # phrase describes the answer; the verb after it is still the answer's own
        verb = next((i for i, (start, _w) in enumerate(after) if start in cue_starts), None)
        if verb is not None and not any(w in AUXILIARIES or w in RELATIVE_WORDS for _s, w in after[:verb]):
            after = after[verb:]
    if not after:
        return None
    start, word = after[0]
    if word in DO_WORDS:
        return "target"
    # a passive verb with its agent: "is activated by X", or a participle alone ("the receptor
    # activated by X"), which describes the answer
    verb = 1 if word in BE_AFTER_WH else 0
    if len(after) > verb + 1 and after[verb][0] in cue_starts and after[verb + 1][1] == "by":
        return "target"
    if word in BE_AFTER_WH:
        return None
    return "source" if start in cue_starts else None


def _after_aside(question: str, at: int) -> int:
    """Where the question goes on after an aside set off by commas right at ``at`` ("Which bacterium,
    together with the acids it makes, protected ...": at "protected"); ``at`` when none is."""
    aside = re.match(r"\s*,[^,?]*,", question[at:])
    return at + aside.end() if aside else at


RELATIVE_WORDS = frozenset("that which whom whose".split())
OBJECT_WORDS = 4  # words after a verb that hold its object
OBJECT_ENDS = frozenset("and or but that which whom whose while".split())
REFERRING_WORDS = frozenset(data_lines("subject_pronouns.txt")) | {"them", "its", "their"}


def _names_nothing_after(
    question: str, tokens: list[tuple[int, int, str]], verb_end: int, anchor_tokens: set[int]
) -> bool:
    """Whether the words after a question's verb of a later clause (not the one the question word
    opens: "Which bacterium did X restore to normal levels?" asks its object), up to ``OBJECT_WORDS``
    of its clause, name nothing (no anchor, name, type noun, pronoun, question word or agent "by"):
    "controls the slowest step of the classic route", "causes low platelet counts". Such a verb
    describes; it relates no two things."""
    window = []
    last_end = verb_end
    for i, (start, end, word) in enumerate(tokens):
        if start < verb_end:
            continue
        low = word.casefold()
        if low in OBJECT_ENDS or len(window) == OBJECT_WORDS or re.search(r"[,;:?.]", question[last_end:start]):
            break
        window.append((i, low, word))
        last_end = end
    return bool(window) and not any(
        i in anchor_tokens
        or _name_like(word, False)
        or noun_form(low) in type_nouns()
        or low in REFERRING_WORDS
        or low in QUESTION_WORDS
        or low == "by"
        for i, low, word in window
    )


DESCRIBED_MAX_WORDS = 4  # words between the article and the relative pronoun of a described phrase


MEMBERSHIP_CUES = tuple(tuple(line.split()) for line in data_lines("membership_cues.txt"))


def _described_member(question: str, key: str) -> bool:
    """Whether the question writes the class ``key`` as one thing it goes on to describe: "the
    short-chain fatty acid that ...", "the bile acid produced by ..." (an article before it, a
    relative word, a preposition or a participle after it)."""
    name = [noun_form(w) for w in words(key)]
    question_words = words(question)
    forms = [noun_form(w) for w in question_words]
    n = len(name)
    return any(
        forms[i : i + n] == name
        and question_words[i - 1] == "the"
        and (question_words[i + n] in OBJECT_ENDS | PREPOSITIONS or question_words[i + n].endswith("ed"))
        for i in range(1, len(forms) - n)
    )


def _member_of(graph: ContextGraph, key: str, cls: str) -> bool:
    """Whether the text says entity ``key`` is one of the class ``cls``: the class, a membership cue
    and a list holding the entity ("The main short-chain fatty acids are acetate, propionate and
    butyrate", "bile acids such as deoxycholic acid"; ``data/membership_cues.txt``), or the entity
    called one ("butyrate, a short-chain fatty acid")."""
    cls_form = [noun_form(w) for w in words(cls)]
    key_words = words(key)
    n = len(cls_form)
    for _position, sentence_words, at in _written_at(graph, key):
        forms = [noun_form(w) for w in sentence_words]
        for i in range(at - n + 1):
            if forms[i : i + n] != cls_form:
                continue
            rest = sentence_words[i + n : at]
            cue = next((c for c in MEMBERSHIP_CUES if tuple(rest[: len(c)]) == c), None)
            # the list runs from the cue to the entity: no clause ("which", a verb) between
            if cue is not None and not set(rest[len(cue) :]) & (OBJECT_ENDS - {"and", "or"}):
                return True
        # "butyrate, a short-chain fatty acid", "butyrate is a short-chain fatty acid"
        after = forms[at + len(key_words) :]
        after = after[1:] if after[:1] in (["is"], ["are"]) else after
        if after[:1] in (["a"], ["an"]) and after[1 : 1 + n] == cls_form:
            return True
    return False


def _described_phrases(
    tokens: list[tuple[int, int, str]], wh_first: int, wh_end: int, anchor_tokens: set[int]
) -> list[frozenset[str]]:
    """Content stems of each noun phrase that an article opens and a relative clause describes,
    outside the wh-phrase and named by no type noun or anchor ("the energy sensor that lithocholic
    acid switches on"): a thing the question does not name, between its names and the answer."""
    nouns = type_nouns()
    found: list[frozenset[str]] = []
    for k, (start, _end, word) in enumerate(tokens):
        if word.casefold() not in RELATIVE_WORDS or wh_first <= start < wh_end:
            continue
        for d in range(k - 1, max(-1, k - DESCRIBED_MAX_WORDS - 2), -1):
            if tokens[d][2].casefold() in ARTICLES:
                phrase = range(d + 1, k)
                if (
                    phrase
                    and not wh_first <= tokens[d][0] < wh_end
                    and not set(phrase) & anchor_tokens
                    and not any(noun_form(tokens[i][2]) in nouns for i in phrase)
                    and not any(_years_of(node_key(tokens[i][2])) for i in phrase)  # "in the 1950s that": when
                ):
                    # each part of a hyphenated word, as a sentence's stems hold it ("co-receptor")
                    stems = frozenset(stem(w) for i in phrase for w in words(tokens[i][2]) if _content_word(w))
                    if stems:
                        found.append(stems)
                break
    return found


PARTICLES = frozenset(data_lines("verb_particles.txt"))
VERB_ADVERBS = frozenset(data_lines("verb_adverbs.txt"))
ARTICLES = frozenset(data_lines("articles.txt"))


def _relation_phrases(
    question: str, tokens: list[tuple[int, int, str]], wh_span: tuple[int, int], anchor_tokens: set[int], cue_spans
) -> tuple[list[str], set[int]]:
    """The question's own wording of a relation the lexicon does not know: each run of content words
    after the wh-phrase that is no anchor, type noun or relation cue (articles inside it kept), with
    the particle after it ("switch on", "attach to", "add phosphate to"); and the indices of the
    one-word runs that go on a noun phrase after a name in it ("women" of "in older Swedish women")."""
    nouns_after_names: set[int] = set()
    nouns = type_nouns()
    phrases: list[str] = []
    run: list[int] = []
    nominal = False
    named_in_phrase = False  # the last name came inside a noun phrase ("in older Swedish women")

    def close(next_index: int) -> None:
        if run:
            end = run[-1]
            if next_index < len(tokens) and tokens[next_index][2].casefold() in PARTICLES:
                end = next_index
            phrases.append(question[tokens[run[0]][0] : tokens[end][1]])
            if named_in_phrase and len(run) == 1 and run[0] - 1 in anchor_tokens:
                nouns_after_names.add(len(phrases) - 1)
        run.clear()

    for i, (start, _end, word) in enumerate(tokens):
        low = word.casefold()
        in_cue = any(s <= start < e for s, e in cue_spans)
        if i and "," in question[tokens[i - 1][1] : start]:  # a comma ends a run and the noun phrase
            close(i)  # before it: "Who, with colleagues, showed ...": "showed" is a verb
            nominal = False
        if wh_span[0] <= start < wh_span[1] or i in anchor_tokens or in_cue or noun_form(low) in nouns:
            close(i)
            named_in_phrase = i in anchor_tokens and (nominal or (named_in_phrase and i - 1 in anchor_tokens))
            nominal = False
            continue
        if low in VERB_ADVERBS:
            continue  # "first isolated": the relation is the verb
        if _content_word(word) and low not in AUXILIARIES:
            if not run and nominal:
                continue  # words after a preposition or an article are a noun phrase, not a verb
            run.append(i)
        elif run and low in ARTICLES and i + 1 < len(tokens) and _content_word(tokens[i + 1][2]):
            continue  # "puts a phosphate on": the article stays inside the run
        else:
            close(i)
            nominal = low in PARTICLES or low in ARTICLES
    close(len(tokens))
    return phrases, nouns_after_names


NOMINAL_WORDS = 3  # content words of the noun a copular question asks through ("a partner receptor for which")


def _nominal_relation(
    question: str, tokens: list[tuple[int, int, str]], wh_first: int, anchor_tokens: set[int]
) -> list[str]:
    """The noun phrase a copular question relates its subject to the answer by, right before the
    preposition of the wh-phrase: "X is an indispensable partner receptor for which growth factor?"
    asks through "indispensable partner receptor" (a relation the lexicon has no verb for)."""
    k = next((i for i, (start, _e, _w) in enumerate(tokens) if start >= wh_first), None)
    if k is None or k < 3 or tokens[k - 1][2].casefold() not in PREPOSITIONS:
        return []
    run = []
    for i in range(k - 2, max(-1, k - 2 - NOMINAL_WORDS), -1):
        word = tokens[i][2]
        if i in anchor_tokens or not _content_word(word) or word.casefold() in AUXILIARIES:
            break
        run.insert(0, i)
    opener = run[0] - 1 if run else -1
    if opener < 0 or tokens[opener][2].casefold() not in COPULAS:
        return []  # "the receptor for which ..." after a copula or an article only
    return [question[tokens[run[0]][0] : tokens[run[-1]][1]]]


RELATION_MIN_COSINE = 0.40  # a phrase means a relation verb at least this close (packaged embedder)
RELATION_MARGIN = 0.10  # ... and this much closer than the nearest verb of another class


@functools.cache
def _verb_vectors():
    """(relation class, unit vector) of each verb cue's base form ("activate")."""
    from kg_pipelines.offline.lexicon import CUES

    verbs = sorted({(c.base, c.tag) for c in CUES if c.kind == "verb" and c.base})
    vectors = _phrase_vectors(tuple(base for base, _tag in verbs))
    return [(_relation_of(tag), vectors[i]) for i, (_base, tag) in enumerate(verbs)]


def _phrase_vectors(phrases: tuple[str, ...]):
    import numpy as np

    from kg_pipelines.config import DEFAULT_EMBEDDING_MODEL
    from kg_pipelines.embedding import embedder_for

    vectors = np.asarray(embedder_for(DEFAULT_EMBEDDING_MODEL).embed([p.casefold() for p in phrases]), dtype=float)
    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)


@functools.lru_cache(maxsize=4096)
def relation_by_meaning(phrase: str) -> str | None:
    """The relation class a phrase of the lexicon's unknown words means ("switch on" -> activates):
    the class of the verb cue whose base form is closest to it by the packaged embedder's cosine,
    when that is at least ``RELATION_MIN_COSINE`` and ``RELATION_MARGIN`` above every verb of another
    class (antonyms embed close: "increase" and "reduce" are 0.49 apart); else None."""
    best: dict[str, float] = {}
    vector = _phrase_vectors((phrase,))[0]
    for cls, verb in _verb_vectors():
        best[cls] = max(best.get(cls, -1.0), float(vector @ verb))
    ranked = sorted(best.items(), key=lambda kv: -kv[1])
    if not ranked or ranked[0][1] < RELATION_MIN_COSINE:
        return None
    if len(ranked) > 1 and ranked[0][1] - ranked[1][1] < RELATION_MARGIN:
        return None
    return ranked[0][0]


# -- the reasoner ---------------------------------------------------------------------------------


@dataclass
class Chain:
    positions: tuple[int, ...]  # sentence positions, in walking order
    candidate: str  # entity key of the answer
    bridge: str | None
    score: float = 0.0
    anchors_hit: frozenset[str] = frozenset()
    relations_hit: frozenset[str] = frozenset()
    word_share: float = 0.0  # inverse-frequency weighted
    word_count_share: float = 0.0
    own_word_count_share: float = 0.0  # without the words of a sentence before that lends an anchor
    unheld: frozenset[str] = frozenset()  # the question's stems the chain's sentences do not hold
    kind_ok: bool = False
    unrelated_hops: int = 0  # hops whose sentence pairs their two ends by no relation (a list, a mention)
    negated: bool = False
    reversed: bool = False  # the last hop's sentence relates its two ends the other way round
    last_related: bool = True  # the last hop's sentence relates its two ends by more than naming both
    phrase_stated: bool = False  # the chain writes one of the question's own relation phrases (or a paraphrase)
    clause_stated: bool = False  # its first sentence states the clause the question describes the bridge by
    kind_said: bool = False  # the text itself calls the answer the kind asked ("the ELDERMET study")
    other_verb_before: bool = False  # the verb the last sentence writes before the answer is not one asked


@dataclass
class ExtractiveAnswer:
    answer: str
    supported: bool
    sentences: list[tuple[int, str]]  # (context index, sentence) of each sentence used
    sentence_ids: list[str] = field(default_factory=list)
    answer_entity: str | None = None
    bridges: list[str] = field(default_factory=list)
    reason: str = ""  # why it is not supported (empty when it is)


ENCODES = "encodes"  # the relation class of a gene and its product (a gloss "(the worm X gene)" states it)
GENE_NOUN = "gene"
GENE_NOUNS = frozenset({GENE_NOUN, "locus"})  # the kinds a question asking what encodes a thing names
KIND_SAID_WEIGHT = 1.0  # an answer the text calls the asked kind outranks one only typed as it
COPULAS = frozenset("is are was were a an the as".split())
QUANTITY_PREFIXES = frozenset(data_lines("quantity_prefixes.txt"))
NAMING_PHRASES = tuple(tuple(line.split()) for line in data_lines("naming_words.txt"))


@functools.cache
def kind_synonyms() -> dict[str, tuple[str, ...]]:
    """noun -> the nouns naming its kind in other words, itself first (``data/kind_synonyms.txt``)."""
    found: dict[str, tuple[str, ...]] = {}
    for line in data_lines("kind_synonyms.txt"):
        group = [noun_form(m.strip()) for m in line.split("|") if m.strip()]
        for noun in group:
            found[noun] = (noun, *[n for n in group if n != noun])
    return found


def _is_kind(graph: ContextGraph, key: str, noun: str | None, types: frozenset[str]) -> bool:
    """Whether entity ``key`` is of the kind ``noun`` (or a noun of ``kind_synonyms``) names: its
    type, the noun in its name, the noun just before it ("the nuclear receptor PPAR-alpha") or in
    what the text says it is ("X is an anaerobic bacterium", "X and Y are the two NAD+ precursors")."""
    if noun is None:
        return False
    if types and graph.types.get(key) in types:
        # "the insulin receptor" names insulin's receptor, and "glucagon-like peptide 1 (GLP-1)" spells
        # out a peptide: a protein written so is no receptor unless the text calls it one
        return not (
            noun in RELATIONAL_NOUNS
            and (_named_before(graph, key, (noun,)) or _spelled_as_other_kind(graph, key, noun))
            and not _is_kind_noun(graph, key, noun)
        )
    nouns = kind_synonyms().get(noun, (noun,))
    if (not types or noun not in RELATIONAL_NOUNS) and _named_before(graph, key, nouns, singular=True):
        # written right before the kind: "the ELDERMET study", "NF-kB signalling" (a pathway); not
        # "the insulin receptor", which names another thing related to it (``RELATIONAL_NOUNS``), nor
        # "autophagy proteins", things of that kind the name says what they work in
        return True
    return any(_is_kind_noun(graph, key, n) for n in nouns)


RELATIONAL_NOUNS = frozenset(noun_form(w) for w in data_lines("relational_nouns.txt"))


GENUS = "genus"


def _names_genus(graph: ContextGraph, key: str, noun: str) -> bool:
    """Whether entity ``key`` is a species written by its binomial ("Akkermansia muciniphila"), whose
    first word names the genus ``noun`` asks about ("the genus of the mucus-dwelling bacterium")."""
    return noun == GENUS and graph.types.get(key) == "microbe" and len(key.split()) == 2


def _spelled_as_other_kind(graph: ContextGraph, key: str, noun: str) -> bool:
    """Whether the text spells entity ``key`` out ("glucagon-like peptide 1 (GLP-1)") and every long
    form ends in a common noun other than ``noun`` and its synonyms (a peptide, not a receptor)."""
    heads = {_head(long) for long, short in _defined(graph, key) if key in (short, long)}
    return bool(heads) and not heads & {"", *kind_synonyms().get(noun, (noun,))}


def _named_before(graph: ContextGraph, key: str, nouns: Iterable[str], singular: bool = False) -> bool:
    """Whether a sentence writes entity ``key`` right before one of ``nouns`` ("the ELDERMET study",
    "the PLACIDE trial"), as it names it or in a form the text writes it ("NF-kB signalling" for
    NF-κB): the name of one of that kind; with ``singular``, only a noun written in the singular."""
    nouns = set(nouns)
    for form in {key, *_surfaces(graph, key)}:
        n = len(words(form))
        for _p, sentence_words, i in _written_at(graph, form, graph.by_entity.get(key, ())):
            after = sentence_words[i + n] if i + n < len(sentence_words) else ""
            if noun_form(after) in nouns and not (singular and noun_form(after) != after.casefold()):
                return True
    return False


def _is_kind_noun(graph: ContextGraph, key: str, noun: str) -> bool:
    """``_is_kind`` for one noun, by the text alone."""
    if any(noun_form(w) == noun for w in key.split()):
        return True
    if any(_abbreviates(w, noun) for w in key.split()):
        return True
    if any(_head(surface) == noun for surface in _surfaces(graph, key)):
        return True  # "fibroblast growth factor 23 (FGF23)": the name the text writes ends in the kind
    if (
        _described_as(graph, key, noun, written_as=True) is not None
        or _listed_as(graph, key, noun)
        or _designated(graph, key, noun)
    ):
        return True  # as it is named, or in a form the text writes it ("the cytokines TNF and IL-6")
    acts = _agent_relation(noun)
    if acts is not None and any(
        source == key and acts in {_relation_of(t) for t in tags}
        for sentence in graph.sentences
        for (source, _target), tags in sentence.directed.items()
    ):
        return True  # "p16INK4a, which inhibits CDK4 and CDK6": an inhibitor
    description = graph.descriptions.get(key)
    if not description:
        return False
    described = node_key(description)
    others = [words(k) for k in graph.names if k != key and _mentions(described, k)]
    return _calls(words(description), words(key), noun, others, text=description)


DESIGNATED_KINDS = dict(data_table("designated_kinds.tsv"))  # kind noun -> type of the name designated


def _designated(graph: ContextGraph, key: str, noun: str) -> bool:
    """Whether a sentence writes entity ``key``, of the type ``DESIGNATED_KINDS`` gives ``noun``, with
    a designation right after its name ("Lactobacillus reuteri ATCC PTA 6475": a strain)."""
    if DESIGNATED_KINDS.get(noun) != graph.types.get(key):
        return False
    forms = "|".join(_written_pattern(form) for form in sorted({key, *_surfaces(graph, key)}))
    designated = re.compile(rf"(?i:\b(?:{forms}))\s+(?:[A-Z]{{2,}}|[A-Za-z]*\d)[\w-]*\b")
    return any(designated.search(graph.sentences[p].text) for p in graph.by_entity.get(key, ()))


@functools.cache
def _agent_relation(noun: str) -> str | None:
    """The relation class of the verb an agent noun is made of ("inhibitor": inhibits), else None."""
    if not noun.endswith(("or", "er")):
        return None
    tag = _verb_tag(noun[:-2]) or _verb_tag(noun[:-2] + "e")  # "inhibit", "activate"
    return _relation_of(tag) if tag is not None else None


def _surfaces(graph: ContextGraph, key: str) -> set[str]:
    """The forms the text writes entity ``key`` as: a surface the extractor read as it, and the long
    form a sentence defines for it ("fibroblast growth factor 23 (FGF23)")."""
    found = {long for long, short in _defined(graph, key) if short == key}
    for p in graph.by_entity.get(key, ()):
        found |= {surface for surface, entity in graph.sentences[p].written.items() if entity == key and surface != key}
    return found


def _defined(graph: ContextGraph, key: str) -> set[tuple[str, str]]:
    """(long form, short form), as node keys, of each abbreviation a sentence naming entity ``key``
    defines ("fibroblast growth factor 23 (FGF23)")."""
    return {
        (node_key(long), node_key(short))
        for p in graph.by_entity.get(key, ())
        for long, short in _abbreviations(graph.sentences[p].text)
    }


@functools.lru_cache(maxsize=1 << 12)
def _abbreviations(text: str) -> tuple[tuple[str, str], ...]:
    from kg_pipelines.graph.stated_aliases import find_abbreviations

    return tuple(find_abbreviations(text))


def _head(name: str) -> str:
    """The noun form of a name's head word: its last word before a trailing number, letter or Greek
    letter ("fibroblast growth factor 23" -> factor)."""
    name_words = words(name)
    while len(name_words) > 1 and (
        any(c.isdigit() for c in name_words[-1]) or len(name_words[-1]) == 1 or name_words[-1] in greek_letters()
    ):
        name_words.pop()
    return noun_form(name_words[-1]) if name_words else ""


COLLECTIVE_NOUNS = frozenset(data_lines("collective_nouns.txt"))


def _collective(key: str, noun: str | None) -> bool:
    """Whether entity ``key`` names a group ("gut microbiota") where the question asks for one of a
    kind ("which species", "which bacterium"): a community is not one of its members."""
    name = words(key)
    return bool(name) and noun_form(name[-1]) in COLLECTIVE_NOUNS and noun_form(name[-1]) != noun


COUNTRY_KEYS = frozenset(node_key(name) for name in COUNTRIES)
CITY_KEYS = frozenset(node_key(name) for name in CITIES)


def _other_place(key: str, noun: str | None) -> bool:
    """Whether entity ``key`` is a country where the question asks for a city, or a city where it asks
    for a country (``data/countries.txt``, ``data/cities.txt``): both are locations, neither is the other."""
    places = {"city": COUNTRY_KEYS, "country": CITY_KEYS}.get(noun or "")
    return places is not None and key in places


NUMBERED_SYMBOL = re.compile(r"([a-z]+)-?\d+[a-z]?")  # "sirt3", "fgf21", "gpr109a": letters, then a number
MIN_SYMBOL_LETTERS = 4  # a symbol's letters abbreviate a noun only this long ("SIRT" of sirtuin; "CDK" no)


def _abbreviates(word: str, noun: str) -> bool:
    """Whether a numbered symbol is a member of the family the noun names: its letters before the
    number begin the noun ("SIRT3" is a sirtuin), at least ``MIN_SYMBOL_LETTERS`` of them."""
    match = NUMBERED_SYMBOL.fullmatch(word.casefold())
    return bool(match) and len(match.group(1)) >= MIN_SYMBOL_LETTERS and noun.startswith(match.group(1))


MOLECULE_TYPES = frozenset({"protein", "gene"})  # types whose things come in many kinds (kinase, receptor ...)


SUBKIND_WORDS = 3  # the words before a kind noun read as what kind of it the text says a name is


def _called_another_subkind(q: QuestionParts, graph: ContextGraph, key: str) -> bool:
    """Whether the text calls entity ``key`` the asked kind with describing words of which the
    wh-phrase, describing its own, writes none: "the nuclear receptor PPAR-gamma" is no answer to
    "which G protein-coupled receptor" (a word may contain the other: "the calcium-dependent kinase"
    answers "which calcium-regulated kinase"); a family named by a member ("the BCL-2 family
    proteins") describes no kind."""
    if q.wh_noun is None or not q.wh_describing:
        return False
    asked = [w.casefold() for w in words(q.text[q.wh_first : q.wh_end]) if _content_word(w)]
    for form in {key, *_surfaces(graph, key)}:
        for _p, sentence_words, i in _written_at(graph, form, graph.by_entity.get(key, ())):
            if i < 2 or noun_form(sentence_words[i - 1]) != q.wh_noun:
                continue
            run = []
            for w in reversed(sentence_words[max(0, i - 1 - SUBKIND_WORDS) : i - 1]):
                if not _content_word(w) or w in PREPOSITIONS:
                    break
                run.append(w.casefold())
            if not run or any(any(c.isdigit() for c in w) or w in COLLECTIVE_NOUNS for w in run):
                continue
            if not any(m in w or w in m for m in run for w in asked):
                return True
    return False


def _subkind(q: QuestionParts) -> bool:
    """Whether the kind the question asks for is one kind of protein or gene ("kinase", "receptor"),
    which the entity type alone does not say, rather than the type itself ("Which protein ...")."""
    return bool(q.wh_types) and q.wh_types <= MOLECULE_TYPES and q.wh_noun not in MOLECULE_TYPES


MIN_INITIALS = 3  # a symbol's letters spell out a kind's words only this many ("FGF"; "AR" no)


def _initialled(key: str, initials: str) -> bool:
    """Whether a numbered symbol of entity ``key`` is written with the first letters of the words
    naming its kind: FGF21 is a "fibroblast growth factor", TLR4 a "Toll-like receptor", CDK6 a
    "cyclin-dependent kinase" (the letters end at the kind noun, at least ``MIN_INITIALS`` of them)."""
    for word in key.split():
        match = NUMBERED_SYMBOL.fullmatch(word)
        if match and len(match.group(1)) >= MIN_INITIALS and initials.endswith(match.group(1)):
            return True
    return False


def _same_symbol(a: str, b: str) -> bool:
    """Whether two numbered symbols name one thing, gene and protein: the same number, the letters of
    one ending the other's (TP53 and p53); not siblings (CDK4 and CDK6 differ in the number)."""
    x = re.fullmatch(r"([a-z]+)-?(\d+)", a.casefold())
    y = re.fullmatch(r"([a-z]+)-?(\d+)", b.casefold())
    if not x or not y or x.group(2) != y.group(2) or x.group(1) == y.group(1):
        return False
    short, long = sorted((x.group(1), y.group(1)), key=len)
    return long.endswith(short)


def _named_as(graph: ContextGraph, key: str, names: list[str]) -> bool:
    """Whether entity ``key`` carries each of ``names`` (the name-like words of the wh-phrase,
    "FOXO" in "Which FOXO protein"): a word of its name starts with it (FOXO3), or the word just
    before one of its mentions is it ("the Lactobacillus strain"). A sentence that merely names
    both ("FOXO3 target genes include SOD2") does not make SOD2 a FOXO protein."""
    key_words = words(key)
    return all(
        any(w.startswith(name) for w in key_words)
        or any(
            i > 0
            and (
                (name in _words_before(sentence_words, i) and _modifies(graph.sentences[position].text, name, key))
                or _spelled_before(sentence_words, i, name)
            )
            for position, sentence_words, i in _written_at(graph, key)
        )
        or _placed_in(graph, key, name)
        for name in names
    )


@functools.cache
def demonym_places() -> dict[str, tuple[tuple[str, ...], ...]]:
    """Nationality adjective -> the words of each place it says (``data/demonym_places.tsv``)."""
    return {
        row[0]: tuple(tuple(words(p.casefold())) for p in row[1].split("|")) for row in data_table("demonym_places.tsv")
    }


def _placed_in(graph: ContextGraph, key: str, demonym: str) -> bool:
    """Whether a sentence writing entity ``key`` names the place the wh-phrase's nationality says
    ("Which Irish study": "The ELDERMET study of older adults in Ireland ...")."""
    places = demonym_places().get(demonym, ())
    return any(
        _run_at(sentence_words, place) is not None
        for _, sentence_words, _i in _written_at(graph, key)
        for place in places
    )


def _modifies(text: str, name: str, key: str) -> bool:
    """Whether ``text`` writes ``name`` as a word of entity ``key``'s mention, joined to it by spaces
    alone ("the Lactobacillus strain X"), not as the item before it in a list ("Lactobacillus,
    Bifidobacterium")."""
    return re.search(rf"(?i)\b{re.escape(name)}\s+(?:\w+\s+)?{_written_pattern(key)}\b", text) is not None


def _words_before(sentence_words: list[str], i: int) -> list[str]:
    """The word right before word ``i``, and the one before it when that is a kind noun: "the
    Lactobacillus strain X", "the Dutch microbiologist X" both carry their first word."""
    before = sentence_words[i - 1 : i]
    if i > 1 and noun_form(sentence_words[i - 1]) in type_nouns():
        before.append(sentence_words[i - 2])
    return before


def _spelled_before(sentence_words: list[str], i: int, name: str) -> bool:
    """Whether the words right before word ``i`` (or before the one noun just before it) spell the
    abbreviation ``name`` by their initials: "the cyclin-dependent kinase inhibitor p21" carries CDK."""
    n = len(name)
    if n < 2 or not name.isalpha():
        return False
    return any(end - n >= 0 and "".join(w[:1] for w in sentence_words[end - n : end]) == name for end in (i, i - 1))


def _written_at(graph: ContextGraph, key: str, positions: Iterable[int] | None = None):
    """(sentence position, the sentence's words, index of the name's first word) of each place a
    sentence (of ``positions``, else any) writes entity ``key``'s name word for word."""
    name_words = words(key)
    n = len(name_words)
    for position in graph.by_entity.get(key, ()) if positions is None else positions:
        sentence_words = words(graph.sentences[position].text)
        for i in range(len(sentence_words) - n + 1):
            if sentence_words[i : i + n] == name_words:
                yield position, sentence_words, i


def _verb_before(sentence_words: list[str], i: int, own: frozenset[str] = frozenset()) -> tuple[str, str] | None:
    """(relation tag, word) of the nearest relation verb before word ``i`` ("suppress" for "vitamin D"
    in "... promote phosphate excretion and suppress the synthesis of active vitamin D"); a word whose
    stem is in ``own`` (the question's own words: "represses" for "repress") counts, with tag ''."""
    for word in reversed(sentence_words[:i]):
        if stem(word.casefold()) in own:
            return "", word
        tag = _verb_tag(word)
        if tag is not None:
            return tag, word
    return None


def _verb_tag(word: str) -> str | None:
    """The relation tag of ``word`` when it is a verb of the relation lexicon, or its -ing form ("by
    inhibiting"); else None."""
    from kg_pipelines.offline.lexicon import CUE_BY_LETTER, CUES

    regex = CUE_BY_LETTER.get(word[:1].lower())
    found = regex.fullmatch(word) if regex is not None else None
    group = (found.lastgroup or "") if found is not None else ""
    if group.startswith("v") or (group.startswith("n") and word.casefold().endswith("ing")):
        return CUES[int(group[1:])].tag
    return None


def _main_and_described(q: QuestionParts) -> tuple[frozenset[str], frozenset[str]]:
    """(relation classes of the question's main verb, of the verbs of its relative clauses) after
    the wh-phrase: the main verb is the first one no relative word ("that", "which", "whose" ...)
    comes before ("Which kinases *are blocked* by the protein that X produces?"), else, after "does",
    the last one ("Which phenotype does the drug that binds FKBP12 *reduce*?"), else none the lexicon
    knows ("Which sirtuin *is the closest relative* of the gene whose extra copy extended ...?")."""
    after = [v for v in q.relation_verbs if v[0] >= q.wh_end]
    if not after:
        return frozenset(), frozenset()
    free = [v for v in after if not RELATIVE_WORD.search(q.text, q.wh_end, v[0])]
    if not free and q.text[q.wh_end :].split()[:1] not in (["does"], ["do"], ["did"]):
        return frozenset(), frozenset()  # "Which sirtuin is the closest relative of the gene whose ...": no verb
    main_verb = free[0] if free else after[-1]
    main = _verb_classes(q.text[main_verb[0] : main_verb[1]])
    others = frozenset().union(*(_verb_classes(q.text[v[0] : v[1]]) for v in after if v != main_verb))
    return main, others - main


RELATIVE_AFTER = re.compile(r"\s+(?:that|which)\b", re.IGNORECASE)
RELATIVE_WORD = re.compile(r"\b(?:that|which|who|whom|whose)\b", re.IGNORECASE)
# after the wh-phrase, not after a copula: "the compound that eliminates", whose subject is the noun
SUBJECT_CLAUSE = re.compile(
    r"(?i)^(?!\s*(?:is|are|was|were)\b).*\b(?:the|a|an)\s+[\w-]+(?:\s+[\w-]+){0,2}\s+(?:that|which)\s+$"
)


def _subject_described(q: QuestionParts) -> frozenset[str]:
    """Relation classes of the verbs of relative clauses after the wh-phrase whose subject is the
    thing they describe ("..., related to the compound that eliminates senescent cells, ..."): that
    thing is a thing on the way, not the answer ("Which sirtuin is the enzyme that ...": the copula
    makes it the answer)."""
    return frozenset().union(
        *(
            _verb_classes(q.text[start:end])
            for start, end, _base in q.relation_verbs
            if start >= q.wh_end and SUBJECT_CLAUSE.match(q.text[q.wh_end : start])
        )
    )


def _answered_before_the_bridge(q: QuestionParts, graph: ContextGraph, chain: Chain) -> bool:
    """Whether a two-hop chain's first sentence already writes the question's main verb from the
    bridge to another entity, and its last sentence does not write it ("the CDKN2A locus produces
    p16INK4a, which inhibits CDK4" then "ATTAC is expressed from the p16INK4a promoter" for "Which
    kinases are blocked by the protein that CDKN2A produces?": CDK4 is the one blocked)."""
    main, _described = _main_and_described(q)
    if not main or len(chain.positions) < 2:
        return False
    first, last = graph.sentences[chain.positions[0]], graph.sentences[chain.positions[-1]]
    elsewhere = any(
        source == chain.bridge and target != chain.candidate and {_relation_of(t) for t in tags} & main
        for (source, target), tags in first.directed.items()
    )
    last_tags = last.relations.get(frozenset((chain.bridge, chain.candidate)), ())
    last_classes = {_relation_of(t) for t in last_tags} | (
        set() if set(last_tags) & verb_tags() else set(_verb_classes(last.text))
    )
    return elsewhere and not main & last_classes


def _is_the_described(q: QuestionParts, graph: ContextGraph, chain: Chain) -> bool:
    """Whether the one-hop answer is what the question's later clause describes ("Which kinases are
    blocked by the protein that the CDKN2A locus produces?": "the CDKN2A locus produces p16INK4a,
    which inhibits CDK4" makes p16INK4a the protein described, not a kinase blocked): a verb of a
    clause after the question's main verb, which the sentence writes from an anchor to the answer,
    while the answer does the main verb to another entity."""
    pairs = [
        (source, target, {_relation_of(t) for t in tags})
        for p in chain.positions
        for (source, target), tags in graph.sentences[p].directed.items()
    ]
    doing = _subject_described(q)
    if any(s == chain.candidate and t in chain.anchors_hit and classes & doing for s, t, classes in pairs):
        return True  # "Which flavonoid, related to the compound that eliminates X, ...": "Quercetin eliminates X"
    main, described = _main_and_described(q)
    if not main or not described:
        return False
    made = any(s in chain.anchors_hit and t == chain.candidate and classes & described for s, t, classes in pairs)
    acts = any(s == chain.candidate and classes & main for s, _t, classes in pairs)
    return made and acts


@functools.lru_cache(maxsize=1 << 12)
def _verb_classes(text: str) -> frozenset[str]:
    """Relation classes of every relation verb ``text`` writes, whether or not the extractor paired
    its ends ("promotes their nuclear entry")."""
    return frozenset(_relation_of(tag) for word in words(text) if (tag := _verb_tag(word)) is not None)


def _asked_verb(q: QuestionParts, verb: tuple[str, str]) -> int:
    """Whether ``verb`` (tag, word) is one the question asks about: 2 when it is (its relation, or the
    question's own word), 1 when it says one in other words (a paraphrase), 0 when not."""
    tag, word = verb
    said = [full_stem(word)]
    if (
        _relation_of(tag) in q.relations
        or _relation_of(tag) in q.meant  # "switch on", read by meaning as activates
        or stem(word.casefold()) in q.stems  # the question's own verb, outside the lexicon's relations ("secrete")
    ):
        return 2
    return int(
        any(_writes(said, member) for members in q.relation_paraphrases.values() for member in members)
        # a paraphrase of a word the question asks with ("make": produces), not of a word that
        # describes one of its names ("co-receptor": binds)
        or any(_writes(said, member) for written, members in q.paraphrases if written <= q.stems for member in members)
    )


PASSIVE = re.compile(r"\b(?:is|are|was|were|been|being)\s+(?:\w+\s+)?\w+(?:ed|en)\s+by\b", re.IGNORECASE)


def _active_subject(graph: ContextGraph, position: int, key: str) -> bool:
    """Whether the sentence at ``position`` opens on entity ``key`` and states in the active voice
    what it does ("Faecalibacterium prausnitzii ... secretes MAM"), so it is no target of its verbs."""
    return _opens_on(graph, position, position, key) and not PASSIVE.search(graph.sentences[position].text)


def _described_as(graph: ContextGraph, key: str, noun: str, written_as: bool = False) -> int | None:
    """The position of a sentence that calls entity ``key`` a ``noun`` (see ``_is_kind``); with
    ``written_as``, a form the text writes it as too ("TNF" for TNF-alpha)."""
    positions = graph.by_entity.get(key, ())
    for name in (key, *(sorted(_surfaces(graph, key)) if written_as else ())):
        name_words = words(name)
        for position, sentence_words, i in _written_at(graph, name, positions):
            others = [words(k) for k in graph.sentences[position].entities if k != key]
            if _calls(sentence_words, name_words, noun, others, i, graph.sentences[position].text):
                return position
    return None


@functools.lru_cache(maxsize=1 << 14)  # asked again for every kind noun a name is checked against
def _after_punctuation(text: str, word: str, name: str) -> bool:
    """Whether ``text`` writes ``name`` after ``word`` and a comma, colon or semicolon."""
    return re.search(rf"(?i)\b{re.escape(word)}\s*[,;:]\s*{_written_pattern(name)}\b", text) is not None


@functools.lru_cache(maxsize=1 << 14)
def _opening_phrase_end(text: str, name: str) -> int | None:
    """The number of words up to the end of ``name`` where it ends the phrase ``text`` opens with a
    preposition, before a comma ("In the nematode Caenorhabditis elegans, the AMPK catalytic subunit
    aak-2 is ..."), else None."""
    m = re.match(rf"(?i)\W*(\w+)\b[^,;:.]*?\b{_written_pattern(name)}(?=\s*[,;:])", text)
    return len(words(m.group(0))) if m is not None and m.group(1).casefold() in PREPOSITIONS else None


def _punctuated(
    text: str, sentence_words: list[str], name_words: list[str], places: list[int], before: bool = True
) -> list[str]:
    """``sentence_words`` (of ``text``) with a comma where one ends a phrase at the name written at
    each of ``places``: after it where it ends the phrase the sentence opens with ("In the nematode
    C. elegans, the AMPK catalytic subunit ...": the clause's subject follows, no other name for it)
    and, with ``before``, in place of the word before it ("Through these receptors, short-chain fatty
    acids ...": that word ends a phrase; not for every place of a name, where it would break a list
    "X-2, X-xL and X-W" into others)."""
    if not places or not any(mark in text for mark in ",;:"):
        return sentence_words  # no comma, colon or semicolon: no phrase ends at the name
    name = " ".join(name_words)
    out, opening = list(sentence_words), _opening_phrase_end(text, name)
    for i in sorted(places, reverse=True):  # from the last: a comma put in moves only what follows it
        if opening is not None and i + len(name_words) == opening:
            out.insert(opening, ",")
        if before and i and _after_punctuation(text, out[i - 1], name):
            out[i - 1] = ","
    return out


def _listed_as(graph: ContextGraph, key: str, noun: str) -> bool:
    """Whether entity ``key`` opens an item of a list whose section heading names ``noun`` ("##
    Senolytic drugs" over "- Navitoclax (ABT-263) inhibits ..."): an item's subject is one of what
    the list lists."""
    return any(
        i == 0 and noun in graph.sentences[position].listed_under for position, _words, i in _written_at(graph, key)
    )


def _calls(
    sentence_words: list[str],
    name_words: list[str],
    noun: str,
    others: list[list[str]],
    at: int | None = None,
    text: str = "",
) -> bool:
    """Whether a sentence (its words; its ``text``, where given, for the commas that end phrases)
    calls the name written at word ``at`` (else at any place it is written) a ``noun``: the noun just
    before it ("the receptor X", not "a receptor that senses X"), or after a copula right after it
    ("X is an anaerobic bacterium"), the description ending where one of the ``others`` names starts
    ("X, the hormone Klotho" calls Klotho a hormone, not X)."""
    n = len(name_words)
    # the kind itself may be a node ("Spermidine is a natural polyamine" beside a "polyamine" node):
    # it is what the sentence calls the name, not another name the description ends at
    others = [o for o in others if [noun_form(w) for w in o] != [noun]]
    places = (
        [at]
        if at is not None
        else [i for i in range(len(sentence_words) - n + 1) if sentence_words[i : i + n] == name_words]
    )
    if text:
        sentence_words = _punctuated(text, sentence_words, name_words, places, before=at is not None)
    for i in places:
        # "the receptor X", not "multi-strain X" (a count of strains modifying another noun)
        before = sentence_words[max(0, i - 1) : i] if i < 2 or sentence_words[i - 2] not in QUANTITY_PREFIXES else []
        following = sentence_words[i + n : i + n + 1]
        if following and (any(c.isdigit() for c in following[0]) or _names_kind(following[0], noun)):
            before = []  # "the enzyme cholesterol 7-alpha-hydroxylase": the noun is the longer name's
        first = _list_start(sentence_words, i, others)
        if 0 < first < i and noun_form(sentence_words[first - 1]) != sentence_words[first - 1]:
            before = sentence_words[first - 1 : first]  # "the transcription factors HSF-1 and SKN-1": each item
        for naming in NAMING_PHRASES:  # "a protein called MAM": the noun before the naming words
            if i > len(naming) and sentence_words[i - len(naming) : i] == list(naming):
                before = sentence_words[i - len(naming) - 1 : i - len(naming)]
                break
        after = sentence_words[i + n : i + n + 2 + TYPE_WINDOW_WORDS]
        if after[:1] and after[0] not in COPULAS and after[1:2] and after[1] in BE_WORDS:
            after = after[1:]  # "Nicotinamide riboside (NR) is ...": the abbreviation between (not
            # "ATP on the gamma subunit, and the upstream kinase LKB1": an article is no copula here)
        described = bool(after[:1]) and after[0] in COPULAS
        if described:
            # "metformin is beneficial for every older person": a preposition (not "one of the
            # ...") ends what the copula calls it
            cut = next((j for j in range(1, len(after)) if after[j] in PREPOSITIONS and after[j] != "of"), None)
            after = after[:cut] if cut is not None else after
            for j in range(1, len(after)):
                other = next((o for o in others if o and after[j : j + len(o)] == o), None)
                if other is not None:
                    end = j + len(other)
                    # "a tyrosine kinase inhibitor", "the manganese superoxide dismutase": that name
                    # modifies the noun the phrase goes on to
                    rest = after[end:]
                    k = next((m for m, w in enumerate(rest) if _names_kind(w, noun)), None)
                    if k is not None and not set(rest[:k]) & (PREPOSITIONS | COPULAS):
                        after = after[: end + k + 1]
                    else:
                        after = after[: j - 1] if noun_form(after[j - 1]) == noun else after[:j]
                    break
        if any(_names_kind(w, noun) for w in before) or (described and any(_names_kind(w, noun) for w in after)):
            return True
    return False


def _list_start(sentence_words: list[str], i: int, others: list[list[str]]) -> int:
    """Where the list whose item is the name at word ``i`` starts, going back over the ``others``
    names before it joined by "and", "or" or a comma ("HSF-1 and SKN-1" from SKN-1); ``i`` when no
    list with an "and" or "or" ends there."""
    start, joined = i, False
    while start > 0:
        j = start - 1 if sentence_words[start - 1] in LIST_JOINERS else start
        item = next((o for o in others if o and j >= len(o) and sentence_words[j - len(o) : j] == o), None)
        if item is None:
            break
        joined = joined or j < start
        start = j - len(item)
    return start if joined else i


LIST_JOINERS = frozenset({"and", "or"})


@functools.cache
def kind_suffixes() -> dict[str, tuple[str, ...]]:
    """Kind noun -> the word endings that name one of that kind (``data/kind_suffixes.tsv``)."""
    return {row[0]: tuple(row[1].split(",")) for row in _lines("kind_suffixes.tsv")}


def _names_kind(word: str, noun: str) -> bool:
    """Whether ``word`` names the kind ``noun``: the noun itself, or a word of its ending ("the
    superoxide dismutase": an enzyme)."""
    return noun_form(word) == noun or (len(word) > 4 and word.endswith(kind_suffixes().get(noun, ())))


BESIDE_WORDS = ("with", "besides", "alongside", "plus", "and", "or")  # "given with X": the list beside X answers
# between two list items: ", ", " or ", ", and " and up to two modifiers of the second
LIST_GAP = r"(?:\s*,\s*|\s+(?:or|and|and/or)\s+|\s*,\s*(?:or|and)\s+)(?:[\w\-]+\s+){0,2}"


def _listed_with(graph: ContextGraph, position: int, a: str, b: str) -> bool:
    """Whether the sentence at ``position`` writes ``a`` and ``b`` as items of one list ("after
    supplementation with Bifidobacterium breve or multi-strain Lactobacillus products"): alternatives
    side by side, which says nothing of one about the other."""
    text = graph.sentences[position].text
    return any(
        re.search(rf"(?i)\b{_written_pattern(x)}\b{LIST_GAP}{_written_pattern(y)}\b", text) is not None
        for x, y in ((a, b), (b, a))
    )


def _written_pattern(key: str) -> str:
    """A regex for entity key ``key`` as a text writes it: its words, with a space, a hyphen or
    nothing between ("daf 15" matches "daf-15")."""
    return r"[\s\-]?".join(re.escape(w) for w in words(key))


def _asked_beside(q: QuestionParts, anchor: str) -> bool:
    """Whether the question asks for what goes with ``anchor`` ("Which bacterium was given with
    X?"): an answer listed beside it is then what it asks."""
    name = re.escape(q.anchor_names[anchor])
    return re.search(rf"(?i)\b(?:{'|'.join(BESIDE_WORDS)})\s+(?:the\s+)?{name}\b", q.text) is not None


def _only_listed_with(graph: ContextGraph, chain: Chain, anchor: str) -> bool:
    """Whether every sentence of a one-hop chain that names ``anchor`` writes it and the answer as
    items of one list, relating the two by nothing else."""
    naming = [p for p in chain.positions if anchor in graph.sentences[p].entities]
    return bool(naming) and all(
        _listed_with(graph, p, anchor, chain.candidate)
        and not graph.sentences[p].relations.get(frozenset((anchor, chain.candidate)))
        for p in naming
    )


def _negates(text: str) -> bool:
    """Whether ``text`` writes a negation cue ("did not", "failed to"), "not only" and the like aside."""
    masked = NEGATION["ignore"].sub(" ", text)
    return bool(NEGATION["gap"].search(masked) or NEGATION["clause"].search(masked))


def _hop_negated(sentence: ContextSentence, a: str, b: str) -> bool:
    """Whether the sentence negates the relation of ``a`` and ``b``, or of names written inside them
    ("did not extend lifespan in UM-HET3 mice": the extractor pairs HET3 with the compound)."""
    for pair, tags in sentence.relations.items():
        if "negated" in tags and len(pair) == 2:
            x, y = pair
            if (_within(x, a) and _within(y, b)) or (_within(y, a) and _within(x, b)):
                return True
    return False


def _within(key: str, name: str) -> bool:
    """Whether entity ``key`` is ``name`` or a name written inside it ("het3" in "um het3")."""
    return key == name or _mentions(name, key)


def _anchor_positions(graph: ContextGraph, anchor: str) -> list[int]:
    found = graph.by_entity.get(anchor)
    if found:
        return found
    years = _years_of(anchor)  # "the mid-1930s": a sentence writing it or a year of it ("in 1935")
    return [
        i
        for i, s in enumerate(graph.sentences)
        if _mentions(s.key, anchor) or (years is not None and any(int(y) in years for y in YEAR.findall(s.text)))
    ]


DECADE = re.compile(r"(?:(early|mid|late) )?(\d{3})0s")  # a key: "1930s", "mid 1930s"
YEAR = re.compile(r"\b(1[5-9]\d\d|20\d\d)\b")
DECADE_PARTS = {"early": range(0, 4), "mid": range(3, 7), "late": range(6, 10), None: range(10)}


def _years_of(key: str) -> range | None:
    """The years a decade names ("mid 1930s": 1933-1936), else None."""
    m = DECADE.fullmatch(key)
    if m is None:
        return None
    part, start = DECADE_PARTS[m.group(1)], int(m.group(2)) * 10
    return range(start + part.start, start + part.stop)


def _in_sentence(sentence: ContextSentence, anchor: str) -> bool:
    return anchor in sentence.entities or _mentions(sentence.key, anchor)


def _opens_on(graph: ContextGraph, position: int | None, beside: int, key: str) -> bool:
    """Whether the sentence at ``position``, the one at ``beside`` or next to it, opens on entity
    ``key`` as its subject (its first words, after an article, write its name)."""
    if position is None or position not in (beside, graph.before(beside), graph.after(beside)):
        return False
    if key not in graph.sentences[position].entities:
        return False
    return any(
        i == 0 or (i == 1 and sentence_words[0].casefold() in ARTICLES)
        for _, sentence_words, i in _written_at(graph, key, [position])
    )


def _chains(q: QuestionParts, graph: ContextGraph) -> list[Chain]:
    present = [a for a in q.anchors if _anchor_positions(graph, a)]
    starts = {p for a in present for p in _anchor_positions(graph, a)}
    going_on = set()  # the sentences going on about an anchor's ("Senescent cells ... . They often lose ...")
    for p in starts:
        for _ in range(CONTINUED_SENTENCES):
            p = graph.after(p)
            if p is None or _continued(graph, p) is None:
                break
            going_on.add(p)
    starts = sorted(starts | going_on)
    skip = set(q.anchors)

    def others(sentence: ContextSentence, exclude: set[str], exact: set[str] = frozenset()) -> list[str]:
        """Entities of ``sentence`` other than ``exclude`` (nor names holding one of them or held in
        one) and ``exact``."""
        return [
            k
            for k in sentence.entities
            if k not in exclude
            and k not in exact
            and not any(_mentions(k, a) or _mentions(a, k) or _same_symbol(k, a) for a in exclude if a)
        ]

    apposed = {a for a in q.required if _in_apposition(q.text, a)}  # ("navitoclax (ABT-263), the ...")
    chains: list[Chain] = []
    for p in starts:
        first = graph.sentences[p]
        # the entity an anchor is written as here ("LPS" for Lipopolysaccharide) is the anchor too
        aliases = {first.written[a] for a in q.anchors if a in first.written}
        lacking = [a for a in q.required if a in present and not _in_sentence(first, a)]
        # a sentence stating what the question describes an anchor here by ("navitoclax, the
        # BCL-2/BCL-xL inhibitor": "Navitoclax (ABT-263) inhibits BCL-2 and BCL-xL"), writing the
        # anchors this one lacks and relating one of them to it by a verb, lends them
        held = [a for a in q.required if a in present and _in_sentence(first, a)]
        describing = sorted(
            {
                p2
                for a in lacking
                for p2 in _anchor_positions(graph, a)
                if p2 != p
                and all(_in_sentence(graph.sentences[p2], a) for a in lacking)
                and any(_pair_verbs(graph.sentences[p2], a, a0) for a in lacking for a0 in held)
            }
            if held and lacking and apposed.issuperset(lacking)
            else ()
        )
        for x in others(first, skip, aliases):
            chains += [Chain((p, p2), x, None) for p2 in describing if x not in graph.sentences[p2].entities]
            chains.append(Chain((p,), x, None))
            # the next or previous sentence goes on about the answer ("Dasatinib is a tyrosine kinase
            # inhibitor approved for ... . Dasatinib eliminates senescent preadipocytes"): one
            # answer described by both
            chains += [
                Chain((p, p2), x, None) for p2 in (graph.before(p), graph.after(p)) if _opens_on(graph, p2, p, x)
            ]
            # the question asks two things of its answer and another sentence states the one this
            # leaves out ("Which drug that activates AMPK increases A. muciniphila?": "Metformin
            # increases ... A. muciniphila", "metformin activates AMPK")
            chains += [
                Chain((p, p2), x, None)
                for p2 in (graph.by_entity.get(x, ()) if lacking else ())
                if p2 != p and any(_verb_relates(q, graph.sentences[p2], a, x) for a in lacking)
            ]
            for p2 in graph.by_entity.get(x, ()):
                if p2 == p:
                    continue
                for y in others(graph.sentences[p2], skip | {x}):
                    chains.append(Chain((p, p2), y, x))
    # the anchors written as names must be connected; a common noun ("in people with obesity")
    # narrows the question and counts a little
    weights = {
        a: (1.0 if a in q.required else 0.2)
        * math.log(1 + len(graph.sentences) / max(1, len(_anchor_positions(graph, a))))
        for a in present
    }
    total_anchor = sum(weights.values()) or 1.0
    # the verb right after the wh-phrase ("Which kinase complex *initiates* ...", the phrase's last
    # noun between), when the lexicon does not know it: a sentence holds it only where no inhibiting
    # verb acts on it
    after_wh = itertools.takewhile(lambda w: w not in AUXILIARIES, words(q.text[q.wh_end :])[:2])
    verb = next((w for w in after_wh if w.endswith("s") and len(w) > 3), None)
    main_verb = frozenset({stem(verb)}) & q.stems if verb else frozenset()
    total_words = sum(graph.idf(s) for s in q.stems) or 1.0
    asks_negated = _negates(q.text)
    for chain in chains:
        sentences = [graph.sentences[p] for p in chain.positions]
        # a first sentence that opens on a common noun ("A later analysis found ...", "The
        # investigators, led by X, ...") goes on about the sentence before it: its names count
        before = _continued_from(graph, chain.positions[0])
        hit = frozenset(
            a for a in present if any(_in_sentence(s, a) for s in [*sentences, *(graph.sentences[b] for b in before)])
        )
        # "the short-chain fatty acid that F. prausnitzii makes" through butyrate, one of them
        hit |= {a for a in q.described_classes if chain.bridge is not None and _member_of(graph, chain.bridge, a)}
        stems = set().union(*(s.stems | s.referred for s in sentences)) - _held_against(sentences, main_verb)
        # a sentence before that lends the chain an anchor ("In this trial from Tabriz, adults took OEA.
        # The supplement raised Akkermansia ...") lends its words to the share held (``lent``: not to a
        # stated phrase nor to the share a sentence answering with no verb needs)
        own = {a for a in hit if any(_in_sentence(s, a) for s in sentences)}
        lent = (
            set().union(
                *(
                    graph.sentences[b].stems
                    for b in before
                    if any(_in_sentence(graph.sentences[b], a) for a in hit - own)
                )
            )
            - stems
        )
        stems |= lent
        # what the text says the bridge and the candidate are counts too ("OEA is a lipid mediator")
        for entity, nouns in ((chain.bridge, q.bridge_nouns), (chain.candidate, [q.wh_noun] if q.wh_noun else [])):
            for noun in nouns if entity else ():
                described = _described_as(graph, entity, noun)
                if described is not None:
                    stems |= graph.sentences[described].stems
        chain.anchors_hit = hit
        # the relations each hop states between its two ends (the whole sentence's when the
        # extractor did not pair them)
        # the hop starts at the anchor the sentence relates to the next end (in the question's
        # order of specificity, so the same chain always reads the same way)
        next_end = chain.bridge if chain.bridge is not None else chain.candidate
        in_first = [sentences[0].written.get(a, a) for a in present if a in hit and _in_sentence(sentences[0], a)]
        start = next(
            (a for a in in_first if sentences[0].relations.get(frozenset((a, next_end)))),
            in_first[0] if in_first else None,
        )
        ends = [start, chain.bridge, chain.candidate]
        ends = [e for e in ends if e is not None]
        stated = set()
        other_verb = []  # the sentences whose hop is paired by a verb the question does not ask
        for i, sentence in enumerate(sentences):
            pair = frozenset(ends[i : i + 2]) if i + 1 < len(ends) else frozenset()
            tags = tuple(sentence.relations.get(pair, ()))
            if i == 0 and len(ends) > 1:  # every anchor of the first sentence relates to the next end
                # ("X secretes RAF, which inhibits NF-kB": RAF is what X secretes and what inhibits NF-kB)
                tags += tuple(
                    t for a in in_first if a != start for t in sentence.relations.get(frozenset((a, ends[1])), ())
                )
            pair_classes = {_relation_of(t) for t in tags}
            stated |= pair_classes
            # (not a verb of a paraphrase of the asked one: "the CDKN2A locus produces p16INK4a" for "encoded at")
            in_other_words = {full_stem(w) for t in tags for w in t.split()} & {
                w for r in q.relations for member in q.relation_paraphrases.get(r, ()) for w in member
            }
            other_verb.append(
                bool(set(tags) & verb_tags()) and not pair_classes & set(q.relations) and not in_other_words
            )
            if graph.types.get(chain.candidate) == QUANTITY:  # no end the extractor pairs: the verbs
                # of the sentence writing it say what it is of ("reported in 1935 that ...")
                stated |= _verb_classes(sentence.text)
            if not set(tags) & verb_tags():  # the pair was read without a verb: the sentence's verbs count
                stated |= sentence.relation_classes
                if i == 0 and (start is None or start not in sentence.entities):  # it names the anchors
                    # only through the sentences it goes on about ("CaMKK2 can also phosphorylate this
                    # site"), or writes one the extractor read as no entity ("phosphorylates threonine
                    # 172"): its one end has no pair
                    stated |= _verb_classes(sentence.text)
            elif pair_classes & set(q.relations):  # one asked verb links the pair: the sentence's other
                # verbs say the rest ("JNK phosphorylates FOXO proteins ... and promotes their nuclear
                # entry" for "which kinase phosphorylates FOXO proteins and drives them into the nucleus")
                stated |= _verb_classes(sentence.text)
        # an anchor the sentences pair with the answer only by verbs the question does not ask: the
        # sentences' other verbs ("X reduces Y, which raises Z") say nothing of the two
        by_anchor = {a: set().union(*(_pair_verbs(sen, a, chain.candidate) for sen in sentences)) for a in hit}
        paired_otherwise = chain.bridge is None and any(
            v and q.anchor_relations.get(a) and not v & q.anchor_relations[a] for a, v in by_anchor.items()
        )
        if paired_otherwise:
            stated = set().union(*by_anchor.values())
        if q.relation_paraphrases and not paired_otherwise:  # the question's verb in other words
            # ("clears": destroys), in a sentence whose hop no other verb pairs
            texts = [_full_stems(sen.text) for sen, other in zip(sentences, other_verb) if not other and not sen.asks]
            stated |= {
                r
                for r in q.relations
                if r not in stated and any(_writes(t, m) for m in q.relation_paraphrases.get(r, ()) for t in texts)
            }
        if chain.bridge is not None and "gene" in _gloss_words(
            graph, chain.candidate, chain.bridge, chain.positions[-1]
        ):
            stated.add(ENCODES)  # "daf-15 (the worm Raptor gene)": daf-15 encodes Raptor's counterpart
        if (
            ENCODES in q.relations
            and chain.bridge is not None
            and GENE_NOUN in q.bridge_nouns
            and q.wh_noun not in GENE_NOUNS
            and _is_kind(graph, chain.bridge, GENE_NOUN, frozenset())
        ):
            # "The gene that ... encodes a protein whose ...", through "the klotho gene" and the
            # Klotho protein: a gene encodes the protein of its name, and the answer is neither
            stated.add(ENCODES)
        for r, subject in q.relation_subjects.items():
            if r in stated and not any(
                source == subject and r in {_relation_of(t) for t in tags}
                for sen in sentences
                for (source, _target), tags in sen.directed.items()
            ):
                stated.discard(r)  # "AMPK phosphorylates Raptor" does not say what mTORC1 phosphorylates
        chain.relations_hit = frozenset(r for r in q.relations if r in stated)
        for cls, meant in q.meant.items():  # the question's own words for a relation the chain states
            if cls in stated:
                stems |= meant
        # the words of a sentence the first one refers back to hold the question's words in theirs too
        said = (*before, *chain.positions) if sentences[0].referred else chain.positions
        stems |= _held_by_paraphrase(q, graph, said)
        # a noun after a name ("women" of "in older Swedish women") states nothing while a longer phrase of
        # the question ("lowered fracture rates") is wholly unsaid
        unsaid = any(len(p) > 1 and not p & stems for p in q.phrase_stems)
        chain.phrase_stated = any(
            p <= stems and not p & lent and not (unsaid and p in q.name_nouns) for p in q.phrase_stems
        )
        # the words the question describes an anchor with, said of it anywhere in the text or its node
        # description ("the lipid mediator OEA": "Oleoylethanolamide (OEA) is an endogenous lipid mediator")
        for anchor in hit:
            stems |= q.anchor_written.get(anchor, frozenset())
            if anchor in q.anchor_described:
                stems |= q.anchor_described[anchor] & _said_of(graph, anchor)
        chain.word_share = sum(graph.idf(s) for s in q.stems if s in stems) / total_words if q.stems else 1.0
        chain.word_count_share = sum(s in stems for s in q.stems) / len(q.stems) if q.stems else 1.0
        # what the chain's own sentences hold: a sentence saying what the question asks by its words
        # alone must hold them itself, not borrow them from the sentence it goes on from
        chain.own_word_count_share = (
            sum(s in stems and s not in lent for s in q.stems) / len(q.stems) if q.stems else 1.0
        )
        chain.unheld = q.stems - stems
        describing = sum(s in stems for s in q.wh_describing) / len(q.wh_describing) if q.wh_describing else 0.0
        # the answer is of the kind the wh-phrase names and carries its names; a wh-phrase with neither
        # says nothing to check
        if q.quantity is not None:  # a quantity of the asked kind (``_with_quantities``) is of the kind
            chain.kind_ok = graph.types.get(chain.candidate) == QUANTITY
        else:
            chain.kind_ok = (
                bool(q.wh_noun or q.wh_names)
                and (
                    not q.wh_noun
                    or _is_kind(graph, chain.candidate, q.wh_noun, q.wh_types)
                    or _initialled(chain.candidate, q.wh_initials)
                )
                and not _collective(chain.candidate, q.wh_noun)
                and not _other_place(chain.candidate, q.wh_noun)
                and not _names_the_kind(q, chain.candidate)
                and _named_as(graph, chain.candidate, q.wh_names)
                and not _called_another_subkind(q, graph, chain.candidate)
            )
        # the text itself calls the answer the kind asked ("a protein called MAM"), not only its type
        chain.kind_said = (
            chain.kind_ok and q.wh_noun is not None and _is_kind(graph, chain.candidate, q.wh_noun, frozenset())
        )
        if (
            chain.kind_ok
            and chain.bridge is not None
            and q.wh_describing
            and not describing
            and _subkind(q)
            and not chain.kind_said
        ):
            # "Which upstream kinase activates the sensor that X switches on?": a last hop only names
            # the answer beside the bridge, so a protein of no kind the text says, in sentences
            # holding none of the words describing the answer, is no answer (p53 is no kinase)
            chain.kind_ok = _initialled(chain.candidate, q.wh_initials)
        chain.clause_stated = _clause_stated(q, graph, chain)
        bridge_ok = (
            chain.bridge is not None
            and not _names_the_kind(q, chain.bridge)
            and (chain.clause_stated or _bridge_described(q, graph, chain.bridge))
        )
        # "... inhibits NF-kB signalling in intestinal cells": a place the sentence sets its statement
        # in answers "where", not "what"
        off_setting = q.asks_setting != _only_as_setting(graph, chain.candidate, chain.positions[-1])
        # each hop links its two ends in its sentence, not negated
        # (from any anchor the first sentence names: "the PLACIDE trial found that Lactobacillus
        # strains did not prevent C. difficile diarrhoea" denies Lactobacillus -> C. difficile)
        # (a question that negates too, "the compound that failed to extend lifespan", asks for it)
        chain.negated = not asks_negated and (
            any(_hop_negated(sentences[0], a, ends[1]) for a in in_first if len(ends) > 1)
            or any(_hop_negated(s, ends[i], ends[i + 1]) for i, s in enumerate(sentences) if i + 1 < len(ends))
        )
        chain.reversed = _reversed(q, sentences[-1], ends[-2], ends[-1]) if len(ends) > 1 else False
        last_tags = sentences[-1].relations.get(frozenset(ends[-2:]), ()) if len(ends) > 1 else ()
        chain.last_related = any(t != "co-occurrence" for t in last_tags)
        # the question's verb is the one the answer is written after, not only somewhere in its
        # sentence: "X promotes phosphate excretion and suppresses vitamin D" for "What does X promote?"
        verbs_before = [
            _asked_verb(q, found)
            for _, sentence_words, i in _written_at(graph, chain.candidate, chain.positions[-1:])
            if (found := _verb_before(sentence_words, i, q.stems)) is not None
        ]
        last_states_asked = max(verbs_before, default=0)  # the question's own verb outranks a paraphrase
        # a question whose verb the lexicon does not know ("turn on") is held to it only where the
        # sentence writes one of its words ("repress": "... binds FGFR4 ..., and this represses CYP7A1")
        held_to_verb = bool(q.relations) or bool(q.stems & sentences[-1].stems)
        chain.other_verb_before = held_to_verb and bool(verbs_before) and not last_states_asked
        related = sum(
            1
            for i, s in enumerate(sentences)
            if i + 1 < len(ends)
            and (
                any(
                    t != "co-occurrence" for t in s.relations.get(frozenset((ends[i], ends[i + 1])), ("co-occurrence",))
                )
                or (i == 0 and _stated_alias(s, ends[0], ends[1]))  # "X, often called Y": Y is X
            )
        )
        chain.unrelated_hops = (len(ends) - 1) - related
        chain.score = (
            3.0 * sum(weights[a] for a in hit) / total_anchor
            + 2.0 * (len(chain.relations_hit) / len(q.relations) if q.relations else 1.0)
            + 2.0 * chain.word_share
            + 1.0 * describing
            + (1.5 if chain.kind_ok else 0.0)
            + (KIND_SAID_WEIGHT if chain.kind_said else 0.0)
            + (0.5 if bridge_ok else 0.0)
            + 0.3 * related
            + 0.15 * last_states_asked
            - (0.6 if chain.bridge is not None else 0.0)
            - (2.0 if chain.bridge is not None and not bridge_ok else 0.0)
            - (2.0 if chain.negated else 0.0)
            - (2.0 if chain.reversed else 0.0)
            - (SETTING_PENALTY if off_setting else 0.0)
        )
    chains.sort(key=lambda c: (-c.score, c.positions, c.candidate))
    return chains


OPPOSING_CLASSES = frozenset({"inhibits", "decreases"})


def _held_against(sentences: list[ContextSentence], wanted: frozenset[str]) -> set[str]:
    """The ``wanted`` stems the sentences write only as what a verb of inhibiting or lowering acts on
    ("mTORC1 ... suppresses the initiation of autophagy" holds no "initiates")."""
    if not wanted:
        return set()
    against, held = set(), set()
    for sentence in sentences:
        sentence_words = words(sentence.text)
        for i, word in enumerate(sentence_words):
            st = stem(word)
            if st not in wanted:
                continue
            before = [w for w in sentence_words[max(0, i - 2) : i] if w not in ARTICLES]
            tag = _verb_tag(before[-1]) if before else None
            (against if tag is not None and _relation_of(tag) in OPPOSING_CLASSES else held).add(st)
    return against - held


def _verb_relates(q: QuestionParts, sentence: ContextSentence, anchor: str, key: str) -> bool:
    """Whether the sentence relates the anchor and entity ``key`` by a verb of the question (any
    verb when the question has none the lexicon knows)."""
    paired = _pair_verbs(sentence, anchor, key)
    return bool(paired & set(q.relations)) if q.relations else bool(paired)


def _pair_verbs(sentence: ContextSentence, anchor: str, key: str) -> set[str]:
    """The relation classes of the verbs the sentence pairs entity ``key`` with the anchor by (as
    it writes it: "Bacteroides fragilis" for Bacteroides)."""
    written = {sentence.written.get(anchor, anchor)} | {e for e in sentence.entities if _mentions(e, anchor)}
    return {
        _relation_of(t) for w in written for t in sentence.relations.get(frozenset((w, key)), ()) if t in verb_tags()
    }


def _names_the_kind(q: QuestionParts, key: str) -> bool:
    """Whether entity ``key`` names only the kind the wh-phrase asks for ("bile acids" for "Which
    secondary bile acid", "bacteria" for "Which bacterium"): the class, neither one of its members
    nor a thing between the question's names and the answer (through it, anything of the kind links)."""
    if q.wh_noun is None:
        return False
    phrase = words(q.text[q.wh_first : q.wh_end])
    asked = {noun_form(w) for w in phrase}
    said = {stem(w) for w in phrase if _content_word(w)}  # "Inflammation" for "which inflammatory bowel disease"
    kinds = type_nouns()
    same_kind = kinds.get(q.wh_noun)  # "bacteria" names the kind "bacterium" does: the same types

    def asked_word(word: str) -> bool:
        return (
            noun_form(word) in asked
            or stem(word) in said
            or bool(same_kind)
            and kinds.get(noun_form(word)) == same_kind
        )

    return q.wh_noun in asked and all(asked_word(w) for w in words(key))


def _continued(graph: ContextGraph, position: int) -> ContextSentence | None:
    """The sentence before the one at ``position`` in its passage, when that one goes on about it
    (``ContextSentence.continues``)."""
    before = graph.before(position)
    return graph.sentences[before] if graph.sentences[position].continues and before is not None else None


CONTINUED_SENTENCES = 3  # sentences at most a run of sentences going on about one another spans


def _anchored_groups(q: QuestionParts, graph: ContextGraph, positions: tuple[int, ...]) -> tuple[int, ...]:
    """The sentences at ``positions``, each with the ones it goes on about (``_continued_from``), of
    each such group that writes one of the question's anchors."""
    groups = [(p, *_continued_from(graph, p)) for p in positions]
    return tuple(
        b
        for group in groups
        if any(_in_sentence(graph.sentences[b], a) for b in group for a in q.anchors)
        for b in group
    )


def _continued_from(graph: ContextGraph, position: int) -> list[int]:
    """The positions of the sentences the one at ``position`` goes on about, nearest first: the one
    before it when it continues it, and so on ("Senescent cells share features. They show ... . They
    often lose ...")."""
    found = []
    while (
        len(found) < CONTINUED_SENTENCES
        and graph.sentences[position].continues
        and (position := graph.before(position)) is not None
    ):
        found.append(position)
    return found


SETTING_PENALTY = 1.5  # about the weight of the asked kind: the thing a sentence is about outranks its setting


def _only_as_setting(graph: ContextGraph, key: str, position: int) -> bool:
    """Whether the sentence at ``position`` writes entity ``key`` only as the setting of what it says:
    right after a setting preposition, an article between or not ("signalling in intestinal cells")."""
    places = [(sentence_words, i) for _p, sentence_words, i in _written_at(graph, key, (position,))]
    return bool(places) and all(_after_setting_preposition(sentence_words, i) for sentence_words, i in places)


def _describes_another(q: QuestionParts, graph: ContextGraph, chain: Chain) -> bool:
    """Whether the answering sentence writes the wh-phrase's describing words and kind ("the nuclear
    lamina protein lamin B1" for "Name the nuclear lamina protein ...") of a thing other than the
    answer: the one it describes so is the answer, named or not."""
    if not q.wh_describing or q.wh_noun is None:
        return False
    position = chain.positions[-1]
    sentence = graph.sentences[position]
    sentence_words = words(sentence.text)
    forms = {chain.candidate} | {surface for surface, key in sentence.written.items() if key == chain.candidate}
    forms |= {
        o for o in sentence.entities if o != chain.candidate and _same_thing(graph, o, chain.candidate, (position,))
    }
    others = [words(k) for k in sentence.entities if k not in forms]
    spans = [  # from where a list it ends starts: "the worm transcription factors HSF-1 and SKN-1"
        (_list_start(sentence_words, i, others), i + len(form_words))
        for form_words in (words(f) for f in forms)
        for i in range(len(sentence_words) - len(form_words) + 1)
        if form_words and sentence_words[i : i + len(form_words)] == form_words
    ]
    k = len(q.wh_describing)
    described = [  # where the sentence writes the phrase
        j
        for j, word in enumerate(sentence_words)
        if j >= k and noun_form(word) == q.wh_noun and {stem(w) for w in sentence_words[j - k : j]} == q.wh_describing
    ]
    # the answer's name right after the phrase ("... protein lamin B1"), right before it ("X, the ...
    # protein") or around it ("fibroblast growth factor 21")
    return bool(described) and not any(
        start == j + 1 or j - k - 1 <= end <= j - k or start <= j < end for j in described for start, end in spans
    )


def _set_elsewhere(q: QuestionParts, graph: ContextGraph, chain: Chain) -> bool:
    """Whether the last sentence writes the answer other than as a setting and another thing as one,
    for a question asking for a setting ("In which state was the bacterium found?": "isolated the
    bacterium from a farm in Virginia and named the compound after New York State" is set in
    Virginia); not the answer's own other name beside it ("on Rapa Nui (Easter Island)")."""
    position = chain.positions[-1]
    if _only_as_setting(graph, chain.candidate, position):
        return False
    sentence = graph.sentences[position]
    written = " ".join(words(sentence.text))  # "rapa nui easter island": the two names side by side
    return any(
        _only_as_setting(graph, other, position)
        for other in sentence.entities
        if other != chain.candidate
        and other not in q.anchors
        and not _mentions(written, f"{other} {chain.candidate}")
        and not _mentions(written, f"{chain.candidate} {other}")
    )


def _after_setting_preposition(sentence_words: list[str], i: int) -> bool:
    before = sentence_words[max(0, i - 2) : i]
    if before[-1:] and before[-1] in ARTICLES:
        before = before[:-1]
    return bool(before) and before[-1] in SETTING_PREPOSITIONS


def _reversed(q: QuestionParts, sentence: ContextSentence, before: str, answer: str) -> bool:
    """Whether the sentence relates the answer to the entity before it only in the direction the
    question does not ask ("AMPK phosphorylates TSC2" does not answer "Which kinase activates
    AMPK?"): both directions, or none read with a verb, leave it open."""
    if q.answer_role is None:
        return False
    forward = (answer, before) if q.answer_role == "source" else (before, answer)
    if _object_of_a_later_verb(q, before):
        # "What does X secrete to inhibit NF-kB?": NF-kB is what the answer inhibits, whatever "secrete" asks
        forward = (answer, before)
    backward = (forward[1], forward[0])
    return backward in sentence.directed and forward not in sentence.directed


def _latin(key: str) -> str:
    """``key`` with each Greek letter written as its name's initial, as texts often do ("NF-kB")."""
    letters = greek_letters()
    return "".join(letters[c][0] if c in letters else c for c in key)


def _object_of_a_later_verb(q: QuestionParts, anchor: str) -> bool:
    """Whether the question writes ``anchor`` right after a relation verb of its own after the
    wh-phrase (an article between or not): that verb's object, which the answer acts on."""
    wanted = _latin(anchor)
    for start, end, _base in q.relation_verbs:
        if start <= q.wh_end:
            continue
        after = words(q.text[end:])[:5]
        if after[:1] and after[0].casefold() in ARTICLES:
            after = after[1:]
        if any(_latin(node_key(" ".join(after[:n]))) == wanted for n in range(1, 5)):
            return True
    return False


CLAUSE_GAP_WORDS = 4  # words at most between an anchor and the bridge a clause relates
CLAUSE_LEAD_WORDS = 2  # words before the bridge, written first, that the clause may start with (its verb)


def _clause_stated(q: QuestionParts, graph: ContextGraph, chain: Chain) -> bool:
    """Whether the chain's first sentence states the clause the question describes its bridge by: a
    relation verb from the anchor the question writes as its subject to the bridge (when it names the
    bridge by no type noun), or a type noun and a relation phrase ("the polyamine that cells make
    from putrescine": "Cells synthesise spermidine from putrescine"), in the question's words or a
    paraphrase, where it writes an anchor and the bridge close together: what the bridge does is
    said of it, though no sentence names its kind."""
    if chain.bridge is None:
        return False
    if not q.bridge_nouns:  # "the tumour suppressor that SIRT1 deacetylates": "SIRT1 deacetylates TP53"
        opening = graph.sentences[chain.positions[0]].directed  # (a kind it names is checked instead)
        if any(
            r in map(_relation_of, opening.get((s, chain.bridge), ())) for r, s in q.relation_subjects.items()
        ) or any(  # "the tumour suppressor that ... induces p21": "p53 induces ... p21"
            set(map(_relation_of, opening.get((chain.bridge, a), ()))) & classes
            for a, classes in q.clause_relations.items()
        ):
            return True
        if not q.described:  # a relative clause describes it ("the intermediate that X generates from Y")
            return False
    if not q.phrase_stems:
        return False
    first = chain.positions[:1]
    bridge_places = [(i, i + len(words(chain.bridge))) for _p, _w, i in _written_at(graph, chain.bridge, first)]
    for anchor in q.anchors:
        anchor_length = len(words(anchor))
        for _p, sentence_words, i in _written_at(graph, anchor, first):
            for b_start, b_end in bridge_places:
                if i < b_start:  # the anchor first: the clause lies between ("grapevines produce resveratrol")
                    gap, span = b_start - (i + anchor_length), sentence_words[i:b_start]
                else:  # the bridge first: its verb may stand before it ("make spermidine from putrescine")
                    gap, span = i - b_end, sentence_words[max(0, b_start - CLAUSE_LEAD_WORDS) : i]
                if gap > CLAUSE_GAP_WORDS:
                    continue
                said = {stem(w) for w in span} | _held_in(q, [[full_stem(w) for w in span]])
                if any(phrase <= said for phrase in q.phrase_stems):
                    return True
    return False


def _phrase_between(q: QuestionParts, graph: ContextGraph, chain: Chain) -> bool:
    """Whether the chain's last sentence writes one of the question's own relation phrases (or a
    paraphrase) between the bridge and the answer, a verb the lexicon does not know ("To which
    phylum does X belong?": "Akkermansia muciniphila belongs to the phylum Verrucomicrobiota")."""
    if chain.bridge is None or not q.phrase_stems:
        return False
    last = chain.positions[-1:]
    bridge_at = [(i, i + len(words(chain.bridge))) for _p, _w, i in _written_at(graph, chain.bridge, last)]
    for _p, sentence_words, i in _written_at(graph, chain.candidate, last):
        end = i + len(words(chain.candidate))
        for b_start, b_end in bridge_at:
            between = sentence_words[b_end:i] if b_end <= i else sentence_words[end:b_start]
            said = {stem(w) for w in between} | _held_in(q, [[full_stem(w) for w in between]])
            if any(phrase <= said for phrase in q.phrase_stems):
                return True
    return False


def _bridge_described(q: QuestionParts, graph: ContextGraph, bridge: str, by_type: bool = True) -> bool:
    """Whether the text says the bridge is what the question describes between its names and the
    answer: of a type noun it writes ("the drug tested in ..."; with ``by_type``, its entity type
    may say so), or a sentence naming the bridge (or its node description) holds every word of a
    phrase the question describes by a relative clause ("the energy gauge that X switches on": "the
    cellular energy gauge SNF1")."""
    positions = tuple(graph.by_entity.get(bridge, ()))
    forms = [bridge, *_other_forms(graph, bridge, positions)]
    if any(
        _is_kind(graph, f, noun, type_nouns()[noun] if by_type else frozenset())
        for noun in q.bridge_nouns
        for f in forms
    ):
        return True  # of the kind, as the bridge or as the text spells it out ("fibroblast growth factor 19")
    if _named_without_number(q, graph, bridge):
        return True
    if any(_member_of(graph, bridge, a) for a in q.described_classes):
        return True  # "the short-chain fatty acid that X makes": butyrate, one of them
    if bridge in _aliases_of_anchors(q, graph).values():
        return True  # the text says it is a thing the question names, under another name
    said = [graph.sentences[p].stems for p in positions]
    description = graph.descriptions.get(bridge)
    if description:
        said.append(frozenset(stem(w) for w in words(description)))
    return any(phrase <= stems for phrase in q.described for stems in said)


def _named_without_number(q: QuestionParts, graph: ContextGraph, bridge: str) -> bool:
    """Whether the question writes a name of the bridge without its closing number or letter, the
    words of a family ("the mTOR complex that ..." for "mTOR complex 1 (mTORC1)"): the clause after
    it says which member."""
    question = node_key(q.text)
    for surface in _surfaces(graph, bridge) | {bridge}:
        name = words(surface)
        while len(name) > 2 and (any(c.isdigit() for c in name[-1]) or len(name[-1]) == 1):
            name.pop()
        if len(name) >= 2 and name != words(surface) and _mentions(question, " ".join(name)):
            return True
    return False


def _nouns_outside_names(graph: ContextGraph, positions: tuple[int, ...]) -> set[str]:
    """The noun forms the sentences at ``positions`` write outside their names ("fibroblast growth
    factor 19" is one, so "factor" there is no thing of its own)."""
    found = set()
    for p in positions:
        sentence = graph.sentences[p]
        names = [*sentence.entities, *sentence.written, *(long for long, _short in _abbreviations(sentence.text))]
        found |= {noun_form(w) for w in words(sentence.text)} - {noun_form(w) for n in names for w in words(n)}
    return found


def _bare_nouns(graph: ContextGraph, position: int) -> set[str]:
    """The noun forms the sentence at ``position`` writes outside its names and not right before one
    ("in resected tissue", not the "receptor" of "the bile acid receptor TGR5", which names TGR5)."""
    sentence_words = words(graph.sentences[position].text)
    starts = {i for key in graph.sentences[position].entities for _p, _w, i in _written_at(graph, key, [position])}
    before_names = {noun_form(sentence_words[i - 1]) for i in starts if i > 0}
    return _nouns_outside_names(graph, (position,)) - before_names


QUANTITY = "quantity"  # the type of a quantity put into the graph for a question asking one


def _same_noun(a: str, b: str) -> bool:
    """Whether two words are one noun, a plural aside ("genus" is not "genera": both are written)."""
    return noun_form(a) == noun_form(b)


def _with_quantities(graph: ContextGraph, asked: quantities.Asked) -> ContextGraph:
    """``graph`` with the quantities of the asked kind its sentences write as entities of their own
    ("25 genera", "in 1935"): what a question asking for a quantity may be answered with."""
    for position, sentence in enumerate(graph.sentences):
        for found in quantities.find(sentence.text, asked, _same_noun):
            sentence.entities[found.key] = found.name
            graph.names.setdefault(found.key, found.name)
            graph.types[found.key] = QUANTITY
            if position not in graph.by_entity.setdefault(found.key, []):
                graph.by_entity[found.key].append(position)
    return graph


def _unconnected(q: QuestionParts, graph: ContextGraph, chain: Chain | None, none_found: str) -> str:
    """Why ``chain`` does not connect what the question names ('' when it does): a name no gathered
    text writes, no chain (``none_found``), a required name it leaves out, a negated or excluded
    statement, a qualifier of the question it does not say."""
    missing = [q.anchor_names[a] for a in q.anchors if not _anchor_positions(graph, a)]
    if not q.anchors:
        return "the question names nothing the graph could start from"
    if missing:
        return f"no gathered text mentions {', '.join(missing)}"
    if chain is None:
        return none_found
    left = [q.anchor_names[a] for a in q.required if a not in chain.anchors_hit]
    if left:
        return f"no sentence connects {', '.join(left)} with the rest of the question"
    if chain.negated:
        return "the text states the relation as negated"
    denied = _denied_words(q, graph, chain)
    if denied:
        return f"the connecting sentence excludes what the question says ('not {denied}')"
    unmet = _qualifier_unmet(q, graph, chain)
    if unmet:
        return f"no connecting sentence says it of {unmet}, as the question asks"
    return ""


def _quantity_verdict(q: QuestionParts, graph: ContextGraph, chain: Chain | None) -> str:
    """Why ``chain``, ending on a quantity, does not answer a question asking one ('' when it does):
    the sentences connect what the question names, hold its words and its verbs, and write a
    quantity of the asked kind. No relation of the quantity is read (the extractor pairs names only),
    so the checks of a relation's ends, its direction and the answer's role do not apply."""
    if not q.quantity.kind:  # "How often ...?": no quantity a sentence writes says it
        return "the question asks for a quantity the offline reasoner cannot read from a sentence"
    unconnected = _unconnected(
        q, graph, chain, f"no connecting sentence writes a {q.quantity.kind} of what the question asks"
    )
    if unconnected:
        return unconnected
    unstated = [r for r in q.relations if r not in chain.relations_hit]
    if unstated:
        return f"no connecting sentence states the relation '{', '.join(unstated)}'"
    if (
        chain.bridge is not None
        and not chain.clause_stated
        and not _bridge_described(q, graph, chain.bridge)
        # the next sentence going on about the same thing ("... the CALERIE 2 trial randomized adults
        # to two years of CR. Participants achieved an average CR of about 12 percent")
        and graph.after(chain.positions[0]) != chain.positions[-1]
    ):
        return "the question describes no intermediate entity the second sentence could follow"
    if chain.word_count_share < MIN_WORD_SHARE and _meaning_share(q, graph, chain) < MIN_WORD_SHARE:
        return "the connecting sentences leave much of the question unanswered"
    return ""


QUANTITY_WINDOW_WORDS = 4  # words before a quantity (and after it) that say what it is of


def _quantity_described(q: QuestionParts, graph: ContextGraph, chain: Chain) -> bool:
    """Whether the last sentence of ``chain`` writes one of the question's content words right
    beside the quantity it answers with."""
    text = graph.sentences[chain.positions[-1]].text
    asked = {stem(w) for w in words(q.text) if _content_word(w)}
    for found in quantities.find(text, q.quantity, _same_noun):
        if found.key == chain.candidate:
            before = words(text[: found.start])[-QUANTITY_WINDOW_WORDS:]
            after = words(text[found.end :])[:QUANTITY_WINDOW_WORDS]
            if {stem(w) for w in [*before, *after] if _content_word(w)} & asked:
                return True
    return False


def _verdict(q: QuestionParts, graph: ContextGraph, chain: Chain | None) -> str:
    """Why ``chain`` does not answer the question ('' when it does)."""
    if q.quantity is not None:
        return _quantity_verdict(q, graph, chain)
    unconnected = _unconnected(q, graph, chain, "no sentence links what the question names to anything else")
    if unconnected:
        return unconnected
    unranked = _unranked(q, graph, chain)
    if unranked:
        return unranked
    elsewhere = _set_otherwise(q, graph, chain)
    if elsewhere:
        return f"the connecting sentence is set in {elsewhere}, not where the question is"
    if chain.bridge is not None and _same_thing(graph, chain.bridge, chain.candidate, chain.positions):
        return "the answer is the bridge written another way"  # "fibroblast growth factor 19 (FGF19)"
    if chain.bridge is None and any(_only_listed_with(graph, chain, a) and not _asked_beside(q, a) for a in q.required):
        return "the sentence lists the answer beside what the question names, as an alternative to it"
    if chain.reversed:
        return "the text states the relation the other way round"
    if (
        chain.bridge is not None
        and not chain.last_related
        and (q.answer_role is not None or not (chain.clause_stated or _bridge_described(q, graph, chain.bridge, False)))
        and not _phrase_between(q, graph, chain)
        and not _glossed(graph, chain.candidate, chain.bridge, chain.positions[-1])  # "daf-15 (the worm Raptor gene)"
        and not _joined_as_asked(q, graph, chain)
    ):
        # "Which kinase activates the sensor X switches on?": the hop to the answer is the question's
        # own verb; a sentence that only names the answer beside the bridge (a list) does not state it.
        # Without such a verb, a bridge only of the type the question's noun names (autophagy a
        # "pathway" as a biological process) leaves the listed answer unrelated as well
        return "the second sentence names the answer beside the bridge but relates them by no verb"
    if (
        chain.unrelated_hops
        and chain.unrelated_hops == (1 if chain.bridge is None else 2)
        and not q.relations
        and not (chain.phrase_stated and (chain.bridge is None or _phrase_between(q, graph, chain)))
        and not (chain.bridge is None and chain.own_word_count_share >= _share_needed(graph, chain))
        # "In which country was the ELDERMET cohort run?": "The ELDERMET study of older adults in
        # Ireland" sets what it says of the anchor there, which is the relation asked
        and not (
            q.asks_setting and chain.bridge is None and _only_as_setting(graph, chain.candidate, chain.positions[-1])
        )
    ):
        # the question's verb is none the lexicon knows ("repress"), so no relation was checked:
        # a sentence that only names both ends together (a list) does not answer it
        return "no connecting sentence relates what the question names to the answer"
    unstated = [r for r in q.relations if r not in chain.relations_hit]
    if unstated:
        return f"no connecting sentence states the relation '{', '.join(unstated)}'"
    if chain.bridge is not None and _answered_before_the_bridge(q, graph, chain):
        return "the first sentence relates the bridge to another answer by the question's verb"
    if (q.wh_noun or q.wh_names) and not chain.kind_ok:
        written = next((w for w in words(q.text) if noun_form(w) == q.wh_noun), q.wh_noun or "")
        kind = " ".join([*q.wh_names, written]).strip()
        return f"no connected entity is of the kind the question asks for ({kind})"
    if _describes_another(q, graph, chain):
        return "the connecting sentence gives the description the question asks by to another thing"
    if q.asks_setting and _set_elsewhere(q, graph, chain):
        return "the connecting sentence sets what it says in another place than the answer"
    asked = organisms_in(q.text[q.wh_first : q.wh_end])
    if asked and not asked <= organisms_in(" ".join(graph.sentences[p].text for p in chain.positions)):
        # "What is the worm gene for ...?": a sentence about the human protein answers another question
        return f"no connecting sentence is about the organism the question asks for ({', '.join(sorted(asked))})"
    if chain.bridge is not None and _names_the_kind(q, chain.bridge):
        return "the connecting sentences go through the kind asked for, not a thing the question describes"
    if chain.bridge is not None and not chain.clause_stated and not _bridge_described(q, graph, chain.bridge):
        # a second hop is an answer only to a question that describes the thing between ("the
        # drug tested in ..."): through any shared word ("mice") it would link anything
        return "the question describes no intermediate entity the second sentence could follow"
    if chain.bridge is None and q.described:
        # the question goes through a thing it describes ("the energy sensor that X switches on"):
        # one sentence answers it only when it writes that thing too, else its other end is the thing
        # described, not the answer
        said = set().union(*(graph.sentences[p].stems for p in chain.positions))
        if not all(phrase & said for phrase in q.described):
            return "no connecting sentence names the thing the question describes between its names and the answer"
    nouns = [] if chain.clause_stated else q.bridge_nouns
    # the chain's sentences, each with the ones it goes on about, where that group writes an anchor
    anchored = _anchored_groups(q, graph, chain.positions) if nouns else ()
    nouns_written = set()
    if nouns and chain.bridge is None:
        nouns_written = _nouns_outside_names(graph, chain.positions)
    elif nouns:  # "In this double-blind trial from Tabriz, ...": a thing with no name, written beside an
        # anchor, or in the sentence answering ("low levels of F. prausnitzii in resected tissue")
        nouns_written = _nouns_outside_names(graph, anchored) | _bare_nouns(graph, chain.positions[-1])
    # one sentence may name the thing described beside the answer ("the bacterium ... A. muciniphila"),
    # never the answer itself spelled out
    beside = (  # in a sentence with what the question names, or one it goes on about ("The
        # investigators, led by X, ..." after "The TAME trial was designed ..."): the thing is described by it
        {e for b in anchored for e in graph.sentences[b].entities}
        - {chain.candidate, *_other_forms(graph, chain.candidate, chain.positions)}
        if nouns and chain.bridge is None
        else {chain.bridge}
    )
    for noun in nouns:
        if noun in nouns_written:
            continue  # the answering sentence writes the thing ("for identifying the ATG genes")
        kinds = type_nouns()[noun]
        if not any(_is_kind(graph, a, noun, kinds) or _names_genus(graph, a, noun) for a in [*q.anchors, *beside]):
            written = next((w for w in words(q.text) if noun_form(w) == noun), noun)
            return f"no sentence names the {written} the question describes"
    pinned = (
        chain.bridge is None
        and len([a for a in q.required if a in chain.anchors_hit and a in q.names_written]) >= PINNING_NAMES
    )
    # one sentence writing two or more of the names the question requires, and the answer of the
    # asked kind, is pinned down by them: the rest of the question may be in other words
    # ("Navitoclax (ABT-263) inhibits BCL-2 and BCL-xL" for "Which senolytic drug inhibits BCL-2 and
    # BCL-xL but causes low platelet counts?")
    needed = PINNED_WORD_SHARE if pinned else MIN_WORD_SHARE
    if chain.word_count_share < needed and _meaning_share(q, graph, chain) < needed:
        return "the connecting sentences leave much of the question unanswered"
    return ""


def _described_in_other_words(q: QuestionParts, graph: ContextGraph) -> QuestionParts:
    """The question without the common-noun anchors no gathered sentence writes, when another thing
    it names is found: "ileal cells" for the text's "ileal enterocytes", "premature-aging syndrome"
    for "a syndrome resembling human aging" describe in the question's own words. Their words are
    still asked of the answer, as the question's other content words are. A name (capitalised, a
    symbol) the text never writes still means the answer was not gathered."""
    q = _names_in_parts(q, graph)
    found = {a for a in q.anchors if _anchor_positions(graph, a)}
    missing = [a for a in q.anchors if a not in q.names_written and a not in found]
    kept = [a for a in q.anchors if a not in missing]
    if not missing or not found:
        return q
    said = {stem(w) for a in missing for w in words(q.anchor_names[a]) if _content_word(w)}
    return replace(
        q,
        anchors=kept,
        required=[a for a in q.required if a in kept] or kept[:1],
        stems=q.stems | (said - q.wh_stems),
    )


def _names_in_parts(q: QuestionParts, graph: ContextGraph) -> QuestionParts:
    """The question with each name the text never writes whole replaced by the names it is made of
    (see ``_written_in_parts``); the words left over are asked of the answer as its other words."""
    parts = {
        a: found
        for a in q.anchors
        if a in q.names_written
        and not _anchor_positions(graph, a)
        and (found := _written_in_parts(q, graph, a)) is not None
    }
    if not parts:
        return q

    def instead(keys: list[str]) -> list[str]:
        return list(dict.fromkeys(k for a in keys for k in (parts[a][0] if a in parts else [a])))

    runs = {k for found, _left in parts.values() for k in found}
    return replace(
        q,
        anchors=instead(q.anchors),
        required=instead(q.required),
        anchor_names={**{k: graph.names.get(k, k.capitalize()) for k in runs}, **q.anchor_names},
        names_written=q.names_written | runs,
        stems=q.stems | {s for _runs, left in parts.values() for s in left},
    )


def _written_in_parts(q: QuestionParts, graph: ContextGraph, anchor: str) -> tuple[list[str], set[str]] | None:
    """The keys the text writes for a name the question writes in one piece, and the stems of its
    words left over: a place by its nationality ("Netherlands": the text's "Dutch"), a compound by
    its names ("Japanese-American": Japanese, American), a name with a word the question joins to
    it by a hyphen or after a possessive ("PI3K-inhibiting": PI3K, asking 'inhibiting';
    "Akkermansia's heat-stable": Akkermansia). None when a word of the name proper is not found
    ("Lactobacillus fermentum" where the text has only other Lactobacillus species)."""
    name_words = words(q.anchor_names[anchor])
    for demonym, places in demonym_places().items():
        if tuple(name_words) in places and _anchor_positions(graph, demonym):
            return [demonym], set()
    runs: list[str] = []
    left: list[str] = []
    i = 0
    while i < len(name_words):
        j = next(
            (
                j
                for j in range(len(name_words), i, -1)
                if len(" ".join(name_words[i:j])) > 2
                and not all(_kind_word(w) for w in name_words[i:j])
                and not (j == i + 1 and _verb_tag(name_words[i]) is not None)  # "mTORC1-activated": a verb
                and _anchor_positions(graph, " ".join(name_words[i:j]))
            ),
            None,
        )
        if j is None:
            left.append(name_words[i])
            i += 1
        else:
            runs.append(" ".join(name_words[i:j]))
            i = j
    # each word left over is one the question writes in lower case joined to the name
    # ("PI3K-inhibiting", "Akkermansia's heat-stable"), no word of a name proper ("Heat Shock")
    joined = [re.search(rf"(?:\w-|\w['’]s\s+){re.escape(w)}\b", q.text) is not None for w in left]
    if not runs or (not left and len(runs) < 2) or not all(joined):
        return None
    return runs, {stem(w) for w in left if _content_word(w)}


WORD_MEANING_COSINE = 0.6  # a sentence word this close to a question word says it in other words


def _meaning_share(q: QuestionParts, graph: ContextGraph, chain: Chain) -> float:
    """The chain's word share when a question word is also held by a word of its sentences that
    means it (packaged embedder's cosine at least ``WORD_MEANING_COSINE``: "limited" by
    "restricted", "stool" by "faeces"), for questions in other words than the text."""
    if not chain.unheld or not q.stems:
        return chain.word_count_share
    asked = {stem(w): w.casefold() for w in words(q.text) if stem(w) in chain.unheld}
    said = sorted(
        {w.casefold() for p in chain.positions for w in words(graph.sentences[p].text) if _content_word(w)}
        - set(asked.values())
    )
    if not asked or not said:
        return chain.word_count_share
    vectors = _word_vectors(tuple(sorted(set(asked.values()))), tuple(said))
    meant = {s for s, w in asked.items() if max(vectors[w] @ vectors[x] for x in said) >= WORD_MEANING_COSINE}
    return chain.word_count_share + len(meant) / len(q.stems)


_WORD_VECTORS: dict = {}


def _word_vectors(*groups: tuple[str, ...]) -> dict:
    """word -> unit vector by the packaged embedder, each word embedded once per process."""
    new = sorted({w for g in groups for w in g} - _WORD_VECTORS.keys())
    if new:
        _WORD_VECTORS.update(zip(new, _phrase_vectors(tuple(new))))
    return _WORD_VECTORS


def _said_of(graph: ContextGraph, key: str) -> frozenset[str]:
    """Stems of every sentence naming entity ``key`` and of its node description."""
    said = set().union(*(graph.sentences[p].stems for p in _anchor_positions(graph, key)))
    description = graph.descriptions.get(key)
    if description:
        said |= {stem(w) for w in words(description)}
    return frozenset(said)


TIE_MARGIN = 1e-6  # chains scoring this close are not told apart by anything the reasoner reads


def _same_thing(graph: ContextGraph, a: str, b: str, positions: tuple[int, ...]) -> bool:
    """Whether ``a`` and ``b`` are one thing the sentences write twice: "butyrate activates HCAR2
    (GPR109A)", "fibroblast growth factor 23 (FGF23)"."""
    for p in positions:
        for long, short in _abbreviations(graph.sentences[p].text):
            if {node_key(long), node_key(short)} == {a, b}:
                return True
    return _same_symbol(a, b) or _spelled_out(a, b) or _spelled_out(b, a)


def _other_forms(graph: ContextGraph, key: str, positions: tuple[int, ...]) -> set[str]:
    """The other entities of the sentences at ``positions`` that are entity ``key`` written another
    way ("fibroblast growth factor 19" beside FGF19)."""
    return {
        e for p in positions for e in graph.sentences[p].entities if e != key and _same_thing(graph, e, key, positions)
    }


_NUMBERS = re.compile(r"\d+")


def _spelled_out(short: str, long: str) -> bool:
    """Whether entity key ``long`` spells out symbol ``short``: initials and number ("fgf19",
    "fibroblast growth factor 19"), as a text writes one thing twice without brackets between."""
    from kg_pipelines.offline.entities import _spells

    return (
        " " not in short
        and len(words(long)) >= 2
        and _NUMBERS.findall(short) == _NUMBERS.findall(long)
        and _spells(short, long)
    )


def _tied(graph: ContextGraph, chains: list[Chain]) -> list[str]:
    """Other answers the best chain's own sentences give exactly as well: nothing the question says
    picks one of them ("... requires autophagy genes such as bec-1" read with no kind asked)."""
    best = chains[0]
    return [
        c.candidate
        for c in chains[1:]
        if c.score >= best.score - TIE_MARGIN
        and c.positions == best.positions
        and c.candidate != best.candidate
        and not _same_thing(graph, c.candidate, best.candidate, best.positions)
    ]


def _share_needed(graph: ContextGraph, chain: Chain) -> float:
    """The word share a one-hop answer of the asked kind needs when the question's verb is none the
    lexicon knows: half the question's words when its sentence opens on the answer and says what it
    did ("The ELDERMET study of older adults in Ireland found that ...", "Clive McCay and colleagues
    reported in 1935 that ..."), most of them when the text calls it the asked kind, else more than
    all (a sentence that only names both ends together does not answer)."""
    if chain.kind_ok and any(_active_subject(graph, p, chain.candidate) for p in chain.positions[:1]):
        return MIN_WORD_SHARE
    return STRONG_WORD_SHARE if chain.kind_said else math.inf


def _tied_elsewhere(q: QuestionParts, graph: ContextGraph, chains: list[Chain]) -> list[str]:
    """Other answers that other sentences give exactly as well as the best chain's, each passing
    every check ("AMPK phosphorylates TSC2", "AMPK phosphorylates ULK1" for "Which protein does
    AMPK phosphorylate?"): nothing the question says picks one of them."""
    best = chains[0]
    rivals: list[str] = []
    for c in chains[1:]:
        if c.score < best.score - TIE_MARGIN:
            break  # best first
        if (
            # another answering sentence: ties within the best chain's own are _tied's (and the gloss's)
            graph.sentences[c.positions[-1]].text != graph.sentences[best.positions[-1]].text
            and c.candidate not in rivals
            and c.candidate != best.candidate
            and not _same_thing(graph, c.candidate, best.candidate, (*best.positions, *c.positions))
            and not _verdict(q, graph, c)
        ):
            rivals.append(c.candidate)
    return rivals


def _called_as_asked(q: QuestionParts, graph: ContextGraph, chain: Chain) -> bool:
    """Whether the chain's last sentence writes the question's kind phrase, its describing words
    too, right before the answer ("the translation factor eIF5A" for "Which translation factor ...",
    where the transcription factor TFEB is named beside it)."""
    phrase = words(q.text[q.wh_first : q.wh_end])[1:]  # without the wh-word
    if len(phrase) < 2:
        return False
    n = len(phrase)
    return any(w[max(0, i - n) : i] == phrase for _p, w, i in _written_at(graph, chain.candidate, chain.positions[-1:]))


def _glossed(graph: ContextGraph, key: str, bridge: str, position: int) -> bool:
    """Whether the sentence at ``position`` glosses entity ``key`` in brackets by the bridge:
    "daf-15 (the worm Raptor gene)" is Raptor's counterpart, "let-363 (the worm TOR gene)" is not."""
    return bool(_gloss_words(graph, key, bridge, position))


def _gloss_words(graph: ContextGraph, key: str, bridge: str, position: int) -> list[str]:
    """The words of the brackets after entity ``key`` that name the bridge (``_glossed``), else []."""
    written = _written_pattern(key)
    for m in re.finditer(rf"(?i)\b{written}\s*\(([^()]*)\)", graph.sentences[position].text):
        if _mentions(node_key(m.group(1)), bridge):
            return words(m.group(1).casefold())
    return []


def _wrong_role(q: QuestionParts, graph: ContextGraph, chain: Chain) -> str:
    """Why the chain's answer is not what the question's verb acts on ('' when it may be), for a
    question asking the object of its verb ("What does X secrete?"), or for a thing the question
    describes on the way ("the protein that X produces": ``_is_the_described``)."""
    if chain.bridge is None and _is_the_described(q, graph, chain):
        return "the answer found is the thing the question describes, not what it asks about"
    unranked = _unranked(q, graph, chain)
    if unranked:  # "X is the most potent agonist, while bile acids act as antagonists": X ranked, not they
        return unranked
    if chain.bridge is not None and all(_kind_word(w) for w in words(chain.bridge)):
        # "bacteria", "the cells": through a kind, anything of it links to anything else
        return (
            f"the connecting sentences go through a kind ({graph.names.get(chain.bridge, chain.bridge)}), not one thing"
        )
    if (
        q.answer_role == "source"
        and chain.bridge is None
        and (_only_acted_on(q, graph, chain) or _past_the_object(q, graph, chain))
    ):
        return "the answer found is what the verb acts on, not its subject"
    agent_verb = _agent_verb(q) if chain.bridge is None and q.answer_role is None else None
    if agent_verb is not None and _past_the_object(q, graph, chain, agent_verb):
        return "the answer found comes after what the question's verb acts on, not as its subject"
    if chain.bridge is None and _called_as_the_bridge(q, graph, chain.candidate):
        return "the answer found is what the question calls the thing between, not the kind it asks for"
    if q.answer_role is None and chain.bridge is None and chain.other_verb_before and _asked_in_passive(q):
        # "Which gene is mutated in Snell mice?": "... carry mutations that prevent the development of
        # pituitary cells producing growth hormone" writes "producing" before growth hormone
        return "the verb the text writes before that answer is not the one the question asks about"
    before_wh = q.text[: q.wh_first].split()[-1:]
    if q.answer_role != "target" or (before_wh and before_wh[0].casefold() in PREPOSITIONS):
        return ""  # "Through which receptor does X ...": the answer is the preposition's, not the verb's
    # the answer's own sentences: all of a one-hop chain's, the last of a two-hop chain's (the hop the
    # question's verb asks about: "What does the hormone whose co-receptor is beta-Klotho repress?")
    own = chain.positions if chain.bridge is None else chain.positions[-1:]
    written = [p for p in own if chain.candidate in graph.sentences[p].entities]
    if written and all(_active_subject(graph, p, chain.candidate) for p in written):
        # a sentence opening on X says what X does ("F. prausnitzii ... secretes MAM"): X is the subject
        return "the answer found is the subject of the verb, not what the question asks it acts on"
    if chain.other_verb_before:
        # "What do FGF23 and Klotho suppress?": "... promote phosphate excretion and suppress the
        # synthesis of vitamin D" writes "promote" before phosphate, so phosphate is no answer
        return "the verb the text writes before that answer is not the one the question asks about"
    return ""


def _asked_in_passive(q: QuestionParts) -> bool:
    """Whether the wh-phrase is followed by a passive with no agent ("Which gene is mutated in ..."):
    the answer is what the verb acts on."""
    after = words(q.text[q.wh_end :])[:3]
    return (
        len(after) >= 2
        and after[0].casefold() in BE_AFTER_WH
        and after[1].casefold().endswith("ed")
        and (len(after) < 3 or after[2].casefold() != "by")
    )


def _called_as_the_bridge(q: QuestionParts, graph: ContextGraph, key: str) -> bool:
    """Whether the text calls entity ``key`` by a noun the question names the thing between by
    ("... one inflammatory cytokine ... . LPS induces that cytokine by activating which receptor?":
    "the inflammatory cytokines TNF and IL-6"), never by the kind the question asks for."""
    if q.wh_noun is None or q.wh_noun in q.bridge_nouns:
        return False
    return any(
        _described_as(graph, key, noun, written_as=True) is not None for noun in q.bridge_nouns
    ) and not _is_kind(graph, key, q.wh_noun, frozenset())


def _agent_verb(q: QuestionParts) -> str | None:
    """The ``full_stem`` of the verb right after the wh-phrase (adverbs aside) when the lexicon does
    not know it and the wh-phrase is its subject: "Who first isolated X?" -> isolat; else None."""
    after = [w for w in words(q.text[q.wh_end :]) if w not in VERB_ADVERBS][:1]
    if not after or after[0] in AUXILIARIES or after[0] in PREPOSITIONS or not after[0].endswith(("ed", "s")):
        return None
    return full_stem(after[0])


def _past_the_object(q: QuestionParts, graph: ContextGraph, chain: Chain, verb: str | None = None) -> bool:
    """Whether the chain's sentences write the answer only after the thing the question's verb acts
    on, that verb before both and no "by" between ("microbes that produce nitrogen oxides, including
    X, which act against fungi such as Y": Y produces nothing), when no verb pairs the two. With
    ``verb`` (a verb the lexicon does not know, as its ``full_stem``), that verb and every anchor."""
    asked = set(q.relations)
    objects = [a for a, classes in q.anchor_relations.items() if classes & asked] if verb is None else q.anchors
    seen = False
    for position in chain.positions:
        sentence = graph.sentences[position]
        answer_at = next((i for _p, _w, i in _written_at(graph, chain.candidate, [position])), None)
        if answer_at is None:
            continue
        sentence_words = words(sentence.text)
        verbs = [
            i
            for i, w in enumerate(sentence_words)
            if (full_stem(w) == verb if verb else (t := _verb_tag(w)) and _relation_of(t) in asked)
        ]
        for anchor in objects:
            written = sentence.written.get(anchor, anchor)
            anchor_at = next((i for _p, _w, i in _written_at(graph, written, [position])), None)
            if anchor_at is None:
                continue
            if not verbs or not verbs[-1] < anchor_at < answer_at or "by" in sentence_words[verbs[-1] : answer_at]:
                return False
            if any(_relation_of(t) in asked for t in sentence.relations.get(frozenset((anchor, chain.candidate)), ())):
                return False
            seen = True
    return seen


CONTRAST_NOT = re.compile(r"(?:\bbut|,)\s+not\s+(?!only\b)([^,;.()]+)", re.IGNORECASE)  # "in males but not females"
OPENING_SETTING = re.compile(r"^\s*(?:in|inside|within|among)\s+([^,]+),", re.IGNORECASE)  # "In ileal enterocytes, ..."


def _denied_words(q: QuestionParts, graph: ContextGraph, chain: Chain) -> str:
    """The words of a sentence of the chain, after "but not", that hold a word of the question the
    sentence writes nowhere else ("extended the lifespan of male mice but not female mice" for "...
    the lifespan of female mice"), else ''."""
    asked = q.stems | {stem(w) for w in words(q.text) if _content_word(w)} - q.wh_stems
    # what the question itself denies ("... in male mice but not in female mice?") it does not ask of
    # the answer
    asked -= {stem(w) for m in CONTRAST_NOT.finditer(q.text) for w in words(m.group(1))}
    for position in chain.positions:
        text = graph.sentences[position].text
        for m in CONTRAST_NOT.finditer(text):
            rest = {stem(w) for w in words(text[: m.start()] + " " + text[m.end() :])}
            if any(s not in rest for s in {stem(w) for w in words(m.group(1))} & asked):
                return m.group(1).strip()
    return ""


@functools.cache
def qualifier_groups() -> tuple[frozenset[str], ...]:
    """The word groups of ``data/qualifier_groups.txt`` ({"female", "females", "women", ...})."""
    return tuple(frozenset(line.split()) for line in data_lines("qualifier_groups.txt"))


def _affirmed_words(text: str) -> set[str]:
    """The words of ``text`` outside its "but not ..." phrases."""
    return set(words(CONTRAST_NOT.sub(" ", text)))


def _qualifier_unmet(q: QuestionParts, graph: ContextGraph, chain: Chain) -> str:
    """The qualifier the question asks of ("In male mice, ...", "... in female mice but not in male
    mice": female) that no sentence of the chain writes (outside a "but not" phrase); else ''."""
    asked = _affirmed_words(q.text)
    said = set().union(*(_affirmed_words(graph.sentences[p].text) for p in chain.positions))
    for group in qualifier_groups():
        written = asked & group
        if written and not said & group:
            return min(written)
    return ""


RANK_ASKING, RANK_GIVING, NOT_SUPERLATIVES = (frozenset(line.split()) for line in data_lines("ranking_words.txt"))


def _ranks(word: str) -> bool:
    """Whether ``word`` ranks a thing: a word of ``data/ranking_words.txt`` or a superlative."""
    word = word.casefold()
    return (
        word in RANK_ASKING
        or word in RANK_GIVING
        or (word.endswith("est") and len(word) > 5 and word not in NOT_SUPERLATIVES)
    )


COMPANION = re.compile(
    rf"(?i)\b(?:{phrase_alternation('companion_phrases.txt')}),?\s+(?:this|that|these|those|the same)\b"
)


def _joined_as_asked(q: QuestionParts, graph: ContextGraph, chain: Chain) -> bool:
    """Whether the question asks for what goes with the bridge ("Which other factor does the worm
    need, together with that one, ...?") and the last sentence lists the answer beside it ("requires
    the transcription factors PHA-4 and SKN-1"): the listing is then the relation asked."""
    return COMPANION.search(q.text) is not None and _listed_with(
        graph, chain.positions[-1], chain.bridge, chain.candidate
    )


def _predicate_words(q: QuestionParts) -> list[str]:
    """The words of the noun phrase a copula right after the wh-phrase says the answer is, up to its
    preposition ("Which molecule is the most potent activator of FXR?": the most potent activator)."""
    rest = q.text[q.wh_end :].split()
    if not rest or rest[0].casefold() not in BE_WORDS:
        return []
    found = []
    for w in rest[1:]:
        if w.casefold() in PREPOSITIONS or w.casefold() in WH_PHRASE_ENDS:
            break
        found.append(w)
    return found


def _rank_unmet(q: QuestionParts, graph: ContextGraph, chain: Chain) -> str:
    """The word by which the wh-phrase ranks the answer ("What is the strongest natural agonist of
    ...?") when the sentence naming the answer ranks nothing; else ''."""
    asked = [w for w in [*words(q.text[q.wh_first : q.wh_end]), *_predicate_words(q)] if w.casefold() in RANK_ASKING]
    if not asked or any(
        _ranks(w) for w in words(_clause_writing(graph.sentences[chain.positions[-1]], chain.candidate))
    ):
        return ""
    return asked[0]


def _unranked(q: QuestionParts, graph: ContextGraph, chain: Chain) -> str:
    """Why the chain does not answer a question that ranks its answer (see ``_rank_unmet``), else ''."""
    ranked = _rank_unmet(q, graph, chain)
    return f"the sentence naming the answer does not rank it ('{ranked}'), as the question does" if ranked else ""


def _clause_writing(sentence: ContextSentence, key: str) -> str:
    """The clauses of the sentence that write entity ``key`` ("X is the most potent agonist, while
    bile acids act as antagonists": the first for X); the whole text when none is found."""
    from kg_pipelines.offline.entities import CLAUSE_JOIN

    surfaces = [w for w, k in sentence.written.items() if k == key] or [key]
    pattern = "|".join(_written_pattern(w) for w in surfaces)
    found = [c for c in CLAUSE_JOIN.split(sentence.text) if re.search(rf"(?i)\b(?:{pattern})\b", c)]
    return " ".join(found) or sentence.text


def _set_otherwise(q: QuestionParts, graph: ContextGraph, chain: Chain) -> str:
    """The place a sentence of the chain opens on ("In ileal enterocytes, ..."), when the question
    opens on another one ("Inside hepatocytes, ..."): no content word or organism in common; else ''
    (not "In the second pathway, ...": an ordinal names one of the things the text counted)."""
    opening = OPENING_SETTING.match(q.text)
    asked = [opening.group(1)] if opening is not None else []
    # "... induces which protein in hepatocytes ...": a thing the question names as its setting later,
    # against a sentence opening on another named thing ("In ileal enterocytes, ..."; not "In that study")
    later = [
        q.anchor_names[a]
        for a in q.anchors
        if a not in q.required
        and not organisms_in(q.anchor_names[a])
        and re.search(rf"(?i)\b(?:in|inside|within)\s+(?:the\s+)?{re.escape(q.anchor_names[a])}\b", q.text)
    ]
    if not asked and not later:
        return ""
    for position in chain.positions:
        sentence = graph.sentences[position]
        said = OPENING_SETTING.match(sentence.text)
        if said is None or set(words(said.group(1))) & ORDINAL_WORDS:
            continue
        b = said.group(1)
        if not asked and not any(_mentions(node_key(b), k) for k in sentence.entities):
            continue
        here = {stem(w) for w in words(b) if _content_word(w)}
        if not any(
            {stem(w) for w in words(a) if _content_word(w)} & here or organisms_in(a) & organisms_in(b)
            for a in asked or later
        ):
            return b.strip()
    return ""


def _only_acted_on(q: QuestionParts, graph: ContextGraph, chain: Chain) -> bool:
    """Whether the chain's sentences write the answer as the object of the question's verb and
    never as its subject ("X reduces Y, which raises Z": Z raises nothing)."""
    asked = set(q.relations)
    ends = [
        (source, target)
        for p in chain.positions
        for (source, target), tags in graph.sentences[p].directed.items()
        if {_relation_of(t) for t in tags} & asked
    ]
    return any(t == chain.candidate for _s, t in ends) and not any(s == chain.candidate for s, _t in ends)


def _judged(q: QuestionParts, graph: ContextGraph) -> tuple[list[Chain], Chain | None, str]:
    """The chains, the best one and why it does not answer ('' when it does)."""
    chains = _chains(q, graph)
    if q.quantity is not None:  # only a quantity of the asked kind answers, reached through things
        chains = [
            c for c in chains if graph.types.get(c.candidate) == QUANTITY and graph.types.get(c.bridge) != QUANTITY
        ]
    roles = [_wrong_role(q, graph, c) if q.quantity is None else "" for c in chains]
    kept = [c for c, wrong in zip(chains, roles) if not wrong]
    chains = kept if kept else chains
    best = chains[0] if chains else None
    why = _verdict(q, graph, best)
    if not why and not kept and roles:
        why = roles[0]
    if not why and best is not None:
        rivals = _tied(graph, chains)
        if rivals:
            tied = [c for c in chains if c.positions == best.positions and c.candidate in {best.candidate, *rivals}]
            pickers = [  # the one tied answer the sentence glosses by the bridge, else the one the text
                # calls by the question's whole kind phrase
                *([lambda c, b=best: _glossed(graph, c.candidate, b.bridge, b.positions[-1])] if best.bridge else []),
                lambda c: _called_as_asked(q, graph, c),
                # the one reached through another tied answer, which is then the thing between ("which
                # receptor partners with the protein that ...": FGFR4 through beta-Klotho)
                lambda c, ends=frozenset(t.candidate for t in tied): c.bridge in ends,
                # the quantity written beside the question's own words ("an average CR of about 12
                # percent, far less than the 25 percent target" for "... on average?")
                *([lambda c: _quantity_described(q, graph, c)] if q.quantity is not None else []),
            ]
            for picks in pickers:
                picked = [c for c in tied if picks(c)]
                if len(picked) == 1:
                    best, rivals = picked[0], []
                    why = _verdict(q, graph, best)
                    break
        if not rivals:  # as good an answer from other sentences, passing every check too
            rivals = _tied_elsewhere(q, graph, chains)
        if rivals and all(_mentions(r, best.candidate) for r in rivals):
            rivals = []  # "Crohn's disease" and "ileal Crohn's disease": the one the others name is true of all
        if rivals and _asks_plural(q) and all(r in graph.sentences[best.positions[-1]].entities for r in rivals):
            rivals = []  # "Which kinases phosphorylate X?": the sentence naming them all answers
        if rivals:
            names = ", ".join(graph.names.get(k, k) for k in [best.candidate, *rivals][:4])
            why = f"the connecting sentences answer equally well with {names}: nothing in the question picks one"
    return chains, best, why


def _asks_plural(q: QuestionParts) -> bool:
    """Whether the wh-phrase writes its kind in the plural ("Which kinases ...")."""
    return any(noun_form(w) == q.wh_noun and w.casefold() != q.wh_noun for w in words(q.text[q.wh_first : q.wh_end]))


def reason(
    question: str,
    context: list[str],
    max_sentences: int = 4,
    known_names: Iterable[str] = (),
    descriptions: Mapping[str, str] | None = None,
    follows: Mapping[int, int] | None = None,
) -> ExtractiveAnswer:
    """The answer from the context's sentences along the best chain (see the module doc);
    ``descriptions``: name -> the graph's description of that entity (what it is, for kind checks);
    ``follows``: passage -> the passage it continues in its document (see ``build_context_graph``)."""
    graph = build_context_graph(context, known_names, descriptions, follows)
    if not graph.sentences:
        return ExtractiveAnswer(f"{NO_ANSWER} Nothing was gathered.", False, [], reason="nothing was gathered")
    asked = quantities.asked(question)
    if asked is not None and asked.kind:
        graph = _with_quantities(graph, asked)
    q = _described_in_other_words(read_question(question, graph), graph)
    chains, best, why = _judged(q, graph)
    positions = best.positions if best is not None and not why else ()
    answer_key = best.candidate if positions else None
    bridge = best.bridge if positions else None
    if q.asks_name:  # "What is the current name of X?", "... of the species that ...?"
        named = answer_key or (q.required[0] if len(q.required) == 1 else None)
        renamed = _renamed_as(graph, named) if named else None
        if renamed is not None:  # the name the text says it has now
            position, answer_key = renamed
            positions, why = tuple(dict.fromkeys((*positions, position))), ""
        elif positions and q.wh_noun is None:  # no kind to check: only a name the text gives it answers
            positions, why = (), "no sentence gives the thing the question describes another name"
    if positions:
        # the sentences the first one goes on about, where they name what it answers with ("... the soil
        # bacterium S. hygroscopicus. Researchers isolated the bacterium ...") come first
        named = {answer_key, *q.anchors}
        earlier = [
            b
            for b in reversed(_continued_from(graph, positions[0]))
            if b not in positions and any(_in_sentence(graph.sentences[b], k) for k in named)
        ]
        shown = [*earlier[: max(0, max_sentences - len(positions))], *positions]
        used = [graph.sentences[p] for p in shown][:max_sentences]
        name = graph.names.get(answer_key, answer_key)
        return ExtractiveAnswer(
            answer=f"{name}: " + " ".join(s.text for s in used),
            supported=True,
            sentences=[(s.passage, s.text) for s in used],
            sentence_ids=[s.sid for s in used],
            answer_entity=name,
            bridges=[graph.names.get(bridge, bridge)] if bridge else [],
        )
    shown = _closest(q, graph, chains, max_sentences)
    found = " ".join(s.text for s in shown)
    answer = f"{NO_ANSWER} ({why}.)" + (f" Closest found: {found}" if found else "")
    return ExtractiveAnswer(
        answer=answer,
        supported=False,
        sentences=[(s.passage, s.text) for s in shown],
        sentence_ids=[s.sid for s in shown],
        reason=why,
    )


RENAMING_CUES = phrase_alternation("renaming_cues.txt")  # "is now called", "was renamed" ...


def _renamed_as(graph: ContextGraph, key: str) -> tuple[int, str] | None:
    """(position, entity key) of the name a sentence says entity ``key`` now has ("Lactobacillus
    reuteri is now Limosilactobacillus reuteri"), else None."""
    for position in graph.by_entity.get(key, ()):
        sentence = graph.sentences[position]
        for m in re.finditer(rf"(?i)\b{_written_pattern(key)}\s+(?:{RENAMING_CUES})\s+", sentence.text):
            rest = node_key(sentence.text[m.end() :])
            found = [k for k in sentence.entities if k != key and rest.startswith(k)]
            if found:
                return position, max(found, key=len)
    return None


def _closest(q: QuestionParts, graph: ContextGraph, chains: list[Chain], limit: int) -> list[ContextSentence]:
    """What was found: the best chain's sentences, else the sentences sharing the most content words."""
    positions: list[int] = []
    for chain in chains[:3]:
        # a sentence going on about those before it ("It induces ...") is shown after them
        before = reversed(_continued_from(graph, chain.positions[0]))
        positions += [p for p in (*before, *chain.positions) if p not in positions]
    if not positions:
        goal = {stem(w) for w in words(q.text) if _content_word(w)}
        scored = sorted(
            ((sum(graph.idf(s) for s in goal & sen.stems), i) for i, sen in enumerate(graph.sentences)),
            key=lambda t: (-t[0], t[1]),
        )
        positions = [i for score, i in scored if score > 0]
    return [graph.sentences[p] for p in positions[: min(limit, 2)]]


def extractive_answer(
    goal: str, context: list[str], max_sentences: int = 4, known_names: Iterable[str] = ()
) -> ExtractiveAnswer:
    """The reasoner's answer (kept under its old name: callers degrade to it when an LLM fails)."""
    return reason(goal, context, max_sentences, known_names)


# -- the decomposer -------------------------------------------------------------------------------


def bridges(question: str, context: list[str], known_names: Iterable[str] = ()) -> list[str]:
    """Entities the first hop reaches from the question's anchors, best first (see the module doc)."""
    graph = build_context_graph(context, known_names)
    q = read_question(question, graph)
    return _bridges(q, graph)


ALIAS_BRIDGE_WEIGHT = 4.0  # above every other score: the text says it is the anchor under another name


def _stated_alias(sentence: ContextSentence, a: str, b: str) -> bool:
    """Whether the sentence states entity keys ``a`` and ``b`` are two names of one thing ("chronic
    low-grade inflammation, often called inflammaging"; "long form (SHORT)"), by the alias rules of
    ``graph/stated_aliases.py``."""
    return any(
        (a in alias.keys_a and b in alias.keys_b) or (b in alias.keys_a and a in alias.keys_b)
        for alias in _aliases_stated(sentence.text)
    )


@functools.lru_cache(maxsize=1 << 12)
def _aliases_stated(text: str) -> tuple:
    from kg_pipelines.graph.stated_aliases import find_stated_aliases

    return tuple(find_stated_aliases(text))


def _bridges(q: QuestionParts, graph: ContextGraph) -> list[str]:
    present = [a for a in q.anchors if _anchor_positions(graph, a)]
    scores: dict[str, float] = {}
    for rank, anchor in enumerate(present):
        for p in _anchor_positions(graph, anchor):
            sentence = graph.sentences[p]
            for key in sentence.entities:
                if key in q.anchors or any(_mentions(key, a) or _mentions(a, key) for a in q.anchors):
                    continue
                score = 1.0 / (1 + rank)
                if _stated_alias(sentence, sentence.written.get(anchor, anchor), key):
                    score += ALIAS_BRIDGE_WEIGHT
                if any(_is_kind(graph, key, noun, type_nouns()[noun]) for noun in q.bridge_nouns):
                    score += 2.0
                tags = sentence.relations.get(frozenset((anchor, key)), ())
                if any(t not in ("co-occurrence", "negated") for t in tags):
                    score += 1.0
                score += 0.5 / len(graph.by_entity.get(key, [0]))  # specific beats hub
                scores[key] = max(scores.get(key, 0.0), score)
    ranked = sorted(scores, key=lambda k: (-scores[k], k))
    return [graph.names.get(k, k) for k in ranked[:MAX_BRIDGES]]


def _aliases_of_anchors(q: QuestionParts, graph: ContextGraph) -> dict[str, str]:
    """Anchor key -> the key of an entity a gathered sentence states is the same thing."""
    found = {}
    for anchor in q.anchors:
        for p in _anchor_positions(graph, anchor):
            sentence = graph.sentences[p]
            written = sentence.written.get(anchor, anchor)
            for key in sentence.entities:
                if key not in q.anchors and key != written and _stated_alias(sentence, written, key):
                    found.setdefault(anchor, key)
    return found


def _around(q: QuestionParts, bridge: str) -> list[str]:
    """The goal rewritten around ``bridge``: its text up to the first relation verb after the
    wh-phrase (with a following preposition), then the bridge."""
    out = []
    if q.relation_verbs and q.wh_first > 0:  # the question word after a clause: its nearest verb
        after = [v for v in q.relation_verbs if v[0] >= q.wh_end]
        _start, _end, base = after[0] if after else q.relation_verbs[-1]
        wh = q.text[q.wh_first : q.wh_end].strip()
        out.append(f"{wh[:1].upper()}{wh[1:]} does {bridge} {base}?")
    elif q.relation_verbs:
        start, end, base = q.relation_verbs[0]
        tail = re.match(r"\s+(by|to|with|in|on|from)\b", q.text[end:])
        prefix = q.text[: end + (tail.end() if tail else 0)].rstrip(" ?")
        if any(_mentions(node_key(prefix), a) for a in q.anchors):  # "Which enzyme does <the drug from A> activate?"
            out.append(f"{q.text[: q.wh_end].strip()} does {bridge} {base}?")
        else:  # "Which bacterium is increased by <the drug tested in A>?"
            out.append(f"{prefix} {bridge}?")
    if q.wh_noun:
        noun = next((w for w in words(q.text) if noun_form(w) == q.wh_noun), q.wh_noun)
        out.append(f"What {noun} {'are' if noun.endswith('s') else 'is'} related to {bridge}?")
    out.append(f"What is {bridge}?")
    return out


def propose_sub_questions(
    goal: str,
    context: list[str],
    asked: list[str],
    n: int,
    known_names: Iterable[str] = (),
    descriptions: Mapping[str, str] | None = None,
    follows: Mapping[int, int] | None = None,
) -> list[str]:
    """Up to ``n`` sub-questions to look up next (see the module doc); [] when nothing new is left
    or the context already supports an answer."""
    asked_keys = {q.casefold().strip() for q in asked}
    proposals: list[str] = []

    def propose(question: str) -> None:
        key = question.casefold().strip()
        if key and key not in asked_keys and key not in {p.casefold() for p in proposals}:
            proposals.append(question)

    graph = build_context_graph(context, known_names, descriptions, follows)
    q = read_question(goal, graph if context else None)
    if context:
        if graph.sentences and not _judged(q, graph)[2]:
            return []  # the context states the answer (as ``reason`` would): time to answer
    else:
        propose(goal.strip())
    for anchor in q.anchors:
        if not context or not _anchor_positions(graph, anchor):
            propose(f"What is {q.anchor_names[anchor]}?")
    if context:
        # "the chronic low-grade inflammation ..." that a sentence says is "often called
        # inflammaging": the question itself, asked with that name
        for anchor, alias in _aliases_of_anchors(q, graph).items():
            pattern = re.compile(_written_pattern(anchor), re.IGNORECASE)
            if pattern.search(q.text):
                propose(pattern.sub(graph.names.get(alias, alias), q.text, count=1))
        for bridge in _bridges(q, graph):
            for sub in _around(q, bridge):
                propose(sub)
    for anchor in q.anchors:
        name = q.anchor_names[anchor]
        for _s, _e, base in q.relation_verbs[:1]:
            propose(f"What does {name} {base}?")
        propose(f"What does {name} do?")
    return proposals[:n]
