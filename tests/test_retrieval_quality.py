"""retrieval_quality: labelled files, recall figures, accepted baselines, and the asset's check that
warns when recall falls below the last accepted figure (and stops warning once it is accepted)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from dagster import AssetCheckSeverity, materialize

from kg_pipelines.dagster_shell.resources import KGResource
from kg_pipelines.dagster_shell.retrieval_assets import retrieval_quality
from kg_pipelines.retrieval.retrieval_quality import (
    CollectionQuality,
    judge,
    labelled_files,
    load_labelled,
)

SAMPLE_EVAL = Path(__file__).resolve().parents[1] / "data" / "eval"

DOCS = {
    "tarn_bridge.md": "# Tarn Bridge\n\nThe Tarn Bridge is a stone bridge over the river Olsk. Masons from Vellin "
    "built the Tarn Bridge between 1610 and 1618, and its seven arches still carry a road.\n",
    "vellin.md": "# Vellin\n\nVellin is a hill town known for its quarries of pale limestone. The guild of Vellin "
    "trained masons who worked on churches and bridges across the valley.\n",
    "olsk_river.md": "# River Olsk\n\nThe river Olsk rises in the Korma hills and flows north for 140 kilometres. "
    "Trout and grayling live in its upper reaches.\n",
}
LABELS = [
    {"question": "Who built the Tarn Bridge?", "gold_titles": ["Tarn Bridge", "Vellin"]},
    {"question": "Which fish live in the upper river Olsk?", "gold_titles": ["River Olsk"]},
    {"question": "What stone is quarried around the hill town of Vellin?", "gold_titles": ["Vellin"]},
]


def test_labelled_files_are_validated_line_by_line(tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_text('# a comment\n\n{"question": " Q? ", "gold_titles": ["A", "A", "B"]}\n', encoding="utf-8")
    [only] = load_labelled(path)
    assert only.question == "Q?" and only.gold_titles == ("A", "B")
    for bad, message in [
        ("not json", "c.jsonl:1: not JSON"),
        ('{"question": "", "gold_titles": ["A"]}', 'non-empty "question"'),
        ('{"question": "Q", "gold_titles": []}', '"gold_titles"'),
        ('{"question": "Q", "gold_titles": "A"}', '"gold_titles"'),
        ('["Q", ["A"]]', 'non-empty "question"'),
    ]:
        path.write_text(bad + "\n", encoding="utf-8")
        with pytest.raises(ValueError, match=message):
            load_labelled(path)


def test_the_sample_labelled_files_are_valid_and_name_real_documents():
    from kg_pipelines.ingestion.documents import read_document

    inbox = SAMPLE_EVAL.parent / "inbox"
    for path in sorted(SAMPLE_EVAL.glob("*.jsonl")):
        titles = {read_document(f, 10_000_000).title for f in (inbox / path.stem).iterdir()}
        questions = load_labelled(path)
        assert len(questions) >= 5
        for q in questions:
            assert set(q.gold_titles) <= titles, (path.name, q.question)


def test_a_drop_beyond_the_tolerance_is_not_accepted_unless_told():
    def quality(recall5):
        return CollectionQuality("c", "graph_first", "h", 10, {2: 0.5, 5: recall5}, {2: 0.4, 5: 0.5})

    first = quality(0.8)
    judge(first, None, 0.02, accept=False)
    assert first.accepted and first.drops == {}
    steady = quality(0.79)  # within the tolerance
    judge(steady, {2: 0.5, 5: 0.8}, 0.02, accept=False)
    assert steady.accepted
    dropped = quality(0.7)
    judge(dropped, {2: 0.5, 5: 0.8}, 0.02, accept=False)
    assert not dropped.accepted and dropped.drops == {5: pytest.approx(0.1)}
    forced = quality(0.7)
    judge(forced, {2: 0.5, 5: 0.8}, 0.02, accept=True)
    assert forced.accepted and forced.drops


def run_quality(graph, accept: bool = False):
    result = materialize(
        [retrieval_quality],
        instance=graph.instance,
        resources={"kg": KGResource(data_dir=str(graph.root))},
        run_config={"ops": {"retrieval_quality": {"config": {"accept": accept}}}},
    )
    assert result.success
    [check] = result.get_asset_check_evaluations()
    return check


def test_retrieval_quality_asset_warns_when_recall_falls_below_the_accepted_figure(graph):
    for name, text in DOCS.items():
        graph.write(f"towns/{name}", text)
    assert graph.ingest("towns").failed_runs == 0
    # no labelled file: nothing measured, nothing to warn about
    check = run_quality(graph)
    assert check.passed and "no labelled collection" in check.description
    assert graph.one("SELECT count(*) FROM retrieval_quality") == 0

    eval_dir = graph.settings.data_dir / "eval"
    eval_dir.mkdir()
    (eval_dir / "towns.jsonl").write_text("\n".join(json.dumps(x) for x in LABELS) + "\n", encoding="utf-8")
    (eval_dir / "not a collection.jsonl").write_text("ignored\n", encoding="utf-8")
    assert list(labelled_files(graph.settings)) == ["towns"]
    check = run_quality(graph)
    assert check.passed and check.severity == AssetCheckSeverity.WARN
    rows = graph.rows(
        "SELECT k, questions, recall, all_gold, accepted, accepted_recall FROM retrieval_quality ORDER BY k"
    )
    assert [r[0] for r in rows] == [2, 5, 8] and all(r[1] == 3 for r in rows)
    assert rows[-1][2] == pytest.approx(1.0) and rows[-1][3] == pytest.approx(1.0)  # 3 documents: all found
    assert all(r[4] for r in rows) and all(r[5] is None for r in rows)  # the first measurement is the baseline

    # the gold document Vellin goes: recall falls, the check warns, the baseline stays
    from kg_pipelines.dagster_shell.runner import ingest_sources

    assert ingest_sources(graph.settings, [], graph.instance, removed=["towns/vellin.md"]).failed_runs == 0
    check = run_quality(graph)
    assert not check.passed and check.severity == AssetCheckSeverity.WARN
    assert "towns" in check.description
    drops = check.metadata["drops"].value["towns"]
    assert drops["recall@8"] == pytest.approx(0.5)  # Tarn Bridge half found, Vellin not at all: 1 - 1/2
    latest = graph.rows(
        "SELECT recall, accepted, accepted_recall FROM retrieval_quality WHERE k = 8 ORDER BY measured_at DESC LIMIT 1"
    )[0]
    assert latest[0] == pytest.approx(0.5) and latest[1] is False and latest[2] == pytest.approx(1.0)
    assert not run_quality(graph).passed  # still below the accepted 1.0

    # accepted on purpose: it becomes the baseline, and the next run stops warning
    assert run_quality(graph, accept=True).passed
    assert run_quality(graph).passed
