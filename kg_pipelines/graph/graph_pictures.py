"""Before/after pictures of graph-health runs: one self-contained HTML file per run (inline SVG
and CSS, no script, nothing fetched from the network), written under ``<data_dir>/pictures/`` and
attached to the run's materialization metadata (its path and a Markdown summary).

The drawing shows the neighbourhood of what changed (capped, so a run over millions of edges still
gives a readable picture): the same node positions before and after, pruned edges dashed red in
"before" and gone in "after", absorbed duplicates orange in "before" and their surviving edge thick
green in "after". Tables below list every change shown, the topic clusters and the communities.

Building blocks for other pictures: ``layout``, ``svg_graph``, ``html_table``, ``html_page``,
``write_picture``.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import networkx as nx

from kg_pipelines.stores.files import write_text_atomically

MAX_DRAWN_NODES = 80
MAX_TABLE_ROWS = 200

STYLE = """
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.3em}h2{font-size:1.1em;margin-top:1.5em}
.panels{display:flex;gap:1em;flex-wrap:wrap}.panel{border:1px solid #ccc;padding:.5em}
table{border-collapse:collapse;font-size:.85em}td,th{border:1px solid #ddd;padding:2px 6px;text-align:left}
.legend span{margin-right:1.2em}.muted{color:#777}
"""


@dataclass
class DrawnEdge:
    source: str
    target: str
    style: str = "plain"  # plain | pruned | absorbed | survivor | added
    label: str = ""


@dataclass
class ConsolidationPicture:
    """What one consolidation run did, in the terms the picture shows."""

    operation: str  # prune | merge-edges | summarize
    created_at: datetime
    node_names: dict[str, str] = field(default_factory=dict)
    context_edges: list[tuple[str, str]] = field(default_factory=list)  # unchanged edges around the changes
    pruned: list[dict] = field(default_factory=list)  # edge_id, source_id, target_id, strength, reason
    merges: list[dict] = field(default_factory=list)  # edge_id, source_id, target_id, absorbed_edge_ids, old/new
    clusters: list[dict] = field(default_factory=list)  # topic_key, node_count, internal_edges, connectivity
    communities: list[dict] = field(default_factory=list)  # community_id, node_count, summary
    dry_run: bool = False
    totals: dict = field(default_factory=dict)


_EDGE_STYLE = {
    "plain": 'stroke="#bbb" stroke-width="1"',
    "pruned": 'stroke="#d62728" stroke-width="1.5" stroke-dasharray="4 3"',
    "absorbed": 'stroke="#ff7f0e" stroke-width="1.5"',
    "survivor": 'stroke="#2ca02c" stroke-width="3"',
    "added": 'stroke="#1f77b4" stroke-width="2"',
}
_PALETTE = ["#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"]


def layout(nodes: Sequence[str], edges: Iterable[tuple[str, str]], size: float = 420) -> dict[str, tuple[float, float]]:
    """Deterministic positions in a ``size`` x ``size`` box (spring layout, seeded)."""
    graph = nx.Graph()
    graph.add_nodes_from(nodes)
    graph.add_edges_from((s, t) for s, t in edges if s in graph and t in graph)
    if not graph:
        return {}
    pos = nx.spring_layout(graph, seed=7, iterations=60) if len(graph) > 1 else {nodes[0]: (0.0, 0.0)}
    margin = 30
    return {
        n: (margin + (x + 1) / 2 * (size - 2 * margin), margin + (y + 1) / 2 * (size - 2 * margin))
        for n, (x, y) in pos.items()
    }


def svg_graph(
    positions: dict[str, tuple[float, float]],
    edges: Sequence[DrawnEdge],
    labels: dict[str, str],
    node_colors: dict[str, str] | None = None,
    size: float = 420,
) -> str:
    """An inline SVG of ``edges`` between positioned nodes (parallel edges fanned out a little)."""
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" viewBox="0 0 {size} {size}">']
    seen: dict[tuple[str, str], int] = {}
    for edge in edges:
        if edge.source not in positions or edge.target not in positions:
            continue
        (x1, y1), (x2, y2) = positions[edge.source], positions[edge.target]
        key = tuple(sorted((edge.source, edge.target)))
        offset = seen.get(key, 0)
        seen[key] = offset + 1
        dx, dy = y2 - y1, x1 - x2  # perpendicular, for parallel edges
        norm = math.hypot(dx, dy) or 1.0
        bend = 10 * offset * (1 if offset % 2 else -1)
        cx, cy = (x1 + x2) / 2 + bend * dx / norm, (y1 + y2) / 2 + bend * dy / norm
        title = f"<title>{html.escape(edge.label)}</title>" if edge.label else ""
        parts.append(
            f'<path d="M{x1:.1f},{y1:.1f} Q{cx:.1f},{cy:.1f} {x2:.1f},{y2:.1f}" fill="none" '
            f"{_EDGE_STYLE.get(edge.style, _EDGE_STYLE['plain'])}>{title}</path>"
        )
    for node, (x, y) in positions.items():
        color = (node_colors or {}).get(node, "#555")
        name = html.escape(labels.get(node, node))
        parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="5" fill="{color}"><title>{name}</title></circle>')
        parts.append(
            f'<text x="{x + 7:.1f}" y="{y + 3:.1f}" font-size="9">{html.escape(_short(labels.get(node, node)))}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def html_table(rows: Sequence[dict], columns: Sequence[str], cap: int = MAX_TABLE_ROWS) -> str:
    if not rows:
        return '<p class="muted">none</p>'
    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(_text(r.get(c)))}</td>" for c in columns) + "</tr>" for r in rows[:cap]
    )
    more = f'<p class="muted">… and {len(rows) - cap} more</p>' if len(rows) > cap else ""
    return f"<table><tr>{head}</tr>{body}</table>{more}"


def html_page(title: str, body: str) -> str:
    return (
        f'<!doctype html><html><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f"<style>{STYLE}</style></head><body><h1>{html.escape(title)}</h1>{body}</body></html>"
    )


def write_picture(data_dir: Path, kind: str, created_at: datetime, page: str) -> Path:
    """Write ``page`` as ``<data_dir>/pictures/<kind>-<UTC time>.html``; the path."""
    name = f"{kind}-{created_at.strftime('%Y%m%dT%H%M%S%fZ')}.html"
    return write_text_atomically(Path(data_dir) / "pictures" / name, page)


def consolidation_picture(picture: ConsolidationPicture, data_dir: Path) -> tuple[Path, str]:
    """Write the run's before/after HTML; (its path, a Markdown summary for the metadata)."""
    before, after, shown = _before_after_edges(picture)
    nodes = _capped_nodes(before + after, shown)
    positions = layout(nodes, [(e.source, e.target) for e in before + after])
    colors = _community_colors(picture.communities, nodes)
    labels = {n: picture.node_names.get(n, n) for n in nodes}
    dry = " (dry run: nothing was changed)" if picture.dry_run else ""
    legend = (
        '<p class="legend"><span style="color:#d62728">- - pruned</span>'
        '<span style="color:#ff7f0e">— absorbed duplicate</span><span style="color:#2ca02c">━ surviving edge</span>'
        '<span style="color:#bbb">— unchanged</span></p>'
    )
    body = [
        f"<p>{html.escape(picture.operation)} at {picture.created_at.isoformat()}{html.escape(dry)}. "
        f"{html.escape(_totals_line(picture.totals))}</p>",
        legend,
        '<div class="panels">',
        f'<div class="panel"><b>before</b><br>{svg_graph(positions, before, labels, colors)}</div>',
        f'<div class="panel"><b>after</b><br>{svg_graph(positions, after, labels, colors)}</div>',
        "</div>",
        f'<p class="muted">drawn: {len(nodes)} node(s) around the changes (at most {MAX_DRAWN_NODES}).</p>',
        f"<h2>pruned edges ({len(picture.pruned)})</h2>",
        html_table(picture.pruned, ["edge_id", "source_id", "target_id", "strength", "decayed_strength", "reason"]),
        f"<h2>merged edges ({len(picture.merges)})</h2>",
        html_table(picture.merges, ["edge_id", "absorbed_edge_ids", "old_strength", "new_strength"]),
        f"<h2>topic clusters ({len(picture.clusters)})</h2>",
        html_table(picture.clusters, ["topic_key", "node_count", "internal_edges", "connectivity"]),
        f"<h2>communities ({len(picture.communities)})</h2>",
        html_table(picture.communities, ["community_id", "node_count", "edge_count", "summary"]),
    ]
    page = html_page(f"kg-pipelines consolidation: {picture.operation}", "".join(body))
    path = write_picture(data_dir, f"consolidation-{picture.operation}", picture.created_at, page)
    summary = (
        f"**{picture.operation}**{dry}: {_totals_line(picture.totals)}\n\n"
        f"- pruned edges: {len(picture.pruned)}\n- edges that absorbed duplicates: {len(picture.merges)}\n"
        f"- topic clusters: {len(picture.clusters)}\n- communities: {len(picture.communities)}\n\n"
        f"Before/after picture: `{path}`"
    )
    return path, summary


def _before_after_edges(p: ConsolidationPicture) -> tuple[list[DrawnEdge], list[DrawnEdge], list[str]]:
    before = [DrawnEdge(s, t) for s, t in p.context_edges]
    after = list(before)
    shown: list[str] = []
    for e in p.pruned[:MAX_DRAWN_NODES]:
        before.append(DrawnEdge(e["source_id"], e["target_id"], "pruned", f"{e['edge_id']} ({e.get('reason', '')})"))
        shown += [e["source_id"], e["target_id"]]
    for m in p.merges[:MAX_DRAWN_NODES]:
        for absorbed in m.get("absorbed_edge_ids") or []:
            before.append(DrawnEdge(m["source_id"], m["target_id"], "absorbed", f"{absorbed} -> {m['edge_id']}"))
        before.append(DrawnEdge(m["source_id"], m["target_id"], "plain", str(m["edge_id"])))
        after.append(DrawnEdge(m["source_id"], m["target_id"], "survivor", f"{m['edge_id']}: {m.get('new_strength')}"))
        shown += [m["source_id"], m["target_id"]]
    return before, after, shown


def _capped_nodes(edges: Sequence[DrawnEdge], first: Sequence[str]) -> list[str]:
    nodes: list[str] = []
    for n in [*first, *(x for e in edges for x in (e.source, e.target))]:
        if n not in nodes:
            nodes.append(n)
        if len(nodes) >= MAX_DRAWN_NODES:
            break
    return nodes


def _community_colors(communities: Sequence[dict], drawn: Sequence[str]) -> dict[str, str]:
    """The colour of each drawn node's community (communities may hold every node of the graph)."""
    drawn_set, colors = set(drawn), {}
    for i, c in enumerate(communities):
        for node in drawn_set.intersection(c.get("node_ids") or []):
            colors[node] = _PALETTE[i % len(_PALETTE)]
    return colors


def _totals_line(totals: dict) -> str:
    return ", ".join(f"{k.replace('_', ' ')}: {v}" for k, v in totals.items())


def _short(text: str, width: int = 18) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _text(value: object) -> str:
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    if isinstance(value, float):
        return f"{value:.4g}"
    return "" if value is None else str(value)


# -- duplicate nodes (seed 001): a before/after view of a merge pass ------------------------------
def merge_pass_picture(
    data_dir: Path,
    created_at: datetime,
    merges: Sequence[dict],
    before_edges: Sequence[tuple[str, str]],
    after_edges: Sequence[tuple[str, str]],
    node_names: dict[str, str],
    dry_run: bool = False,
) -> tuple[Path, str]:
    """``merges``: dicts with merge_id, canonical_id, duplicate_id, canonical_name, duplicate_name,
    score, decision; ``before_edges`` / ``after_edges``: (source, target) around the merged nodes.
    Before: each duplicate orange, its edges orange; after: the canonical green with the edges it
    took over blue. Same node positions in both panels. (path, Markdown summary)."""
    duplicates = {m["duplicate_id"] for m in merges}
    canonicals = {m["canonical_id"] for m in merges}
    first = [n for m in merges[:MAX_DRAWN_NODES] for n in (m["canonical_id"], m["duplicate_id"])]
    before = [DrawnEdge(s, t, "absorbed" if {s, t} & duplicates else "plain") for s, t in before_edges]
    had = set(before_edges)
    after = [DrawnEdge(s, t, "added" if (s, t) not in had else "plain") for s, t in after_edges]
    nodes = _capped_nodes(before + after, first)
    positions = layout(nodes, [(e.source, e.target) for e in before + after])
    labels = {n: node_names.get(n, n) for n in nodes}
    colors = {n: "#ff7f0e" for n in duplicates} | {n: "#2ca02c" for n in canonicals}
    after_positions = {n: p for n, p in positions.items() if n not in duplicates}
    dry = " (dry run: the plan, nothing was changed)" if dry_run else ""
    legend = (
        '<p class="legend"><span style="color:#ff7f0e">● duplicate and its edges</span>'
        '<span style="color:#2ca02c">● canonical node</span><span style="color:#1f77b4">━ edge taken over</span>'
        '<span style="color:#bbb">— unchanged</span></p>'
    )
    body = [
        f"<p>merge pass at {created_at.isoformat()}{html.escape(dry)}: {len(merges)} merge(s).</p>",
        legend,
        '<div class="panels">',
        f'<div class="panel"><b>before</b><br>{svg_graph(positions, before, labels, colors)}</div>',
        f'<div class="panel"><b>after</b><br>{svg_graph(after_positions, after, labels, colors)}</div>',
        "</div>",
        f'<p class="muted">drawn: {len(nodes)} node(s) around the merges (at most {MAX_DRAWN_NODES}).</p>',
        f"<h2>merges ({len(merges)})</h2>",
        html_table(list(merges), ["merge_id", "duplicate_name", "canonical_name", "score", "decision", "duplicate_id"]),
    ]
    page = html_page("kg-pipelines duplicate nodes: merge pass", "".join(body))
    path = write_picture(data_dir, "node-merges", created_at, page)
    lines = [f"**merge pass**{dry}: {len(merges)} merge(s)", ""]
    lines += [f"- {m['duplicate_name']} → {m['canonical_name']} ({m.get('merge_id', 'planned')})" for m in merges[:20]]
    lines += ["", f"Before/after picture: `{path}`"]
    return path, "\n".join(lines)
