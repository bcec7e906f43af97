"""What the graph explorer page shows: a bounded neighbourhood, one node, one edge, the latest
health reports. Read from the published graph snapshot (never DuckDB) and LanceDB, like every
reader, so the page keeps working while a run writes.

The page never loads the whole graph. A neighbourhood starts at the nodes a term matches (the
same matching as graph search: exact, fuzzy on tokens, vector) or at given node ids, and walks
breadth first over the named nodes (entities, titles, wiki pages; chunks and questions are shown
as sources instead), each node's strongest edges first, until ``limit`` nodes are in. What the
walk had to leave out is counted per node (``more``), so the page can offer "N more" and expand
that node alone.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from kg_pipelines.retrieval.graph_search import SearchIndex, search_index
from kg_pipelines.stores.graph_snapshot import GraphSnapshot
from kg_pipelines.stores.vectors import sql_list

MAX_DEPTH = 3
MAX_LIMIT = 2000
SNIPPET_CHARS = 280


class ExplorerError(ValueError):
    """A request the explorer cannot answer as asked (unknown id, bad bounds), in one line."""


def _neighbours(index: SearchIndex, i: int) -> Iterable[tuple[int, int]]:
    """(edge row, other node) of node ``i``, strongest edges first (out-edges, then in-edges)."""
    out_rows = index.out_edges[index.out_offsets[i] : index.out_offsets[i + 1]]
    in_rows = index.in_edges[index.in_offsets[i] : index.in_offsets[i + 1]]
    pairs = [(int(r), int(index.edge_target[r])) for r in out_rows]
    pairs += [(int(r), int(index.edge_source[r])) for r in in_rows]
    pairs.sort(key=lambda pair: -index.edge_strength[pair[0]])
    return pairs


def _node_row(index: SearchIndex, i: int, depth: int) -> dict:
    return {"id": index.node_ids[i], "name": index.names[i], "type": index.types[i], "depth": depth}


def _edge_row(index: SearchIndex, row: int) -> dict:
    return {
        "id": index.edge_ids[row],
        "source": index.node_ids[int(index.edge_source[row])],
        "target": index.node_ids[int(index.edge_target[row])],
        "type": index.edge_types[row],
        "strength": round(float(index.edge_strength[row]), 4),
        "explanation": index.edge_explanations[row],
    }


def _edge_rows(snapshot: GraphSnapshot) -> dict[str, int]:
    index = search_index(snapshot)  # first: ``derived`` holds the snapshot's lock while it builds
    return snapshot.derived("explorer_edge_rows", lambda _s: {e: i for i, e in enumerate(index.edge_ids)})


def neighbourhood(
    snapshot: GraphSnapshot,
    start_ids: list[str],
    depth: int = 1,
    limit: int = 300,
    keep_node_ids: Iterable[str] = (),
    keep_edge_ids: Iterable[str] = (),
) -> dict:
    """The nodes within ``depth`` hops of ``start_ids`` (at most ``limit``), the edges among them,
    and per node how many neighbours were left out. ``keep_node_ids`` / ``keep_edge_ids`` (a
    search's paths) are drawn whatever the limit, so a highlighted path is never cut."""
    if not 1 <= depth <= MAX_DEPTH:
        raise ExplorerError(f"depth must be between 1 and {MAX_DEPTH}, not {depth}")
    if not 1 <= limit <= MAX_LIMIT:
        raise ExplorerError(f"limit must be between 1 and {MAX_LIMIT}, not {limit}")
    index = search_index(snapshot)
    starts = []
    for node_id in start_ids:
        i = index.position.get(node_id)
        if i is None:
            raise ExplorerError(f"no node {node_id!r} in the graph")
        starts.append(i)
    seen: dict[int, int] = {i: 0 for i in starts[:limit]}
    frontier = list(seen)
    for level in range(1, depth + 1):
        following = []
        for i in frontier:
            for _row, other in _neighbours(index, i):
                if other in seen or other < 0:
                    continue
                if len(seen) >= limit:
                    break
                seen[other] = level
                following.append(other)
        frontier = following
    for node_id in keep_node_ids:
        i = index.position.get(node_id)
        if i is not None and i not in seen:
            seen[i] = -1  # on a path, beyond the walk
    edges, more = {}, {}
    rows = _edge_rows(snapshot)
    for edge_id in keep_edge_ids:
        row = rows.get(edge_id)
        if row is not None and int(index.edge_source[row]) in seen and int(index.edge_target[row]) in seen:
            edges[row] = _edge_row(index, row)
    for i in seen:
        left_out = set()
        for row, other in _neighbours(index, i):
            if other in seen:
                edges[row] = _edge_row(index, row)
            elif other >= 0:
                left_out.add(other)
        if left_out:
            more[index.node_ids[i]] = len(left_out)
    return {
        "nodes": [_node_row(index, i, level) for i, level in seen.items()],
        "edges": list(edges.values()),
        "more": more,
        "truncated": bool(more),
    }


def evidence(snapshot: GraphSnapshot, chunk_ids: list[str], limit: int = 300) -> dict:
    """What the graph holds from ``chunk_ids`` (an answer's sources): the named nodes they support
    and the edges among those nodes that the same chunks support, to draw and highlight."""
    index = search_index(snapshot)
    wanted = pa.array(chunk_ids, pa.string())
    node_rows = snapshot.node_support.filter(pc.is_in(snapshot.node_support.column("chunk_id"), value_set=wanted))
    named = snapshot.derived("explorer_named", lambda _s: set(index.named.tolist()))
    seen: dict[int, int] = {}
    for node_id in node_rows.column("node_id").to_pylist():
        i = index.position.get(node_id)
        if i is not None and i in named and len(seen) < limit:
            seen.setdefault(i, 0)
    edge_rows = snapshot.edge_support.filter(pc.is_in(snapshot.edge_support.column("chunk_id"), value_set=wanted))
    rows = _edge_rows(snapshot)
    edges = {}
    for edge_id in edge_rows.column("edge_id").to_pylist():
        row = rows.get(edge_id)
        if row is not None and int(index.edge_source[row]) in seen and int(index.edge_target[row]) in seen:
            edges[row] = _edge_row(index, row)
    return {
        "nodes": [_node_row(index, i, 0) for i in seen],
        "edges": list(edges.values()),
        "more": {},
        "truncated": False,
    }


def _column(table, name: str, row: int):
    return table.column(name)[row].as_py() if name in table.column_names else None


def _json_value(value):
    if isinstance(value, str):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value


Snippets = Callable[[list[tuple[str, str]], str | None], dict[str, str]]


def _sources(
    snapshot: GraphSnapshot, support, key: str, value: str, snippets: Snippets, focus: str | None
) -> list[dict]:
    rows = support.filter(pc.equal(support.column(key), value)).to_pylist()
    titles = search_index(snapshot).chunk_titles
    found = [{k: r[k] for k in ("chunk_id", "document_id", "collection")} for r in rows]
    texts = snippets([(s["collection"], s["chunk_id"]) for s in found], focus)
    for source in found:
        source["title"] = titles.get(source["chunk_id"], source["document_id"])
        source["snippet"] = texts.get(source["chunk_id"], "")
    return found


def node_details(snapshot: GraphSnapshot, node_id: str, snippets: Snippets) -> dict:
    """Name, type, description, energy, merge history, support and source chunks of one node."""
    index = search_index(snapshot)
    i = index.position.get(node_id)
    if i is None:
        raise ExplorerError(f"no node {node_id!r} in the graph")
    nodes = snapshot.nodes
    return {
        "id": node_id,
        "name": index.names[i],
        "type": index.types[i],
        "kind": _column(nodes, "node_kind", i),
        "description": _column(nodes, "description", i),
        "energy": _json_value(_column(nodes, "energy", i)),
        "merge_history": _json_value(_column(nodes, "merge_history", i)) or [],
        "support_count": _column(nodes, "support_count", i),
        "created_by": _column(nodes, "created_by", i),
        "degree": int(index.out_offsets[i + 1] - index.out_offsets[i] + index.in_offsets[i + 1] - index.in_offsets[i]),
        "sources": _sources(snapshot, snapshot.node_support, "node_id", node_id, snippets, index.names[i]),
    }


def edge_details(snapshot: GraphSnapshot, edge_id: str, snippets: Snippets) -> dict:
    """Explanation, strength, support and activation count of one edge, with its source chunks."""
    edges = snapshot.edges
    row = _edge_rows(snapshot).get(edge_id)
    if row is None:
        raise ExplorerError(f"no edge {edge_id!r} in the graph")
    record = {name: edges.column(name)[row].as_py() for name in edges.column_names}
    last = record.get("last_activated_at")
    return {
        "id": edge_id,
        "source": record["source_id"],
        "target": record["target_id"],
        "type": record["edge_type"],
        "strength": record["strength"],
        "explanation": record.get("explanation"),
        "keywords": record.get("keywords") or [],
        "support_count": record.get("support_count"),
        "activation_count": record.get("activation_count"),
        "last_activated_at": last.isoformat() if last is not None else None,
        "created_by": record.get("created_by"),
        "protected": record.get("protected"),
        "sources": _sources(
            snapshot, snapshot.edge_support, "edge_id", edge_id, snippets, (record.get("explanation") or "")[:40]
        ),
    }


def _window(text: str, focus: str | None, chars: int) -> str:
    """About ``chars`` characters of ``text`` around the first mention of ``focus`` (else its start)."""
    text = " ".join(text.split())
    if len(text) <= chars:
        return text
    at = text.lower().find(focus.lower()) if focus else -1
    start = max(0, min(at - chars // 3, len(text) - chars)) if at >= 0 else 0
    start = text.rfind(" ", 0, start) + 1 if start else 0  # whole words
    piece = text[start : start + chars].rsplit(" ", 1)[0]
    return ("…" if start else "") + piece + ("…" if start + len(piece) < len(text) else "")


def chunk_snippets(
    store, wanted: list[tuple[str, str]], focus: str | None = None, chars: int = SNIPPET_CHARS
) -> dict[str, str]:
    """chunk_id -> about ``chars`` characters of its text around ``focus`` (a node's name), read
    from LanceDB by collection."""
    by_collection: dict[str, list[str]] = {}
    for collection, chunk_id in wanted:
        by_collection.setdefault(collection, []).append(chunk_id)
    found: dict[str, str] = {}
    for collection, chunk_ids in by_collection.items():
        table = store.open("chunks", collection) if store is not None else None
        if table is None:
            continue
        rows = (
            table.search()
            .where(f"chunk_id IN ({sql_list(chunk_ids)})")
            .select(["chunk_id", "text"])
            .limit(len(chunk_ids))
        )
        for row in rows.to_arrow().to_pylist():
            found[row["chunk_id"]] = _window(row["text"] or "", focus, chars)
    return found


REPORT_LIST_ROWS = 100


def _trimmed(report: dict) -> dict:
    """A report with each list cut to its first ``REPORT_LIST_ROWS`` items (a 10M-edge merge lists
    hundreds of thousands of edges) and ``<name>_total`` giving the full length."""
    out = {}
    for key, value in report.items():
        if isinstance(value, list) and len(value) > REPORT_LIST_ROWS:
            out[key] = value[:REPORT_LIST_ROWS]
            out[f"{key}_total"] = len(value)
        else:
            out[key] = value
    return out


def latest_reports(data_dir: Path) -> dict:
    """The newest consolidation report of each operation (``consolidation_reports/<run_id>.json``,
    what ``--json`` prints) and the newest duplicate-node report, each with its file's time."""
    found: dict[str, dict] = {}
    folder = Path(data_dir) / "consolidation_reports"
    files = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True) if folder.exists() else []
    for path in files:
        try:
            report = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            continue  # a file being replaced, or not ours: the next newest stands
        operation = report.get("operation") if isinstance(report, dict) else None
        if operation and operation not in found:
            found[operation] = {"run_id": path.stem, "written_at": path.stat().st_mtime, "report": _trimmed(report)}
    return {"consolidation": found}
