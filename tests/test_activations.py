"""Usage feeds the graph: queued uses of edges are applied once, in one transaction per batch,
by a pooled asset that a sensor requests without opening DuckDB."""

from __future__ import annotations

from datetime import UTC, datetime

import duckdb
import pytest
from dagster import RunRequest, SkipReason, build_sensor_context, materialize

from kg_pipelines.config import load_settings
from kg_pipelines.dagster_shell.activation_assets import activations_sensor, edge_activations
from kg_pipelines.dagster_shell.resources import KGResource
from kg_pipelines.retrieval.activations import apply_activations, pending_activations, record_activations
from kg_pipelines.stores.graph_snapshot import load_graph_snapshot, publish_graph_snapshot
from kg_pipelines.stores.warehouse import connect, insert_rows, transaction

T0 = datetime(2026, 11, 1, tzinfo=UTC)
USED = datetime(2026, 11, 20, 12, tzinfo=UTC)


def _edge(edge_id: str, strength: float = 0.5) -> dict:
    return {
        "edge_id": edge_id,
        "source_id": "a",
        "target_id": "b",
        "edge_type": "RELATED",
        "strength": strength,
        "activation_count": 0,
        "created_at": T0,
        "created_by": "pipeline",
        "protected": False,
        "support_count": 1,
    }


@pytest.fixture
def store(tmp_path):
    settings = load_settings(tmp_path)
    conn = connect(settings.warehouse_path)
    with transaction(conn):
        insert_rows(conn, "kg_edges", [_edge("e1"), _edge("e2", 0.8)])
    yield settings, conn
    conn.close()


def _edges(conn):
    return {
        r[0]: r[1:]
        for r in conn.execute(
            "SELECT edge_id, activation_count, last_activated_at, strength FROM kg_edges ORDER BY 1"
        ).fetchall()
    }


def test_uses_are_applied_once_with_count_time_and_reinforced_strength(store):
    settings, conn = store
    assert record_activations(settings, ["e1", "e2", "e1"], "search", USED) == 2  # one use per edge per call
    record_activations(settings, ["e1"], "qa", USED)
    assert pending_activations(settings) == 3
    report = apply_activations(conn, settings)
    assert (report.applied, report.skipped, report.edges_updated) == (3, 0, 2)
    edges = _edges(conn)
    assert edges["e1"][0] == 2 and edges["e2"][0] == 1
    assert edges["e1"][1] == USED
    r = settings.activations.reinforcement
    assert edges["e1"][2] == pytest.approx(1 - 0.5 * (1 - r) ** 2)
    assert edges["e2"][2] == pytest.approx(1 - 0.2 * (1 - r))
    assert pending_activations(settings) == 0
    # nothing queued: applying again changes nothing
    assert apply_activations(conn, settings).applied == 0
    assert _edges(conn) == edges
    assert conn.execute("SELECT count(*) FROM edge_activations").fetchone()[0] == 3


def test_a_crash_between_commit_and_queue_delete_never_applies_twice(store):
    settings, conn = store
    record_activations(settings, ["e1"], "search", USED)

    def crash():
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        apply_activations(conn, settings, crash_after_commit=crash)
    assert pending_activations(settings) == 1  # still queued, but already in the log
    report = apply_activations(conn, settings)
    assert (report.applied, report.skipped) == (0, 1)
    assert _edges(conn)["e1"][0] == 1
    assert pending_activations(settings) == 0


def test_a_failure_inside_the_transaction_leaves_graph_and_queue_as_they_were(store, monkeypatch):
    settings, conn = store
    record_activations(settings, ["e1"], "search", USED)
    before = _edges(conn)
    # the log becomes a read-only view: its insert fails after the edge update ran
    conn.execute("ALTER TABLE edge_activations RENAME TO edge_activations_kept")
    conn.execute("CREATE VIEW edge_activations AS SELECT * FROM edge_activations_kept")
    with pytest.raises(duckdb.Error):
        apply_activations(conn, settings)
    assert _edges(conn) == before
    assert pending_activations(settings) == 1


def test_uses_of_edges_gone_from_the_graph_are_logged_not_applied(store):
    settings, conn = store
    record_activations(settings, ["gone"], "qa", USED)
    report = apply_activations(conn, settings)
    assert (report.applied, report.missing_edges, report.edges_updated) == (1, 1, 0)
    assert conn.execute("SELECT edge_found FROM edge_activations").fetchone()[0] is False


def test_a_use_of_an_edge_merged_away_since_it_was_queued_reaches_the_edge_that_absorbed_it(store):
    settings, conn = store
    record_activations(settings, ["e3", "e4"], "search", USED)
    # consolidation merged e3 into e1 after the use was queued; e4's alias names an edge gone too
    with transaction(conn):
        conn.execute("INSERT INTO edge_aliases VALUES ('e3', 'e1', 'run-1'), ('e4', 'e9', 'run-1')")
    report = apply_activations(conn, settings)
    assert (report.applied, report.missing_edges, report.edges_updated) == (2, 1, 1)
    assert _edges(conn)["e1"][0] == 1
    logged = conn.execute("SELECT edge_id, edge_found FROM edge_activations ORDER BY 1").fetchall()
    assert logged == [("e1", True), ("e4", False)]


def test_disabled_activations_queue_nothing(tmp_path):
    (tmp_path / "kg.yaml").write_text("activations: {enabled: false}\n")
    settings = load_settings(tmp_path)
    assert record_activations(settings, ["e1"], "search") == 0
    assert pending_activations(settings) == 0


def test_sensor_reads_only_the_queue_and_the_asset_applies_it(store, tmp_path):
    settings, conn = store
    publish_graph_snapshot(conn, settings)
    conn.close()
    resources = {"kg": KGResource(data_dir=str(settings.data_dir))}
    with build_sensor_context(resources=resources) as context:
        assert isinstance(activations_sensor(context), SkipReason)
    record_activations(settings, ["e1"], "search", USED)
    # the sensor must work while a writer holds DuckDB: hold it from this process
    holder = connect(settings.warehouse_path)
    try:
        with build_sensor_context(resources=resources) as context:
            request = activations_sensor(context)
        assert isinstance(request, RunRequest) and request.run_key == "activations-1"
    finally:
        holder.close()
    result = materialize([edge_activations], resources=resources)
    assert result.success
    metadata = result.asset_materializations_for_node("edge_activations")[0].metadata
    assert metadata["applied"].value == 1 and metadata["edges_updated"].value == 1
    snapshot = load_graph_snapshot(settings)
    edges = snapshot.edges
    counts = dict(zip(edges.column("edge_id").to_pylist(), edges.column("activation_count").to_pylist()))
    assert counts["e1"] == 1  # readers see the reinforced edge without opening DuckDB


def test_a_queue_that_cannot_be_written_never_fails_the_reader(tmp_path):
    settings = load_settings(tmp_path)
    (tmp_path / "activations.sqlite").mkdir()  # not a database file: every open fails
    assert record_activations(settings, ["e1"], "search", USED) == 0
