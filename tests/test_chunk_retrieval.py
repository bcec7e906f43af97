"""Chunk retrieval end to end on a small corpus ingested through the real job: BM25 + vector fusion
finds an exact rare name and a paraphrase, the graph walk finds the second-hop passage the text
rankings miss, and the `retrieve` CLI answers (one question, --json, --questions) or refuses bad
input with one clear line."""

from __future__ import annotations

import json
import os

import numpy as np
import pyarrow as pa
import pytest
from click.testing import CliRunner

from kg_pipelines.cli import main
from kg_pipelines.retrieval.chunk_retrieval import ChunkRetriever, CollectionIndex, ensure_fts_index, fts_index_name
from kg_pipelines.stores.vectors import VectorStore, vectors_column
from tests.conftest import ingested_graph

# Facts invented for the test. The founder of Velmora Observatory is named in its passage; where
# she grew up is only in her own passage, which shares no content word with the question.
CORPUS = {
    "velmora_observatory.md": "# Velmora Observatory\n\nThe Velmora Observatory is a mountain observatory on the "
    "Tessaly Ridge. Ilse Marchetti founded the Velmora Observatory in 1931 and directed it for twenty years. "
    "The observatory houses a refracting telescope with a lens of 60 centimetres.\n",
    "ilse_marchetti.md": "# Ilse Marchetti\n\nIlse Marchetti was an astronomer who catalogued variable stars. "
    "Ilse Marchetti spent her childhood in Karsten Falls, a fishing village on the northern coast. Ilse Marchetti "
    "later taught celestial mechanics at a teaching college.\n",
    "harrow_observatory.md": "# Harrow Observatory\n\nThe Harrow Observatory was founded by a group of merchants "
    "who grew up in the port of Lindqvist. The founders of the Harrow Observatory wanted a public telescope where "
    "children could grow up watching the sky.\n",
    "pell_observatory.md": "# Pell Observatory\n\nThe Pell Observatory was founded in 1902 by Oskar Pell, who grew "
    "up on a farm near the river Aune. Where the founder grew up shaped the observatory: it stands in open "
    "farmland far from city lights.\n",
    "glucophage.md": "# Glucophage\n\nGlucophage is a tablet that reduces glucose levels in patients with type 2 "
    "diabetes by lowering hepatic gluconeogenesis. Doctors usually prescribe Glucophage as the first treatment "
    "after diet and exercise.\n",
    "coastal_lichens.md": "# Coastal Lichens\n\nCoastal lichens grow on rocks splashed by sea water. A lichen of the "
    "genus Verrucaria produces zyxorinol, a pigment that protects it from ultraviolet light. Lichens are "
    "symbioses of a fungus and an alga.\n",
    "sky_survey.md": "# Northern Sky Survey\n\nThe Northern Sky Survey photographed the whole northern sky between "
    "1950 and 1958. Astronomers who grew up far from city lights often say their childhood skies made them "
    "astronomers. The survey's plates are kept in a climate-controlled archive.\n",
}
SECOND_HOP_QUESTION = "Where did the founder of the Velmora Observatory grow up?"


@pytest.fixture(scope="module")
def stars(tmp_path_factory):
    """One ingested graph for the module (ingestion is the slow part)."""
    documents = {f"stars/{name}": text for name, text in CORPUS.items()}
    with ingested_graph(tmp_path_factory.mktemp("stars"), documents) as graph:
        yield graph


def titles(chunks) -> list[str]:
    return [c.title for c in chunks]


# -- full-text index freshness (LanceDB alone) ----------------------------------------------------


class FakeEmbedder:
    model_name = "fake"

    def embed(self, texts):
        rng = np.random.default_rng(len(texts))
        vectors = rng.normal(size=(len(texts), 8)).astype(np.float32)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def chunk_rows(ids_texts: list[tuple[str, str]]) -> pa.Table:
    return pa.table(
        {
            "chunk_id": [i for i, _ in ids_texts],
            "document_id": [f"c/{i}" for i, _ in ids_texts],
            "collection": ["c"] * len(ids_texts),
            "seq": [0] * len(ids_texts),
            "text": [t for _, t in ids_texts],
            "summary": [""] * len(ids_texts),
            "embedding_model": ["fake"] * len(ids_texts),
            "vector": vectors_column(FakeEmbedder().embed([t for _, t in ids_texts])),
        }
    )


def test_full_text_index_finds_rows_written_after_it_and_never_deleted_ones(tmp_path):
    store = VectorStore(tmp_path / "lancedb")
    store.replace("chunks", "c", "chunk_id", [], chunk_rows([("a", "the quorvane engine"), ("b", "a quiet harbour")]))
    index = CollectionIndex(store, "c", lambda model: FakeEmbedder())
    assert [c for c, _ in index.bm25("quorvane", 5)] == ["a"]  # the index is created lazily
    table = store.open("chunks", "c")
    assert fts_index_name(table) is not None and not ensure_fts_index(table)

    # written after the index: found by LanceDB's flat scan of the unindexed rows
    store.replace("chunks", "c", "chunk_id", [], chunk_rows([("c", "a second quorvane prototype")]))
    index = CollectionIndex(store, "c", lambda model: FakeEmbedder())
    assert {c for c, _ in index.bm25("quorvane", 5)} == {"a", "c"}
    # deleted: never returned
    store.delete_chunks("chunks", "c", ["a"])
    assert [c for c, _ in index.bm25("quorvane", 5)] == ["c"]
    # rows, text and the vector ranking come from the same table
    assert index.rows(["c"])["c"].text == "a second quorvane prototype"
    assert {c for c, _ in index.dense("anything", 5)} == {"b", "c"}


# -- ranking on the ingested corpus ---------------------------------------------------------------


def test_hybrid_finds_an_exact_rare_name_and_a_paraphrase(stars):
    retriever = ChunkRetriever(stars.settings)
    rare = "zyxorinol"
    assert titles(retriever.retrieve(rare, k=1, variant="bm25")) == ["Coastal Lichens"]
    assert titles(retriever.retrieve(rare, k=1, variant="hybrid")) == ["Coastal Lichens"]

    paraphrase = "Which pill brings down blood sugar?"  # no word in common with the passage
    assert "Glucophage" not in titles(retriever.retrieve(paraphrase, k=3, variant="bm25"))
    assert titles(retriever.retrieve(paraphrase, k=1, variant="hybrid")) == ["Glucophage"]
    # the default variant keeps both
    assert titles(retriever.retrieve(rare, k=1)) == ["Coastal Lichens"]
    assert titles(retriever.retrieve(paraphrase, k=1)) == ["Glucophage"]


def test_graph_walk_finds_the_second_hop_passage_text_ranks_miss(stars):
    retriever = ChunkRetriever(stars.settings)
    for text_only in ("bm25", "vector", "hybrid"):
        assert "Ilse Marchetti" not in titles(retriever.retrieve(SECOND_HOP_QUESTION, k=4, variant=text_only))
    # Ilse Marchetti is one node (her own passage types her `person`, the observatory's `concept`:
    # one node per name), so the walk reaches her passage in two hops; the passage a vector link
    # seeds on its own (Pell Observatory, which resembles the question) weighs like a dense passage
    # seed (docs/retrieval.md, "Seeds and the walk"), so it no longer ranks between them
    for with_graph in ("graph", "graph_first", "graph_seeded"):
        found = titles(retriever.retrieve(SECOND_HOP_QUESTION, k=3, variant=with_graph))
        assert found[:2] == ["Velmora Observatory", "Ilse Marchetti"], (with_graph, found)
    ranking = retriever.rank(SECOND_HOP_QUESTION, ["stars"])
    assert {"title:velmora observatory"} <= {link.node_id for link in ranking.links if link.method == "exact"}


# -- the CLI --------------------------------------------------------------------------------------


def run_cli(stars, *args):
    env = {"KG_DATA_DIR": str(stars.root), "HF_HUB_OFFLINE": "1"}
    return CliRunner().invoke(main, ["--data-dir", str(stars.root), "retrieve", *args], env=env)


def test_retrieve_json_lists_ranked_chunks_with_titles_and_scores(stars):
    result = run_cli(stars, SECOND_HOP_QUESTION, "--k", "3", "--json")
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert payload["collections"] == ["stars"] and payload["variant"] == stars.settings.retrieval.variant
    first = payload["results"][0]
    assert set(first) == {"rank", "chunk_id", "document_id", "collection", "title", "score", "found_by", "text"}
    assert [r["rank"] for r in payload["results"]] == [1, 2, 3]
    assert first["title"] == "Velmora Observatory" and first["chunk_id"].startswith("stars/velmora_observatory.md")
    scores = [r["score"] for r in payload["results"]]
    assert scores == sorted(scores, reverse=True)

    plain = run_cli(stars, "zyxorinol", "--k", "2")
    assert plain.exit_code == 0 and "1. " in plain.output and "Coastal Lichens" in plain.output.splitlines()[0]


def test_retrieve_questions_file_writes_one_line_per_question(stars, tmp_path):
    questions = tmp_path / "q.jsonl"
    questions.write_text(
        json.dumps({"qid": "q1", "question": SECOND_HOP_QUESTION})
        + "\n\n"
        + json.dumps({"qid": 2, "question": "zyxorinol"})
        + "\nnot json\n"
        + json.dumps({"qid": "q4", "question": "   "})
        + "\n",
        encoding="utf-8",
    )
    result = run_cli(stars, "--questions", str(questions), "--k", "4")
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    assert [line["qid"] for line in lines] == ["q1", 2, 4, "q4"]
    first = lines[0]
    assert set(first) == {"qid", "titles", "chunk_ids", "scores", "ms"} and first["ms"] >= 0
    # latency per answered question, on stderr (stdout stays one JSON object a line)
    assert "2 questions answered: latency p50 " in result.stderr and " ms, p95 " in result.stderr
    assert first["titles"][:2] == ["Velmora Observatory", "Ilse Marchetti"]
    assert len(first["titles"]) == len(set(first["titles"])) and len(first["chunk_ids"]) == len(first["scores"]) == 4
    assert lines[1]["titles"][0] == "Coastal Lichens"
    assert "line 4" in lines[2]["error"] and lines[2]["titles"] == []
    assert "empty" in lines[3]["error"]


@pytest.mark.parametrize(
    "question",
    [
        'O\'Brien "quoted" 100% ; DROP TABLE chunks; --',
        "SELECT * FROM kg_nodes WHERE 1=1 OR name LIKE '%'",
        "Đài thiên văn Velmora được thành lập bởi ai?",
        "谁创立了天文台？",
        "\x00\x1f control \u202e characters",
    ],
)
def test_odd_questions_are_answered_without_a_crash(stars, question):
    result = run_cli(stars, question, "--json")
    assert result.exit_code == 0, result.output
    assert isinstance(json.loads(result.output)["results"], list)


def test_bad_input_gets_one_clear_line(stars, tmp_path):
    empty = run_cli(stars, "   ")
    assert empty.exit_code == 1 and "the question is empty" in empty.output
    huge = run_cli(stars, "observatory " * 900)  # 10.8 kB
    assert huge.exit_code == 1 and "at most 2000" in huge.output
    unknown = run_cli(stars, "anything", "--collections", "stars,nope")
    assert unknown.exit_code == 1 and "unknown collection(s) 'nope'" in unknown.output
    both = run_cli(stars, "anything", "--questions", str(tmp_path / "missing.jsonl"))
    assert both.exit_code == 2  # click: the file does not exist
    neither = run_cli(stars)
    assert neither.exit_code == 1 and "give a QUESTION or --questions" in neither.output
    assert "Traceback" not in "".join(r.output for r in (empty, huge, unknown, neither))


def test_an_empty_graph_answers_with_nothing(tmp_path):
    env = {"KG_DATA_DIR": str(tmp_path / "none"), "HF_HUB_OFFLINE": "1"}
    result = CliRunner().invoke(main, ["--data-dir", str(tmp_path / "none"), "retrieve", "anything"], env=env)
    assert result.exit_code == 0 and "no chunk found" in result.output
    as_json = CliRunner().invoke(
        main, ["--data-dir", str(tmp_path / "none"), "retrieve", "anything", "--json"], env=env
    )
    assert json.loads(as_json.output)["results"] == []
    assert not os.path.exists(tmp_path / "none" / "warehouse.duckdb")
