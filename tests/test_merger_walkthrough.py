"""Acceptance test: the seed's example walkthrough, run by the merger core with the offline
provider and the walkthrough's scores. Phase 2 decisions, the execution order and the final main
graph must be exactly the seed's tables and tree."""

from __future__ import annotations

import json

import pytest

from kg_pipelines.merger.knowledge_merger import merge_bundle
from kg_pipelines.merger.plan_document import render_plan
from kg_pipelines.merger.plans import load_plan
from tests.merger_fixtures import (
    MAIN_GRAPH,
    NEW_PAGES,
    NOW,
    WALKTHROUGH_SCORES,
    TableScorer,
    connect,
    offline_llm,
    settings_for,
    wiki_edges,
    write_bundle,
)

MAIN_EDGES = {
    ("Principle_X", "implemented_by", "Implementation_A"),
    ("Principle_X", "implemented_by", "Implementation_B"),
    ("Principle_X", "uses_heuristic", "Heuristic_H2"),
    ("Implementation_A", "requires_env", "Environment_E1"),
    ("Implementation_B", "requires_env", "Environment_E4"),
    ("Principle_Y", "implemented_by", "Implementation_Z"),
    ("Implementation_Z", "requires_env", "Environment_E5"),
}


@pytest.fixture
def walkthrough(tmp_path):
    settings = settings_for(tmp_path / "data")
    conn = connect(settings)
    llm = offline_llm(settings)
    main = merge_bundle(
        conn, write_bundle(tmp_path / "in", "main_graph", MAIN_GRAPH), settings, llm, TableScorer(), NOW
    )
    before = {
        r[0]: r[1:]
        for r in conn.execute(
            "SELECT node_id, name, description, metadata, merge_history, updated_at FROM kg_nodes"
        ).fetchall()
    }
    scorer = TableScorer(WALKTHROUGH_SCORES)
    outcome = merge_bundle(conn, write_bundle(tmp_path / "in", "new_pages", NEW_PAGES), settings, llm, scorer, NOW)
    yield main, outcome, scorer, conn, before
    conn.close()


def test_the_main_graph_bundle_keeps_its_page_ids(walkthrough):
    main, _, _, conn, before = walkthrough
    assert main.plan.status == "COMPLETED"
    assert sorted(main.plan.created_pages) == sorted(p["page_id"] for p in MAIN_GRAPH["pages"])
    assert main.plan.edited_pages == []
    assert len(before) == 9


def test_phase_1_one_subgraph_rooted_at_principle_x(walkthrough):
    _, outcome, _, _, _ = walkthrough
    assert [sg.root_id for sg in outcome.plan.subgraphs] == ["Principle_X'"]


def test_phase_2_decisions_are_the_seeds_table(walkthrough):
    _, outcome, scorer, _, _ = walkthrough
    nodes = outcome.plan.subgraphs[0].nodes
    got = {n.page_id: (n.decision, n.merge_target_id, n.best_match_score) for n in nodes.values()}
    assert got == {
        "Principle_X'": ("MERGE", "Principle_X", 0.92),
        "Implementation_A'": ("MERGE", "Implementation_A", 0.95),
        "Implementation_C'": ("CREATE_NEW", None, 0.45),
        "Heuristic_H1'": ("CREATE_NEW", None, 0.35),
        "Environment_E1'": ("MERGE", "Environment_E1", 0.88),
        "Environment_E2'": ("CREATE_NEW", None, 0.25),
        "Environment_E3'": ("CREATE_NEW", None, None),
    }
    assert "inherited" in nodes["Environment_E3'"].reason and "Implementation_C'" in nodes["Environment_E3'"].reason
    assert "[Implementation_A, Implementation_B]" in nodes["Implementation_A'"].reason
    assert "[Environment_E1]" in nodes["Environment_E2'"].reason
    assert "[Heuristic_H2]" in nodes["Heuristic_H1'"].reason
    # the searches made: the root across Principles, the rest scoped to the matched parent's children;
    # none for E3' (inherited CREATE_NEW), and none outside the scope (Implementation_Z, Environment_E5)
    assert scorer.calls == [
        ("Principle_X'", "Principle", None),
        ("Implementation_A'", "Implementation", ("Implementation_A", "Implementation_B")),
        ("Implementation_C'", "Implementation", ("Implementation_A", "Implementation_B")),
        ("Heuristic_H1'", "Heuristic", ("Heuristic_H2",)),
        ("Environment_E1'", "Environment", ("Environment_E1",)),
        ("Environment_E2'", "Environment", ("Environment_E1",)),
    ]
    assert {n.page_id: n.parent_id for n in nodes.values()} == {
        "Principle_X'": None,
        "Implementation_A'": "Principle_X'",
        "Implementation_C'": "Principle_X'",
        "Heuristic_H1'": "Principle_X'",
        "Environment_E1'": "Implementation_A'",
        "Environment_E2'": "Implementation_A'",
        "Environment_E3'": "Implementation_C'",
    }
    assert nodes["Environment_E2'"].deferred_edges == [
        {"parent_id": "Implementation_A'", "edge_type": "requires_env", "edge_metadata": {}}
    ]


def test_phase_3_execution_order_is_bottom_up(walkthrough):
    _, outcome, _, _, _ = walkthrough
    assert outcome.plan.subgraphs[0].execution_order == [
        "Environment_E1'",
        "Environment_E2'",
        "Environment_E3'",
        "Heuristic_H1'",
        "Implementation_A'",
        "Implementation_C'",
        "Principle_X'",
    ]


def test_final_main_graph_is_the_seeds_tree(walkthrough):
    _, outcome, _, conn, before = walkthrough
    plan = outcome.plan
    assert plan.status == "COMPLETED" and outcome.audits == {plan.subgraphs[0].subgraph_id: []}
    assert wiki_edges(conn) == MAIN_EDGES | {
        ("Implementation_A", "requires_env", "Environment_E2'"),  # A' adds an edge to E2
        ("Principle_X", "implemented_by", "Implementation_C'"),  # X' adds edges to C and H1
        ("Principle_X", "uses_heuristic", "Heuristic_H1'"),
        ("Implementation_C'", "requires_env", "Environment_E3'"),  # C's edge points to E3
    }
    # X' -> A' became X -> A, which existed: deduplicated, not doubled
    assert conn.execute("SELECT count(*) FROM kg_edges WHERE created_by = 'merger'").fetchone()[0] == 11
    assert sorted(plan.created_pages) == sorted(
        ["Environment_E2'", "Environment_E3'", "Heuristic_H1'", "Implementation_C'"]
    )
    assert sorted(plan.edited_pages) == ["Environment_E1", "Implementation_A", "Principle_X"]
    after = {
        r[0]: r[1:]
        for r in conn.execute(
            "SELECT node_id, name, description, metadata, merge_history, updated_at FROM kg_nodes"
        ).fetchall()
    }
    for unchanged in (
        "Implementation_B",
        "Environment_E4",
        "Heuristic_H2",
        "Principle_Y",
        "Implementation_Z",
        "Environment_E5",
    ):
        assert after[unchanged] == before[unchanged]
    for merged in ("Principle_X", "Implementation_A", "Environment_E1"):
        assert after[merged] != before[merged]
        assert len(json.loads(after[merged][3])) == 1  # one merge_history entry
    assert len(after) == 13  # 9 + E2', E3', H1', C'
    content = json.loads(after["Principle_X"][2])["content"]
    # sections unioned, repeated sentences dropped
    assert content.count("QLoRA freezes a 4-bit quantized base model") == 1
    assert "Paged optimizers absorb memory spikes." in content and "## Limits" in content
    assert "## Why it works" in content
    created = json.loads(after["Implementation_C'"][2])
    assert created["content"] == NEW_PAGES["pages"][4]["content"]
    assert all(n.status == "COMPLETED" for n in plan.subgraphs[0].nodes.values())


def test_the_plan_is_persisted_and_plan_md_follows_the_seed(walkthrough):
    _, outcome, _, conn, _ = walkthrough
    stored = load_plan(conn, "new_pages")
    assert stored.to_json() == outcome.plan.to_json()
    rows = conn.execute(
        "SELECT DISTINCT bundle_status, subgraph_status, retry_count, edited_pages FROM merge_plans "
        "WHERE bundle_id = 'new_pages'"
    ).fetchall()
    assert rows == [("COMPLETED", "COMPLETED", 0, ["Environment_E1", "Implementation_A", "Principle_X"])]
    text = render_plan(stored)
    for expected in (
        "# Merge Plan",
        "Total SubGraphs: 1",
        "## SubGraph 1: sg1-Principle_X'",
        "- **Page**: Principle_X'",
        "- **Decision**: MERGE",
        "- **Target**: Principle_X",
        "- **Score**: 0.92",
        "1. Environment_E1' → MERGE with Environment_E1",
        "2. Environment_E2' → CREATE_NEW",
        "7. Principle_X' → MERGE with Principle_X",
        "| Principle_X' | MERGE | Principle_X | 0.92 | (root) | - | COMPLETED |",
        "| Implementation_A' | MERGE | Implementation_A | 0.95 | Principle_X' | implemented_by | COMPLETED |",
        "- **Status**: PASSED",
        "- **Retry Count**: 0",
    ):
        assert expected in text, expected
