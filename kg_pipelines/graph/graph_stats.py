"""Small figures about the graph, published as a JSON file beside the warehouse after every graph
write (``<data_dir>/graph_stats.json``), so schedules and sensors can decide without opening DuckDB
(a run may hold its lock): edges, nodes, when the first edge was made.

``consolidation_skip_reason`` is the seed's gate (seed 002 section 5.2): the feature flag first,
then at least ``min_edges`` edges, then a graph at least ``min_graph_age_days`` old.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from kg_pipelines.stores.files import write_text_atomically

STATS_FILE = "graph_stats.json"


def stats_path(data_dir: Path) -> Path:
    return Path(data_dir) / STATS_FILE


def publish_graph_stats(conn, data_dir: Path, now: datetime | None = None) -> dict:
    """Write the current figures atomically; the figures."""
    edges, nodes = conn.execute("SELECT (SELECT count(*) FROM kg_edges), (SELECT count(*) FROM kg_nodes)").fetchall()[0]
    first = conn.execute("SELECT min(created_at) FROM kg_edges").fetchall()[0][0]
    stats = {
        "edges": int(edges),
        "nodes": int(nodes),
        "first_edge_at": first.astimezone(UTC).isoformat() if first else None,
        "updated_at": (now or datetime.now(UTC)).isoformat(),
    }
    write_text_atomically(stats_path(data_dir), json.dumps(stats))
    return stats


def read_graph_stats(data_dir: Path) -> dict | None:
    """The last published figures, None when none were published (or the file is unreadable)."""
    try:
        return json.loads(stats_path(data_dir).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def consolidation_skip_reason(settings, stats: dict | None, now: datetime) -> str | None:
    """Why a scheduled consolidation must not run now, or None when it may."""
    options = settings.consolidation
    if not options.enabled:
        return (
            "the graph-health schedules are disabled (consolidation.enabled: false in kg.yaml); "
            "set it to true to let them run"
        )
    if stats is None:
        return f"no graph figures published yet ({STATS_FILE} is written after each graph write): nothing ingested"
    if stats["edges"] < options.min_edges:
        return f"the graph has {stats['edges']} edges, fewer than consolidation.min_edges = {options.min_edges}"
    first = datetime.fromisoformat(stats["first_edge_at"]) if stats.get("first_edge_at") else None
    age_days = (now - first).total_seconds() / 86400 if first else 0.0
    if age_days < options.min_graph_age_days:
        return (
            f"the graph is {age_days:.1f} days old (first edge {stats.get('first_edge_at')}), younger than "
            f"consolidation.min_graph_age_days = {options.min_graph_age_days:g}"
        )
    return None
