"""Dagster on PostgreSQL: `init --dagster-storage` (or $KG_DAGSTER_STORAGE) points a data dir's
instance at a real database, and CLI runs, sensor evaluations, schedules and the run queue's
limits use it. The end-to-end tests create (and drop) their own database on the PostgreSQL server
on loopback; where none answers they skip with the reason. The storage block's handling runs
everywhere."""

from __future__ import annotations

import os
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from kg_pipelines.cli import main
from kg_pipelines.dagster_shell.instance_storage import (
    StorageSettingError,
    apply_storage,
    current_storage,
    redacted,
    validate_storage_url,
)

ADMIN_URL = os.environ.get("KG_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres")
TEMPLATE = Path(__file__).resolve().parents[1] / "kg_pipelines" / "dagster.yaml"
DOC = "# NAD+ and SIRT1\nNicotinamide riboside raises NAD+ levels in muscle. NAD+ activates SIRT1.\n"


# -- the storage block, no server needed -------------------------------------------------------------
def test_the_storage_block_is_written_once_replaced_and_removed(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / "dagster.yaml").write_text(TEMPLATE.read_text())
    assert current_storage(home) == "sqlite"

    assert apply_storage(home, "postgresql://kg@db.internal:5432/runs")
    assert apply_storage(home, "postgresql://kg@db.internal:5433/runs")
    assert not apply_storage(home, "postgresql://kg@db.internal:5433/runs")  # nothing to change
    text = (home / "dagster.yaml").read_text()
    assert text.count("storage:") == 1 and "5432" not in text
    loaded = yaml.safe_load(text)
    assert loaded["storage"] == {"postgres": {"postgres_url": "postgresql+psycopg2://kg@db.internal:5433/runs"}}
    assert current_storage(home) == "postgresql://kg@db.internal:5433/runs"
    assert loaded["concurrency"]["runs"]["max_concurrent_runs"] == 4  # the template is kept
    assert "# Every asset that writes DuckDB" in text  # and its comments

    assert apply_storage(home, "sqlite")
    assert current_storage(home) == "sqlite" and (home / "dagster.yaml").read_text() == TEMPLATE.read_text()


@pytest.mark.parametrize(
    "url, says",
    [
        ("mysql://kg@localhost/db", "expected `sqlite` or postgresql://"),
        ("postgresql://kg@localhost", "needs a host and a database name"),
        ("postgresql:///runs", "needs a host and a database name"),
        ("postgresql://kg@localhost:port/runs", "Port could not be cast"),
    ],
)
def test_a_storage_url_that_cannot_work_is_refused_with_the_reason(url, says):
    with pytest.raises(StorageSettingError, match=says):
        validate_storage_url(url)


def test_a_password_never_appears_in_messages():
    assert redacted("postgresql://kg:s3cret@db:5432/runs") == "postgresql://kg:***@db:5432/runs"
    with pytest.raises(StorageSettingError) as raised:
        validate_storage_url("postgresql://kg:s3cret@db:5432")
    assert "s3cret" not in str(raised.value)


def test_init_refuses_an_unreachable_database_in_one_line(cli_env):
    closed = "postgresql://kg:hunter2@127.0.0.1:1/runs"  # port 1: nothing listens
    result = CliRunner().invoke(main, ["--data-dir", str(cli_env / "g"), "init", "--dagster-storage", closed])
    assert result.exit_code != 0
    assert "cannot reach the dagster storage postgresql://kg:***@127.0.0.1:1/runs" in result.output
    assert "hunter2" not in result.output and "Traceback" not in result.output
    assert current_storage(cli_env / "g" / "dagster_home") == "sqlite"  # nothing half-written


# -- end to end on a real server ---------------------------------------------------------------------
def _admin():
    psycopg2 = pytest.importorskip("psycopg2")
    try:
        conn = psycopg2.connect(ADMIN_URL, connect_timeout=3)
    except psycopg2.Error as exc:
        pytest.skip(f"no PostgreSQL at {redacted(ADMIN_URL)} ({str(exc).strip().splitlines()[0]})")
    conn.autocommit = True
    return conn


@pytest.fixture
def postgres_url():
    """A fresh database on the loopback server, dropped afterwards."""
    admin = _admin()
    name = "kg_test_" + uuid.uuid4().hex[:10]
    with admin.cursor() as cur:
        cur.execute(f'CREATE DATABASE "{name}"')
    base = ADMIN_URL.rsplit("/", 1)[0]
    try:
        yield f"{base}/{name}"
    finally:
        with admin.cursor() as cur:
            cur.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", [name])
            cur.execute(f'DROP DATABASE IF EXISTS "{name}"')
        admin.close()


def _query(url: str, sql: str, params=()) -> list[tuple]:
    import psycopg2

    with psycopg2.connect(url) as conn, conn.cursor() as cur:
        cur.execute(sql, params)
        return cur.fetchall()


def test_runs_sensors_schedules_and_queue_limits_live_in_postgres(cli_env, postgres_url, monkeypatch):
    from dagster import DagsterInstance, SensorEvaluationContext, build_schedule_context

    from kg_pipelines.dagster_shell.resources import KGResource
    from kg_pipelines.dagster_shell.schedules import consolidate_prune_schedule
    from kg_pipelines.dagster_shell.sensors import inbox_sensor
    from kg_pipelines.definitions import defs

    data = cli_env / "graph"
    runner = CliRunner()
    result = runner.invoke(main, ["--data-dir", str(data), "init", "--dagster-storage", postgres_url])
    assert result.exit_code == 0, result.output
    assert f"dagster storage: {postgres_url}" in result.output
    home = data / "dagster_home"

    # a CLI run is recorded in PostgreSQL, not in SQLite files under the home
    papers = cli_env / "papers"
    papers.mkdir()
    (papers / "nad.md").write_text(DOC)
    result = runner.invoke(main, ["--data-dir", str(data), "ingest", str(papers), "--collection", "longevity"])
    assert result.exit_code == 0, result.output
    runs = _query(postgres_url, "SELECT pipeline_name, status FROM runs")
    assert ("sync_collection", "SUCCESS") in runs
    assert not list(home.rglob("*.db")), "no SQLite run or event storage beside PostgreSQL"
    materialized = _query(
        postgres_url, "SELECT count(*) FROM event_logs WHERE dagster_event_type = 'ASSET_MATERIALIZATION'"
    )[0][0]
    assert materialized >= 7

    # the duckdb pool's limit is stored there, and the run queue keeps its limits
    assert _query(postgres_url, 'SELECT concurrency_key, "limit" FROM concurrency_limits') == [("duckdb", 1)]
    monkeypatch.setenv("DAGSTER_HOME", str(home))
    with DagsterInstance.from_config(str(home)) as instance:
        limits = instance.get_concurrency_config().run_queue_config.tag_concurrency_limits
        assert {"key": "kg/ingestion", "limit": 1} in limits

        # the inbox sensor, evaluated on this instance, requests a run and its partition lands in PostgreSQL
        inbox = data / "inbox" / "microbiome"
        inbox.mkdir(parents=True)
        (inbox / "akkermansia.md").write_text("# Akkermansia\nMetformin raises Akkermansia muciniphila in the gut.\n")
        with SensorEvaluationContext(
            instance_ref=instance.get_ref(),
            instance=instance,
            cursor=None,
            log_key=["kg_test", "inbox_sensor", str(time.time())],
            repository_def=defs.get_repository_def(),
            sensor_name=inbox_sensor.name,
            resources={"kg": KGResource(data_dir=str(data))},
        ) as context:
            tick = inbox_sensor.evaluate_tick(context)
        assert [r.partition_key for r in tick.run_requests] == ["microbiome"]
        for request in tick.dynamic_partitions_requests:
            instance.add_dynamic_partitions(request.partitions_def_name, list(request.partition_keys))
        partitions = {row[0] for row in _query(postgres_url, "SELECT partition FROM dynamic_partitions")}
        assert {"longevity", "microbiome"} <= partitions

        # a schedule evaluated on this instance decides from the graph and says why it skips
        with build_schedule_context(
            instance=instance,
            resources={"kg": KGResource(data_dir=str(data))},
            scheduled_execution_time=datetime.now(UTC),
        ) as ctx:
            decision = consolidate_prune_schedule.evaluate_tick(ctx)
        assert decision.skip_message and "edges" in decision.skip_message

    # back to the embedded default
    result = runner.invoke(main, ["--data-dir", str(data), "init", "--dagster-storage", "sqlite"])
    assert result.exit_code == 0 and "dagster storage: sqlite" in result.output


def test_the_environment_variable_points_every_command_at_postgres(cli_env, postgres_url, monkeypatch):
    monkeypatch.setenv("KG_DAGSTER_STORAGE", postgres_url)
    data = cli_env / "graph"
    papers = cli_env / "papers"
    papers.mkdir()
    (papers / "nad.md").write_text(DOC)
    result = CliRunner().invoke(main, ["--data-dir", str(data), "ingest", str(papers), "--collection", "longevity"])
    assert result.exit_code == 0, result.output
    assert current_storage(data / "dagster_home") == postgres_url
    assert ("sync_collection", "SUCCESS") in _query(postgres_url, "SELECT pipeline_name, status FROM runs")
