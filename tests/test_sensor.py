"""The inbox sensor, evaluated tick by tick against a real (temporary) Dagster instance, plus the
pure planning helpers it is built on (``plan_inbox_changes``, ``contiguous_ranges``).

Every file here is written by the test itself, with modification times set by ``os.utime`` so the
watermark arithmetic is deterministic. Between ticks, the test applies the tick's dynamic
partition requests to the instance, as the sensor daemon would.
"""

from __future__ import annotations

import hashlib
import json
import os
import uuid
from pathlib import Path

import pytest
import yaml
from dagster import (
    AddDynamicPartitionsRequest,
    DagsterRun,
    DagsterRunStatus,
    DeleteDynamicPartitionsRequest,
    build_sensor_context,
    instance_for_test,
    validate_run_config,
)
from dagster._core.remote_origin import GrpcServerCodeLocationOrigin, RemoteJobOrigin, RemoteRepositoryOrigin

from kg_pipelines.dagster_shell.jobs import INGESTION_TAG, ingest_documents_job, remove_documents_job
from kg_pipelines.dagster_shell.resources import KGResource
from kg_pipelines.dagster_shell.sensors import inbox_sensor
from kg_pipelines.ingestion.documents import file_content_hash
from kg_pipelines.ingestion.inbox import InboxFile, contiguous_ranges, plan_inbox_changes, scan_inbox
from kg_pipelines.stores.source_registry import Source, SourceRegistry

T0 = 1_700_000_000.0  # a fixed mtime origin: file i gets T0 + i seconds
RANGE_START = "dagster/asset_partition_range_start"
RANGE_END = "dagster/asset_partition_range_end"


# --------------------------------------------------------------------------------------------
# harness
# --------------------------------------------------------------------------------------------


class Inbox:
    """A data dir with an inbox, a kg.yaml and a Dagster instance; ticks the sensor."""

    def __init__(self, root: Path, instance):
        self.root = root
        self.inbox = root / "inbox"
        self.inbox.mkdir(parents=True)
        self.instance = instance
        self.cursor: str | None = None
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

    def tick(self, cursor: str | None = ..., apply: bool = True):
        """Evaluate the sensor once (with the last returned cursor unless given); keep its cursor
        and, like the daemon, apply its dynamic partition requests to the instance."""
        context = build_sensor_context(
            instance=self.instance,
            cursor=self.cursor if cursor is ... else cursor,
            resources={"kg": KGResource(data_dir=str(self.root))},
        )
        data = inbox_sensor.evaluate_tick(context)
        if data.cursor is not None:
            self.cursor = data.cursor
        if apply:
            for request in data.dynamic_partitions_requests or []:
                if isinstance(request, AddDynamicPartitionsRequest):
                    self.instance.add_dynamic_partitions(request.partitions_def_name, list(request.partition_keys))
                elif isinstance(request, DeleteDynamicPartitionsRequest):
                    for key in request.partition_keys:
                        self.instance.delete_dynamic_partition(request.partitions_def_name, key)
        return data

    def partitions(self) -> list[str]:
        return list(self.instance.get_dynamic_partitions("documents"))

    def registered(self) -> dict[str, Source]:
        return {s.document_id: s for s in SourceRegistry(self.root / "sources.sqlite").all()}

    def add_run(self, status: DagsterRunStatus) -> str:
        run_id = str(uuid.uuid4())
        # a queued run must say where its job lives (the run coordinator dequeues it from there)
        origin = RemoteJobOrigin(
            RemoteRepositoryOrigin(
                GrpcServerCodeLocationOrigin(host="localhost", port=4000, location_name="kg_pipelines"), "__repository__"
            ),
            ingest_documents_job.name,
        )
        self.instance.add_run(
            DagsterRun(job_name=ingest_documents_job.name, run_id=run_id, status=status, remote_job_origin=origin)
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


def ingest_runs(data) -> list:
    return [r for r in data.run_requests if r.job_name == ingest_documents_job.name]


def remove_runs(data) -> list:
    return [r for r in data.run_requests if r.job_name == remove_documents_job.name]


def adds(data) -> list[str]:
    return [k for r in data.dynamic_partitions_requests if isinstance(r, AddDynamicPartitionsRequest) for k in r.partition_keys]


def deletes(data) -> list[str]:
    return [k for r in data.dynamic_partitions_requests if isinstance(r, DeleteDynamicPartitionsRequest) for k in r.partition_keys]


def ranges(data) -> list[tuple[str, str]]:
    return [(r.tags[RANGE_START], r.tags[RANGE_END]) for r in ingest_runs(data)]


# --------------------------------------------------------------------------------------------
# the sensor
# --------------------------------------------------------------------------------------------


def test_new_files_become_partitions_and_one_range_run(box):
    a = box.write("notes/a.txt", "alpha", T0 + 1)
    box.write("notes/b.md", "# beta", T0 + 2)
    c = box.write("notes/deep/c.txt", "gamma", T0 + 3)
    box.write("papers/d.txt", "delta", T0 + 4)

    data = box.tick()

    keys = ["notes/a.txt", "notes/b.md", "notes/deep/c.txt", "papers/d.txt"]
    assert adds(data) == keys  # oldest first: the order of the partitions
    assert [r.partitions_def_name for r in data.dynamic_partitions_requests] == ["documents"]
    assert deletes(data) == []
    assert len(data.run_requests) == 1, "one run for the whole range, not a run per file"
    run = data.run_requests[0]
    assert run.job_name == "ingest_documents"
    assert (run.tags[RANGE_START], run.tags[RANGE_END]) == ("notes/a.txt", "papers/d.txt")
    assert run.tags[INGESTION_TAG] == "true"
    assert run.run_key and run.run_key.startswith("ingest:")
    assert data.skip_message is None

    # the cursor is a small watermark: (mtime, path) of the newest file handed to a run
    mark = json.loads(data.cursor)["mark"]
    assert mark == [T0 + 4, str((box.inbox / "papers/d.txt").resolve())]
    assert len(data.cursor) < 300
    assert "notes/a.txt" not in data.cursor

    # the sources are registered for the documents asset, with their content hashes
    registered = box.registered()
    assert sorted(registered) == keys
    assert registered["notes/a.txt"].content_hash == file_content_hash(a)
    assert registered["notes/deep/c.txt"].collection == "notes"
    assert Path(registered["notes/deep/c.txt"].path) == c.resolve()
    assert box.partitions() == keys


def test_second_tick_with_nothing_new_skips(box):
    box.write("notes/a.txt", "alpha", T0 + 1)
    first = box.tick()
    assert len(first.run_requests) == 1

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
    assert adds(first) == ["notes/a.txt", "notes/b.txt"]
    assert ranges(first) == [("notes/a.txt", "notes/b.txt")]
    assert json.loads(first.cursor)["mark"][0] == T0 + 2
    assert sorted(box.registered()) == ["notes/a.txt", "notes/b.txt"]

    second = box.tick()
    assert adds(second) == ["notes/c.txt"]
    assert ranges(second) == [("notes/c.txt", "notes/c.txt")]
    assert json.loads(second.cursor)["mark"][0] == T0 + 3
    assert second.run_requests[0].run_key != first.run_requests[0].run_key

    third = box.tick()
    assert third.run_requests == [] and third.dynamic_partitions_requests == []
    assert box.partitions() == ["notes/a.txt", "notes/b.txt", "notes/c.txt"]


def test_edited_file_is_ingested_again_and_a_touched_one_is_not(box):
    box.write("notes/a.txt", "first version", T0 + 1)
    box.write("notes/b.txt", "beta", T0 + 2)
    first = box.tick()
    assert ranges(first) == [("notes/a.txt", "notes/b.txt")]
    lone = box.write("notes/c.txt", "gamma", T0 + 3)
    second = box.tick()
    assert ranges(second) == [("notes/c.txt", "notes/c.txt")]

    box.write("notes/c.txt", "gamma, edited", T0 + 10)
    edited = box.tick()

    assert adds(edited) == [], "the partition already exists"
    assert ranges(edited) == [("notes/c.txt", "notes/c.txt")]
    assert edited.run_requests[0].run_key != second.run_requests[0].run_key
    assert box.registered()["notes/c.txt"].content_hash == file_content_hash(lone)

    # touched: newer mtime, same content -> nothing to do, but the watermark moves on
    os.utime(lone, (T0 + 20, T0 + 20))
    touched = box.tick()
    assert touched.run_requests == []
    assert touched.skip_message
    assert json.loads(touched.cursor)["mark"][0] == T0 + 20


def test_edits_in_the_middle_of_the_partitions_make_one_run_per_contiguous_range(box):
    for i, name in enumerate("abcde"):
        box.write(f"notes/{name}.txt", name, T0 + i)
    box.tick()
    assert box.partitions() == [f"notes/{n}.txt" for n in "abcde"]

    box.write("notes/b.txt", "b2", T0 + 10)
    box.write("notes/c.txt", "c2", T0 + 11)
    box.write("notes/e.txt", "e2", T0 + 12)
    data = box.tick()

    assert sorted(ranges(data)) == [("notes/b.txt", "notes/c.txt"), ("notes/e.txt", "notes/e.txt")]
    assert len({r.run_key for r in data.run_requests}) == 2


def test_deleted_file_is_removed_and_its_partition_deleted(box):
    box.write("notes/a.txt", "alpha", T0 + 1)
    gone = box.write("notes/b.txt", "beta", T0 + 2)
    box.tick()
    gone.unlink()

    data = box.tick()

    assert ingest_runs(data) == []
    (removal,) = remove_runs(data)
    assert removal.job_name == remove_documents_job.name
    assert removal.run_config == {"ops": {"remove_documents_op": {"config": {"document_ids": ["notes/b.txt"]}}}}
    assert removal.run_key and removal.run_key.startswith("remove:")
    assert deletes(data) == ["notes/b.txt"]
    assert adds(data) == []
    assert sorted(box.registered()) == ["notes/a.txt"]
    assert box.partitions() == ["notes/a.txt"]

    # the run config is valid for the job as deployed (with the kg resource bound)
    from kg_pipelines.definitions import defs

    assert validate_run_config(defs.get_job_def(remove_documents_job.name), removal.run_config)

    after = box.tick()
    assert after.run_requests == [] and after.dynamic_partitions_requests == []


def test_files_registered_from_outside_the_inbox_are_never_removed(box, tmp_path):
    elsewhere = tmp_path / "docs" / "x.txt"
    elsewhere.parent.mkdir()
    elsewhere.write_text("ingested by the CLI from another folder")
    SourceRegistry(box.root / "sources.sqlite").register(
        [Source("cli/x.txt", "cli", str(elsewhere.resolve()), file_content_hash(elsewhere), T0)]
    )
    box.instance.add_dynamic_partitions("documents", ["cli/x.txt"])

    data = box.tick()

    assert data.run_requests == [] and data.dynamic_partitions_requests == []
    assert "cli/x.txt" in box.registered()


def test_capacity_guard_skips_while_runs_wait_in_the_queue(box):
    box.configure(max_queued_runs=2)
    box.write("notes/a.txt", "alpha", T0 + 1)
    box.add_run(DagsterRunStatus.QUEUED)
    box.add_run(DagsterRunStatus.STARTED)  # running, not waiting: does not count

    below = box.tick()
    assert ranges(below) == [("notes/a.txt", "notes/a.txt")], "one waiting run is under the limit of 2"

    box.write("notes/b.txt", "beta", T0 + 2)
    box.add_run(DagsterRunStatus.QUEUED)
    cursor_before = box.cursor
    guarded = box.tick()

    assert guarded.run_requests == [] and guarded.dynamic_partitions_requests == []
    assert "capacity guard" in guarded.skip_message
    assert "2 runs" in guarded.skip_message
    assert guarded.cursor is None or guarded.cursor == cursor_before  # the watermark does not move
    assert "notes/b.txt" not in box.registered(), "a skipped tick registers nothing"


def test_unsupported_and_hidden_files_are_ignored(box):
    box.write("notes/a.txt", "alpha", T0 + 1)
    box.write("notes/report.docx", "not a supported type", T0 + 2)
    box.write("notes/.hidden.txt", "hidden file", T0 + 3)
    box.write("notes/.git/inside.md", "hidden folder", T0 + 4)
    box.write(".trash/old.txt", "hidden collection", T0 + 5)
    box.write("loose.txt", "not in a collection folder", T0 + 6)
    box.write("notes/image.png", "png", T0 + 7)

    data = box.tick()

    assert adds(data) == ["notes/a.txt"]
    assert ranges(data) == [("notes/a.txt", "notes/a.txt")]
    assert list(box.registered()) == ["notes/a.txt"]
    assert json.loads(data.cursor)["mark"][0] == T0 + 1
    assert box.tick().run_requests == []


def test_inbox_dir_can_come_from_the_environment(box, tmp_path, monkeypatch):
    other = tmp_path / "elsewhere"
    (other / "mail").mkdir(parents=True)
    (other / "mail" / "m.txt").write_text("from KG_INBOX_DIR")
    box.write("notes/a.txt", "in the default inbox", T0)
    monkeypatch.setenv("KG_INBOX_DIR", str(other))

    data = box.tick()

    assert adds(data) == ["mail/m.txt"]


# --------------------------------------------------------------------------------------------
# regressions: run keys that must not repeat, a job name, a tick whose result was lost
# --------------------------------------------------------------------------------------------


def test_remove_job_has_the_documented_name():
    assert remove_documents_job.name == "remove_documents"


def test_restored_file_gets_a_new_run_key(box):
    path = box.write("notes/a.txt", "alpha", T0 + 1)
    first = box.tick()
    path.unlink()
    removed = box.tick()
    assert deletes(removed) == ["notes/a.txt"]

    box.write("notes/a.txt", "alpha", T0 + 5)  # restored, same content
    restored = box.tick()

    assert ranges(restored) == [("notes/a.txt", "notes/a.txt")]
    assert restored.run_requests[0].run_key != first.run_requests[0].run_key


def test_reverted_edit_gets_a_new_run_key(box):
    box.write("notes/a.txt", "version one", T0 + 1)
    first = box.tick()
    box.write("notes/a.txt", "version two", T0 + 2)
    assert len(box.tick().run_requests) == 1

    box.write("notes/a.txt", "version one", T0 + 3)  # reverted
    reverted = box.tick()

    assert ranges(reverted) == [("notes/a.txt", "notes/a.txt")]
    assert reverted.run_requests[0].run_key != first.run_requests[0].run_key


# --------------------------------------------------------------------------------------------
# contiguous_ranges
# --------------------------------------------------------------------------------------------

ORDER = ["a", "b", "c", "d", "e"]


@pytest.mark.parametrize(
    "selected, expected",
    [
        (set(), []),
        ({"a", "b", "c", "d", "e"}, [("a", "e")]),
        ({"c"}, [("c", "c")]),
        ({"a"}, [("a", "a")]),
        ({"e"}, [("e", "e")]),
        ({"a", "b", "d"}, [("a", "b"), ("d", "d")]),
        ({"a", "c", "e"}, [("a", "a"), ("c", "c"), ("e", "e")]),
        ({"b", "c", "d"}, [("b", "d")]),
        ({"d", "e", "zz"}, [("d", "e")]),  # keys not in the order are not covered
    ],
)
def test_contiguous_ranges(selected, expected):
    assert contiguous_ranges(ORDER, selected) == expected


def test_contiguous_ranges_cover_exactly_the_selection():
    order = [f"k{i:02d}" for i in range(30)]
    selected = {k for i, k in enumerate(order) if i % 7 in (0, 1, 2, 5)}
    covered = set()
    found = contiguous_ranges(order, selected)
    for start, end in found:
        covered |= set(order[order.index(start) : order.index(end) + 1])
    assert covered == selected
    assert len(found) == 9  # runs 0-2, 5, 7-9, 12, 14-16, 19, 21-23, 26, 28-29
    assert contiguous_ranges([], {"a"}) == []


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
        source = Source(source.document_id, source.collection, source.path, hashlib.sha256(text.encode()).hexdigest(), source.mtime)
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
    changes = plan_inbox_changes([here], [known(here), gone_source, outside, sibling], (T0, str(here.path)), 10, inbox_dir)
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


def test_second_removal_of_a_restored_file_gets_a_new_run_key(box):
    kept = box.write("notes/a.txt", "alpha", T0 + 1)
    box.write("notes/b.txt", "beta", T0 + 2)
    box.tick()
    moved = box.inbox.parent / "b.txt.moved"
    (box.inbox / "notes/b.txt").rename(moved)
    first_removal = box.tick()
    assert remove_runs(first_removal)

    moved.rename(box.inbox / "notes/b.txt")  # back, with its old mtime
    restored = box.tick()
    assert ranges(restored) == [("notes/b.txt", "notes/b.txt")]
    (box.inbox / "notes/b.txt").rename(moved)
    second_removal = box.tick()

    assert kept.exists()
    assert remove_runs(second_removal)[0].run_config == remove_runs(first_removal)[0].run_config
    assert remove_runs(second_removal)[0].run_key != remove_runs(first_removal)[0].run_key


def test_a_tick_whose_result_was_lost_is_requested_again(box):
    box.write("notes/a.txt", "alpha", T0 + 1)
    lost = box.tick(apply=False)  # the daemon failed before submitting runs or saving the cursor
    assert ranges(lost) == [("notes/a.txt", "notes/a.txt")]
    box.cursor = None

    retried = box.tick()

    assert ranges(retried) == [("notes/a.txt", "notes/a.txt")]
