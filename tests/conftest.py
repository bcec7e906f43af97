"""Shared fixtures: an isolated graph (data dir + Dagster instance) per test, and helpers to
write documents, ingest them through the real Dagster job, and read the warehouse."""

from __future__ import annotations

import os
import shutil
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import yaml

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from kg_pipelines.config import KGSettings, load_settings  # noqa: E402
from kg_pipelines.stores import warehouse  # noqa: E402

REPO_ROOT = Path(__file__).resolve().parents[1]


def add_user_link(conn, source_id: str, target_id: str, **fields) -> None:
    """A person's own link ``user-link`` between two nodes (unprotected, no support, never
    activated unless ``fields`` say otherwise), written as the edge admin would."""
    row = dict(
        edge_id="user-link",
        source_id=source_id,
        target_id=target_id,
        activation_count=0,
        created_by="user",
        protected=False,
        support_count=0,
    )
    warehouse.insert_rows(conn, "kg_edges", [row | fields])


def free_port() -> int:
    """A loopback port nothing listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def server_env(base: Path) -> tuple[Path, dict[str, str]]:
    """A data dir (with an inbox) and a Dagster home with the project's instance template under
    ``base``, and the environment for a server process on them: (data dir, env)."""
    home = base / "dagster_home"
    home.mkdir(parents=True)
    shutil.copy(REPO_ROOT / "kg_pipelines" / "dagster.yaml", home / "dagster.yaml")
    data = base / "data"
    (data / "inbox").mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if k not in {"KG_CONFIG", "KG_INBOX_DIR", "KG_LLM_PROVIDER", "PORT"}}
    env.update(DAGSTER_HOME=str(home), KG_DATA_DIR=str(data), HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
    return data, env


# fast retries in tests: the backoff schedule itself is unit-tested in test_chunk_jobs
# and failed chunks due for their next round at once (the round schedule is unit-tested too)
FAST = {
    "chunk_jobs": {
        "workers": 2,
        "max_chunk_retries": 1,
        "backoff_base_s": 0.0,
        "backoff_max_s": 0.0,
        "round_delay_s": 0.0,
    }
}


class Graph:
    """One graph under a temporary data dir, with its own Dagster instance."""

    def __init__(self, root: Path, instance):
        self.root = root
        self.instance = instance
        self.configure()

    def configure(self, **overrides) -> KGSettings:
        values = {**FAST, **overrides}
        (self.root / "kg.yaml").write_text(yaml.safe_dump(values))
        self.settings = load_settings(self.root)
        return self.settings

    def write(self, relative: str, text: str | bytes, folder: str = "docs") -> Path:
        path = self.root.parent / folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
        return path

    def ingest(self, collection: str, folder: str = "docs", paths: list[Path] | None = None):
        from kg_pipelines.dagster_shell.runner import ingest_sources
        from kg_pipelines.ingestion.inbox import scan_directory

        files = scan_directory(self.root.parent / folder / collection, collection)
        if paths is not None:
            files = [f for f in files if f.path in {p.resolve() for p in paths}]
        return ingest_sources(self.settings, [f.to_source() for f in files], self.instance)

    def rows(self, sql: str, params: list | None = None) -> list[tuple]:
        conn = warehouse.connect(self.settings.warehouse_path)
        try:
            return conn.execute(sql, params or []).fetchall()
        finally:
            conn.close()

    def one(self, sql: str, params: list | None = None):
        return self.rows(sql, params)[0][0]


@pytest.fixture
def cli_env(monkeypatch, tmp_path) -> Path:
    """A temporary folder for CLI tests: the CLI exports DAGSTER_HOME / KG_DATA_DIR for its
    in-process runs, so they are kept test-local and the user's settings left out."""
    for name in ("DAGSTER_HOME", "KG_DATA_DIR", "KG_CONFIG", "KG_INBOX_DIR", "KG_LLM_PROVIDER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "unused"))
    return tmp_path


@contextmanager
def ingested_graph(base: Path, documents: dict[str, str]) -> Iterator[Graph]:
    """A graph under ``base`` with ``documents`` (``<collection>/<file>`` -> text) ingested by the
    real job, one collection after another: for module-scoped fixtures, where ingestion is the slow
    part and the tests only read."""
    from dagster import instance_for_test

    root = base / "graph"
    root.mkdir()
    with pytest.MonkeyPatch.context() as patch:
        for name in ("KG_CONFIG", "KG_INBOX_DIR", "KG_LLM_PROVIDER"):
            patch.delenv(name, raising=False)
        patch.setenv("KG_DATA_DIR", str(root))
        (base / "dagster_home").mkdir()
        with instance_for_test(temp_dir=str(base / "dagster_home")) as instance:
            graph = Graph(root, instance)
            for relative, text in documents.items():
                graph.write(relative, text)
            for collection in dict.fromkeys(relative.split("/", 1)[0] for relative in documents):
                outcome = graph.ingest(collection)
                assert outcome.failed_runs == 0, outcome.errors
            yield graph


@pytest.fixture
def graph(tmp_path, monkeypatch):
    from dagster import instance_for_test

    root = tmp_path / "graph"
    root.mkdir()
    for name in ("KG_CONFIG", "KG_INBOX_DIR", "KG_LLM_PROVIDER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("KG_DATA_DIR", str(root))
    home = tmp_path / "dagster_home"
    home.mkdir()
    with instance_for_test(temp_dir=str(home)) as instance:
        yield Graph(root, instance)
