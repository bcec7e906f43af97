"""The operator's levers (seed 002) through the CLI: `edge protect` / `edge unprotect` / `edge add` and
`consolidate restore RUN_ID [--edge]`, each one transaction on the --data-dir's warehouse, visible in
the next graph snapshot, with one-line errors for unknown or ambiguous ids."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from kg_pipelines.cli import main
from kg_pipelines.config import load_settings
from kg_pipelines.graph.edge_admin import EdgeAdminError, restore_prune_run
from kg_pipelines.stores import warehouse
from kg_pipelines.stores.graph_snapshot import load_graph_snapshot

OLD = "2026-01-05T00:00:00+00:00"
# sirtuins written for this test: SIRT1 is both a gene and a protein node (the same name twice)
NODES = [
    {"id": "gene:sirt1", "name": "SIRT1", "type": "gene"},
    {"id": "protein:sirt1", "name": "SIRT1", "type": "protein"},
    {"id": "gene:sirt3", "name": "SIRT3", "type": "gene"},
    {"id": "gene:sirt6", "name": "SIRT6", "type": "gene"},
    {"id": "compound:nad", "name": "NAD+", "type": "compound"},
    {"id": "compound:resveratrol", "name": "Resveratrol", "type": "compound"},
    {"id": "protein:pgc1a", "name": "PGC-1alpha", "type": "protein"},
]
STRONG = [
    ("gene:sirt1", "compound:nad"),
    ("compound:nad", "gene:sirt3"),
    ("gene:sirt6", "compound:nad"),
    ("compound:resveratrol", "gene:sirt1"),
    ("compound:resveratrol", "protein:pgc1a"),
    ("protein:sirt1", "protein:pgc1a"),
    ("protein:sirt1", "gene:sirt1"),
]
# each weak edge closes a triangle of strong ones: no bridge, so prune takes it when nothing protects it
WEAK = {
    "RELATED:gene:sirt3->gene:sirt1": ("gene:sirt3", "gene:sirt1"),
    "RELATED:gene:sirt6->gene:sirt3": ("gene:sirt6", "gene:sirt3"),
    "RELATED:protein:pgc1a->gene:sirt1": ("protein:pgc1a", "gene:sirt1"),
}
SIRT3_SIRT1, SIRT6_SIRT3, PGC1A_SIRT1 = WEAK


def _edge(source: str, target: str, strength: float, edge_id: str | None = None) -> dict:
    return {
        "edgeId": edge_id or f"RELATED:{source}->{target}",
        "sourceId": source,
        "targetId": target,
        "type": "RELATED",
        "strength": strength,
        "createdAt": OLD,
        "createdBy": "pipeline",
        "explanation": f"{source} relates to {target}",
    }


@pytest.fixture
def data(cli_env) -> Path:
    """The sirtuin graph imported into a data dir (no decay: strengths are as written), each weak
    edge with two support rows."""
    data = cli_env / "data"
    data.mkdir()
    (data / "kg.yaml").write_text(yaml.safe_dump({"consolidation": {"decay_half_life_days": 0}}))
    edges = [_edge(s, t, 0.9) for s, t in STRONG] + [_edge(s, t, 0.01, e) for e, (s, t) in WEAK.items()]
    (cli_env / "nodes.json").write_text(json.dumps(NODES))
    (cli_env / "edges.json").write_text(json.dumps(edges))
    ok(data, "import-graph", str(cli_env / "nodes.json"), str(cli_env / "edges.json"))
    conn = warehouse.connect(data / "warehouse.duckdb")
    try:
        for edge_id in WEAK:
            for doc in ("bio/sirtuins.md", "bio/fasting.md"):
                conn.execute(
                    "INSERT INTO kg_edge_support VALUES (?, ?, ?, 'bio', 'stated in the text', ['sirtuin'])",
                    [edge_id, doc, f"{doc}#c0000"],
                )
        conn.execute(
            "UPDATE kg_edges SET support_count = 2 WHERE edge_id IN (SELECT unnest(?::VARCHAR[]))", [list(WEAK)]
        )
    finally:
        conn.close()
    return data


def cli(data: Path, *args: str):
    return CliRunner().invoke(main, ["--data-dir", str(data), *args])


def ok(data: Path, *args: str) -> str:
    result = cli(data, *args)
    assert result.exit_code == 0, (args, result.output, result.exception)
    return result.output


def fails(data: Path, *args: str) -> str:
    """The one-line error of a refused command (exit 1, no traceback)."""
    result = cli(data, *args)
    assert result.exit_code == 1, (args, result.output)
    assert "Traceback" not in result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.output
    return lines[0]


def prune(data: Path) -> dict:
    return json.loads(ok(data, "consolidate", "prune", "--json"))


def rows(data: Path, sql: str, params: list | None = None) -> list[tuple]:
    conn = warehouse.connect(data / "warehouse.duckdb")
    try:
        return conn.execute(sql, params or []).fetchall()
    finally:
        conn.close()


def snapshot_edges(data: Path) -> dict[str, dict]:
    snapshot = load_graph_snapshot(load_settings(data))
    return {e["edge_id"]: e for e in snapshot.edges.to_pylist()}


def test_a_protected_edge_survives_the_prune_and_unprotect_lets_it_go(data):
    assert "is protected" in ok(data, "edge", "protect", SIRT3_SIRT1)
    assert snapshot_edges(data)[SIRT3_SIRT1]["protected"]  # the readers' snapshot shows the mark
    assert "already was" in ok(data, "edge", "protect", SIRT3_SIRT1)
    first = prune(data)
    assert set(first["pruned_edge_ids"]) == {SIRT6_SIRT3, PGC1A_SIRT1}  # the protected one stays
    assert rows(data, "SELECT protected FROM kg_edges WHERE edge_id = ?", [SIRT3_SIRT1]) == [(True,)]
    assert "is not protected" in ok(data, "edge", "unprotect", SIRT3_SIRT1)
    assert not snapshot_edges(data)[SIRT3_SIRT1]["protected"]
    assert prune(data)["pruned_edge_ids"] == [SIRT3_SIRT1]


def test_a_user_edge_is_added_by_name_or_id_and_never_pruned(data):
    out = ok(
        data, "edge", "add", "SIRT6", "PGC-1alpha", "--type", "RELATED", "--strength", "0.01",
        "--explanation", "SIRT6 and PGC-1alpha act together in muscle",
    )  # fmt: skip
    edge_id = "RELATED:gene:sirt6->protein:pgc1a"
    assert f"added edge {edge_id}" in out
    (row,) = rows(
        data, "SELECT created_by, strength, explanation, support_count FROM kg_edges WHERE edge_id = ?", [edge_id]
    )
    assert row == ("user", 0.01, "SIRT6 and PGC-1alpha act together in muscle", 0)
    assert snapshot_edges(data)[edge_id]["created_by"] == "user"
    # as weak and as old as the pruned ones: the user's edge still stays
    rows(data, "UPDATE kg_edges SET created_at = ? WHERE edge_id = ?", [OLD, edge_id])
    report = prune(data)
    assert edge_id not in report["pruned_edge_ids"] and set(report["pruned_edge_ids"]) == set(WEAK)
    assert rows(data, "SELECT count(*) FROM kg_edges WHERE edge_id = ?", [edge_id]) == [(1,)]
    # ids work where a name is ambiguous
    assert "added edge RELATED:protein:sirt1->gene:sirt6" in ok(
        data, "edge", "add", "protein:sirt1", "sirt6", "--type", "RELATED"
    )


def test_names_that_do_not_resolve_to_one_node_are_refused_and_nothing_is_written(data):
    before = rows(data, "SELECT count(*) FROM kg_edges")
    ambiguous = fails(data, "edge", "add", "SIRT1", "SIRT6", "--type", "RELATED")
    assert "'SIRT1' names 2 nodes: gene:sirt1 (gene), protein:sirt1 (protein); give the node id instead" in ambiguous
    unknown = fails(data, "edge", "add", "SIRT2", "SIRT6", "--type", "RELATED")
    assert "no node has the id or name 'SIRT2'" in unknown and "did you mean" in unknown and "'SIRT3'" in unknown
    assert "no self-loops" in fails(data, "edge", "add", "gene:sirt6", "SIRT6", "--type", "RELATED")
    assert "edge type 'not a type'" in fails(data, "edge", "add", "SIRT3", "SIRT6", "--type", "not a type")
    exists = fails(data, "edge", "add", "gene:sirt3", "gene:sirt1", "--type", "RELATED")
    assert f"edge '{SIRT3_SIRT1}' exists already (created_by pipeline)" in exists
    assert rows(data, "SELECT count(*) FROM kg_edges") == before


def test_restore_puts_the_pruned_edges_back_with_their_support_and_protected(data):
    support_before = rows(data, "SELECT * FROM kg_edge_support ORDER BY ALL")
    report = prune(data)
    run_id = report["run_id"]
    assert set(report["pruned_edge_ids"]) == set(WEAK)
    assert rows(data, "SELECT count(*) FROM kg_edge_support")[0][0] == len(support_before) - 6
    assert not set(WEAK) & set(snapshot_edges(data))

    out = ok(data, "consolidate", "restore", run_id, "--edge", SIRT6_SIRT3)
    assert out.startswith(f"restored 1 edge(s) of prune run {run_id} (protected")
    assert SIRT6_SIRT3 in snapshot_edges(data) and snapshot_edges(data)[SIRT6_SIRT3]["protected"]
    assert rows(data, "SELECT count(*) FROM kg_edges WHERE edge_id IN (?, ?)", [SIRT3_SIRT1, PGC1A_SIRT1]) == [(0,)]

    out = ok(data, "consolidate", "restore", run_id, "--no-protect")
    assert f"restored 2 edge(s) of prune run {run_id} (not protected" in out and "1 already restored" in out
    assert rows(data, "SELECT * FROM kg_edge_support ORDER BY ALL") == support_before  # every support row is back
    back = rows(
        data,
        "SELECT edge_id, strength, support_count, protected FROM kg_edges WHERE edge_id IN (?, ?, ?) ORDER BY 1",
        list(WEAK),
    )
    assert back == sorted([(SIRT3_SIRT1, 0.01, 2, False), (SIRT6_SIRT3, 0.01, 2, True), (PGC1A_SIRT1, 0.01, 2, False)])
    assert set(WEAK) <= set(snapshot_edges(data))
    # the protected restore holds; the unprotected ones are as they were, and go again
    assert set(prune(data)["pruned_edge_ids"]) == {SIRT3_SIRT1, PGC1A_SIRT1}


def test_unknown_ids_are_one_line_errors(data):
    assert "unknown edge 'RELATED:gene:sirt2->gene:sirt1'" in fails(
        data, "edge", "protect", "RELATED:gene:sirt2->gene:sirt1"
    )
    assert "unknown edge 'nope'" in fails(data, "edge", "unprotect", "nope")
    assert "unknown prune run 'nope'" in fails(data, "consolidate", "restore", "nope")
    run_id = prune(data)["run_id"]
    hint = fails(data, "edge", "protect", SIRT6_SIRT3)  # pruned: the message says how to get it back
    assert f"was pruned by run {run_id}: `kg-pipelines consolidate restore {run_id} --edge {SIRT6_SIRT3}`" in hint
    assert f"run {run_id} did not prune 'RELATED:x->y'" in fails(
        data, "consolidate", "restore", run_id, "--edge", "RELATED:x->y"
    )
    merge = json.loads(ok(data, "consolidate", "merge-edges", "--json"))
    assert f"run {merge['run_id']} was a merge-edges run, not a prune" in fails(
        data, "consolidate", "restore", merge["run_id"]
    )
    assert "is empty" in fails(data.parent / "elsewhere", "edge", "protect", SIRT3_SIRT1)


def test_a_warehouse_held_by_a_run_is_a_one_line_error(data):
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                f"""
                import duckdb, sys, time
                conn = duckdb.connect({str(data / "warehouse.duckdb")!r})
                print("holding", flush=True)
                sys.stdin.read()
                """
            ),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "holding"
        assert "another run holds it" in fails(data, "edge", "protect", SIRT3_SIRT1)
    finally:
        holder.communicate("", timeout=60)
    assert rows(data, "SELECT protected FROM kg_edges WHERE edge_id = ?", [SIRT3_SIRT1]) == [(False,)]


def test_restore_leaves_out_edges_it_cannot_put_back_and_says_why(data):
    run_id = prune(data)["run_id"]
    conn = warehouse.connect(data / "warehouse.duckdb")
    try:
        # a later sync stated one again (same id); a node of another is gone
        conn.execute(
            """INSERT INTO kg_edges SELECT * EXCLUDE (run_id, pruned_at, decayed_strength, days_inactive, reason,
                   restored_at) FROM edge_prune_log WHERE edge_id = ?""",
            [SIRT3_SIRT1],
        )
        conn.execute("DELETE FROM kg_edges WHERE source_id = 'gene:sirt6' OR target_id = 'gene:sirt6'")
        conn.execute("DELETE FROM kg_nodes WHERE node_id = 'gene:sirt6'")
        report = restore_prune_run(conn, run_id)
        assert report.restored == [PGC1A_SIRT1]
        assert report.back_in_graph == [SIRT3_SIRT1] and report.endpoint_gone == [SIRT6_SIRT3]
        assert "1 in the graph again" in "; ".join(report.skipped())
        with pytest.raises(EdgeAdminError, match="did not prune 'nope'"):
            restore_prune_run(conn, run_id, ["nope"])
    finally:
        conn.close()
