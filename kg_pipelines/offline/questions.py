"""Atomic questions a chunk can directly answer, built from its entities and relationships.

In order of preference (the first ``target`` distinct ones are kept, ``target`` being 7 clamped to
[min, max]):

1. definitions: a sentence that opens with an entity followed by "is a/an/the ..." gives
   "What is X?";
2. one question per relationship, best cues first: an active verb cue gives "What does A
   activate?" (the agent of a passive "B is activated by A" is A); an association gives "What is A
   associated with?"; an effect cue gives "What effect does A supplementation have on B?"; a
   place cue gives "Where is A located?" / "What is A the capital of?"; anything else (negated,
   agentless passive, plain co-occurrence) gives "How is A related to B?";
3. one question per entity not named yet: "What role does X play in Y?" for an actor (gene,
   compound, microbe, ...) that shares a sentence with a disease, phenotype or process Y, else
   "What does the text state about X?";
4. the second question of each verb or association relationship ("Which compound activates B?").

If fewer than ``min`` come out (short chunks, few entities), key phrases of the text (runs of
content words, most frequent first) fill up with "What does the text state about <phrase>?".
Every question names its subject, ends with "?" and is distinct from the others (case-insensitive).
"""

from __future__ import annotations

import re
from collections import Counter

from kg_pipelines.offline import lexicon as lx
from kg_pipelines.offline.entities import Analysis, Entity, Extraction, Relation, analyze, extract

TARGET = 7
_DEFINITION = re.compile(
    r"\s*(?:\([^()]{0,80}\)\s*)?(?:,[^,.;]{1,80},\s*)?(is|are|was|were)\s+"
    r"(?:a|an|the|one|known|defined|considered|called|named|regarded|described|among|part)\b",
    re.IGNORECASE,
)
_DETERMINER = re.compile(r"\s*(?:#{1,6}\s*|[-*+•]\s+)?(?:(the|a|an)\s+)?$", re.IGNORECASE)
_LOWER_FIRST = re.compile(r"^[A-Z][a-z]+(?:[ -][a-z]+)*$")
_COMMON_NOUN_TYPES = frozenset(
    "compound geroprotector disease phenotype lifespan_outcome biological_process aging_hallmark pathway "
    "cell_type anatomy intervention biomarker".split()
)
_GIVEN_TYPES = frozenset("compound geroprotector intervention microbe".split())
_PLURAL_TYPES = frozenset("cell_type organism model_organism intervention compound microbe biomarker anatomy".split())


def _q(entity: Entity) -> str:
    """How a question names the entity: as the text writes it, mid-sentence casing."""
    surface = " ".join(entity.surface.split())
    if entity.type in _COMMON_NOUN_TYPES and _LOWER_FIRST.match(surface) and surface.lower() != surface:
        return surface[0].lower() + surface[1:]
    return f"the {surface}" if entity.article else surface


def _plural(entity: Entity) -> bool:
    last = _q(entity).split(" ")[-1].lower()
    if last in lx.PLURAL_WORDS:
        return True
    return entity.type in _PLURAL_TYPES and last.endswith("s") and not last.endswith(("ss", "us", "is"))


def _noun(entity: Entity) -> str | None:
    return lx.TYPE_NOUN.get(entity.type)


def _which(entity: Entity) -> str:
    if entity.type == "person":
        return "Who"
    noun = _noun(entity)
    return f"Which {noun}" if noun else "What"


def _relation_questions(r: Relation) -> list[str]:
    s, t = r.source, r.target
    hit = r.cue
    if hit is not None and not r.neutral:
        cue = hit.cue
        if cue.kind == "verb" and hit.verbal and cue.base:
            agent, patient = s, t  # a passive was reversed already: the source acts
            do = "do" if _plural(agent) else "does"
            return [f"What {do} {_q(agent)} {cue.base}?", f"{_which(agent)} {cue.tag} {_q(patient)}?"]
        if cue.kind == "assoc":
            be = "are" if _plural(s) else "is"
            return [f"What {be} {_q(s)} associated with?", f"{_which(s)} is associated with {_q(t)}?"]
        if cue.kind == "effect":
            agent, other = s, t
            if t.type in _GIVEN_TYPES and s.type not in _GIVEN_TYPES:
                agent, other = t, s
            noun = cue.tag if cue.tag in ("supplementation", "treatment", "deficiency", "knockout") else ""
            if cue.tag in ("supplementation", "treatment") and agent.type not in _GIVEN_TYPES:
                noun = None  # only something given (a compound, a diet) is a treatment
            if noun is not None:
                name = _q(agent)
                if noun and noun not in name.lower():
                    name = f"{name} {noun}"
                return [f"What effect does {name} have on {_q(other)}?"]
        if cue.tag == "located in":
            return [f"Where is {_q(s)} located?"]
        if cue.tag == "capital of":
            return [f"What is {_q(s)} the capital of?", f"What is the capital of {_q(t)}?"]
    be = "are" if _plural(s) else "is"
    return [f"How {be} {_q(s)} related to {_q(t)}?"]


def _relation_rank(r: Relation) -> tuple[int, int, int]:
    hit = r.cue
    if hit is None or r.neutral:
        kind = 3
    elif hit.cue.kind == "verb" and hit.verbal:
        kind = 0
    elif hit.cue.kind in ("assoc", "effect", "place"):
        kind = 1
    else:
        kind = 2
    return (kind, r.sent, r.source_start)


def _definitions(a: Analysis, ex: Extraction) -> list[tuple[str, str]]:
    """(entity key, "What is X?") for sentences that open by defining an entity."""
    by_name = {e.name.casefold(): e for e in ex.entities}
    out: list[tuple[str, str]] = []
    for m in a.mentions:
        sentence = a.sentences[m.sent]
        lead = _DETERMINER.match(a.text, sentence.start, m.start)
        if lead is None:
            continue
        d = _DEFINITION.match(a.text, m.end)
        entity = by_name.get(m.name.casefold())
        if d is None or entity is None:
            continue
        out.append((entity.name.casefold(), f"What {d.group(1).lower()} {_q(entity)}?"))
    return out


def _entity_questions(
    ex: Extraction, named: set[str]
) -> tuple[list[tuple[str, tuple[str, ...]]], list[tuple[str, str]]]:
    """("What role does X play in Y?" questions, "What does the text state about X?" questions)
    for the entities not named yet, most mentioned first."""
    context: dict[str, Entity] = {}
    for r in ex.relations:
        for actor, other in ((r.source, r.target), (r.target, r.source)):
            if "negated" in r.keywords:
                continue
            if actor.type in lx.ACTOR_TYPES and other.type in lx.CONTEXT_TYPES and actor.type != other.type:
                context.setdefault(actor.name, other)
    roles: list[tuple[str, tuple[str, ...]]] = []
    generic: list[tuple[str, str]] = []
    for e in sorted(ex.entities, key=lambda e: (-e.count, e.first_start)):
        if e.name.casefold() in named:
            continue
        other = context.get(e.name)
        if other is not None:
            roles.append((f"What role does {_q(e)} play in {_q(other)}?", (e.name.casefold(), other.name.casefold())))
        else:
            generic.append((e.name.casefold(), f"What does the text state about {_q(e)}?"))
    return roles, generic


def _key_phrases(a: Analysis) -> list[str]:
    """Runs of up to three content words (one sentence, white space between), most frequent first."""
    verbs = {c.start for c in a.cues if c.verbal}
    tokens = [t for t in a.tokens if _content_token(t.key) and t.start not in verbs]
    freq: Counter[str] = Counter(t.key for t in tokens)
    runs: list[list] = []
    for t in tokens:
        last = runs[-1][-1] if runs else None
        if last is not None and last.sent == t.sent and a.text[last.raw_end : t.start].isspace():
            runs[-1].append(t)
        else:
            runs.append([t])
    phrases: dict[str, tuple[float, int, str]] = {}
    for run in runs:
        for size in (3, 2, 1):
            for k in range(len(run) - size + 1):
                words = run[k : k + size]
                surface = " ".join(a.text[words[0].start : words[-1].end].split())
                score = sum(freq[w.key] for w in words) / size + 0.3 * (size - 1)
                phrases.setdefault(surface.casefold(), (score, words[0].start, surface))
    return [p[2] for p in sorted(phrases.values(), key=lambda p: (-p[0], p[1]))]


def _content_token(key: str) -> bool:
    return (
        len(key) >= 3
        and key not in lx.STOPWORDS
        and key not in lx.COMMON_CAPITALISED
        and not key.isdigit()
        and any(c.isalpha() for c in key)
    )


class _Picker:
    def __init__(self, high: int):
        self.high = high
        self.items: list[str] = []
        self.seen: set[str] = set()

    def add(self, question: str, limit: int) -> bool:
        if len(self.items) >= min(limit, self.high):
            return False
        question = " ".join(question.split())
        question = question[0].upper() + question[1:]
        if not question.endswith("?"):
            question = question.rstrip(".!") + "?"
        key = question.casefold()
        if key in self.seen:
            return False
        self.seen.add(key)
        self.items.append(question)
        return True


def generate_questions(text: str, low: int, high: int) -> list[str]:
    """Between ``low`` and ``high`` distinct questions (``high`` wins if they disagree), spread over
    the chunk's entities: candidates are taken in order of preference, but in rounds, a question
    being taken in round r only while each entity it names has fewer than r questions, so a chunk
    with five entities gets questions about five entities, not five about one."""
    low, high = max(0, int(low)), max(0, int(high))
    low = min(low, high)
    target = max(low, min(high, TARGET))
    a = analyze(text)
    ex = extract(text, None)
    relations = sorted(ex.relations, key=_relation_rank)
    rel_questions = [_relation_questions(r) for r in relations]

    candidates: list[tuple[str, tuple[str, ...]]] = []  # (question, keys of the entities it names)
    named: set[str] = set()
    for key, q in _definitions(a, ex):
        candidates.append((q, (key,)))
        named.add(key)

    def keys(r: Relation, k: int) -> tuple[str, ...]:
        s, t = r.source.name.casefold(), r.target.name.casefold()
        if k == 0:
            return (s, t) if _relation_rank(r)[0] <= 1 else (s, t)
        return (t,)

    strong = [(r, qs) for r, qs in zip(relations, rel_questions) if _relation_rank(r)[0] <= 1]
    weak = [(r, qs) for r, qs in zip(relations, rel_questions) if _relation_rank(r)[0] > 1]
    for r, qs in strong:
        candidates.append((qs[0], keys(r, 0)))
        named.update(keys(r, 0))
    roles, generic = _entity_questions(ex, named)
    candidates += roles
    for r, qs in strong:
        candidates += [(q, keys(r, 1)) for q in qs[1:]]
    for r, qs in weak:
        candidates.append((qs[0], keys(r, 0)))
    candidates += [(q, (key,)) for key, q in generic]

    picker = _Picker(high)
    counts: Counter[str] = Counter()
    taken: set[int] = set()
    for cap in (1, 2, 3, 1_000_000):
        for i, (q, names) in enumerate(candidates):
            if i in taken or any(counts[k] >= cap for k in names):
                continue
            if picker.add(q, target):
                taken.add(i)
                counts.update(names)
            elif len(picker.items) >= min(target, high):
                break
    if len(picker.items) < low:  # short chunk, few entities: fill up from entities and key phrases
        for e in sorted(ex.entities, key=lambda e: (-e.count, e.first_start)):
            picker.add(f"What does the text state about {_q(e)}?", low)
        phrases = _key_phrases(a) if len(picker.items) < low else []
        for template in ("What does the text state about {}?", "Which details does the text give about {}?"):
            for phrase in phrases:
                if len(picker.items) >= low:
                    break
                picker.add(template.format(phrase), low)
    n = 1
    subject = " ".join(lx.TOKEN_RE.findall(text)[:6]) or "this text"
    while len(picker.items) < low:  # degenerate text: hardly any words
        picker.add(f"What does part {n} of the text state about {subject}?", low)
        n += 1
    return picker.items
