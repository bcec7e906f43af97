"""Rationale QA (PIKE-RAG) on a real ingested sample: the decomposer loop and its trace, the
threshold and iteration limits, fusion across collections, the LLM path through the fake OpenAI
server, the LLM failing mid-loop, and bad input."""

from __future__ import annotations

import os

import pytest

from kg_pipelines.config import CollectionSettings, load_settings
from kg_pipelines.llm.client import LLMClient
from kg_pipelines.llm.openai_provider import OpenAIProvider
from kg_pipelines.offline.rationale import NO_ANSWER, key_phrases, propose_sub_questions, reason
from kg_pipelines.retrieval.activations import pending_activations
from kg_pipelines.retrieval.rationale_qa import (
    AtomicMatch,
    LLMRationale,
    QAError,
    _select,
    answer_question,
    ask,
)
from tests.conftest import REPO_ROOT, ingested_graph
from tests.fake_openai import fake_openai, http_error, json_content, text_content  # noqa: F401  (fixture)

SAMPLE = REPO_ROOT / "data" / "inbox"
OEA_QUESTION = "Which bacterium does Oleoylethanolamide increase in people with obesity?"
# the sentence of the sample document that states it (every sentence there names the bacterium)
OEA_STATES = "Oleoylethanolamide increased the abundance of Akkermansia muciniphila"


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    """Two collections of one sample document each, ingested by the real job (offline)."""
    documents = {
        "microbiome/akkermansia.md": (SAMPLE / "microbiome" / "akkermansia_muciniphila_and_metabolic_health.md"),
        "longevity/ampk.md": (SAMPLE / "longevity" / "ampk_metformin_and_the_tame_trial.md"),
    }
    texts = {relative: path.read_text() for relative, path in documents.items()}
    with ingested_graph(tmp_path_factory.mktemp("qa"), texts) as graph:
        yield graph.settings


def _with(settings, **qa):
    return settings.model_copy(update={"rationale_qa": settings.rationale_qa.model_copy(update=qa)})


def test_offline_loop_answers_with_trace_and_sources(sample):
    result = ask(sample, OEA_QUESTION, ["microbiome"])
    first = result.rounds[0]
    assert first.sub_questions[0] == OEA_QUESTION and len(first.sub_questions) <= 3
    assert first.selected is not None and first.selected.score >= sample.rationale_qa.min_similarity
    assert "oleoylethanolamide" in first.selected.atomic_question.lower()
    assert first.chunk_added == result.context[0].chunk_id
    assert all(m.sub_question in first.sub_questions for m in first.matches)
    assert 1 <= len(result.rounds) <= 5 and result.stop_reason
    assert result.supported and OEA_STATES in result.answer and not result.answer.startswith("#")
    assert result.answer_entity == "Akkermansia Muciniphila"
    assert any(OEA_STATES in e["text"] for e in result.evidence)
    assert {e["chunk_id"] for e in result.evidence} <= {c.chunk_id for c in result.context}
    assert result.sources[0]["title"] == "Akkermansia muciniphila and Metabolic Health"
    assert result.sources[0]["via_question"] == first.selected.atomic_question
    assert result.edge_ids[0] == f"ANSWERS_IN:question:{first.selected.question_id}->chunk:{first.chunk_added}"
    assert result.degraded is None


class OffTopic:
    """A decomposer that proposes a sub-question the index cannot answer well."""

    name = "test"

    def decompose(self, question, context, asked, n):
        return ["How long should sourdough bread rise before baking?"]

    def reason(self, question, context):
        return NO_ANSWER, False


def test_a_weak_best_match_stops_the_loop(sample):
    result = answer_question(OEA_QUESTION, _with(sample, min_similarity=0.9), ["microbiome"], rationale=OffTopic())
    assert result.context == [] and result.answer == NO_ANSWER and not result.supported
    assert "below the similarity threshold" in result.rounds[0].stop_reason
    assert result.rounds[0].selected is not None and result.rounds[0].chunk_added is None


class Endless:
    """A decomposer that always has something new to ask."""

    name = "test"

    def __init__(self):
        self.calls = 0

    def decompose(self, question, context, asked, n):
        self.calls += 1
        return [f"What does study {self.calls} say about metformin?", f"Question {self.calls}b?"]

    def reason(self, question, context):
        return f"{len(context)} passages", True


def test_at_most_max_iterations_rounds(sample):
    decomposer = Endless()
    settings = _with(sample, max_iterations=2, min_similarity=-1.0)
    result = answer_question("metformin", settings, ["longevity", "microbiome"], rationale=decomposer)
    assert decomposer.calls == 2 and len(result.rounds) == 2
    assert result.stop_reason == "reached the limit of 2 rounds"
    assert result.gathered == 2  # one new chunk a round


def test_several_collections_are_fused_within_the_token_budget(sample):
    settings = _with(sample, max_iterations=4, min_similarity=-1.0)
    result = answer_question(
        "How does metformin change Akkermansia muciniphila?",
        settings,
        ["microbiome", "longevity"],
        strategy="analytical",
        token_budget=1200,
        rationale=Endless(),
    )
    assert result.strategy == "analytical" and result.gathered == 4
    assert 0 < result.tokens_used <= 1200
    assert 0 < len(result.context) < result.gathered  # four chunks do not fit in 1200 tokens
    assert result.answer == f"{len(result.context)} passages"


def test_collections_of_different_models_are_chosen_by_rank_fusion_not_raw_scores(sample):
    models = {"a": CollectionSettings(embedding_model="model-a"), "b": CollectionSettings(embedding_model="model-b")}
    settings = sample.model_copy(update={"collections": models})

    def match(collection, chunk, score):
        return AtomicMatch("sub", f"q {chunk}", f"{collection}-{chunk}", chunk, collection, score)

    def scaled(hits, factor):
        return [match(m.collection, m.chunk_id, round(m.score * factor, 4)) for m in hits]

    # a's scores run high, b's low: a raw comparison would take a's best here and b's best once a's
    # scores are scaled down; rank fusion sees the same ranks and must choose the same chunk
    lists = {"a": [match("a", "a1", 0.95), match("a", "a2", 0.94)], "b": [match("b", "b1", 0.40)]}
    chosen = _select(lists, "sub", settings)
    assert chosen.chunk_id in {"a1", "b1"}  # a list's first, never a runner-up
    for factor in (0.1, 0.3, 1.05):
        rescaled = {"a": scaled(lists["a"], factor), "b": lists["b"]}
        assert _select(rescaled, "sub", settings).chunk_id == chosen.chunk_id
    same_model = _select(lists, "sub", sample.model_copy(update={"collections": {}}))
    assert same_model.chunk_id == "a1"
    low = _select({"a": scaled(lists["a"], 0.1), "b": lists["b"]}, "sub", sample.model_copy(update={"collections": {}}))
    assert low.chunk_id == "b1"  # one model: similarities compare


def _llm(fake) -> LLMRationale:
    provider = OpenAIProvider("gpt-5-mini", "test", base_url=fake.base_url, timeout_s=5)
    return LLMRationale(LLMClient(provider, ("compound", "microbe")))


def _sentence_id(prompt: str, words: str) -> str:
    """The id ``p.s`` the reasoner's prompt gives the sentence holding ``words``."""
    line = next(line for line in prompt.splitlines() if words in line)
    return line[1 : line.index("]")]


def _reason_requests(fake) -> list:
    return [
        r for r in fake.requests if r.body and r.body["response_format"]["json_schema"]["name"] == "answer_with_support"
    ]


def test_llm_decomposes_and_reasons_through_the_one_client(sample, fake_openai):  # noqa: F811
    fake_openai.rule("sub_questions", json_content({"questions": ["What is oleoylethanolamide?"]}), times=1)
    fake_openai.rule("sub_questions", json_content({"questions": []}), times=1)
    probe = answer_question(OEA_QUESTION, sample, ["microbiome"], rationale=_llm(fake_openai))
    prompt = _reason_requests(fake_openai)[-1].body["messages"][-1]["content"]
    sid = _sentence_id(prompt, OEA_STATES)
    assert sid.startswith("1.") and "[1.1] " in prompt and "# " not in prompt  # headings are not sentences

    fake_openai.rule("sub_questions", json_content({"questions": ["What is oleoylethanolamide?"]}), times=1)
    fake_openai.rule("sub_questions", json_content({"questions": []}), times=1)
    answer = {"answer": "Akkermansia muciniphila.", "supported": True, "sentence_ids": [sid]}
    fake_openai.rule("answer_with_support", json_content(answer), times=1)
    result = answer_question(OEA_QUESTION, sample, ["microbiome"], rationale=_llm(fake_openai))
    assert result.answer == "Akkermansia muciniphila." and result.supported and result.degraded is None
    assert [e["id"] for e in result.evidence] == [sid] and OEA_STATES in result.evidence[0]["text"]
    assert result.evidence[0]["chunk_id"] == result.context[0].chunk_id
    assert [r.sub_questions for r in result.rounds] == [["What is oleoylethanolamide?"], []]
    assert probe.context[0].chunk_id == result.context[0].chunk_id


@pytest.mark.parametrize(
    "bad",
    [
        text_content("not json {"),
        json_content({"answer": "Akkermansia muciniphila.", "supported": True, "sentence_ids": ["9.99"]}),
        json_content({"answer": "Akkermansia muciniphila.", "supported": True, "sentence_ids": []}),
    ],
    ids=["invalid-json", "ids-not-in-context", "supported-without-ids"],
)
def test_a_bad_llm_answer_is_asked_again_then_degrades_never_crashes(sample, fake_openai, bad):  # noqa: F811
    # once bad, then a valid unsupported answer: the retry is taken
    fake_openai.rule("sub_questions", json_content({"questions": ["What is oleoylethanolamide?"]}), times=1)
    fake_openai.rule("sub_questions", json_content({"questions": []}), times=1)
    fake_openai.rule("answer_with_support", bad, times=1)
    honest = {"answer": "The passages do not say.", "supported": False, "sentence_ids": []}
    fake_openai.rule("answer_with_support", json_content(honest), times=1)
    result = answer_question(OEA_QUESTION, sample, ["microbiome"], rationale=_llm(fake_openai))
    assert len(_reason_requests(fake_openai)) == 2 and result.degraded is None
    assert not result.supported and result.answer.startswith(NO_ANSWER)

    # bad every time: the offline reasoner answers from what was gathered, and says so
    asked_before = len(_reason_requests(fake_openai))
    fake_openai.rule("sub_questions", json_content({"questions": ["What is oleoylethanolamide?"]}), times=1)
    fake_openai.rule("sub_questions", json_content({"questions": []}), times=1)
    fake_openai.rule("answer_with_support", bad, times=2)
    result = answer_question(OEA_QUESTION, sample, ["microbiome"], rationale=_llm(fake_openai))
    assert len(_reason_requests(fake_openai)) - asked_before == 2
    assert result.degraded.startswith("the reasoner failed (schema")
    assert "Partial answer" in result.answer and result.supported and OEA_STATES in result.answer


def test_llm_failing_mid_loop_degrades_to_what_was_gathered(sample, fake_openai):  # noqa: F811
    fake_openai.rule("sub_questions", json_content({"questions": ["What is oleoylethanolamide?"]}), times=1)
    fake_openai.rule("sub_questions", http_error(500))
    result = answer_question(OEA_QUESTION, sample, ["microbiome"], rationale=_llm(fake_openai))
    assert result.gathered == 1 and len(result.rounds) == 1
    assert result.degraded.startswith("the decomposer failed in round 2 (api")
    assert "Partial answer" in result.answer and OEA_STATES in result.answer
    assert not _reason_requests(fake_openai)


def test_reasoner_failing_degrades_to_an_extractive_answer(sample, fake_openai):  # noqa: F811
    fake_openai.rule("sub_questions", json_content({"questions": ["What is oleoylethanolamide?"]}), times=1)
    fake_openai.rule("sub_questions", json_content({"questions": []}), times=1)
    fake_openai.rule("answer_with_support", http_error(503))
    result = answer_question(OEA_QUESTION, sample, ["microbiome"], rationale=_llm(fake_openai))
    assert result.degraded.startswith("the reasoner failed (api")
    assert OEA_STATES in result.answer and "Partial answer" in result.answer


@pytest.mark.parametrize(
    ("question", "collections", "kwargs", "message"),
    [
        ("", None, {}, "question is empty"),
        ("   ", None, {}, "question is empty"),
        ("x" * 10_000, None, {}, "at most 2000"),
        ("What?", ["nowhere"], {}, "unknown collection(s) 'nowhere'; known: longevity, microbiome"),
        ("What?", ["bad name"], {}, "invalid collection name"),
        ("What?", ["x'; DROP TABLE chunks; --"], {}, "invalid collection name"),
        ("What?", None, {"token_budget": 0}, "token budget must be between 1 and"),
        ("What?", None, {"token_budget": 10**9}, "token budget must be between 1 and"),
        ("What?", None, {"strategy": "random"}, "unknown strategy 'random'"),
    ],
)
def test_bad_questions_are_refused_with_the_rule(sample, question, collections, kwargs, message):
    with pytest.raises(QAError) as raised:
        answer_question(question, sample, collections, **kwargs)
    assert message in str(raised.value)


@pytest.mark.parametrize(
    "question",
    [
        # "how does Oleoylethanolamide change the bacterium Akkermansia muciniphila?", in Vietnamese:
        # the names are there, but the offline reasoner reads no relation it could check
        "Oleoylethanolamide làm tăng vi khuẩn Akkermansia muciniphila như thế nào?",
        "油酰乙醇胺如何影响肠道中的嗜黏蛋白阿克曼菌？",  # names nothing the graph knows
        "'; DROP TABLE chunks; -- % \" OR 1=1",
    ],
)
def test_questions_in_other_scripts_or_hostile_text_get_an_honest_answer(sample, question):
    result = answer_question(question, sample)
    assert result.rounds and result.stop_reason and len(result.rounds) <= sample.rationale_qa.max_iterations
    # never passed off as supported: the answer says so and names no answer entity
    assert result.supported is False and result.answer.startswith(NO_ANSWER) and result.answer_entity is None
    assert answer_question(OEA_QUESTION, sample, ["microbiome"]).supported  # the stores are intact


def test_nothing_ingested_says_so_and_creates_nothing(tmp_path):
    settings = load_settings(tmp_path)
    result = ask(settings, OEA_QUESTION)
    assert "No collection has been ingested yet" in result.answer and not result.supported
    with pytest.raises(QAError, match="known: \\(none yet"):
        ask(settings, OEA_QUESTION, ["microbiome"])
    assert os.listdir(tmp_path) == []


def test_ask_queues_the_answers_in_edges_it_followed(sample):
    before = pending_activations(sample)
    result = ask(sample, OEA_QUESTION, ["microbiome"])
    assert pending_activations(sample) == before + len(set(result.edge_ids)) > before


# -- the offline decomposer and reasoner, on own sentences --------------------------------------


def test_offline_decomposer_asks_the_goal_then_missing_names_then_bridges_and_stops_when_supported():
    goal = "Which enzyme does metformin activate?"
    assert propose_sub_questions(goal, [], [], 3) == [goal, "What is Metformin?", "What does Metformin activate?"]
    covered = ["Metformin lowers blood sugar. Metformin activates the enzyme AMPK in liver cells."]
    assert propose_sub_questions(goal, covered, [goal], 3) == []  # the context states it
    unrelated = ["Metformin lowers blood sugar. Metformin is taken with meals."]
    assert propose_sub_questions(goal, unrelated, [goal], 3)  # names the drug, states no activation
    two_hop = "Which enzyme does the drug from Galega officinalis activate?"
    partial = ["Metformin is a drug derived from the French lilac, Galega officinalis."]
    proposed = propose_sub_questions(two_hop, partial, [two_hop], 3)
    assert proposed[0] == "Which enzyme does Metformin activate?"


def test_offline_reasoner_answers_with_the_sentence_that_states_the_relation():
    context = [
        "Spermidine is a polyamine found in wheat germ. Spermidine induces autophagy in yeast and flies.",
        "Autophagy recycles damaged organelles. Wheat germ is also rich in vitamin E.",
    ]
    found = reason("What does spermidine induce?", context, max_sentences=2)
    assert found.supported and found.answer == "Autophagy: Spermidine induces autophagy in yeast and flies."
    assert found.sentence_ids == ["1.2"]
    # the same fact behind a pronoun: nothing links "it" to spermidine, so no supported answer
    pronoun = ["Spermidine is a polyamine found in wheat germ. It induces autophagy in yeast and flies."]
    unsupported = reason("What does spermidine induce?", pronoun)
    assert not unsupported.supported and unsupported.answer.startswith(NO_ANSWER)
    assert "Spermidine is a polyamine" in unsupported.answer  # shows what was found
    assert reason("Qu'est-ce que la photosynthèse?", context).answer.startswith(NO_ANSWER)
    assert "Spermidine" in key_phrases("What does spermidine induce in flies?")[0].title()


# own text: a trial, the drug it tests, and two drugs acting on sibling targets
TRIAL = [
    "# Rapamycin in Companion Dogs\n\nThe Dog Aging Project trial tests rapamycin in middle-aged companion dogs. "
    "Owners enrolled about 500 dogs across the United States.",
    "Rapamycin inhibits mTORC1 in liver and muscle. Torin1 inhibits mTORC2 as well as mTORC1 in cultured cells. "
    "Acarbose lowers blood glucose after meals. Oleoylethanolamide does not bind cannabinoid receptors.",
]


def test_two_hops_go_through_the_bridge_the_first_hop_found():
    found = reason("Which kinase complex is inhibited by the drug tested in the Dog Aging Project trial?", TRIAL)
    assert found.supported, found.answer
    assert found.answer_entity == "mTORC1" and found.bridges == ["Rapamycin"]
    assert found.sentence_ids == ["1.1", "2.1"]  # the trial's sentence, then the drug's
    assert not found.answer.startswith("#") and "Rapamycin in Companion Dogs" not in found.answer


@pytest.mark.parametrize(
    ("question", "why"),
    [
        ("Which receptors does oleoylethanolamide bind?", "negated"),  # the text denies it
        ("Which receptor does acarbose activate?", "activates"),  # no sentence states it
        ("Which complex does metformin inhibit?", "metformin"),  # the graph never names it
        ("Which bacterium is inhibited by the drug tested in the Dog Aging Project trial?", "bacterium"),
    ],
)
def test_no_supported_answer_without_a_stated_relation(question, why):
    found = reason(question, TRIAL)
    assert not found.supported and found.answer.startswith(NO_ANSWER) and why in found.answer.casefold()
    assert found.answer_entity is None


def test_the_decomposer_follows_the_bridge_not_a_generic_word_of_the_question():
    goal = "Which gut bacterium is increased by the drug tested in the Dog Aging Project trial?"
    first = propose_sub_questions(goal, [], [], 3)
    assert first[0] == goal and "What is Gut?" not in first and any("Dog Aging Project" in q for q in first)
    proposed = propose_sub_questions(goal, TRIAL[:1], [goal, *first], 3)
    assert proposed[0] == "Which gut bacterium is increased by Rapamycin?"
    assert all("Gut?" not in q and "Dogs?" not in q for q in proposed)
    stated = [TRIAL[0], "Rapamycin increases Akkermansia muciniphila in the mouse gut."]
    assert propose_sub_questions(goal, stated, [goal], 3) == []  # supported: time to answer


def test_the_chunk_is_reached_along_the_answers_in_edge(sample):
    from kg_pipelines.retrieval.rationale_qa import _answers_in
    from kg_pipelines.stores.graph_snapshot import load_graph_snapshot

    first = answer_question(OEA_QUESTION, sample, ["microbiome"]).rounds[0].selected
    edges = _answers_in(load_graph_snapshot(sample))
    assert edges[first.question_id] == first.chunk_id  # the snapshot's edge and the row agree
    other = next(c for c in set(edges.values()) if c != first.chunk_id and c.startswith("microbiome/"))
    redirected = answer_question(OEA_QUESTION, sample, ["microbiome"], answers_in={first.question_id: other})
    assert redirected.rounds[0].chunk_added == other == redirected.context[0].chunk_id


class Recorder:
    """A decomposer proposing two sub-questions, then nothing; it records what it is told was asked."""

    name = "test"

    def __init__(self):
        self.seen: list[list[str]] = []

    def decompose(self, question, context, asked, n):
        self.seen.append(list(asked))
        return ["What does Oleoylethanolamide increase?", "What is metformin?"] if len(self.seen) == 1 else []

    def reason(self, question, context):
        return NO_ANSWER, False


def test_a_sub_question_that_lost_its_round_may_be_proposed_again(sample):
    # both find a chunk; only the one whose chunk was taken counts as asked, so the other (say, "What is
    # <a name no gathered chunk mentions>?") can still lead to its chunk in a later round
    decomposer = Recorder()
    result = answer_question(OEA_QUESTION, sample, ["microbiome", "longevity"], rationale=decomposer)
    first = result.rounds[0]
    assert first.selected is not None and len({m.sub_question for m in first.matches}) == 2
    assert decomposer.seen[1] == [first.selected.sub_question]


def test_a_word_written_as_a_name_that_no_entity_has_finds_the_chunks_writing_it(sample):
    # "Dutch" is no entity of the graph; the Akkermansia document writes it once
    from kg_pipelines.retrieval.rationale_qa import AtomicQuestionIndex
    from kg_pipelines.stores.vectors import VectorStore

    index = AtomicQuestionIndex(VectorStore.for_settings(sample), sample, ["microbiome", "longevity"])
    names, chunks = index.linked_chunks("Which Dutch microbiologist is the genus named after?", "microbiome")
    assert "Dutch" in names and chunks, (names, chunks)
    assert all(" Dutch " in index.chunk("microbiome", c)["text"] for c in chunks)
    assert index.linked_chunks("Which Dutch microbiologist is the genus named after?", "longevity") == (names, [])
    # a word no chunk writes restricts nothing, and the question is still searched
    assert "Finnish" not in index.linked_chunks("Which Finnish microbiologist named it?", "microbiome")[0]


def test_a_gathered_chunk_goes_on_from_the_chunk_before_it_in_its_document():
    import pyarrow as pa

    from kg_pipelines.retrieval.rationale_qa import ContextChunk, _chunk_previous, _follows

    class Snapshot:
        chunks = pa.table(
            {
                "chunk_id": ["b2", "a1", "b1", "b3"],
                "document_id": ["b", "a", "b", "b"],
                "seq": [2, 1, 1, 3],
            }
        )

    previous = _chunk_previous(Snapshot())
    assert previous == {"b2": "b1", "b3": "b2"}

    def chunk(chunk_id: str) -> ContextChunk:
        return ContextChunk(chunk_id, chunk_id[0], "c", None, "text", "q", 0.5, 1)

    # b3 follows b2 (gathered before it), b2 follows b1 (not gathered), a1 follows nothing
    assert _follows([chunk("b3"), chunk("a1"), chunk("b2")], previous) == {0: 2}


def test_a_match_linked_by_rarer_names_is_selected_first():
    # "What is Liver?" matches its chunk more closely than the question matches the one naming FGF19
    # too, but the liver is named by many chunks and FGF19 by few
    from kg_pipelines.retrieval.rationale_qa import AtomicMatch, _select

    class OneModel:
        def embedding_model_for(self, collection):
            return "one"

    def match(sub, chunk, score, linked, weight):
        return AtomicMatch(sub, f"about {chunk}", f"q-{chunk}", chunk, "c", score, linked, weight)

    common = match("What is Liver?", "mtor#c3", 0.56, ["Liver"], 1.0)
    rare = match("Which receptor does FGF19 bind in the liver?", "bile#c0", 0.46, ["FGF19", "Liver"], 3.3)
    assert _select({"c": [common, rare]}, "Which receptor does FGF19 bind in the liver?", OneModel()) is rare
    # among matches linked alike, similarity decides
    close = match("What is FGF19?", "bile#c1", 0.60, ["FGF19"], 3.3)
    assert _select({"c": [rare, close]}, "Which receptor does FGF19 bind?", OneModel()) is close


class GoalThenElsewhere:
    """A decomposer proposing the question first, then only a sub-question about another document."""

    name = "test"

    def __init__(self):
        self.rounds = 0

    def decompose(self, question, context, asked, n):
        self.rounds += 1
        return [question] if self.rounds == 1 else ["What does the mucus layer protect?"]

    def reason(self, question, context):
        return NO_ANSWER, False


def test_the_question_is_asked_again_while_other_chunks_name_what_it_names_as_much(sample):
    # two passages of the metformin document both name metformin: the question, which led to one of
    # them, is asked again for the other before a sub-question about another document is followed
    from kg_pipelines.ingestion.names import node_key
    from kg_pipelines.retrieval.rationale_qa import _answers_in
    from kg_pipelines.stores.graph_snapshot import load_graph_snapshot

    passages = sorted(c for c in set(_answers_in(load_graph_snapshot(sample)).values()) if c.startswith("longevity/"))
    assert len(passages) >= 2, passages
    named = {node_key("metformin"): ("Metformin", {"longevity": passages[:2]})}
    question = "Which trial tests whether metformin delays age-related diseases?"
    result = answer_question(
        question, sample, ["microbiome", "longevity"], rationale=GoalThenElsewhere(), entity_chunks=named
    )
    first, second = result.rounds[0], result.rounds[1]
    assert first.selected.sub_question == question and first.chunk_added in passages[:2]
    assert second.selected.sub_question == question, second.selected
    assert {first.chunk_added, second.chunk_added} == set(passages[:2])
    # with both gathered, the question has no passage left naming metformin: the other sub-question leads
    assert result.rounds[2].selected.sub_question == "What does the mucus layer protect?"
