"""The whole ingestion job on a temporary Dagster instance, with the offline provider."""

import lancedb
from dagster import AssetKey

from kg_pipelines.audits import chunks_without_extraction, dangling_edges
from kg_pipelines.dagster_shell.resources import KGResource
from kg_pipelines.stores import warehouse
from kg_pipelines.stores.source_registry import SourceRegistry

LONGEVITY = """# Metformin and AMPK
Metformin activates AMPK in liver cells. AMPK is a kinase that senses cellular energy.
Metformin lowers blood glucose in people with type 2 diabetes.
"""
MICROBIOME = """# Metformin and the gut
Metformin increases the abundance of Akkermansia muciniphila in mice fed a high-fat diet.
Akkermansia muciniphila degrades mucin in the intestinal epithelium.
"""
RAPAMYCIN = """# Rapamycin
Rapamycin inhibits mTORC1. Rapamycin extends lifespan in mice.
"""


def test_two_collections_become_one_graph(graph):
    graph.write("longevity/metformin.md", LONGEVITY)
    graph.write("longevity/rapamycin.md", RAPAMYCIN)
    graph.write("microbiome/gut.md", MICROBIOME)
    assert graph.ingest("longevity").failed_runs == 0
    assert graph.ingest("microbiome").failed_runs == 0

    assert graph.rows(
        "SELECT document_id, collection, title, status FROM documents JOIN document_status "
        "USING (document_id, collection) ORDER BY 1"
    ) == [
        ("longevity/metformin.md", "longevity", "Metformin and AMPK", "Done"),
        ("longevity/rapamycin.md", "longevity", "Rapamycin", "Done"),
        ("microbiome/gut.md", "microbiome", "Metformin and the gut", "Done"),
    ]
    types = dict(graph.rows("SELECT name, entity_type FROM entities"))
    assert types["Metformin"] == "compound" and types["AMPK"] in ("gene", "protein")
    assert types["Akkermansia Muciniphila"] == "microbe"
    rel = graph.rows(
        "SELECT description, tags FROM relationships WHERE source_name = 'Metformin' AND target_name = 'AMPK'"
    )
    assert rel and rel[0][0] == "Metformin activates AMPK in liver cells." and "activates" in rel[0][1]
    for (n,) in graph.rows("SELECT count(*) FROM atomic_questions GROUP BY chunk_id"):
        assert 5 <= n <= 10

    # one Metformin node supported by both collections
    node_id, support, energy = graph.rows(
        "SELECT node_id, support_count, energy FROM kg_nodes WHERE node_kind = 'entity' AND name = 'Metformin'"
    )[0]
    assert node_id == "compound:metformin" and support == 2
    assert '"longevity"' in energy and '"microbiome"' in energy
    n_questions = graph.one("SELECT count(*) FROM atomic_questions")
    assert graph.one("SELECT count(*) FROM kg_edges WHERE edge_type = 'ANSWERS_IN'") == n_questions
    assert graph.one("SELECT count(*) FROM kg_edges WHERE edge_type = 'MENTIONS'") == graph.one(
        "SELECT count(*) FROM entities"
    )

    conn = warehouse.connect(graph.settings.warehouse_path)
    fingerprint = KGResource(data_dir=str(graph.root)).llm_client().fingerprint("extract")
    assert dangling_edges(conn).passed and chunks_without_extraction(conn, None, fingerprint).passed
    conn.close()
    db = lancedb.connect(str(graph.settings.lancedb_dir))
    assert sorted(db.list_tables().tables) == [
        "chunks__longevity",
        "chunks__microbiome",
        "graph_nodes",
        "questions__longevity",
        "questions__microbiome",
    ]
    assert db.open_table("graph_nodes").count_rows() == graph.one(
        "SELECT count(*) FROM kg_nodes WHERE node_kind NOT IN ('chunk', 'question')"
    )
    assert db.open_table("questions__longevity").count_rows() == graph.one(
        "SELECT count(*) FROM atomic_questions WHERE collection = 'longevity'"
    )

    # what the Dagster UI shows for the tables
    event = graph.instance.get_latest_materialization_event(AssetKey("entities"))
    meta = event.asset_materialization.metadata
    assert meta["dagster/row_count"].value == graph.one("SELECT count(*) FROM entities")
    assert "llm_schema_failures" in meta and "preview" in meta and "dagster/column_schema" in meta


def test_reingesting_an_edited_document_replaces_its_rows_and_keeps_graph_state(graph):
    path = graph.write("longevity/metformin.md", LONGEVITY)
    graph.write("longevity/rapamycin.md", RAPAMYCIN + "Rapamycin and metformin were combined in mice.\n")
    graph.ingest("longevity")
    edge = "RELATED:compound:metformin->protein:ampk"
    conn = warehouse.connect(graph.settings.warehouse_path)
    conn.execute("UPDATE kg_edges SET activation_count = 4 WHERE edge_id = ?", [edge])
    conn.close()

    path.write_text(LONGEVITY.replace("type 2 diabetes", "prediabetes"))
    graph.ingest("longevity", paths=[path])
    texts = " ".join(t for (t,) in graph.rows("SELECT text FROM chunks WHERE document_id = 'longevity/metformin.md'"))
    assert "prediabetes" in texts and "type 2 diabetes" not in texts
    assert graph.one("SELECT count(*) FROM entities WHERE name = 'Type 2 Diabetes'") == 0
    assert graph.one("SELECT activation_count FROM kg_edges WHERE edge_id = ?", [edge]) == 4
    assert graph.one("SELECT count(*) FROM kg_nodes WHERE node_id = 'disease:type 2 diabetes'") == 0
    assert graph.one("SELECT count(*) FROM documents") == 2


def test_bad_input_fails_clearly_and_the_rest_of_the_run_goes_on(graph):
    from pypdf import PdfWriter

    graph.write("inbox/good.md", LONGEVITY)
    graph.write("inbox/empty.txt", "")
    graph.write("inbox/photo.txt", b"\x89PNG\r\n\x1a\n\x00\x00" * 50)
    graph.write("inbox/latin1.txt", "Caf\u00e9".encode("latin-1"))
    big = graph.write("inbox/huge.txt", b"")
    with big.open("wb") as handle:
        handle.truncate(20 * 1_000_000)
    writer = PdfWriter()
    writer.add_blank_page(width=100, height=100)
    with (big.parent / "scan.pdf").open("wb") as handle:
        writer.write(handle)
    vanishing = graph.write("inbox/vanishing.md", "# Soon gone\nSpermidine induces autophagy.")

    from kg_pipelines.dagster_shell.runner import ingest_sources
    from kg_pipelines.ingestion.inbox import scan_directory

    sources = [f.to_source() for f in scan_directory(big.parent, "inbox")]
    vanishing.unlink()  # deleted between the sensor's tick and the run
    outcome = ingest_sources(graph.settings, sources, graph.instance)
    assert outcome.failed_runs == 0

    status = {d: (s, e) for d, s, e in graph.rows("SELECT document_id, status, error FROM document_status")}
    assert status["inbox/good.md"] == ("Done", None)
    # a file gone between the sensor's tick and the run is a removal: no row, and no longer registered
    assert "inbox/vanishing.md" not in status
    assert [
        s.document_id
        for s in SourceRegistry(graph.settings.source_registry_path).all()
        if s.document_id.endswith("vanishing.md")
    ] == []
    expected = {
        "empty.txt": "empty",
        "photo.txt": "binary",
        "latin1.txt": "UTF-8",
        "huge.txt": "20.0 MB",
        "scan.pdf": "no text layer",
    }
    for name, words in expected.items():
        state, error = status[f"inbox/{name}"]
        assert state == "Failed" and words in error, (name, error)
    assert graph.one("SELECT count(*) FROM chunks WHERE document_id <> 'inbox/good.md'") == 0


def test_a_bad_new_version_keeps_the_good_one(graph):
    path = graph.write("c/doc.md", LONGEVITY)
    graph.ingest("c")
    before = graph.rows("SELECT chunk_id, text FROM chunks")
    nodes = graph.one("SELECT count(*) FROM kg_nodes")
    path.write_bytes(b"\xff\xfe broken")
    graph.ingest("c")
    status, error = graph.rows("SELECT status, error FROM document_status")[0]
    assert status == "Done" and "not valid UTF-8" in error
    assert graph.rows("SELECT chunk_id, text FROM chunks") == before
    assert graph.one("SELECT count(*) FROM kg_nodes") == nodes
