"""Graph consolidation (seed 002): prune weak edges, merge duplicate edges, summarize (topic
clusters and communities).

What decides lives in SQL (``dbt_like_sql/``: ``prune_candidates``, ``edge_merge_groups``,
``topic_clusters``, ``graph_adjacency``); this module runs it, one transaction per operation (a
crash leaves the graph as it was), and does what SQL cannot:

- **true bridges**: only prune candidates (weak after decay, inactive, not user-made, not
  protected, not a seed bridge) can go. The graph's components are contracted over every edge that
  stays (scipy ``connected_components`` on integer ids), so only candidate edges *between*
  contracted components matter. Of those, a maximum spanning forest (strongest candidates first) is
  kept: it holds every true bridge (a bridge is in every spanning forest) and also keeps a cycle
  made only of candidates from being removed as a whole, which would disconnect a component even
  though no single edge of it is a bridge. Everything else goes. So pruning never splits a
  component, and the seed's own rule (the only edge of either endpoint) is kept on top.
- **communities**: Louvain on the graph weighted by strength (``communities.py``: vectorised,
  seconds for millions of edges, where networkx's pure-Python Louvain takes minutes). Each
  community gets an extractive summary (its most connected nodes, their types, its strongest
  relation) or, with an LLM provider, a generated one.

Provenance: a pruned edge's whole row goes to ``edge_prune_log`` and its ``kg_edge_support`` rows
move to ``pruned_edge_support``, so ``restore_pruned_edges`` can put it back; an unchanged
document is never synced again, so the edge does not come back by itself; a changed or
re-processed document that still states the relation brings it back as a new edge (new evidence).
An edge that absorbs duplicates takes over their support rows, and ``edge_aliases`` maps the
absorbed ids to it: ingestion then gives new support for an absorbed id to the surviving edge
instead of re-creating the duplicate.
"""

from __future__ import annotations

import json
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import networkx as nx
import numpy as np
import pyarrow as pa
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components, minimum_spanning_tree

from kg_pipelines.graph import graph_sql
from kg_pipelines.graph.communities import louvain
from kg_pipelines.graph.graph_pictures import ConsolidationPicture, consolidation_picture
from kg_pipelines.stores.files import write_text_atomically
from kg_pipelines.stores.warehouse import column_types, fetch_dicts, transaction

OPERATIONS = ("prune", "merge-edges", "summarize")
# seed 002 section 8 (metrics): healthy figures per cycle
HEALTH_TARGETS = {
    "prune": ("pruned 5-15 % of edges per cycle", 5.0, 15.0),
    "merge-edges": ("merged < 5 % of edges per cycle", 0.0, 5.0),
    "summarize": ("3-10 topic clusters after a month of use", 3, 10),
}
BRIDGE_LABEL_MAX_PAIRS = (
    500_000  # above this many contracted candidate pairs, kept edges are not labelled bridge / cycle
)
MAX_SUMMARIES_BY_LLM = 50
ALGORITHM = "louvain"
PICTURED_ROWS = 100  # rows of each list of a report that the picture shows (the first, by id)


@dataclass
class PruneReport:
    run_id: str
    total: int
    pruned: int
    kept: int
    pruned_edge_ids: list[str]
    dry_run: bool
    candidates: int = 0
    kept_seed_bridge: int = 0
    kept_true_bridge: int = 0
    kept_connectivity: int = 0
    kept_structural: int = 0  # structural edges (MENTIONS, ...) that meet every other prune condition
    decay_half_life_days: float = 0.0
    pruned_edges: list[dict] = field(default_factory=list)  # the first rows, for the picture


@dataclass
class MergeReport:
    run_id: str
    total_before: int
    total_after: int
    edges_merged: int
    dry_run: bool
    # every surviving edge (id, type, ends, old and new strength, activation count, edge count,
    # absorbed ids) as a JSON array built by DuckDB: at 10M edges, 230k dicts made and dumped by
    # Python cost 1.7 s, the same array from DuckDB 0.3-0.85 s
    surviving_edges_json: str = "[]"
    surviving_preview: list[dict] = field(default_factory=list)  # the first rows, for the picture

    @property
    def surviving_edges(self) -> list[dict]:
        """Every surviving edge as a dict (parses ``surviving_edges_json``)."""
        return json.loads(self.surviving_edges_json)


@dataclass
class SummarizeReport:
    run_id: str
    total_edges: int
    clusters: list[dict]
    communities: list[dict]
    dry_run: bool
    algorithm: str = ALGORITHM


@dataclass
class ConsolidationResult:
    operation: str
    report: PruneReport | MergeReport | SummarizeReport
    health: dict
    picture_path: Path | None
    picture_summary: str
    report_text: str  # the report as JSON (what ``--json`` prints)


# -- entry point ------------------------------------------------------------------------------------


def run_consolidation(
    conn: duckdb.DuckDBPyConnection,
    settings,
    operation: str,
    now: datetime | None = None,
    dry_run: bool = False,
    decay_half_life_days: float | None = None,
    llm_client=None,
    data_dir: Path | None = None,
) -> ConsolidationResult:
    """Run one operation (``prune`` / ``merge-edges`` / ``summarize``) in one transaction, with its
    report row in ``consolidation_reports`` and a before/after picture under ``data_dir``.
    A dry run computes the same report and changes no graph table (its report row is recorded)."""
    if operation not in OPERATIONS:
        raise ValueError(f"unknown consolidation operation {operation!r}; one of {', '.join(OPERATIONS)}")
    options = settings.consolidation
    now = now or datetime.now(UTC)
    run_id = f"{now.strftime('%Y%m%dT%H%M%S')}-{operation}-{uuid.uuid4().hex[:8]}"
    with transaction(conn):
        graph_sql.create_views(conn)
        graph_sql.set_variables(conn, graph_sql.model_variables(options, now, decay_half_life_days))
        if operation == "prune":
            report = prune_weak_edges(conn, options, now, run_id, dry_run)
        elif operation == "merge-edges":
            report = merge_duplicate_edges(conn, now, run_id, dry_run)
        else:
            report = summarize_graph(conn, options, now, run_id, dry_run, llm_client)
        health = health_figures(operation, report)
        picture = _picture(conn, operation, report, now, dry_run)
        path, summary = consolidation_picture(picture, data_dir) if data_dir is not None else (None, "")
        text = report_text(operation, report, health)
        _record_report(conn, operation, report, health, options, now, path, decay_half_life_days, text)
    return ConsolidationResult(operation, report, health, path, summary, text)


def health_figures(operation: str, report) -> dict:
    """The seed's health target beside the actual figure."""
    target, low, high = HEALTH_TARGETS[operation]
    if operation == "summarize":
        actual = len(report.clusters)
        return {
            "target": target,
            "actual": f"{actual} topic clusters",
            "value": actual,
            "within": low <= actual <= high,
        }
    before = report.total if operation == "prune" else report.total_before
    affected = report.pruned if operation == "prune" else report.edges_merged
    pct = 100.0 * affected / before if before else 0.0
    within = (low <= pct <= high) if operation == "prune" else pct < high
    return {
        "target": target,
        "actual": f"{affected} of {before} edges ({pct:.1f} %)",
        "value": round(pct, 3),
        "within": within,
    }


# -- prune ----------------------------------------------------------------------------------------


def prune_weak_edges(conn, options, now: datetime, run_id: str, dry_run: bool) -> PruneReport:
    """Seed 002 section 2, with decay before the threshold and true-bridge protection (the
    caller holds the transaction and has set the model variables)."""
    run = conn.execute
    # what the rest reads of every edge (not its whole row: ten million rows are many columns)
    run(
        """CREATE OR REPLACE TEMP TABLE _prune_eval AS
        SELECT edge_id, source_node, target_node, decayed_strength, days_inactive, is_candidate, seed_bridge,
               is_candidate AND NOT seed_bridge AS removable,
               structural AND weak AND inactive AND NOT user_made AND NOT protected AS kept_structural
        FROM prune_candidates"""
    )
    total, candidates, seed_bridges, structural = run(
        """SELECT count(*), count(*) FILTER (is_candidate), count(*) FILTER (is_candidate AND seed_bridge),
                  count(*) FILTER (kept_structural)
        FROM _prune_eval"""
    ).fetchall()[0]
    reasons = (
        "'weak (' || round(p.decayed_strength, 4) || ' < threshold), inactive ' || round(p.days_inactive, 1)"
        " || ' d, not a bridge, not user-made, not protected'"
    )
    kept_true_bridge = kept_connectivity = 0
    if options.true_bridges and candidates - seed_bridges > 0:
        kept_rows, kept_true_bridge, kept_connectivity = _prune_keeping_connectivity(conn)
        conn.register("_kept_rows", pa.table({"row": pa.array(kept_rows, pa.int64())}))
        run(
            """CREATE OR REPLACE TEMP TABLE _pruned AS SELECT edge_id, decayed_strength, days_inactive
            FROM _prune_eval WHERE removable AND rowid NOT IN (SELECT row FROM _kept_rows)"""
        )
        conn.unregister("_kept_rows")
    else:
        run(
            "CREATE OR REPLACE TEMP TABLE _pruned AS SELECT edge_id, decayed_strength, days_inactive "
            "FROM _prune_eval WHERE removable"
        )
    ids = conn.sql("SELECT edge_id FROM _pruned ORDER BY edge_id").fetchnumpy()["edge_id"].tolist()
    pruned_rows = fetch_dicts(
        conn,
        f"""SELECT p.edge_id, e.source_id, e.target_id, e.edge_type, e.strength, p.decayed_strength,
                  p.days_inactive, {reasons} AS reason
           FROM (SELECT * FROM _pruned ORDER BY edge_id LIMIT {PICTURED_ROWS}) p JOIN kg_edges e USING (edge_id)
           ORDER BY p.edge_id""",
    )
    if not dry_run and ids:
        # the whole row with its figures (carried by _pruned); its support rows as they are
        run(
            f"""INSERT INTO edge_prune_log BY NAME
            SELECT ? AS run_id, ? AS pruned_at, e.*, p.decayed_strength, p.days_inactive, {reasons} AS reason
            FROM kg_edges e JOIN _pruned p USING (edge_id)""",
            [run_id, now],
        )
        run(
            """INSERT INTO pruned_edge_support BY NAME SELECT ? AS run_id, es.* FROM kg_edge_support es
            SEMI JOIN _pruned p ON p.edge_id = es.edge_id""",
            [run_id],
        )
        run("DELETE FROM kg_edge_support WHERE edge_id IN (SELECT edge_id FROM _pruned)")
        run("DELETE FROM kg_edges WHERE edge_id IN (SELECT edge_id FROM _pruned)")
    return PruneReport(
        run_id=run_id,
        total=total,
        pruned=len(ids),
        kept=total - len(ids),
        pruned_edge_ids=ids,
        dry_run=dry_run,
        candidates=candidates,
        kept_seed_bridge=seed_bridges,
        kept_true_bridge=kept_true_bridge,
        kept_connectivity=kept_connectivity,
        kept_structural=structural,
        decay_half_life_days=float(conn.execute("SELECT getvariable('decay_half_life_days')").fetchall()[0][0]),
        pruned_edges=pruned_rows,
    )


def _node_index(conn) -> int:
    """Integer ids of the nodes that have edges (``_node_index``), in node id order (so sorting
    indices sorts ids); their number."""
    conn.execute(
        """CREATE OR REPLACE TEMP TABLE _node_index AS
        SELECT node_id, (row_number() OVER (ORDER BY node_id) - 1)::INTEGER AS idx
        FROM (SELECT source_id AS node_id FROM kg_edges UNION SELECT target_id FROM kg_edges)"""
    )
    return conn.execute("SELECT count(*) FROM _node_index").fetchall()[0][0]


def _numpy(conn, sql: str) -> dict[str, np.ndarray]:
    return {k: np.asarray(v) for k, v in conn.sql(sql).fetchnumpy().items()}


def _prune_keeping_connectivity(conn) -> tuple[np.ndarray, int, int]:
    """(the ``_prune_eval`` rowids of the removable edges that stay, kept as true bridges, kept to
    keep a candidate-only cycle from splitting a component). See the module docstring. Nodes are
    the model's node numbers (``source_node`` / ``target_node``)."""
    n = conn.execute("SELECT max(greatest(source_node, target_node)) + 1 FROM _prune_eval").fetchall()[0][0]
    stay = _numpy(conn, "SELECT source_node AS si, target_node AS ti FROM _prune_eval WHERE NOT removable")
    cand = _numpy(
        conn,
        """SELECT rowid AS row, source_node AS si, target_node AS ti, decayed_strength
        FROM _prune_eval WHERE removable ORDER BY edge_id""",
    )
    graph = coo_matrix((np.ones(len(stay["si"]), dtype=np.int8), (stay["si"], stay["ti"])), shape=(n, n))
    _, component = connected_components(graph, directed=False)
    a, b = component[cand["si"]], component[cand["ti"]]
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    between = np.flatnonzero(lo != hi)  # a candidate inside one contracted component never disconnects it
    keep = np.zeros(len(a), dtype=bool)
    bridges = 0
    if len(between):
        used, relabel = np.unique(np.concatenate([lo[between], hi[between]]), return_inverse=True)
        m = len(used)
        u, v = relabel[: len(between)], relabel[len(between) :]
        key = u.astype(np.int64) * m + v
        # strongest candidate of each contracted pair first (then edge id order): the forest keeps it
        order = np.lexsort((between, -cand["decayed_strength"][between], key))
        first = order[np.r_[True, key[order][1:] != key[order][:-1]]]
        weight = 2.0 - cand["decayed_strength"][between][first]  # positive, so every pair is an edge of the MST
        tree = minimum_spanning_tree(coo_matrix((weight, (u[first], v[first])), shape=(m, m)).tocsr()).tocoo()
        tree_key = np.minimum(tree.row, tree.col).astype(np.int64) * m + np.maximum(tree.row, tree.col)
        pair_keys = key[first]
        in_tree = np.isin(pair_keys, tree_key)
        keep[between[first[in_tree]]] = True
        if len(pair_keys) <= BRIDGE_LABEL_MAX_PAIRS:
            multiplicity = Counter(key.tolist())
            simple = nx.Graph()
            simple.add_edges_from(zip(u[first].tolist(), v[first].tolist(), strict=True))
            bridge_keys = {
                min(x, y) * m + max(x, y) for x, y in nx.bridges(simple) if multiplicity[min(x, y) * m + max(x, y)] == 1
            }
            bridges = sum(1 for k in pair_keys[in_tree].tolist() if k in bridge_keys)
    kept = int(keep.sum())
    return cand["row"][keep], bridges, kept - bridges


def restore_pruned_edges(conn, edge_ids: list[str], now: datetime | None = None, protect: bool = False) -> int:
    """Put pruned edges back (their row and support) from the latest prune log entry of each;
    edges whose endpoints are gone or that exist again are skipped. ``protect``: the restored edges
    are marked protected (in the same transaction), so later prunes keep them. The number restored."""
    now = now or datetime.now(UTC)
    edge_columns = ", ".join(f"l.{name}" for name, _ in column_types(conn, "kg_edges"))
    with transaction(conn):
        conn.execute(
            """CREATE OR REPLACE TEMP TABLE _restore AS
            SELECT l.* FROM edge_prune_log l
            WHERE l.restored_at IS NULL AND l.edge_id IN (SELECT unnest(?::VARCHAR[]))
              AND l.edge_id NOT IN (SELECT edge_id FROM kg_edges)
              AND l.source_id IN (SELECT node_id FROM kg_nodes) AND l.target_id IN (SELECT node_id FROM kg_nodes)
            QUALIFY row_number() OVER (PARTITION BY l.edge_id ORDER BY l.pruned_at DESC) = 1""",
            [list(edge_ids)],
        )
        conn.execute(f"INSERT INTO kg_edges BY NAME SELECT {edge_columns} FROM _restore l")
        if protect:
            conn.execute("UPDATE kg_edges SET protected = true WHERE edge_id IN (SELECT edge_id FROM _restore)")
        conn.execute(
            """INSERT INTO kg_edge_support BY NAME SELECT s.* EXCLUDE (run_id) FROM pruned_edge_support s
            SEMI JOIN _restore r ON r.run_id = s.run_id AND r.edge_id = s.edge_id"""
        )
        conn.execute(
            """UPDATE edge_prune_log SET restored_at = ? FROM _restore r
            WHERE edge_prune_log.edge_id = r.edge_id AND edge_prune_log.run_id = r.run_id""",
            [now],
        )
        restored = conn.execute("SELECT count(*) FROM _restore").fetchall()[0][0]
        conn.execute("DROP TABLE _restore")
    return restored


# -- merge ------------------------------------------------------------------------------------------


def merge_duplicate_edges(conn, now: datetime, run_id: str, dry_run: bool) -> MergeReport:
    """Seed 002 section 3 (the caller holds the transaction)."""
    run = conn.execute
    total_before = run("SELECT count(*) FROM kg_edges").fetchall()[0][0]
    run("CREATE OR REPLACE TEMP TABLE _merge AS SELECT * FROM edge_merge_groups")
    run(
        "CREATE OR REPLACE TEMP TABLE _absorbed AS "
        "SELECT unnest(absorbed_edge_ids) AS absorbed_edge_id, edge_id FROM _merge"
    )
    surviving = """SELECT edge_id, edge_type, source_id, target_id, old_strength, new_strength, activation_count,
                        edge_count, absorbed_edge_ids FROM _merge"""
    surviving_json = run(
        f"SELECT coalesce(to_json(list(s ORDER BY s.edge_id)), '[]')::VARCHAR FROM ({surviving}) s"
    ).fetchall()[0][0]
    preview = fetch_dicts(conn, f"{surviving} ORDER BY edge_id LIMIT {PICTURED_ROWS}")
    merged = run("SELECT count(*) FROM _absorbed").fetchall()[0][0]
    if not dry_run and merged:
        run(
            """INSERT INTO consolidated_edges
            SELECT ?, ?, edge_id, source_id, target_id, edge_type, absorbed_edge_ids, edge_count,
                   old_strength, new_strength, activation_count, absorbed_edges
            FROM _merge""",
            [run_id, now],
        )
        run(
            """UPDATE kg_edges SET strength = m.new_strength, activation_count = m.activation_count,
                   explanation = '[Merged ' || m.edge_count || ' edges] ' || coalesce(kg_edges.explanation, ''),
                   protected = kg_edges.protected OR m.protected,
                   created_by = CASE WHEN m.user_made THEN 'user' ELSE kg_edges.created_by END
            FROM _merge m WHERE kg_edges.edge_id = m.edge_id"""
        )
        run(
            """UPDATE kg_edge_support SET edge_id = a.edge_id FROM _absorbed a
            WHERE kg_edge_support.edge_id = a.absorbed_edge_id"""
        )
        run(
            "UPDATE edge_aliases SET edge_id = a.edge_id FROM _absorbed a "
            "WHERE edge_aliases.edge_id = a.absorbed_edge_id"
        )
        run("DELETE FROM edge_aliases WHERE absorbed_edge_id IN (SELECT absorbed_edge_id FROM _absorbed)")
        run("INSERT INTO edge_aliases SELECT absorbed_edge_id, edge_id, ? FROM _absorbed", [run_id])
        run("DELETE FROM kg_edges WHERE edge_id IN (SELECT absorbed_edge_id FROM _absorbed)")
        run(
            """UPDATE kg_edges SET support_count = s.n FROM (
                SELECT edge_id, count(*)::INTEGER AS n FROM kg_edge_support
                WHERE edge_id IN (SELECT edge_id FROM _merge) GROUP BY edge_id) s
            WHERE kg_edges.edge_id = s.edge_id"""
        )
    return MergeReport(
        run_id=run_id,
        total_before=total_before,
        total_after=total_before - merged,
        edges_merged=merged,
        dry_run=dry_run,
        surviving_edges_json=surviving_json,
        surviving_preview=preview,
    )


# -- summarize ------------------------------------------------------------------------------------


def summarize_graph(conn, options, now: datetime, run_id: str, dry_run: bool, llm_client=None) -> SummarizeReport:
    """Topic clusters (the SQL model) and communities (the caller holds the transaction). Louvain
    (numpy and scipy, in a thread) runs while DuckDB computes the topic clusters and reads the
    nodes' ids and types for the community summaries."""
    total = conn.execute("SELECT count(*) FROM kg_edges").fetchall()[0][0]
    graph = _community_graph(conn)
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="louvain") as pool:
        finding = pool.submit(find_communities, graph, options)
        if dry_run:
            clusters = fetch_dicts(conn, f"SELECT * FROM ({graph_sql.model_sql('topic_clusters')}) ORDER BY topic_key")
        else:
            graph_sql.refresh_table_model(conn, "topic_clusters")
            clusters = fetch_dicts(conn, "SELECT * FROM topic_clusters ORDER BY topic_key")
        labels = _node_labels(conn)
        found = finding.result()
    rows = _describe_communities(conn, found, labels, now, llm_client)
    if not dry_run:
        conn.execute("DELETE FROM communities")
        if rows:
            conn.register("_community_rows", pa.Table.from_pylist(rows))
            conn.execute("INSERT INTO communities BY NAME SELECT * FROM _community_rows")
            conn.unregister("_community_rows")
    return SummarizeReport(run_id, total, clusters, rows, dry_run, ALGORITHM)


@dataclass
class CommunityGraph:
    """The graph as integers: ``n`` nodes (the ``_node_index`` numbers, in node id order) and its
    edges without self-loops (endpoints, weight, kg_edges rowid)."""

    n: int
    source: np.ndarray
    target: np.ndarray
    weight: np.ndarray
    edge_rows: np.ndarray  # each edge's kg_edges rowid (stable within the operation's transaction)


@dataclass
class CommunityFinding:
    """Louvain's result over the ``_node_index`` nodes: each node's community rank (largest first;
    -1: in a community smaller than ``community_min_size``), and the graph it was computed on."""

    rank: np.ndarray
    count: int
    graph: CommunityGraph


def _community_graph(conn) -> CommunityGraph:
    n = _node_index(conn)  # in node id order: member lists are sorted by sorting indices
    edges = _numpy(
        conn,
        """SELECT e.rowid AS row, s.idx AS si, t.idx AS ti, e.strength FROM kg_edges e
        JOIN _node_index s ON s.node_id = e.source_id JOIN _node_index t ON t.node_id = e.target_id
        WHERE e.source_id <> e.target_id""",
    )
    weight = np.maximum(edges["strength"].astype(np.float64), 1e-6)  # a 0-strength edge still links
    return CommunityGraph(n, edges["si"], edges["ti"], weight, edges["row"])  # 32-bit node numbers


def find_communities(graph: CommunityGraph, options) -> CommunityFinding:
    """Louvain on the graph (no database access: it runs beside the topic clusters' SQL)."""
    rank, kept = np.empty(0, np.int64), 0
    if graph.n:
        community = louvain(graph.n, graph.source, graph.target, graph.weight, options.community_resolution)
        sizes = np.bincount(community)
        order = np.argsort(-sizes, kind="stable")
        kept = int((sizes >= options.community_min_size).sum())
        rank_of = np.full(len(sizes), -1, dtype=np.int64)
        rank_of[order[:kept]] = np.arange(kept)
        rank = rank_of[community]
    return CommunityFinding(rank, kept, graph)


@dataclass
class NodeLabels:
    """The ``_node_index`` nodes' ids and types, by index: read while Louvain runs."""

    node_ids: np.ndarray
    type_names: list[str]
    type_code: np.ndarray  # each node's type as a position in ``type_names`` (name order)


def _node_labels(conn) -> NodeLabels:
    node_ids = np.asarray(conn.sql("SELECT node_id FROM _node_index ORDER BY idx").fetchnumpy()["node_id"])
    # node types as codes in name order (counting codes per community is a bincount)
    typed = conn.sql(
        """SELECT n.idx, coalesce(k.node_type, 'unknown') AS t
        FROM _node_index n LEFT JOIN kg_nodes k USING (node_id)"""
    )
    type_names = [r[0] for r in typed.query("typed", "SELECT DISTINCT t FROM typed ORDER BY t").fetchall()]
    type_code = np.asarray(
        typed.query(
            "typed", "SELECT (dense_rank() OVER (ORDER BY t) - 1)::INTEGER AS code FROM typed ORDER BY idx"
        ).fetchnumpy()["code"]
    )
    return NodeLabels(node_ids, type_names, type_code)


def _describe_communities(conn, found: CommunityFinding, labels: NodeLabels, now, llm_client) -> list[dict]:
    """Per kept community: members, inner edge count, most connected nodes (weighted degree inside
    the community), node types, strongest inner relation; computed with numpy, names looked up last."""
    if found.count == 0:
        return []
    rank, graph = found.rank, found.graph
    node_ids, type_names, type_code = labels.node_ids, labels.type_names, labels.type_code
    inner = (rank[graph.source] == rank[graph.target]) & (rank[graph.source] >= 0)
    inner_rank = rank[graph.source][inner]
    edge_count = np.bincount(inner_rank, minlength=found.count)
    degree = np.bincount(graph.source[inner], graph.weight[inner], len(rank))
    degree += np.bincount(graph.target[inner], graph.weight[inner], len(rank))
    members = np.flatnonzero(rank >= 0)
    grouped = members[np.argsort(rank[members], kind="stable")]  # by community, then index (= node id) order
    starts = np.searchsorted(rank[grouped], np.arange(found.count + 1))
    inner_index = np.flatnonzero(inner)
    # the strongest inner edge of each community (ties: the first): each community's top weight,
    # then the first inner edge that has it (no sort of every inner edge)
    inner_weight = graph.weight[inner_index]
    top_weight = np.full(found.count, -np.inf)
    np.maximum.at(top_weight, inner_rank, inner_weight)
    at_top = np.flatnonzero(inner_weight == top_weight[inner_rank])
    ranks_at_top, first = np.unique(inner_rank[at_top], return_index=True)
    strongest_edge = {
        int(r): int(graph.edge_rows[inner_index[at_top[i]]]) for r, i in zip(ranks_at_top, first, strict=True)
    }
    top = {r: _most_connected(grouped[starts[r] : starts[r + 1]], degree, 5) for r in range(found.count)}
    wanted = sorted({int(i) for t in top.values() for i in t})
    names = dict(
        conn.execute(
            "SELECT n.idx, coalesce(k.name, n.node_id) FROM _node_index n LEFT JOIN kg_nodes k USING (node_id) "
            "WHERE n.idx IN (SELECT unnest(?::INTEGER[]))",
            [wanted],
        ).fetchall()
    )
    relations = dict(
        conn.execute(
            """SELECT e.rowid, coalesce(sn.name, e.source_id) || ' — ' || coalesce(tn.name, e.target_id)
                      || coalesce(': ' || left(e.explanation, 160), '')
            FROM kg_edges e LEFT JOIN kg_nodes sn ON sn.node_id = e.source_id
            LEFT JOIN kg_nodes tn ON tn.node_id = e.target_id
            WHERE e.rowid IN (SELECT unnest(?::BIGINT[]))""",
            [list(strongest_edge.values())],
        ).fetchall()
    )
    described = []
    for r in range(found.count):
        group = grouped[starts[r] : starts[r + 1]]
        counts = np.bincount(type_code[group], minlength=len(type_names))
        order = [i for i in np.lexsort((np.arange(len(counts)), -counts))[:3] if counts[i]]
        type_text = ", ".join(f"{type_names[i]} {counts[i]}" for i in order)
        top_names = [names[int(i)] for i in top[r]]
        relation = relations.get(strongest_edge.get(r))
        summary = f"{len(group)} nodes ({type_text}); most connected: {', '.join(top_names)}"
        summary += f"; strongest relation: {relation}" if relation else ""
        method = "extractive"
        if llm_client is not None and r < MAX_SUMMARIES_BY_LLM:
            summary = llm_client.summarize(f"community:{r}", summary, "").summary
            method = "llm"
        described.append(
            {
                "community_id": r,
                "node_ids": node_ids[group].tolist(),  # indices follow node id order
                "node_count": len(group),
                "edge_count": int(edge_count[r]),
                "top_nodes": top_names,
                "summary": summary,
                "summary_method": method,
                "algorithm": ALGORITHM,
                "computed_at": now,
            }
        )
    return described


def _most_connected(group: np.ndarray, degree: np.ndarray, k: int) -> np.ndarray:
    """The ``k`` members of ``group`` (ascending indices) with the highest degree, ties by index: only
    members at or above the k-th highest degree are sorted, not the whole community."""
    if len(group) > k:
        kth = np.partition(degree[group], len(group) - k)[len(group) - k]
        group = group[degree[group] >= kth]
    return group[np.lexsort((group, -degree[group]))][:k]


# -- reports and pictures ---------------------------------------------------------------------------


def _record_report(conn, operation, report, health, options, now, picture_path, half_life, text) -> None:
    if operation == "prune":
        before, after, affected = report.total, report.total - (0 if report.dry_run else report.pruned), report.pruned
    elif operation == "merge-edges":
        before = report.total_before
        after = report.total_before if report.dry_run else report.total_after
        affected = report.edges_merged
    else:
        before = after = report.total_edges
        affected = len(report.clusters) + len(report.communities)
    settings_used = options.model_dump()
    if half_life is not None:
        settings_used["decay_half_life_days"] = half_life
    conn.execute(
        "INSERT INTO consolidation_reports VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            report.run_id,
            operation,
            report.dry_run,
            now,
            datetime.now(UTC),
            before,
            after,
            affected,
            round(100.0 * affected / before, 3) if before and operation != "summarize" else 0.0,
            health["target"],
            health["within"],
            json.dumps(settings_used),
            text,
            str(picture_path) if picture_path else None,
        ],
    )


def write_report_file(data_dir: Path, run_id: str, text: str) -> Path:
    """The ``--json`` report as ``<data_dir>/consolidation_reports/<run_id>.json`` (the CLI reads it
    after its in-process run without opening DuckDB, which another run may hold)."""
    return write_text_atomically(Path(data_dir) / "consolidation_reports" / f"{run_id}.json", text)


def report_text(operation: str, report, health: dict) -> str:
    """What ``--json`` prints, as JSON text: prune lists the pruned edge ids, merge the surviving edges
    with their new strength (last: their JSON array, as DuckDB built it, goes in as it is)."""
    if operation == "prune":
        body = {k: getattr(report, k) for k in PruneReport.__dataclass_fields__ if k != "pruned_edges"}
    elif operation == "merge-edges":
        lists = ("surviving_edges_json", "surviving_preview")  # the array goes in last, as text
        body = {k: getattr(report, k) for k in MergeReport.__dataclass_fields__ if k not in lists}
    else:
        body = {
            "run_id": report.run_id,
            "dry_run": report.dry_run,
            "total_edges": report.total_edges,
            "algorithm": report.algorithm,
            "clusters": [
                {k: c[k] for k in ("topic_key", "node_count", "internal_edges", "connectivity", "node_ids")}
                for c in report.clusters
            ],
            "communities": [
                {
                    k: c[k]
                    for k in ("community_id", "node_count", "edge_count", "top_nodes", "summary", "summary_method")
                }
                for c in report.communities
            ],
        }
    text = json.dumps({"operation": operation, **body, "health": health}, default=str)
    if operation == "merge-edges":
        text = f'{text[:-1]}, "surviving_edges": {report.surviving_edges_json}}}'
    return text


def _picture(conn, operation, report, now, dry_run) -> ConsolidationPicture:
    picture = ConsolidationPicture(operation, now, dry_run=dry_run)
    if operation == "prune":
        picture.pruned = report.pruned_edges[:PICTURED_ROWS]
        picture.totals = {"total": report.total, "pruned": report.pruned, "kept": report.kept}
        nodes = {x for e in picture.pruned for x in (e["source_id"], e["target_id"])}
    elif operation == "merge-edges":
        picture.merges = report.surviving_preview[:PICTURED_ROWS]
        picture.totals = {
            "edges_before": report.total_before,
            "edges_after": report.total_after,
            "merged": report.edges_merged,
        }
        nodes = {x for e in picture.merges for x in (e["source_id"], e["target_id"])}
    else:
        picture.clusters = report.clusters[:PICTURED_ROWS]
        picture.communities = report.communities[:PICTURED_ROWS]
        picture.totals = {"topic_clusters": len(report.clusters), "communities": len(report.communities)}
        nodes = {x for c in report.communities[:8] for x in c["node_ids"][:10]}
    if nodes:
        ids = sorted(nodes)[:200]
        picture.node_names = dict(
            conn.execute(
                "SELECT node_id, name FROM kg_nodes WHERE node_id IN (SELECT unnest(?::VARCHAR[]))", [ids]
            ).fetchall()
        )
        picture.context_edges = conn.execute(
            """SELECT source_id, target_id FROM kg_edges
            WHERE source_id IN (SELECT unnest(?::VARCHAR[]))
              AND target_id IN (SELECT unnest(?::VARCHAR[])) LIMIT 300""",
            [ids, ids],
        ).fetchall()
    return picture
