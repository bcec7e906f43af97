-- Duplicate edges (seed 002 section 3): edges of the same unordered (source, target) pair, more
-- than one per pair. The strongest edge survives (ties: smallest edge_id) with its own type and
-- direction; new strength = min(1.0, max + 0.5 x sum(others)) rounded to 2 decimals exactly as the
-- seed's Math.round(s * 100) / 100 in doubles: the whole number nearest to the double s * 100, a tie
-- going up (0.7 + 0.5 x 0.41 = 0.9049999999999999 -> 0.9, 0.905 -> 0.91; 0.004999999999999999 -> 0,
-- where floor(s * 100 + 0.5) gives 0.01); the others summed strongest first, as the seed's reduce.
-- Activation counts summed. The absorbed edges come as ids (strongest first) and as whole rows
-- (absorbed_edges, in edge id order, kept by consolidated_edges).
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
),
grouped AS (
    SELECT
        arg_min(r.edge_id, r.rank_in_pair) AS edge_id,
        arg_min(r.source_id, r.rank_in_pair) AS source_id,
        arg_min(r.target_id, r.rank_in_pair) AS target_id,
        arg_min(r.edge_type, r.rank_in_pair) AS edge_type,
        list(r.edge_id ORDER BY r.rank_in_pair) FILTER (WHERE r.rank_in_pair > 1) AS absorbed_edge_ids,
        list_sort(list(r.edge_row) FILTER (WHERE r.rank_in_pair > 1)) AS absorbed_edges,  -- by edge_id, their first field
        count(*)::INTEGER AS edge_count,
        max(r.strength) AS old_strength,
        -- DOUBLE throughout: max + 0.5 x (the others summed in rank order, from 0 as the seed's reduce)
        least(
            1.0::DOUBLE,
            max(r.strength)
            + 0.5::DOUBLE
            * coalesce(list_sum(list(r.strength ORDER BY r.rank_in_pair) FILTER (WHERE r.rank_in_pair > 1)), 0.0)
        ) * 100.0::DOUBLE AS strength_x100,
        sum(r.activation_count)::INTEGER AS activation_count,
        bool_or(r.protected) AS protected,
        bool_or(r.created_by = 'user') AS user_made
    FROM ranked AS r
    GROUP BY r.pair_a, r.pair_b
    HAVING count(*) > 1
)
SELECT
    g.edge_id,
    g.source_id,
    g.target_id,
    g.edge_type,
    g.absorbed_edge_ids,
    g.absorbed_edges,
    g.edge_count,
    g.old_strength,
    -- Math.round: floor, plus one when the fraction (exact in doubles) is at least one half
    (floor(g.strength_x100) + CASE WHEN g.strength_x100 - floor(g.strength_x100) >= 0.5 THEN 1 ELSE 0 END)
    / 100.0::DOUBLE AS new_strength,
    g.activation_count,
    g.protected,
    g.user_made
FROM grouped AS g
