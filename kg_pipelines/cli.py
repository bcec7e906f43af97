"""The ``kg-pipelines`` command: runs the same Dagster assets in-process, with a progress bar.

    kg-pipelines [--data-dir PATH] [--config FILE] init | demo | ingest DIR --collection NAME |
                                                    remove PATH | summary

Runs go to the Dagster instance under ``<data_dir>/dagster_home``, so they show up in the UI
(``make dev``) next to the runs launched by the sensor.
"""

from __future__ import annotations

import os
import shutil
import sys
import warnings
from pathlib import Path

import click

from kg_pipelines.config import KGSettings, load_settings

SAMPLE_INBOX = Path(__file__).resolve().parents[1] / "data" / "inbox"


def _prepare(data_dir: str | None, config: str | None) -> KGSettings:
    """Settings, the data dir and a Dagster home with our instance template; env for the assets."""
    settings = load_settings(data_dir, config)
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    home = settings.dagster_home
    home.mkdir(parents=True, exist_ok=True)
    if not (home / "dagster.yaml").exists():
        shutil.copy(Path(__file__).with_name("dagster.yaml"), home / "dagster.yaml")
    os.environ["DAGSTER_HOME"] = str(home)
    os.environ["KG_DATA_DIR"] = str(settings.data_dir)
    if config:
        os.environ["KG_CONFIG"] = str(Path(config).resolve())
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    return settings


@click.group()
@click.option("--data-dir", type=click.Path(file_okay=False), envvar="KG_DATA_DIR",
              help="Folder holding every store of this graph (default: KG_DATA_DIR, else ./data).")
@click.option("--config", type=click.Path(dir_okay=False, exists=True), envvar="KG_CONFIG",
              help="Settings YAML (default: <data-dir>/kg.yaml if present).")
@click.pass_context
def main(ctx: click.Context, data_dir: str | None, config: str | None) -> None:
    """Documents in, a knowledge graph out."""
    warnings.filterwarnings("ignore", category=Warning, module="dagster")
    try:
        ctx.obj = _prepare(data_dir, config)
    except (ValueError, FileNotFoundError) as exc:
        raise click.ClickException(str(exc)) from exc


@main.command()
@click.pass_obj
def init(settings: KGSettings) -> None:
    """Create the data dir, the Dagster home and the warehouse tables."""
    from kg_pipelines.stores import warehouse

    warehouse.connect(settings.warehouse_path).close()
    settings.inbox.mkdir(parents=True, exist_ok=True)
    click.echo(f"data dir ready: {settings.data_dir}")


@main.command()
@click.argument("directory", type=click.Path(exists=True, file_okay=False))
@click.option("--collection", required=True, help="Knowledge collection the documents belong to.")
@click.pass_obj
def ingest(settings: KGSettings, directory: str, collection: str) -> None:
    """Ingest every .txt/.md/.pdf file under DIRECTORY as documents of COLLECTION."""
    from kg_pipelines.ingestion.inbox import scan_directory

    files = scan_directory(Path(directory), collection)
    if not files:
        raise click.ClickException(f"no .txt, .md or .pdf files under {directory}")
    failures = _ingest_sources(settings, [f.to_source() for f in files])
    _print_summary(settings)
    if failures:
        sys.exit(1)


@main.command()
@click.pass_obj
def demo(settings: KGSettings) -> None:
    """Ingest the sample corpus (data/inbox of the project) and show what came out."""
    from kg_pipelines.ingestion.inbox import scan_inbox

    files = scan_inbox(SAMPLE_INBOX)
    if not files:
        raise click.ClickException(f"no sample documents found under {SAMPLE_INBOX}")
    click.echo(f"kg-pipelines demo: {len(files)} sample documents from {SAMPLE_INBOX}")
    click.echo(f"LLM provider: {settings.llm.provider}; stores under {settings.data_dir}\n")
    failures = _ingest_sources(settings, [f.to_source() for f in files])
    _print_summary(settings)
    click.echo(
        "\nWhere to look next:\n"
        "  make dev                      the Dagster UI on http://127.0.0.1:3000 (assets, lineage, checks, sensor)\n"
        f"  {settings.warehouse_path}    DuckDB: documents, chunks, entities, kg_nodes, kg_edges, ...\n"
        f"  {settings.lancedb_dir}    chunk and question vectors, one table per collection\n"
        f"  drop files into {settings.inbox}/<collection>/ with `make dev` running: the sensor ingests them"
    )
    if failures:
        sys.exit(1)


@main.command()
@click.argument("path", type=click.Path())
@click.pass_obj
def remove(settings: KGSettings, path: str) -> None:
    """Remove the document(s) ingested from PATH (a file, or every file under a folder)."""
    from dagster import DagsterInstance

    from kg_pipelines.dagster_shell.runner import delete_partitions
    from kg_pipelines.graph.removal import remove_documents_everywhere
    from kg_pipelines.stores import warehouse
    from kg_pipelines.stores.source_registry import SourceRegistry
    from kg_pipelines.stores.vectors import VectorStore

    registry = SourceRegistry(settings.source_registry_path)
    target = str(Path(path).resolve())
    ids = [s.document_id for s in registry.all() if s.path == target or s.path.startswith(target.rstrip("/") + "/")]
    if not ids:
        raise click.ClickException(f"no ingested document comes from {path}")
    conn = warehouse.connect(settings.warehouse_path)
    try:
        report = remove_documents_everywhere(conn, VectorStore(settings.lancedb_dir), registry, ids, _now())
    finally:
        conn.close()
    delete_partitions(DagsterInstance.get(), ids)
    click.echo(f"removed {len(ids)} document(s): -{report.nodes_deleted} nodes, -{report.edges_deleted} edges")


@main.command()
@click.pass_obj
def summary(settings: KGSettings) -> None:
    """Print what the graph holds."""
    _print_summary(settings)


# -- helpers --------------------------------------------------------------------------------------


def _now():
    from datetime import datetime, timezone

    return datetime.now(timezone.utc)


def _ingest_sources(settings: KGSettings, sources) -> int:
    """Run the ingestion job over the sources with progress bars; the number of failed runs."""
    from dagster import DagsterInstance

    from kg_pipelines.dagster_shell.runner import ingest_sources

    with _ProgressBars():
        outcome = ingest_sources(settings, sources, DagsterInstance.get())
    for error in outcome.errors:
        click.echo(error, err=True)
    return outcome.failed_runs


class _ProgressBars:
    """A tqdm bar per stage, fed by ``kg_pipelines.progress`` while the run executes in-process."""

    def __enter__(self):
        from tqdm import tqdm

        from kg_pipelines import progress

        self._bars: dict[str, tqdm] = {}

        def listener(stage: str, done: int, total: int) -> None:
            bar = self._bars.get(stage)
            if bar is None or bar.disable:
                bar = self._bars[stage] = tqdm(total=total, desc=f"{stage:<30}", unit="", leave=True, file=sys.stderr)
            bar.update(done - bar.n)
            if done >= total:
                bar.close()  # stages run one after the other: finish this line before the next bar

        self._listener = listener
        progress.add_listener(listener)
        return self

    def __exit__(self, *exc):
        from kg_pipelines import progress

        progress.remove_listener(self._listener)
        for bar in self._bars.values():
            bar.close()


def _print_summary(settings: KGSettings) -> None:
    from kg_pipelines.reports import graph_summary

    if not settings.warehouse_path.exists():
        click.echo("the graph is empty: nothing ingested yet")
        return
    click.echo("\n" + graph_summary(settings))
