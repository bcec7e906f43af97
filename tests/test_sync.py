"""A run of a collection partition syncs it: what changed is processed, nothing else.

Caches know what changed: a chunk stage is redone exactly when its text, its prior summary, the
provider, the model, the prompt, the entity types or the stage's settings changed."""

import pytest
from dagster import AssetKey

from kg_pipelines.dagster_shell.runner import sync_collections
from tests.fake_openai import fake_openai  # noqa: F401  (fixture)

A = "# Metformin\nMetformin activates AMPK in liver cells. AMPK senses cellular energy in muscle.\n"
B = "# Rapamycin\nRapamycin inhibits mTORC1 in yeast. Rapamycin extends lifespan in mice.\n"
C = "# Spermidine\nSpermidine induces autophagy in flies. Autophagy clears damaged mitochondria.\n"


def states(graph) -> dict[tuple[str, str], object]:
    return {(c, s): t for c, s, t in graph.rows("SELECT chunk_id, stage, updated_at FROM chunk_state")}


def redone(before: dict, after: dict) -> set[tuple[str, str]]:
    """(document, stage) pairs whose chunk state was rewritten between two snapshots."""
    return {(chunk.split("#")[0], stage) for (chunk, stage), t in after.items() if before.get((chunk, stage)) != t}


@pytest.fixture
def three_docs(graph):
    for name, text in (("a.md", A), ("b.md", B), ("c.md", C)):
        graph.write(f"bio/{name}", text)
    assert graph.ingest("bio").failed_runs == 0
    return graph


def test_an_unchanged_collection_costs_nothing(three_docs):
    graph = three_docs
    before = states(graph)
    nodes = graph.rows("SELECT node_id, updated_at FROM kg_nodes ORDER BY 1")
    assert graph.ingest("bio").failed_runs == 0
    assert states(graph) == before
    assert graph.rows("SELECT node_id, updated_at FROM kg_nodes ORDER BY 1") == nodes
    meta = graph.instance.get_latest_materialization_event(AssetKey("kg_nodes")).asset_materialization.metadata
    assert meta["documents_synced"].value == 0
    assert "nothing to do" in meta["this_run"].value


def test_an_edited_document_redoes_only_its_chunks_and_the_run_says_so(three_docs):
    graph = three_docs
    before = states(graph)
    graph.write("bio/b.md", B.replace("yeast", "worms"))
    graph.ingest("bio")
    assert redone(before, states(graph)) == {("bio/b.md", s) for s in ("summarize", "extract", "questions")}
    meta = graph.instance.get_latest_materialization_event(AssetKey("kg_nodes")).asset_materialization.metadata
    table = meta["this_run"].value
    assert "bio/b.md" in table and "bio/a.md" not in table
    assert "| status | chunks | entities | relationships | questions | error |" in table
    assert meta["dagster/partition_row_count"].value == graph.one(
        "SELECT count(DISTINCT node_id) FROM kg_node_support WHERE collection = 'bio'"
    )
    assert graph.one("SELECT count(*) FROM chunks WHERE text LIKE '%worms%'") == 1


def test_changing_the_entity_types_redoes_extraction_only(three_docs):
    graph = three_docs
    before = states(graph)
    graph.configure(entity_types=["gene", "protein", "compound", "disease", "organism", "concept"])
    graph.ingest("bio")
    assert redone(before, states(graph)) == {(d, "extract") for d in ("bio/a.md", "bio/b.md", "bio/c.md")}
    assert (
        graph.one(
            "SELECT count(*) FROM entities WHERE entity_type NOT IN "
            "('gene', 'protein', 'compound', 'disease', 'organism', 'concept')"
        )
        == 0
    )


def test_changing_the_question_range_redoes_questions_only(three_docs):
    graph = three_docs
    before = states(graph)
    graph.configure(questions_min=3, questions_max=4)
    graph.ingest("bio")
    assert redone(before, states(graph)) == {(d, "questions") for d in ("bio/a.md", "bio/b.md", "bio/c.md")}
    for (n,) in graph.rows("SELECT count(*) FROM atomic_questions GROUP BY chunk_id"):
        assert 3 <= n <= 4


def test_switching_provider_then_model_redoes_every_stage(three_docs, fake_openai):  # noqa: F811
    graph = three_docs
    before = states(graph)
    llm = {"provider": "openai", "base_url": fake_openai.base_url, "model": "model-one", "timeout_s": 5}
    graph.configure(llm=llm)
    graph.ingest("bio")
    everything = {(d, s) for d in ("bio/a.md", "bio/b.md", "bio/c.md") for s in ("summarize", "extract", "questions")}
    after_switch = states(graph)
    assert redone(before, after_switch) == everything
    assert {r.body["model"] for r in fake_openai.requests_to("chat")} == {"model-one"}

    graph.configure(llm={**llm, "model": "model-two"})
    graph.ingest("bio")
    assert redone(after_switch, states(graph)) == everything
    again = states(graph)
    graph.ingest("bio")  # and then nothing: the cache holds for the new model
    assert states(graph) == again


def test_reprocessing_one_document_on_purpose(three_docs):
    graph = three_docs
    before = states(graph)
    outcome = sync_collections(graph.settings, ["bio"], graph.instance, only={"bio/c.md"})
    assert outcome.failed_runs == 0
    assert redone(before, states(graph)) == {("bio/c.md", s) for s in ("summarize", "extract", "questions")}
    assert graph.one("SELECT count(*) FROM documents") == 3  # the restriction never removes the others


def test_a_removed_file_leaves_every_table_and_the_graph(three_docs):
    graph = three_docs
    (graph.root.parent / "docs" / "bio" / "c.md").unlink()
    from kg_pipelines.dagster_shell.runner import ingest_sources

    assert ingest_sources(graph.settings, [], graph.instance, removed=["bio/c.md"]).failed_runs == 0
    for table in (
        "documents",
        "chunks",
        "chunk_state",
        "entities",
        "relationships",
        "atomic_questions",
        "kg_node_support",
        "kg_edge_support",
        "graph_documents",
        "document_chunking",
    ):
        assert graph.one(f"SELECT count(*) FROM {table} WHERE document_id = 'bio/c.md'") == 0, table
    assert graph.one("SELECT count(*) FROM kg_nodes WHERE name = 'Spermidine'") == 0
    import lancedb

    db = lancedb.connect(str(graph.settings.lancedb_dir))
    for name in ("chunks__bio", "questions__bio"):
        assert db.open_table(name).count_rows("document_id = 'bio/c.md'") == 0
        assert db.open_table(name).count_rows("document_id = 'bio/a.md'") > 0
    meta = graph.instance.get_latest_materialization_event(AssetKey("kg_nodes")).asset_materialization.metadata
    assert "bio/c.md | removed" in meta["this_run"].value


def test_an_unknown_collection_key_fails_with_a_clear_message(graph):
    graph.write("bio/a.md", A)
    graph.ingest("bio")
    graph.instance.add_dynamic_partitions("collections", ["ghost"])  # a stray partition made in the UI
    outcome = sync_collections(graph.settings, ["ghost"], graph.instance)
    assert outcome.failed_runs == 1
    assert any("unknown collection 'ghost'" in e and "Known collections: bio" in e for e in outcome.errors)
