"""The merger core beyond the walkthrough: every bad input of the issue, the Heuristic tie-breaker,
a re-submitted bundle, resuming after a crash, the audit's retries, the Markdown form, and the
LLM path (through tests/fake_openai.py)."""

from __future__ import annotations

import json

import pytest

from kg_pipelines.llm.client import LLMClient
from kg_pipelines.llm.openai_provider import OpenAIProvider
from kg_pipelines.merger import execution
from kg_pipelines.merger.knowledge_merger import merge_bundle
from kg_pipelines.merger.pages import BundleError, load_bundle
from kg_pipelines.merger.plans import load_plan
from tests.fake_openai import fake_openai, json_content  # noqa: F401  (the fixture)
from tests.merger_fixtures import (
    MAIN_GRAPH,
    NEW_PAGES,
    NOW,
    WALKTHROUGH_SCORES,
    TableScorer,
    connect,
    offline_llm,
    page,
    settings_for,
    snapshot,
    wiki_edges,
    write_bundle,
)


@pytest.fixture
def env(tmp_path):
    settings = settings_for(tmp_path / "data")
    conn = connect(settings)
    yield tmp_path, settings, conn, offline_llm(settings)
    conn.close()


def _main_graph(env):
    tmp, settings, conn, llm = env
    merge_bundle(conn, write_bundle(tmp / "in", "main_graph", MAIN_GRAPH), settings, llm, TableScorer(), NOW)


def _rejected(env, bundle: dict, name: str = "bad") -> BundleError:
    tmp, settings, conn, llm = env
    before = snapshot(conn)
    with pytest.raises(BundleError) as caught:
        merge_bundle(conn, write_bundle(tmp / "in", name, bundle), settings, llm, TableScorer(), NOW)
    assert snapshot(conn) == before  # nothing written
    assert conn.execute("SELECT count(*) FROM proposed_pages WHERE bundle_id = ?", [name]).fetchone()[0] == 0
    return caught.value


# -- bad input --------------------------------------------------------------------------------


def test_a_link_to_a_page_in_neither_the_bundle_nor_the_graph(env):
    _main_graph(env)
    error = _rejected(
        env,
        {
            "pages": [
                page("P", "Principle", "P", "p", "p", [("implemented_by", "I")]),
                page("I", "Implementation", "I", "i", "i", [("requires_env", "Environment_Nowhere")]),
            ]
        },
    )
    assert (
        "page 'I': links to 'Environment_Nowhere' (requires_env), which is in neither the bundle nor the graph"
        in str(error)
    )


def test_a_link_to_a_page_of_the_graph_is_accepted_and_becomes_an_edge(env):
    _main_graph(env)
    tmp, settings, conn, llm = env
    bundle = {
        "pages": [
            page("P2", "Principle", "LoRA", "Low-rank adapters.", "## Idea\n\nAdapters.", [("implemented_by", "I2")]),
            page("I2", "Implementation", "peft", "peft.", "## Use\n\nCall it.", [("requires_env", "Environment_E4")]),
        ]
    }
    outcome = merge_bundle(conn, write_bundle(tmp / "in", "b", bundle), settings, llm, TableScorer(), NOW)
    assert outcome.plan.status == "COMPLETED"
    assert ("I2", "requires_env", "Environment_E4") in wiki_edges(conn)


def test_a_cycle_of_links(env):
    error = _rejected(
        env,
        {
            "pages": [
                page("P", "Principle", "P", "p", "p", [("implemented_by", "A")]),
                page("A", "Implementation", "A", "a", "a", [("requires_env", "E")]),
                page("E", "Environment", "E", "e", "e", [("requires_env", "A")]),
            ]
        },
    )
    assert any("cycle of links A -> E -> A" in p or "cycle of links E -> A -> E" in p for p in error.problems)
    assert any("page 'E': a Environment cannot have requires_env links" in p for p in error.problems)


def test_an_unknown_page_type(env):
    error = _rejected(env, {"pages": [page("T", "Tutorial", "T", "t", "t")]})
    assert "page 'T': unknown page type 'Tutorial'" in str(error)


def test_a_principle_without_an_implementation(env):
    error = _rejected(
        env,
        {
            "pages": [
                page("P", "Principle", "P", "p", "p", [("uses_heuristic", "H")]),
                page("H", "Heuristic", "H", "h", "h"),
            ]
        },
    )
    assert "page 'P': a Principle needs at least one implemented_by link to an Implementation" in str(error)


def test_a_duplicate_page_id(env):
    error = _rejected(
        env, {"pages": [page("E", "Environment", "E", "e", "e"), page("E", "Environment", "E2", "e", "e")]}
    )
    assert "page 'E': duplicate page_id (2 pages use it)" in str(error)


def test_an_empty_bundle(env):
    assert "the bundle holds no pages" in str(_rejected(env, {"pages": []}))


def test_malformed_bundles_name_the_page_and_field(env):
    error = _rejected(env, {"pages": [{"page_id": "X", "page_type": "Environment", "titel": "x"}]})
    assert "page 'X': title must be a non-empty string" in str(error)
    assert "page 'X': unknown field(s) titel" in str(error)
    tmp, settings, conn, llm = env
    (tmp / "broken.json").write_text("{not json")
    with pytest.raises(BundleError, match="broken.json is not valid JSON"):
        load_bundle(tmp / "broken.json")


def test_a_link_the_hierarchy_does_not_allow(env):
    error = _rejected(
        env,
        {
            "pages": [
                page("P", "Principle", "P", "p", "p", [("implemented_by", "E")]),
                page("E", "Environment", "E", "e", "e"),
            ]
        },
    )
    assert "page 'P': implemented_by must point at an Implementation, but 'E' is a Environment" in str(error)


# -- the Heuristic tie-breaker: several parents at different levels ---------------------------

TIE_MAIN = {
    "pages": [
        page("P", "Principle", "P", "p", "p", [("implemented_by", "I"), ("uses_heuristic", "HP")]),
        page("I", "Implementation", "I", "i", "i", [("uses_heuristic", "HI")]),
        page("HP", "Heuristic", "Principle-level tip", "hp", "## Tip\n\nA principle tip."),
        page("HI", "Heuristic", "Implementation-level tip", "hi", "## Tip\n\nAn implementation tip."),
    ]
}
TIE_NEW = {
    "pages": [
        page("P'", "Principle", "P", "p", "p", [("implemented_by", "I'"), ("uses_heuristic", "H'")]),
        page("I'", "Implementation", "I", "i", "i", [("uses_heuristic", "H'")]),
        page("H'", "Heuristic", "A tip", "h", "## Tip\n\nA new tip."),
    ]
}


@pytest.mark.parametrize(
    "h_scores, decision, target, searched",
    [
        ({"HI": 0.9, "HP": 0.95}, "MERGE", "HI", [("HI",)]),  # the lowest parent's scope first
        ({"HI": 0.2, "HP": 0.85}, "MERGE", "HP", [("HI",), ("HP",)]),  # no match there: escalate
        ({"HI": 0.2, "HP": 0.3}, "CREATE_NEW", None, [("HI",), ("HP",)]),  # no match at any level
    ],
)
def test_heuristic_under_parents_at_different_levels(env, h_scores, decision, target, searched):
    tmp, settings, conn, llm = env
    merge_bundle(conn, write_bundle(tmp / "in", "main", TIE_MAIN), settings, llm, TableScorer(), NOW)
    scorer = TableScorer({"P'": {"P": 0.9}, "I'": {"I": 0.9}, "H'": h_scores})
    outcome = merge_bundle(conn, write_bundle(tmp / "in", "new", TIE_NEW), settings, llm, scorer, NOW)
    h = outcome.plan.node("H'")
    assert (h.decision, h.merge_target_id, h.parent_id) == (decision, target, "I'")
    assert [c[2] for c in scorer.calls if c[0] == "H'"] == searched
    assert {e["parent_id"] for e in h.deferred_edges} == {"I'", "P'"}
    result = target or "H'"
    assert {("P", "uses_heuristic", result), ("I", "uses_heuristic", result)} <= wiki_edges(conn)
    assert outcome.plan.status == "COMPLETED"


# -- re-submission, crash and resume, audit retries --------------------------------------------


def test_a_resubmitted_unchanged_bundle_changes_nothing(env):
    _main_graph(env)
    tmp, settings, conn, llm = env
    path = write_bundle(tmp / "in", "new_pages", NEW_PAGES)
    merge_bundle(conn, path, settings, llm, TableScorer(WALKTHROUGH_SCORES), NOW)
    before = snapshot(conn)
    scorer = TableScorer(WALKTHROUGH_SCORES)
    again = merge_bundle(conn, path, settings, llm, scorer, NOW)
    assert snapshot(conn) == before
    assert scorer.calls == [] and again.executed_nodes == 0  # the stored plan, every page COMPLETED
    assert sorted(again.plan.edited_pages) == ["Environment_E1", "Implementation_A", "Principle_X"]


def _final_state(conn):
    nodes = conn.execute("SELECT node_id, name, description, metadata FROM kg_nodes ORDER BY node_id").fetchall()
    return nodes, wiki_edges(conn)


def _reference(tmp_path_factory):
    root = tmp_path_factory.mktemp("reference")
    settings = settings_for(root / "data")
    conn = connect(settings)
    llm = offline_llm(settings)
    merge_bundle(conn, write_bundle(root / "in", "main_graph", MAIN_GRAPH), settings, llm, TableScorer(), NOW)
    merge_bundle(
        conn, write_bundle(root / "in", "new_pages", NEW_PAGES), settings, llm, TableScorer(WALKTHROUGH_SCORES), NOW
    )
    state = _final_state(conn)
    conn.close()
    return state


@pytest.mark.parametrize("where", ["between pages", "inside a page's transaction"])
def test_a_crash_mid_execution_resumes_without_duplicated_pages(env, tmp_path_factory, monkeypatch, where):
    _main_graph(env)
    tmp, settings, conn, llm = env
    path = write_bundle(tmp / "in", "new_pages", NEW_PAGES)

    def crash_before(node):
        if node.page_id == "Implementation_A'":
            raise KeyboardInterrupt  # the process dies here

    real_add_edge = execution.add_edge

    def crash_inside(conn_, source, target, *rest):
        if source == "Implementation_A":
            raise KeyboardInterrupt  # dies after A's page was edited, before its edges: all rolled back
        return real_add_edge(conn_, source, target, *rest)

    options = {}
    if where == "between pages":
        options["before_write"] = crash_before
    else:
        monkeypatch.setattr(execution, "add_edge", crash_inside)
    with pytest.raises(KeyboardInterrupt):
        merge_bundle(conn, path, settings, llm, TableScorer(WALKTHROUGH_SCORES), NOW, **options)
    statuses = dict(conn.execute("SELECT page_id, status FROM merge_plans WHERE bundle_id = 'new_pages'").fetchall())
    assert statuses["Heuristic_H1'"] == "COMPLETED" and statuses["Implementation_A'"] == "PENDING"
    history = conn.execute("SELECT merge_history FROM kg_nodes WHERE node_id = 'Implementation_A'").fetchone()[0]
    assert json.loads(history) == []  # the interrupted page left nothing behind
    monkeypatch.setattr(execution, "add_edge", real_add_edge)

    resumed = merge_bundle(conn, path, settings, llm, TableScorer(WALKTHROUGH_SCORES), NOW)
    assert resumed.executed_nodes == 3  # A', C', X': the four done before the crash are not redone
    assert resumed.plan.status == "COMPLETED"
    assert _final_state(conn) == _reference(tmp_path_factory)
    for merged in ("Environment_E1", "Implementation_A", "Principle_X"):
        history = conn.execute("SELECT merge_history FROM kg_nodes WHERE node_id = ?", [merged]).fetchone()[0]
        assert len(json.loads(history)) == 1


def test_a_failed_audit_is_retried_from_the_first_failed_page(env, tmp_path_factory):
    _main_graph(env)
    tmp, settings, conn, llm = env
    failures = []

    def fail_once(node):
        if node.page_id == "Implementation_C'" and not failures:
            failures.append(node.page_id)
            raise RuntimeError("the page store timed out")

    executed = []
    outcome = merge_bundle(
        conn,
        write_bundle(tmp / "in", "new_pages", NEW_PAGES),
        settings,
        llm,
        TableScorer(WALKTHROUGH_SCORES),
        NOW,
        before_write=lambda node: (executed.append(node.page_id), fail_once(node)),
    )
    sg = outcome.plan.subgraphs[0]
    assert (sg.status, sg.retry_count) == ("COMPLETED", 1)
    # first attempt stops at C'; the retry resumes at C' (E1'..A' are not done again)
    assert executed == [
        "Environment_E1'",
        "Environment_E2'",
        "Environment_E3'",
        "Heuristic_H1'",
        "Implementation_A'",
        "Implementation_C'",
        "Implementation_C'",
        "Principle_X'",
    ]
    assert _final_state(conn) == _reference(tmp_path_factory)


def test_a_subgraph_failing_every_retry_is_failed_and_the_next_one_goes_on(env):
    tmp, settings, conn, llm = env
    bundle = {
        "pages": [
            page("P1", "Principle", "P1", "p1", "p1", [("implemented_by", "I1")]),
            page("I1", "Implementation", "I1", "i1", "i1"),
            page("P2", "Principle", "P2", "p2", "p2", [("implemented_by", "I2")]),
            page("I2", "Implementation", "I2", "i2", "i2"),
        ]
    }

    def always(node):
        if node.page_id == "I1":
            raise RuntimeError("disk full")

    outcome = merge_bundle(
        conn, write_bundle(tmp / "in", "two", bundle), settings, llm, TableScorer(), NOW, before_write=always
    )
    first, second = outcome.plan.subgraphs
    assert (first.status, first.retry_count) == ("FAILED", execution.MAX_RETRIES)
    assert "I1 was not executed (FAILED: RuntimeError: disk full)" in first.audit_result
    assert second.status == "COMPLETED"
    assert outcome.plan.status == "FAILED" and sorted(outcome.plan.created_pages) == ["I2", "P2"]
    stored = load_plan(conn, "two")
    assert stored.subgraphs[0].status == "FAILED" and stored.subgraphs[0].retry_count == 3
    assert conn.execute("SELECT count(*) FROM kg_nodes WHERE node_id IN ('P1', 'I1')").fetchone()[0] == 0
    # the cause dealt with, a new run tries the FAILED sub-graph again; the completed one is left alone
    again = merge_bundle(conn, write_bundle(tmp / "in", "two", bundle), settings, llm, TableScorer(), NOW)
    assert [sg.status for sg in again.plan.subgraphs] == ["COMPLETED", "COMPLETED"]
    assert again.executed_nodes == 2 and sorted(again.plan.created_pages) == ["I1", "I2", "P1", "P2"]


# -- the Markdown form ------------------------------------------------------------------------


def test_a_folder_of_markdown_pages_is_the_same_bundle_as_its_json(tmp_path):
    folder = tmp_path / "qlora"
    folder.mkdir()
    for p in NEW_PAGES["pages"]:
        front = {k: v for k, v in p.items() if k != "content"}
        import yaml

        (folder / f"{p['page_id'].rstrip(chr(39))}.md").write_text(
            "---\n" + yaml.safe_dump(front, sort_keys=False) + "---\n" + p["content"] + "\n", encoding="utf-8"
        )
    from_md = load_bundle(folder)
    from_json = load_bundle(write_bundle(tmp_path, "qlora", NEW_PAGES))
    assert from_md.bundle_id == "qlora"
    assert sorted((p.to_dict() for p in from_md.pages), key=lambda d: d["page_id"]) == sorted(
        (p.to_dict() for p in from_json.pages), key=lambda d: d["page_id"]
    )
    (folder / "Broken.md").write_text("no front matter here")
    with pytest.raises(BundleError, match="Broken.md: no front matter"):
        load_bundle(folder)


# -- the LLM path -------------------------------------------------------------------------------

SMALL_MAIN = {
    "pages": [
        page(
            "P",
            "Principle",
            "Autophagy",
            "Cells recycle their parts.",
            "## Idea\n\nLysosomes digest.",
            [("implemented_by", "I")],
        ),
        page(
            "I",
            "Implementation",
            "Spermidine dosing",
            "Spermidine induces autophagy.",
            "## Dose\n\nOne milligram a day.",
        ),
    ]
}
SMALL_NEW = {
    "pages": [
        page(
            "P'",
            "Principle",
            "Autophagy",
            "Recycling of cell parts.",
            "## Idea\n\nLysosomes digest.",
            [("implemented_by", "I'")],
        ),
        page(
            "I'",
            "Implementation",
            "Spermidine",
            "Spermidine in food.",
            "## Sources\n\nWheat germ and soybeans hold spermidine.",
        ),
    ]
}


def test_the_llm_decides_and_merges_and_a_rejected_merge_is_retried_with_the_audit_feedback(env, fake_openai):
    tmp, settings, conn, offline = env
    merge_bundle(conn, write_bundle(tmp / "in", "main", SMALL_MAIN), settings, offline, TableScorer(), NOW)
    llm = LLMClient(OpenAIProvider("gpt-test", "key", base_url=fake_openai.base_url, timeout_s=5), ("concept",))
    good_i = {
        "overview": "Spermidine induces autophagy; it is found in food.",
        "content": "## Dose\n\nOne milligram a day.\n\n## Sources\n\nWheat germ and soybeans hold spermidine.",
        "superseded_links": [],
        "reason": "same compound",
    }
    fake_openai.push(
        json_content({"decision": "MERGE", "target_id": "P", "reason": "same principle"}),
        json_content({"decision": "MERGE", "target_id": "I", "reason": "same compound"}),
        # first merge of I' loses the Sources section: the audit must catch it
        json_content({**good_i, "content": "## Dose\n\nOne milligram a day."}),
        json_content(
            {
                "overview": "Cells recycle their parts.",
                "content": "## Idea\n\nLysosomes digest.",
                "superseded_links": [],
                "reason": "same",
            }
        ),
        json_content(good_i),
    )
    scorer = TableScorer({"P'": {"P": 0.6}, "I'": {"I": 0.55}})  # below the offline threshold: the LLM decides
    outcome = merge_bundle(conn, write_bundle(tmp / "in", "new", SMALL_NEW), settings, llm, scorer, NOW)
    sg = outcome.plan.subgraphs[0]
    assert [(n.page_id, n.decision, n.merge_target_id) for n in sg.nodes.values()] == [
        ("P'", "MERGE", "P"),
        ("I'", "MERGE", "I"),
    ]
    assert (sg.status, sg.retry_count) == ("COMPLETED", 1)
    chats = fake_openai.requests_to("chat")
    names = [r.body["response_format"]["json_schema"]["name"] for r in chats]
    assert names == ["merge_decision", "merge_decision", "merged_page", "merged_page", "merged_page"]
    retry_prompt = chats[-1].body["messages"][-1]["content"]
    assert "An audit rejected the previous merge" in retry_prompt and "Sources" in retry_prompt
    content = json.loads(conn.execute("SELECT metadata FROM kg_nodes WHERE node_id = 'I'").fetchone()[0])["content"]
    assert "## Sources" in content
    assert wiki_edges(conn) == {("P", "implemented_by", "I")}


def test_an_llm_decision_naming_no_candidate_falls_back_to_the_score(env, fake_openai):
    tmp, settings, conn, offline = env
    merge_bundle(conn, write_bundle(tmp / "in", "main", SMALL_MAIN), settings, offline, TableScorer(), NOW)
    llm = LLMClient(OpenAIProvider("gpt-test", "key", base_url=fake_openai.base_url, timeout_s=5), ("concept",))
    fake_openai.push(json_content({"decision": "MERGE", "target_id": "Somewhere_Else", "reason": "?"}))
    from kg_pipelines.merger.knowledge_merger import make_plan, read_bundle

    bundle = read_bundle(conn, write_bundle(tmp / "in", "new", SMALL_NEW))
    plan = make_plan(conn, bundle, TableScorer({"P'": {"P": 0.9}}), llm, settings, NOW)
    node = plan.node("P'")
    assert (node.decision, node.merge_target_id) == ("MERGE", "P")
    assert "LLM failed" in node.reason and "not a candidate" in node.reason
    assert plan.node("I'").decision == "CREATE_NEW"  # I' scope [I]: score missing -> the LLM was not asked


def test_offline_content_merge_unions_sections_and_drops_repeated_sentences():
    from kg_pipelines.merger.content_merge import merge_content, merge_overview

    existing = "Intro line.\n\n## Usage\n\nCall load(). It is fast.\n\n## Notes\n\n- one\n- two"
    new = "## usage\n\ncall load().  Pass a path.\n\n## Notes\n\n- two\n- three\n\n## Limits\n\nNo GPU needed."
    merged = merge_content(existing, new)
    assert merged == (
        "Intro line.\n\n## Usage\n\nCall load(). It is fast.\n\nPass a path.\n\n"
        "## Notes\n\n- one\n- two\n\n- three\n\n## Limits\n\nNo GPU needed."
    )
    assert merge_content(merged, new) == merged  # merging the same page again changes nothing
    assert merge_overview("A loader. Fast.", "a loader! Small.") == "A loader. Fast. Small."


def test_an_llm_merge_may_name_a_clear_winner_and_drop_the_superseded_link(env, fake_openai):
    tmp, settings, conn, offline = env
    main_graph = {
        "pages": [
            page("P", "Principle", "P", "p", "## Idea\n\nIt.", [("implemented_by", "I")]),
            page("I", "Implementation", "Loader", "Loads.", "## Use\n\nCall it.", [("requires_env", "E_old")]),
            page("E_old", "Environment", "CUDA 10", "CUDA 10.", "## Versions\n\nCUDA 10."),
        ]
    }
    new = {
        "pages": [
            page("P'", "Principle", "P", "p", "## Idea\n\nIt.", [("implemented_by", "I'")]),
            page("I'", "Implementation", "Loader", "Loads.", "## Use\n\nCall it.", [("requires_env", "E_new")]),
            page("E_new", "Environment", "CUDA 12", "CUDA 12 replaces CUDA 10.", "## Versions\n\nCUDA 12 only."),
        ]
    }
    merge_bundle(conn, write_bundle(tmp / "in", "main", main_graph), settings, offline, TableScorer(), NOW)
    llm = LLMClient(OpenAIProvider("gpt-test", "key", base_url=fake_openai.base_url, timeout_s=5), ("concept",))
    fake_openai.push(
        json_content({"decision": "MERGE", "target_id": "P", "reason": "same"}),
        json_content({"decision": "MERGE", "target_id": "I", "reason": "same"}),
        json_content({"decision": "CREATE_NEW", "target_id": None, "reason": "a newer CUDA"}),
        json_content(
            {"overview": "Loads.", "content": "## Use\n\nCall it.", "superseded_links": ["E_old"], "reason": "CUDA 12"}
        ),
        json_content({"overview": "p", "content": "## Idea\n\nIt.", "superseded_links": [], "reason": "same"}),
    )
    scorer = TableScorer({"P'": {"P": 0.9}, "I'": {"I": 0.9}, "E_new": {"E_old": 0.6}})
    outcome = merge_bundle(conn, write_bundle(tmp / "in", "new", new), settings, llm, scorer, NOW)
    assert outcome.plan.status == "COMPLETED"
    assert wiki_edges(conn) == {("P", "implemented_by", "I"), ("I", "requires_env", "E_new")}
