"""Every asset check can fail, and a failing blocking check stops the steps downstream of it.

Each test breaks one stage the way a bug would (through the real job, in-process) and shows the
check catching it: the check fails with examples, and the graph step after it does not run."""

import pytest
from dagster import AssetCheckKey, AssetKey

from kg_pipelines.ingestion import extraction, questions
from kg_pipelines.stores import warehouse

DOC = "# Metformin\nMetformin activates AMPK in liver cells. Rapamycin inhibits mTORC1 in yeast.\n"


def check_result(graph, asset: str, name: str):
    found = graph.instance.event_log_storage.get_latest_asset_check_execution_by_key(
        [AssetCheckKey(AssetKey(asset), name)]
    )
    record = found.get(AssetCheckKey(AssetKey(asset), name))
    return record.evaluation if record else None


def graph_ran(graph) -> bool:
    return graph.instance.get_latest_materialization_event(AssetKey("kg_nodes")) is not None


def ingest(graph):
    graph.write("bio/a.md", DOC)
    return graph.ingest("bio")


def test_a_clean_run_passes_every_check(graph):
    assert ingest(graph).failed_runs == 0
    for asset, name in [
        ("entities", "every_chunk_extracted"),
        ("entities", "entities_schema_valid"),
        ("relationships", "relationships_schema_valid"),
        ("atomic_questions", "questions_per_chunk_in_range"),
        ("kg_edges", "no_dangling_edges"),
        ("kg_nodes", "no_quarantined_chunks"),
    ]:
        assert check_result(graph, asset, name).passed, name
    assert graph_ran(graph)


def test_chunks_left_unextracted_fail_the_check_and_stop_the_graph(graph, monkeypatch):
    from kg_pipelines.dagster_shell import ingestion_assets
    from kg_pipelines.ingestion.chunk_stage import ChunkStageReport

    # a bug that skips the work: the stage reports success but extracts nothing
    monkeypatch.setattr(
        ingestion_assets,
        "extract_chunks",
        lambda ctx, scope: ChunkStageReport(rows={"entities": 0, "relationships": 0}),
    )
    outcome = ingest(graph)
    evaluation = check_result(graph, "entities", "every_chunk_extracted")
    assert not evaluation.passed and "bio/a.md#c0000" in str(evaluation.metadata["examples"].value)
    assert not graph_ran(graph) and graph.one("SELECT count(*) FROM kg_nodes") == 0
    assert any("every_chunk_extracted" in e for e in outcome.errors)


@pytest.mark.parametrize(
    "check, asset, corrupt",
    [
        ("entities_schema_valid", "entities", lambda found: found.entities[0].update(entity_type="starship")),
        ("entities_schema_valid", "entities", lambda found: found.entities[0].update(description="  ")),
        ("relationships_schema_valid", "relationships", lambda found: found.relationships[0].update(tags=[])),
        (
            "relationships_schema_valid",
            "relationships",
            lambda found: found.relationships[0].update(target_node_id=found.relationships[0]["source_node_id"]),
        ),
    ],
)
def test_rows_outside_the_contract_fail_their_check_and_stop_the_graph(graph, monkeypatch, check, asset, corrupt):
    real = extraction.postprocess

    def buggy(result, chunk):
        found = real(result, chunk)
        corrupt(found)
        return found

    monkeypatch.setattr(extraction, "postprocess", buggy)
    ingest(graph)
    evaluation = check_result(graph, asset, check)
    assert not evaluation.passed and evaluation.metadata["violations"].value >= 1
    assert not graph_ran(graph)


def test_too_few_questions_fail_the_check_and_stop_the_graph(graph, monkeypatch):
    real = questions.question_rows
    monkeypatch.setattr(questions, "question_rows", lambda result, chunk: real(result, chunk)[:1])
    ingest(graph)
    evaluation = check_result(graph, "atomic_questions", "questions_per_chunk_in_range")
    assert not evaluation.passed and "bio/a.md#c0000" in str(evaluation.metadata["examples"].value)
    assert not graph_ran(graph)


def test_a_dangling_edge_fails_its_check(graph, monkeypatch):
    from kg_pipelines.graph import graph_building

    real = graph_building.apply_document_support

    def buggy(conn, document_ids, now):  # a graph-builder bug that leaves an edge to nowhere
        report = real(conn, document_ids, now)
        warehouse.insert_rows(
            conn,
            "kg_edges",
            [
                {
                    "edge_id": "RELATED:ghost->nowhere",
                    "source_id": "ghost",
                    "target_id": "nowhere",
                    "edge_type": "RELATED",
                    "strength": 0.5,
                    "activation_count": 0,
                    "created_at": now,
                    "created_by": "pipeline",
                    "protected": False,
                    "support_count": 0,
                }
            ],
        )
        return report

    monkeypatch.setattr(graph_building, "apply_document_support", buggy)
    ingest(graph)
    evaluation = check_result(graph, "kg_edges", "no_dangling_edges")
    assert not evaluation.passed and "RELATED:ghost->nowhere" in str(evaluation.metadata["examples"].value)
