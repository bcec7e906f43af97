"""Consolidation (seed 002) on small graphs written straight into the warehouse: every prune
condition, the seed's bridge rule and true bridges, decay, the merge formula on the seed's example,
topic clusters, communities, dry runs, restoring, and a crash in the middle."""

from __future__ import annotations

import math
import random
from datetime import UTC, datetime, timedelta
from fractions import Fraction

import pytest

from kg_pipelines.config import load_settings
from kg_pipelines.graph import graph_sql
from kg_pipelines.graph.consolidation import restore_pruned_edges, run_consolidation
from kg_pipelines.stores import warehouse

NOW = datetime(2026, 11, 1, tzinfo=UTC)
OLD = NOW - timedelta(days=30)


class Builder:
    def __init__(self, tmp_path, **consolidation):
        (tmp_path / "kg.yaml").write_text(
            "consolidation:\n" + "".join(f"  {k}: {v}\n" for k, v in consolidation.items()) if consolidation else ""
        )
        self.settings = load_settings(tmp_path)
        self.conn = warehouse.connect(self.settings.warehouse_path)

    def nodes(self, *ids: str, topic: str = "type:gene") -> None:
        warehouse.insert_rows(
            self.conn,
            "kg_nodes",
            [
                dict(
                    node_id=n,
                    node_kind="entity",
                    node_type="gene",
                    name=n.upper(),
                    topic_key=topic,
                    base_weight=1.0,
                    support_count=1,
                    created_by="pipeline",
                    created_at=OLD,
                    updated_at=OLD,
                )
                for n in ids
            ],
        )

    def edge(self, edge_id, source, target, strength, **fields) -> None:
        row = dict(
            edge_id=edge_id,
            source_id=source,
            target_id=target,
            edge_type="RELATED",
            strength=strength,
            activation_count=1,
            created_at=OLD,
            created_by="pipeline",
            protected=False,
            explanation=f"{source} relates to {target}",
            source_topic_key="type:gene",
            target_topic_key="type:gene",
            support_count=1,
        )
        row.update(fields)
        warehouse.insert_rows(self.conn, "kg_edges", [row])
        warehouse.insert_rows(
            self.conn,
            "kg_edge_support",
            [dict(edge_id=edge_id, document_id=f"doc-{edge_id}", chunk_id=f"chunk-{edge_id}", collection="c")],
        )

    def run(self, operation, **kwargs):
        return run_consolidation(self.conn, self.settings, operation, now=NOW, **kwargs)

    def edges(self) -> set[str]:
        return {r[0] for r in self.conn.execute("SELECT edge_id FROM kg_edges").fetchall()}

    def snapshot(self) -> dict:
        tables = ["kg_nodes", "kg_edges", "kg_edge_support", "edge_prune_log", "pruned_edge_support"]
        tables += ["consolidated_edges", "edge_aliases"]
        tables += ["topic_clusters", "communities"]
        return {t: sorted(map(str, self.conn.execute(f"SELECT * FROM {t}").fetchall())) for t in tables}


def square_with_diagonal(b: Builder, **diagonal) -> None:
    """a-b-c-d-a strong, a-c weak (both ends of degree 3: not a seed bridge, not a true bridge)."""
    b.nodes("a", "b", "c", "d")
    for edge_id, s, t in (("ab", "a", "b"), ("bc", "b", "c"), ("cd", "c", "d"), ("da", "d", "a")):
        b.edge(edge_id, s, t, 0.9)
    b.edge("ac", "a", "c", diagonal.pop("strength", 0.01), **diagonal)


def test_weak_inactive_edge_is_pruned_with_its_support_logged(tmp_path):
    b = Builder(tmp_path, decay_half_life_days=0)
    square_with_diagonal(b)
    result = b.run("prune")
    assert result.report.pruned_edge_ids == ["ac"]
    assert (result.report.total, result.report.pruned, result.report.kept) == (5, 1, 4)
    assert "ac" not in b.edges()
    log = b.conn.execute("SELECT reason, run_id, edge_id, source_id, target_id FROM edge_prune_log").fetchall()
    assert "weak" in log[0][0] and log[0][1:] == (result.report.run_id, "ac", "a", "c")
    moved = b.conn.execute("SELECT run_id, edge_id, document_id, chunk_id FROM pruned_edge_support").fetchall()
    assert moved == [(result.report.run_id, "ac", "doc-ac", "chunk-ac")]
    assert b.conn.execute("SELECT count(*) FROM kg_edge_support WHERE edge_id = 'ac'").fetchall()[0][0] == 0


@pytest.mark.parametrize(
    "diagonal",
    [
        {"strength": 0.05},  # not weak: the threshold is strict (< 0.05)
        {"last_activated_at": NOW - timedelta(days=6)},  # active recently
        {"last_reinforced_at": NOW - timedelta(days=2)},  # reinforced recently
        {"created_at": NOW - timedelta(days=3)},  # new
        {"created_by": "user"},  # made by a user
        {"protected": True},  # protected
    ],
    ids=["strength", "activated", "reinforced", "created", "user", "protected"],
)
def test_each_prune_condition_alone_keeps_the_edge(tmp_path, diagonal):
    b = Builder(tmp_path, decay_half_life_days=0)
    square_with_diagonal(b, **diagonal)
    assert b.run("prune").report.pruned == 0
    assert "ac" in b.edges()


def test_last_activity_prefers_activated_over_reinforced_and_created(tmp_path):
    b = Builder(tmp_path, decay_half_life_days=0)
    # activated long ago, reinforced recently: the seed reads lastActivatedAt first, so it is inactive
    square_with_diagonal(b, last_activated_at=NOW - timedelta(days=20), last_reinforced_at=NOW - timedelta(days=1))
    assert b.run("prune").report.pruned_edge_ids == ["ac"]


def test_seed_bridge_rule_keeps_the_only_edge_of_a_node(tmp_path):
    b = Builder(tmp_path, decay_half_life_days=0, true_bridges="false")
    square_with_diagonal(b, strength=0.9)
    b.nodes("leaf")
    b.edge("a-leaf", "a", "leaf", 0.01)
    report = b.run("prune").report
    assert report.pruned == 0 and report.kept_seed_bridge == 1
    assert "a-leaf" in b.edges()


def two_triangles(b: Builder, links: list[tuple[str, str, str, float]]) -> None:
    b.nodes("a", "b", "c", "x", "y", "z")
    for edge_id, s, t in (("ab", "a", "b"), ("bc", "b", "c"), ("ca", "c", "a")):
        b.edge(edge_id, s, t, 0.9)
    for edge_id, s, t in (("xy", "x", "y"), ("yz", "y", "z"), ("zx", "z", "x")):
        b.edge(edge_id, s, t, 0.9)
    for edge_id, s, t, strength in links:
        b.edge(edge_id, s, t, strength)


def test_true_bridge_is_kept_although_the_seed_rule_misses_it(tmp_path):
    b = Builder(tmp_path, decay_half_life_days=0)
    two_triangles(b, [("a-x", "a", "x", 0.01)])  # both ends have degree 3
    report = b.run("prune").report
    assert report.pruned == 0 and report.kept_true_bridge == 1
    assert "a-x" in b.edges()


def test_without_true_bridges_the_seed_rule_alone_prunes_the_bridge(tmp_path):
    b = Builder(tmp_path, decay_half_life_days=0, true_bridges="false")
    two_triangles(b, [("a-x", "a", "x", 0.01)])
    assert b.run("prune").report.pruned_edge_ids == ["a-x"]


def test_a_cycle_of_candidates_keeps_one_edge_so_no_component_splits(tmp_path):
    b = Builder(tmp_path, decay_half_life_days=0)
    # two weak links between the triangles: neither is a bridge, but pruning both splits the graph
    two_triangles(b, [("a-x", "a", "x", 0.02), ("b-y", "b", "y", 0.01)])
    report = b.run("prune").report
    assert report.pruned_edge_ids == ["b-y"]  # the stronger candidate stays
    assert report.kept_connectivity == 1 and report.kept_true_bridge == 0
    assert "a-x" in b.edges()


def test_decay_weakens_inactive_edges_before_the_threshold(tmp_path):
    b = Builder(tmp_path, decay_half_life_days=30)
    square_with_diagonal(b, strength=0.08)  # 30 inactive days: 0.08 -> 0.04
    dry = b.run("prune", dry_run=True).report
    assert dry.pruned_edge_ids == ["ac"]
    assert b.run("prune", dry_run=True, decay_half_life_days=0).report.pruned == 0  # the seed's rule exactly
    assert b.run("prune").report.pruned_edge_ids == ["ac"]
    decayed = b.conn.execute("SELECT decayed_strength FROM edge_prune_log").fetchall()[0][0]
    assert decayed == pytest.approx(0.04)


def test_merge_follows_the_seed_example(tmp_path):
    b = Builder(tmp_path)
    b.nodes("a", "b")
    b.edge("sim", "a", "b", 0.3, edge_type="similar", activation_count=2, explanation="auto-detected")
    b.edge("ext", "b", "a", 0.5, edge_type="extends", activation_count=3, explanation="user clicked")
    result = b.run("merge-edges")
    report = result.report
    assert (report.total_before, report.total_after, report.edges_merged) == (2, 1, 1)
    assert report.surviving_edges[0]["edge_id"] == "ext" and report.surviving_edges[0]["new_strength"] == 0.65
    edge = b.conn.execute(
        "SELECT edge_type, source_id, strength, activation_count, explanation FROM kg_edges"
    ).fetchall()
    assert edge == [("extends", "b", 0.65, 5, "[Merged 2 edges] user clicked")]
    support = b.conn.execute("SELECT edge_id, document_id FROM kg_edge_support ORDER BY document_id").fetchall()
    assert support == [("ext", "doc-ext"), ("ext", "doc-sim")]  # the survivor took over the absorbed support
    row = b.conn.execute(
        "SELECT absorbed_edge_ids, old_strength, new_strength, absorbed_edges FROM consolidated_edges"
    ).fetchall()[0]
    assert row[0] == ["sim"] and row[1:3] == (0.5, 0.65)
    assert [(e["edge_id"], e["edge_type"], e["strength"]) for e in row[3]] == [("sim", "similar", 0.3)]
    assert "auto-detected" in row[3][0]["explanation"]  # the original explanation is kept
    assert b.conn.execute("SELECT * FROM edge_aliases").fetchall()[0][:2] == ("sim", "ext")


def test_merge_caps_at_one_and_rounds_to_two_decimals(tmp_path):
    b = Builder(tmp_path)
    b.nodes("a", "b", "c", "d")
    for i, s in enumerate((0.8, 0.3, 0.2)):
        b.edge(f"ab{i}", "a", "b", s)
    b.edge("cd0", "c", "d", 0.333)
    b.edge("cd1", "d", "c", 0.111)
    survivors = {e["edge_id"]: e["new_strength"] for e in b.run("merge-edges").report.surviving_edges}
    assert survivors == {"ab0": 1.0, "cd0": 0.39}  # 0.333 + 0.0555 = 0.3885 -> 0.39


def js_math_round(x: float) -> int:
    """ECMAScript Math.round on a double: the integer nearest to the exact value of x, a tie going
    toward +infinity (computed on the exact rational, so no float step of its own can blur it)."""
    exact = Fraction(x)
    below = math.floor(exact)
    return below + 1 if exact - below >= Fraction(1, 2) else below


def seed_merged_strength(strengths: list[float]) -> float:
    """The seed's mergeDuplicateEdges strength, step by step in doubles as its JavaScript runs: sort
    strongest first, others summed from 0 in that order, min(1, max + 0.5 x others), then
    Math.round(s * 100) / 100."""
    ordered = sorted(strengths, reverse=True)
    others = 0.0
    for strength in ordered[1:]:
        others = others + strength
    merged = min(1.0, ordered[0] + 0.5 * others)
    return js_math_round(merged * 100) / 100


def test_the_js_reference_is_math_round():
    # what node prints for Math.round(x) (checked by hand): ties up, and the double as it is
    cases = {2.5: 3, -2.5: -2, 0.49999999999999994: 0, 90.49999999999999: 90, 90.5: 91, 100.49999999999999: 100}
    assert {x: js_math_round(x) for x in cases} == cases


# each group's strengths -> the seed's merged strength; the first three tell the seed's rounding from
# Python's round (0.905: round(90.5) = 90), from DuckDB's round on a DECIMAL (0.7 + 0.5 x 0.41 =
# 0.9049999999999999, exact decimal 0.905 would round up) and from floor(s * 100 + 0.5)
# (0.004999999999999999 x 100 = 0.49999999999999994, + 0.5 gives 1.0 in doubles)
ROUNDING_GROUPS = [
    ([0.905, 0.0], 0.91),
    ([0.7, 0.41], 0.9),
    ([0.004999999999999999, 0.0], 0.0),
    ([0.8, 0.3, 0.2], 1.0),
    ([0.333, 0.111], 0.39),
    ([0.5, 0.3], 0.65),
]


def test_merged_strength_is_rounded_exactly_as_the_seeds_math_round(tmp_path):
    rng = random.Random(21)
    groups = [g for g, _ in ROUNDING_GROUPS]
    groups += [[round(rng.random() * 0.6, rng.choice((2, 3, 4))) for _ in range(rng.randint(2, 5))] for _ in range(60)]
    groups += [[rng.random() * 0.3 for _ in range(rng.randint(2, 6))] for _ in range(60)]  # full doubles
    assert [seed_merged_strength(g) for g, _ in ROUNDING_GROUPS] == [want for _, want in ROUNDING_GROUPS]
    b = Builder(tmp_path)
    for g, strengths in enumerate(groups):
        b.nodes(f"p{g}", f"q{g}")
        for i, strength in enumerate(strengths):
            b.edge(f"g{g:03d}-{i}", f"p{g}", f"q{g}", strength)
    report = b.run("merge-edges").report
    survivors = {e["edge_id"].split("-")[0]: e["new_strength"] for e in report.surviving_edges}
    expected = {f"g{g:03d}": seed_merged_strength(strengths) for g, strengths in enumerate(groups)}
    differing = {k: (survivors.get(k), v) for k, v in expected.items() if survivors.get(k) != v}
    assert differing == {}
    stored = dict(
        b.conn.execute("SELECT split_part(edge_id, '-', 1), strength FROM kg_edges WHERE edge_id LIKE 'g%'").fetchall()
    )
    assert stored == expected


def test_topic_clusters_follow_the_seed(tmp_path):
    b = Builder(tmp_path)
    b.nodes("hooks", "state", "effects", "perf", topic="tag:react")
    b.nodes("vue1", "vue2", topic="tag:vue")
    kw = dict(source_topic_key="tag:react", target_topic_key="tag:react")
    b.edge("h-s", "hooks", "state", 0.5, edge_type="extends", **kw)
    b.edge("e-s", "effects", "state", 0.5, edge_type="similar", **kw)
    b.edge("p-h", "perf", "hooks", 0.5, edge_type="extends", **kw)
    b.edge("v", "vue1", "vue2", 0.5, source_topic_key="tag:vue", target_topic_key="tag:vue")
    before = b.edges()
    clusters = b.run("summarize").report.clusters
    assert [(c["topic_key"], c["node_count"], c["internal_edges"]) for c in clusters] == [("tag:react", 4, 3)]
    assert clusters[0]["connectivity"] == pytest.approx(0.5)
    assert b.edges() == before  # summarize changes no edge
    stored = b.conn.execute("SELECT topic_key, node_ids FROM topic_clusters").fetchall()
    assert stored == [("tag:react", ["effects", "hooks", "perf", "state"])]


def test_communities_are_found_and_summarised(tmp_path):
    b = Builder(tmp_path)
    two_triangles(b, [("a-x", "a", "x", 0.05)])
    report = b.run("summarize").report
    groups = sorted(sorted(c["node_ids"]) for c in report.communities)
    assert groups == [["a", "b", "c"], ["x", "y", "z"]]
    for c in report.communities:
        assert c["summary_method"] == "extractive" and c["node_count"] == 3 and c["edge_count"] == 3
        assert any(name in c["summary"] for name in ("A", "B", "C", "X", "Y", "Z"))
    assert b.conn.execute("SELECT count(*) FROM communities").fetchall()[0][0] == 2


def test_vectorised_louvain_matches_networkx_on_planted_communities():
    import networkx as nx
    import numpy as np

    from kg_pipelines.graph.communities import louvain, modularity

    planted = nx.planted_partition_graph(8, 30, 0.4, 0.01, seed=3)
    edges = np.array(list(planted.edges()))
    weight = np.ones(len(edges))
    ours = louvain(planted.number_of_nodes(), edges[:, 0], edges[:, 1], weight)
    reference = nx.community.modularity(planted, nx.community.louvain_communities(planted, seed=3))
    assert modularity(planted.number_of_nodes(), edges[:, 0], edges[:, 1], weight, ours) >= reference - 0.02
    groups = {frozenset(np.flatnonzero(ours == c).tolist()) for c in np.unique(ours)}
    planted_groups = {frozenset(range(i * 30, (i + 1) * 30)) for i in range(8)}
    assert len(groups & planted_groups) >= 7  # the planted groups come back (at most one split or joined)


def test_louvain_handles_components_that_close_after_one_level():
    import numpy as np

    from kg_pipelines.graph.communities import louvain

    # two separate pairs: after the first level both communities are closed (only self-loops remain)
    found = louvain(4, np.array([0, 2]), np.array([1, 3]), np.array([1.0, 1.0]))
    assert found[0] == found[1] and found[2] == found[3] and found[0] != found[2]
    assert louvain(3, np.array([], dtype=int), np.array([], dtype=int), np.array([])).tolist() == [0, 1, 2]


@pytest.mark.parametrize("operation", ["prune", "merge-edges", "summarize"])
def test_dry_runs_change_nothing(tmp_path, operation):
    b = Builder(tmp_path, decay_half_life_days=0)
    two_triangles(b, [("a-x", "a", "x", 0.01), ("b-y", "b", "y", 0.02)])
    b.edge("dup", "b", "a", 0.3, edge_type="similar")
    before = b.snapshot()
    result = b.run(operation, dry_run=True)
    assert b.snapshot() == before
    affected = {"prune": "pruned", "merge-edges": "edges_merged"}.get(operation)
    if affected:
        assert getattr(result.report, affected) == 1  # it did find something to report
    else:
        assert result.report.communities
    assert b.conn.execute("SELECT dry_run FROM consolidation_reports").fetchall() == [(True,)]


class CrashAfter:
    """A connection that raises after the first statement matching ``marker`` ran."""

    def __init__(self, conn, marker: str):
        self._conn, self._marker = conn, marker

    def execute(self, sql, *args):
        result = self._conn.execute(sql, *args)
        if self._marker in sql and "TEMP" not in sql:
            raise RuntimeError("simulated crash")
        return result

    def __getattr__(self, name):
        return getattr(self._conn, name)


@pytest.mark.parametrize(
    "operation,marker", [("prune", "DELETE FROM kg_edge_support"), ("merge-edges", "UPDATE kg_edges")]
)
def test_a_crash_mid_operation_leaves_no_partial_change(tmp_path, operation, marker):
    b = Builder(tmp_path, decay_half_life_days=0)
    two_triangles(b, [("a-x", "a", "x", 0.01), ("b-y", "b", "y", 0.02)])
    b.edge("dup", "b", "a", 0.3, edge_type="similar")
    before = b.snapshot()
    with pytest.raises(RuntimeError, match="simulated crash"):
        run_consolidation(CrashAfter(b.conn, marker), b.settings, operation, now=NOW)
    assert b.snapshot() == before
    assert b.conn.execute("SELECT count(*) FROM consolidation_reports").fetchall()[0][0] == 0
    # the next run completes, and does just what a run on the same graph that never crashed does
    (tmp_path / "fresh").mkdir()
    fresh = Builder(tmp_path / "fresh", decay_half_life_days=0)
    two_triangles(fresh, [("a-x", "a", "x", 0.01), ("b-y", "b", "y", 0.02)])
    fresh.edge("dup", "b", "a", 0.3, edge_type="similar")
    done, expected = b.run(operation).report, fresh.run(operation).report
    if operation == "prune":
        assert done.pruned_edge_ids == expected.pruned_edge_ids == ["a-x"]  # b-y stays: the last link across
        assert "a-x" not in b.edges() and "b-y" in b.edges()
    else:
        assert done.surviving_edges_json == expected.surviving_edges_json and done.edges_merged == 1
        assert "dup" not in b.edges()
        strength = b.conn.execute("SELECT strength FROM kg_edges WHERE edge_id = 'ab'").fetchall()[0][0]
        assert strength == seed_merged_strength([0.9, 0.3]) == 1.0
    ignore = {"run_id", "pruned_at", "merged_at"}  # a run's own id and time
    for table in ("kg_nodes", "kg_edges", "kg_edge_support", "edge_prune_log", "consolidated_edges", "edge_aliases"):
        columns = ", ".join(c for c, _ in warehouse.column_types(b.conn, table) if c not in ignore)
        rows = [sorted(map(str, x.conn.execute(f"SELECT {columns} FROM {table}").fetchall())) for x in (b, fresh)]
        assert rows[0] == rows[1], table


def test_a_pruned_edge_can_be_restored_with_its_support(tmp_path):
    b = Builder(tmp_path, decay_half_life_days=0)
    square_with_diagonal(b, keywords=["binds"])
    b.run("prune")
    assert restore_pruned_edges(b.conn, ["ac"]) == 1
    row = b.conn.execute("SELECT strength, created_at, keywords FROM kg_edges WHERE edge_id = 'ac'").fetchall()
    assert row == [(0.01, OLD, ["binds"])]
    assert b.conn.execute("SELECT document_id FROM kg_edge_support WHERE edge_id = 'ac'").fetchall() == [("doc-ac",)]
    assert b.conn.execute("SELECT restored_at IS NOT NULL FROM edge_prune_log").fetchall() == [(True,)]


def test_an_edge_pruned_twice_is_restored_with_the_support_it_had_when_last_pruned(tmp_path):
    b = Builder(tmp_path, decay_half_life_days=0)
    square_with_diagonal(b)
    b.run("prune")
    assert restore_pruned_edges(b.conn, ["ac"]) == 1
    # new support between the two prunes: the second log entry carries both rows
    warehouse.insert_rows(
        b.conn, "kg_edge_support", [dict(edge_id="ac", document_id="doc-new", chunk_id="chunk-new", collection="c")]
    )
    second = run_consolidation(b.conn, b.settings, "prune", now=NOW + timedelta(days=1)).report
    assert second.pruned_edge_ids == ["ac"]
    assert b.conn.execute("SELECT count(*) FROM pruned_edge_support").fetchall()[0][0] == 3  # 1 + 2, by run
    assert restore_pruned_edges(b.conn, ["ac"]) == 1
    support = b.conn.execute("SELECT document_id FROM kg_edge_support WHERE edge_id = 'ac' ORDER BY 1").fetchall()
    assert support == [("doc-ac",), ("doc-new",)]


def test_rows_kept_as_json_by_an_older_warehouse_are_migrated_and_still_restore(tmp_path):
    b = Builder(tmp_path, decay_half_life_days=0)
    square_with_diagonal(b, keywords=["binds"])
    b.run("prune")
    b.edge("ba", "b", "a", 0.3, edge_type="similar")
    b.run("merge-edges")
    edge_columns = ", ".join(name for name, _ in warehouse.column_types(b.conn, "kg_edges"))
    # the layout of warehouses made before the typed log: the row and its support as JSON text
    b.conn.execute(
        f"""CREATE TABLE old_log AS SELECT run_id, pruned_at, edge_id, source_id, target_id, edge_type, strength,
               decayed_strength, days_inactive, reason, to_json(struct_pack({edge_columns})) AS edge_row,
               (SELECT to_json(list(s)) FROM (SELECT * EXCLUDE (run_id) FROM pruned_edge_support) s
                WHERE s.edge_id = l.edge_id)
                   AS support_rows, restored_at FROM edge_prune_log l"""
    )
    b.conn.execute("DELETE FROM pruned_edge_support")
    b.conn.execute("DROP TABLE edge_prune_log")
    b.conn.execute("ALTER TABLE old_log RENAME TO edge_prune_log")
    b.conn.execute(
        "CREATE TABLE old_merges AS "
        "SELECT * REPLACE (to_json(absorbed_edges) AS absorbed_edges) FROM consolidated_edges"
    )
    b.conn.execute("DROP TABLE consolidated_edges")
    b.conn.execute("ALTER TABLE old_merges RENAME TO consolidated_edges")
    b.conn.close()
    warehouse._ready.clear()
    b.conn = warehouse.connect(b.settings.warehouse_path)
    columns = {name for name, _ in warehouse.column_types(b.conn, "edge_prune_log")}
    assert not {"edge_row", "support_rows"} & columns and {"created_at", "keywords"} <= columns
    absorbed = b.conn.execute("SELECT absorbed_edges[1] FROM consolidated_edges").fetchall()[0][0]
    assert (absorbed["edge_id"], absorbed["edge_type"], absorbed["created_at"]) == ("ba", "similar", OLD)
    assert restore_pruned_edges(b.conn, ["ac"]) == 1
    row = b.conn.execute("SELECT strength, created_at, keywords FROM kg_edges WHERE edge_id = 'ac'").fetchall()
    assert row == [(0.01, OLD, ["binds"])]
    assert b.conn.execute("SELECT document_id FROM kg_edge_support WHERE edge_id = 'ac'").fetchall() == [("doc-ac",)]


def test_support_rows_kept_in_the_log_by_an_older_warehouse_move_to_their_table_and_still_restore(tmp_path):
    b = Builder(tmp_path, decay_half_life_days=0)
    square_with_diagonal(b, keywords=["binds"])
    run_id = b.run("prune").report.run_id
    # the layout before pruned_edge_support: the support rows as a list of structs in the log row
    b.conn.execute(
        """CREATE TABLE old_log AS SELECT l.*,
               (SELECT list(s) FROM (SELECT * EXCLUDE (run_id) FROM pruned_edge_support) s
                WHERE s.edge_id = l.edge_id) AS support_rows
           FROM edge_prune_log l"""
    )
    b.conn.execute("DROP TABLE edge_prune_log")
    b.conn.execute("ALTER TABLE old_log RENAME TO edge_prune_log")
    b.conn.execute("DELETE FROM pruned_edge_support")
    b.conn.close()
    warehouse._ready.clear()
    b.conn = warehouse.connect(b.settings.warehouse_path)
    assert "support_rows" not in {name for name, _ in warehouse.column_types(b.conn, "edge_prune_log")}
    moved = b.conn.execute("SELECT run_id, edge_id, document_id, chunk_id FROM pruned_edge_support").fetchall()
    assert moved == [(run_id, "ac", "doc-ac", "chunk-ac")]
    assert restore_pruned_edges(b.conn, ["ac"]) == 1
    assert b.conn.execute("SELECT document_id FROM kg_edge_support WHERE edge_id = 'ac'").fetchall() == [("doc-ac",)]


def test_restoring_skips_an_edge_whose_endpoint_is_gone(tmp_path):
    b = Builder(tmp_path, decay_half_life_days=0)
    square_with_diagonal(b)
    b.run("prune")
    b.conn.execute("DELETE FROM kg_nodes WHERE node_id = 'c'")
    assert restore_pruned_edges(b.conn, ["ac"]) == 0
    assert "ac" not in b.edges()
    assert b.conn.execute("SELECT restored_at FROM edge_prune_log").fetchall() == [(None,)]


def test_reports_carry_the_seed_health_targets(tmp_path):
    b = Builder(tmp_path, decay_half_life_days=0)
    square_with_diagonal(b)
    b.run("prune")
    target, within, pct = b.conn.execute(
        "SELECT health_target, within_target, affected_pct FROM consolidation_reports"
    ).fetchall()[0]
    assert "5-15 %" in target and pct == 20.0 and within is False


def test_sql_models_declare_what_they_read():
    assert graph_sql.model_inputs("prune_candidates") == ["graph_adjacency", "kg_edges"]
    assert graph_sql.model_inputs("topic_clusters") == ["kg_edges"]
    assert graph_sql.is_table_model("topic_clusters") and not graph_sql.is_table_model("graph_adjacency")
    assert graph_sql.view_order().index("graph_adjacency") < graph_sql.view_order().index("prune_candidates")


def test_views_are_recreated_only_when_their_model_file_changes(tmp_path, monkeypatch):
    import shutil

    models = tmp_path / "models"
    shutil.copytree(graph_sql.SQL_DIR, models)
    monkeypatch.setattr(graph_sql, "SQL_DIR", models)
    conn = warehouse.connect(tmp_path / "kg.duckdb")
    graph_sql.create_views(conn)
    comments = "SELECT comment FROM duckdb_views() WHERE view_name = 'graph_adjacency'"
    assert conn.execute(comments).fetchall() == [(graph_sql.model_hash("graph_adjacency"),)]

    def must_not_parse():
        raise AssertionError("unchanged views were parsed and recreated")

    monkeypatch.setattr(graph_sql, "view_order", must_not_parse)
    graph_sql.create_views(conn)  # nothing changed: one catalog query
    monkeypatch.undo()
    monkeypatch.setattr(graph_sql, "SQL_DIR", models)
    path = models / "graph_adjacency.sql"
    path.write_text(path.read_text().replace("e.strength", "e.strength, e.created_by"))
    graph_sql.create_views(conn)
    assert conn.execute(comments).fetchall() == [(graph_sql.model_hash("graph_adjacency"),)]
    assert "created_by" in {r[0] for r in conn.execute("DESCRIBE graph_adjacency").fetchall()}


def test_the_consolidation_core_never_imports_dagster():
    import subprocess
    import sys

    core = ["consolidation", "communities", "graph_sql", "graph_stats", "graph_io", "graph_pictures"]
    code = (
        "import importlib, sys\n"
        + "".join(f"importlib.import_module('kg_pipelines.graph.{m}')\n" for m in core)
        + "print(sorted(m for m in sys.modules if m == 'dagster' or m.startswith('dagster.')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_structural_edge_meeting_every_prune_condition_is_kept(tmp_path):
    # a chunk's MENTIONS edge, weak after 100 days of decay, neither bridge nor user-made nor protected
    b = Builder(tmp_path, decay_half_life_days=30)
    square_with_diagonal(b, strength=0.5, edge_type="MENTIONS", created_at=NOW - timedelta(days=100))
    report = b.run("prune").report
    assert report.pruned == 0 and report.candidates == 0 and report.kept_structural == 1
    assert "ac" in b.edges()
    # the same edge as a knowledge edge goes: the type alone kept it
    b.conn.execute("UPDATE kg_edges SET edge_type = 'RELATED' WHERE edge_id = 'ac'")
    assert b.run("prune").report.pruned_edge_ids == ["ac"]


def test_structural_edges_are_never_merged(tmp_path):
    b = Builder(tmp_path)
    b.nodes("a", "b")
    b.edge("m1", "a", "b", 0.3, edge_type="MENTIONS")
    b.edge("m2", "b", "a", 0.5, edge_type="NAMES")
    b.edge("rel", "a", "b", 0.4)
    report = b.run("merge-edges").report
    assert report.edges_merged == 0 and b.edges() == {"m1", "m2", "rel"}


def test_seed_json_import_with_its_own_edge_types_still_prunes(tmp_path):
    import json

    from kg_pipelines.graph.graph_io import import_graph

    b = Builder(tmp_path, decay_half_life_days=0)
    old_ms = int(OLD.timestamp() * 1000)
    nodes = [{"id": n, "name": n.upper(), "type": "session"} for n in "abcd"]
    edges = [
        {"edgeId": i, "sourceId": s, "targetId": t, "type": kind, "strength": w, "createdAt": old_ms}
        for i, s, t, kind, w in (
            ("ab", "a", "b", "extends", 0.9),
            ("bc", "b", "c", "extends", 0.9),
            ("cd", "c", "d", "similar", 0.9),
            ("da", "d", "a", "similar", 0.9),
            ("ac", "a", "c", "similar", 0.01),
        )
    ]
    (tmp_path / "n.json").write_text(json.dumps(nodes))
    (tmp_path / "e.json").write_text(json.dumps(edges))
    import_graph(b.conn, tmp_path / "n.json", tmp_path / "e.json", NOW)
    assert b.run("prune", dry_run=True).report.pruned_edge_ids == ["ac"]
    # a user who names their own structural types keeps them out of consolidation
    (tmp_path / "custom").mkdir()
    custom = Builder(tmp_path / "custom", decay_half_life_days=0, structural_edge_types="[similar]")
    import_graph(custom.conn, tmp_path / "n.json", tmp_path / "e.json", NOW)
    report = custom.run("prune").report
    assert report.pruned == 0 and report.kept_structural == 1


def test_louvain_on_the_coarse_graph_of_a_large_graph_finds_the_planted_communities(monkeypatch):
    import networkx as nx
    import numpy as np

    from kg_pipelines.graph import communities

    planted = nx.planted_partition_graph(8, 30, 0.4, 0.01, seed=3)
    edges = np.array(list(planted.edges()))
    weight = np.random.default_rng(1).uniform(0.1, 1.0, len(edges))
    groups, group_of = communities.strongest_neighbour_groups(240, edges[:, 0], edges[:, 1], weight)
    assert 1 < groups < 240 and len(group_of) == 240
    monkeypatch.setattr(communities, "COARSEN_ABOVE", 100)  # 240 nodes count as large here
    ours = communities.louvain(240, edges[:, 0], edges[:, 1], weight)
    reference = nx.community.modularity(planted, nx.community.louvain_communities(planted, weight=None, seed=3))
    found = {frozenset(np.flatnonzero(ours == c).tolist()) for c in np.unique(ours)}
    planted_groups = {frozenset(range(i * 30, (i + 1) * 30)) for i in range(8)}
    assert len(found & planted_groups) >= 5  # most planted groups come back whole
    unweighted = communities.modularity(240, edges[:, 0], edges[:, 1], np.ones(len(edges)), ours)
    assert unweighted >= reference - 0.05


def test_louvain_communities_are_connected_and_the_same_every_run(monkeypatch):
    """Louvain can leave a community in pieces (here: on the coarse path); each piece becomes its own
    community, modularity does not drop, and a run gives the same partition as the last (fixed seed)."""
    import networkx as nx
    import numpy as np
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    from kg_pipelines.graph import communities

    monkeypatch.setattr(communities, "COARSEN_ABOVE", 100)
    for seed in (3, 4):  # two graphs whose partition had a community in two pieces before the split
        planted = nx.planted_partition_graph(8, 30, 0.4, 0.01, seed=seed)
        edges = np.array(list(planted.edges()))
        source, target = edges[:, 0], edges[:, 1]
        weight = np.random.default_rng(seed).uniform(0.1, 1.0, len(edges))
        runs = [communities.louvain(240, source, target, weight) for _ in range(3)]
        assert runs[0].tolist() == runs[1].tolist() == runs[2].tolist()
        found = runs[0]
        inner = found[source] == found[target]
        links = coo_matrix((np.ones(int(inner.sum())), (source[inner], target[inner])), shape=(240, 240))
        _, piece = connected_components(links, directed=False)
        for community in np.unique(found):
            assert len(np.unique(piece[found == community])) == 1, f"community {community} is in pieces"
        adjacency = communities._symmetric(240, source, target, weight)
        unsplit = communities._louvain(adjacency, 1.0, 42, 12, 10, 0.01, True)
        assert len(np.unique(unsplit)) < len(np.unique(found))  # the split did split something
        quality = [communities.modularity(240, source, target, weight, m) for m in (unsplit, found)]
        assert quality[1] >= quality[0]


def test_louvain_sweeps_in_row_blocks_decide_as_one_block(monkeypatch):
    """A sweep computes its moves block by block (small arrays), on worker threads or not; every
    block reads the sweep's start state, so the partition is the one computed in a single block,
    with or without coarsening."""
    import networkx as nx
    import numpy as np

    from kg_pipelines.graph import communities

    planted = nx.planted_partition_graph(6, 25, 0.3, 0.02, seed=5)
    edges = np.array(list(planted.edges()))
    n = planted.number_of_nodes() + 3  # three nodes without edges: leading and trailing empty rows
    source, target = edges[:, 0] + 1, edges[:, 1] + 1
    weight = np.random.default_rng(2).uniform(0.1, 1.0, len(edges))
    monkeypatch.setattr(communities, "COARSEN_ABOVE", 60)
    monkeypatch.setattr(communities, "WORKERS", 1)
    whole = [communities.louvain(n, source, target, weight, coarsen=c) for c in (False, True)]
    monkeypatch.setattr(communities, "BLOCK_ENTRIES", 7)  # dozens of blocks per sweep
    blocked = [communities.louvain(n, source, target, weight, coarsen=c) for c in (False, True)]
    monkeypatch.setattr(communities, "WORKERS", 3)  # the blocks shared out among three threads
    threaded = [communities.louvain(n, source, target, weight, coarsen=c) for c in (False, True)]
    monkeypatch.setattr(communities, "BLOCK_ENTRIES", 1 << 20)
    monkeypatch.setattr(communities, "SHARE_ABOVE", 0)  # one block a thread
    shared = [communities.louvain(n, source, target, weight, coarsen=c) for c in (False, True)]
    assert len(communities._row_blocks(communities._symmetric(n, source, target, weight).indptr)) == 4
    for one, many, on_threads, one_each in zip(whole, blocked, threaded, shared, strict=True):
        assert one.tolist() == many.tolist() == on_threads.tolist() == one_each.tolist()
        assert len(set(one[[0, n - 2, n - 1]].tolist())) == 3 and len(np.unique(one)) < n // 4


def _louvain_in_child(queue, n, source, target, weight):
    from kg_pipelines.graph import communities

    queue.put(communities.louvain(n, source, target, weight).tolist())


def test_louvain_threads_work_in_a_forked_child(monkeypatch):
    """Louvain on threads in a process, then again in a child forked from it (as a worker pool may
    fork): the child starts its own threads and gives the same partition instead of waiting forever."""
    import multiprocessing

    import networkx as nx
    import numpy as np

    from kg_pipelines.graph import communities

    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("no fork on this platform")
    planted = nx.planted_partition_graph(4, 20, 0.4, 0.02, seed=3)
    edges = np.array(list(planted.edges()))
    n, source, target = planted.number_of_nodes(), edges[:, 0], edges[:, 1]
    weight = np.ones(len(edges))
    monkeypatch.setattr(communities, "WORKERS", 2)
    monkeypatch.setattr(communities, "SHARE_ABOVE", 0)
    here = communities.louvain(n, source, target, weight).tolist()
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_louvain_in_child, args=(queue, n, source, target, weight))
    child.start()
    child.join(60)
    if child.is_alive():
        child.kill()
    assert child.exitcode == 0, "the forked child did not finish"
    assert queue.get(timeout=5) == here


def test_most_connected_members_by_degree_then_index():
    import numpy as np

    from kg_pipelines.graph.consolidation import _most_connected

    degree = np.array([5.0, 1.0, 7.0, 5.0, 5.0, 0.5, 7.0, 2.0])
    group = np.array([0, 1, 2, 3, 4, 5, 6, 7])
    assert _most_connected(group, degree, 3).tolist() == [2, 6, 0]  # 7, 7, then the first of the 5s
    assert _most_connected(group, degree, 4).tolist() == [2, 6, 0, 3]
    assert _most_connected(np.array([5, 7]), degree, 5).tolist() == [7, 5]  # fewer members than k
