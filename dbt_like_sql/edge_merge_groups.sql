-- Duplicate edges (seed 002 section 3): edges of the same unordered (source, target) pair, more
-- than one per pair. The strongest edge survives (ties: smallest edge_id) with its own type and
-- direction; new strength = min(1.0, max + 0.5 x sum(others)) rounded to 2 decimals (half up, as
-- the seed's Math.round); activation counts summed. The absorbed edges come as ids (strongest
-- first) and as whole rows (absorbed_edges, in edge id order, kept by consolidated_edges).
-- Structural edges (variable structural_edge_types: MENTIONS, ANSWERS_IN, TITLE_OF, NAMES by
-- default) are derived from a document's own rows and are never merged: they take no part in the
-- grouping.
-- Pairs are first found by a hash of the pair (one 64-bit key to group, not two strings); two
-- pairs that share a hash by chance are told apart by the exact grouping at the end.
WITH knowledge_edges AS NOT MATERIALIZED (
    SELECT * FROM kg_edges AS k
    WHERE NOT list_contains(getvariable('structural_edge_types'), k.edge_type)
),
shared AS MATERIALIZED (  -- the edges of pairs seen more than once (a few percent)
    SELECT e.*
    FROM knowledge_edges AS e
    WHERE hash(least(e.source_id, e.target_id), greatest(e.source_id, e.target_id)) IN (
        -- pairs by their hash (a collision only adds pairs that the grouping below sees alone:
        -- those are filtered out by their count in the pair)
        SELECT hash(least(d.source_id, d.target_id), greatest(d.source_id, d.target_id)) AS pair_hash
        FROM knowledge_edges AS d
        GROUP BY pair_hash
        HAVING count(*) > 1
    )
),
ranked AS (
    SELECT
        e.*,
        e AS edge_row,
        least(e.source_id, e.target_id) AS pair_a,
        greatest(e.source_id, e.target_id) AS pair_b,
        row_number() OVER (PARTITION BY pair_a, pair_b ORDER BY e.strength DESC, e.edge_id) AS rank_in_pair
    FROM shared AS e
)
SELECT
    arg_min(r.edge_id, r.rank_in_pair) AS edge_id,
    arg_min(r.source_id, r.rank_in_pair) AS source_id,
    arg_min(r.target_id, r.rank_in_pair) AS target_id,
    arg_min(r.edge_type, r.rank_in_pair) AS edge_type,
    list(r.edge_id ORDER BY r.rank_in_pair) FILTER (WHERE r.rank_in_pair > 1) AS absorbed_edge_ids,
    list_sort(list(r.edge_row) FILTER (WHERE r.rank_in_pair > 1)) AS absorbed_edges,  -- by edge_id, their first field
    count(*)::INTEGER AS edge_count,
    max(r.strength) AS old_strength,
    floor(
        least(
            1.0,
            max(r.strength)
            + 0.5 * coalesce(list_sum(list(r.strength ORDER BY r.rank_in_pair) FILTER (WHERE r.rank_in_pair > 1)), 0)
        ) * 100 + 0.5
    ) / 100 AS new_strength,
    sum(r.activation_count)::INTEGER AS activation_count,
    bool_or(r.protected) AS protected,
    bool_or(r.created_by = 'user') AS user_made
FROM ranked AS r
GROUP BY r.pair_a, r.pair_b
HAVING count(*) > 1
