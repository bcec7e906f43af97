"""The query classifier that picks a fusion strategy (seed 004, QueryAwareMerger). What each
strategy changes is a setting: ``config.StrategyPreset``, under ``fusion.strategies``.

The seed merges differently per query type: factual questions prefer authoritative (and recent)
collections with little diversity, analytical ones want diverse perspectives, procedural ones
want step-by-step content. Which type a question is comes from its wording, by the rules below,
checked in this order (the first that matches decides):

1. procedural: it asks how to do something ("how to", "how do/can/should I|we|you|one",
   "what are the steps", "steps to/for", "step by step", "instructions", "procedure", "guide to",
   "tutorial", "walk me through"), or it opens with an imperative verb of doing
   (install, configure, set up, create, build, deploy, ..., not followed by "of");
2. analytical: it asks why or how something works, or to compare, explain or evaluate ("why",
   "how does/do/did/is/are/can <something>", "compare", "difference(s) between", "differ",
   "versus", "vs", "relationship between", "impact of", "effect(s) of", "affect", "pros and cons",
   "advantages", "disadvantages", "trade-off", "explain", "analyse/analyze", "evaluate",
   "implications", "role of", "mechanism");
3. factual: it asks for a fact: opens with who / whom / whose / what / when / where / which,
   "how many / much / old / long / far / big / often", a yes-no auxiliary (is, are, was, were,
   do, does, did, can, could, has, have, had, will, would, should), or "name", "list", "define";
4. general: nothing above matched (also a question in a script these English rules do not cover).

These are general English question cues, not words picked for any test sentence. The rules are
plain and explainable: the reason returned names the cue that decided.
"""

from __future__ import annotations

import re
from typing import NamedTuple

STRATEGIES = ("general", "factual", "analytical", "procedural")


class QueryClass(NamedTuple):
    strategy: str
    reason: str


_PRONOUN = r"(?:i|we|you|one|someone|people)"
# Verbs of doing that open an instruction ("Install the client ..."); words that also open noun
# phrases ("Use of ...", "Start of ...", "Cook County ...") are left out, and "<verb> of" is not
# an instruction.
_DOING_VERBS = (
    "install|configure|set up|setup|create|build|deploy|run|make|write|add|remove|delete|enable|disable|"
    "upgrade|migrate|connect|convert|prepare|compile|troubleshoot|restore|back up|uninstall|initiali[sz]e"
)

# (strategy, compiled rule, cue shown in the reason) in decision order.
_RULES: list[tuple[str, re.Pattern[str], str]] = [
    ("procedural", re.compile(r"^\s*how\s+to\b"), "asks 'how to'"),
    (
        "procedural",
        re.compile(rf"^\s*how\s+(?:do|can|could|should|would|shall|must)\s+{_PRONOUN}\b"),
        "asks how a person does something",
    ),
    ("procedural", re.compile(r"\bwhat\s+are\s+the\s+steps\b|\bsteps?\s+(?:to|for)\b"), "asks for steps"),
    (
        "procedural",
        re.compile(r"\bstep[\s-]+by[\s-]+step\b|\binstructions?\b|\bprocedure\b|\bguide\s+to\b|\btutorial\b"),
        "asks for instructions",
    ),
    ("procedural", re.compile(r"\bwalk\s+(?:me|us)\s+through\b"), "asks to be walked through"),
    (
        "procedural",
        re.compile(rf"^\s*(?:please\s+)?(?:{_DOING_VERBS})\b(?!\s+of\b)"),
        "opens with an imperative verb",
    ),
    ("analytical", re.compile(r"^\s*why\b|\bwhy\s+(?:is|are|do|does|did|was|were)\b"), "asks why"),
    (
        "analytical",
        re.compile(r"^\s*how\s+(?:does|do|did|is|are|was|were|can|could|might|would|will)\b"),
        "asks how something works",
    ),
    (
        "analytical",
        re.compile(
            r"\bcompar(?:e|ed|es|ing|ison)\b|\bdifferences?\s+between\b|\bdiffer(?:s|ent)?\b|\bversus\b|\bvs\.?\s"
        ),
        "asks for a comparison",
    ),
    (
        "analytical",
        re.compile(r"\brelationship\s+between\b|\bimpacts?\s+of\b|\beffects?\s+of\b|\baffects?\b|\brole\s+of\b"),
        "asks about a relationship or effect",
    ),
    (
        "analytical",
        re.compile(r"\bpros\s+and\s+cons\b|\badvantages?\b|\bdisadvantages?\b|\btrade[\s-]?offs?\b|\bimplications?\b"),
        "asks to weigh options",
    ),
    (
        "analytical",
        re.compile(r"\bexplain\b|\banaly[sz](?:e|is)\b|\bevaluate\b|\bassess\b|\bmechanisms?\b"),
        "asks for an explanation or evaluation",
    ),
    ("factual", re.compile(r"^\s*(?:who|whom|whose|what|when|where|which)\b"), "opens with a wh-word"),
    (
        "factual",
        re.compile(r"^\s*how\s+(?:many|much|old|long|far|big|large|tall|often|fast)\b"),
        "asks for a quantity",
    ),
    (
        "factual",
        re.compile(r"^\s*(?:is|are|was|were|do|does|did|can|could|has|have|had|will|would|should)\b"),
        "asks a yes-no question",
    ),
    ("factual", re.compile(r"^\s*(?:name|list|define|identify)\b"), "asks to name or list"),
]


def classify_query(query: str) -> QueryClass:
    """The strategy for a question from its wording (rules in the module docstring), and why."""
    text = " ".join(str(query or "").split()).lower()
    if not text:
        return QueryClass("general", "empty query: no cue")
    for strategy, rule, cue in _RULES:
        match = rule.search(text)
        if match:
            return QueryClass(strategy, f"{strategy}: {cue} ({match.group(0).strip()!r})")
    return QueryClass("general", "general: no factual, analytical or procedural cue in the wording")
