"""The real ``dagster-webserver`` loads workspace.yaml, and a GraphQL client sees the whole pipeline:
the code location, the assets with their groups, kinds, partitions and lineage, the asset checks,
the jobs and the inbox sensor.

One server per module (start-up costs seconds), on a free loopback port, with its own DAGSTER_HOME
and data dir; it is always stopped in the fixture's teardown.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from kg_pipelines.dagster_shell.jobs import remove_documents_job

pytestmark = pytest.mark.webserver

REPO_ROOT = Path(__file__).resolve().parents[1]
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
CHECKS = {
    ("kg_edges", "no_dangling_edges"),
    ("entities", "every_done_chunk_extracted"),
    ("entities", "entities_schema_valid"),
    ("relationships", "relationships_schema_valid"),
    ("atomic_questions", "questions_per_chunk_in_range"),
}


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


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
    home = base / "dagster_home"
    home.mkdir()
    shutil.copy(REPO_ROOT / "kg_pipelines" / "dagster.yaml", home / "dagster.yaml")
    data = base / "data"
    data.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in {"KG_CONFIG", "KG_INBOX_DIR", "KG_LLM_PROVIDER"}}
    env.update(DAGSTER_HOME=str(home), KG_DATA_DIR=str(data), HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    log = base / "webserver.log"
    with log.open("wb") as log_handle:
        proc = subprocess.Popen(
            [sys.executable, "-m", "dagster_webserver", "-w", str(REPO_ROOT / "workspace.yaml"),
             "-h", "127.0.0.1", "-p", str(port)],
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
    ... on Sensors { results { name description minIntervalSeconds targets { pipelineName } } }
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
    assert location["__typename"] == "RepositoryLocation", f"{location.get('message')}\n{''.join(location.get('stack') or [])}"
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


def test_code_location_loads_without_error(repository_selector):
    assert repository_selector["repositoryLocationName"] == LOCATION
    assert repository_selector["repositoryName"]


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
        assert dynamic_names == {"documents"}, (name, partitions)
        assert "ingest_documents" in node["jobNames"], (name, node["jobNames"])
    assert "lancedb" in nodes["chunks"]["kinds"]
    assert "lancedb" in nodes["atomic_questions"]["kinds"]


def test_lineage(repository):
    nodes = _nodes(repository)
    for name, upstream in UPSTREAM.items():
        deps = {"/".join(k["path"]) for k in nodes[name]["dependencyKeys"]}
        assert deps == upstream, f"{name} depends on {sorted(deps)}, expected {sorted(upstream)}"


def test_asset_checks(repository):
    nodes = _nodes(repository)
    found = set()
    for name, node in nodes.items():
        checks = node["assetChecksOrError"]
        if checks["__typename"] != "AssetChecks":
            continue
        for check in checks["checks"]:
            assert "/".join(check["assetKey"]["path"]) == name
            assert check["blocking"] is True, check
            assert (check["description"] or "").strip(), check
            found.add((name, check["name"]))
    assert found == CHECKS
    for asset, _ in CHECKS:
        assert nodes[asset]["hasAssetChecks"] is True, asset


def _sensors(server, repository_selector) -> dict[str, dict]:
    data = server.graphql(SENSORS_QUERY, {"selector": repository_selector})["sensorsOrError"]
    assert data["__typename"] == "Sensors", data
    return {s["name"]: s for s in data["results"]}


def test_jobs_and_inbox_sensor(server, repository_selector, repository):
    jobs = {j["name"] for j in repository["jobs"]}
    assert {"ingest_documents", remove_documents_job.name} <= jobs, sorted(jobs)

    sensors = _sensors(server, repository_selector)
    assert "inbox_sensor" in sensors, sorted(sensors)
    sensor = sensors["inbox_sensor"]
    assert {t["pipelineName"] for t in sensor["targets"]} == {"ingest_documents", remove_documents_job.name}
    assert sensor["minIntervalSeconds"] == 30
    assert "inbox" in (sensor["description"] or "")
    # the repository's own sensor list agrees
    assert "inbox_sensor" in {s["name"] for s in repository["sensors"]}


def test_removal_job_has_the_documented_name(server, repository_selector, repository):
    assert "remove_documents" in {j["name"] for j in repository["jobs"]}
    targets = {t["pipelineName"] for t in _sensors(server, repository_selector)["inbox_sensor"]["targets"]}
    assert targets == {"ingest_documents", "remove_documents"}
