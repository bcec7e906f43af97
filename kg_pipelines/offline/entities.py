"""Heuristic entity recognition and relationship extraction for the offline provider.

Recognition works on tokens (see ``lexicon.TOKEN_RE``) and proposes candidate mentions from
several recognisers, each with a tier (lower is more trusted). Every rule is written for text the
recogniser has never seen (``benchmarks/extraction_eval.py`` measures them on BioRED, HotpotQA and
MuSiQue); no entry exists because some document or test mentions it.

0. the gazetteer (``lexicon``, ``vocabulary``): n-gram lookup, case-, hyphen- and plural-insensitive:
   curated longevity/biomedical entities, and general vocabulary (countries, regions and large
   cities, matched as written; disease words; chemical elements; organisms named by a common noun
   such as "mice" or "humans", in biomedical text only; "patients" is a role, no entity); a cell
   line before "cells";
1. patterns with strong evidence: gene/protein symbols (``SIRT6``, ``IL-6``, ``PKCalpha``,
   ``caspase-3``; mouse-style ``Sgk1`` and species-prefixed ``mTOR`` only in biomedical text, so
   "Web3" and "iOS" are no genes; a word shaped like a protein change or a residue, "D90A" or
   "Pro75", is none either), sequence variants (``V600E``, ``rs1042522``, ``c.35delG``, typed
   concept: a change in a gene is not a gene), ions, binomial species (known genus, or a
   distinctive genus ending such as -bacter or -coccus: "-ia" is no genus ending, "Nigeria" is a
   country), "<-ic> acid", ``vitamin X``,
   people after a title or before ``et al.``;
2. word formation and context: drug-name stems (WHO INN: -statin, -mycin, -tinib, -caine ...),
   also capitalised at a sentence start; weaker chemical endings (-amine, -ol, -ine ...) only in
   lower case; disease endings (-itis, -osis, -emia, -pathy; "-oma" only in lower case, so
   "Thomas" is no disease); hyper-/hypo- words; "<modifier> disease/syndrome/failure/...",
   "<chemical modifier> receptor/transporter/synthase", cell types; "X-induced" and "treated with X"
   make X a compound; capitalised names typed by their words ("... University", "Lake ..."), by
   what the text says they are ("X is an American actor", "(born 1961)", "the band X"), by a
   common given name or initials ("J. R. R. Tolkien"), or by a known place after a comma;
3. other capitalised words and phrases in running text -> ``concept`` (not a sentence-initial
   single word, not a common word such as "Records" or "Life", not a nationality adjective), or the
   type of a place/person/organisation they are listed with or that extends their name; a surname
   used alone ("Lawson" after "Nigella Lawson") is the person's.

Names stay whole: initials and particles belong to the name ("Robert A. Stemmle", "Ludwig van
Beethoven"). A leading Markdown heading is the document's title (the graph's ``title`` node), not
a mention: the names inside it are found like any others, and the whole heading is an entity only
when it is a name: where the body writes it ("# Demon Dice" ... "Demon Dice is a 1988 film"), or when
it is written as one ("# Terry Sanford": at most six words, capitalised but for name particles, no
"and", comma or colon), typed like the same name in the text or by the text's definition of it;
never when it is a sentence (more than eight words) or pairs several entities ("# Metformin and
AMPK", "# Akkermansia muciniphila and Metabolic Health").

Overlaps are resolved greedily: the longer span wins, then the lower tier, then the earlier one.
"Long form (ABBR)" definitions (found as Schwartz and Hearst do) make the long form one mention,
typed by its head word ("... syndrome", "... receptor") or by the mention it ends with, and ABBR (in
the brackets and later) mentions of it; an undefined all-caps word in biomedical text is a gene
guess of the lowest tier, unless a study noun follows it ("the ELDERMET study", "the PLACIDE
trial": ``data/study_nouns.txt``), which makes it the study's name.

Each mention carries preferred types (best first); ``extract`` keeps the first one the configured
entity types allow, else ``concept`` if allowed, else drops the mention. Entities are keyed by
name (case-insensitive); a later mention that types a ``concept`` upgrades it. The description of
an entity is the first statement that mentions it, verbatim with white space collapsed.

Relationships link entities that share a sentence (headings are skipped): mentions joined only by
", ", "and" or "or", or by such separators around short items that are no entities ("Metformin,
prebiotic fibre, polyphenols and OEA"), form a list, and list items are never related to each
other; each item is related to the items of the neighbouring lists, and the sentence's first list
to the later ones (at most six pairs a sentence). The keywords are the relation cues *between* the
two mentions only (a cue inside a hyphenated word, "double-blind", is none); a pair with no cue
gets ``co-occurrence`` (the graph may give it a lower strength). A negated pair (``negated``: a cue
of ``data/negation_cues.txt`` between them, "X does not bind Y", or before them in their clause,
"no effect of X on Y") is kept for the question generator but never reaches the graph
(``extraction_payload`` leaves it out). The source is the subject of the verb: a passive
("butyrate is produced by F. prausnitzii", "AMPK activation by metformin", "the activation of
AMPK by metformin") makes the agent the source: F. prausnitzii --produces--> butyrate. Each
relationship also remembers its first cue and whether it links the two directly (no other entity,
clause break, second verb or negation between them), which the question generator uses to decide
between "What does A activate?" and the safe "How is A related to B?".
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import defaultdict
from dataclasses import dataclass, replace
from functools import lru_cache

from kg_pipelines.entity_types import BASE_ENTITY_TYPES
from kg_pipelines.graph.sibling_names import greek_letters
from kg_pipelines.ingestion.sentences import Sentence, split_sentences
from kg_pipelines.offline import lexicon as lx
from kg_pipelines.offline import vocabulary as voc
from kg_pipelines.offline.analysis_cache import AnalysisCache
from kg_pipelines.offline.cue_words import word_set, word_tuple

MAX_PAIRS_PER_SENTENCE = 6
MAX_DESCRIPTION_CHARS = 600

_SPACE = re.compile(r"\s+")
_MARKDOWN_LEAD = re.compile(r"^\s*(?:#{1,6}\s*|[-*+•]\s+|\d+[.)]\s+)")
_EMPHASIS = re.compile(r"\*\*|__|`")
_PAREN = re.compile(r"[()]")
_CITATION = re.compile(r"\([^()]{0,200}?\b(?:1[89]|20)\d{2}[a-z]?\b[^()]{0,200}?\)")
# A reference to a source, "(Gut. 2016)", "(Cell Metab. 2016)", "(Smith et al., 2019)": it names
# where a finding was published, no participant of it (the journal Gut is no gut)
_REFERENCE = re.compile(r"\([A-Z][^()]{0,80}?(?:\.|\bet al\.,?)\s+(?:1[89]|20)\d{2}[a-z]?\)")
_ABBREVIATION_DEF = re.compile(r"\s*\(\s*([A-Za-z][A-Za-z0-9+αβγκ-]{1,11})\s*\)")
_SYMBOL = re.compile(
    r"^(?:[A-Z][A-Z0-9]{1,9}[a-z]?|[a-z][A-Z]{2,}[A-Z0-9]{0,6}|p\d{2,3}(?:[A-Z][A-Za-z0-9]*)?|[A-Z][a-z][A-Z]{2,}\d{1,2})$"
)  # "SIRT6", "mTOR", "p21", "CaMKK2"
_MOUSE_SYMBOL = re.compile(r"^[A-Z][a-z]{2,4}\d{1,2}[a-z]?$")
_SHORT_SYMBOL = re.compile(r"^[A-Z]\d$")  # "P9", "K8": a symbol too short to stand alone, after a kind noun
_MEMBER_LETTER = re.compile(r"^[A-Z]\d{0,2}$")  # "B1" in "lamin B1", "D" in "cyclin D"
_P_NUMBER = re.compile(r"^p\d{2,3}$")  # "p27", "p62", "p300": a protein named by its mass in kilodaltons
_SYMBOL_HEAD = re.compile(r"^[A-Z][A-Za-z]{1,5}$")
_LOWERCASE_GENE_HEAD = re.compile(r"^[a-z]{3,4}$")  # worm and fly genes: "daf-2", "let-363"
_SYMBOL_TAIL = re.compile(r"^(?:\d{1,3}[A-Za-zαβγδεκ]?|[αβγδεκ][A-Z]?|alpha|beta|gamma|delta|kappa|[abgdk]\d?)$")
_GREEK_SYMBOL = re.compile(
    r"^(?=[A-Za-z0-9]*[A-Z][A-Za-z0-9]*[A-Z0-9])[A-Za-z][A-Za-z0-9]{1,7}?(?:alpha|beta|gamma|delta|kappa|epsilon)\d?$"
)
_NUMBERED_PROTEIN = word_tuple("numbered_protein.txt")
_NOT_NUMBERED = word_set("not_numbered.txt")
_NOT_ENZYMES = word_set("not_enzymes.txt") | voc.PROTEIN_HEADS
_INDUCED = word_set("induced.txt")
_NOT_INDUCERS = word_set("not_inducers.txt")
_DRUG_CONTEXT_LAST = word_set("drug_context_last.txt")
_NOT_DRUGS = word_set("not_drugs.txt")
_NOT_HYPER = word_tuple("not_hyper.txt")
_NOT_CHEMICAL_ENDINGS = word_tuple("not_chemical_endings.txt")
_CHEMICAL_MODIFIER = word_tuple("chemical_modifier.txt")
_AA3 = "|".join(word_tuple("amino_acid_codes.txt"))
_VARIANT = re.compile(
    r"\brs\d{3,}\b"
    r"|\b[cgmp]\.[A-Za-z*]{0,3}-?\d+[A-Za-z0-9_+*>-]*[A-Za-z]\b"
    rf"|\b(?:{_AA3})\d{{1,5}}(?:{_AA3}|Ter|X|fs)\b"
    r"|\b[ACDEFGHIKLMNPQRSTVWY]\d{1,5}(?:[ACDEFGHIKLMNPQRSTVWYX]|fs)\b"
    r"|(?<![\w.])-?\d+[ACGT]>[ACGT]\b|\b\d+(?:del|ins|dup)[ACGT]+\b"
)
# One word shaped like a protein change ("D90A", "R620W") or a residue ("Pro75", "Thr26").
_VARIANT_WORD = re.compile(rf"^(?:[ACDEFGHIKLMNPQRSTVWY]\d{{1,5}}[ACDEFGHIKLMNPQRSTVWYX]|(?:{_AA3})\d{{1,5}})$")
_ION = re.compile(r"(?<![\w])(?:Ca|Na|K|Mg|Zn|Fe|Cu|Mn|Li|Cd|Hg|Pb|Al|Cl)(?:\(\d?[+-]\)|\d?[+-])(?![\w+])")
_LIFE_DATES = re.compile(r"\s*\([^()]{0,40}?\b\d{3,4}\s*[–—-]\s*[^()]{0,30}?\d{3,4}\s*\)")
_BY_PERSON = re.compile(
    r"\b(?:directed|written|produced|composed|created|founded|co-founded|designed|painted|sung|performed|illustrated|"
    r"edited|narrated|authored|developed|invented|discovered|coached|hosted|presented|played|portrayed|voiced|"
    r"starring|co-starring|featuring|married|son of|daughter of|wife of|husband of)\s+(?:by\s+)?$",
    re.IGNORECASE,
)
_BORN_IN = re.compile(r"\b(?:born|died|raised|located|situated|headquartered|based)\s+(?:in|at|near)\s+$")
_IN_PLACE = re.compile(r"\b(?:in|near|at|from)\s+$")
_COMMA_NAME = re.compile(r",\s+([A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)")
_TITLE_TEXT = re.compile(r"^\s*#{1,6}\s*(.+?)(?:\s*\([^()]*\))?\s*$")
_DEFINITION_WORDS = r"(?:is|was|are|were)\s+(?:an?|the|one\s+of\s+the)\s+((?:[\w'’.-]+[ ,]+){0,8}[\w'’-]+)"
_DEFINITION_AFTER = re.compile(r"(?:\s*\([^()]*\)){0,3}(?:\s*,[^,.;]{0,80},)?\s*" + _DEFINITION_WORDS)
# "Ann Smith, the professor of ...", "Lodi, a town in ...": an apposition says what a name is
_APPOSITION = re.compile(r"(?:\s*\([^()]*\)){0,3}\s*,\s+(?:an?|the)\s+((?:[\w'’.-]+[ ,]+){0,8}[\w'’-]+)")
_TEAM_BEFORE = re.compile(
    r"\b(?:play(?:ed|s|ing)?\s+for|signed\s+(?:with|by)|drafted\s+by|traded\s+to)\s+(?:the\s+)?$", re.IGNORECASE
)
# what companies, labels and networks do to things: "published by X", "aired on X"
_BY_ORGANIZATION = re.compile(
    r"\b(?:(?:published|distributed|manufactured|licensed|sponsored|operated|marketed)\s+by|"
    r"(?:aired|airs|broadcast|broadcasts)\s+on)\s+(?:the\s+)?$",
    re.IGNORECASE,
)
# organisation nouns that also follow a work's or an event's name ("the Simpsons franchise", "the
# Tampa Bay area" is no noun here): after a name they say nothing of it
_NOUNS_OF_WORKS_TOO = frozenset(
    {"franchise", "brand", "chain", "series", "order", "division", "movement", "group", "channel"}
)
_QUOTED = re.compile(r'"([^"\n]{3,80})"|“([^”\n]{3,80})”')
_PRONOUNS = {"he": "he", "his": "he", "him": "he", "she": "she", "her": "she", "it": "it", "its": "it", "they": "they"}
_WHO_AFTER = re.compile(r"(?:\s*\([^()]*\))?\s*,?\s+who(?:se)?\b")
# what is said of researchers after their names: "X and colleagues reported", "X et al.", "X received
# the 2016 Nobel Prize", "X won the Fields Medal"
_RESEARCHER_AFTER = re.compile(
    r"\s+(?:(?:and|&)\s+(?:(?:his|her|their)\s+)?(?:colleagues|co-?workers|collaborators|co-?authors)\b|et\s+al\b"
    r"|(?:received|won|shared|was\s+awarded)\s+(?:the\s+|an?\s+)?(?:\d{4}\s+)?(?:[A-Z][\w'’-]*\s+){0,3}(?:Prize|Medal)\b)"
)
_PERSON_VERBS = word_set("person_verbs.txt")
# "the investigators, led by Nir Barzilai, ...": a name a group is led by is a person's
_LED_BY = re.compile(r"\b(?:" + "|".join(sorted(word_set("leading_verbs.txt"))) + r")\s+by\s+$", re.IGNORECASE)
_ADVERBS_BEFORE_VERB = frozenset({"also", "later", "then", "once", "never", "reportedly", "famously", "subsequently"})
_PHRASE_END = frozenset(
    "of in from that which who whose where when based located by for with about on at to as after during since "
    "until between".split()
)
_DEFINITION_ANYWHERE = re.compile(r"\b" + _DEFINITION_WORDS)
_WORD = re.compile(r"^[A-Za-z][a-z]{4,}$")
_LOWER_WORD = re.compile(r"^[a-z]{3,}$")
_GENUS = re.compile(r"^[A-Z][a-z]{2,}$")
_VITAMIN = re.compile(r"^[A-K]\d{0,2}$")
_INTRANSITIVE = re.compile(
    r"\s+(?:after|during|following|upon|over|across|among|when|while|whereas|significantly|markedly|"
    r"slightly|substantially|dramatically|strongly|modestly)\b|\s*[,;.]",
    re.IGNORECASE,
)
_PASSIVE_BY = re.compile(r"\s+(?:\w+ly\s+)?by\b", re.IGNORECASE)
_BE_BEFORE = re.compile(r"\b(?:is|are|was|were|be|been|being)\s+(?:\w+ly\s+)?$", re.IGNORECASE)
# Between an agent and its verb: a clause break, a conjunction or a pronoun means the verb may have
# another subject ("X, which inhibits Y", "X ... and inhibits Y", "X before it empties into Y").
_AGENT_GAP_BREAK = re.compile(
    r"[,;:()]|\b(?:which|that|who|whom|whose|whereas|while|but|although|and|or|before|after|when|because|since|"
    r"if|then|it|its|they|their|he|she|we|this|these)\b",
    re.IGNORECASE,
)
_DIRECTIONS = word_set("directions.txt")
_ABSTRACT_ENDINGS = word_tuple("abstract_endings.txt")
_LIST_JOINER = re.compile(
    r"\s*(?:,\s*(?:and\s+|or\s+)?|;\s*|(?:and|or|as well as|and/or)\s+|/)\s*(?:the\s+)?", re.IGNORECASE
)
_COORDINATION = re.compile(r"\s*(?:,\s*(?:and\s+|or\s+)?|and\s+|or\s+)")
_COMBINATION = re.compile(r"\s*(?:\+|,|and|plus|with)\s*", re.IGNORECASE)  # "dasatinib plus quercetin (D+Q)"
_OBJECT_GAP_BREAK = re.compile(r"[;:]|\b(?:which|who|whereas|while|but|although|because)\b", re.IGNORECASE)
_LOSS_OF = re.compile(
    r"\b(?:loss|lack|deletion|depletion|absence|inhibition|knockdown|knockout|deficiency|blockade|suppression|"
    r"ablation|disruption|mutation|mutations)\s+of\s+(?:the\s+)?$",
    re.IGNORECASE,
)
# A list of several items: separators with \b so that "for" holds no "or" (";" separates clauses, not items).
_LIST_SPLIT = re.compile(
    r"\s*(?:,\s*(?:(?:and|or)\b\s*)?|\b(?:and/or|and|or|as well as)\b\s*)(?:the\s+)?", re.IGNORECASE
)
_LIST_ITEM = re.compile(r"[\w'’+-]+(?: [\w'’+-]+){0,3}")
# A comparison baseline ("compared with placebo", "versus sitagliptin", data/comparison_cues.txt),
# then at most three words (an article, modifiers) before the mention it measures against.
_COMPARISON = re.compile(
    r"(?<![\w-])(?:"
    + "|".join(r"\s+".join(re.escape(w) for w in cue.split()) for cue in word_tuple("comparison_cues.txt"))
    + r")(?=\s)",
    re.IGNORECASE,
)
# A second prepositional phrase coordinated with the first: "in mice| and in |humans", "by reduced
# daf-2| signalling, by |dietary restriction" (data/coordinated_prepositions.txt): at most two words
# ending the first phrase, a separator, the preposition, at most three words before the next mention.
_COORDINATED_PREPOSITIONS = word_set("coordinated_prepositions.txt")
_PREPOSITION_REPEATED = re.compile(
    r"((?:\s+[\w'’+-]+){0,2})\s*(?:,\s*(?:(?:and|or)\s+)?|(?:and/or|and|or|as well as)\s+)(\w+)\s+([^,;:()]*)",
    re.IGNORECASE,
)
_PHRASE_WORDS_BREAK = re.compile(r"[,;:()]")
# The setting of a statement: an organism after "in" / "among" ... ("Metformin lowers glucose in
# mice", "in people and mice with obesity") is where it was seen, not a partner of it.
_SETTING_TYPES = word_set("setting_types.txt")
_SETTING_PREPOSITIONS = word_set("setting_prepositions.txt")
# "<specific words> growth factor [23]": heads of several words naming a protein (data file)
_NAMED_HEADS = tuple(tuple(re.split(r"[\s-]+", line)) for line in word_tuple("protein_name_heads.txt"))
_GREEK_WORDS = frozenset(greek_letters())  # "alpha", "α", "Α" ...
# A sentence opening with a condition ("If metformin delays these outcomes, regulators could ...")
# asserts nothing of what its opening clause names (data/conditional_openers.txt).
_CONDITIONAL_OPENERS = word_set("conditional_openers.txt")
_OPENING_WORD = re.compile(r"\W*(\w+)")
_AND_OR = re.compile(r"\b(?:and|or)\b", re.IGNORECASE)
# Two clauses of one sentence: "; " or ", and" / ", whereas" ... (data/clause_joiners.txt) with a
# verb on both sides (a relation cue or data/auxiliary_verbs.txt)
CLAUSE_JOIN = re.compile(
    r";|,\s*(?:" + "|".join(re.escape(w) for w in word_tuple("clause_joiners.txt")) + r")\b", re.IGNORECASE
)
_SUBJECT_PRONOUNS = word_set("subject_pronouns.txt")
_AUXILIARY = re.compile(r"\b(?:" + "|".join(word_tuple("auxiliary_verbs.txt")) + r")\b", re.IGNORECASE)
_CLAUSE_BREAK = re.compile(r"[,;:]")
# "the production of butyrate by F. prausnitzii": a nominal cue, "of" and the patient, then "by" the agent
_NOMINAL_OF = re.compile(r"\b(\w+)\s+of\s+(?:the\s+)?$", re.IGNORECASE)
_BY_ONLY = re.compile(r"\s+by\s+(?:the\s+)?", re.IGNORECASE)
_ROMAN = word_set("roman.txt")
_AMINO_ACIDS = word_set("amino_acids.txt")
_AA3_WORDS = frozenset(_AA3.split("|"))
_VARIANT_CONTEXT = word_set("variant_context.txt")
_PERSON_NOUN = re.compile(
    r",?\s+(?:is|was)\s+an?\s+(?:[\w-]+\s+){0,5}?(?:physicist|chemist|biologist|scientist|mathematician|"
    r"philosopher|writer|author|poet|novelist|painter|artist|composer|musician|singer|actor|actress|politician|"
    r"president|king|queen|emperor|general|engineer|inventor|physician|economist|historian|professor|"
    r"researcher|businessman|businesswoman|entrepreneur|architect|explorer|athlete|footballer|player|"
    r"journalist|lawyer|judge|saint|pope|priest|statesman|diplomat|astronomer|geologist|psychologist)\b",
    re.IGNORECASE,
)
# "X (born 1961)", "X ( ; born 30 July 1970)", "X (née Smith; born ...)", "X was born"
_BORN = re.compile(r"\s*(?:\([^()]{0,40}?\bborn\b|,?\s+was born\b)")
_ET_AL = re.compile(r"\s+et\s+al\b")
_GENE_CUES = word_set("gene_cues.txt")
_LOWERCASE_GENE_CUES = word_set("lowercase_gene_cues.txt")
_STUDY_NOUNS = word_set("study_nouns.txt")


# -- data ------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Token:
    start: int
    end: int  # end of ``text`` (a possessive "'s" is not part of it)
    raw_end: int  # end including a possessive
    text: str  # surface without possessive
    low: str  # lower-case surface with possessive, apostrophes normalised
    key: str  # lower-case surface without possessive
    sent: int


@dataclass(frozen=True, slots=True)
class Mention:
    start: int
    end: int
    t0: int  # first token
    t1: int  # one past the last token
    surface: str
    name: str
    types: tuple[str, ...]
    tier: int
    sent: int


@dataclass(frozen=True, slots=True)
class CueHit:
    start: int
    end: int
    cue: lx.Cue
    verbal: bool
    surface: str


@dataclass(frozen=True)
class Analysis:
    text: str
    sentences: tuple[Sentence, ...]
    clean: tuple[str, ...]  # sentences without Markdown markers, white space collapsed
    headings: tuple[bool, ...]  # sentence is a Markdown heading
    tokens: tuple[Token, ...]
    mentions: tuple[Mention, ...]  # sorted by position, non-overlapping
    cues: tuple[CueHit, ...]  # sorted by position
    cue_starts: tuple[int, ...]


@dataclass(frozen=True)
class Entity:
    name: str
    type: str
    description: str
    surface: str  # how the text writes it (for questions): the first lower-case use, else the name
    sent: int  # sentence of the first mention
    count: int  # number of mentions in the chunk
    first_start: int  # offset of the first mention
    article: bool = False  # a proper name the text writes with "the" ("the Danube")


@dataclass(frozen=True)
class Relation:
    source: Entity
    target: Entity
    keywords: tuple[str, ...]
    description: str
    sent: int
    cue: CueHit | None  # the first cue between the two mentions
    neutral: bool  # negated, or a passive without agent: ask only how they are related
    source_start: int
    target_start: int


@dataclass(frozen=True)
class Extraction:
    entities: tuple[Entity, ...]
    relations: tuple[Relation, ...]


# -- helpers ---------------------------------------------------------------------------------------


def clean_sentence(text: str) -> str:
    """A sentence without Markdown heading/bullet markers and emphasis, white space collapsed."""
    text = _MARKDOWN_LEAD.sub("", text, count=1)
    return _SPACE.sub(" ", _EMPHASIS.sub("", text)).strip()


def clip(text: str, limit: int) -> str:
    """``text`` cut at a word boundary to at most ``limit`` characters, "..." marking a cut."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 3]
    space = cut.rfind(" ")
    if space > limit // 3:
        cut = cut[:space]
    return cut.rstrip(" ,;:-") + "..."


def _resolve_type(types: tuple[str, ...], allowed: frozenset[str] | None) -> str | None:
    if allowed is None:  # no restriction (questions): the first base type
        return next((t for t in types if t in BASE_ENTITY_TYPES), types[0])
    for t in types:
        if t in allowed:
            return t
    return "concept" if "concept" in allowed else None


# -- tokenisation ----------------------------------------------------------------------------------


def _tokenize(text: str, sentences: list[Sentence]) -> list[Token]:
    starts = [s.start for s in sentences]
    tokens: list[Token] = []
    sent, last = 0, len(starts) - 1
    for m in lx.TOKEN_RE.finditer(text):
        raw = m.group()
        start, raw_end = m.start(), m.end()
        while sent < last and starts[sent + 1] <= start:
            sent += 1
        low = raw.replace("’", "'").lower()
        if len(raw) > 3 and low[-2:] == "'s":
            word, key = raw[:-2], low[:-2]
        else:
            word, key = raw, low
        tokens.append(Token(start, start + len(word), raw_end, word, low, key, sent))
    return tokens


class _Recogniser:
    """One pass over a text: candidates from every recogniser, then overlap resolution."""

    def __init__(self, text: str, sentences: list[Sentence], headings: list[bool], tokens: list[Token]):
        self.text = text
        self.sentences = sentences
        self.headings = headings
        self.tokens = tokens
        n = len(tokens)
        self.joiners = [text[tokens[i].raw_end : tokens[i + 1].start] for i in range(n - 1)]
        self.cands: list[tuple[int, int, str, tuple[str, ...], int]] = []  # t0, t1, name, types, tier
        self.caps = [_is_cap(t.text) for t in tokens]
        self.in_parens = bytearray(n)  # inside (...) : vendor names, citations, asides
        depth, k = 0, 0
        for p in _PAREN.finditer(text):
            while k < n and tokens[k].start < p.start():
                self.in_parens[k] = depth > 0
                k += 1
            depth = depth + 1 if p.group() == "(" else max(0, depth - 1)
        while k < n:
            self.in_parens[k] = depth > 0
            k += 1
        self.citation = bytearray(n)
        self.token_starts = [t.start for t in tokens]
        for m in _CITATION.finditer(text):
            for i in range(bisect_left(self.token_starts, m.start()), bisect_left(self.token_starts, m.end())):
                self.citation[i] = 1
        # A biomedical text: gene-like symbols and common nouns of organisms are trusted in it.
        self.bio = sum(1 for t in tokens if t.key in voc.BIO_CUES) >= 2
        self.definitions = _abbreviation_definitions(text, tokens, self.token_starts)
        self.title_name: str | None = None
        self._lower_words: set[str] | None = None
        self.defined_abbr = {d[2] for d in self.definitions}
        self._sentence_words: defaultdict[int, set[str]] | None = None

    # joiners -------------------------------------------------------------------------------------
    def linked(self, i: int) -> bool:
        """Tokens i and i+1 may belong to one name (same sentence, joined by space, '-' or '/')."""
        toks = self.tokens
        if toks[i].sent != toks[i + 1].sent:
            return False
        j = self.joiners[i]
        if not j or j.isspace():
            return len(j) <= 3
        if j in ("-", "/", "–"):
            return True
        return j.strip() == "." and len(toks[i].text) == 1 and toks[i].text.isupper() and len(j) <= 2

    def spaced(self, i: int) -> bool:
        """Tokens i and i+1 are separate words in one sentence (white space only between them)."""
        j = self.joiners[i]
        return bool(j) and j.isspace() and len(j) <= 2 and self.tokens[i].sent == self.tokens[i + 1].sent

    def hyphen_after(self, i: int) -> bool:
        return i + 1 < len(self.tokens) and self.joiners[i] == "-"

    def hyphen_before(self, i: int) -> bool:
        return i > 0 and self.joiners[i - 1] == "-"

    def clause_start(self, i: int) -> bool:
        toks = self.tokens
        if i == 0 or toks[i - 1].sent != toks[i].sent:
            return True
        j = self.joiners[i - 1]
        return any(c in j for c in ':;("“[•\n') or j.strip() in ("-", "*", "—")

    def add(self, t0: int, t1: int, name: str, types: tuple[str, ...], tier: int) -> None:
        if name:
            self.cands.append((t0, t1, name, types, tier))

    def span_tokens(self, start: int, end: int) -> tuple[int, int]:
        """Token range [t0, t1) of the tokens inside the character span."""
        return bisect_left(self.token_starts, start), bisect_left(self.token_starts, end)

    # recognisers ---------------------------------------------------------------------------------
    def gazetteer(self) -> None:
        toks, n = self.tokens, len(self.tokens)
        first, exact_first = lx.GAZETTEER_FIRST, lx.GAZETTEER_EXACT_FIRST
        for i in range(n):
            tok = toks[i]
            ci = tok.low in first or tok.key in first
            cs = tok.text in exact_first or tok.key in exact_first or tok.text.replace("’", "'") in exact_first
            if not (ci or cs):
                continue
            best: tuple[int, lx.GazetteerEntry] | None = None
            prefix_ci, prefix_cs = "", ""
            for j in range(i, min(n, i + lx.GAZETTEER_MAX_TOKENS)):
                if j > i and not self.linked(j - 1):
                    break
                t = toks[j]
                key_ci = prefix_ci + t.key
                key_cs = prefix_cs + t.text.replace("’", "'")
                entry = lx.GAZETTEER.get(key_ci) if ci else None
                if (
                    entry is None
                    and ci
                    and key_ci.endswith("s")
                    and len(t.key) > 3
                    and not key_ci.endswith(("ss", "us", "is"))
                ):
                    entry = lx.GAZETTEER.get(key_ci[:-1])
                if entry is None and cs:
                    entry = lx.GAZETTEER_EXACT.get(key_cs)
                if entry is not None and not (entry.bio_only and not self.bio):
                    best = (j + 1, entry)
                prefix_ci += t.low + " "
                prefix_cs += t.text.replace("’", "'") + ("'s " if t.raw_end > t.end else " ")
            if best is not None:
                before = toks[i - 1] if i > 0 and self.joiners[i - 1] == "-" else None
                if before is not None and (before.key in _GREEK_WORDS or before.text in _GREEK_WORDS):
                    # "beta-Klotho" is no Klotho (a Greek letter tells siblings apart, as in
                    # dedup): the name with its letter, unless the gazetteer lists that form
                    self.add(i - 1, best[0], f"{before.text}-{toks[i].text}", best[1].types, 0)
                else:
                    self.add(i, best[0], best[1].name, best[1].types, 0)

    def patterns(self) -> None:
        toks, n, text = self.tokens, len(self.tokens), self.text
        binomials: dict[tuple[str, str], tuple[str, tuple[str, ...]]] = {}
        abbreviated: list[int] = []
        for i in range(n):
            tok = toks[i]
            w = tok.text
            nxt = toks[i + 1] if i + 1 < n else None
            # gene/protein symbols --------------------------------------------------------------
            if (  # "C/EBPbeta", "C/EBPα": one letter and a symbol joined by a slash are one name
                self.bio
                and nxt is not None
                and self.joiners[i] == "/"
                and len(w) == 1
                and w.isupper()
                and nxt.text.isalpha()  # not a strain: "influenza A/H1N1"
                and (_is_symbol(nxt.text.rstrip("αβγδεκ"), True) or _GREEK_SYMBOL.match(nxt.text))
                and (i == 0 or self.joiners[i - 1] not in ("/", "-"))
            ):
                self.add(i, i + 2, f"{w}/{nxt.text}", ("protein", "gene"), 1)
            elif (
                self.bio
                and nxt is not None
                and self.joiners[i] == "-"
                and _SYMBOL_HEAD.match(w)
                and sum(c.isupper() for c in w) >= 2
                and _SYMBOL_TAIL.match(nxt.text)
                and w.upper() not in lx.ACRONYM_STOP
                and tok.sent == nxt.sent
            ):
                symbol = f"{w}-{nxt.text}"
                self.add(i, i + 2, lx.display_name(symbol), _symbol_types(w), 1)
            elif _is_symbol(w, self.bio) and not (
                nxt is not None and self.joiners[i] == "/" and nxt.text[:1].isdigit()
            ):
                symbol = w.upper() if _MOUSE_SYMBOL.match(w) else w
                self.add(i, i + 1, lx.display_name(symbol), _symbol_types(symbol), 1)
            elif (  # "the secreted protein P9", "another protein, P9, ...": a short symbol a kind noun names
                self.bio
                and _SHORT_SYMBOL.match(w)
                and i > 0
                and toks[i - 1].key in _GENE_CUES
                and toks[i - 1].sent == tok.sent
                and self.joiners[i - 1].strip() in ("", ",")
            ):
                self.add(i, i + 1, w, _symbol_types(w), 1)
            elif (
                self.bio
                and nxt is not None
                and self.joiners[i] == "-"
                and _LOWERCASE_GENE_HEAD.match(w)
                and nxt.text.isdigit()
                and len(nxt.text) <= 3
                and tok.sent == nxt.sent
                and w not in lx.STOPWORDS
                and self.sentence_words(tok.sent) & _LOWERCASE_GENE_CUES
            ):
                self.add(i, i + 2, f"{w}-{nxt.text}", ("gene",), 1)
            elif self.bio and _GREEK_SYMBOL.match(w) and w not in lx.SYMBOL_STOP:
                self.add(i, i + 1, w, ("protein", "gene"), 1)
            elif (
                w.isupper()
                and w.isalpha()
                and 3 <= len(w) <= 8
                and w not in lx.ACRONYM_STOP
                and nxt is not None
                and nxt.key in _GENE_CUES
                and self.spaced(i)
            ):
                self.add(i, i + 1, w, _symbol_types(w), 1)
            elif (
                w.isupper()
                and w.isalpha()
                and len(w) >= 3
                and w not in lx.ACRONYM_STOP
                and nxt is not None
                and nxt.key in _STUDY_NOUNS
                and self.spaced(i)
                and not self._shouted(i)
            ):
                self.add(i, i + 1, w, ("concept",), 3)  # a study's name: "the ELDERMET study", "the PLACIDE trial"
            elif (
                self.bio
                and w.isupper()
                and w.isalpha()
                and 3 <= len(w) <= 6
                and w not in lx.ACRONYM_STOP
                and w not in self.defined_abbr
                and not self.in_parens[i]
                and not self.citation[i]
                and w.lower() not in lx.STOPWORDS
                and w.lower() not in lx.COMMON_CAPITALISED
                and not self._shouted(i)
            ):
                self.add(i, i + 1, w, _symbol_types(w), 3)  # an undefined all-caps word in biomedical text
            # "caspase-3", "interleukin-6", "lamin B1", "cyclin D1": a protein family's name and the
            # number or capital letter of one member
            member = nxt is not None and (
                nxt.text.isdigit()
                and len(nxt.text) <= 2
                and (self.joiners[i] == "-" or self.joiners[i] == " " and tok.key.endswith(("ase", "leukin")))
                or _MEMBER_LETTER.match(nxt.text)
                and self.joiners[i] == " "
            )
            if (
                self.bio
                and member
                and tok.key.endswith(_NUMBERED_PROTEIN)
                and tok.key not in _NOT_NUMBERED
                and len(tok.key) >= 5
                and tok.sent == nxt.sent
                and tok.text.isalpha()
                and tok.key not in lx.STOPWORDS
            ):
                self.add(i, i + 2, lx.display_name(text[tok.start : nxt.end]), ("protein", "gene"), 1)
            # binomials and abbreviated binomials -----------------------------------------------
            # "the plant Galega officinalis": after an organism noun, a genus of any ending
            kind = i > 0 and self.spaced(i - 1) and _singular(toks[i - 1].key) in voc.ORGANISM_NOUNS
            if (
                nxt is not None
                and _GENUS.match(w)
                and _LOWER_WORD.match(nxt.text)
                and self.spaced(i)
                and nxt.raw_end == nxt.end
                and _is_binomial(w, nxt.text, kind)
            ):
                types = ("organism", "microbe") if w in lx.ORGANISM_GENERA or kind else ("microbe", "organism")
                name = lx.display_name(f"{w} {nxt.text}")
                binomials.setdefault((w[0].lower(), nxt.text), (name, types))
                self.add(i, i + 2, name, types, 1)
            elif (
                nxt is not None
                and len(w) == 1
                and w.isupper()
                and self.joiners[i] in (". ", ".")
                and _LOWER_WORD.match(nxt.text)
                and tok.sent == nxt.sent
            ):
                abbreviated.append(i)
            # vitamins --------------------------------------------------------------------------
            if tok.key == "vitamin" and nxt is not None and _VITAMIN.match(nxt.text) and self.spaced(i):
                self.add(i, i + 2, lx.display_name(f"vitamin {nxt.text}"), ("compound",), 1)
            # "<name> acid" ---------------------------------------------------------------------------
            if tok.key in ("acid", "acids") and i > 0 and self.linked(i - 1):
                self._acid(i)
            # people ------------------------------------------------------------------------------
            if w in lx.PERSON_TITLES and nxt is not None and _is_cap(nxt.text):
                j = i + 1
                while j + 1 < n and j - i < 3 and self.spaced(j) and _is_cap(toks[j + 1].text):
                    j += 1
                if self.joiners[i].strip() in ("", "."):
                    self.add(i + 1, j + 1, lx.display_name(text[nxt.start : toks[j].end]), ("person",), 1)
            if self.caps[i] and not self.hyphen_after(i) and _ET_AL.match(text, tok.raw_end) and not self.citation[i]:
                self.add(i, i + 1, lx.display_name(w), ("person",), 1)
            # compounds and diseases by word formation ------------------------------------------------
            if _WORD.match(w) and not self.hyphen_after(i):
                self._suffix(i)
            # "X-induced": X is given, a compound
            if (
                self.bio
                and nxt is not None
                and self.joiners[i] == "-"
                and nxt.key in _INDUCED
                and tok.key not in _NOT_INDUCERS
                and (tok.text.isalpha() or _is_symbol(w, True))
                and len(w) >= 3
                and not self.hyphen_before(i)
            ):
                self.add(i, i + 1, lx.display_name(w), ("compound",), 2)
            # "treated with X", "doses of X": X is a compound
            if self.bio and tok.key in _DRUG_CONTEXT_LAST and nxt is not None and self.spaced(i):
                self._drug_context(i)
            # "<modifier> disease", "<modifier> cells", "<modifier> receptor" -------------------------------
            head = lx.DISEASE_HEADS.get(tok.key)
            if head is not None and i > 0:
                self._modified_phrase(i, head, ("disease", "phenotype"))
            elif tok.key in ("cells", "cell") and i > 0:
                self._cell_phrase(i)
            elif tok.key in voc.PROTEIN_HEADS and i > 0 and self.bio:
                self._protein_phrase(i)
            # "hypertension", "hypoglycaemia": hyper-/hypo- words
            if (
                w.islower()
                and tok.key.startswith(("hyper", "hypo"))
                and len(tok.key) >= 9
                and tok.text.isalpha()
                and not tok.key.startswith(_NOT_HYPER)
                and not tok.key.endswith(("ed", "ate", "ates", "ating", "ing"))  # "hypermethylated"
            ):
                self.add(i, i + 1, lx.display_name(w), ("disease", "phenotype"), 2)
        for i in abbreviated:
            key = (toks[i].key, toks[i + 1].text)
            found = binomials.get(key)
            if found is not None:
                self.add(i, i + 2, found[0], found[1], 1)
            else:
                entry = lx.SPECIES_INDEX.get(key)
                if entry is not None:
                    self.add(i, i + 2, entry.name, entry.types, 1)
        if self.bio:
            self._regex_patterns()

    def _shouted(self, i: int) -> bool:
        """Token i is part of an upper-case heading ("METHODS AND RESULTS:") rather than a symbol."""
        toks, text = self.tokens, self.text
        if text[toks[i].raw_end : toks[i].raw_end + 1] == ":":
            return True
        for k in (i - 1, i + 1):
            if (
                0 <= k < len(toks)
                and toks[k].sent == toks[i].sent
                and toks[k].text.isupper()
                and toks[k].text.isalpha()
                and len(toks[k].text) >= 3
                and (self.spaced(min(i, k)))
            ):
                return True
        return False

    def _suffix(self, i: int) -> None:
        """Compounds and diseases by their endings: drug-name stems (WHO INN: -statin, -mycin,
        -tinib ...) also capitalised at a clause start, weaker chemical endings only in lower case."""
        tok = self.tokens[i]
        w, key = tok.text, tok.key
        lower = w[0].islower()
        initial = not lower and self.clause_start(i) and w[1:].islower()
        if not (lower or initial):
            return
        if key in lx.COMPOUND_STOP or key in lx.DISEASE_STOP or key in lx.STOPWORDS:
            return
        if key.endswith(lx.STRONG_COMPOUND_SUFFIXES):
            self.add(i, i + 1, lx.display_name(w), ("compound",), 2)
        elif key.endswith(lx.DISEASE_SUFFIXES) and (lower or key.endswith(lx.STRONG_DISEASE_SUFFIXES)):
            self.add(i, i + 1, lx.display_name(w), ("disease", "phenotype"), 2)
        elif lower and self.bio and key.endswith(lx.WEAK_COMPOUND_SUFFIXES):
            for suffix in lx.WEAK_COMPOUND_SUFFIXES:
                if key.endswith(suffix):
                    if len(key) >= lx.WEAK_SUFFIX_MIN.get(suffix, 6) and not key.endswith(_NOT_CHEMICAL_ENDINGS):
                        self.add(i, i + 1, lx.display_name(w), ("compound",), 3)
                    break

    def _acid(self, h: int) -> None:
        """ "valproic acid", "alpha-lipoic acid", "uric acids": an -ic/-ous word (and what is
        hyphenated to it) before "acid"."""
        toks = self.tokens
        prev = toks[h - 1]
        if (
            not (prev.text.isalpha() and prev.key.endswith(("ic", "ous")) and len(prev.key) >= 4)
            or prev.key in lx.STOPWORDS
        ):
            return
        j = h - 1
        while (
            j > 0
            and h - j < 4
            and self.joiners[j - 1] == "-"
            and toks[j - 1].sent == prev.sent
            and toks[j - 1].text.isalnum()
        ):
            j -= 1
        self.add(j, h + 1, lx.display_name(self.text[toks[j].start : toks[h].end]), ("compound",), 1)

    def _drug_context(self, i: int) -> None:
        """The word after "treated with", "administration of", "doses of" ... is a compound when it
        looks like a chemical name (a lower-case word of some length, or a symbol)."""
        toks, text = self.tokens, self.text
        before = text[max(0, toks[i].start - 20) : toks[i].end].lower()
        if not before.endswith(voc.DRUG_CONTEXT_BEFORE):
            return
        j = i + 1
        if j < len(toks) and toks[j].key in ("the", "a", "an"):
            j += 1
        if j >= len(toks) or toks[j].sent != toks[i].sent:
            return
        t = toks[j]
        w = t.text
        if (
            t.key in lx.STOPWORDS
            or t.key in lx.COMMON_CAPITALISED
            or t.key in _NOT_DRUGS
            or t.key.endswith(_NOT_CHEMICAL_ENDINGS)
        ):
            return
        if (w.islower() and w.isalpha() and len(w) >= 6) or (w.isupper() and 3 <= len(w) <= 6):
            if j + 1 < len(toks) and self.hyphen_after(j):
                return
            self.add(j, j + 1, lx.display_name(w), ("compound",), 2)

    def _regex_patterns(self) -> None:
        """Sequence variants (rs IDs, HGVS, protein changes) and ions, found on the raw text."""
        # a variant is a change in a gene, not a gene: a concept (linked to its gene by co-occurrence)
        for regex, types in ((_VARIANT, ("concept",)), (_ION, ("compound",))):
            for m in regex.finditer(self.text):
                t0, t1 = self.span_tokens(m.start(), m.end())
                if t1 > t0:
                    name = self.text[self.tokens[t0].start : self.tokens[t1 - 1].end]
                    self.add(t0, t1, name, types, 1)

    def _modified_phrase(self, h: int, head: str, types: tuple[str, ...]) -> None:
        """ "chronic kidney disease", "age-related diseases" -> up to three modifiers before a head."""
        toks = self.tokens
        j = h  # the phrase starts at token j
        while j > 0 and h - j < 3 and self.linked(j - 1) and self.joiners[j - 1] != "/":
            prev = toks[j - 1]
            if prev.key in lx.STOPWORDS or prev.key in lx.NON_MODIFIERS or not prev.text.isalpha():
                break
            in_compound = self.joiners[j - 1] == "-" or (
                j >= 2 and self.joiners[j - 2] == "-" and toks[j - 2].sent == prev.sent
            )
            if not (in_compound or _is_modifier(prev)):
                break
            if prev.key in _INDUCED and self.joiners[j - 2 : j - 1] == ["-"]:
                break  # "isoproterenol-induced myocardial infarction": the disease is what was induced
            j -= 1
        if j == h:
            return
        if (
            h + 1 < len(toks)
            and toks[h + 1].key == "of"
            and self.spaced(h)
            and head in ("loss", "damage", "failure", "defect", "defects")
        ):
            return  # "loss of function"
        surface = self.text[toks[j].start : toks[h].end]
        self.add(j, h + 1, lx.display_name(surface), types, 2)

    def _cell_phrase(self, h: int) -> None:
        prev = self.tokens[h - 1]
        if not self.spaced(h - 1) or prev.key in lx.STOPWORDS or prev.key in lx.NON_MODIFIERS:
            return
        # a cell line: "HEK293 cells", "MCF-7 cells", "HeLa cells"
        start = h - 1
        while start > 0 and self.joiners[start - 1] in ("-", "/") and self.tokens[start - 1].sent == prev.sent:
            start -= 1
        surface = self.text[self.tokens[start].start : prev.end]
        if (
            len(surface) >= 3
            and any(c.isdigit() for c in surface) + sum(c.isupper() for c in surface) >= 2
            and surface[0].isalnum()
            and not surface.isdigit()
            and " " not in surface
        ):
            self.add(start, h, surface, ("cell_type",), 0)
            return
        if (
            prev.key in lx.CELL_MODIFIERS
            or (len(prev.text) <= 2 and prev.text.isupper())
            or (prev.key.endswith(lx.ADJECTIVE_SUFFIXES) and prev.text.isalpha() and len(prev.key) > 4)
        ):
            start = h - 1
            if h >= 2 and self.joiners[h - 2] == "-" and self.tokens[h - 2].sent == prev.sent:
                start = h - 2
            self.add(
                start,
                h + 1,
                lx.display_name(self.text[self.tokens[start].start : prev.end] + " cells"),
                ("cell_type",),
                2,
            )

    def _named_head_phrase(self, h: int) -> bool:
        """ "fibroblast growth factor 23", "nerve growth factor", "transforming growth factor beta":
        a head of ``data/protein_name_heads.txt`` ending at token h, after one to three specific
        words (not an article, a quantifier or a generic modifier), with a number or a Greek
        letter after it if one follows. Whether such a phrase was found."""
        toks = self.tokens
        for head in _NAMED_HEADS:
            start = h - len(head) + 1
            if start < 1 or [t.key for t in toks[start : h + 1]] != list(head):
                continue
            if not all(self.linked(k) for k in range(start, h)):
                continue
            j = start
            while j > 0 and start - j < 3 and self.linked(j - 1) and self.joiners[j - 1] != "/":
                prev = toks[j - 1]
                if (
                    not prev.text.isalpha()
                    or not prev.text[1:].islower()  # "FXR induces ...": a symbol is no modifier
                    or prev.key in lx.STOPWORDS
                    or prev.key in voc.PROTEIN_HEAD_STOP
                    or prev.key in lx.NON_MODIFIERS
                    or prev.key.endswith("ly")
                ):
                    break
                # past the word next to the head only adjectives or hyphenated parts ("vascular
                # endothelial", "platelet-derived"), so a verb is not taken in ("X induces ...")
                if j < start and self.joiners[j - 1] != "-" and not prev.key.endswith(lx.ADJECTIVE_SUFFIXES):
                    break
                if _verb_cue(prev.text):  # "cells secrete growth factors"
                    break
                j -= 1
            if j == start:
                return False
            end = h + 1
            if end < len(toks) and self.linked(h):
                after = toks[end]
                if after.text.isdigit() or after.key in _GREEK_WORDS or after.text in _GREEK_WORDS:
                    end += 1
            surface = self.text[toks[j].start : toks[end - 1].end]
            self.add(j, end, lx.display_name(surface), ("protein", "gene"), 2)
            return True
        return False

    def _protein_phrase(self, h: int) -> None:
        """ "androgen receptor", "serotonin transporter", "thymidylate synthase", "NADPH oxidase":
        a protein head after one to three modifiers, one of which looks chemical or is a symbol."""
        toks = self.tokens
        if self._named_head_phrase(h):
            return
        j, chemical = h, False
        while j > 0 and h - j < 3 and self.linked(j - 1) and self.joiners[j - 1] != "/":
            prev = toks[j - 1]
            if prev.key == "like" and j >= 2 and self.joiners[j - 2] == "-" and toks[j - 2].text.isalnum():
                # "Toll-like receptor", "NOD-like receptor": a family named after its first member
                chemical, j = True, j - 2
                continue
            if (
                prev.key in lx.STOPWORDS
                or prev.key in voc.PROTEIN_HEAD_STOP
                or prev.key in lx.NON_MODIFIERS
                or prev.key.endswith(("ly", "ed", "ing"))
                or prev.text.isdigit()
            ):
                break
            if (
                prev.key.endswith(_CHEMICAL_MODIFIER)
                or prev.text.isupper()
                and len(prev.text) >= 2
                or any(c.isdigit() for c in prev.text)
                and any(c.isalpha() for c in prev.text)
            ):
                chemical = True
            elif not (prev.text.isalpha() and (prev.key.endswith(lx.ADJECTIVE_SUFFIXES) or self.joiners[j - 1] == "-")):
                break
            j -= 1
        if j == h or not chemical:
            return
        end = h + 1
        if end < len(toks) and self.linked(h) and self.joiners[h] == " " and toks[end].text.isdigit():
            end += 1  # "Toll-like receptor 2": the member's number
        surface = self.text[toks[j].start : toks[end - 1].end]
        self.add(j, end, lx.display_name(surface), ("protein", "gene"), 2)

    def capitalised(self) -> None:
        toks, n, text = self.tokens, len(self.tokens), self.text
        title_like = self._title_like_sentences()
        caps = self.caps
        mid_caps = {toks[i].text for i in range(n) if caps[i] and not self.clause_start(i)}
        i = 0
        while i < n:
            tok = toks[i]
            lead = self._leading_initials(i)  # "J. R. R. Tolkien": the name starts with initials
            if (
                (not caps[i] and lead is None)
                or self.citation[i]
                or self.headings[tok.sent]
                or tok.sent in title_like
                or self.hyphen_after(i)
                or self.hyphen_before(i)
            ):
                i += 1
                continue
            j = i if lead is None else lead
            while j + 1 < n and tok.sent == toks[j + 1].sent and toks[j].raw_end == toks[j].end:
                nxt = toks[j + 1]
                if self.spaced(j) and caps[j + 1] and not self.hyphen_after(j + 1):
                    j += 1
                elif self.joiners[j] == "–" and caps[j + 1] and not self.hyphen_after(j + 1):
                    j += 1  # an en dash joins a name's parts: "Glass–Steagall Act", "Anheuser–Busch InBev"
                elif (
                    self.spaced(j)
                    and nxt.key in lx.NAME_PARTICLES
                    and j + 2 < n
                    and self.spaced(j + 1)
                    and caps[j + 2]
                    and not self.hyphen_after(j + 2)
                ):
                    j += 2
                elif _initial_follows(self, j):
                    # "Robert A. Stemmle", "J. R. R. Tolkien": initials belong to the name
                    k = j + 1
                    while (
                        k + 1 < n
                        and len(toks[k].text) == 1
                        and self.joiners[k].strip() == "."
                        and len(self.joiners[k]) <= 2
                        and toks[k + 1].sent == tok.sent
                        and (caps[k + 1] or len(toks[k + 1].text) == 1)
                    ):
                        k += 1
                    if caps[k] and k > j + 1:
                        j = k
                    else:
                        break
                else:
                    break
            if j + 1 < n and self.spaced(j) and toks[j + 1].text in _ROMAN and toks[j + 1].sent == tok.sent:
                j += 1  # "World War I", "Henry VIII"
            start, end = i, j
            at_start = self.clause_start(i)
            while start <= end and (
                toks[start].key in lx.STOPWORDS
                and toks[start].key != "new"
                or toks[start].key in lx.COMMON_CAPITALISED
                or toks[start].text in lx.PERSON_TITLES
            ):
                start += 1
            while end >= start and (toks[end].key in lx.NAME_PARTICLES or toks[end].key in lx.COMMON_CAPITALISED):
                end -= 1
            role_end = self._role_before_name(start, end)
            if role_end is not None:
                start = role_end + 1  # "Premier Jay Weatherill", "Incumbent U.S. Senator Orrin Hatch"
            if start <= end:
                words = [toks[k].text for k in range(start, end + 1)]
                first, last = words[0], words[-1]
                types, tier = self._name_type(start, end, words)
                if role_end is not None:
                    types, tier = ("person",), 2
                keep = True
                if at_start and start == i and tier == 3:
                    keep = end > start or first in mid_caps
                if len(words) == 1 and (len(first) < 3 or first.lower() in lx.STOPWORDS or first in lx.DEMONYMS):
                    keep = False
                if tier == 3 and self.in_parens[start]:
                    keep = False
                if tier == 3 and (last in lx.DEMONYMS or len(words) == 1 and self._common_word(first)):
                    keep = False  # "South Korean", "Records", "Life": no name
                if keep:
                    surface = text[toks[start].start : toks[end].end]
                    self.add(start, end + 1, lx.display_name(surface), types, tier)
            i = j + 1

    def quoted_titles(self) -> None:
        """A title in quotation marks ("House of 1000 Corpses", "What Women Want") is one name, a
        work's (``concept``, or an organisation's or place's by its words: "The Daily Telegraph"):
        the capitalised words inside it are no names of their own ("Corpses", "Women Want"). Only a
        quote written as a title (two to ten words, the first and the last capitalised or a number,
        every other content word too) in which a part was taken for a name."""
        toks, text = self.tokens, self.text
        for m in _QUOTED.finditer(text):
            q0, q1 = m.start(m.lastindex or 1), m.end(m.lastindex or 1)
            t0, t1 = self.span_tokens(q0, q1)
            if not 2 <= t1 - t0 <= 10 or toks[t0].sent != toks[t1 - 1].sent or self.headings[toks[t0].sent]:
                continue
            words = [toks[k] for k in range(t0, t1)]
            if not all(w.text[:1].isupper() or w.text[:1].isdigit() for w in (words[0], words[-1])):
                continue
            if any(w.text[:1].islower() and w.key not in lx.STOPWORDS for w in words):
                continue
            if not any(self.caps[k] for k in range(t0, t1)) or text[toks[t1 - 1].end : q1].strip(" .,!?") != "":
                continue
            inside = [c for c in self.cands if t0 <= c[0] and c[1] <= t1 and c[4] >= 2 and (c[0], c[1]) != (t0, t1)]
            if not inside:
                continue  # only where a part of the title was taken for a name
            last = words[-1].text  # typed by its last word only: "The Daily Telegraph", not "House of ..."
            types = (
                ("organization",)
                if last in lx.ORG_WORDS
                else ("location",)
                if last in lx.LOCATION_LAST
                else ("concept",)
            )
            self.add(t0, t1, lx.display_name(text[toks[t0].start : toks[t1 - 1].end]), types, 2)

    def _role_before_name(self, start: int, end: int) -> int | None:
        """The index of a capitalised role or title ("Premier", "Senator", "Justice" is none) that
        begins or sits inside a capitalised run and is followed by a personal name of two or three
        capitalised words: "Premier Jay Weatherill" is the person Jay Weatherill."""
        toks = self.tokens
        for k in range(start, end - 1):
            if end - k not in (2, 3):
                continue
            if not (toks[k].key in voc.PERSON_NOUNS or toks[k].text in lx.PERSON_TITLES):
                continue
            rest = [toks[x].text for x in range(k + 1, end + 1)]
            if not all(_is_cap(w) or len(w) == 1 for w in rest) or len(rest[-1]) < 2:
                continue
            if any(w in lx.ORG_WORDS or w in lx.LOCATION_LAST or w.lower() in voc.PERSON_NOUNS for w in rest):
                continue
            if any(self._common_word(w) for w in rest):
                continue
            return k
        return None

    def _leading_initials(self, i: int) -> int | None:
        """If tokens from i are initials ("J. R. R.") followed by a capitalised word, that word's index."""
        toks, n = self.tokens, len(self.tokens)
        k = i
        while (
            k + 1 < n
            and len(toks[k].text) == 1
            and toks[k].text.isupper()
            and self.joiners[k] in (". ", ".")
            and toks[k + 1].sent == toks[i].sent
        ):
            k += 1
        if k == i or not self.caps[k] or not (k > i + 1 or (k == i + 1 and self.joiners[i] == ". ")):
            return None
        return k

    def _name_type(self, start: int, end: int, words: list[str]) -> tuple[tuple[str, ...], int]:
        """The type of a capitalised name from its own words and what the text says around it."""
        toks, text = self.tokens, self.text
        first, last = words[0], words[-1]
        after = toks[end].raw_end
        if len(words) == 1 and (first in lx.ORG_WORDS or first in lx.LOCATION_LAST or first in lx.LOCATION_FIRST):
            return ("concept",), 3  # "Records", "Park" alone name nothing (dropped as common words)
        dashes = [k for k in range(start, end) if self.joiners[k] == "–"]
        if dashes:  # "Dallas–Fort Worth": places joined are a place; "Lutheran Church–Missouri Synod"
            parts, lo = [], start
            for k in [*dashes, end]:
                parts.append([toks[x].text for x in range(lo, k + 1)])
                lo = k + 1
            kinds = [
                ("location",) if _known_place(" ".join(p)) else self._name_type(p0, p0 + len(p) - 1, p)[0]
                for p0, p in zip([start, *[d + 1 for d in dashes]], parts)
            ]
            if all(k == ("location",) for k in kinds):
                return ("location",), 2
            if kinds[0] == ("organization",):
                return ("organization",), 2
        if last in lx.ORG_WORDS or first in lx.ORG_FIRST:
            return ("organization",), 2
        if last in lx.LOCATION_LAST or first in lx.LOCATION_FIRST:
            return ("location",), 2
        for k in range(1, len(words) - 2):  # "Whitney Museum of American Art", "Bay of Biscay"
            if words[k + 1] == "of" and _singular(words[k]) in lx.ORG_WORDS:
                return ("organization",), 2
            if words[k + 1] == "of" and _singular(words[k]) in lx.LOCATION_LAST:
                return ("location",), 2
        if len(words) >= 2 and first in _DIRECTIONS and _known_place(" ".join(words[1:])):
            return ("location",), 2  # "Southern United States", "North Wales"
        if _BORN.match(text, after) or _LIFE_DATES.match(text, after):
            return ("person",), 2
        # an apposition types a name, but not one word at a clause start ("Historically, the
        # region ...") nor an "X of Y" name (it may describe Y: "Presidency of Shimon Peres, the
        # ninth President")
        apposition = "of" not in words and (len(words) > 1 or not self.clause_start(start))
        head = _definition_head(text, after, apposition=apposition)
        if head is not None:
            return head, 2
        if len(words) >= 2 and len(first) == 1 and _is_cap(last):
            return ("person",), 2  # "J. R. R. Tolkien", "T. S. Eliot"
        if (
            2 <= len(words) <= 3
            and all(_is_cap(w) for w in words)
            and not any(
                _singular(w).lower() in lx.ORG_WORDS | voc.ORGANIZATION_NOUNS or w in lx.LOCATION_LAST for w in words
            )
            and _LED_BY.search(text, max(0, toks[start].start - 20), toks[start].start)
        ):
            return ("person",), 2  # "a team led by Nir Barzilai"
        if (
            len(words) >= 2
            and first in voc.GIVEN_NAMES
            and not any(w in lx.ORG_WORDS for w in words)
            and all(_is_cap(w) or len(w) == 1 or w.lower() in lx.NAME_PARTICLES for w in words)
        ):
            return ("person",), 2
        if start > 0 and self.spaced(start - 1) and toks[start - 1].text.islower():
            # "the band Metallica", "the city of Adelaide", "the counties of Kauai, Maui ...",
            # "actors Bale and Caine", "guitarist Slash"
            noun = toks[start - 1].key
            of = noun == "of" and start > 1 and self.spaced(start - 2)
            if of:
                noun = toks[start - 2].key
            noun = _singular(noun)
            if noun in voc.ORGANIZATION_NOUNS:
                return ("organization",), 2
            if noun in voc.LOCATION_NOUNS:
                return ("location",), 2
            if not of and noun in voc.PERSON_NOUNS and len(words) <= 4:
                return ("person",), 2
            if not of and noun in voc.ORGANISM_NOUNS:
                return ("organism",), 2  # "the marsh flower Cotula coronopifolia"
        if len(words) == 1 and first in voc.GIVEN_NAMES and not self.clause_start(start):
            return ("person",), 2  # "David" after "David Bowie", or a first name alone
        if len(words) >= 2 and last.endswith("s") and len(last) > 4 and _known_place(" ".join(words[:-1])):
            return ("organization",), 2  # a team: "Chicago Bulls", "New York Yankees"
        before = text[max(0, toks[start].start - 40) : toks[start].start]
        if 2 <= len(words) <= 4 and (
            _BY_PERSON.search(before)
            or start > 0
            and toks[start - 1].key in voc.PERSON_NOUNS
            and self.spaced(start - 1)
        ):
            return ("person",), 2
        if _BORN_IN.search(before) or _IN_PLACE.search(before) and _place_after(text, after):
            return ("location",), 2
        if _TEAM_BEFORE.search(before) or _BY_ORGANIZATION.search(before):
            return ("organization",), 2  # "played for the Tampa Bay Buccaneers", "published by Codemasters"
        noun = self._noun_after(start, end, words)  # "the Fox network", "the Hudson river"
        if noun in voc.ORGANIZATION_NOUNS and noun not in _NOUNS_OF_WORKS_TOO:
            return ("organization",), 2
        if noun in voc.LOCATION_NOUNS:
            return ("location",), 2
        if (
            2 <= len(words) <= 4
            and toks[start].sent + 1 < len(self.sentences)
            and start == bisect_left(self.token_starts, self.sentences[toks[start].sent].start)
            and all(_is_cap(w) for w in words)
            and self._pronoun_after(toks[start].sent) in ("he", "she")
        ):
            return ("person",), 2  # a sentence's subject that the text goes on about as "he"/"she"
        if (
            len(words) <= 4
            and "of" not in words
            and not (start > 0 and toks[start - 1].key == "of")  # "the king of Powys who ..."
            and not (last.endswith("s") and start > 0 and toks[start - 1].key == "the")  # "the Beatles, who"
            and _singular(last) not in lx.DEMONYMS  # "Bengali Muslims, who"
            and last.lower() not in voc.PERSON_NOUNS  # a role: "as Deputy Prime Minister, who"
            and (_WHO_AFTER.match(text, after) or _RESEARCHER_AFTER.match(text, after) or self._person_verb_after(end))
        ):
            return ("person",), 2  # "Tostig, who ...", "Chet Atkins said ...", "McCay and colleagues"
        return ("concept",), 3

    def _pronoun_after(self, sent: int) -> str | None:
        """The personal pronoun that the first of the next three sentences starting with one starts
        with ("he", "she", "it", "they"), after sentence ``sent``."""
        toks, starts = self.tokens, self.token_starts
        for s in range(sent + 1, min(sent + 4, len(self.sentences))):
            k = bisect_left(starts, self.sentences[s].start)
            if k < len(toks) and toks[k].sent == s and toks[k].key in _PRONOUNS:
                return _PRONOUNS[toks[k].key]
        return None

    def _name_shaped_title(self) -> bool:
        """The title is written as a name (see ``_name_shaped``) of two to four words."""
        if not self.sentences or not self.headings[0]:
            return False
        t0, t1 = self.span_tokens(self.sentences[0].start, self.sentences[0].end)
        return 2 <= t1 - t0 <= 4 and self._name_shaped(t0, t1)

    def _noun_after(self, start: int, end: int, words: list[str]) -> str | None:
        """The noun a name is the name of: "the Fox network", "the Hudson river" (after "the", the
        noun ending the phrase). Not a name used as a modifier: "a Springfield newspaper", "the
        Mandarin studio album", nor a nationality or common word ("the North American airport")."""
        toks = self.tokens
        k = end + 1
        if (
            start == 0
            or toks[start - 1].key != "the"
            or k >= len(toks)
            or not self.spaced(end)
            or toks[end].raw_end != toks[end].end
            or not toks[k].text.islower()
            or words[-1] in lx.DEMONYMS
            or len(words) == 1
            and self._common_word(words[0])
        ):
            return None
        if k + 1 < len(toks) and self.spaced(k) and toks[k + 1].key not in lx.STOPWORDS:
            return None  # the phrase goes on: "the Mandarin studio album"
        return toks[k].key

    def _person_verb_after(self, end: int) -> bool:
        """A verb only people do follows the name ("Caine said", "Tostig married")."""
        toks = self.tokens
        k = end + 1
        if k >= len(toks) or not self.spaced(end) or toks[k].raw_end > toks[k].end:
            return False
        if toks[k].key in _ADVERBS_BEFORE_VERB and k + 1 < len(toks) and self.spaced(k):
            k += 1
        return toks[k].key in _PERSON_VERBS and toks[k].text.islower()

    def _common_word(self, word: str) -> bool:
        if word in lx.ORG_WORDS or word in lx.LOCATION_LAST:
            return True
        """A capitalised word that is an ordinary word: in the general vocabulary of titles and
        labels, a head noun, an abstract noun by its ending, or written in lower case elsewhere in
        the text."""
        low = word.lower()
        if (
            low in voc.GENERIC_CAPITALISED
            or low in voc.PERSON_NOUNS
            or low in voc.LOCATION_NOUNS
            or low in voc.ORGANIZATION_NOUNS
            or low in voc.WORK_NOUNS
            or low in lx.COMMON_CAPITALISED
        ):
            return True
        if low.endswith(_ABSTRACT_ENDINGS) and len(low) > 6:
            return True
        if self._lower_words is None:
            self._lower_words = {t.key for t in self.tokens if t.text.islower()}
        return low in self._lower_words

    def sentence_words(self, sent: int) -> set[str]:
        """The lower-case words of sentence ``sent`` (read once, when first asked)."""
        if self._sentence_words is None:
            self._sentence_words = defaultdict(set)
            for t in self.tokens:
                self._sentence_words[t.sent].add(t.key)
        return self._sentence_words[sent]

    def _title_like_sentences(self) -> set[int]:
        """Sentences written in title case (headings, titles): no capitalised-phrase concepts.

        Most content words capitalised, and either no final period or nearly all of them."""
        counts: dict[int, list[int]] = {}
        for tok, cap in zip(self.tokens, self.caps):
            if tok.text.isalpha() and tok.key not in lx.STOPWORDS:
                c = counts.setdefault(tok.sent, [0, 0])
                c[0] += 1
                c[1] += cap or tok.text.isupper()
        out = set()
        for sent, (total, caps) in counts.items():
            ratio = caps / total
            # a statement ending in a period is title-like only with every content word capitalised:
            # "Tostig Godwinson was an Anglo-Saxon Earl of Northumbria and brother of King Harold
            # Godwinson." names people (its one lower-case word, "brother", says it is a sentence)
            if total >= 3 and (ratio == 1.0 or ratio >= 0.75 and not self.sentences[sent].text.rstrip().endswith(".")):
                out.add(sent)
        return out

    def title(self) -> None:
        """A leading Markdown heading names what the document is about, but it is the document's
        title (the graph's ``title`` node), not a mention: names *inside* it are found like any
        others ("# Akkermansia muciniphila and Metabolic Health" holds the microbe), and the heading
        string as a whole becomes an entity only where the body writes it ("# Demon Dice" ... "Demon
        Dice is a 1988 film": those body mentions are the title's entity, typed like the same name in
        the text or by the text's definition of it), or, when the body writes it otherwise ("James
        Terry Sanford"), in the heading if the heading is written as a name (``_name_shaped``). A
        descriptive heading that pairs several entities ("# Metformin and AMPK") or is a sentence
        (more than eight words) names none."""
        if not self.sentences or not self.headings[0] or not self.tokens or self.tokens[0].sent != 0:
            return
        sentence = self.sentences[0]
        heading = _TITLE_TEXT.match(sentence.text)
        if heading is None:
            return
        start = sentence.start + heading.start(1)
        end = sentence.start + heading.end(1)
        t0, t1 = self.span_tokens(start, end)
        if t1 <= t0 or t1 - t0 > 8:
            return
        inner = [c for c in self.cands if c[0] >= t0 and c[1] <= t1 and c[4] <= 2]
        covering = [c for c in inner if c[0] == t0 and c[1] == t1]
        if covering:
            return  # the heading is one known name already
        longest = sorted({(c[0], c[1]) for c in inner})
        distinct = []
        for span in longest:
            if not distinct or span[0] >= distinct[-1][1]:
                distinct.append(span)
        if len(distinct) >= 2:
            return
        keys = [self.tokens[k].key for k in range(t0, t1)]
        joiners = [_SPACE.sub(" ", self.joiners[k]) for k in range(t0, t1 - 1)]
        width = len(keys)
        occurrences = [
            b
            for b in range(t1, len(self.tokens) - width + 1)
            if not self.headings[self.tokens[b].sent]
            and self.tokens[b + width - 1].sent == self.tokens[b].sent
            and [self.tokens[b + k].key for k in range(width)] == keys
            and [_SPACE.sub(" ", self.joiners[b + k]) for k in range(width - 1)] == joiners
        ]
        if not occurrences and not self._name_shaped(t0, t1):
            return  # a descriptive heading the body never writes: the title node stands for it
        surface = self.text[self.tokens[t0].start : self.tokens[t1 - 1].end]
        name = lx.display_name(surface)
        self.title_name = name
        for b in occurrences + ([t0] if self._name_shaped(t0, t1) else []):
            self.add(b, b + width, name, ("concept",), -1)

    def _name_shaped(self, t0: int, t1: int) -> bool:
        """A heading written as a name ("Terry Sanford", "Honolulu Rail Transit", "Battle of the
        Bulge"): at most six words, capitalised or symbols but for name particles, joined by spaces or
        hyphens only (no "and", comma, colon: "Akkermansia muciniphila and Metabolic Health" describes)."""
        if t1 - t0 > 6:
            return False
        for k in range(t0, t1):
            tok = self.tokens[k]
            if k > t0 and self.joiners[k - 1].strip() not in ("", "-", "–"):
                return False
            if tok.key in ("and", "or", "vs", "versus") or tok.key in lx.CLAUSE_WORDS and tok.key not in ("of",):
                return False
            written_as_name = tok.text[:1].isupper() or tok.text[:1].isdigit()
            if not (written_as_name or tok.key in lx.NAME_PARTICLES or tok.key == "the"):
                return False
        return True

    # resolution --------------------------------------------------------------------------------
    def resolve(self) -> list[Mention]:
        toks = self.tokens
        order = sorted(
            self.cands,
            key=lambda c: (-(toks[c[1] - 1].end - toks[c[0]].start), c[4], c[0], c[2]),
        )
        taken = bytearray(len(toks))
        chosen: list[tuple[int, int, str, tuple[str, ...], int]] = []
        for t0, t1 in (self.span_tokens(m.start(), m.end()) for m in _REFERENCE.finditer(self.text)):
            taken[t0:t1] = b"\x01" * (t1 - t0)  # nothing inside a reference is a mention
        for cand in order:
            t0, t1 = cand[0], cand[1]
            if any(taken[t0:t1]):
                continue
            taken[t0:t1] = b"\x01" * (t1 - t0)
            chosen.append(cand)
        chosen.sort(key=lambda c: c[0])
        chosen = self._abbreviations(chosen)
        chosen = self._residues(chosen)
        self._cell_lines(chosen)
        self._type_title(chosen)
        self._propagate_types(chosen)
        return [self._mention(*c) for c in chosen]

    def _residues(self, chosen: list) -> list:
        """An amino acid named with a residue number or in a substitution ("arginine 72",
        "arginine-to-glycine", "Gly to Ser", "a glycine substitution") describes a variant: no
        compound."""
        toks, n = self.tokens, len(self.tokens)

        def amino(k: int) -> bool:
            return 0 <= k < n and (toks[k].key in _AMINO_ACIDS or toks[k].text in _AA3_WORDS)

        out = []
        for c in chosen:
            t0, t1 = c[0], c[1]
            if "compound" not in c[3] or c[2].casefold() not in _AMINO_ACIDS and toks[t0].text not in _AA3_WORDS:
                out.append(c)
                continue
            nxt = toks[t1] if t1 < n and toks[t1].sent == toks[t0].sent else None
            prev = toks[t0 - 1] if t0 > 0 and toks[t0 - 1].sent == toks[t0].sent else None
            residue = nxt is not None and (
                nxt.text.isdigit() or nxt.key in _VARIANT_CONTEXT or nxt.key in ("to", "by", "for") and amino(t1 + 1)
            )
            residue = residue or (prev is not None and prev.key in ("to", "by", "for") and amino(t0 - 2))
            if not residue:
                out.append(c)
        return out

    def _cell_lines(self, chosen: list) -> None:
        """A symbol the text also writes as a cell line ("MCF7 cells", "the HEK293 cell line") names
        the cell line wherever it stands ("MCF7 and HeLa cells"): typed cell_type, not gene."""
        toks, n = self.tokens, len(self.tokens)
        lines = set()
        for c in chosen:
            if not c[3] or c[1] >= n or toks[c[1]].key not in ("cells", "cell") and c[3][0] != "cell_type":
                continue
            if c[3][0] == "cell_type" or c[3][0] in ("gene", "protein"):
                if toks[c[1] - 1].sent == toks[min(c[1], n - 1)].sent and (
                    c[3][0] == "cell_type" or self.joiners[c[1] - 1] == " "
                ):
                    name = c[2]
                    if (
                        any(ch.isdigit() for ch in name)
                        and not name[:1].islower()
                        and not name.upper().startswith(lx.PROTEIN_PREFIXES)  # "CD4 cells" are T cells
                    ):
                        lines.add(name)
        if not lines:
            return
        for k, c in enumerate(chosen):
            if c[2] in lines and c[3][0] in ("gene", "protein"):
                chosen[k] = (c[0], c[1], c[2], ("cell_type",), c[4])

    def _type_title(self, chosen: list[tuple[int, int, str, tuple[str, ...], int]]) -> None:
        """The title entity takes the type of the same name in the text, else the one the text's
        definition of it gives ("X is an American actor")."""
        name = self.title_name
        if name is None:
            return
        key = name.casefold()
        types = None
        for c in self.cands:  # the title's body mentions won the resolution: what else was proposed there
            if c[4] >= 0 and c[2].casefold() == key and c[3] != ("concept",):
                types = c[3]
                break
        if types is None:
            body = self.sentences[1].start if len(self.sentences) > 1 else len(self.text)
            for c in chosen:
                if (
                    c[4] >= 0
                    and self.tokens[c[0]].start >= body
                    and c[3] != ("concept",)
                    and c[4] <= 2
                    and (
                        " " in c[2]
                        and key.startswith(c[2].casefold())  # not "Onufri" (a painter) in "Onufri Publishing House"
                        or c[2].casefold().startswith(key)
                        or _words_within(key.split(" "), c[2].casefold().split(" "))
                    )
                ):
                    types = c[3]  # "Lester Smith" / "Lester W. Smith", "Terry Sanford" / "James Terry Sanford"
                    break
        if types is None:
            for sentence in self.sentences[1:3]:
                head = _definition_head(self.text, sentence.start, sentence.end, anywhere=True)
                if head is not None:
                    types = head
                    break
        if types is None and self._name_shaped_title() and self._pronoun_after(1) in ("he", "she"):
            types = ("person",)  # the text goes on about its subject as "he" or "she"
        if types is not None:
            for k, c in enumerate(chosen):
                if c[4] == -1:
                    chosen[k] = (c[0], c[1], c[2], types, -1)

    def _propagate_types(self, chosen: list[tuple[int, int, str, tuple[str, ...], int]]) -> None:
        """A plain capitalised ``concept`` takes the type of a place, person or organisation it is
        listed with ("Vienna, Bratislava and Budapest") or that extends its name ("Danube" and
        "Danube River")."""
        named = ("location", "person", "organization")
        extended: dict[str, tuple[str, ...]] = {}
        surnames: set[str] = set()
        forenames: set[str] = set()  # first words of person names ("Chiang" of "Chiang Kai-shek")
        typed: dict[str, tuple[str, ...]] = {}
        for c in chosen:
            words = c[2].split(" ")
            if c[3][0] == "location" and len(words) > 1 and words[-1] in lx.LOCATION_LAST:
                extended.setdefault(" ".join(words[:-1]), c[3])
            if c[3][0] == "person" and len(words) > 1:
                surnames.add(words[-1])
                forenames.add(words[0])
            if c[3][0] == "organization" and len(words) > 1 and words[-1].endswith("s") and _is_cap(words[-1]):
                extended.setdefault(words[-1], c[3])  # "the Buccaneers" after "Tampa Bay Buccaneers"
        alone = {c[2] for c in chosen if " " not in c[2] and c[4] >= 2}
        forenames.difference_update(lx.PERSON_TITLES)
        for c in chosen:  # "Nigella Lawson ... Lawson": a full name whose surname is used alone
            words = c[2].split(" ")
            if c[3] == ("concept",) and 2 <= len(words) <= 3 and words[-1] in alone and all(_is_cap(w) for w in words):
                surnames.add(words[-1])
                typed.setdefault(c[2], ("person",))
            if c[3] != ("concept",):
                typed.setdefault(c[2], c[3])
        toks = self.tokens
        # only types found by a cue spread to neighbours, along a list in both directions ("the
        # counties of Kaval, Meru and Tolan": Kaval's type reaches Tolan through Meru)
        original = [c[3] for c in chosen]
        for k in list(range(len(chosen))) + list(range(len(chosen) - 1, -1, -1)):
            c = chosen[k]
            if c[3] != ("concept",) or c[4] != 3:
                continue
            words = c[2].split(" ")
            types = typed.get(c[2]) or extended.get(c[2])
            if types is None and len(words) <= 3 and words[-1] in surnames:
                types = ("person",)  # "Pierre Curie" next to the person "Marie Curie"; "Curie" alone
            if types is None and len(words) == 1 and words[0] in forenames:
                types = ("person",)  # "Chiang" after "Chiang Kai-shek": a family name written first
            for nb in (k - 1, k + 1):
                if types is not None:
                    break
                if not 0 <= nb < len(chosen) or original[nb][0] not in named:
                    continue
                lo, hi = (chosen[nb], c) if nb < k else (c, chosen[nb])
                if toks[lo[0]].sent == toks[hi[0]].sent and _COORDINATION.fullmatch(
                    self.text, toks[lo[1] - 1].raw_end, toks[hi[0]].start
                ):
                    types = original[nb]
            if types is not None:
                chosen[k] = (c[0], c[1], c[2], types, 2)
                if types[0] in named:
                    original[k] = types

    def _mention(self, t0: int, t1: int, name: str, types: tuple[str, ...], tier: int) -> Mention:
        toks = self.tokens
        start, end = toks[t0].start, toks[t1 - 1].end
        return Mention(start, end, t0, t1, self.text[start:end], name, types, tier, toks[t0].sent)

    def _abbreviations(self, chosen: list) -> list:
        """ "long form (ABBR)": the long form is one mention, typed by its head word or by the
        mention that covers it ("hepatocellular carcinoma (HCC)", "sodium/iodide symporter (NIS)");
        ABBR in the brackets and its later uses are mentions of the long form. A long form that is
        no entity ("randomized controlled trial (RCT)", "store-operated calcium entry (SOCE)") keeps
        ABBR from being guessed a gene: a letters-only ABBR found by pattern is then no mention."""
        if not self.definitions:
            return chosen
        toks = self.tokens
        by_start = {c[0]: c for c in chosen}
        aliases: dict[str, tuple[str, tuple[str, ...]]] = {}
        replace: list[tuple[int, int, int, int, str, tuple[str, ...]]] = []  # long t0, t1, abbr t0, t1, name, types
        unnamed: set[str] = set()  # ABBRs whose long form is no entity
        for long_start, long_end, abbr, abbr_start, abbr_end in self.definitions:
            l0, l1 = self.span_tokens(long_start, long_end)
            a0, a1 = self.span_tokens(abbr_start, abbr_end)
            if l1 <= l0 or a1 <= a0:
                continue
            inside = [c for c in chosen if c[0] >= l0 and c[1] <= l1]
            combined = _combination(self.text, toks, inside, l0, l1)
            if combined is not None:  # each named part keeps its mention; ABBR names the combination
                name = lx.display_name(self.text[toks[l0].start : toks[l1 - 1].end])
                aliases.setdefault(abbr, (name, combined))
                replace.append((l0, l0, a0, a1, name, combined))
                continue
            exact = next((c for c in inside if c[0] == l0 and c[1] == l1), None)
            if exact is not None:
                if exact[4] == 3 and exact[3] == ("concept",):
                    unnamed.add(abbr)
                    continue
                name, types = exact[2], exact[3]
            else:
                types = _head_types(toks[l1 - 1].key)
                tail = next((c for c in inside if c[1] == l1 and c[3] != ("concept",)), None)
                if types is None and tail is not None and tail[4] <= 2:
                    types = tail[3]
                if types is None:
                    unnamed.add(abbr)
                    continue
                name = lx.display_name(self.text[toks[l0].start : toks[l1 - 1].end])
            inner_abbr = by_start.get(a0)
            if inner_abbr is not None and inner_abbr[4] == 0 and inner_abbr[2] != name and inner_abbr[1] == a1:
                continue  # the gazetteer knows ABBR as something else: trust it
            aliases.setdefault(abbr, (name, types))
            replace.append((l0, l1, a0, a1, name, types))
        unnamed -= aliases.keys()
        if unnamed:
            chosen = [
                c
                for c in chosen
                if not (
                    c[4] >= 1
                    and c[1] - c[0] == 1
                    and toks[c[0]].text in unnamed
                    and toks[c[0]].text.isalpha()
                    and c[3][0] in ("gene", "protein", "compound")
                )
            ]
        if not replace:
            return chosen
        drop = bytearray(len(toks))
        added = []
        for l0, l1, a0, a1, name, types in replace:
            drop[l0:l1] = b"\x01" * (l1 - l0)
            drop[a0:a1] = b"\x01" * (a1 - a0)
            if l1 > l0:
                added.append((l0, l1, name, types, 1))
            added.append((a0, a1, name, types, 1))
        kept = [c for c in chosen if not any(drop[c[0] : c[1]])]
        taken = bytearray(len(toks))
        for c in kept + added:
            taken[c[0] : c[1]] = b"\x01" * (c[1] - c[0])
        replaced = {c[0]: k for k, c in enumerate(kept)}
        for i, tok in enumerate(toks):
            alias = aliases.get(tok.text)
            if alias is None or drop[i]:
                continue
            if (
                i + 1 < len(toks)
                and self.joiners[i] == "-"
                and toks[i + 1].sent == tok.sent
                and toks[i + 1].text[:1].isalnum()
                and toks[i + 1].key not in _INDUCED
            ):
                continue  # part of a longer symbol ("NIS-1")
            k = replaced.get(i)
            if k is not None and kept[k][1] == i + 1 and kept[k][4] >= 1:
                kept[k] = (i, i + 1, alias[0], alias[1], 1)  # a guess ("HCC" a gene) gives way
            elif not taken[i]:
                added.append((i, i + 1, alias[0], alias[1], 1))
                taken[i] = 1
        out = kept + added
        out.sort(key=lambda c: c[0])
        return out


def _combination(text: str, toks: list[Token], inside: list, l0: int, l1: int) -> tuple[str, ...] | None:
    """ "dasatinib plus quercetin (D+Q)": a long form that is two or more named things of one type
    joined by "and", "plus", "with", "+" or commas names their combination, of that type; else None."""
    parts = sorted(c for c in inside if c[3] != ("concept",))
    if len(parts) < 2 or parts[0][0] != l0 or parts[-1][1] != l1:
        return None
    if any(not _COMBINATION.fullmatch(text[toks[a[1] - 1].end : toks[b[0]].start]) for a, b in zip(parts, parts[1:])):
        return None
    return parts[0][3] if len({p[3][0] for p in parts}) == 1 else None


def _known_place(name: str) -> bool:
    entry = lx.GAZETTEER_EXACT.get(name)
    return entry is not None and entry.types[0] == "location"


def _place_after(text: str, pos: int) -> bool:
    """ ", Illinois": a known place follows the name after a comma ("Springfield, Illinois")."""
    m = _COMMA_NAME.match(text, pos)
    if m is None:
        return False
    entry = lx.GAZETTEER_EXACT.get(m.group(1)) or lx.GAZETTEER_EXACT.get(m.group(1).split(" ")[0])
    return entry is not None and entry.types[0] == "location"


def _initial_follows(rec: _Recogniser, j: int) -> bool:
    """Token j+1 is an initial ("A." in "Robert A. Stemmle") inside a name that goes on."""
    toks = rec.tokens
    if j + 2 >= len(toks) or not rec.spaced(j):
        return False
    t = toks[j + 1]
    return len(t.text) == 1 and t.text.isupper() and rec.joiners[j + 1].strip() == "." and len(rec.joiners[j + 1]) <= 2


def _abbreviation_definitions(
    text: str, tokens: list[Token], starts: list[int]
) -> list[tuple[int, int, str, int, int]]:
    """ "long form (ABBR)" definitions, found as Schwartz and Hearst (2003) do: the shortest run of
    words before the bracket whose letters spell ABBR in order, the first letter at a word start.
    Returns (long start, long end, ABBR, ABBR start, ABBR end)."""
    out = []
    for m in _ABBREVIATION_DEF.finditer(text):
        abbr = m.group(1)
        if not any(c.isupper() for c in abbr) or abbr.isdigit() or len(abbr) < 2:
            continue
        end = m.start()
        while end > 0 and text[end - 1] == " ":
            end -= 1
        k = bisect_left(starts, end) - 1  # last token of the long form
        if k < 0:
            continue
        n_letters = sum(c.isalnum() for c in abbr)
        first = max(0, k - min(n_letters + 5, 2 * n_letters) + 1)
        found = None
        for s in range(k, first - 1, -1):
            if tokens[s].sent != tokens[k].sent:
                break
            candidate = text[tokens[s].start : end]
            if candidate.count("(") != candidate.count(")"):
                break
            if _spells(abbr, candidate):
                found = tokens[s].start
                break
        if found is not None and end - found > len(abbr):
            out.append((found, end, abbr, m.start(1), m.end(1)))
    return out


def _spells(abbr: str, long_form: str) -> bool:
    """Schwartz-Hearst: the letters of ``abbr`` occur in order in ``long_form``, right to left, the
    first one at the start of a word."""
    s, lf = abbr.lower(), long_form.lower()
    i, j = len(s) - 1, len(lf) - 1
    while i >= 0:
        c = s[i]
        if not c.isalnum():
            i -= 1
            continue
        while j >= 0 and (lf[j] != c or (i == 0 and j > 0 and lf[j - 1].isalnum())):
            j -= 1
        if j < 0:
            return False
        i -= 1
        j -= 1
    return True


def _words_within(short: list[str], long: list[str]) -> bool:
    """The words of ``short`` appear in ``long`` in order, ``long`` having more ("ilse brandauer"
    within "ilse maria brandauer")."""
    if len(short) < 2 or len(long) <= len(short):
        return False
    it = iter(long)
    return all(word in it for word in short)


def _head_types(head: str) -> tuple[str, ...] | None:
    """The type of a long form by its last word: "... syndrome" a disease, "... receptor" a protein."""
    if (
        head in voc.DISEASE_HEAD_WORDS
        or head in voc.DISEASE_WORDS
        or (head.endswith(lx.DISEASE_SUFFIXES) and head not in lx.DISEASE_STOP)
    ):
        return ("disease", "phenotype")
    if head in voc.PROTEIN_HEADS or (head.endswith("ase") and head not in _NOT_ENZYMES and len(head) >= 6):
        return ("protein", "gene")
    if head in ("virus", "viruses", "bacterium", "bacteria"):
        return ("microbe", "organism")
    if head.endswith(lx.STRONG_COMPOUND_SUFFIXES) and head not in lx.COMPOUND_STOP or head in ("acid", "acids"):
        return ("compound",)
    return None


def _definition_head(
    text: str, start: int, end: int | None = None, anywhere: bool = False, apposition: bool = False
) -> tuple[str, ...] | None:
    """The type a definition gives a name: "X is an American actor" -> person; "X is a town in" ->
    location; "X was a band" -> organization; a work ("a 1999 film") -> concept. With
    ``apposition``, an apposition right after the name counts too ("X, the professor of ...") when
    its noun phrase is closed (by a preposition, a relative word or punctuation, not a verb:
    "Paris, the band played" says nothing of Paris)."""
    window = text[start : (end if end is not None else start + 160)]
    m = (_DEFINITION_ANYWHERE.search if anywhere else _DEFINITION_AFTER.match)(window)
    if m is not None:
        return _phrase_head(m.group(1), closed=False)
    if anywhere or not apposition:
        return None
    m = _APPOSITION.match(window)
    return None if m is None else _phrase_head(m.group(1), closed=True)


def _phrase_head(phrase: str, closed: bool) -> tuple[str, ...] | None:
    """The type of a noun phrase by its head: "a film producer" is a person, "a television film" a
    work, "a town in ..." a place. The head is the last type noun of the first conjunct that has
    one ("a celebrity cook, food writer and publisher": writer); the phrase ends at a preposition
    or relative word, a comma, "and", or a participle after a type noun ("a film directed by").
    With ``closed`` (an apposition), the head must be the phrase's last word before it ends at a
    preposition, relative word or punctuation ("the professor of ...", not "the first film
    version of ...", not "the band played")."""
    words = phrase.split(" ")[:9]
    found: tuple[str, ...] | None = None
    for word in words:
        key = word.strip(",;:()\"'.").lower()
        if not key:
            continue
        if key in _PHRASE_END:
            return found
        if key == "and" and found is not None:
            return None if closed else found
        if found is not None and key.endswith(("ed", "ing")) or closed and key.endswith(("'s", "’s")):
            return None if closed else found
        types = _noun_type(key)
        if closed:
            found = types
        elif types is not None:
            found = types
        if word.endswith((",", ";", ":", ".")) and found is not None:
            return found
    return found if not closed or len(phrase.split(" ")) < 9 else None


def _singular(word: str) -> str:
    """A plural noun's singular, for look-ups in the noun lists ("actors", "counties", "Museums")."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _noun_type(key: str) -> tuple[str, ...] | None:
    """The type a head noun gives a name ("actor" a person, "river" a place, "film" a concept)."""
    if key in voc.PERSON_NOUNS:
        return ("person",)
    if key in voc.LOCATION_NOUNS:
        return ("location",)
    if key in voc.ORGANIZATION_NOUNS:
        return ("organization",)
    if key in voc.ORGANISM_NOUNS:
        return ("organism",)
    if key in voc.WORK_NOUNS:
        return ("concept",)
    return None


def _is_cap(word: str) -> bool:
    """A capitalised word ("Vienna", "McDonald", "O'Brien"), not an acronym or symbol."""
    if len(word) < 2 or not word[0].isupper() or word.isupper():
        return False
    rest = word[1:].replace("'", "").replace("’", "")
    return rest.isalpha() and any(c.islower() for c in rest)


def _is_symbol(word: str, bio: bool = True) -> bool:
    """A gene/protein symbol: letters and digits ("SIRT6", "p21", "IL6"), or a species prefix and
    capitals ("mTOR", "hTERT"). Mouse-style symbols ("Sgk1") only in biomedical text ("Web3" is
    not a gene)."""
    if len(word) < 3 or word in lx.SYMBOL_STOP or word.upper() in lx.ACRONYM_STOP:
        return False
    if _VARIANT_WORD.match(word):
        return False  # "D90A", "Pro75": a variant or a residue, not a gene
    if word.rstrip("0123456789").upper() in lx.ACRONYM_STOP and not word.upper().startswith(lx.PROTEIN_PREFIXES):
        return False  # "SNP7", "IVS3": a numbered instance of a non-gene acronym (not "LC3", a protein's)
    if _MOUSE_SYMBOL.match(word):
        return bio
    if not _SYMBOL.match(word):
        return False
    digits = sum(c.isdigit() for c in word)
    letters = sum(c.isalpha() for c in word)
    if _P_NUMBER.match(word):
        return bio  # "p27", "p62": a protein named by its mass, in biomedical text
    if letters < 2 or digits > 3:
        return False
    if digits == 0:
        # mTOR-like: a species/compartment prefix (human, mouse, rat, mitochondrial) and 3+ capitals;
        # "iOS" and "eBay" are not genes; plain all-caps words need a cue
        return word[0] in "hmr" and sum(c.isupper() for c in word) >= 3 and bio
    if not bio and (word[0].islower() or letters <= 2):
        return False
    return True


def _symbol_types(symbol: str) -> tuple[str, ...]:
    upper = symbol.upper()
    if upper.startswith(lx.PROTEIN_PREFIXES) or symbol[0].islower():
        return ("protein", "gene")
    return ("gene", "protein")


def _is_binomial(genus: str, species: str, named_kind: bool = False) -> bool:
    """Whether ``genus species`` is a binomial; ``named_kind``: an organism noun is written right
    before it ("the tree Salix alba"), so the genus needs no ending of its own."""
    if species in lx.STOPWORDS or species in lx.NOT_SPECIES or species.endswith(lx.NOT_SPECIES_ENDINGS):
        return False
    if genus in lx.KNOWN_GENERA:
        return True
    low = genus.lower()
    if low in lx.STOPWORDS or low in lx.COMMON_CAPITALISED or species in lx.STOPWORDS:
        return False
    known = lx.GAZETTEER.get(low)
    if known is not None and known.types[0] == "location":
        return False
    return (named_kind or low.endswith(lx.GENUS_ENDINGS)) and species.endswith(lx.SPECIES_ENDINGS) and len(species) >= 4


def _is_modifier(tok: Token) -> bool:
    key = tok.key
    if key in lx.ORGAN_WORDS:
        return True
    if _is_cap(tok.text) and (tok.raw_end > tok.end or tok.text[1:].islower()):
        return True  # "Crohn's disease", "Lyme disease"
    return tok.text.isalpha() and len(key) > 3 and key.endswith(lx.ADJECTIVE_SUFFIXES)


# -- analysis ----------------------------------------------------------------------------------------


@lru_cache(maxsize=64)
def analyze(text: str) -> Analysis:
    """Sentences, tokens, entity mentions and relation cues of a text. Cached twice: the last 64
    texts (a text read again at once, as answering a question does), and ``ANALYSES``, which keeps
    a chunk's analysis from its summary to its questions (``offline.analysis_cache``)."""
    return ANALYSES.get(text)


def _analyze(text: str) -> Analysis:
    sentences = split_sentences(text)
    headings = [s.text.lstrip().startswith("#") for s in sentences]
    tokens = _tokenize(text, sentences)
    rec = _Recogniser(text, sentences, headings, tokens)
    rec.gazetteer()
    rec.patterns()
    rec.capitalised()
    rec.quoted_titles()
    rec.title()
    mentions = rec.resolve()
    cues = []
    covered = 0
    for tok in tokens:
        regex = lx.CUE_BY_LETTER.get(tok.low[0])
        if regex is None or tok.start < covered or (tok.start > 0 and text[tok.start - 1] == "-"):
            continue
        m = regex.match(text, tok.start)
        if m is not None:
            group = m.lastgroup or ""
            cues.append(CueHit(m.start(), m.end(), lx.CUES[int(group[1:])], group[0] == "v", m.group()))
            covered = m.end()
    return Analysis(
        text=text,
        sentences=tuple(sentences),
        clean=tuple(clean_sentence(s.text) for s in sentences),
        headings=tuple(headings),
        tokens=tuple(tokens),
        mentions=tuple(mentions),
        cues=tuple(cues),
        cue_starts=tuple(c.start for c in cues),
    )


# about 55 MB (an analysis holds some 55 bytes per character of text): HotpotQA's 994 passages
# (0.6 M characters) are analysed once in a run instead of three times
ANALYSES: AnalysisCache[Analysis] = AnalysisCache(_analyze, budget_chars=1_000_000)


def cues_between(analysis: Analysis, start: int, end: int) -> list[CueHit]:
    lo = bisect_left(analysis.cue_starts, start)
    hi = bisect_left(analysis.cue_starts, end)
    return [c for c in analysis.cues[lo:hi] if c.end <= end]


def _tags(hits: list[CueHit]) -> list[str]:
    tags: list[str] = []
    for h in hits:
        if h.cue.tag not in tags:
            tags.append(h.cue.tag)
    return tags


@lru_cache(maxsize=64)
def extract(text: str, allowed: frozenset[str] | None) -> Extraction:
    """Entities and relationships of a chunk, typed within ``allowed`` (None: no restriction)."""
    a = analyze(text)
    entities: dict[str, dict] = {}  # casefolded name -> fields
    typed: list[tuple[Mention, str]] = []  # (mention, entity key)
    for m in a.mentions:
        key = m.name.casefold()
        etype = _resolve_type(m.types, allowed)
        if key not in entities:
            if etype is None:
                continue
            entities[key] = {
                "name": m.name,
                "type": etype,
                "sent": m.sent,
                "described": not a.headings[m.sent],
                "first_start": m.start,
                "count": 0,
                "surface": None,
                "article": etype in ("location", "organization", "concept")
                and m.surface[:1].isupper()
                and text[max(0, m.start - 4) : m.start].lower() == "the ",
            }
        row = entities[key]
        if row["type"] == "concept" and etype not in (None, "concept"):
            row["type"] = etype  # a later mention says what it is ("Christchurch, New Zealand")
        row["count"] += 1
        if not row["described"] and not a.headings[m.sent]:
            row["sent"], row["described"] = m.sent, True  # describe by a statement, not a heading
        if row["surface"] is None and m.surface[:1].islower() and m.tier <= 2:
            row["surface"] = _SPACE.sub(" ", m.surface)
        if "first_surface" not in row and not (m.surface.isupper() and not m.name.isupper()):
            row["first_surface"] = _SPACE.sub(" ", m.surface)  # not a shouted "AKKERMANSIA MUCINIPHILA"
        typed.append((m, key))

    first_statement = next((i for i, h in enumerate(a.headings) if not h and a.clean[i]), None)
    built: dict[str, Entity] = {}
    for key, row in entities.items():
        sent = row["sent"]
        if not row["described"] and first_statement is not None:
            sent = first_statement  # only in the title: the text's first statement is about it
        description = clip(a.clean[sent], MAX_DESCRIPTION_CHARS) or clip(
            _SPACE.sub(" ", text).strip(), MAX_DESCRIPTION_CHARS
        )
        built[key] = Entity(
            name=row["name"],
            type=row["type"],
            description=description or row["name"],
            surface=row["surface"] or row.get("first_surface") or row["name"],
            sent=row["sent"],
            count=row["count"],
            first_start=row["first_start"],
            article=row["article"],
        )

    relations: dict[tuple[str, str], Relation] = {}
    setting_keys = frozenset(key for key, entity in built.items() if entity.type in _SETTING_TYPES)
    by_sentence: dict[int, list[tuple[Mention, str]]] = {}
    for m, key in typed:
        by_sentence.setdefault(m.sent, []).append((m, key))
    for sent, items in by_sentence.items():
        if a.headings[sent]:
            continue  # a heading states nothing
        sentence = a.sentences[sent]
        condition_end = _condition_end(text, sentence.start, sentence.end)
        if condition_end is not None:  # "If X delays Y, ...": X and Y are supposed, not stated
            items = [(m, key) for m, key in items if m.start >= condition_end]
        firsts: list[tuple[Mention, str]] = []
        seen: set[str] = set()
        for m, key in items:
            if key not in seen:
                seen.add(key)
                firsts.append((m, key))
        if len(firsts) < 2:
            continue
        description = clip(a.clean[sent], MAX_DESCRIPTION_CHARS)
        if not description:
            continue
        # the clauses each entity is written in ("X activates Y, and Y inhibits Z": Y in both)
        starts, taken_up = _clause_starts(a, text, sentence.start, sentence.end)
        clauses: dict[str, set[int]] = {}
        for m, key in items:
            clauses.setdefault(key, set()).add(bisect_left(starts, m.start + 1))
        clauses[items[0][1]] |= taken_up  # "X ..., but it causes Y": a pronoun takes up the first entity
        # pairs written in different clauses only are none: neither states anything of the other (and
        # they take no place of the sentence's few: "A and B activate C and D, and E activates F")
        pairs = [
            (p, q) for p, q in _pairs(a, text, firsts, setting_keys) if clauses[firsts[p][1]] & clauses[firsts[q][1]]
        ]
        for p, q in pairs[:MAX_PAIRS_PER_SENTENCE]:
            (ms, ks), (mt, kt) = firsts[p], firsts[q]
            earlier = (ks, kt) if (ks, kt) in relations else (kt, ks) if (kt, ks) in relations else None
            if earlier is not None and _states(relations[earlier]):
                continue
            relation = _relation(a, text, items, (ms, ks), (mt, kt), built, description, sent)
            if not _states(relation):
                # an entity written twice: the two mentions closest together may state what the
                # first ones do not ("A was measured ..., and X increased the abundance of A")
                closest = _closest(items, ks, kt)
                if closest is not None and closest != ((ms, ks), (mt, kt)):
                    again = _relation(a, text, items, *closest, built, description, sent)
                    if _states(again):
                        relation = again
            if earlier is not None:
                if not _states(relation):
                    continue
                # the pair's first sentence only named the two ("tested whether X supplementation
                # changes Y"): the later sentence stating it by a verb gives its direction and
                # keywords ("X increased Y"), and the description reads both, context first ("…"
                # where sentences between them are left out)
                first = relations.pop(earlier)
                gap = " " if sent == first.sent + 1 else " … "
                both = clip(first.description + gap + description, MAX_DESCRIPTION_CHARS)
                relation = replace(relation, description=both)
            relations[(relation.source.name.casefold(), relation.target.name.casefold())] = relation
    return Extraction(entities=tuple(built.values()), relations=tuple(relations.values()))


def _closest(items, ks: str, kt: str):
    """The mentions of two entities of a sentence that stand closest together, in text order."""
    best = None
    for m1, k1 in items:
        if k1 != ks:
            continue
        for m2, k2 in items:
            if k2 != kt:
                continue
            first, second = ((m1, k1), (m2, k2)) if m1.start < m2.start else ((m2, k2), (m1, k1))
            gap = second[0].start - first[0].end
            if gap >= 0 and (best is None or gap < best[0]):
                best = (gap, first, second)
    return None if best is None else (best[1], best[2])


def _states(relation: Relation) -> bool:
    """A relation its sentence states by a verb cue, not negated and with a sure direction."""
    return relation.cue is not None and relation.cue.verbal and not relation.neutral


def _one_list(a: Analysis, text: str, start: int, end: int) -> bool:
    """The text between two mentions joins them as items of one list: a list separator (", ",
    "and", "or"), or separators around further items that are no entities ("Metformin, prebiotic
    fibre, polyphenols and Oleoylethanolamide"): short phrases (at most four words) with no relation
    cue and no clause word or preposition (``data/clause_words.txt``: "which", "is", "in" ...)."""
    if _LIST_JOINER.fullmatch(text, start, end):
        return True
    gap = text[start:end]
    if ";" in gap:
        return False
    pieces = _LIST_SPLIT.split(gap)
    if len(pieces) < 2:
        return False
    # the first piece may end the previous item ("prebiotic| fibre, "), the last start the next
    # ("and high-dose |Y"): at most two words, directly after / before the mention
    head, tail = pieces[0], pieces[-1]
    if head and not (head[:1] == " " and len(head.split()) <= 2):
        return False
    if tail and not (tail[-1:] == " " and len(tail.split()) <= 2):
        return False
    for piece in pieces:
        piece = piece.strip()
        if piece and (not _LIST_ITEM.fullmatch(piece) or any(w.lower() in lx.CLAUSE_WORDS for w in piece.split(" "))):
            return False
    return not cues_between(a, start, end)


def _phrase_words(words: list[str]) -> bool:
    """At most three words (an article, modifiers) that hold no clause word and no clause break."""
    return len(words) <= 3 and not any(w.lower() in lx.CLAUSE_WORDS for w in words)


def _repeated_preposition(a: Analysis, text: str, prev: Mention, cur: Mention) -> bool:
    """Two mentions in prepositional phrases coordinated with the same preposition, items of one
    list: "in mice and in humans", "from soil or from seawater", "by reduced daf-2 signalling, by
    dietary restriction and by ..." (each phrase at most three words besides its mention, no clause
    word, and no verb cue after the first mention: "reduced" may open the next one)."""
    gap = _PREPOSITION_REPEATED.fullmatch(text, prev.end, cur.start)
    if gap is None or gap.group(2).lower() not in _COORDINATED_PREPOSITIONS:
        return False
    if not _phrase_words(gap.group(1).split()) or not _phrase_words(gap.group(3).split()):
        return False
    if any(hit.verbal for hit in cues_between(a, prev.end, gap.end(1))):
        return False  # "in mice| treated with| ..." ends no phrase: a verb in it makes a clause
    return _opened_by(text, max(0, prev.start - 80), prev.start, {gap.group(2).lower()})


def _opened_by(text: str, lo: int, start: int, prepositions) -> bool:
    """Whether the phrase ending at ``start`` (the start of a mention) opens with one of
    ``prepositions``, at most three words before it and after ``lo`` and the last clause break,
    the words between no clause words ("in genetically obese mice", "among centenarians")."""
    before = _PHRASE_WORDS_BREAK.split(text[lo:start])[-1].split()
    for back in range(1, min(4, len(before)) + 1):
        if before[-back].lower() in prepositions:
            return _phrase_words(before[len(before) - back + 1 :])
    return False


def _baseline(text: str, sentence_start: int, prev_end: int | None, mention: Mention) -> bool:
    """A mention that is a comparison baseline: a cue of ``data/comparison_cues.txt`` before it, after
    the previous mention, with at most three words between ("compared with the placebo group")."""
    lo = sentence_start if prev_end is None else prev_end
    cues = list(_COMPARISON.finditer(text, lo, mention.start))
    if not cues:
        return False
    rest = text[cues[-1].end() : mention.start]
    return not _PHRASE_WORDS_BREAK.search(rest) and _phrase_words(rest.split())


def _groups(a: Analysis, text: str, firsts: list[tuple[Mention, str]]) -> list[list[int]]:
    """Consecutive mentions that are items of one list (``_one_list``, or phrases with one repeated
    preposition: ``_repeated_preposition``) form a group."""
    groups: list[list[int]] = [[0]]
    for k in range(1, len(firsts)):
        prev, cur = firsts[k - 1][0], firsts[k][0]
        if _one_list(a, text, prev.end, cur.start) or _repeated_preposition(a, text, prev, cur):
            groups[-1].append(k)
        else:
            groups.append([k])
    return groups


def _pairs(
    a: Analysis, text: str, firsts: list[tuple[Mention, str]], setting_keys: frozenset[str] = frozenset()
) -> list[tuple[int, int]]:
    """Pairs to relate in a sentence: every member of a list with every member of the neighbouring
    lists, then the sentence's first list with the later ones; never two items of one list, never
    a comparison baseline ("X increased Y compared with placebo": placebo is related to neither; a
    list after the cue, "compared with placebo or acarbose", is one baseline), and never a setting
    (``_setting``: an entity of ``setting_keys``, an organism, after "in": "... in mice")."""
    sentence_start = a.sentences[firsts[0][0].sent].start
    groups = _without_baselines(text, sentence_start, firsts, _groups(a, text, firsts))
    groups = _without_settings(text, sentence_start, firsts, groups, setting_keys)
    pairs: list[tuple[int, int]] = []
    for g in range(len(groups) - 1):
        # "AMPK inhibits mTORC1 by phosphorylating TSC2": who phosphorylates is the sentence's
        # subject (paired below), not the object before "by"
        gap = text[firsts[groups[g][-1]][0].end : firsts[groups[g + 1][0]][0].start]
        if g and _BY_GERUND.match(gap):
            continue
        if _relative_of_another(gap):
            continue
        pairs += [(p, q) for p in groups[g] for q in groups[g + 1]]
    for g in range(2, len(groups)):
        pairs += [(p, q) for p in groups[0] for q in groups[g]]
    return pairs


_RELATIVE = re.compile(r",\s*(?:which|that|who)\b", re.IGNORECASE)
ANTECEDENT_WORDS = 3  # words at most between a name and the ", which" its relative clause opens with


def _relative_of_another(gap: str) -> bool:
    """Whether the text between two mentions opens a relative clause on another noun phrase ("X
    produces butyrate and also secretes a protein called MAM, which inhibits NF-kB": what inhibits
    NF-kB is the protein, not butyrate): more than ``ANTECEDENT_WORDS`` words before ", which"."""
    found = _RELATIVE.search(gap)
    return found is not None and len(re.findall(r"\w+", gap[: found.start()])) > ANTECEDENT_WORDS


_BY_GERUND = re.compile(r"\s*,?\s*by\s+(?:\w+ly\s+)?\w+ing\b", re.IGNORECASE)  # "... by directly phosphorylating"


def _without_baselines(
    text: str, sentence_start: int, firsts: list[tuple[Mention, str]], groups: list[list[int]]
) -> list[list[int]]:
    """The groups less their comparison baselines (``_baseline``). A baseline list runs to its
    "and"/"or" item: in "Compared with sitagliptin or acarbose, metformin reduced IL-6" the list
    joined by commas holds metformin too, which is no baseline; without "and"/"or" only the first
    item is one ("compared with placebo, metformin ...")."""
    kept: list[list[int]] = []
    for n, group in enumerate(groups):
        prev_end = firsts[groups[n - 1][-1]][0].end if n else None
        if not _baseline(text, sentence_start, prev_end, firsts[group[0]][0]):
            kept.append(group)
            continue
        cut = 1
        for k in range(1, len(group)):
            if _AND_OR.search(text, firsts[group[k - 1]][0].end, firsts[group[k]][0].start):
                cut = k + 1
                break
        if group[cut:]:
            kept.append(group[cut:])
    return kept


def _verb_cue(word: str) -> bool:
    """Whether ``word`` is a verb of the relation lexicon ("induces", "binds")."""
    regex = lx.CUE_BY_LETTER.get(word[:1].lower())
    found = regex.fullmatch(word) if regex is not None else None
    return found is not None and any(k.startswith("v") and v for k, v in found.groupdict().items())


def _clause_starts(a: Analysis, text: str, start: int, end: int) -> tuple[list[int], set[int]]:
    """Where each clause after the first starts in the sentence ``text[start:end]``: after "; " or a
    comma and a clause joiner ("..., and prebiotic fibres have similar effects") with a verb on
    both sides (a relation cue, or a form of be / have / do or a modal), so that a list ("Metformin,
    acarbose, and rapamycin extend lifespan") is no clause break. Also the numbers (1, 2 ...) of
    the clauses whose subject is a pronoun taking up the sentence's first subject ("..., but it
    causes thrombocytopenia", "..., and this activation promotes ..."; data/subject_pronouns.txt)."""
    starts: list[int] = []
    taken_up: set[int] = set()
    lo = start
    joins = list(CLAUSE_JOIN.finditer(text, start, end))
    for k, join in enumerate(joins):
        hi = joins[k + 1].start() if k + 1 < len(joins) else end
        verb = _first_verb(a, text, join.end(), hi)
        # a verb right after the joiner shares the subject ("A was safe, improved X, and reduced
        # Y"): one clause; a subject before it ("..., and prebiotic fibres have ...") opens one
        subject = text[join.end() : verb].split() if verb is not None else []
        if _first_verb(a, text, lo, join.start()) is not None and subject:
            starts.append(join.end())
            if subject[0].lower() in _SUBJECT_PRONOUNS:
                taken_up.add(len(starts))
            lo = join.end()
    return starts, taken_up


def _first_verb(a: Analysis, text: str, start: int, end: int) -> int | None:
    """Where the first verb of ``text[start:end]`` starts: a relation cue read as a verb, or a
    form of be / have / do or a modal (``data/auxiliary_verbs.txt``)."""
    found = [hit.start for hit in cues_between(a, start, end) if hit.verbal]
    auxiliary = _AUXILIARY.search(text, start, end)
    if auxiliary is not None:
        found.append(auxiliary.start())
    return min(found, default=None)


def _condition_end(text: str, sentence_start: int, sentence_end: int) -> int | None:
    """Where the opening condition of a sentence ends ("If X delays Y|, regulators ..."): the first
    clause break after an opener of ``data/conditional_openers.txt``, else the sentence's end; None
    when the sentence opens with no condition. What the condition names is related to nothing:
    it is supposed, not stated, and so is its link to the rest of the sentence."""
    opening = _OPENING_WORD.match(text, sentence_start, sentence_end)
    if opening is None or opening.group(1).lower() not in _CONDITIONAL_OPENERS:
        return None
    found = _CLAUSE_BREAK.search(text, opening.end(), sentence_end)
    return sentence_end if found is None else found.start()


def _setting(text: str, sentence_start: int, prev_end: int | None, mention: Mention) -> bool:
    """A mention opened by a setting preposition (``data/setting_prepositions.txt``: "in", "among"
    ...) after the previous mention, with at most three words between ("in genetically obese
    mice", "In mice,", "among centenarians")."""
    lo = sentence_start if prev_end is None else prev_end
    return _opened_by(text, lo, mention.start, _SETTING_PREPOSITIONS)


def _without_settings(
    text: str,
    sentence_start: int,
    firsts: list[tuple[Mention, str]],
    groups: list[list[int]],
    setting_keys: frozenset[str],
) -> list[list[int]]:
    """The groups less the entities that are the statement's setting: a group opened by a setting
    preposition loses its members of a setting type ("in mice and in humans", "in people and mice
    with obesity"); an organism that acts or is acted on ("Mice fed metformin lived longer", "the
    lifespan of mice") stays."""
    kept: list[list[int]] = []
    for n, group in enumerate(groups):
        prev_end = firsts[groups[n - 1][-1]][0].end if n else None
        first = firsts[group[0]]
        if first[1] in setting_keys and _setting(text, sentence_start, prev_end, first[0]):
            group = [k for k in group if firsts[k][1] not in setting_keys]
        if group:
            kept.append(group)
    return kept


def _mask(text: str, regex: re.Pattern[str]) -> str:
    return regex.sub(lambda m: " " * len(m.group()), text)


def negated(text: str, sentence_start: int, first_start: int, first_end: int, second_start: int) -> bool:
    """Whether the text negates a relation between two mentions of one sentence: a negation cue
    (``data/negation_cues.txt``) between them ("X does not bind Y", "X fails to activate Y", "Y
    was not increased by X"), or a clause-wide one before the first in its clause ("no effect of X
    on Y", "neither X nor Y"); "not only" and the like negate nothing."""
    neg = lx.NEGATION
    gap = _mask(text[first_end:second_start].replace("’", "'"), neg["ignore"])
    if neg["gap"].search(gap) or neg["clause"].search(gap):
        return True
    before = _mask(text[sentence_start:first_start].replace("’", "'"), neg["ignore"])
    clause = _CLAUSE_BREAK.split(before)[-1]
    return neg["clause"].search(clause) is not None


def _passive_agent(text: str, primary: CueHit, agent_end: int, a: Analysis, items) -> bool | None:
    """After a cue: "by" and a short agent phrase ending at ``agent_end`` ("is activated by X",
    "activation by exercise or by X", "produced by A and B": other entities do not count toward
    the length): True; "by" with a long or clausal agent gap: None (unsure); no "by": False."""
    by = _PASSIVE_BY.match(text, primary.end)
    if by is None:
        return False
    agent_gap = text[by.end() : agent_end]
    for m, _ in items:
        if by.end() <= m.start and m.end <= agent_end:
            agent_gap = agent_gap.replace(m.surface, " ", 1)
    if (
        len(agent_gap) <= 25
        and not any(ch.isdigit() for ch in agent_gap)
        and not any(ch in agent_gap for ch in ";:()")
        and not cues_between(a, by.end(), agent_end)
    ):
        return True
    return None


def _relation(a: Analysis, text: str, items, source_item, target_item, built, description: str, sent: int) -> Relation:
    """The relationship of two mentions of one sentence, described by the sentence.

    Keywords are the relation cues between the two mentions only (none: ``co-occurrence``; a
    negation (``negated``) adds ``negated``). The source is the subject of the verb: a passive cue
    ("B is produced by A", "B activation by A") or "<cue noun> of B by A" makes the agent A the
    source: A --produces--> B."""
    (ms, ks), (mt, kt) = source_item, target_item
    between = [h for h in cues_between(a, ms.end, mt.start) if not _inside_mention(items, h)]
    tags = _tags(between) if between else ["co-occurrence"]
    primary = between[0] if between else None
    passive = neutral = False
    is_negated = negated(text, a.sentences[sent].start, ms.start, ms.end, mt.start)
    if is_negated:
        neutral = True
    if primary is not None:
        # A cue links the two only if nothing else stands between them: no other entity,
        # no second verb cue, no clause break ("X, which inhibits Y"), no negation.
        others = any(ms.end <= m.start and m.end <= mt.start and k not in (ks, kt) for m, k in items)
        verbs = sum(1 for h in between if h.verbal)
        passive_form = primary.surface.lower().endswith(("ed", "bound to")) if primary.verbal else True
        agent = _passive_agent(text, primary, mt.start, a, items) if passive_form else False
        if agent:
            passive = True  # the direction holds even when the link is indirect
        else:
            # a later participle with its agent: "X is a lipid mediator produced by Y" (Y produces X),
            # when no other entity stands between X and it
            for hit in between[1:]:
                if (
                    hit.verbal
                    and hit.surface.lower().endswith("ed")
                    and not any(ms.end <= m.start and m.end <= hit.start and k not in (ks, kt) for m, k in items)
                    and _passive_agent(text, hit, mt.start, a, items)
                ):
                    passive = True
                    break
        if (
            is_negated
            or others
            or verbs > 1
            or _AGENT_GAP_BREAK.search(text, ms.end, primary.start)
            or _LOSS_OF.search(text, max(0, ms.start - 30), ms.start)
            or _OBJECT_GAP_BREAK.search(text, primary.end, mt.start)
        ):
            neutral = True
        elif primary.verbal and not passive:
            if _INTRANSITIVE.match(text, primary.end):
                neutral = True  # "X increased after Y": no object
            elif agent is None:
                neutral = True  # "B is activated by ..." with the agent far away: direction unsure
            elif passive_form and _BE_BEFORE.search(text, max(ms.end, primary.start - 40), primary.start):
                neutral = True
    else:
        # "the activation of B by A": the cue noun stands before B, "by" between B and A
        nominal = _NOMINAL_OF.search(text, max(0, ms.start - 40), ms.start)
        if nominal is not None and _BY_ONLY.fullmatch(text, ms.end, mt.start):
            hits = cues_between(a, nominal.start(1), nominal.end(1))
            if hits:
                tags, primary, passive = _tags(hits), hits[0], True
    if is_negated and "negated" not in tags:
        tags.append("negated")
    source, target = built[ks], built[kt]
    source_start, target_start = ms.start, mt.start
    if passive:  # the agent acts: "butyrate is produced by F. prausnitzii" -> F. prausnitzii produces butyrate
        source, target = target, source
        source_start, target_start = target_start, source_start
    return Relation(
        source=source,
        target=target,
        keywords=tuple(tags),
        description=description,
        sent=sent,
        cue=primary,
        neutral=neutral,
        source_start=source_start,
        target_start=target_start,
    )


def _inside_mention(items, hit: CueHit) -> bool:
    """A cue word that is part of an entity's name ("Growth Factor Receptor", "Activated Protein")."""
    return any(m.start <= hit.start and hit.end <= m.end for m, _ in items)


def extraction_payload(text: str, entity_types: tuple[str, ...] | list[str] | None) -> dict:
    """The ``EntitiesRelationships`` answer for ``text``."""
    allowed = None if entity_types is None else frozenset(t.strip().lower() for t in entity_types)
    result = extract(text, allowed)
    # A negated relation ("X does not bind Y") is no relation: it is left out of the graph (the
    # question generator still sees it, to ask only how the two are related).
    return {
        "entities": [
            {"entity_name": e.name, "entity_type": e.type, "entity_description": e.description} for e in result.entities
        ],
        "relationships": [
            {
                "source_entity": r.source.name,
                "target_entity": r.target.name,
                "relationship_keywords": list(r.keywords),
                "relationship_description": r.description,
            }
            for r in result.relations
            if "negated" not in r.keywords
        ],
    }
