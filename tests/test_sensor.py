"""The inbox and retry sensors, evaluated tick by tick against a real (temporary) Dagster instance
and the deployed ``Definitions``, plus the pure planning helpers the inbox sensor is built on
(``plan_inbox_changes``, ``scan_inbox``).

Every file here is written by the test itself, with modification times set by ``os.utime`` so the
watermark arithmetic is deterministic. A tick is evaluated as the daemon does it: with the
repository (so each RunRequest's partition key is checked against the instance's partitions plus
the tick's own partition requests, and resolved into its tags), with a log key (so the tick's log
can be read back as the UI shows it), and, between ticks, with the tick's dynamic partition
requests applied to the instance.
"""

from __future__ import annotations

import hashlib
import json
import os
import uuid
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml
from dagster import (
    AddDynamicPartitionsRequest,
    DagsterRun,
    DagsterRunStatus,
    DeleteDynamicPartitionsRequest,
    RunRequest,
    SensorEvaluationContext,
    instance_for_test,
    validate_run_config,
)
from dagster._core.definitions.instigation_logger import get_instigation_log_records
from dagster._core.remote_origin import GrpcServerCodeLocationOrigin, RemoteJobOrigin, RemoteRepositoryOrigin

from kg_pipelines.dagster_shell.jobs import sync_collection_job
from kg_pipelines.dagster_shell.partitions import collections_partitions
from kg_pipelines.dagster_shell.resources import KGResource
from kg_pipelines.dagster_shell.run_guard import INGESTION_TAG
from kg_pipelines.dagster_shell.sensors import inbox_sensor, retry_sensor
from kg_pipelines.definitions import defs
from kg_pipelines.ingestion.documents import file_content_hash
from kg_pipelines.ingestion.inbox import InboxFile, plan_inbox_changes, scan_inbox
from kg_pipelines.stores.source_registry import Source, SourceRegistry

T0 = 1_700_000_000.0  # a fixed mtime origin: file i gets T0 + i seconds
PARTITION_TAG = "dagster/partition"
# retry times far from any clock the tests run under: one long past, one far ahead
LONG_AGO = datetime(2000, 1, 1, tzinfo=UTC)
FAR_AHEAD = datetime(2999, 1, 1, tzinfo=UTC)


# --------------------------------------------------------------------------------------------
# harness
# --------------------------------------------------------------------------------------------


class Inbox:
    """A data dir with an inbox, a kg.yaml and a Dagster instance; ticks the sensors."""

    def __init__(self, root: Path, instance):
        self.root = root
        self.inbox = root / "inbox"
        self.inbox.mkdir(parents=True)
        self.instance = instance
        self.cursor: str | None = None
        self.evaluations = 0
        self.log: list[dict] = []  # the log records of the last tick
        self.configure()

    def configure(self, max_files_per_tick: int = 100, max_queued_runs: int = 5) -> None:
        settings = {"sensor": {"max_files_per_tick": max_files_per_tick, "max_queued_runs": max_queued_runs}}
        (self.root / "kg.yaml").write_text(yaml.safe_dump(settings))

    def write(self, relative: str, text: str, mtime: float) -> Path:
        path = self.inbox / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        os.utime(path, (mtime, mtime))
        return path

    def _evaluate(self, sensor_def, cursor: str | None, apply: bool):
        self.evaluations += 1
        log_key = ["kg_test", sensor_def.name, str(self.evaluations)]
        with SensorEvaluationContext(
            instance_ref=self.instance.get_ref(),
            instance=self.instance,
            cursor=cursor,
            log_key=log_key,
            repository_def=defs.get_repository_def(),
            sensor_name=sensor_def.name,
            resources={"kg": KGResource(data_dir=str(self.root))},
        ) as context:
            data = sensor_def.evaluate_tick(context)
        self.log = list(get_instigation_log_records(self.instance, log_key))
        requests = data.dynamic_partitions_requests or []
        assert not [r for r in requests if isinstance(r, DeleteDynamicPartitionsRequest)], (
            "partitions are never deleted"
        )
        if apply:  # like the daemon
            for request in requests:
                self.instance.add_dynamic_partitions(request.partitions_def_name, list(request.partition_keys))
        return data

    def tick(self, cursor: str | None = ..., apply: bool = True):
        """Evaluate the inbox sensor once (with the last returned cursor unless given) and keep its cursor."""
        data = self._evaluate(inbox_sensor, self.cursor if cursor is ... else cursor, apply)
        if data.cursor is not None:
            self.cursor = data.cursor
        return data

    def retry_tick(self):
        return self._evaluate(retry_sensor, None, apply=True)

    def warnings(self) -> list[str]:
        return [r["msg"] for r in self.log if r.get("levelname") == "WARNING"]

    def messages(self) -> list[str]:
        return [r["msg"] for r in self.log]

    def partitions(self) -> list[str]:
        return list(self.instance.get_dynamic_partitions(collections_partitions.name))

    def registry(self) -> SourceRegistry:
        return SourceRegistry(self.root / "sources.sqlite")

    def registered(self) -> dict[str, Source]:
        return {s.document_id: s for s in self.registry().all()}

    def add_run(self, status: DagsterRunStatus, collection: str | None = None) -> str:
        """A sync run in the instance (of ``collection``'s partition, if given) with ``status``."""
        run_id = str(uuid.uuid4())
        # a queued run must say where its job lives (the run coordinator dequeues it from there)
        origin = RemoteJobOrigin(
            RemoteRepositoryOrigin(
                GrpcServerCodeLocationOrigin(host="localhost", port=4000, location_name="kg_pipelines"),
                "__repository__",
            ),
            sync_collection_job.name,
        )
        tags = {INGESTION_TAG: "true", **({PARTITION_TAG: collection} if collection else {})}
        self.instance.add_run(
            DagsterRun(
                job_name=sync_collection_job.name, run_id=run_id, status=status, remote_job_origin=origin, tags=tags
            )
        )
        return run_id


@pytest.fixture
def box(tmp_path, monkeypatch):
    for name in ("KG_CONFIG", "KG_INBOX_DIR", "KG_LLM_PROVIDER"):
        monkeypatch.delenv(name, raising=False)
    root = tmp_path / "data"
    root.mkdir()
    # the resource below names the data dir explicitly; point the env elsewhere to prove it wins
    monkeypatch.setenv("KG_DATA_DIR", str(tmp_path / "not_this_one"))
    home = tmp_path / "dagster_home"
    home.mkdir()
    with instance_for_test(temp_dir=str(home)) as instance:
        yield Inbox(root, instance)


def runs(data) -> dict[str, RunRequest]:
    """The tick's run requests by collection; each one a sync_collection run of its own collection."""
    by_collection: dict[str, RunRequest] = {}
    for request in data.run_requests:
        assert request.job_name == sync_collection_job.name
        assert request.partition_key not in by_collection, f"two runs for {request.partition_key}"
        assert request.tags[PARTITION_TAG] == request.partition_key  # resolved against the job's partitions
        assert request.tags[INGESTION_TAG] == "true"  # under the run queue's one-at-a-time limit
        by_collection[request.partition_key] = request
    return by_collection


def key(data, collection: str) -> str:
    return runs(data)[collection].run_key


def adds(data) -> list[str]:
    return [
        k
        for r in data.dynamic_partitions_requests
        if isinstance(r, AddDynamicPartitionsRequest)
        for k in r.partition_keys
    ]


def assert_valid_for_the_job(request: RunRequest) -> None:
    """The run config is valid for the job as deployed (with the kg resource bound); raises if not."""
    validate_run_config(defs.resolve_job_def(sync_collection_job.name), request.run_config)


# --------------------------------------------------------------------------------------------
# the inbox sensor
# --------------------------------------------------------------------------------------------


def test_new_files_register_their_collections_and_request_one_run_per_collection(box):
    a = box.write("notes/a.txt", "alpha", T0 + 1)
    box.write("notes/b.md", "# beta", T0 + 2)
    c = box.write("notes/deep/c.txt", "gamma", T0 + 3)
    box.write("papers/d.txt", "delta", T0 + 4)

    data = box.tick()

    assert adds(data) == ["notes", "papers"], "one partition per collection, never one per document"
    assert [r.partitions_def_name for r in data.dynamic_partitions_requests] == ["collections"]
    by_collection = runs(data)
    assert sorted(by_collection) == ["notes", "papers"], "one run per collection, not a run per file"
    for collection, run in by_collection.items():
        assert run.run_key.startswith(f"sync:{collection}:")
        assert run.tags["kg/reason"] == "inbox"
        assert_valid_for_the_job(run)
    assert key(data, "notes") != key(data, "papers")
    assert data.skip_message is None

    # the cursor is a small watermark: (mtime, path) of the newest file handed to a run
    mark = json.loads(data.cursor)["mark"]
    assert mark == [T0 + 4, str((box.inbox / "papers/d.txt").resolve())]
    assert len(data.cursor) < 300
    assert "notes/a.txt" not in data.cursor

    # the sources are registered for the documents asset, with their content hashes
    registered = box.registered()
    assert sorted(registered) == ["notes/a.txt", "notes/b.md", "notes/deep/c.txt", "papers/d.txt"]
    assert registered["notes/a.txt"].content_hash == file_content_hash(a)
    assert registered["notes/deep/c.txt"].collection == "notes"
    assert registered["papers/d.txt"].collection == "papers"
    assert Path(registered["notes/deep/c.txt"].path) == c.resolve()
    assert box.partitions() == ["notes", "papers"]


def test_second_tick_with_nothing_new_skips(box):
    box.write("notes/a.txt", "alpha", T0 + 1)
    first = box.tick()
    assert sorted(runs(first)) == ["notes"]

    second = box.tick()

    assert second.run_requests == []
    assert second.dynamic_partitions_requests == []
    assert "no new" in second.skip_message
    assert json.loads(second.cursor)["mark"] == json.loads(first.cursor)["mark"]


def test_per_tick_cap_leaves_the_rest_for_the_next_tick(box):
    box.configure(max_files_per_tick=2, max_queued_runs=1)
    box.write("notes/a.txt", "alpha", T0 + 1)
    box.write("notes/b.txt", "beta", T0 + 2)
    box.write("notes/c.txt", "gamma", T0 + 3)

    first = box.tick()
    assert adds(first) == ["notes"]
    assert sorted(runs(first)) == ["notes"]
    assert json.loads(first.cursor)["mark"][0] == T0 + 2
    assert sorted(box.registered()) == ["notes/a.txt", "notes/b.txt"]
    assert any("1 more file(s) wait" in m for m in box.messages()), box.messages()

    second = box.tick()
    assert adds(second) == [], "the collection's partition exists already"
    assert sorted(runs(second)) == ["notes"]
    assert json.loads(second.cursor)["mark"][0] == T0 + 3
    assert sorted(box.registered()) == ["notes/a.txt", "notes/b.txt", "notes/c.txt"]
    assert key(second, "notes") != key(first, "notes"), "another change set, another run"

    third = box.tick()
    assert third.run_requests == [] and third.dynamic_partitions_requests == []
    assert box.partitions() == ["notes"]


def test_edited_file_is_synced_again_and_a_touched_one_is_not(box):
    box.write("notes/a.txt", "first version", T0 + 1)
    first = box.tick()
    c = box.write("notes/c.txt", "gamma", T0 + 3)
    second = box.tick()
    assert sorted(runs(second)) == ["notes"]
    assert key(second, "notes") != key(first, "notes")

    box.write("notes/c.txt", "gamma, edited", T0 + 10)
    edited = box.tick()

    assert adds(edited) == [], "the partition already exists"
    assert sorted(runs(edited)) == ["notes"]
    assert key(edited, "notes") not in {key(first, "notes"), key(second, "notes")}
    assert box.registered()["notes/c.txt"].content_hash == file_content_hash(c)  # the edited content

    # touched: newer mtime, same content -> nothing to do, but the watermark moves on
    os.utime(c, (T0 + 20, T0 + 20))
    touched = box.tick()
    assert touched.run_requests == []
    assert "no new" in touched.skip_message
    assert json.loads(touched.cursor)["mark"][0] == T0 + 20


def test_two_collections_changed_in_one_tick_give_two_runs(box):
    box.write("notes/a.txt", "a", T0 + 1)
    box.write("notes/b.txt", "b", T0 + 2)
    box.write("papers/p.txt", "p", T0 + 3)
    box.write("misc/m.txt", "m", T0 + 4)
    first = box.tick()
    assert sorted(runs(first)) == ["misc", "notes", "papers"]

    box.write("notes/b.txt", "b2", T0 + 10)
    box.write("papers/p.txt", "p2", T0 + 11)
    box.write("papers/q.txt", "q", T0 + 12)
    data = box.tick()

    assert sorted(runs(data)) == ["notes", "papers"], "misc did not change"
    assert adds(data) == []
    assert key(data, "notes") != key(data, "papers")
    assert key(data, "notes") != key(first, "notes")
    assert key(data, "papers") != key(first, "papers")


def test_deleted_file_is_a_sync_run_of_its_collection(box):
    box.write("notes/a.txt", "alpha", T0 + 1)
    gone = box.write("notes/b.txt", "beta", T0 + 2)
    box.write("papers/p.txt", "p", T0 + 3)
    first = box.tick()
    gone.unlink()

    data = box.tick()

    assert sorted(runs(data)) == ["notes"], "only the collection that lost a file"
    removal = runs(data)["notes"]
    assert removal.run_key.startswith("sync:notes:")
    assert removal.run_key != key(first, "notes")
    assert_valid_for_the_job(removal)
    assert data.dynamic_partitions_requests == [], "no partition is added or deleted"
    assert sorted(box.registered()) == ["notes/a.txt", "papers/p.txt"]
    assert box.partitions() == ["notes", "papers"]

    after = box.tick()
    assert after.run_requests == [] and after.dynamic_partitions_requests == []


def test_emptied_collection_is_synced_and_keeps_its_partition(box):
    box.write("notes/a.txt", "alpha", T0 + 1)
    only = box.write("papers/p.txt", "p", T0 + 2)
    box.tick()
    only.unlink()
    only.parent.rmdir()

    data = box.tick()

    assert sorted(runs(data)) == ["papers"]
    assert data.dynamic_partitions_requests == []
    assert box.partitions() == ["notes", "papers"]
    assert sorted(box.registered()) == ["notes/a.txt"]


def test_files_registered_from_outside_the_inbox_are_never_removed(box, tmp_path):
    elsewhere = tmp_path / "docs" / "x.txt"
    elsewhere.parent.mkdir()
    elsewhere.write_text("ingested by the CLI from another folder")
    SourceRegistry(box.root / "sources.sqlite").register(
        [Source("cli/x.txt", "cli", str(elsewhere.resolve()), file_content_hash(elsewhere), T0)]
    )
    box.instance.add_dynamic_partitions(collections_partitions.name, ["cli"])

    data = box.tick()

    assert data.run_requests == [] and data.dynamic_partitions_requests == []
    assert "cli/x.txt" in box.registered()


def test_capacity_guard_skips_while_runs_wait_in_the_queue(box):
    box.configure(max_queued_runs=2)
    box.write("notes/a.txt", "alpha", T0 + 1)
    box.add_run(DagsterRunStatus.QUEUED, "other")
    box.add_run(DagsterRunStatus.STARTED, "other")  # running, not waiting: does not count

    below = box.tick()
    assert sorted(runs(below)) == ["notes"], "one waiting run is under the limit of 2"

    box.write("notes/b.txt", "beta", T0 + 2)
    box.add_run(DagsterRunStatus.QUEUED, "other")
    cursor_before = box.cursor
    guarded = box.tick()

    assert guarded.run_requests == [] and guarded.dynamic_partitions_requests == []
    assert "capacity guard" in guarded.skip_message
    assert "2 runs" in guarded.skip_message
    assert guarded.cursor is None or guarded.cursor == cursor_before  # the watermark does not move
    assert "notes/b.txt" not in box.registered(), "a skipped tick registers nothing"

    box.configure(max_queued_runs=3)  # room again: the file waited, it was not lost
    freed = box.tick()
    assert sorted(runs(freed)) == ["notes"]
    assert "notes/b.txt" in box.registered()


def test_unsupported_and_hidden_files_are_ignored(box):
    box.write("notes/a.txt", "alpha", T0 + 1)
    box.write("notes/report.docx", "not a supported type", T0 + 2)
    box.write("notes/.hidden.txt", "hidden file", T0 + 3)
    box.write("notes/.git/inside.md", "hidden folder", T0 + 4)
    box.write(".trash/old.txt", "hidden collection", T0 + 5)
    box.write("loose.txt", "not in a collection folder", T0 + 6)
    box.write("notes/image.png", "png", T0 + 7)

    data = box.tick()

    assert adds(data) == ["notes"]
    assert sorted(runs(data)) == ["notes"]
    assert list(box.registered()) == ["notes/a.txt"]
    assert json.loads(data.cursor)["mark"][0] == T0 + 1
    assert box.warnings() == [], "hidden folders are not collections: skipped without a word"
    assert box.tick().run_requests == []


def test_inbox_dir_can_come_from_the_environment(box, tmp_path, monkeypatch):
    other = tmp_path / "elsewhere"
    (other / "mail").mkdir(parents=True)
    (other / "mail" / "m.txt").write_text("from KG_INBOX_DIR")
    box.write("notes/a.txt", "in the default inbox", T0)
    monkeypatch.setenv("KG_INBOX_DIR", str(other))

    data = box.tick()

    assert adds(data) == ["mail"]
    assert sorted(runs(data)) == ["mail"]
    assert list(box.registered()) == ["mail/m.txt"]


@pytest.mark.parametrize(
    "folder, reason",
    [("my-coll", "hyphen"), ("two words", "space"), ("_staging", "underscore"), ("x" * 65, "65 characters")],
)
def test_folder_with_an_invalid_collection_name_is_skipped_with_a_logged_reason(box, folder, reason):
    box.write(f"{folder}/x.txt", "in a badly named folder", T0 + 5)
    box.write("notes/a.txt", "alpha", T0 + 1)

    data = box.tick()

    assert sorted(runs(data)) == ["notes"], "the valid folder still syncs"
    assert adds(data) == ["notes"]
    assert list(box.registered()) == ["notes/a.txt"]
    assert json.loads(data.cursor)["mark"][0] == T0 + 1, "a skipped file does not move the watermark"
    (warning,) = box.warnings()
    assert folder in warning and "invalid collection name" in warning and reason in warning, warning

    # renamed to a valid name: its files are picked up, though older than the watermark
    (box.inbox / folder).rename(box.inbox / "renamed")
    renamed = box.tick()
    assert sorted(runs(renamed)) == ["renamed"]
    assert adds(renamed) == ["renamed"]
    assert sorted(box.registered()) == ["notes/a.txt", "renamed/x.txt"]
    assert box.warnings() == []


# --------------------------------------------------------------------------------------------
# run keys: a new change set never reuses a key, a re-evaluated tick repeats its own
# --------------------------------------------------------------------------------------------


def test_restored_file_gets_a_new_run_key(box):
    path = box.write("notes/a.txt", "alpha", T0 + 1)
    first = box.tick()
    path.unlink()
    removed = box.tick()
    assert sorted(runs(removed)) == ["notes"]

    box.write("notes/a.txt", "alpha", T0 + 5)  # restored, same content
    restored = box.tick()

    assert sorted(runs(restored)) == ["notes"]
    assert key(restored, "notes") not in {key(first, "notes"), key(removed, "notes")}
    assert "notes/a.txt" in box.registered()


def test_reverted_edit_gets_a_new_run_key(box):
    box.write("notes/a.txt", "version one", T0 + 1)
    first = box.tick()
    box.write("notes/a.txt", "version two", T0 + 2)
    second = box.tick()
    assert sorted(runs(second)) == ["notes"]

    box.write("notes/a.txt", "version one", T0 + 3)  # reverted
    reverted = box.tick()

    assert sorted(runs(reverted)) == ["notes"]
    assert key(reverted, "notes") not in {key(first, "notes"), key(second, "notes")}


def test_second_removal_of_a_restored_file_gets_a_new_run_key(box):
    box.write("notes/a.txt", "alpha", T0 + 1)
    box.write("notes/b.txt", "beta", T0 + 2)
    box.tick()
    moved = box.inbox.parent / "b.txt.moved"
    (box.inbox / "notes/b.txt").rename(moved)
    first_removal = box.tick()
    assert sorted(runs(first_removal)) == ["notes"]

    moved.rename(box.inbox / "notes/b.txt")  # back, with its old mtime
    restored = box.tick()
    assert sorted(runs(restored)) == ["notes"]
    assert "notes/b.txt" in box.registered()
    (box.inbox / "notes/b.txt").rename(moved)
    second_removal = box.tick()

    assert sorted(runs(second_removal)) == ["notes"]
    assert key(second_removal, "notes") not in {key(first_removal, "notes"), key(restored, "notes")}
    assert sorted(box.registered()) == ["notes/a.txt"]


def test_a_tick_whose_result_was_lost_is_requested_again_with_the_same_run_key(box):
    box.write("notes/a.txt", "alpha", T0 + 1)
    lost = box.tick(apply=False)  # the daemon failed before saving the cursor (runs maybe submitted)
    assert sorted(runs(lost)) == ["notes"]
    box.cursor = None

    retried = box.tick()

    assert sorted(runs(retried)) == ["notes"]
    assert adds(retried) == ["notes"]
    assert key(retried, "notes") == key(lost, "notes"), "the daemon drops a run it already launched"


def test_a_lost_removal_tick_is_requested_again_with_the_same_run_key(box):
    box.write("notes/a.txt", "alpha", T0 + 1)
    gone = box.write("notes/b.txt", "beta", T0 + 2)
    box.tick()
    saved = box.cursor
    gone.unlink()
    lost = box.tick()
    assert sorted(runs(lost)) == ["notes"]
    box.cursor = saved  # the daemon did not save the cursor of that tick

    retried = box.tick()

    assert sorted(runs(retried)) == ["notes"]
    assert key(retried, "notes") == key(lost, "notes")
    assert sorted(box.registered()) == ["notes/a.txt"]
    assert box.tick().run_requests == [], "once saved, the removal is not requested again"


# --------------------------------------------------------------------------------------------
# the retry sensor
# --------------------------------------------------------------------------------------------


def test_retry_sensor_requests_a_sync_of_each_collection_whose_retry_is_due(box):
    box.instance.add_dynamic_partitions(collections_partitions.name, ["notes", "papers", "misc", "clean"])
    registry = box.registry()
    registry.publish_retries("notes", LONG_AGO, 0)
    registry.publish_retries("misc", LONG_AGO, 3)
    registry.publish_retries("papers", FAR_AHEAD, 0)
    registry.publish_retries("clean", None, 0)  # no failed chunk at all

    data = box.retry_tick()

    assert sorted(runs(data)) == ["misc", "notes"]
    for run in runs(data).values():
        assert run.run_key is None, "a retry run that died must be launchable again"
        assert run.tags["kg/reason"] == "retry"
        assert_valid_for_the_job(run)
    assert data.dynamic_partitions_requests == []


def test_retry_sensor_skips_when_no_retry_is_due(box):
    box.instance.add_dynamic_partitions(collections_partitions.name, ["notes", "papers"])

    nothing = box.retry_tick()
    assert nothing.run_requests == []
    assert "no failed chunk" in nothing.skip_message

    box.registry().publish_retries("notes", FAR_AHEAD, 0)
    box.registry().publish_retries("papers", None, 2)
    later = box.retry_tick()
    assert later.run_requests == []
    assert "no failed chunk" in later.skip_message


@pytest.mark.parametrize(
    "status",
    [
        DagsterRunStatus.QUEUED,
        DagsterRunStatus.NOT_STARTED,
        DagsterRunStatus.STARTING,
        DagsterRunStatus.STARTED,
        DagsterRunStatus.CANCELING,
    ],
)
def test_retry_sensor_skips_a_collection_whose_sync_is_queued_or_going(box, status):
    box.instance.add_dynamic_partitions(collections_partitions.name, ["notes", "papers"])
    box.registry().publish_retries("notes", LONG_AGO, 0)
    box.registry().publish_retries("papers", LONG_AGO, 0)
    box.add_run(status, "notes")

    data = box.retry_tick()
    assert sorted(runs(data)) == ["papers"], "the other collection's retry still runs"

    box.add_run(status, "papers")
    busy = box.retry_tick()
    assert busy.run_requests == []
    assert "already queued or running" in busy.skip_message
    assert "notes" in busy.skip_message and "papers" in busy.skip_message


def test_retry_sensor_requests_again_once_the_last_sync_ended(box):
    box.instance.add_dynamic_partitions(collections_partitions.name, ["notes"])
    box.registry().publish_retries("notes", LONG_AGO, 0)
    first = box.retry_tick()
    assert sorted(runs(first)) == ["notes"]
    box.add_run(DagsterRunStatus.FAILURE, "notes")  # died before it could reschedule its chunks
    box.add_run(DagsterRunStatus.SUCCESS, "notes")

    again = box.retry_tick()

    assert sorted(runs(again)) == ["notes"]


def test_retry_sensor_brings_back_a_partition_missing_from_the_instance(box):
    # e.g. the partition was deleted in the UI, or a new Dagster home over an old data dir
    box.instance.add_dynamic_partitions(collections_partitions.name, ["papers"])
    box.registry().publish_retries("notes", LONG_AGO, 0)
    box.registry().publish_retries("papers", LONG_AGO, 0)

    data = box.retry_tick()

    assert sorted(runs(data)) == ["notes", "papers"]
    assert adds(data) == ["notes"]
    assert sorted(box.partitions()) == ["notes", "papers"]


# --------------------------------------------------------------------------------------------
# plan_inbox_changes
# --------------------------------------------------------------------------------------------


@pytest.fixture
def inbox_dir(tmp_path) -> Path:
    root = tmp_path / "inbox"
    (root / "c").mkdir(parents=True)
    return root


def make(inbox: Path, name: str, text: str, mtime: float) -> InboxFile:
    path = inbox / "c" / name
    path.write_text(text)
    os.utime(path, (mtime, mtime))
    return InboxFile("c", path.resolve(), name, mtime)


def known(f: InboxFile, text: str | None = None) -> Source:
    """The registry entry of ``f`` as ingested before (optionally with other content)."""
    source = f.to_source()
    if text is not None:
        source = Source(
            source.document_id, source.collection, source.path, hashlib.sha256(text.encode()).hexdigest(), source.mtime
        )
    return source


def ids(sources: list[Source]) -> list[str]:
    return [s.document_id for s in sources]


def test_plan_new_files_oldest_first_with_watermark(inbox_dir):
    b = make(inbox_dir, "b.txt", "b", T0 + 2)
    a = make(inbox_dir, "a.txt", "a", T0 + 1)
    changes = plan_inbox_changes([b, a], [], (0.0, ""), 10, inbox_dir)
    assert ids(changes.to_ingest) == ["c/a.txt", "c/b.txt"]
    assert changes.to_ingest[0].content_hash == file_content_hash(a.path)
    assert changes.watermark == (T0 + 2, str(b.path))
    assert changes.to_remove == []
    assert changes.more_waiting == 0


def test_plan_respects_the_cap_and_counts_what_waits(inbox_dir):
    files = [make(inbox_dir, f"{n}.txt", n, T0 + i) for i, n in enumerate("abcd")]
    changes = plan_inbox_changes(files, [], (0.0, ""), 1, inbox_dir)
    assert ids(changes.to_ingest) == ["c/a.txt"]
    assert changes.more_waiting == 3
    assert changes.watermark == (T0, str(files[0].path))

    nxt = plan_inbox_changes(files, [changes.to_ingest[0]], changes.watermark, 2, inbox_dir)
    assert ids(nxt.to_ingest) == ["c/b.txt", "c/c.txt"]
    assert nxt.more_waiting == 1


def test_plan_same_mtime_is_ordered_by_path(inbox_dir):
    y = make(inbox_dir, "y.txt", "y", T0)
    x = make(inbox_dir, "x.txt", "x", T0)
    first = plan_inbox_changes([y, x], [], (0.0, ""), 1, inbox_dir)
    assert ids(first.to_ingest) == ["c/x.txt"]
    assert first.watermark == (T0, str(x.path))
    second = plan_inbox_changes([y, x], first.to_ingest, first.watermark, 1, inbox_dir)
    assert ids(second.to_ingest) == ["c/y.txt"]


def test_plan_known_files_at_or_below_the_watermark_are_not_rehashed(inbox_dir):
    a = make(inbox_dir, "a.txt", "a", T0 + 1)
    stale = known(a, text="something else")  # even if the hash differs: not a candidate
    changes = plan_inbox_changes([a], [stale], (T0 + 1, str(a.path)), 10, inbox_dir)
    assert changes.to_ingest == []
    assert changes.watermark == (T0 + 1, str(a.path))


def test_plan_unknown_file_below_the_watermark_is_still_ingested(inbox_dir):
    old = make(inbox_dir, "copied.txt", "kept its old mtime", T0 - 1000)  # e.g. cp -p / mv
    changes = plan_inbox_changes([old], [], (T0, "/zzz"), 10, inbox_dir)
    assert ids(changes.to_ingest) == ["c/copied.txt"]
    assert changes.watermark == (T0, "/zzz"), "the watermark never goes back"


def test_plan_edited_versus_touched(inbox_dir):
    edited = make(inbox_dir, "edited.txt", "new text", T0 + 5)
    touched = make(inbox_dir, "touched.txt", "same text", T0 + 6)
    registered = [known(edited, text="old text"), known(touched)]
    changes = plan_inbox_changes([edited, touched], registered, (T0, ""), 10, inbox_dir)
    assert ids(changes.to_ingest) == ["c/edited.txt"]
    assert changes.watermark == (T0 + 6, str(touched.path))


def test_plan_removals_only_inside_the_inbox(inbox_dir, tmp_path):
    here = make(inbox_dir, "here.txt", "here", T0)
    gone = make(inbox_dir, "gone.txt", "gone", T0)
    gone_source = known(gone)
    gone.path.unlink()
    outside = Source("cli/out.txt", "cli", str(tmp_path / "docs" / "out.txt"), "h", T0)
    sibling = Source("c/sib.txt", "c", str(tmp_path / "inbox-old" / "c" / "sib.txt"), "h", T0)  # prefix, not inside
    changes = plan_inbox_changes(
        [here], [known(here), gone_source, outside, sibling], (T0, str(here.path)), 10, inbox_dir
    )
    assert changes.to_remove == ["c/gone.txt"]
    assert changes.to_ingest == []


def test_plan_file_deleted_between_listing_and_hashing_is_skipped(inbox_dir):
    a = make(inbox_dir, "a.txt", "a", T0 + 1)
    vanished = make(inbox_dir, "v.txt", "v", T0 + 2)
    vanished.path.unlink()
    changes = plan_inbox_changes([a, vanished], [], (0.0, ""), 10, inbox_dir)
    assert ids(changes.to_ingest) == ["c/a.txt"]
    assert changes.watermark == (T0 + 2, str(vanished.path))


def test_scan_inbox_feeds_the_plan(inbox_dir):
    make(inbox_dir, "a.md", "# a", T0)
    (inbox_dir / "c" / "skip.docx").write_text("x")
    (inbox_dir / "top.txt").write_text("not in a collection")
    files = scan_inbox(inbox_dir)
    assert [(f.collection, f.relative_path, f.mtime) for f in files] == [("c", "a.md", T0)]
    assert scan_inbox(inbox_dir / "missing") == []
