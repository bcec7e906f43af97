"""Rationale QA (PIKE-RAG) on a real ingested sample: the decomposer loop and its trace, the
threshold and iteration limits, fusion across collections, the LLM path through the fake OpenAI
server, the LLM failing mid-loop, and bad input."""

from __future__ import annotations

import os

import pytest

from kg_pipelines.config import CollectionSettings, load_settings
from kg_pipelines.llm.client import LLMClient
from kg_pipelines.llm.openai_provider import OpenAIProvider
from kg_pipelines.offline.rationale import NO_ANSWER, extractive_answer, key_phrases, propose_sub_questions
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
from tests.fake_openai import fake_openai, http_error, json_content  # noqa: F401  (fixture)

SAMPLE = REPO_ROOT / "data" / "inbox"
OEA_QUESTION = "Which bacterium does Oleoylethanolamide increase in people with obesity?"


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
    assert result.supported and "Akkermansia muciniphila" in result.answer
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

    # a's scores run high, b's low: a raw comparison would take a's second best over b's best
    lists = {"a": [match("a", "a1", 0.95), match("a", "a2", 0.94)], "b": [match("b", "b1", 0.40)]}
    chosen = _select(lists, "sub", settings)
    assert chosen.chunk_id in {"a1", "b1"}  # a list's first, never a runner-up
    same_model = _select(lists, "sub", sample.model_copy(update={"collections": {}}))
    assert same_model.chunk_id == "a1"


def _llm(fake) -> LLMRationale:
    provider = OpenAIProvider("gpt-5-mini", "test", base_url=fake.base_url, timeout_s=5)
    return LLMRationale(LLMClient(provider, ("compound", "microbe")))


def test_llm_decomposes_and_reasons_through_the_one_client(sample, fake_openai):  # noqa: F811
    fake_openai.rule("sub_questions", json_content({"questions": ["What is oleoylethanolamide?"]}), times=1)
    fake_openai.rule("sub_questions", json_content({"questions": []}), times=1)
    answer = {"answer": "Akkermansia muciniphila.", "supported": True, "used_passages": [1]}
    fake_openai.rule("reasoned_answer", json_content(answer), times=1)
    result = answer_question(OEA_QUESTION, sample, ["microbiome"], rationale=_llm(fake_openai))
    assert result.answer == "Akkermansia muciniphila." and result.supported and result.degraded is None
    assert [r.sub_questions for r in result.rounds] == [["What is oleoylethanolamide?"], []]
    schemas = [r.body["response_format"]["json_schema"]["name"] for r in fake_openai.requests if r.body]
    assert schemas == ["sub_questions", "sub_questions", "reasoned_answer"]
    reason_prompt = fake_openai.requests[-1].body["messages"][-1]["content"]
    assert "[1] " in reason_prompt and "Oleoylethanolamide" in reason_prompt  # the gathered chunk


def test_llm_failing_mid_loop_degrades_to_what_was_gathered(sample, fake_openai):  # noqa: F811
    fake_openai.rule("sub_questions", json_content({"questions": ["What is oleoylethanolamide?"]}), times=1)
    fake_openai.rule("sub_questions", http_error(500))
    result = answer_question(OEA_QUESTION, sample, ["microbiome"], rationale=_llm(fake_openai))
    assert result.gathered == 1 and len(result.rounds) == 1
    assert result.degraded.startswith("the decomposer failed in round 2 (api")
    assert "Partial answer" in result.answer and "Akkermansia muciniphila" in result.answer
    assert not any(r.body["response_format"]["json_schema"]["name"] == "reasoned_answer" for r in fake_openai.requests)


def test_reasoner_failing_degrades_to_an_extractive_answer(sample, fake_openai):  # noqa: F811
    fake_openai.rule("sub_questions", json_content({"questions": ["What is oleoylethanolamide?"]}), times=1)
    fake_openai.rule("sub_questions", json_content({"questions": []}), times=1)
    fake_openai.rule("reasoned_answer", http_error(503))
    result = answer_question(OEA_QUESTION, sample, ["microbiome"], rationale=_llm(fake_openai))
    assert result.degraded.startswith("the reasoner failed (api")
    assert "Akkermansia muciniphila" in result.answer and "Partial answer" in result.answer


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
        "Oleoylethanolamide ảnh hưởng thế nào đến vi khuẩn Akkermansia muciniphila?",
        "油酰乙醇胺如何影响肠道中的嗜黏蛋白阿克曼菌？",
        "'; DROP TABLE chunks; -- % \" OR 1=1",
    ],
)
def test_questions_in_other_scripts_or_hostile_text_get_an_answer_object(sample, question):
    result = answer_question(question, sample)
    assert result.answer and result.rounds and result.stop_reason
    assert len(result.rounds) <= sample.rationale_qa.max_iterations


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


def test_offline_decomposer_asks_the_goal_then_missing_names_then_bridges_and_stops_when_covered():
    goal = "Which enzyme does metformin activate?"
    assert propose_sub_questions(goal, [], [], 3) == [goal, "What is Metformin?", "What does Metformin do?"]
    covered = ["Metformin lowers blood sugar. Metformin activates the enzyme AMPK in liver cells."]
    assert propose_sub_questions(goal, covered, [goal], 3) == []  # names and words of the goal all there
    asked = ["What does metformin activate in liver cells?"]
    partial = ["Metformin is a drug derived from the French lilac, Galega officinalis."]
    proposed = propose_sub_questions(asked[0], partial, asked, 3)
    assert proposed == ["What is Liver Cells?", "What is the relation between Galega and Metformin?", "What is Galega?"]


def test_offline_reasoner_extracts_the_sentences_that_share_the_most_with_the_goal():
    context = [
        "Spermidine is a polyamine found in wheat germ. It induces autophagy in yeast and flies.",
        "Autophagy recycles damaged organelles. Wheat germ is also rich in vitamin E.",
    ]
    found = extractive_answer("What does spermidine induce?", context, max_sentences=1)
    assert found.supported and found.answer == "Spermidine is a polyamine found in wheat germ."
    assert extractive_answer("Qu'est-ce que la photosynthèse?", context).answer == NO_ANSWER
    assert "Spermidine" in key_phrases("What does spermidine induce in flies?")[0].title()


def test_the_chunk_is_reached_along_the_answers_in_edge(sample):
    from kg_pipelines.retrieval.rationale_qa import _answers_in
    from kg_pipelines.stores.graph_snapshot import load_graph_snapshot

    first = answer_question(OEA_QUESTION, sample, ["microbiome"]).rounds[0].selected
    edges = _answers_in(load_graph_snapshot(sample))
    assert edges[first.question_id] == first.chunk_id  # the snapshot's edge and the row agree
    other = next(c for c in set(edges.values()) if c != first.chunk_id and c.startswith("microbiome/"))
    redirected = answer_question(OEA_QUESTION, sample, ["microbiome"], answers_in={first.question_id: other})
    assert redirected.rounds[0].chunk_added == other == redirected.context[0].chunk_id
