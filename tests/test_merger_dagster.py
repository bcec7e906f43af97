"""The merger's Dagster shell: the assets under materialize(), the page bundle sensor, the reserved
``pages`` folder of the inbox, graph building keeping merger-made pages, and ``merge-pages``."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from dagster import SensorEvaluationContext, instance_for_test, materialize

from kg_pipelines.cli import main
from kg_pipelines.dagster_shell.merger_assets import merge_plans, merged_wiki_pages, proposed_pages
from kg_pipelines.dagster_shell.merger_sensor import page_bundle_sensor
from kg_pipelines.dagster_shell.partitions import page_bundles_partitions
from kg_pipelines.dagster_shell.resources import KGResource
from kg_pipelines.dagster_shell.sensors import inbox_sensor
from kg_pipelines.definitions import defs
from kg_pipelines.ingestion.inbox import scan_inbox
from kg_pipelines.merger.pages import bundle_content_hash
from tests.merger_fixtures import MAIN_GRAPH, snapshot, write_bundle

REPO = Path(__file__).resolve().parents[1]
SAMPLE_JSON = REPO / "data" / "inbox" / "pages" / "autophagy_interventions.json"
SAMPLE_FOLDER = REPO / "data" / "inbox" / "pages" / "gut_butyrate"


@pytest.fixture
def instance(tmp_path, monkeypatch):
    for name in ("KG_CONFIG", "KG_INBOX_DIR", "KG_LLM_PROVIDER"):
        monkeypatch.delenv(name, raising=False)
    home = tmp_path / "dagster_home"
    home.mkdir()
    with instance_for_test(temp_dir=str(home)) as instance:
        yield instance


def _evaluate(sensor_def, instance, root: Path, cursor: str | None):
    with SensorEvaluationContext(
        instance_ref=instance.get_ref(),
        instance=instance,
        cursor=cursor,
        repository_def=defs.get_repository_def(),
        sensor_name=sensor_def.name,
        resources={"kg": KGResource(data_dir=str(root))},
    ) as context:
        data = sensor_def.evaluate_tick(context)
    for request in data.dynamic_partitions_requests or []:
        instance.add_dynamic_partitions(request.partitions_def_name, list(request.partition_keys))
    return data


def test_the_sensor_requests_one_run_per_new_or_changed_bundle(tmp_path, instance, monkeypatch):
    root = tmp_path / "data"
    pages = root / "inbox" / "pages"
    pages.mkdir(parents=True)
    shutil.copy(SAMPLE_JSON, pages / SAMPLE_JSON.name)
    shutil.copytree(SAMPLE_FOLDER, pages / SAMPLE_FOLDER.name)
    (pages / "notes.txt").write_text("not a bundle")
    (pages / "bad name!.json").write_text("{}")

    first = _evaluate(page_bundle_sensor, instance, root, None)
    runs = {r.partition_key: r for r in first.run_requests}
    assert sorted(runs) == ["autophagy_interventions", "gut_butyrate"]
    digest = bundle_content_hash(pages / "gut_butyrate")
    assert runs["gut_butyrate"].run_key == f"merge:gut_butyrate:{digest[:16]}:1"
    assert runs["gut_butyrate"].run_config["ops"]["proposed_pages"]["config"]["bundle_path"] == str(
        pages / "gut_butyrate"
    )
    assert runs["gut_butyrate"].tags["dagster/partition"] == "gut_butyrate"
    assert sorted(instance.get_dynamic_partitions(page_bundles_partitions.name)) == sorted(runs)

    # the run the sensor asks for, as the daemon would launch it: the bundle flows into the graph
    monkeypatch.setenv("KG_DATA_DIR", str(root))
    request = runs["gut_butyrate"]
    result = defs.resolve_job_def(request.job_name).execute_in_process(
        instance=instance, partition_key=request.partition_key, run_config=request.run_config, tags=request.tags
    )
    assert result.success
    # every audit of the merged pages ran and passed (an empty list would pass any all())
    checks = {c.check_name: c.passed for c in result.get_asset_check_evaluations()}
    assert checks == {"audit_nodes": True, "audit_edges": True, "audit_content": True, "subgraphs_completed": True}
    assert (root / "merges" / "gut_butyrate" / "plan.md").read_text().startswith("# Merge Plan")

    again = _evaluate(page_bundle_sensor, instance, root, first.cursor)
    assert again.run_requests == [] and "no new or changed page bundle" in again.skip_message

    edited = pages / "gut_butyrate" / "heuristic_fibre.md"
    edited.write_text(edited.read_text() + "\nSoak legumes overnight to ease digestion.\n")
    third = _evaluate(page_bundle_sensor, instance, root, again.cursor)
    assert [r.partition_key for r in third.run_requests] == ["gut_butyrate"]
    assert third.run_requests[0].run_key.endswith(":2")
    # edited back to the first content: merged again, under a new run key
    edited.write_text(edited.read_text().replace("\nSoak legumes overnight to ease digestion.\n", ""))
    assert bundle_content_hash(pages / "gut_butyrate") == digest
    fourth = _evaluate(page_bundle_sensor, instance, root, third.cursor)
    assert [r.run_key for r in fourth.run_requests] == [f"merge:gut_butyrate:{digest[:16]}:3"]


def test_pages_is_reserved_ingestion_never_reads_it(tmp_path, instance):
    root = tmp_path / "data"
    inbox = root / "inbox"
    (inbox / "pages" / "gut_butyrate").mkdir(parents=True)
    shutil.copytree(SAMPLE_FOLDER, inbox / "pages" / "gut_butyrate", dirs_exist_ok=True)
    (inbox / "longevity").mkdir()
    (inbox / "longevity" / "nad.md").write_text("# NAD\nNAD+ declines with age.\n")
    assert {f.collection for f in scan_inbox(inbox)} == {"longevity"}
    data = _evaluate(inbox_sensor, instance, root, None)
    assert [r.partition_key for r in data.run_requests] == ["longevity"]


def _materialize(instance, root: Path, bundle: Path, partition: str):
    if partition not in instance.get_dynamic_partitions(page_bundles_partitions.name):
        instance.add_dynamic_partitions(page_bundles_partitions.name, [partition])
    return materialize(
        [proposed_pages, merge_plans, merged_wiki_pages],
        instance=instance,
        partition_key=partition,
        resources={"kg": KGResource(data_dir=str(root))},
        run_config={"ops": {"proposed_pages": {"config": {"bundle_path": str(bundle)}}}},
    )


def test_materialize_the_merger_assets(tmp_path, instance):
    from kg_pipelines.stores import warehouse

    root = tmp_path / "data"
    root.mkdir()
    result = _materialize(instance, root, SAMPLE_JSON, "autophagy_interventions")
    assert result.success
    checks = {c.check_name: c.passed for c in result.get_asset_check_evaluations()}
    assert checks == {"audit_nodes": True, "audit_edges": True, "audit_content": True, "subgraphs_completed": True}
    merged = next(
        e.event_specific_data.materialization
        for e in result.all_events
        if e.is_step_materialization and e.asset_key.path == ["merged_wiki_pages"]
    )
    plan_md = merged.metadata["plan"].value
    assert plan_md.startswith("# Merge Plan") and "Total SubGraphs: 2" in plan_md
    assert (root / "merges" / "autophagy_interventions" / "plan.md").read_text() == plan_md
    conn = warehouse.connect(root / "warehouse.duckdb")
    try:
        assert conn.execute("SELECT count(*) FROM kg_nodes WHERE created_by = 'merger'").fetchone()[0] == 8
        assert conn.execute("SELECT count(*) FROM merge_plans WHERE status = 'COMPLETED'").fetchone()[0] == 8
        github = conn.execute(
            "SELECT metadata FROM kg_nodes WHERE node_id = 'Workflow_Evaluate_Autophagy_Inducer'"
        ).fetchone()[0]
        assert json.loads(github)["github_urls"] == ["https://github.com/example-lab/autophagy-flux-assays"]
        before = snapshot(conn)
    finally:
        conn.close()
    # the same bundle again: the stored plan, nothing to execute, the graph as it was
    again = _materialize(instance, root, SAMPLE_JSON, "autophagy_interventions")
    assert again.success
    conn = warehouse.connect(root / "warehouse.duckdb")
    try:
        assert snapshot(conn) == before
    finally:
        conn.close()


def test_a_bad_bundle_fails_proposed_pages_naming_the_problem(tmp_path, instance):
    root = tmp_path / "data"
    root.mkdir()
    bad = write_bundle(tmp_path, "bad", {"pages": [{"page_id": "X", "page_type": "Recipe", "title": "x"}]})
    instance.add_dynamic_partitions(page_bundles_partitions.name, ["bad"])
    result = materialize(
        [proposed_pages, merge_plans, merged_wiki_pages],
        instance=instance,
        partition_key="bad",
        resources={"kg": KGResource(data_dir=str(root))},
        run_config={"ops": {"proposed_pages": {"config": {"bundle_path": str(bad)}}}},
        raise_on_error=False,
    )
    assert not result.success
    failure = next(e for e in result.all_events if e.is_step_failure)
    assert "page 'X': unknown page type 'Recipe'" in str(failure.event_specific_data.error.message)


def test_ingestion_keeps_merger_made_pages_and_edges(graph):
    from kg_pipelines.dagster_shell.runner import ingest_sources

    graph.write("longevity/nad.md", "# NAD\nNicotinamide riboside raises NAD+ levels. NAD+ activates SIRT1.\n")
    assert graph.ingest("longevity").failed_runs == 0
    bundle = write_bundle(graph.root.parent / "bundles", "main_graph", MAIN_GRAPH)
    from kg_pipelines.dagster_shell.merger_runner import merge_page_bundle

    outcome = merge_page_bundle(graph.settings, "main_graph", bundle, graph.instance)
    assert outcome.failed_runs == 0 and outcome.errors == []
    pages = graph.rows("SELECT node_id FROM kg_nodes WHERE created_by = 'merger' ORDER BY 1")
    edges = graph.rows("SELECT edge_id FROM kg_edges WHERE created_by = 'merger' ORDER BY 1")
    assert len(pages) == 9 and len(edges) == 7
    # re-ingest an edited document, then remove it: the pipeline's part changes, the merger's stays
    graph.write("longevity/nad.md", "# NAD\nNAD+ falls with age. Nicotinamide riboside raises it.\n")
    assert graph.ingest("longevity").failed_runs == 0
    document_ids = [r[0] for r in graph.rows("SELECT document_id FROM documents")]
    ingest_sources(graph.settings, [], graph.instance, removed=document_ids)
    assert graph.one("SELECT count(*) FROM kg_nodes WHERE created_by = 'pipeline'") == 0
    assert graph.rows("SELECT node_id FROM kg_nodes WHERE created_by = 'merger' ORDER BY 1") == pages
    assert graph.rows("SELECT edge_id FROM kg_edges WHERE created_by = 'merger' ORDER BY 1") == edges
    runs = graph.instance.get_runs()
    assert any(r.job_name == "merge_page_bundle" and r.tags.get("dagster/partition") == "main_graph" for r in runs)


def test_merge_pages_cli(cli_env):
    data = cli_env / "graph"
    runner = CliRunner()
    bundle = write_bundle(cli_env / "in", "main_graph", MAIN_GRAPH)

    dry = runner.invoke(main, ["--data-dir", str(data), "merge-pages", str(bundle), "--dry-run", "--json"])
    assert dry.exit_code == 0, dry.output
    plan = json.loads(dry.output)
    assert plan["execution_order"][:3] == ["Environment_E1", "Environment_E4", "Heuristic_H2"]
    node = plan["subgraphs"][0]["nodes"][0]
    assert set(node) >= {
        "page_id",
        "page_type",
        "decision",
        "merge_target_id",
        "best_match_score",
        "parent_id",
        "status",
        "result_page_id",
    }
    assert {n["status"] for sg in plan["subgraphs"] for n in sg["nodes"]} == {"PENDING"}
    assert not (data / "warehouse.duckdb").exists()  # a dry run writes nothing

    text = runner.invoke(main, ["--data-dir", str(data), "merge-pages", str(bundle), "--dry-run"])
    assert text.exit_code == 0 and text.output.startswith("# Merge Plan")

    run = runner.invoke(main, ["--data-dir", str(data), "merge-pages", str(bundle), "--json"])
    assert run.exit_code == 0, run.output
    done = json.loads(run.output[run.output.index("{") :])
    assert len(done["created_pages"]) == 9 and done["edited_pages"] == []
    assert (data / "merges" / "main_graph" / "plan.md").exists()

    bad = write_bundle(
        cli_env / "in",
        "bad",
        {
            "pages": [
                {
                    "page_id": "E",
                    "page_type": "Environment",
                    "title": "e",
                    "outgoing_links": [{"target_id": "Z", "edge_type": "requires_env"}],
                }
            ]
        },
    )
    failed = runner.invoke(main, ["--data-dir", str(data), "merge-pages", str(bad)])
    assert failed.exit_code == 1
    assert "page 'E': links to 'Z' (requires_env), which is in neither the bundle nor the graph" in failed.output
    assert "Traceback" not in failed.output


def test_the_merger_core_never_imports_dagster():
    modules = [
        "kg_pipelines.merger.pages",
        "kg_pipelines.merger.subgraphs",
        "kg_pipelines.merger.planning",
        "kg_pipelines.merger.execution",
        "kg_pipelines.merger.audit",
        "kg_pipelines.merger.plan_document",
        "kg_pipelines.merger.knowledge_merger",
        "kg_pipelines.merger.offline_decisions",
        "kg_pipelines.merger.content_merge",
    ]
    code = "import sys\n" + "".join(f"import {m}\n" for m in modules) + "print('dagster' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert out.stdout.strip() == "False"
