"""A process can die at any moment: an ingest killed with -9 in its chunk stage is followed by
one that completes on its own (the dead run's pool claim is freed) and leaves exactly the rows a
clean ingest leaves; Ctrl-C and SIGTERM stop an ingest with one line, and the same command resumes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import lancedb
import pytest
import yaml

TOPICS = [
    "Metformin activates AMPK in liver cells",
    "Rapamycin inhibits mTORC1 in yeast",
    "Spermidine induces autophagy in flies",
    "Nicotinamide riboside raises NAD+ in muscle",
    "Resveratrol activates SIRT1 in mice",
    "Senolytics clear senescent cells in old mice",
]
# small commit batches and embedding windows: the chunk stage advances in steps a kill can fall between
SETTINGS = {"chunk_tokens": 48, "chunk_jobs": {"workers": 2, "commit_every": 4, "embed_every": 8}}
TABLES = {
    "documents": "document_id, content_hash, title",
    "chunks": "chunk_id, text_hash, summary, prior_summary",
    "chunk_state": "chunk_id, stage, status, input_hash, output_count",
    "entities": "entity_id, name, entity_type, node_id",
    "relationships": "relationship_id, source_node_id, target_node_id, tags",
    "atomic_questions": "question_id, question",
    "kg_nodes": "node_id, node_type, name, support_count",
    "kg_edges": "edge_id, strength, support_count",
}


def write_corpus(folder: Path, n: int = 40) -> None:
    for i in range(n):
        sentences = [f"{TOPICS[(i + k) % len(TOPICS)]} in study {i}-{k}." for k in range(12)]
        (folder / f"doc{i:03d}.md").parent.mkdir(parents=True, exist_ok=True)
        (folder / f"doc{i:03d}.md").write_text(f"# Study {i}\n" + " ".join(sentences) + "\n")


def start(data: Path, corpus: Path) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if k not in ("DAGSTER_HOME", "KG_CONFIG", "KG_DATA_DIR")}
    env["HF_HUB_OFFLINE"] = "1"
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "kg_pipelines.cli",
            "--data-dir",
            str(data),
            "ingest",
            str(corpus),
            "--collection",
            "bio",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        start_new_session=True,
    )


def wait_for(proc: subprocess.Popen, marker: bytes, limit_s: float = 240) -> bytes:
    """Read stderr until ``marker`` shows (the run is in that stage); returns what was read."""
    os.set_blocking(proc.stderr.fileno(), False)
    seen = b""
    deadline = time.monotonic() + limit_s
    while marker not in seen:
        assert proc.poll() is None, f"the ingest ended before {marker!r}: {seen.decode(errors='replace')[-2000:]}"
        assert time.monotonic() < deadline, f"no {marker!r} in time: {seen.decode(errors='replace')[-2000:]}"
        chunk = proc.stderr.read()
        seen += chunk or b""
        time.sleep(0.05)
    return seen


def finish(proc: subprocess.Popen, limit_s: float = 600) -> tuple[int, str, str]:
    os.set_blocking(proc.stderr.fileno(), True)
    out, err = proc.communicate(timeout=limit_s)
    return proc.returncode, out.decode(errors="replace"), err.decode(errors="replace")


def snapshot(data: Path) -> dict:
    conn = duckdb.connect(str(data / "warehouse.duckdb"), read_only=True)
    try:
        rows = {t: sorted(map(str, conn.execute(f"SELECT {cols} FROM {t}").fetchall())) for t, cols in TABLES.items()}
    finally:
        conn.close()
    db = lancedb.connect(str(data / "lancedb"))
    for name in sorted(db.list_tables().tables):
        rows[name] = sorted(db.open_table(name).to_arrow().column(0).to_pylist())
    return rows


@pytest.fixture(scope="module")
def clean(tmp_path_factory) -> tuple[Path, dict]:
    root = tmp_path_factory.mktemp("clean")
    write_corpus(root / "corpus")
    (root / "data").mkdir()
    (root / "data" / "kg.yaml").write_text(yaml.safe_dump(SETTINGS))
    code, out, err = finish(start(root / "data", root / "corpus"))
    assert code == 0, err[-3000:]
    return root / "corpus", snapshot(root / "data")


def fresh_data(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    data.mkdir()
    (data / "kg.yaml").write_text(yaml.safe_dump(SETTINGS))
    return data


def test_an_ingest_killed_with_9_is_followed_by_one_that_completes_with_the_same_rows(clean, tmp_path):
    corpus, expected = clean
    data = fresh_data(tmp_path)
    victim = start(data, corpus)
    wait_for(victim, b"chunk + summarize (documents) :  2")  # a fifth of the way through its chunk stage
    os.killpg(victim.pid, signal.SIGKILL)
    victim.wait()

    code, out, err = finish(start(data, corpus))
    assert code == 0, err[-3000:]
    assert "freed the duckdb pool slot of run" in err  # the dead run's claim did not wedge this one
    assert snapshot(data) == expected
    from dagster import DagsterInstance, DagsterRunStatus, RunsFilter

    with DagsterInstance.from_config(str(data / "dagster_home")) as instance:
        (dead,) = instance.get_runs(RunsFilter(statuses=[DagsterRunStatus.FAILURE]))
        assert dead.tags["kg/pid"] == str(victim.pid)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_or_sigterm_stops_with_one_line_and_the_same_command_resumes(clean, tmp_path, sig):
    corpus, expected = clean
    data = fresh_data(tmp_path)
    proc = start(data, corpus)
    wait_for(proc, b"chunk + summarize (documents) :  2")
    os.killpg(proc.pid, sig)
    code, out, err = finish(proc, limit_s=60)
    assert code == 130, err[-3000:]
    assert "interrupted; run the same command again to resume" in err
    assert "Traceback" not in err and "Traceback" not in out

    code, out, err = finish(start(data, corpus))
    assert code == 0, err[-3000:]
    assert snapshot(data) == expected
