-- Topic clusters (seed 002 section 4): nodes grouped by the topic key their edges give them
-- (source_topic_key for the source, target_topic_key for the target; the full key is the prefix,
-- as the seed keeps it), groups of at least cluster_min_size nodes; connectivity = internal edges
-- / (n (n - 1) / 2). Edges are not changed. Variables: cluster_min_size, consolidation_now.
WITH members AS (
    SELECT e.source_topic_key AS topic_key, e.source_id AS node_id
    FROM kg_edges AS e WHERE coalesce(e.source_topic_key, '') <> ''
    UNION
    SELECT e.target_topic_key AS topic_key, e.target_id AS node_id
    FROM kg_edges AS e WHERE coalesce(e.target_topic_key, '') <> ''
),
sized AS (
    SELECT m.topic_key, count(*) AS node_count
    FROM members AS m GROUP BY m.topic_key
    HAVING count(*) >= getvariable('cluster_min_size')
),
kept AS (
    SELECT m.topic_key, m.node_id FROM members AS m WHERE m.topic_key IN (SELECT sized.topic_key FROM sized)
),
node_lists AS (
    SELECT k.topic_key, list(k.node_id ORDER BY k.node_id) AS node_ids FROM kept AS k GROUP BY k.topic_key
),
internal AS (
    SELECT s.topic_key, count(*) AS internal_edges
    FROM kg_edges AS e
    JOIN kept AS s ON s.node_id = e.source_id
    JOIN kept AS t ON t.node_id = e.target_id AND t.topic_key = s.topic_key
    GROUP BY s.topic_key
)
SELECT
    z.topic_key,
    l.node_ids,
    z.node_count::INTEGER AS node_count,
    coalesce(i.internal_edges, 0) AS internal_edges,
    CASE WHEN z.node_count > 1 THEN coalesce(i.internal_edges, 0) / (z.node_count * (z.node_count - 1) / 2.0)
         ELSE 0 END AS connectivity,
    getvariable('consolidation_now')::TIMESTAMPTZ AS computed_at
FROM sized AS z
JOIN node_lists AS l ON l.topic_key = z.topic_key
LEFT JOIN internal AS i ON i.topic_key = z.topic_key
