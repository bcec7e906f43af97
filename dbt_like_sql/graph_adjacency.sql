-- The graph's adjacency (seed 002 "adjacency index"): one row per edge end, both directions of
-- every edge. A node without edges (an orphan, e.g. after pruning) has no row here: it leaves the
-- graph view while its data stays in kg_nodes.
SELECT e.source_id AS node_id, e.target_id AS neighbor_id, e.edge_id, e.edge_type, e.strength
FROM kg_edges AS e
UNION ALL
SELECT e.target_id AS node_id, e.source_id AS neighbor_id, e.edge_id, e.edge_type, e.strength
FROM kg_edges AS e
