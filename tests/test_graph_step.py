"""The graph step of a run: each part timed in the run's metadata, and the per-document table of a
large run fetched for the documents it shows only."""

from dagster import AssetKey

from kg_pipelines.dagster_shell.graph_assets import _documents_done
from kg_pipelines.dagster_shell.metadata import activity_table
from kg_pipelines.graph.graph_step import PARTS
from kg_pipelines.stores import warehouse
from tests.fake_openai import fake_openai  # noqa: F401  (fixture)

DOCS = {
    "a.md": "# Metformin\nMetformin activates AMPK in liver cells.\n",
    "b.md": "# Rapamycin\nRapamycin inhibits mTORC1 in yeast.\n",
    "c.md": "# Spermidine\nSpermidine induces autophagy in flies.\n",
}


def test_the_graph_step_times_each_part_and_shows_the_first_documents_of_the_run(graph):
    for name, text in DOCS.items():
        graph.write(f"bio/{name}", text)
    assert graph.ingest("bio").failed_runs == 0
    meta = graph.instance.get_latest_materialization_event(AssetKey("kg_nodes")).asset_materialization.metadata
    seconds = meta["seconds_by_part"].value
    assert sorted(seconds) == sorted(PARTS) and all(v >= 0 for v in seconds.values())
    assert meta["node_vectors_reused"].value >= 0

    conn = warehouse.connect(graph.settings.warehouse_path)
    try:
        ids = [r[0] for r in conn.execute("SELECT document_id FROM documents ORDER BY 1").fetchall()]
        shown = _documents_done(conn, ids[1:], [ids[0]], cap=2)
    finally:
        conn.close()
    # the first two by id: the removed one, then the first synced one, with its counts
    assert sorted(shown) == ids[:2]
    assert shown[ids[0]]["status"] == "removed"
    assert shown[ids[1]]["entities"] > 0 and shown[ids[1]]["chunks"] == 1
    table = activity_table(shown, ["status", "chunks", "entities"], cap=2, total=3).value
    assert table.count("bio/") == 2 and "… and 1 more document(s)" in table
