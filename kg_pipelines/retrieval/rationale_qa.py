"""Agentic rationale QA (seed 003, after PIKE-RAG): decompose, look up atomic questions, reason.

The loop, as the seed writes it:

1. ``accumulated_context`` starts empty.
2. At most ``max_iterations`` (5) rounds:
   - the **decomposer** proposes ``sub_questions`` (3) new sub-questions from the goal and the
     context gathered so far (it never repeats one already asked: one that led to a chunk or found
     nothing new; a sub-question whose match lost the round to another's may come back, and the
     question itself comes back while other chunks name what it names as much as the one it led to);
   - each sub-question is a vector query against the atomic-question index ``questions__<c>`` of
     every collection asked, each embedded with that collection's own model;
   - the top-matching atomic question whose chunk is not in the context yet is selected: the
     highest cosine similarity when the collections share one embedding model, else the first of
     ``fuse`` over the per-collection rankings (scores of different models are never compared);
   - no match, or a similarity below ``min_similarity``: the loop stops;
   - else the ``ANSWERS_IN`` edge (from the graph snapshot; without one, the chunk id the
     question's row carries, written by the same stage) leads from the atomic question to its
     chunk, whose text (from LanceDB ``chunks__<c>``) joins the context.
3. The **reasoner** answers from the goal and the context. The context handed to it is cut to the
   request's token budget: with several collections by ``fuse`` (strategy, budget, primacy/recency
   order), with one in the order the chunks were gathered.

Providers: ``offline`` decomposes with key phrases and answers extractively
(``kg_pipelines.offline.rationale``); ``openai`` uses the LLM for both (``LLMClient.decompose`` /
``reason``). An LLM failing mid-loop does not fail the request: the answer is built from what was
gathered (extractively) and ``degraded`` says what failed and when.

The result carries the whole trace (each round's sub-questions, their best atomic questions with
scores, the chunk added, why the loop stopped) and the sources. Nothing here opens DuckDB.
"""

from __future__ import annotations

import logging
import math
import re
import uuid
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

from kg_pipelines.collections import validate_collection_name
from kg_pipelines.graph.stated_aliases import stated_names
from kg_pipelines.ingestion.names import is_blank, node_key
from kg_pipelines.llm.client import LLMClient, LLMError
from kg_pipelines.offline.rationale import NO_ANSWER, number_sentences, propose_sub_questions, reason
from kg_pipelines.retrieval.chunk_retrieval import ensure_fts_index
from kg_pipelines.retrieval.fusion import FusionConfig, RetrievedItem, fuse
from kg_pipelines.stores.vectors import VectorStore, vectors_exist

log = logging.getLogger(__name__)

STRATEGIES = ("auto", "general", "factual", "analytical", "procedural")
MAX_LINKED_CHUNKS = 200  # chunks a sub-question's entities may restrict the atomic-question search to


class QAError(ValueError):
    """A request the QA refuses (the message says why and what is allowed)."""


class QAUnavailable(RuntimeError):
    """The QA cannot run as configured (e.g. the openai provider without a key or endpoint)."""


@dataclass
class AtomicMatch:
    sub_question: str
    atomic_question: str
    question_id: str
    chunk_id: str
    collection: str
    score: float  # cosine similarity in its collection's embedding space
    # graph entities the sub-question names that led to this chunk (MENTIONS edges); empty when
    # the match came from the whole index
    linked: list[str] = field(default_factory=list)
    # how specific those names are: the sum of ln(1 + chunks / chunks naming each) the chunk scored
    # (``linked_chunks``); 0 when not linked
    link_weight: float = 0.0


@dataclass
class Round:
    iteration: int
    sub_questions: list[str]
    matches: list[AtomicMatch]  # the best atomic question of each sub-question and collection
    selected: AtomicMatch | None = None
    chunk_added: str | None = None
    stop_reason: str | None = None


@dataclass
class ContextChunk:
    chunk_id: str
    document_id: str
    collection: str
    title: str | None
    text: str
    via_question: str  # the atomic question that led to it
    score: float
    round: int


@dataclass
class QAResult:
    question: str
    answer: str
    supported: bool
    collections: list[str]
    provider: str
    rounds: list[Round] = field(default_factory=list)
    context: list[ContextChunk] = field(default_factory=list)  # as handed to the reasoner
    gathered: int = 0  # chunks gathered by the loop (the context may be cut to the budget)
    sources: list[dict] = field(default_factory=list)
    stop_reason: str = ""
    degraded: str | None = None  # what failed, when the answer had to do without the LLM
    strategy: str | None = None
    token_budget: int | None = None
    tokens_used: int | None = None
    edge_ids: list[str] = field(default_factory=list)  # the ANSWERS_IN edges followed
    # the sentences the answer rests on (id "p.s": passage p of the context, sentence s), each with
    # its chunk; for an unsupported answer, the closest sentences found
    evidence: list[dict] = field(default_factory=list)
    answer_entity: str | None = None  # what the answer names (offline reasoner), when supported
    bridges: list[str] = field(default_factory=list)  # entities a two-hop answer went through

    def to_dict(self) -> dict:
        return asdict(self)


# -- validation -------------------------------------------------------------------------------------


def available_collections(store: VectorStore) -> list[str]:
    """Collections with an atomic-question index."""
    return sorted(name.split("__", 1)[1] for name in store.table_names() if name.startswith("questions__"))


def validate_qa(
    question: str, collections: Sequence[str] | None, strategy: str, token_budget: int | None, settings, known
) -> tuple[str, list[str], int]:
    """(question, collections, token budget) checked against the limits, or QAError saying why."""
    rules = settings.rationale_qa
    if not isinstance(question, str) or is_blank(question):
        raise QAError("question is empty: ask something, e.g. 'Which bacterium does Oleoylethanolamide increase?'")
    question = " ".join(question.split())
    if len(question) > rules.max_question_chars:
        raise QAError(f"question is {len(question)} characters long; at most {rules.max_question_chars} are allowed")
    if strategy not in STRATEGIES:
        raise QAError(f"unknown strategy {strategy!r}; use one of {', '.join(STRATEGIES)}")
    budget = settings.fusion.max_context_tokens if token_budget is None else token_budget
    if not 1 <= budget <= settings.api.max_token_budget:
        raise QAError(f"token budget must be between 1 and {settings.api.max_token_budget}, got {budget}")
    if collections:
        if len(collections) > settings.api.max_collections:
            raise QAError(f"at most {settings.api.max_collections} collections per question, got {len(collections)}")
        for name in collections:
            try:
                validate_collection_name(name)
            except ValueError as exc:
                raise QAError(str(exc)) from None
        unknown = sorted(set(collections) - set(known))
        if unknown:
            raise QAError(
                f"unknown collection(s) {', '.join(repr(u) for u in unknown)}; "
                f"known: {', '.join(known) or '(none yet: ingest documents first)'}"
            )
        chosen = list(dict.fromkeys(collections))
    else:
        chosen = list(known)
    return question, chosen, budget


# -- the two roles ------------------------------------------------------------------------------


@dataclass
class Reasoned:
    """The reasoner's answer: the text, whether the context supports it, and the sentence ids
    (``p.s``) it rests on."""

    answer: str
    supported: bool
    sentence_ids: list[str] = field(default_factory=list)
    answer_entity: str | None = None
    bridges: list[str] = field(default_factory=list)


class OfflineRationale:
    """The graph-aware decomposer and extractive reasoner of ``kg_pipelines.offline.rationale``.
    ``known_names``: names of the graph's entities in the gathered chunks (set by the loop)."""

    name = "offline"

    def __init__(self, settings):
        self.max_sentences = settings.rationale_qa.max_answer_sentences
        self.known_names: list[str] = []
        self.descriptions: dict[str, str] = {}  # name -> the graph's description of it (set by the loop)
        self.follows: dict[int, int] = {}  # passage -> the passage it continues in its document (set by the loop)

    def decompose(self, question: str, context: list[str], asked: list[str], n: int) -> list[str]:
        return propose_sub_questions(
            question,
            context,
            asked,
            n,
            known_names=self.known_names,
            descriptions=self.descriptions,
            follows=self.follows,
        )

    def reason(self, question: str, context: list[str]) -> Reasoned:
        found = reason(
            question,
            context,
            self.max_sentences,
            known_names=self.known_names,
            descriptions=self.descriptions,
            follows=self.follows,
        )
        return Reasoned(found.answer, found.supported, found.sentence_ids, found.answer_entity, found.bridges)


class LLMRationale:
    """The LLM decomposes and reasons, through the one client (structured, validated output).

    The reasoner gets the context as numbered sentences and answers with the ids of the sentences
    it rests on and a ``supported`` flag (``AnswerWithSupport``); an answer the client refuses
    (not JSON, off the schema, supported without sentence ids of the context) is asked once more,
    then the loop degrades to the offline reasoner."""

    name = "openai"
    attempts = 2

    def __init__(self, client: LLMClient):
        self.client = client
        self.conversation = f"qa-{uuid.uuid4().hex[:12]}"

    def decompose(self, question: str, context: list[str], asked: list[str], n: int) -> list[str]:
        return self.client.decompose(self.conversation, question, context, asked, n).questions

    def reason(self, question: str, context: list[str]) -> Reasoned:
        sentences = [(sid, text) for sid, _p, text in number_sentences(context)]
        for attempt in range(1, self.attempts + 1):
            try:
                result = self.client.reason_with_support(self.conversation, question, sentences)
            except LLMError as exc:
                if exc.kind != "schema" or attempt == self.attempts:
                    raise
                continue
            answer = result.answer.lstrip("#").strip() or result.answer
            if not result.supported:
                answer = answer if answer.startswith(NO_ANSWER) else f"{NO_ANSWER} {answer}"
            return Reasoned(answer, result.supported, list(result.sentence_ids))
        raise AssertionError("unreachable")  # pragma: no cover


def _reasoned(value) -> Reasoned:
    """A reasoner's return value as ``Reasoned`` (a plain ``(answer, supported)`` pair is accepted)."""
    if isinstance(value, Reasoned):
        return value
    answer, supported = value
    return Reasoned(answer, bool(supported))


def rationale_for(settings, client: LLMClient | None = None):
    if settings.llm.provider == "offline":
        return OfflineRationale(settings)
    if client is None:
        from kg_pipelines.llm.providers import make_provider

        try:
            provider = make_provider(settings.llm)
        except ValueError as exc:
            raise QAUnavailable(f"the LLM provider is not usable: {exc}") from None
        client = LLMClient(provider, settings.resolved_entity_types)
    return LLMRationale(client)


# -- the stores -----------------------------------------------------------------------------------


def _quoted(value: str) -> str:
    """A string literal for a LanceDB filter (the value is an id read from our own tables)."""
    return "'" + value.replace("'", "''") + "'"


def _written_as_name(word: str) -> bool:
    """A word a question writes as a name: capitalised, with a digit, or a capital inside ("mTOR")."""
    return len(word) > 1 and (word[:1].isupper() or any(c.isdigit() or c.isupper() for c in word))


class AtomicQuestionIndex:
    """The ``questions__<c>`` and ``chunks__<c>`` tables of the asked collections, each collection
    queried with its own embedding model."""

    def __init__(
        self,
        store: VectorStore,
        settings,
        collections: list[str],
        embed_for: Callable | None = None,
        answers_in: dict[str, str] | None = None,
        entity_chunks: dict[str, tuple[str, dict[str, list[str]]]] | None = None,
        siblings: dict[str, list[str]] | None = None,
    ):
        from kg_pipelines.embedding import embedder_for

        self.siblings = siblings or {}  # chunk_id -> the other chunks of its document

        # node_key(entity name) -> (name, collection -> chunk ids mentioning it), from the snapshot's MENTIONS
        # support: a sub-question naming entities is looked up among the chunks that mention them
        self.entity_chunks = entity_chunks or {}
        self.chunk_count = len({c for _n, by in self.entity_chunks.values() for ids in by.values() for c in ids})

        # question_id -> chunk_id along the graph's ANSWERS_IN edges (from the snapshot); without a
        # snapshot, the chunk_id each question row carries (the same link, written by the same stage)
        self.answers_in = answers_in or {}

        self.store = store
        self.settings = settings
        self.collections = collections
        self.embed_for = embed_for or (lambda c: embedder_for(settings.embedding_model_for(c), settings.llm))
        self.tables = {c: store.open("questions", c) for c in collections}
        self.chunk_tables = {c: store.open("chunks", c) for c in collections}
        self._writing: dict[str, dict[str, list[str]]] = {}  # word -> chunks_writing(word)
        self._fts_checked: set[str] = set()

    def search(
        self, sub_questions: list[str], k: int, gathered: set[str] = frozenset()
    ) -> dict[str, list[AtomicMatch]]:
        """Per collection, the best ``k`` atomic questions of each sub-question, best first; a
        sub-question naming graph entities is looked up among the chunks not in ``gathered`` that
        mention them (``linked_chunks``)."""
        found: dict[str, list[AtomicMatch]] = {}
        for collection in self.collections:
            table = self.tables.get(collection)
            if table is None or not sub_questions:
                found[collection] = []
                continue
            vectors = self.embed_for(collection).embed(sub_questions)
            hits: list[AtomicMatch] = []
            for sub, vector in zip(sub_questions, vectors):
                names, chunks, weight = self._linked(sub, collection, gathered)
                if names and not chunks:
                    continue  # the graph knows what it names, and no chunk of this collection mentions it
                query = table.search(np.asarray(vector, dtype=np.float32)).metric("cosine")
                if chunks:
                    listed = ", ".join(_quoted(c) for c in chunks)
                    query = query.where(f"chunk_id IN ({listed})", prefilter=True)
                rows = query.limit(k).select(["question_id", "chunk_id", "question", "_distance"]).to_list()
                hits.extend(
                    AtomicMatch(
                        sub_question=sub,
                        atomic_question=r["question"],
                        question_id=r["question_id"],
                        chunk_id=self.answers_in.get(r["question_id"], r["chunk_id"]),
                        collection=collection,
                        score=round(1.0 - float(r["_distance"]), 4),
                        linked=list(names) if chunks else [],
                        link_weight=weight,
                    )
                    for r in rows
                )
            hits.sort(key=lambda m: (-m.score, m.question_id))
            found[collection] = hits
        return found

    def linked_chunks(
        self, sub_question: str, collection: str, gathered: set[str] = frozenset()
    ) -> tuple[list[str], list[str]]:
        """The graph entities ``sub_question`` names (longest word runs first, as entity linking
        does) and the chunks of ``collection`` that mention the most of them (at most
        ``MAX_LINKED_CHUNKS``): ([], []) when it names no entity the graph knows, (names, []) when
        no chunk of ``collection`` mentions them. Chunks in ``gathered`` are left out; when every
        chunk naming them is gathered, the other chunks of those chunks' documents are the
        candidates (a name in a document's title is what the whole document is about), and when
        those are gathered too, nothing restricts the search."""
        names, chunks, _weight = self._linked(sub_question, collection, gathered)
        return names, chunks

    def _linked(
        self, sub_question: str, collection: str, gathered: set[str] = frozenset()
    ) -> tuple[list[str], list[str], float]:
        """``linked_chunks`` and the score of the chunks chosen (the sum of ln(1 + chunks / chunks
        naming each name they mention); 0.0 when none is)."""
        from kg_pipelines.retrieval.entity_linking import FUNCTION_WORDS, question_words

        words = question_words(sub_question)
        found: list[tuple[str, dict[str, list[str]]]] = []
        covered: set[int] = set()
        for length in range(min(8, len(words)), 0, -1) if self.entity_chunks else ():
            for start in range(len(words) - length + 1):
                span = set(range(start, start + length))
                run = words[start : start + length]
                if covered & span or all(w.casefold() in FUNCTION_WORDS or len(w) < 2 for w in run):
                    continue
                entry = self.entity_chunks.get(node_key(" ".join(run)))
                if entry is not None:
                    covered |= span
                    found.append(entry)
        # a word written as a name that is no entity of the graph ("CALERIE", "Swedish", "1997"): the
        # chunks whose text writes it
        for i, word in enumerate(words):
            if i and i not in covered and _written_as_name(word) and word.casefold() not in FUNCTION_WORDS:
                chunks = self.chunks_writing(word)
                if chunks:
                    found.append((word, chunks))
        if not found:
            return [], [], 0.0
        # each chunk scores the names it mentions, a rare name more (ln(1 + chunks / chunks naming
        # it)); the best-scoring chunks of every collection are the candidates
        total = max(1, self.chunk_count)
        scores: dict[tuple[str, str], float] = {}
        for _name, by_collection in found:
            chunks = {(c, chunk) for c, ids in by_collection.items() for chunk in ids}
            weight = math.log(1 + total / max(1, len(chunks)))
            for key in chunks:
                scores[key] = scores.get(key, 0.0) + weight
        fresh = {key: v for key, v in scores.items() if key[1] not in gathered}
        if not fresh:  # all gathered: the rest of their documents
            fresh = {
                (c, sibling): v
                for (c, chunk), v in scores.items()
                for sibling in self.siblings.get(chunk, ())
                if sibling not in gathered
            }
            if not fresh:
                return [], [], 0.0
        best = max(fresh.values())
        chosen = sorted(chunk for (c, chunk), v in fresh.items() if c == collection and v >= best - 1e-9)
        chosen = chosen[:MAX_LINKED_CHUNKS]
        return [name for name, _chunks in found], chosen, best if chosen else 0.0

    def chunks_writing(self, word: str) -> dict[str, list[str]]:
        """collection -> the chunks whose text writes ``word`` as a word (case aside), found by the
        chunk tables' full-text index (at most ``MAX_LINKED_CHUNKS`` a collection)."""
        if word in self._writing:
            return self._writing[word]
        pattern = re.compile(r"(?<![\w-])" + re.escape(word) + r"(?![\w-])", re.IGNORECASE)
        found: dict[str, list[str]] = {}
        for collection, table in self.chunk_tables.items():
            if table is None:
                continue
            try:
                if collection not in self._fts_checked:
                    self._fts_checked.add(collection)
                    ensure_fts_index(table)  # rows added since it was built are scanned: they are found
                rows = (
                    table.search(word, query_type="fts")
                    .select(["chunk_id", "text", "_score"])
                    .limit(MAX_LINKED_CHUNKS)
                    .to_list()
                )
            except Exception as exc:  # no FTS index yet (nothing indexed): the word restricts nothing
                log.debug("full-text search for %r in %s failed: %s", word, collection, exc)
                continue
            ids = sorted(r["chunk_id"] for r in rows if pattern.search(r["text"] or ""))
            if ids:
                found[collection] = ids
        self._writing[word] = found
        return found

    def chunk(self, collection: str, chunk_id: str) -> dict | None:
        table = self.chunk_tables.get(collection)
        if table is None:
            return None
        rows = (
            table.search()
            .where(f"chunk_id = {_quoted(chunk_id)}")
            .select(["chunk_id", "document_id", "text"])
            .limit(1)
            .to_list()
        )
        return rows[0] if rows else None


# -- the loop -------------------------------------------------------------------------------------


def answer_question(
    question: str,
    settings,
    collections: Sequence[str] | None = None,
    strategy: str = "auto",
    token_budget: int | None = None,
    rationale=None,
    store: VectorStore | None = None,
    titles: dict[str, str] | None = None,
    embed_for: Callable | None = None,
    answers_in: dict[str, str] | None = None,
    chunk_entities: dict[str, list[str]] | None = None,
    entity_chunks: dict[str, tuple[str, dict[str, list[str]]]] | None = None,
    siblings: dict[str, list[str]] | None = None,
    descriptions: dict[str, str] | None = None,
    previous: dict[str, str] | None = None,
) -> QAResult:
    """Answer ``question`` with the decomposer loop and the reasoner (see the module doc).
    ``titles``: chunk_id -> document title, ``answers_in``: question_id -> chunk_id along the
    ANSWERS_IN edges, ``chunk_entities``: chunk_id -> names of the entities the graph links to it
    ``descriptions``: entity name -> its node's description (all from the graph snapshot; the
    offline reasoner also finds those names in the text, and reads what each is from its description),
    ``previous``: chunk_id -> the chunk before it in its document (a passage going on from another)."""
    rules = settings.rationale_qa
    store = store or VectorStore.for_settings(settings)
    known = available_collections(store)
    question, chosen, budget = validate_qa(question, collections, strategy, token_budget, settings, known)
    rationale = rationale or rationale_for(settings)
    result = QAResult(
        question=question,
        answer=NO_ANSWER,
        supported=False,
        collections=chosen,
        provider=rationale.name,
        token_budget=budget,
    )
    if not chosen:
        result.stop_reason = "no collection has an atomic-question index yet (ingest documents first)"
        result.answer = f"{NO_ANSWER} No collection has been ingested yet."
        return result
    index = AtomicQuestionIndex(store, settings, chosen, embed_for, answers_in, entity_chunks, siblings)
    titles = titles or {}
    gathered: list[ContextChunk] = []
    asked: list[str] = []
    chunk_entities = chunk_entities or {}
    descriptions = descriptions or {}

    def described(names: list[str]) -> dict[str, str]:
        return {n: descriptions[n] for n in names if n in descriptions}

    def known_names(chunks: list[ContextChunk]) -> None:
        if hasattr(rationale, "follows"):
            rationale.follows = _follows(chunks, previous or {})
        if hasattr(rationale, "known_names"):
            rationale.known_names = sorted({n for c in chunks for n in chunk_entities.get(c.chunk_id, ())})
        if hasattr(rationale, "descriptions"):
            rationale.descriptions = described(rationale.known_names)

    goal_weight = 0.0  # the link weight of the chunk the question itself led to, while it is asked again
    for iteration in range(1, rules.max_iterations + 1):
        texts = [c.text for c in gathered]
        known_names(gathered)
        try:
            proposed = rationale.decompose(question, texts, asked, rules.sub_questions)
        except LLMError as exc:
            result.degraded = (
                f"the decomposer failed in round {iteration} ({exc.kind}: {exc.message}); "
                f"the answer rests on the {len(gathered)} chunk(s) gathered before"
            )
            result.stop_reason = "decomposer failed"
            break
        asked_keys = {a.casefold() for a in asked}
        if goal_weight and proposed and question.casefold() not in {p.casefold() for p in proposed}:
            proposed = [question, *proposed]  # the question's own names lead to more chunks yet
        sub_questions = [q for q in proposed if q.strip() and q.casefold() not in asked_keys][: rules.sub_questions]
        round_ = Round(iteration=iteration, sub_questions=sub_questions, matches=[])
        result.rounds.append(round_)
        if not sub_questions:
            round_.stop_reason = result.stop_reason = "the decomposer proposed nothing new"
            break
        per_collection = index.search(sub_questions, rules.candidates_per_sub_question, {c.chunk_id for c in gathered})
        if goal_weight:  # asked again only for chunks naming as much of it as the first one did
            for collection, hits in per_collection.items():
                per_collection[collection] = [
                    m for m in hits if m.sub_question != question or m.link_weight >= goal_weight - 1e-9
                ]
        round_.matches = _best_per_sub_question(per_collection)
        have = {(c.collection, c.chunk_id) for c in gathered}
        fresh = {c: [m for m in hits if (c, m.chunk_id) not in have] for c, hits in per_collection.items()}
        selected = _select(fresh, question, settings)
        # a sub-question is asked once it led to a chunk or found nothing new; one that lost the
        # round to another may be proposed again ("What is <anchor>?" until a chunk naming it is in)
        answered = {m.sub_question for hits in fresh.values() for m in hits}
        asked.extend(
            q for q in sub_questions if q not in answered or (selected is not None and q == selected.sub_question)
        )
        # the question itself, once it (or a sub-question naming just what it names) led to a chunk
        # by those names, is asked again while other chunks name them as much (two passages of one
        # document both writing "NAD+" and "NMN")
        goal_names = next((set(m.linked) for hits in fresh.values() for m in hits if m.sub_question == question), None)
        if (
            selected is not None
            and selected.linked
            and (selected.sub_question == question or set(selected.linked) == goal_names)
        ):
            goal_weight = selected.link_weight
            if question in asked:
                asked.remove(question)
        elif question not in answered:
            goal_weight = 0.0
        if selected is None:
            round_.stop_reason = result.stop_reason = "no atomic question leads to a chunk not gathered yet"
            break
        if selected.score < rules.min_similarity and not selected.linked:
            round_.selected = selected
            round_.stop_reason = result.stop_reason = (
                f"best match {selected.score:.3f} is below the similarity threshold {rules.min_similarity}"
            )
            break
        chunk = index.chunk(selected.collection, selected.chunk_id)
        round_.selected = selected
        if chunk is None:  # the vector index and the chunk table disagree (a sync in progress)
            round_.stop_reason = result.stop_reason = f"chunk {selected.chunk_id} is gone from its collection"
            break
        gathered.append(
            ContextChunk(
                chunk_id=selected.chunk_id,
                document_id=chunk["document_id"],
                collection=selected.collection,
                title=titles.get(selected.chunk_id),
                text=chunk["text"],
                via_question=selected.atomic_question,
                score=selected.score,
                round=iteration,
            )
        )
        round_.chunk_added = selected.chunk_id
        result.edge_ids.append(f"ANSWERS_IN:question:{selected.question_id}->chunk:{selected.chunk_id}")
    else:
        result.stop_reason = f"reached the limit of {rules.max_iterations} rounds"

    result.gathered = len(gathered)
    context = _within_budget(gathered, question, chosen, strategy, budget, settings, result)
    result.context = context
    result.sources = _sources(context)
    texts = [c.text for c in context]
    known_names(context)
    reasoned = None
    if result.degraded is None:
        try:
            reasoned = _reasoned(rationale.reason(question, texts))
        except LLMError as exc:
            result.degraded = (
                f"the reasoner failed ({exc.kind}: {exc.message}); the answer is extracted from the "
                f"{len(context)} gathered chunk(s)"
            )
    if result.degraded is not None:
        names = sorted({n for c in context for n in chunk_entities.get(c.chunk_id, ())})
        found = reason(
            question,
            texts,
            rules.max_answer_sentences,
            known_names=names,
            descriptions=described(names),
            follows=_follows(context, previous or {}),
        )
        reasoned = Reasoned(found.answer, found.supported, found.sentence_ids, found.answer_entity, found.bridges)
        reasoned.answer = f"{reasoned.answer} (Partial answer: {result.degraded}.)"
    result.answer = reasoned.answer.lstrip("#").strip() or NO_ANSWER
    result.supported = reasoned.supported
    result.answer_entity = reasoned.answer_entity
    result.bridges = list(reasoned.bridges)
    result.evidence = _evidence(context, reasoned.sentence_ids)
    return result


def _follows(chunks: list[ContextChunk], previous: dict[str, str]) -> dict[int, int]:
    """Passage index -> the index of the passage right before it in its document, among ``chunks``."""
    at = {c.chunk_id: i for i, c in enumerate(chunks)}
    return {i: at[previous[c.chunk_id]] for i, c in enumerate(chunks) if previous.get(c.chunk_id) in at}


def _evidence(context: list[ContextChunk], sentence_ids: list[str]) -> list[dict]:
    """The cited sentences (ids ``p.s`` of ``number_sentences``) with their chunks."""
    if not sentence_ids or not context:
        return []
    numbered = {sid: (p, text) for sid, p, text in number_sentences([c.text for c in context])}
    out = []
    for sid in sentence_ids:
        if sid in numbered:
            p, text = numbered[sid]
            out.append({"id": sid, "chunk_id": context[p].chunk_id, "collection": context[p].collection, "text": text})
    return out


def _best_per_sub_question(per_collection: dict[str, list[AtomicMatch]]) -> list[AtomicMatch]:
    best: dict[tuple[str, str], AtomicMatch] = {}
    for collection, hits in per_collection.items():
        for match in hits:
            key = (match.sub_question, collection)
            if key not in best or match.score > best[key].score:
                best[key] = match
    return sorted(best.values(), key=lambda m: (-m.score, m.sub_question))


LINK_WEIGHT = 0.2  # similarity a match gains per unit of its linked names' weight (ln(1 + chunks / naming))


def _select(fresh: dict[str, list[AtomicMatch]], question: str, settings) -> AtomicMatch | None:
    """The top-matching atomic question: the highest similarity within one embedding space; across
    collections of different models the first of the rank fusion."""
    lists = {c: hits for c, hits in fresh.items() if hits}
    if not lists:
        return None
    linked = {c: [m for m in hits if m.linked] for c, hits in lists.items()}
    if any(linked.values()):  # chunks the graph says mention what a sub-question names come first
        lists = {c: hits for c, hits in linked.items() if hits}
    models = {settings.embedding_model_for(c) for c in lists}
    if len(models) == 1:  # one embedding space: similarities compare, the best one wins, a match
        # linked by rarer names ahead ("FGF19" over "liver": LINK_WEIGHT per unit of their weight)
        return min(
            (m for hits in lists.values() for m in hits),
            key=lambda m: (-(m.score + LINK_WEIGHT * m.link_weight), m.collection, m.question_id),
        )
    ranked: dict[str, list[RetrievedItem]] = {}
    by_key: dict[tuple[str, str], AtomicMatch] = {}
    for collection, hits in lists.items():
        items, seen = [], set()
        for match in hits:  # best match per chunk, ranked by similarity
            if match.chunk_id in seen:
                continue
            seen.add(match.chunk_id)
            by_key[(collection, match.chunk_id)] = match
            items.append(RetrievedItem(match.chunk_id, collection, match.atomic_question, match.score, len(items) + 1))
        ranked[collection] = items
    config = FusionConfig.from_settings(settings, diversity_factor=0.0, max_context_tokens=1_000_000)
    fused = fuse(ranked, question, config)
    top = fused.ranked[0].item
    return by_key[(top.collection, top.item_id)]


def _within_budget(gathered, question, collections, strategy, budget, settings, result) -> list[ContextChunk]:
    if not gathered:
        return []
    if len(collections) > 1:
        lists: dict[str, list[RetrievedItem]] = {}
        for chunk in gathered:
            items = lists.setdefault(chunk.collection, [])
            items.append(
                RetrievedItem(
                    chunk.chunk_id,
                    chunk.collection,
                    chunk.text,
                    chunk.score,
                    len(items) + 1,
                    document_id=chunk.document_id,
                    title=chunk.title,
                )
            )
        config = FusionConfig.from_settings(settings, strategy=strategy, max_context_tokens=budget)
        fused = fuse(lists, question, config)
        result.strategy, result.tokens_used = fused.strategy, fused.tokens_used
        by_key = {(c.collection, c.chunk_id): c for c in gathered}
        return [by_key[(m.collection, m.item.item_id)] for m in fused.selected]
    from kg_pipelines.ingestion.tokens import default_token_counter

    counter = default_token_counter()
    kept, used = [], 0
    for chunk in gathered:  # the order they were gathered in: each round builds on the previous
        tokens = counter.count(chunk.text)
        if used + tokens > budget:
            continue
        kept.append(chunk)
        used += tokens
    result.tokens_used = used
    return kept


def _sources(context: list[ContextChunk]) -> list[dict]:
    return [
        {
            "chunk_id": c.chunk_id,
            "document_id": c.document_id,
            "collection": c.collection,
            "title": c.title,
            "via_question": c.via_question,
            "score": c.score,
        }
        for c in context
    ]


def format_answer(result: QAResult) -> list[str]:
    """Lines for a terminal: the answer, then the trace and the sources."""
    lines = [result.answer, ""]
    for r in result.rounds:
        lines.append(f"round {r.iteration}: {' | '.join(r.sub_questions) or '(no sub-question)'}")
        if r.selected is not None:
            s = r.selected
            lines.append(f"  best: {s.atomic_question!r} ({s.collection}, {s.score:.3f})")
        if r.chunk_added:
            lines.append(f"  added chunk {r.chunk_added}")
        if r.stop_reason:
            lines.append(f"  stop: {r.stop_reason}")
    if result.stop_reason and not any(r.stop_reason for r in result.rounds):
        lines.append(f"stop: {result.stop_reason}")
    if result.degraded:
        lines.append(f"degraded: {result.degraded}")
    if result.sources:
        lines.append("sources:")
        lines.extend(
            f"  [{i}] {s['title'] or s['document_id']} ({s['collection']}, {s['chunk_id']})"
            for i, s in enumerate(result.sources, 1)
        )
    return lines


def ask(
    settings,
    question: str,
    collections: Sequence[str] | None = None,
    strategy: str = "auto",
    token_budget: int | None = None,
    record: bool = True,
    rationale=None,
) -> QAResult:
    """Rationale QA with titles from the graph snapshot (what the CLI and the API call); the
    ANSWERS_IN edges the answer followed are queued as used when ``record``."""
    from kg_pipelines.retrieval.activations import record_activations
    from kg_pipelines.stores.graph_snapshot import load_graph_snapshot

    snapshot = load_graph_snapshot(settings)
    titles = snapshot.derived("chunk_titles", _chunk_titles) if snapshot is not None else {}
    answers_in = snapshot.derived("answers_in", _answers_in) if snapshot is not None else {}
    chunk_entities = snapshot.derived("chunk_entities", _chunk_entities) if snapshot is not None else {}
    descriptions = snapshot.derived("entity_descriptions", _entity_descriptions) if snapshot is not None else {}
    entity_chunks = snapshot.derived("entity_chunks", _entity_chunks) if snapshot is not None else {}
    siblings = snapshot.derived("chunk_siblings", _chunk_siblings) if snapshot is not None else {}
    previous = snapshot.derived("chunk_previous", _chunk_previous) if snapshot is not None else {}
    store = VectorStore.for_settings(settings) if vectors_exist(settings) else None
    if store is None:  # nothing ingested: validate the request, then say so
        question, chosen, budget = validate_qa(question, collections, strategy, token_budget, settings, [])
        return QAResult(
            question=question,
            answer=f"{NO_ANSWER} No collection has been ingested yet.",
            supported=False,
            collections=chosen,
            provider=settings.llm.provider,
            stop_reason="no collection has an atomic-question index yet (ingest documents first)",
            token_budget=budget,
        )
    result = answer_question(
        question,
        settings,
        collections,
        strategy,
        token_budget,
        rationale=rationale,
        store=store,
        titles=titles,
        answers_in=answers_in,
        chunk_entities=chunk_entities,
        descriptions=descriptions,
        entity_chunks=entity_chunks,
        siblings=siblings,
        previous=previous,
    )
    if record and result.edge_ids:
        record_activations(settings, result.edge_ids, "qa")
    return result


def _chunk_titles(snapshot) -> dict[str, str]:
    chunks = snapshot.chunks
    return dict(zip(chunks.column("chunk_id").to_pylist(), chunks.column("title").to_pylist()))


def _answers_in(snapshot) -> dict[str, str]:
    """question_id -> chunk_id of the snapshot's ANSWERS_IN edges (question:<id> -> chunk:<id>)."""
    import pyarrow.compute as pc

    edges = snapshot.edges.filter(pc.equal(snapshot.edges.column("edge_type"), "ANSWERS_IN"))
    sources = edges.column("source_id").to_pylist()
    targets = edges.column("target_id").to_pylist()
    return {
        s.removeprefix("question:"): t.removeprefix("chunk:")
        for s, t in zip(sources, targets)
        if s.startswith("question:") and t.startswith("chunk:")
    }


def _chunk_entities(snapshot) -> dict[str, list[str]]:
    """chunk_id -> names of the entity nodes the chunk supports (the graph's own names for what the
    chunk mentions, merged aliases included)."""
    import pyarrow.compute as pc

    nodes = snapshot.nodes.filter(pc.equal(snapshot.nodes.column("node_kind"), "entity"))
    names = dict(zip(nodes.column("node_id").to_pylist(), nodes.column("name").to_pylist()))
    support = snapshot.node_support
    out: dict[str, list[str]] = {}
    for node_id, chunk_id in zip(support.column("node_id").to_pylist(), support.column("chunk_id").to_pylist()):
        name = names.get(node_id)
        if name:
            out.setdefault(chunk_id, []).append(name)
    return out


def _entity_descriptions(snapshot) -> dict[str, str]:
    """entity name -> its node's description (the sentence the graph describes it by)."""
    import pyarrow.compute as pc

    nodes = snapshot.nodes.filter(pc.equal(snapshot.nodes.column("node_kind"), "entity"))
    out: dict[str, str] = {}
    for name, description in zip(nodes.column("name").to_pylist(), nodes.column("description").to_pylist()):
        if name and description and name not in out:
            out[name] = description
    return out


def _entity_chunks(snapshot) -> dict[str, tuple[str, dict[str, list[str]]]]:
    """node_key(entity name) -> (name, collection -> chunk ids that mention it): the MENTIONS support
    read the other way round (nodes of one name, typed differently, share one entry)."""
    import pyarrow.compute as pc

    nodes = snapshot.nodes.filter(pc.equal(snapshot.nodes.column("node_kind"), "entity"))
    names = dict(zip(nodes.column("node_id").to_pylist(), nodes.column("name").to_pylist()))
    support = snapshot.node_support
    out: dict[str, tuple[str, dict[str, list[str]]]] = {}
    for node_id, chunk_id, collection in zip(
        support.column("node_id").to_pylist(),
        support.column("chunk_id").to_pylist(),
        support.column("collection").to_pylist(),
    ):
        name = names.get(node_id)
        if not name:
            continue
        chunks = out.setdefault(node_key(name), (name, {}))[1].setdefault(collection, [])
        if chunk_id not in chunks:
            chunks.append(chunk_id)
    # a name the node's description states for it ("fibroblast growth factor 23 (FGF23)") links too,
    # unless a node of its own has that name
    descriptions = dict(zip(nodes.column("node_id").to_pylist(), nodes.column("description").to_pylist()))
    for node_id, name in names.items():
        entry = out.get(node_key(name))
        for alias in stated_names(name, descriptions.get(node_id)) if entry else ():
            out.setdefault(node_key(alias), entry)
    return out


def _chunk_previous(snapshot) -> dict[str, str]:
    """chunk_id -> the chunk right before it in its document (by ``seq``)."""
    out = {}
    for ordered in _chunks_in_order(snapshot).values():
        out.update(zip(ordered[1:], ordered[:-1]))
    return out


def _chunks_in_order(snapshot) -> dict[str, list[str]]:
    """document_id -> its chunk ids in reading order."""
    chunks = snapshot.chunks
    by_document: dict[str, list[tuple[int, str]]] = {}
    for chunk_id, document_id, seq in zip(
        chunks.column("chunk_id").to_pylist(),
        chunks.column("document_id").to_pylist(),
        chunks.column("seq").to_pylist(),
    ):
        by_document.setdefault(document_id, []).append((seq or 0, chunk_id))
    return {d: [c for _seq, c in sorted(members)] for d, members in by_document.items()}


def _chunk_siblings(snapshot) -> dict[str, list[str]]:
    """chunk_id -> the other chunks of its document, in reading order."""
    out: dict[str, list[str]] = {}
    for ordered in _chunks_in_order(snapshot).values():
        for c in ordered:
            out[c] = [o for o in ordered if o != c]
    return out
