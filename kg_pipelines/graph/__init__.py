"""The one graph: incremental building, removal (later consolidation and deduplication)."""
