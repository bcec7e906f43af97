"""The real ``dagster-webserver`` loads workspace.yaml, and a GraphQL client sees the whole pipeline:
the code location, the assets with their groups, kinds, partitions (one per knowledge collection)
and lineage, the asset checks, the one ingestion job ``sync_collection`` with its launchpad config,
and the inbox and retry sensors.

One server per module (start-up costs seconds), on a free loopback port, with its own DAGSTER_HOME
and data dir; it is always stopped in the fixture's teardown.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from tests.conftest import REPO_ROOT, free_port, server_env

pytestmark = pytest.mark.webserver

LOCATION = "kg_pipelines"
STARTUP_TIMEOUT_S = 90.0

ASSETS = ["documents", "chunks", "entities", "relationships", "atomic_questions", "kg_nodes", "kg_edges"]
GROUPS = {
    "documents": "ingestion",
    "chunks": "ingestion",
    "entities": "ingestion",
    "relationships": "ingestion",
    "atomic_questions": "ingestion",
    "kg_nodes": "graph",
    "kg_edges": "graph",
}
UPSTREAM = {
    "documents": set(),
    "chunks": {"documents"},
    "entities": {"chunks"},
    "relationships": {"chunks"},
    "atomic_questions": {"chunks"},
    "kg_nodes": {"entities", "relationships", "atomic_questions", "chunks"},
    "kg_edges": {"entities", "relationships", "atomic_questions", "chunks"},
}
JOB = "sync_collection"
PARTITIONS = "collections"
SENSORS = ["inbox_sensor", "retry_sensor"]  # the ingestion sensors: they launch JOB
# every job: ingestion (JOB) and the merger, usage feedback, retrieval quality, consolidation, dedup
JOBS = {
    JOB,
    "merge_page_bundle",
    "apply_edge_activations",
    "measure_retrieval_quality",
    "consolidate_prune",
    "consolidate_merge_edges",
    "consolidate_summarize",
    "dedup_nodes",
    "detect_duplicate_nodes",
    "unmerge_nodes",
}
OTHER_SENSORS = {"page_bundle_sensor": "merge_page_bundle", "activations_sensor": "apply_edge_activations"}
# (asset, check) -> blocking: a quarantined chunk is a warning that must not stop the graph
CHECKS = {
    ("entities", "every_chunk_extracted"): True,
    ("entities", "entities_schema_valid"): True,
    ("relationships", "relationships_schema_valid"): True,
    ("atomic_questions", "questions_per_chunk_in_range"): True,
    ("kg_nodes", "no_quarantined_chunks"): False,
    ("kg_edges", "no_dangling_edges"): True,
    # the merger's audit (seed 000 phase 4): reported, a failing sub-graph is retried by the asset itself
    ("merged_wiki_pages", "audit_nodes"): False,
    ("merged_wiki_pages", "audit_edges"): False,
    ("merged_wiki_pages", "audit_content"): False,
    ("merged_wiki_pages", "subgraphs_completed"): False,
    ("retrieval_quality", "retrieval_quality_not_below_accepted"): False,
}


class Server:
    def __init__(self, url: str, proc: subprocess.Popen, log: Path):
        self.url = url
        self.proc = proc
        self.log = log

    def stderr(self) -> str:
        return self.log.read_text(errors="replace")[-8000:] if self.log.exists() else ""

    def graphql(self, query: str, variables: dict | None = None) -> dict:
        response = requests.post(f"{self.url}/graphql", json={"query": query, "variables": variables or {}}, timeout=60)
        assert response.status_code == 200, f"HTTP {response.status_code}: {response.text[:2000]}"
        body = response.json()
        assert not body.get("errors"), f"GraphQL errors: {body['errors']}"
        return body["data"]


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
    # the webserver started its code server in the process group we created for it: make sure
    # nothing of that group outlives the test
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    base = tmp_path_factory.mktemp("webserver")
    data, env = server_env(base)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = base / "webserver.log"
    with log.open("wb") as log_handle:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "dagster_webserver",
                "-w",
                str(REPO_ROOT / "workspace.yaml"),
                "-h",
                "127.0.0.1",
                "-p",
                str(port),
            ],
            cwd=REPO_ROOT,
            env=env,
            stdout=log_handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    srv = Server(url, proc, log)
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while True:
            if proc.poll() is not None:
                pytest.fail(f"dagster-webserver exited with code {proc.returncode}:\n{srv.stderr()}")
            try:
                if requests.get(f"{url}/server_info", timeout=2).status_code == 200:
                    break
            except requests.RequestException:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"dagster-webserver not up after {STARTUP_TIMEOUT_S:.0f}s:\n{srv.stderr()}")
            time.sleep(0.5)
        yield srv
    finally:
        _stop(proc)


WORKSPACE_QUERY = """
query Workspace {
  workspaceOrError {
    __typename
    ... on PythonError { message stack }
    ... on Workspace {
      locationEntries {
        name
        loadStatus
        locationOrLoadError {
          __typename
          ... on PythonError { message stack }
          ... on RepositoryLocation { name repositories { name } }
        }
      }
    }
  }
}
"""

REPOSITORY_QUERY = """
query Repository($selector: RepositorySelector!) {
  repositoryOrError(repositorySelector: $selector) {
    __typename
    ... on PythonError { message stack }
    ... on RepositoryNotFoundError { message }
    ... on Repository {
      name
      jobs { name }
      sensors { name targets { pipelineName } }
      assetNodes {
        assetKey { path }
        groupName
        description
        kinds
        isPartitioned
        partitionDefinition { type name dimensionTypes { type dynamicPartitionsDefinitionName } }
        dependencyKeys { path }
        jobNames
        hasAssetChecks
        assetChecksOrError {
          __typename
          ... on AssetChecks { checks { name assetKey { path } blocking description } }
        }
      }
    }
  }
}
"""

SENSORS_QUERY = """
query Sensors($selector: RepositorySelector!) {
  sensorsOrError(repositorySelector: $selector) {
    __typename
    ... on PythonError { message }
    ... on Sensors {
      results { name description minIntervalSeconds defaultStatus sensorState { status } targets { pipelineName } }
    }
  }
}
"""

CONFIG_VALID_QUERY = """
query ConfigValid($selector: PipelineSelector!, $config: RunConfigData) {
  isPipelineConfigValid(pipeline: $selector, mode: "default", runConfigData: $config) {
    __typename
    ... on PipelineConfigValidationValid { pipelineName }
    ... on RunConfigValidationInvalid { errors { message reason } }
    ... on PipelineNotFoundError { message }
    ... on PythonError { message stack }
  }
}
"""


@pytest.fixture(scope="module")
def repository_selector(server) -> dict:
    data = server.graphql(WORKSPACE_QUERY)["workspaceOrError"]
    assert data["__typename"] == "Workspace", data
    entries = {e["name"]: e for e in data["locationEntries"]}
    assert LOCATION in entries, f"code locations: {sorted(entries)}"
    entry = entries[LOCATION]
    assert entry["loadStatus"] == "LOADED"
    location = entry["locationOrLoadError"]
    assert location is not None
    assert location["__typename"] == "RepositoryLocation", (
        f"{location.get('message')}\n{''.join(location.get('stack') or [])}"
    )
    repos = [r["name"] for r in location["repositories"]]
    assert len(repos) == 1, repos
    return {"repositoryLocationName": LOCATION, "repositoryName": repos[0]}


@pytest.fixture(scope="module")
def repository(server, repository_selector) -> dict:
    data = server.graphql(REPOSITORY_QUERY, {"selector": repository_selector})["repositoryOrError"]
    assert data["__typename"] == "Repository", data
    return data


def _nodes(repository: dict) -> dict[str, dict]:
    return {"/".join(n["assetKey"]["path"]): n for n in repository["assetNodes"]}


def test_code_location_loads_without_error(server):
    data = server.graphql(WORKSPACE_QUERY)["workspaceOrError"]
    entry = {e["name"]: e for e in data["locationEntries"]}[LOCATION]
    assert entry["loadStatus"] == "LOADED"
    assert entry["locationOrLoadError"]["__typename"] == "RepositoryLocation", entry["locationOrLoadError"]
    assert len(entry["locationOrLoadError"]["repositories"]) == 1


def test_asset_nodes_with_groups_descriptions_kinds_and_partitions(repository):
    nodes = _nodes(repository)
    assert set(ASSETS) <= set(nodes), f"asset nodes: {sorted(nodes)}"
    for name in ASSETS:
        node = nodes[name]
        assert node["groupName"] == GROUPS[name], (name, node["groupName"])
        assert (node["description"] or "").strip(), f"{name} has no description"
        assert "duckdb" in node["kinds"], (name, node["kinds"])
        assert node["isPartitioned"] is True, name
        partitions = node["partitionDefinition"]
        assert partitions is not None and partitions["type"] == "DYNAMIC", (name, partitions)
        dynamic_names = {d["dynamicPartitionsDefinitionName"] for d in partitions["dimensionTypes"]}
        assert dynamic_names == {PARTITIONS}, (name, partitions)
        assert JOB in node["jobNames"], (name, node["jobNames"])
    assert "lancedb" in nodes["chunks"]["kinds"]
    assert "lancedb" in nodes["atomic_questions"]["kinds"]


def test_lineage(repository):
    nodes = _nodes(repository)
    for name, upstream in UPSTREAM.items():
        deps = {"/".join(k["path"]) for k in nodes[name]["dependencyKeys"]}
        assert deps == upstream, f"{name} depends on {sorted(deps)}, expected {sorted(upstream)}"


def test_asset_checks(repository):
    nodes = _nodes(repository)
    found = {}
    for name, node in nodes.items():
        checks = node["assetChecksOrError"]
        if checks["__typename"] != "AssetChecks":
            continue
        for check in checks["checks"]:
            assert "/".join(check["assetKey"]["path"]) == name
            assert (check["description"] or "").strip(), check
            found[(name, check["name"])] = check["blocking"]
    assert found == CHECKS, "the checks and whether each one blocks"
    for asset, _ in CHECKS:
        assert nodes[asset]["hasAssetChecks"] is True, asset


def _sensors(server, repository_selector) -> dict[str, dict]:
    data = server.graphql(SENSORS_QUERY, {"selector": repository_selector})["sensorsOrError"]
    assert data["__typename"] == "Sensors", data
    return {s["name"]: s for s in data["results"]}


def test_the_jobs(repository):
    jobs = {j["name"] for j in repository["jobs"]}
    assert {j for j in jobs if not j.startswith("__")} == JOBS, sorted(jobs)  # __ASSET_JOB is Dagster's own


def test_inbox_and_retry_sensors_target_the_sync_job_and_run_by_default(server, repository_selector, repository):
    sensors = _sensors(server, repository_selector)
    assert sorted(sensors) == sorted([*SENSORS, *OTHER_SENSORS])
    assert sorted(s["name"] for s in repository["sensors"]) == sorted(sensors)  # the repository's own list agrees
    for name, job in OTHER_SENSORS.items():
        assert {t["pipelineName"] for t in sensors[name]["targets"]} == {job}, (name, sensors[name]["targets"])
    for name in SENSORS:
        sensor = sensors[name]
        assert {t["pipelineName"] for t in sensor["targets"]} == {JOB}, (name, sensor["targets"])
        assert sensor["minIntervalSeconds"] == 10, name  # seed 003's scheduler: every 10 s (sensor.minimum_interval_s)
        assert sensor["defaultStatus"] == "RUNNING", name
        assert sensor["sensorState"]["status"] == "RUNNING", (name, "nobody has to switch it on")
    assert "inbox" in (sensors["inbox_sensor"]["description"] or "")
    assert "retry" in (sensors["retry_sensor"]["description"] or "")


def _validate(server, repository_selector, config: dict) -> dict:
    selector = {**repository_selector, "pipelineName": JOB}
    return server.graphql(CONFIG_VALID_QUERY, {"selector": selector, "config": config})["isPipelineConfigValid"]


def test_launchpad_accepts_documents_to_reprocess(server, repository_selector):
    config = {"resources": {"kg": {"config": {"reprocess_document_ids": ["notes/a.txt", "notes/deep/b.md"]}}}}
    assert _validate(server, repository_selector, config)["__typename"] == "PipelineConfigValidationValid"
    assert _validate(server, repository_selector, {})["__typename"] == "PipelineConfigValidationValid"


@pytest.mark.parametrize(
    "kg_config",
    [{"reprocess_document_ids": "notes/a.txt"}, {"reprocess_documents": ["notes/a.txt"]}],
    ids=["not-a-list", "misspelt"],
)
def test_launchpad_refuses_a_malformed_reprocess_config(server, repository_selector, kg_config):
    result = _validate(server, repository_selector, {"resources": {"kg": {"config": kg_config}}})
    assert result["__typename"] == "RunConfigValidationInvalid", result
    (field,) = kg_config
    assert any(field in e["message"] for e in result["errors"]), result["errors"]
