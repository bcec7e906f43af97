-- Every edge with the figures the prune rule reads (seed 002 section 2).
-- Variables (set by the caller): consolidation_now, prune_threshold, min_inactive_days,
-- decay_half_life_days (0: no decay, the seed's rule exactly), structural_edge_types.
-- structural: an edge derived from a document's own rows (MENTIONS, ANSWERS_IN, TITLE_OF, NAMES by
-- default): never pruned (it goes when its document goes), still part of the adjacency.
-- is_candidate: weak (decayed strength < threshold) AND inactive AND not user-made AND not protected
-- AND not structural.
-- seed_bridge: the seed's isBridgeEdge, the only edge of either endpoint in the adjacency.
-- source_node / target_node: the endpoints' numbers among the adjacency's nodes (0 .. nodes - 1, in
-- no particular order), so that graph algorithms work on integers without a join of their own.
-- True bridges (removal disconnects a component) need a graph algorithm: Python adds them.
WITH degree AS (
    SELECT a.node_id, count(*) AS degree, (row_number() OVER () - 1)::INTEGER AS node_number
    FROM graph_adjacency AS a GROUP BY a.node_id
),
scored AS (
    SELECT
        e.edge_id, e.source_id, e.target_id, e.edge_type, e.strength, e.created_by, e.protected,
        coalesce(e.last_activated_at, e.last_reinforced_at, e.created_at) AS last_active_at,
        epoch_ms(getvariable('consolidation_now')::TIMESTAMPTZ) - epoch_ms(last_active_at) AS inactive_ms
    FROM kg_edges AS e
)
SELECT
    s.edge_id, s.source_id, s.target_id, s.edge_type, s.strength, s.created_by, s.protected,
    s.last_active_at,
    s.inactive_ms / 86400000.0 AS days_inactive,
    CASE
        WHEN getvariable('decay_half_life_days') > 0
            THEN s.strength * pow(0.5, greatest(days_inactive, 0) / getvariable('decay_half_life_days'))
        ELSE s.strength
    END AS decayed_strength,
    decayed_strength < getvariable('prune_threshold') AS weak,
    days_inactive >= getvariable('min_inactive_days') AS inactive,
    s.created_by = 'user' AS user_made,
    list_contains(getvariable('structural_edge_types'), s.edge_type) AS structural,
    least(sd.degree, td.degree) <= 1 AS seed_bridge,
    weak AND inactive AND NOT user_made AND NOT s.protected AND NOT structural AS is_candidate,
    sd.node_number AS source_node,
    td.node_number AS target_node
FROM scored AS s
LEFT JOIN degree AS sd ON sd.node_id = s.source_id
LEFT JOIN degree AS td ON td.node_id = s.target_id
