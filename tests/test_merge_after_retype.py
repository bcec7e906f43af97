"""A merge survives the type-conflict rule (issue 21): when graph building re-keys a node (a name
typed ``concept`` in one document and ``compound`` in another becomes one ``compound`` node), the
merges that node took part in follow it, so ``unmerge`` still splits them, and the log of edge
activations follows the re-keyed edges."""

from datetime import timedelta

from kg_pipelines.audits import dangling_edges
from kg_pipelines.config import load_settings
from kg_pipelines.graph.edge_admin import missing_edge_reason
from kg_pipelines.graph.graph_building import update_graph
from kg_pipelines.graph.node_merging import merge_nodes, unmerge
from kg_pipelines.retrieval.activations import apply_activations, record_activations
from kg_pipelines.stores import warehouse
from tests.test_graph_building import T0, conn, edge, node, put_document  # noqa: F401

PEA, DUP = "concept:palmitoylethanolamide", "concept:palmitoyl ethanolamide"
NEW = "compound:palmitoylethanolamide"


def put_trial(conn):
    """A document naming the lipid (typed concept) and its receptor, linked."""
    put_document(
        conn,
        "trial",
        "c",
        [("Palmitoylethanolamide", "concept"), ("PPAR-alpha", "protein")],
        [("Palmitoylethanolamide", "PPAR-alpha")],
    )


def retype_by_review(conn):
    """A later document types the lipid a compound: graph building re-keys its node."""
    put_document(conn, "review", "c", [("Palmitoylethanolamide", "compound")], [])
    assert update_graph(conn, ["review"], T0 + timedelta(days=1)).nodes_retyped == 1


def merged_then_retyped(conn):
    put_trial(conn)
    put_document(
        conn,
        "pain",
        "c",
        [("Palmitoyl-ethanolamide", "concept"), ("TRPV1", "protein")],
        [("Palmitoyl-ethanolamide", "TRPV1")],
    )
    update_graph(conn, ["trial", "pain"], T0)
    with warehouse.transaction(conn):
        merge_id = merge_nodes(conn, PEA, DUP, T0 + timedelta(hours=1), score=0.97).merge_id
    conn.execute(
        """INSERT INTO edge_activations (activation_id, edge_id, used_by, used_at, applied_at, edge_found)
        VALUES (1, ?, 'search', ?, ?, true)""",
        [f"RELATED:{PEA}->protein:ppar alpha", T0, T0],
    )
    retype_by_review(conn)  # the merged node is re-keyed to compound
    assert node(conn, PEA) is None and node(conn, NEW) is not None
    return merge_id


def test_a_merge_follows_its_canonical_node_when_the_type_rule_rekeys_it(conn):
    merge_id = merged_then_retyped(conn)
    row = warehouse.fetch_dicts(conn, "SELECT * FROM node_merges WHERE merge_id = ?", [merge_id])[0]
    assert (row["canonical_id"], row["node_type"]) == (NEW, "compound")
    assert conn.execute("SELECT canonical_id FROM node_aliases WHERE alias_id = ?", [DUP]).fetchall() == [(NEW,)]
    # the activation log names the edge as it is now
    assert conn.execute("SELECT edge_id FROM edge_activations").fetchall() == [(f"RELATED:{NEW}->protein:ppar alpha",)]


def test_unmerge_after_a_rekey_splits_the_nodes_and_their_edges(conn):
    merge_id = merged_then_retyped(conn)
    with warehouse.transaction(conn):
        unmerge(conn, merge_id, T0 + timedelta(days=2))
    # the duplicate is back with its own edge; the re-keyed canonical keeps its id, type and edges
    assert node(conn, DUP)["node_type"] == "concept"
    restored = node(conn, NEW)
    assert (restored["node_type"], restored["topic_key"]) == ("compound", "type:compound")
    assert node(conn, PEA) is None
    assert edge(conn, f"RELATED:{DUP}->protein:trpv1") is not None
    assert edge(conn, f"RELATED:{NEW}->protein:trpv1") is None
    assert edge(conn, f"RELATED:{NEW}->protein:ppar alpha") is not None
    support = conn.execute(
        "SELECT node_id, document_id FROM kg_node_support WHERE node_id IN (?, ?) ORDER BY 1, 2", [DUP, NEW]
    ).fetchall()
    assert support == [(NEW, "review"), (NEW, "trial"), (DUP, "pain")]
    assert conn.execute("SELECT count(*) FROM node_aliases WHERE alias_id = ?", [DUP]).fetchone()[0] == 0
    assert dangling_edges(conn).passed


def test_a_use_queued_before_a_rekey_reinforces_the_edge_as_it_is_named_now(conn, tmp_path):
    """A search queued a use of an edge; before the queue is applied a document re-keys one of the
    edge's ends: the use reaches the re-keyed edge, not the 'missing' count."""
    settings = load_settings(tmp_path)
    put_trial(conn)
    update_graph(conn, ["trial"], T0)
    old_edge, new_edge = f"RELATED:{PEA}->protein:ppar alpha", f"RELATED:{NEW}->protein:ppar alpha"
    assert record_activations(settings, [old_edge], "search", T0) == 1
    retype_by_review(conn)
    report = apply_activations(conn, settings)
    assert (report.applied, report.missing_edges, report.edges_updated) == (1, 0, 1)
    assert edge(conn, new_edge)["activation_count"] == 1
    assert conn.execute("SELECT edge_id, edge_found FROM edge_activations").fetchall() == [(new_edge, True)]
    assert "is now" in missing_edge_reason(conn, old_edge)
