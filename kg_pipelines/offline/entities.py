"""Heuristic entity recognition and relationship extraction for the offline provider.

Recognition works on tokens (see ``lexicon.TOKEN_RE``) and proposes candidate mentions from
several recognisers, each with a tier (lower is more trusted):

0. the gazetteer (``lexicon``): n-gram dictionary lookup, case-, hyphen- and plural-insensitive;
1. patterns with strong evidence: gene/protein symbols (``SIRT6``, ``IL-6``, ``mTORC2``, ``p21``;
   all-caps words without a digit only before a cue such as "gene" or "kinase"; acronyms, units
   and formulas are skipped), binomial species names (known genus, or a genus ending such as
   -bacter/-coccus/-ella/-ia with a Latin species ending; "A. muciniphila" resolves to a binomial
   seen in the chunk or the gazetteer), ``vitamin X``, people after a title (``Dr.``) or before
   ``et al.``;
2. conservative suffix and phrase rules: compounds (-mycin, -formin, -amide, -statin, ...) and
   diseases (-itis, -osis, -emia, -oma, -pathy) for lower-case words or sentence-initial ones,
   "<modifier> disease/syndrome/cancer/disorder" (modifiers: adjectives, organs, possessive names),
   cell types ("<modifier> cells"), capitalised names with an organisation or place cue
   ("... University", "... River", "Lake ...");
3. other capitalised words and phrases in running text (not at a sentence start unless the word is
   also capitalised mid-sentence; not in headings, title-case lines or parentheses) -> ``concept``,
   or the type of a place/person/organisation they are listed with ("Vienna, Bratislava and
   Budapest") or that extends their name ("Danube" / "Danube River", "Pierre Curie" / "Marie Curie").

Overlaps are resolved greedily: the longer span wins, then the lower tier, then the earlier one.
"Long form (ABBR)" definitions make later uses of ABBR mentions of the long form.

Each mention carries preferred types (best first); ``extract`` keeps the first one the configured
entity types allow, else ``concept`` if allowed, else drops the mention. Entities are keyed by
name (case-insensitive): the first mention fixes the type, so one name has one type per chunk.
The description of an entity is the first sentence that mentions it (a statement rather than a
heading when there is one), verbatim with white space collapsed; relationships link entities
that share a sentence (consecutive mentions, and the first mention to each later one, at most six
pairs a sentence; headings are skipped), source before target, described by that sentence, tagged
with the relation cues between the two mentions (else those of the sentence, else
``co-occurrence``; a negation between them adds ``negated``). Each relationship also remembers its
first cue and whether it links the two directly (no other entity, clause break, second verb or
negation between them; "B is activated by A" marks A as the agent), which the question generator
uses to decide between "What does A activate?" and the safe "How is A related to B?".
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass
from functools import lru_cache

from kg_pipelines.entity_types import BASE_ENTITY_TYPES
from kg_pipelines.offline import lexicon as lx
from kg_pipelines.ingestion.sentences import Sentence, split_sentences

MAX_PAIRS_PER_SENTENCE = 6
MAX_DESCRIPTION_CHARS = 600

_SPACE = re.compile(r"\s+")
_MARKDOWN_LEAD = re.compile(r"^\s*(?:#{1,6}\s*|[-*+•]\s+|\d+[.)]\s+)")
_EMPHASIS = re.compile(r"\*\*|__|`")
_PAREN = re.compile(r"[()]")
_CITATION = re.compile(r"\([^()]{0,200}?\b(?:1[89]|20)\d{2}[a-z]?\b[^()]{0,200}?\)")
_ABBREVIATION_DEF = re.compile(r"\s*\(\s*([A-Za-z][A-Za-z0-9+αβγκ-]{1,11})\s*\)")
_SYMBOL = re.compile(r"^(?:[A-Z][A-Z0-9]{1,9}[a-z]?|[a-z][A-Z]{2,}[A-Z0-9]{0,6}|p\d{2,3}(?:[A-Z][A-Za-z0-9]*)?)$")
_MOUSE_SYMBOL = re.compile(r"^[A-Z][a-z]{2,4}\d{1,2}[a-z]?$")
_SYMBOL_HEAD = re.compile(r"^[A-Z][A-Za-z]{1,5}$")
_SYMBOL_TAIL = re.compile(r"^(?:\d{1,3}[A-Za-zαβγδεκ]?|[αβγδεκ][A-Z]?|alpha|beta|gamma|delta|kappa)$")
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
_COORDINATION = re.compile(r"\s*(?:,\s*(?:and\s+|or\s+)?|and\s+|or\s+)")
_OBJECT_GAP_BREAK = re.compile(r"[;:]|\b(?:which|who|whereas|while|but|although|because)\b", re.IGNORECASE)
_LOSS_OF = re.compile(
    r"\b(?:loss|lack|deletion|depletion|absence|inhibition|knockdown|knockout|deficiency|blockade|suppression|"
    r"ablation|disruption|mutation|mutations)\s+of\s+(?:the\s+)?$",
    re.IGNORECASE,
)
_NEGATION = re.compile(r"\b(?:not|no|never|neither|nor|without|fail(?:s|ed)? to)\b|n't\b", re.IGNORECASE)
_ROMAN = frozenset("I II III IV V VI VII VIII IX X XI XII XIII XIV XV XVI".split())
_PERSON_NOUN = re.compile(
    r",?\s+(?:is|was)\s+an?\s+(?:[\w-]+\s+){0,5}?(?:physicist|chemist|biologist|scientist|mathematician|"
    r"philosopher|writer|author|poet|novelist|painter|artist|composer|musician|singer|actor|actress|politician|"
    r"president|king|queen|emperor|general|engineer|inventor|physician|economist|historian|professor|"
    r"researcher|businessman|businesswoman|entrepreneur|architect|explorer|athlete|footballer|player|"
    r"journalist|lawyer|judge|saint|pope|priest|statesman|diplomat|astronomer|geologist|psychologist)\b",
    re.IGNORECASE,
)
_BORN = re.compile(r"\s*(?:\(\s*born\b|,?\s+was born\b)")
_ET_AL = re.compile(r"\s+et\s+al\b")
_GENE_CUES = frozenset(
    "gene genes protein proteins kinase kinases receptor receptors expression activity levels mrna "
    "transcription knockout deletion mutant mutants variant variants allele alleles signaling signalling "
    "inhibitor inhibitors inhibition activation phosphorylation deficiency polymorphism polymorphisms "
    "locus isoform isoforms".split()
)


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
    passive: bool  # "B is activated by A": the target is the agent
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
        token_starts = [t.start for t in tokens]
        for m in _CITATION.finditer(text):
            for i in range(bisect_left(token_starts, m.start()), bisect_left(token_starts, m.end())):
                self.citation[i] = 1

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
                if entry is None and ci and key_ci.endswith("s") and len(t.key) > 3 and not key_ci.endswith(("ss", "us", "is")):
                    entry = lx.GAZETTEER.get(key_ci[:-1])
                if entry is None and cs:
                    entry = lx.GAZETTEER_EXACT.get(key_cs)
                if entry is not None:
                    best = (j + 1, entry)
                prefix_ci += t.low + " "
                prefix_cs += t.text.replace("’", "'") + ("'s " if t.raw_end > t.end else " ")
            if best is not None:
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
            if nxt is not None and self.joiners[i] == "-" and _SYMBOL_HEAD.match(w) and sum(c.isupper() for c in w) >= 2 \
                    and _SYMBOL_TAIL.match(nxt.text) and w.upper() not in lx.ACRONYM_STOP and tok.sent == nxt.sent:
                symbol = f"{w}-{nxt.text}"
                self.add(i, i + 2, lx.display_name(symbol), _symbol_types(w), 1)
            elif _is_symbol(w) and not (nxt is not None and self.joiners[i] == "/" and nxt.text[:1].isdigit()):
                symbol = w.upper() if _MOUSE_SYMBOL.match(w) else w
                self.add(i, i + 1, lx.display_name(symbol), _symbol_types(symbol), 1)
            elif w.isupper() and w.isalpha() and 3 <= len(w) <= 8 and w not in lx.ACRONYM_STOP and nxt is not None \
                    and nxt.key in _GENE_CUES and self.spaced(i):
                self.add(i, i + 1, w, _symbol_types(w), 1)
            # binomials and abbreviated binomials -----------------------------------------------
            if nxt is not None and _GENUS.match(w) and _LOWER_WORD.match(nxt.text) and self.spaced(i) \
                    and nxt.raw_end == nxt.end and _is_binomial(w, nxt.text):
                types = ("organism", "microbe") if w in lx.ORGANISM_GENERA else ("microbe", "organism")
                name = lx.display_name(f"{w} {nxt.text}")
                binomials.setdefault((w[0].lower(), nxt.text), (name, types))
                self.add(i, i + 2, name, types, 1)
            elif nxt is not None and len(w) == 1 and w.isupper() and self.joiners[i] in (". ", ".") \
                    and _LOWER_WORD.match(nxt.text) and tok.sent == nxt.sent:
                abbreviated.append(i)
            # vitamins --------------------------------------------------------------------------
            if tok.key == "vitamin" and nxt is not None and _VITAMIN.match(nxt.text) and self.spaced(i):
                self.add(i, i + 2, lx.display_name(f"vitamin {nxt.text}"), ("compound",), 1)
            # people ------------------------------------------------------------------------------
            if w in lx.PERSON_TITLES and nxt is not None and _is_cap(nxt.text):
                j = i + 1
                while j + 1 < n and j - i < 3 and self.spaced(j) and _is_cap(toks[j + 1].text):
                    j += 1
                if self.joiners[i].strip() in ("", "."):
                    self.add(i + 1, j + 1, lx.display_name(text[nxt.start : toks[j].end]), ("person",), 1)
            if self.caps[i] and not self.hyphen_after(i) and _ET_AL.match(text, tok.raw_end) and not self.citation[i]:
                self.add(i, i + 1, lx.display_name(w), ("person",), 1)
            # compounds and diseases by suffix ------------------------------------------------------
            if _WORD.match(w) and not self.hyphen_after(i) and (w[0].islower() or self.clause_start(i)):
                key = tok.key
                if key.endswith(lx.COMPOUND_SUFFIXES) and key not in lx.COMPOUND_STOP:
                    self.add(i, i + 1, lx.display_name(w), ("compound",), 2)
                elif key.endswith(lx.DISEASE_SUFFIXES) and key not in lx.DISEASE_STOP:
                    self.add(i, i + 1, lx.display_name(w), ("disease", "phenotype"), 2)
            # "<modifier> disease", "<modifier> cells" ------------------------------------------------
            head = lx.DISEASE_HEADS.get(tok.key)
            if head is not None and i > 0:
                self._modified_phrase(i, head, ("disease",))
            elif tok.key in ("cells", "cell") and i > 0:
                self._cell_phrase(i)
        for i in abbreviated:
            key = (toks[i].key, toks[i + 1].text)
            found = binomials.get(key)
            if found is not None:
                self.add(i, i + 2, found[0], found[1], 1)
            else:
                entry = lx.SPECIES_INDEX.get(key)
                if entry is not None:
                    self.add(i, i + 2, entry.name, entry.types, 1)

    def _modified_phrase(self, h: int, head: str, types: tuple[str, ...]) -> None:
        """"chronic kidney disease", "age-related diseases" -> up to three modifiers before a head."""
        toks = self.tokens
        j = h  # the phrase starts at token j
        while j > 0 and h - j < 3 and self.linked(j - 1) and self.joiners[j - 1] != "/":
            prev = toks[j - 1]
            if prev.key in lx.STOPWORDS or prev.key in lx.NON_MODIFIERS or not prev.text.isalpha():
                break
            in_compound = self.joiners[j - 1] == "-" or (j >= 2 and self.joiners[j - 2] == "-" and toks[j - 2].sent == prev.sent)
            if not (in_compound or _is_modifier(prev)):
                break
            j -= 1
        if j == h:
            return
        surface = self.text[toks[j].start : toks[h - 1].raw_end] + " " + head
        self.add(j, h + 1, lx.display_name(surface), types, 2)

    def _cell_phrase(self, h: int) -> None:
        prev = self.tokens[h - 1]
        if not self.spaced(h - 1) or prev.key in lx.STOPWORDS or prev.key in lx.NON_MODIFIERS:
            return
        if prev.key in lx.CELL_MODIFIERS or (len(prev.text) <= 2 and prev.text.isupper()) \
                or (prev.key.endswith(lx.ADJECTIVE_SUFFIXES) and prev.text.isalpha() and len(prev.key) > 4):
            start = h - 1
            if h >= 2 and self.joiners[h - 2] == "-" and self.tokens[h - 2].sent == prev.sent:
                start = h - 2
            self.add(start, h + 1, lx.display_name(self.text[self.tokens[start].start : prev.end] + " cells"), ("cell_type",), 2)

    def capitalised(self) -> None:
        toks, n, text = self.tokens, len(self.tokens), self.text
        title_like = self._title_like_sentences()
        caps = self.caps
        mid_caps = {toks[i].text for i in range(n) if caps[i] and not self.clause_start(i)}
        i = 0
        while i < n:
            tok = toks[i]
            if not caps[i] or self.citation[i] or self.headings[tok.sent] or tok.sent in title_like \
                    or self.hyphen_after(i) or self.hyphen_before(i):
                i += 1
                continue
            j = i
            while j + 1 < n and self.spaced(j) and tok.sent == toks[j + 1].sent and toks[j].raw_end == toks[j].end:
                nxt = toks[j + 1]
                if caps[j + 1] and not self.hyphen_after(j + 1):
                    j += 1
                elif nxt.key in lx.NAME_PARTICLES and j + 2 < n and self.spaced(j + 1) and caps[j + 2] \
                        and not self.hyphen_after(j + 2):
                    j += 2
                else:
                    break
            if j + 1 < n and self.spaced(j) and toks[j + 1].text in _ROMAN and toks[j + 1].sent == tok.sent:
                j += 1  # "World War I", "Henry VIII"
            start, end = i, j
            at_start = self.clause_start(i)
            while start <= end and (toks[start].key in lx.STOPWORDS or toks[start].key in lx.COMMON_CAPITALISED
                                    or toks[start].text in lx.PERSON_TITLES):
                start += 1
            while end >= start and (toks[end].key in lx.NAME_PARTICLES or toks[end].key in lx.COMMON_CAPITALISED):
                end -= 1
            if start <= end:
                words = [toks[k].text for k in range(start, end + 1)]
                first, last = words[0], words[-1]
                if last in lx.ORG_WORDS or first in lx.ORG_WORDS:
                    types, tier = ("organization",), 2
                elif last in lx.LOCATION_LAST or first in lx.LOCATION_FIRST:
                    types, tier = ("location",), 2
                elif _BORN.match(text, toks[end].raw_end) or (end > start and _PERSON_NOUN.match(text, toks[end].raw_end)):
                    types, tier = ("person",), 2
                else:
                    types, tier = ("concept",), 3
                keep = True
                if at_start and start == i and tier == 3:
                    keep = end > start or first in mid_caps
                if len(words) == 1 and (len(first) < 3 or first.lower() in lx.STOPWORDS or first in lx.DEMONYMS):
                    keep = False
                if tier == 3 and self.in_parens[start]:
                    keep = False
                if keep:
                    surface = text[toks[start].start : toks[end].end]
                    self.add(start, end + 1, lx.display_name(surface), types, tier)
            i = j + 1

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
            if total >= 3 and ratio >= 0.75 and (ratio >= 0.9 or not self.sentences[sent].text.rstrip().endswith(".")):
                out.add(sent)
        return out

    # resolution --------------------------------------------------------------------------------
    def resolve(self) -> list[Mention]:
        toks = self.tokens
        order = sorted(
            self.cands,
            key=lambda c: (-(toks[c[1] - 1].end - toks[c[0]].start), c[4], c[0], c[2]),
        )
        taken = bytearray(len(toks))
        chosen: list[tuple[int, int, str, tuple[str, ...], int]] = []
        for cand in order:
            t0, t1 = cand[0], cand[1]
            if any(taken[t0:t1]):
                continue
            taken[t0:t1] = b"\x01" * (t1 - t0)
            chosen.append(cand)
        chosen.sort(key=lambda c: c[0])
        self._propagate_types(chosen)
        mentions = [self._mention(*c) for c in chosen]
        return self._abbreviations(mentions, taken)

    def _propagate_types(self, chosen: list[tuple[int, int, str, tuple[str, ...], int]]) -> None:
        """A plain capitalised ``concept`` takes the type of a place, person or organisation it is
        listed with ("Vienna, Bratislava and Budapest") or that extends its name ("Danube" and
        "Danube River")."""
        named = ("location", "person", "organization")
        extended: dict[str, tuple[str, ...]] = {}
        surnames: set[str] = set()
        for c in chosen:
            words = c[2].split(" ")
            if c[3][0] == "location" and len(words) > 1 and words[-1] in lx.LOCATION_LAST:
                extended.setdefault(" ".join(words[:-1]), c[3])
            if c[3][0] == "person" and len(words) > 1:
                surnames.add(words[-1])
        toks = self.tokens
        original = [c[3] for c in chosen]  # only types found by a cue spread to neighbours
        for k, c in enumerate(chosen):
            if c[3] != ("concept",) or c[4] != 3:
                continue
            words = c[2].split(" ")
            types = extended.get(c[2])
            if types is None and 1 < len(words) <= 3 and words[-1] in surnames:
                types = ("person",)  # "Pierre Curie" next to the person "Marie Curie"
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

    def _mention(self, t0: int, t1: int, name: str, types: tuple[str, ...], tier: int) -> Mention:
        toks = self.tokens
        start, end = toks[t0].start, toks[t1 - 1].end
        return Mention(start, end, t0, t1, self.text[start:end], name, types, tier, toks[t0].sent)

    def _abbreviations(self, mentions: list[Mention], taken: bytearray) -> list[Mention]:
        """"long form (ABBR)": later single-token uses of ABBR become mentions of the long form.

        ABBR needs two capitals and the long form's initial letter; a gazetteer mention of ABBR
        with another name wins (the definition is then not trusted)."""
        at: dict[int, Mention] = {m.start: m for m in mentions}
        aliases: dict[str, Mention] = {}
        bracketed: set[int] = set()
        for m in mentions:
            d = _ABBREVIATION_DEF.match(self.text, m.end)
            if d is None:
                continue
            abbr = d.group(1)
            if sum(c.isupper() for c in abbr) < 2 or abbr[0].lower() != m.surface[0].lower():
                continue
            if abbr.casefold() == m.surface.casefold():
                continue
            inner = at.get(d.start(1))
            if inner is not None and inner.tier == 0 and inner.name != m.name:
                continue
            aliases.setdefault(abbr, m)
            bracketed.add(d.start(1))
        if not aliases:
            return mentions
        kept = [m for m in mentions if m.start not in bracketed]
        for i, tok in enumerate(self.tokens):
            long_form = aliases.get(tok.text)
            if long_form is None or taken[i] or tok.start in bracketed or tok.start < long_form.end:
                continue
            kept.append(Mention(tok.start, tok.end, i, i + 1, tok.text, long_form.name, long_form.types, 1, tok.sent))
        kept.sort(key=lambda m: m.start)
        return kept


def _is_cap(word: str) -> bool:
    """A capitalised word ("Vienna", "McDonald", "O'Brien"), not an acronym or symbol."""
    if len(word) < 2 or not word[0].isupper() or word.isupper():
        return False
    rest = word[1:].replace("'", "").replace("’", "")
    return rest.isalpha() and any(c.islower() for c in rest)


def _is_symbol(word: str) -> bool:
    if len(word) < 3 or word in lx.SYMBOL_STOP or word.upper() in lx.ACRONYM_STOP:
        return False
    if _MOUSE_SYMBOL.match(word):
        return True
    if not _SYMBOL.match(word):
        return False
    digits = sum(c.isdigit() for c in word)
    letters = sum(c.isalpha() for c in word)
    if letters < 2 or digits > 3:
        return False
    if digits == 0:
        return word[0].islower()  # mTOR-like; plain all-caps words need a cue
    return True


def _symbol_types(symbol: str) -> tuple[str, ...]:
    upper = symbol.upper()
    if upper.startswith(lx.PROTEIN_PREFIXES) or symbol[0].islower():
        return ("protein", "gene")
    return ("gene", "protein")


def _is_binomial(genus: str, species: str) -> bool:
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
    return low.endswith(lx.GENUS_ENDINGS) and species.endswith(lx.SPECIES_ENDINGS) and len(species) >= 4


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
    """Sentences, tokens, entity mentions and relation cues of a text (cached: the three tasks of a
    chunk share one analysis)."""
    sentences = split_sentences(text)
    headings = [s.text.lstrip().startswith("#") for s in sentences]
    tokens = _tokenize(text, sentences)
    rec = _Recogniser(text, sentences, headings, tokens)
    rec.gazetteer()
    rec.patterns()
    rec.capitalised()
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
        if key not in entities:
            etype = _resolve_type(m.types, allowed)
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
                "article": etype in ("location", "organization", "concept") and m.surface[:1].isupper()
                and text[max(0, m.start - 4) : m.start].lower() == "the ",
            }
        row = entities[key]
        row["count"] += 1
        if not row["described"] and not a.headings[m.sent]:
            row["sent"], row["described"] = m.sent, True  # describe by a statement, not a heading
        if row["surface"] is None and m.surface[:1].islower() and m.tier <= 2:
            row["surface"] = _SPACE.sub(" ", m.surface)
        if "first_surface" not in row and not (m.surface.isupper() and not m.name.isupper()):
            row["first_surface"] = _SPACE.sub(" ", m.surface)  # not a shouted "AKKERMANSIA MUCINIPHILA"
        typed.append((m, key))

    built: dict[str, Entity] = {}
    for key, row in entities.items():
        description = clip(a.clean[row["sent"]], MAX_DESCRIPTION_CHARS) or clip(_SPACE.sub(" ", text).strip(), MAX_DESCRIPTION_CHARS)
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
    by_sentence: dict[int, list[tuple[Mention, str]]] = {}
    for m, key in typed:
        by_sentence.setdefault(m.sent, []).append((m, key))
    for sent, items in by_sentence.items():
        if a.headings[sent]:
            continue  # a heading states nothing
        firsts: list[tuple[Mention, str]] = []
        seen: set[str] = set()
        for m, key in items:
            if key not in seen:
                seen.add(key)
                firsts.append((m, key))
        if len(firsts) < 2:
            continue
        pairs: list[tuple[int, int]] = [(k, k + 1) for k in range(len(firsts) - 1)]
        pairs += [(0, k) for k in range(2, len(firsts))]
        sentence = a.sentences[sent]
        description = clip(a.clean[sent], MAX_DESCRIPTION_CHARS)
        if not description:
            continue
        sentence_hits: list[CueHit] | None = None
        for p, q in pairs[:MAX_PAIRS_PER_SENTENCE]:
            (ms, ks), (mt, kt) = firsts[p], firsts[q]
            source, target = built[ks], built[kt]
            pair = (ks, kt)
            if pair in relations:
                continue
            between = cues_between(a, ms.end, mt.start)
            if between:
                tags = _tags(between)
            else:
                if sentence_hits is None:
                    sentence_hits = cues_between(a, sentence.start, sentence.end)
                tags = _tags(sentence_hits) or ["co-occurrence"]
            primary = between[0] if between else None
            passive = neutral = False
            if primary is not None:
                gap = text[ms.end : mt.start]
                # A cue links the two only if nothing else stands between them: no other entity,
                # no second verb cue, no clause break ("X, which inhibits Y"), no negation.
                others = any(ms.end <= m.start and m.end <= mt.start and k not in pair for m, k in items)
                verbs = sum(1 for h in between if h.verbal)
                if _NEGATION.search(gap):
                    neutral = True
                    tags.append("negated")
                elif others or verbs > 1 or _AGENT_GAP_BREAK.search(text, ms.end, primary.start) \
                        or _LOSS_OF.search(text, max(0, ms.start - 30), ms.start) \
                        or _OBJECT_GAP_BREAK.search(text, primary.end, mt.start):
                    neutral = True
                elif primary.verbal:
                    by = _PASSIVE_BY.match(text, primary.end)
                    if _INTRANSITIVE.match(text, primary.end):
                        neutral = True  # "X increased after Y": no object
                    elif primary.surface.lower().endswith(("ed", "bound to")) and by is not None:
                        # "B is activated by A": A must follow "by" closely, with no number between
                        agent_gap = text[by.end() : mt.start]
                        if len(agent_gap) <= 25 and not any(ch.isdigit() for ch in agent_gap):
                            passive = True
                        else:
                            neutral = True
                    elif primary.surface.lower().endswith(("ed", "bound to")) and \
                            _BE_BEFORE.search(text, max(ms.end, primary.start - 40), primary.start):
                        neutral = True
            relations[pair] = Relation(
                source=source,
                target=target,
                keywords=tuple(tags),
                description=description,
                sent=sent,
                cue=primary,
                passive=passive,
                neutral=neutral,
                source_start=ms.start,
                target_start=mt.start,
            )
    return Extraction(entities=tuple(built.values()), relations=tuple(relations.values()))


def extraction_payload(text: str, entity_types: tuple[str, ...] | list[str] | None) -> dict:
    """The ``EntitiesRelationships`` answer for ``text``."""
    allowed = None if entity_types is None else frozenset(t.strip().lower() for t in entity_types)
    result = extract(text, allowed)
    return {
        "entities": [
            {"entity_name": e.name, "entity_type": e.type, "entity_description": e.description}
            for e in result.entities
        ],
        "relationships": [
            {
                "source_entity": r.source.name,
                "target_entity": r.target.name,
                "relationship_keywords": list(r.keywords),
                "relationship_description": r.description,
            }
            for r in result.relations
        ],
    }
