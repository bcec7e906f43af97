"""Failed chunks recover without a person: the retry sensor launches the sync of a collection
whose failed chunks are due, rounds are spaced by growing delays, and after max_retry_rounds a
chunk is quarantined (a check warning) until `kg-pipelines retry` re-queues it."""

from datetime import timedelta

from click.testing import CliRunner
from dagster import SensorResult, build_sensor_context

from kg_pipelines.dagster_shell.resources import KGResource
from kg_pipelines.dagster_shell.sensors import retry_sensor
from tests.fake_openai import fake_openai  # noqa: F401  (fixture)

DOC = "# NAD+\nNicotinamide riboside raises NAD+ levels in muscle. NAD+ activates SIRT1 in the liver.\n"


def configure(graph, fake, **chunk_jobs):
    graph.configure(
        llm={"provider": "openai", "base_url": fake.base_url, "timeout_s": 5},
        chunk_jobs={"workers": 1, "max_chunk_retries": 1, "backoff_base_s": 0, "backoff_max_s": 0, **chunk_jobs},
    )


def daemon_tick(graph) -> int:
    """One evaluation of the retry sensor, and its runs executed as the daemon would: the run count."""
    from kg_pipelines.definitions import defs

    with build_sensor_context(instance=graph.instance, resources={"kg": KGResource()}) as context:
        result = retry_sensor(context)
    requests = result.run_requests if isinstance(result, SensorResult) else []
    job = defs.resolve_job_def("sync_collection")
    for request in requests:
        job.execute_in_process(
            instance=graph.instance, partition_key=request.partition_key, tags=request.tags, raise_on_error=False
        )
    return len(requests)


def statuses(graph) -> dict[str, int]:
    return dict(graph.rows("SELECT status, count(*) FROM chunk_state GROUP BY 1"))


def test_an_outage_ends_with_every_chunk_done_and_no_person_involved(graph, fake_openai):  # noqa: F811
    configure(graph, fake_openai, round_delay_s=0.01, round_delay_max_s=1.0, max_retry_rounds=10)
    fake_openai.fail_until()  # the endpoint is down
    graph.write("bio/nad.md", DOC)
    graph.ingest("bio")
    assert statuses(graph) == {"failed": 3}  # summarize, extract, questions of the one chunk
    assert graph.one("SELECT status FROM document_status") == "PartiallyFailed"

    assert daemon_tick(graph) == 1  # round 2, still down
    rounds, gap = graph.rows("SELECT rounds, next_run_at - updated_at FROM chunk_state WHERE stage = 'extract'")[0]
    assert rounds == 2 and gap == timedelta(seconds=0.02)  # the delay doubles per round
    assert statuses(graph) == {"failed": 3}

    fake_openai.recover()
    assert daemon_tick(graph) == 1
    assert statuses(graph) == {"done": 3}
    assert graph.one("SELECT status FROM document_status") == "Done"
    assert graph.one("SELECT count(*) FROM entities") > 0 and graph.one("SELECT count(*) FROM kg_edges") > 0
    assert daemon_tick(graph) == 0  # nothing is due any more


def test_a_chunk_that_never_succeeds_is_quarantined_then_requeued_by_the_cli(graph, fake_openai, monkeypatch):  # noqa: F811
    configure(graph, fake_openai, round_delay_s=0.01, max_retry_rounds=2)
    fake_openai.fail_until()
    graph.write("bio/nad.md", DOC)
    graph.ingest("bio")
    assert daemon_tick(graph) == 1
    assert statuses(graph) == {"quarantined": 3}
    assert daemon_tick(graph) == 0  # quarantined chunks are not retried on their own

    check = graph.instance.event_log_storage.get_latest_asset_check_execution_by_key(
        [__import__("dagster").AssetCheckKey(__import__("dagster").AssetKey("kg_nodes"), "no_quarantined_chunks")]
    )
    evaluation = list(check.values())[0].evaluation
    assert not evaluation.passed and evaluation.severity.value == "WARN"
    assert "nad.md#c0000" in str(evaluation.metadata["examples"].value)

    fake_openai.recover()
    from kg_pipelines.cli import main

    monkeypatch.setenv("DAGSTER_HOME", str(graph.instance.root_directory))
    result = CliRunner().invoke(main, ["--data-dir", str(graph.root), "retry"])
    assert result.exit_code == 0, result.output
    assert "re-queued 3 chunk stage(s) of bio" in result.output
    assert statuses(graph) == {"done": 3}
