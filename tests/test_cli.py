"""The kg-pipelines command: ingest, summary, remove, and clear errors."""

import os
import subprocess
import sys

from click.testing import CliRunner

from kg_pipelines.cli import main

DOC = "# NAD+ and SIRT1\nNicotinamide riboside raises NAD+ levels. NAD+ activates SIRT1 in muscle.\n"


def test_ingest_summary_and_remove(cli_env):
    docs = cli_env / "papers"
    docs.mkdir()
    (docs / "nad.md").write_text(DOC)
    (docs / "notes.docx").write_bytes(b"PK")
    data = cli_env / "graph"
    runner = CliRunner()

    result = runner.invoke(main, ["--data-dir", str(data), "ingest", str(docs), "--collection", "longevity"])
    assert result.exit_code == 0, result.output
    assert "documents            1   Done 1" in result.output
    assert (data / "dagster_home" / "dagster.yaml").exists()
    assert (data / "warehouse.duckdb").exists() and (data / "lancedb").is_dir()

    result = runner.invoke(main, ["--data-dir", str(data), "summary"])
    assert "questions" in result.output and "failures       chunks: 0" in result.output

    result = runner.invoke(main, ["--data-dir", str(data), "remove", str(docs / "nad.md")])
    assert result.exit_code == 0, result.output
    assert "removed 1 document(s)" in result.output
    result = runner.invoke(main, ["--data-dir", str(data), "summary"])
    assert "documents            0" in result.output and "nodes                0" in result.output


def test_clear_errors(cli_env):
    runner = CliRunner()
    empty = cli_env / "nothing"
    empty.mkdir()
    result = runner.invoke(main, ["--data-dir", str(cli_env / "g"), "ingest", str(empty), "--collection", "x"])
    assert result.exit_code != 0 and "no .txt, .md or .pdf files" in result.output
    result = runner.invoke(main, ["--data-dir", str(cli_env / "g"), "remove", str(cli_env / "never.md")])
    assert result.exit_code != 0 and "no ingested document comes from" in result.output
    bad = cli_env / "bad.yaml"
    bad.write_text("chunk_tokens: lots\n")
    result = runner.invoke(main, ["--data-dir", str(cli_env / "g"), "--config", str(bad), "summary"])
    assert result.exit_code != 0 and "chunk_tokens" in result.output


def test_ingest_syncs_the_folder_and_rejects_bad_collection_names(cli_env):
    docs = cli_env / "papers"
    docs.mkdir()
    (docs / "nad.md").write_text(DOC)
    (docs / "old.md").write_text("# Rapamycin\nRapamycin inhibits mTORC1 in yeast.\n")
    data = cli_env / "graph"
    runner = CliRunner()
    result = runner.invoke(main, ["--data-dir", str(data), "ingest", str(docs), "--collection", "my-coll"])
    assert result.exit_code != 0 and "invalid collection name 'my-coll'" in result.output
    assert not data.exists()  # a refused command creates nothing

    assert runner.invoke(main, ["--data-dir", str(data), "ingest", str(docs), "--collection", "bio"]).exit_code == 0
    (docs / "old.md").unlink()
    result = runner.invoke(main, ["--data-dir", str(data), "ingest", str(docs), "--collection", "bio"])
    assert result.exit_code == 0, result.output
    assert "documents            1   Done 1" in result.output  # the file gone from the folder left the graph


def test_summary_of_an_empty_graph_names_the_data_dir_and_creates_nothing(cli_env):
    data = cli_env / "nowhere"
    result = CliRunner().invoke(main, ["--data-dir", str(data), "summary"])
    assert result.exit_code == 0 and f"the graph in {data} is empty" in result.output
    assert not data.exists()


def test_the_core_never_imports_dagster():
    core = [
        "kg_pipelines.audits",
        "kg_pipelines.ingestion.chunk_jobs",
        "kg_pipelines.ingestion.chunk_stage",
        "kg_pipelines.ingestion.chunk_state",
        "kg_pipelines.ingestion.chunking",
        "kg_pipelines.config",
        "kg_pipelines.ingestion.documents",
        "kg_pipelines.embedding",
        "kg_pipelines.ingestion.extraction",
        "kg_pipelines.graph.graph_building",
        "kg_pipelines.ingestion.inbox",
        "kg_pipelines.ingestion.questions",
        "kg_pipelines.reports",
        "kg_pipelines.ingestion.context",
        "kg_pipelines.ingestion.names",
        "kg_pipelines.llm.grounding",
        "kg_pipelines.collections",
        "kg_pipelines.stores.table_docs",
        "kg_pipelines.dev_server",
        "kg_pipelines.llm.client",
        "kg_pipelines.llm.providers",
        "kg_pipelines.llm.offline_provider",
        "kg_pipelines.llm.openai_provider",
        "kg_pipelines.stores.warehouse",
        "kg_pipelines.stores.vectors",
        "kg_pipelines.stores.source_registry",
    ]
    code = (
        "import importlib, sys\n"
        + "".join(f"importlib.import_module({m!r})\n" for m in core)
        + "print(sorted(m for m in sys.modules if m == 'dagster' or m.startswith('dagster.')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ}, check=True)
    assert out.stdout.strip() == "[]"
