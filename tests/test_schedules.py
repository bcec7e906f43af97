"""The graph-health schedules as the Definitions hold them (all four RUNNING by default, their crons),
each schedule's tick against a fresh and a mature graph, the feature flag, and the sensors' interval."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import duckdb
import pytest
import yaml
from dagster import DefaultScheduleStatus, DefaultSensorStatus, build_schedule_context

from kg_pipelines.config import SensorSettings
from kg_pipelines.dagster_shell.resources import KGResource
from kg_pipelines.graph.graph_io import import_graph
from kg_pipelines.graph.graph_stats import publish_graph_stats
from kg_pipelines.stores import warehouse
from tests.conftest import REPO_ROOT

SAMPLE = REPO_ROOT / "data" / "consolidation_sample"  # 51 edges, the first made 2026-09-03
EXPECTED = {  # name -> (cron, job)
    "consolidate_prune_schedule": ("0 3 * * *", "consolidate_prune"),
    "consolidate_merge_edges_schedule": ("0 4 * * 1", "consolidate_merge_edges"),
    "consolidate_summarize_schedule": ("0 5 * * 1", "consolidate_summarize"),
    "weekly_dedup_schedule": ("0 3 * * 0", "dedup_nodes"),
}
WHEN = datetime(2026, 11, 23, 5, 0, tzinfo=UTC)  # a Monday of an on-week of summarize (week 46 from 2026-01-05)


@pytest.fixture(scope="module")
def repository():
    from kg_pipelines.definitions import defs

    return defs.get_repository_def()


def test_the_definitions_hold_the_four_schedules_running_with_their_crons(repository):
    schedules = {s.name: s for s in repository.schedule_defs}
    assert set(schedules) == set(EXPECTED)
    for name, (cron, job) in EXPECTED.items():
        assert schedules[name].default_status == DefaultScheduleStatus.RUNNING, name
        assert (schedules[name].cron_schedule, schedules[name].job_name) == (cron, job)
        assert schedules[name].execution_timezone == "UTC"


def test_every_sensor_runs_and_is_evaluated_at_least_every_ten_seconds(repository):
    sensors = repository.sensor_defs
    assert {s.name for s in sensors} == {"inbox_sensor", "retry_sensor", "page_bundle_sensor", "activations_sensor"}
    for sensor in sensors:
        assert sensor.default_status == DefaultSensorStatus.RUNNING, sensor.name
        assert sensor.minimum_interval_seconds == SensorSettings().minimum_interval_s == 10, sensor.name


def _definitions_in(data: Path) -> dict:
    """Sensor intervals and schedule names of the Definitions loaded by a fresh interpreter on ``data``."""
    env = {k: v for k, v in os.environ.items() if k not in {"KG_CONFIG"}}
    env.update(KG_DATA_DIR=str(data), PYTHONPATH=str(REPO_ROOT), HF_HUB_OFFLINE="1")
    code = (
        "import json; from kg_pipelines.definitions import defs; r = defs.get_repository_def(); "
        "print(json.dumps({'sensors': {s.name: s.minimum_interval_seconds for s in r.sensor_defs}, "
        "'schedules': sorted(s.name for s in r.schedule_defs)}))"
    )
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_sensor_interval_is_a_setting_and_bad_settings_still_load_the_definitions(tmp_path):
    slow, broken = tmp_path / "slow", tmp_path / "broken"
    slow.mkdir()
    broken.mkdir()
    (slow / "kg.yaml").write_text(yaml.safe_dump({"sensor": {"minimum_interval_s": 45}}))
    assert set(_definitions_in(slow)["sensors"].values()) == {45}
    (broken / "kg.yaml").write_text("sensor: [not, a, mapping")
    loaded = _definitions_in(broken)
    assert set(loaded["sensors"].values()) == {10} and len(loaded["schedules"]) == 4


# -- each schedule's tick -------------------------------------------------------------------------


@pytest.fixture
def schedules(repository):
    return {s.name: s for s in repository.schedule_defs}


def tick(schedule, data: Path, when: datetime = WHEN):
    with build_schedule_context(scheduled_execution_time=when, resources={"kg": KGResource(data_dir=str(data))}) as ctx:
        return schedule.evaluate_tick(ctx)


def _graph(data: Path, with_sample: bool) -> None:
    """A warehouse under ``data`` (empty, or the sample graph imported) and its published figures."""
    data.mkdir()
    conn = warehouse.connect(data / "warehouse.duckdb")
    try:
        if with_sample:
            import_graph(conn, SAMPLE / "nodes.json", SAMPLE / "edges.json", WHEN)
        publish_graph_stats(conn, data, WHEN)
    finally:
        conn.close()


@pytest.fixture
def mature(tmp_path, monkeypatch) -> Path:
    """The sample graph (51 edges, first made 2026-09-03, 81 days before WHEN); after it is built,
    opening DuckDB fails the test: ticks decide from graph_stats.json (a run may hold the lock)."""
    data = tmp_path / "mature"
    _graph(data, with_sample=True)
    stats = json.loads((data / "graph_stats.json").read_text())
    assert stats["edges"] >= 50 and stats["first_edge_at"].startswith("2026-09-03")

    def refuse(*_a, **_k):
        raise AssertionError("a schedule opened DuckDB")

    monkeypatch.setattr(duckdb, "connect", refuse)
    return data


def test_every_schedule_skips_on_a_fresh_graph_and_says_why(tmp_path, schedules):
    nothing, fresh = tmp_path / "nothing", tmp_path / "fresh"
    nothing.mkdir()
    _graph(fresh, with_sample=False)
    for name, schedule in schedules.items():
        result = tick(schedule, nothing)
        assert not result.run_requests and "nothing ingested" in result.skip_message, name
        result = tick(schedule, fresh)
        assert not result.run_requests, name
        assert "0 edges, fewer than consolidation.min_edges = 50" in result.skip_message, name


def test_every_schedule_requests_its_run_on_a_mature_graph_and_waits_on_a_young_one(mature, schedules):
    for name, schedule in schedules.items():
        result = tick(schedule, mature)
        assert result.skip_message is None and len(result.run_requests) == 1, (name, result.skip_message)
        young = tick(schedule, mature, datetime(2026, 9, 6, 5, tzinfo=UTC))  # 3 days after the first edge
        assert not young.run_requests and "days old" in young.skip_message, name
        assert "min_graph_age_days = 14" in young.skip_message, name
    dedup = tick(schedules["weekly_dedup_schedule"], mature).run_requests[0]
    assert dedup.run_key == f"dedup-{WHEN.isoformat()}" and dedup.tags["kg/dedup"] == "weekly"
    assert dedup.run_config["ops"]["node_merges"]["config"]["origin"] == "weekly"
    prune = tick(schedules["consolidate_prune_schedule"], mature).run_requests[0]
    assert prune.run_key == f"prune-{WHEN.isoformat()}" and prune.tags["kg/consolidation"] == "prune"


def test_summarize_skips_its_off_weeks_on_a_mature_graph(mature, schedules):
    summarize = schedules["consolidate_summarize_schedule"]
    off = tick(summarize, mature, WHEN + timedelta(days=7))
    assert not off.run_requests and "off-week" in off.skip_message and "every 2 weeks" in off.skip_message
    assert tick(summarize, mature, WHEN + timedelta(days=14)).run_requests


def test_the_feature_flag_off_skips_every_schedule_with_the_reason(mature, schedules):
    (mature / "kg.yaml").write_text(yaml.safe_dump({"consolidation": {"enabled": False}}))
    for name, schedule in schedules.items():
        result = tick(schedule, mature)
        assert not result.run_requests, name
        assert "disabled (consolidation.enabled: false in kg.yaml)" in result.skip_message, name
