"""Offline rationale QA: the decomposer and the reasoner of PIKE-RAG without an LLM.

Query-time only (ingestion never calls it, so ``llm/versions.py`` leaves it out of the offline
heuristics' version: changing it re-processes no chunk).

**Key phrases** of a text are the entity names the offline extractor finds in it (the same
recognisers as ingestion), then the longest runs of content words (words that are not stop words
nor question words) the names do not cover, longest first.

**Decomposer** (``propose_sub_questions``): given the goal, the chunks gathered so far and the
sub-questions already asked, propose up to ``n`` new ones, in this order:
1. the goal itself, in the first round (atomic questions are phrased like questions, so the whole
   question is the most direct probe);
2. for each name in the goal (entity names; the longest content-word runs when it has none) that
   no gathered chunk mentions yet: ``What is <name>?``;
3. bridges: names in the gathered chunks that share a sentence with a name of the goal and are not
   in the goal (the next hop of a multi-hop question), as
   ``What is the relation between <bridge> and <goal name>?`` then ``What is <bridge>?``;
4. for each name of the goal (mentioned or not): ``What does <name> do?``.
Nothing already asked (case-insensitive) is proposed again, so the loop ends when nothing new is left;
and nothing is proposed once the context *covers* the goal (it mentions every name of the goal and
holds every content word of it): then it is time to answer.

**Reasoner** (``extractive_answer``): the sentences of the gathered chunks that share the most
content with the goal (overlap of content-word stems, each stem weighted by its inverse frequency
among the sentences, so rare words count more; times 1 + the number of the goal's key phrases the
sentence names),
at most ``max_sentences``, in the order they were gathered. No sentence sharing a content word
means the context does not answer, and the answer says so.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from kg_pipelines.ingestion.names import node_key
from kg_pipelines.ingestion.sentences import split_sentences
from kg_pipelines.llm.grounding import STOP_WORDS, stem, words

QUESTION_WORDS = frozenset(
    "what which who whom whose when where why how does do did is are was were can could should would "
    "tell explain describe name list give show".split()
)
_WORD = re.compile(r"[^\W_]+(?:['’\-][^\W_]+)*\+?")
MAX_PHRASE_WORDS = 4
NO_ANSWER = "The gathered context does not answer the question."


def _content_word(word: str) -> bool:
    lowered = word.casefold()
    return lowered not in STOP_WORDS and lowered not in QUESTION_WORDS and (len(word) > 2 or word.isdigit())


def key_phrases(text: str, limit: int = 8, names_only: bool = False) -> list[str]:
    """Entity names the offline extractor finds in ``text``, then runs of content words they do not
    cover (see the module doc); case-insensitively unique, at most ``limit``."""
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


def _mentions(text_key: str, phrase: str) -> bool:
    key = node_key(phrase)
    return bool(key) and re.search(r"(?<!\w)" + re.escape(key) + r"(?!\w)", text_key) is not None


def propose_sub_questions(goal: str, context: list[str], asked: list[str], n: int) -> list[str]:
    """Up to ``n`` sub-questions to look up next (see the module doc); [] when nothing new is left."""
    asked_keys = {q.casefold().strip() for q in asked}
    proposals: list[str] = []

    def propose(question: str) -> None:
        key = question.casefold().strip()
        if key and key not in asked_keys and key not in {p.casefold() for p in proposals}:
            proposals.append(question)

    goal_phrases = key_phrases(goal)
    goal_names = key_phrases(goal, names_only=True) or goal_phrases[:2]
    context_key = node_key(" ".join(context))
    if context and covers(goal, goal_names, context, context_key):
        return []  # the context names everything the goal asks about: time to answer
    if not context:
        propose(goal.strip())
    for phrase in goal_names:
        if not _mentions(context_key, phrase):
            propose(f"What is {phrase}?")
    for bridge, anchor in _bridges(goal_names, context):
        propose(f"What is the relation between {bridge} and {anchor}?")
        propose(f"What is {bridge}?")
    for phrase in goal_names:
        propose(f"What does {phrase} do?")
    return proposals[:n]


def covers(goal: str, goal_names: list[str], context: list[str], context_key: str) -> bool:
    """Whether the gathered context mentions every name of the goal and holds every content word
    of it (compared by stem)."""
    if not all(_mentions(context_key, name) for name in goal_names):
        return False
    context_stems = {stem(w) for chunk in context for w in words(chunk)}
    return all(stem(w) in context_stems for w in words(goal) if _content_word(w))


def _bridges(goal_phrases: list[str], context: list[str]) -> list[tuple[str, str]]:
    """(bridge phrase, goal phrase) pairs: a phrase of the gathered chunks that shares a sentence with
    a phrase of the goal and is not itself in the goal; latest chunk first (the newest hop)."""
    goal_keys = {node_key(p) for p in goal_phrases}
    pairs: list[tuple[str, str]] = []
    seen: set[str] = set()
    for chunk in reversed(context):
        for sentence in split_sentences(chunk):
            sentence_key = node_key(sentence.text)
            anchors = [p for p in goal_phrases if _mentions(sentence_key, p)]
            if not anchors:
                continue
            for phrase in key_phrases(sentence.text, limit=6, names_only=True):
                key = node_key(phrase)
                if key in goal_keys or key in seen or any(key in g or g in key for g in goal_keys):
                    continue
                seen.add(key)
                pairs.append((phrase, anchors[0]))
    return pairs


@dataclass
class ExtractiveAnswer:
    answer: str
    supported: bool
    sentences: list[tuple[int, str]]  # (context index, sentence) of each sentence used


def extractive_answer(goal: str, context: list[str], max_sentences: int = 4) -> ExtractiveAnswer:
    """The gathered sentences that share the most with the goal (see the module doc)."""
    goal_stems = {stem(w) for w in words(goal) if _content_word(w)}
    goal_phrases = key_phrases(goal)
    sentences = [(i, s.text.strip()) for i, chunk in enumerate(context) for s in split_sentences(chunk)]
    sentences = [(i, s.lstrip("#-*• ").strip()) for i, s in sentences if len(s.strip()) > 1]
    if not goal_stems or not sentences:
        return ExtractiveAnswer(NO_ANSWER, False, [])
    stems_of = [{stem(w) for w in words(s) if _content_word(w)} for _i, s in sentences]
    frequency: dict[str, int] = {}
    for found in stems_of:
        for s in found:
            frequency[s] = frequency.get(s, 0) + 1
    total = len(sentences)
    scored = []
    for position, ((index, sentence), found) in enumerate(zip(sentences, stems_of)):
        shared = goal_stems & found
        if not shared:
            continue
        score = sum(math.log(1 + total / frequency[s]) for s in shared)
        sentence_key = node_key(sentence)
        score *= 1 + sum(_mentions(sentence_key, p) for p in goal_phrases)
        scored.append((score, position, index, sentence))
    if not scored:
        return ExtractiveAnswer(NO_ANSWER, False, [])
    best = sorted(scored, key=lambda s: (-s[0], s[1]))[:max_sentences]
    best.sort(key=lambda s: s[1])  # reading order
    used = [(index, sentence) for _score, _position, index, sentence in best]
    return ExtractiveAnswer(" ".join(sentence for _index, sentence in used), True, used)
