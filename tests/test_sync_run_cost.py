"""What the sync job costs beyond the stages' own work: each chunk analysed once by the offline
provider whatever order Dagster picks for the steps, and an event log that does not grow with the
documents of a run (every event is a write to the instance's storage)."""

import logging
from collections import Counter

from kg_pipelines import progress
from kg_pipelines.offline import entities

DOC = "# {name}\nMetformin activates AMPK in liver cells of mouse {i}. Rapamycin inhibits mTORC1 in yeast.\n"


def write_documents(graph, collection: str, n: int) -> None:
    for i in range(n):
        graph.write(f"{collection}/doc{i}.md", DOC.format(name=f"Doc {i}", i=i))


def run_events(graph) -> list[Counter]:
    """Per run: its events counted by type (a log line as ``LOG <its level>``)."""
    counts = []
    for run in reversed(graph.instance.get_runs()):
        logs = graph.instance.all_logs(run.run_id)
        counts.append(
            Counter(
                e.dagster_event.event_type_value if e.dagster_event else f"LOG {logging.getLevelName(e.level)}"
                for e in logs
            )
        )
    return counts


def test_the_sync_job_analyses_each_chunk_once(graph, monkeypatch):
    # the offline provider keeps a chunk's analysis from its summary to its questions (the last
    # of its three tasks); the job must run extraction before the questions or extraction
    # analyses every chunk again (both steps follow the chunks: Dagster picks the order)
    from kg_pipelines.dagster_shell import ingestion_assets

    for stage in ("extract_chunks", "generate_questions"):
        # the 64 texts entities.analyze keeps in front of ANALYSES are gone by the next stage in
        # a run of more chunks than that: so here too
        real = getattr(ingestion_assets, stage)
        monkeypatch.setattr(ingestion_assets, stage, lambda *a, _real=real: entities.analyze.cache_clear() or _real(*a))
    write_documents(graph, "bio", 3)
    entities.ANALYSES.clear()
    entities.ANALYSES.hits = entities.ANALYSES.misses = 0
    assert graph.ingest("bio").failed_runs == 0
    n_chunks = graph.one("SELECT count(*) FROM chunks")
    assert entities.ANALYSES.misses == n_chunks
    assert len(entities.ANALYSES) == 0  # the questions released every analysis: nothing left behind
    run = graph.instance.get_runs()[0]
    events = [e.dagster_event for e in graph.instance.all_logs(run.run_id) if e.dagster_event]
    started = [e.step_key for e in events if e.is_step_start]
    assert started.index("extract_entities_relationships") < started.index("atomic_questions")


def test_a_run_writes_as_many_events_for_eight_documents_as_for_one(graph):
    write_documents(graph, "one", 1)
    write_documents(graph, "eight", 8)
    assert graph.ingest("one").failed_runs == 0
    assert graph.ingest("eight").failed_runs == 0
    one, eight = run_events(graph)
    assert graph.one("SELECT count(*) FROM chunks WHERE collection = 'eight'") >= 8
    assert eight == one
    # the one log line of a short run: the graph step's summary; no stage's progress (the test
    # instance does not capture the kg_pipelines loggers, so no DEBUG per-chunk metrics either)
    assert {kind: n for kind, n in one.items() if kind.startswith("LOG ")} == {"LOG INFO": 1}


def test_a_stage_logs_its_end_only_after_logging_its_progress(monkeypatch):
    lines: list[str] = []
    quick = progress.StageProgress("extract (chunks)", 3, lines.append)
    for _ in range(3):
        quick()
    assert lines == []  # done within LOG_EVERY_S: its counts are in the asset's metadata
    monkeypatch.setattr(progress, "LOG_EVERY_S", 0.0)
    slow = progress.StageProgress("extract (chunks)", 2, lines.append)
    slow()
    monkeypatch.setattr(progress, "LOG_EVERY_S", 3600.0)
    slow()
    assert lines == ["extract (chunks): 1/2", "extract (chunks): 2/2"]
