"""One line per column of every warehouse table, shown in the Dagster UI's column schema.

Keys follow ``SCHEMA`` in ``kg_pipelines.stores.warehouse`` (tests/test_table_docs.py fails when a
column has no description or a description names a column that does not exist), and the words
follow the README's "Tables" section.
"""

from __future__ import annotations

_DOCUMENT_ID = "Document the row comes from (documents.document_id: `<collection>/<relative path>`)."
_CHUNK_ID = "Chunk the row comes from (chunks.chunk_id)."
_COLLECTION = "Knowledge collection of the document (its inbox sub-folder, or `ingest --collection`)."

_EDGE_COLUMNS = {
    "edge_id": "`<edge_type>:<source_id>-><target_id>`.",
    "source_id": "Node the edge starts at (kg_nodes.node_id).",
    "target_id": "Node the edge points to (kg_nodes.node_id).",
    "edge_type": "RELATED (entity -> entity), MENTIONS (chunk -> entity), ANSWERS_IN (question -> chunk), "
    "TITLE_OF (title -> chunk of its document), NAMES (title -> entity of the same normalized name); "
    "implemented_by / requires_env / uses_heuristic between wiki pages (the merger).",
    "strength": "0 to 1: 0.5 when created, then 1 - (1 - strength) x 0.9 for each further supporting document.",
    "activation_count": "How often retrieval activated the edge (0 from the pipeline; kept on re-ingestion).",
    "created_at": "When the edge was created (kept when documents are ingested again).",
    "last_activated_at": "When retrieval last activated the edge; NULL until then.",
    "last_reinforced_at": "When a newly supporting document last reinforced the edge; NULL until then.",
    "created_by": "pipeline / user / merger; ingestion only updates and deletes what the pipeline made.",
    "protected": "True when consolidation must never prune the edge (marked important by a user).",
    "explanation": "Why the edge exists: the relationship description, the entity description (MENTIONS) "
    "or the question (ANSWERS_IN), from the earliest supporting chunk.",
    "keywords": "Distinct relationship tags over all support, sorted (empty for MENTIONS and ANSWERS_IN).",
    "source_topic_key": "topic_key of the source node.",
    "target_topic_key": "topic_key of the target node.",
    "support_count": "Supporting chunks: the edge's rows in kg_edge_support.",
}

_EDGE_SUPPORT_COLUMNS = {
    "edge_id": "Supported edge (kg_edges.edge_id).",
    "document_id": "Document of the supporting chunk; re-ingesting or removing it replaces its support rows.",
    "chunk_id": "Chunk that supports the edge (chunks.chunk_id).",
    "collection": "Collection of the supporting chunk.",
    "explanation": "The edge's explanation as this chunk gives it.",
    "keywords": "Tags this chunk gives the edge (the relationship's tags; empty for MENTIONS and ANSWERS_IN).",
}

COLUMN_DESCRIPTIONS: dict[str, dict[str, str]] = {
    "documents": {
        "document_id": "Stable id and Dagster partition key: `<collection>/<relative path>` "
        "(characters unsafe in keys replaced, plus a short hash when that changed the path).",
        "collection": _COLLECTION,
        "source_path": "Path of the source file the document was read from.",
        "title": "First Markdown heading, else the file name made readable (the file name when Failed).",
        "content_hash": "SHA-256 of the file's bytes: an unchanged hash is an unchanged document; "
        "NULL when the file could not be read at all.",
        "text": "Extracted text (UTF-8 file or PDF text layer, line ends normalized); NULL when the file "
        "could not be read (the document_status view then says Failed).",
        "n_chars": "Length of text in characters (0 when the file could not be read).",
        "error": "Why the last read failed; kept next to the rows of an earlier good version, NULL after a good read.",
        "ingested_at": "When the document was first ingested (kept for new versions of the file).",
        "updated_at": "When the row last changed: a new version read, or a read failure recorded.",
    },
    "document_chunking": {
        "document_id": "Document the chunks stage last built chunks for (documents.document_id).",
        "collection": _COLLECTION,
        "content_hash": "documents.content_hash of the version the chunks were built from; another current "
        "hash means chunking again.",
        "settings_key": "Digest of what else shapes the chunks (chunk_tokens, tokenizer, the summarizer's LLM "
        "fingerprint, the embedding model); a change means chunking again.",
        "n_chunks": "Chunks built for the document (the document_status view checks they are all there).",
        "updated_at": "When the chunks stage last built the document's chunks.",
    },
    "chunks": {
        "chunk_id": "`<document_id>#c0000`: the document id and the chunk's position.",
        "document_id": _DOCUMENT_ID,
        "collection": _COLLECTION,
        "seq": "0-based position of the chunk in its document.",
        "text": "A run of whole sentences of at most chunk_tokens tokens (an overlong sentence is cut at tokens).",
        "token_count": "Tokens in text (offline token counter); at most the chunk_tokens setting.",
        "char_start": "Offset of the chunk's first character in documents.text.",
        "char_end": "Offset just past the chunk's last character in documents.text.",
        "summary": "LLM summary of the chunk, written with prior_summary as context; empty if summarizing failed.",
        "prior_summary": "The last good summary before this chunk, given to the LLM as context (empty for the first).",
        "text_hash": "SHA-1 of text: when it changes, the per-chunk stages run again for the chunk.",
    },
    "chunk_state": {
        "chunk_id": "Chunk this state belongs to (chunks.chunk_id); one row per chunk and stage.",
        "document_id": _DOCUMENT_ID,
        "collection": _COLLECTION,
        "stage": "Per-chunk LLM stage: summarize / extract / questions.",
        "attempts": "Calls made for the chunk in the stage's last round (the first attempt plus retries with backoff).",
        "status": "done / failed (another round runs at next_run_at) / quarantined (after max_retry_rounds "
        "failed rounds: left alone until its input changes or `kg-pipelines retry`).",
        "error_kind": "Why the last round failed: schema (answer outside the contract) / ungrounded (names or "
        "descriptions the chunk does not support) / api (HTTP 429, 4xx, 5xx, connection) / timeout; NULL when done.",
        "last_error": "Message of the last failed attempt; NULL when done.",
        "input_hash": "Digest of the stage's input (the chunk's text, for summarize also the prior summary) and "
        "of its LLM fingerprint (provider, model, prompt, settings); a change runs the stage again.",
        "output_count": "Rows the stage produced for the chunk (1 summary, n entities or questions); 0 is an "
        "explicit empty result or a failed summary, NULL a failed extract or questions round.",
        "dropped": "JSON counts of what post-processing left out of the LLM answer, by reason (empty_name, "
        "unknown_endpoint, self_loop, negated); NULL when nothing was.",
        "rounds": "Failed rounds in a row on the same input (0 when done); at max_retry_rounds the chunk is "
        "quarantined.",
        "updated_at": "When the stage last wrote this state.",
        "next_run_at": "For a failed chunk, when the next round may run (the delay doubles per round; the retry "
        "sensor launches it); NULL when done or quarantined.",
    },
    "entities": {
        "entity_id": "`<chunk_id>/e000`: the chunk id and the entity's position in the chunk's extraction.",
        "chunk_id": _CHUNK_ID,
        "document_id": _DOCUMENT_ID,
        "collection": _COLLECTION,
        "name": "Normalized name: trimmed, ordinary words title-cased, symbols such as SIRT1 or NAD+ kept as written.",
        "entity_type": "One of the configured entity types (lower case).",
        "description": "What the chunk says about the entity (descriptions of duplicates in the chunk merged).",
        "node_id": "Graph node of the entity (kg_nodes.node_id): `<type>:<normalized name>`, "
        "one node across documents and collections.",
    },
    "relationships": {
        "relationship_id": "`<chunk_id>/r000`: the chunk id and the relationship's position in the chunk's extraction.",
        "chunk_id": _CHUNK_ID,
        "document_id": _DOCUMENT_ID,
        "collection": _COLLECTION,
        "source_name": "Normalized name of the entity the relationship starts at (an entity of the same chunk).",
        "target_name": "Normalized name of the entity the relationship points to (an entity of the same chunk).",
        "keywords": "Keywords the LLM gave the relationship (united over duplicates in the chunk).",
        "tags": "The keywords split into single lower-case tags, for search.",
        "description": "What the chunk says about the relationship (descriptions of duplicates merged); "
        "the RELATED edge's explanation.",
        "source_node_id": "Graph node of the source entity (kg_nodes.node_id, `<type>:<normalized name>`).",
        "target_node_id": "Graph node of the target entity (kg_nodes.node_id, `<type>:<normalized name>`).",
    },
    "atomic_questions": {
        "question_id": "`<chunk_id>/q00`: the chunk id and the question's position.",
        "chunk_id": "Chunk that answers the question (chunks.chunk_id); the ANSWERS_IN edge points to it.",
        "document_id": _DOCUMENT_ID,
        "collection": _COLLECTION,
        "seq": "0-based position of the question among its chunk's questions.",
        "question": "A specific question the chunk directly answers (5 to 10 per chunk); embedded in LanceDB "
        "`questions__<collection>`.",
    },
    "kg_nodes": {
        "node_id": "`<entity type>:<normalized name>` for entities, `chunk:<chunk_id>`, `question:<question_id>`.",
        "node_kind": "entity / chunk / question / title (a document title, linked to its chunks and namesake "
        "entity) / wiki_page (a page of the knowledge merger).",
        "node_type": "The entity type for entities, `chunk` for chunks, `atomic_question` for questions.",
        "name": "Entity name, `<document title> [n]` for a chunk, the question for a question "
        "(from the earliest supporting chunk).",
        "description": "Entity description, the chunk's summary (else its first 300 characters), or the question.",
        "topic_key": "`type:<entity type>` for entities, `doc:<document_id>` for chunks and questions, "
        "`type:title` for titles.",
        "energy": "JSON map: collection -> tanh(0.2 x the node's supporting chunks in that collection).",
        "base_weight": "Weight of the node for consolidation and merges (1.0 when the pipeline creates it).",
        "support_count": "Supporting chunks: the node's rows in kg_node_support.",
        "created_by": "pipeline / user / merger; ingestion only updates and deletes what the pipeline made.",
        "created_at": "When the node was created (kept when documents are ingested again).",
        "updated_at": "When ingestion last recomputed the node's name, description, support and energy.",
        "metadata": "JSON object of further attributes (`{}` when the pipeline creates the node).",
        "merge_history": "JSON list of the merges that folded duplicates into this node (`[]` until a merge).",
    },
    "kg_edges": _EDGE_COLUMNS,
    "graph_documents": {
        "document_id": "Document whose stage outputs the graph last consumed (documents.document_id).",
        "collection": _COLLECTION,
        "input_key": "Digest of the document's version, title and chunk_state rows when the graph consumed them; "
        "another current digest makes the graph sync the document again.",
        "updated_at": "When the graph last consumed the document.",
    },
    "kg_node_support": {
        "node_id": "Supported node (kg_nodes.node_id).",
        "document_id": "Document of the supporting chunk; re-ingesting or removing it replaces its support rows.",
        "chunk_id": "Chunk that supports the node (chunks.chunk_id).",
        "collection": "Collection of the supporting chunk (a key of the node's energy map).",
        "name": "The node's name as this chunk gives it.",
        "description": "The node's description as this chunk gives it.",
    },
    "kg_edge_support": _EDGE_SUPPORT_COLUMNS,
    "proposed_pages": {
        "bundle_id": "Page bundle the page came in (JSON file stem or Markdown folder name; its partition key).",
        "page_id": "The page's id in the bundle; its node_id in the graph when the merger creates it.",
        "seq": "Position of the page in the bundle.",
        "page_type": "Workflow, Principle, Implementation, Environment or Heuristic.",
        "title": "The page's title (its node's name).",
        "overview": "The page's overview (its node's description).",
        "content": "The page's Markdown content (kept in the node's metadata.content).",
        "outgoing_links": "JSON list of {target_id, edge_type}; edge types as in the page hierarchy.",
        "bundle_hash": "sha1 of the bundle's bytes (a folder: of its .md files); the same hash is the same bundle.",
        "source_path": "Where the bundle was read from.",
        "loaded_at": "When this content of the bundle was read.",
    },
    "merge_plans": {
        "bundle_id": "Page bundle (proposed_pages.bundle_id).",
        "bundle_hash": "Content hash of the bundle the plan was made from; other content is planned again.",
        "subgraph_id": "The page's sub-graph: `sg<N>-<root page_id>` (a connected component of the bundle's links).",
        "root_id": "Root page of the sub-graph (no page of the bundle links to it).",
        "subgraph_status": "PLANNED, EXECUTING, COMPLETED, FAILED or RETRY (audit failed, another attempt due).",
        "audit_result": "The last failed audit's feedback for the sub-graph; NULL once it passes.",
        "retry_count": "Failed audits of the sub-graph so far (FAILED at merger.max_retries).",
        "page_id": "The proposed page this NodePlan is for.",
        "page_type": "Its page type.",
        "decision": "MERGE (into merge_target_id) or CREATE_NEW.",
        "merge_target_id": "Existing page of the same type, in the parent's scope, merged into; NULL for CREATE_NEW.",
        "best_match_score": "Similarity of the best same-type match in scope; NULL when no search was made "
        "(inherited CREATE_NEW, empty scope).",
        "reason": "Why: the scope searched, the score against the threshold, the LLM's reason, or inheritance.",
        "parent_id": "The lowest parent page in the bundle (closest to the leaves); NULL for a root.",
        "deferred_edges": "JSON list of {parent_id, edge_type, edge_metadata}: edges the parents add when executed.",
        "execution_seq": "Position in the sub-graph's bottom-up execution order.",
        "plan_seq": "Position in the top-down planning order.",
        "status": "PENDING, COMPLETED or FAILED.",
        "result_page_id": "The page's node after execution: the created node or the merge target.",
        "error": "Why the page failed (execution error or audit finding); NULL when COMPLETED.",
        "bundle_status": "The MergePlan's status (as merge_bundles.status), on every row of the bundle.",
        "created_pages": "The MergePlan's created_pages (as merge_bundles), on every row of the bundle.",
        "edited_pages": "The MergePlan's edited_pages (as merge_bundles), on every row of the bundle.",
        "updated_at": "When the row last changed.",
    },
    "merge_bundles": {
        "bundle_id": "Page bundle (the MergePlan of one bundle).",
        "bundle_hash": "Content hash the plan was made from.",
        "source_path": "Where the bundle was read from.",
        "status": "PLANNED, EXECUTING, COMPLETED (every sub-graph) or FAILED (a sub-graph failed its retries).",
        "subgraphs": "Number of sub-graphs.",
        "pages": "Number of proposed pages.",
        "created_pages": "result_page_ids of the pages created (phase 5).",
        "edited_pages": "result_page_ids of the pages merged into (phase 5).",
        "plan_md": "The plan document (plan.md), as of the last run.",
        "planned_at": "When the plan was made.",
        "updated_at": "When the row last changed.",
        "finished_at": "When the last execution ended; NULL before the first.",
    },
    "edge_activations": {
        "activation_id": "Id of the use in the activation queue (activations.sqlite); applied at most once.",
        "edge_id": "Edge that a search path or an answer used (kg_edges.edge_id).",
        "used_by": "What used it: search (a returned graph-search path) or qa (an answer's sources).",
        "used_at": "When the search or answer used the edge.",
        "applied_at": "When the edge_activations asset applied the use to kg_edges.",
        "edge_found": "Whether the edge was still in the graph when applied (false: nothing to update).",
    },
    "retrieval_quality": {
        "measured_at": "When the retrieval_quality asset measured (one measurement = its rows of this time).",
        "collection": "Collection whose labelled questions (<data_dir>/eval/<collection>.jsonl) were asked.",
        "variant": "Ranking variant measured (retrieval.variant: bm25, vector, hybrid, graph_seeded, ...).",
        "k": "Cut-off: the first k distinct document titles retrieved.",
        "questions": "Labelled questions asked.",
        "recall": "recall@k: share of each question's gold titles among the first k titles, averaged.",
        "all_gold": "all-gold@k: share of questions whose gold titles are all among the first k titles.",
        "accepted_recall": "recall@k of the accepted measurement this one was compared with (NULL: none yet).",
        "accepted": "Whether this measurement became the baseline: the first one, no recall@k below the "
        "accepted figure by more than retrieval.quality_tolerance, or accepted on purpose (run config).",
        "labels_hash": "Hash of the labelled file: other questions start a new baseline.",
        "graph_version": "Graph snapshot version the retrieval read.",
    },
    "edge_prune_log": {
        "run_id": "Consolidation run that pruned the edge (consolidation_reports.run_id).",
        "pruned_at": "When the edge was pruned.",
        "edge_id": "The pruned edge (no longer in kg_edges unless restored).",
        "source_id": "Source node of the pruned edge.",
        "target_id": "Target node of the pruned edge.",
        "edge_type": "Type of the pruned edge.",
        "strength": "Stored strength when pruned.",
        "decayed_strength": "Strength after decay by inactive time (the figure compared with the threshold).",
        "days_inactive": "Days since last activated, else reinforced, else created.",
        "reason": "Why it went: the prune rule's conditions that held (weak, inactive, not a bridge, not user-made, "
        "not protected).",
        "restored_at": "When the edge was put back (NULL while it stays pruned).",
        # the rest of the pruned kg_edges row, as it was (restoring the edge re-inserts these columns)
        **{
            name: f"As in kg_edges when pruned: {text[0].lower()}{text[1:]}"
            for name, text in _EDGE_COLUMNS.items()
            if name not in ("edge_id", "source_id", "target_id", "edge_type", "strength")
        },
    },
    "pruned_edge_support": {
        "run_id": "Consolidation run that pruned the edge (edge_prune_log.run_id).",
        "edge_id": "The pruned edge (edge_prune_log.edge_id).",
        **{
            name: f"As in kg_edge_support when pruned: {text[0].lower()}{text[1:]}"
            for name, text in _EDGE_SUPPORT_COLUMNS.items()
            if name != "edge_id"
        },
    },
    "consolidated_edges": {
        "run_id": "Consolidation run that merged the duplicates (consolidation_reports.run_id).",
        "merged_at": "When the merge happened.",
        "edge_id": "The surviving edge (the strongest of its unordered source/target pair).",
        "source_id": "Source node of the surviving edge.",
        "target_id": "Target node of the surviving edge.",
        "edge_type": "Type of the surviving edge (the strongest edge's type).",
        "absorbed_edge_ids": "Edges of the same pair it absorbed (deleted from kg_edges; their support moved to it).",
        "edge_count": "Edges in the group (the N of the explanation's '[Merged N edges]').",
        "old_strength": "The surviving edge's strength before the merge (the group's maximum).",
        "new_strength": "min(1, max + 0.5 x sum(others)), rounded to 2 decimals.",
        "activation_count": "Sum of the group's activation counts.",
        "absorbed_edges": "The absorbed kg_edges rows as a list of structs (original explanations, types, strengths).",
    },
    "edge_aliases": {
        "absorbed_edge_id": "An edge id absorbed by a merge.",
        "edge_id": "The edge that carries it now; ingestion gives new support for the absorbed id to this edge.",
        "run_id": "Consolidation run of the merge, or 'retype' when graph building re-keyed the edge's end "
        "to the node's specific type.",
    },
    "topic_clusters": {
        "topic_key": "Topic key shared by the cluster's nodes (edges' source/target topic keys).",
        "node_ids": "Nodes of the cluster.",
        "node_count": "Number of nodes (at least consolidation.cluster_min_size).",
        "internal_edges": "Edges with both endpoints in the cluster.",
        "connectivity": "internal_edges / (n (n - 1) / 2).",
        "computed_at": "When the summarize run computed it.",
    },
    "communities": {
        "community_id": "Community number (largest first).",
        "node_ids": "Nodes of the community.",
        "node_count": "Number of nodes.",
        "edge_count": "Edges with both endpoints in the community.",
        "top_nodes": "Names of its most connected nodes (weighted degree inside the community).",
        "summary": "Extractive summary (top nodes, types, strongest relations), or the LLM's when one is configured.",
        "summary_method": "extractive or llm.",
        "algorithm": "Community algorithm: louvain (vectorised; resolution consolidation.community_resolution).",
        "computed_at": "When the summarize run computed it.",
    },
    "consolidation_reports": {
        "run_id": "One consolidation run.",
        "operation": "prune, merge-edges or summarize.",
        "dry_run": "True: reported only, nothing changed.",
        "started_at": "When the run started.",
        "finished_at": "When it finished.",
        "edges_before": "Edges in kg_edges before.",
        "edges_after": "Edges after (equal to edges_before in a dry run or for summarize).",
        "affected": "Edges pruned, edges merged away, or topic clusters + communities found.",
        "affected_pct": "affected as % of edges_before (prune and merge).",
        "health_target": "The seed's health target for the operation (pruned 5-15 % per cycle, merged < 5 %, "
        "3-10 clusters).",
        "within_target": "Whether the actual figure is within the target.",
        "settings": "Consolidation settings the run used (JSON).",
        "report": "The operation's report (JSON): totals, pruned ids / surviving edges, clusters.",
        "picture_path": "Before/after HTML picture of the run.",
    },
    "duplicate_candidates": {
        "node_a": "One node of the pair (kg_nodes.node_id; the smaller id).",
        "node_b": "The other node of the pair.",
        "node_type": "Type both nodes share (only nodes of one type are compared).",
        "name_a": "Name of node_a.",
        "name_b": "Name of node_b.",
        "embedding_similarity": "Cosine similarity of the two node vectors (LanceDB graph_nodes).",
        "name_similarity": "1 - Levenshtein distance / longer length, on lower-cased names with `_` as space.",
        "metadata_overlap": "Keys of either node's metadata whose values agree on both / keys of either (0 and not "
        "counted unless both nodes have metadata).",
        "score": "The seed's score: 0.7 x embedding_similarity + 0.2 x name_similarity + 0.1 x metadata_overlap; "
        "(0.7 x embedding_similarity + 0.2 x name_similarity) / 0.9 when not both nodes have metadata.",
        "stage": "Cascade stage that decided: never_merge, person, sibling_names, metadata_conflict, exact_name, "
        "same_tokens, score, grey_zone, llm.",
        "decision": "merge, keep_apart, needs_review (grey zone, offline: for a person in the decisions file).",
        "reason": "Why: the rule, the LLM's answer or the person's decision.",
        "detected_at": "When the detection ran.",
    },
    "node_merges": {
        "merge_id": "One merge (`kg-pipelines unmerge MERGE_ID` undoes it).",
        "merged_at": "When the merge happened.",
        "canonical_id": "Node that stayed and absorbed the duplicate.",
        "duplicate_id": "Node merged away (its id now maps to canonical_id in node_aliases).",
        "canonical_name": "Name of the canonical node.",
        "duplicate_name": "Name of the duplicate.",
        "node_type": "Type of both nodes.",
        "score": "Seed score of the pair when merged.",
        "decision": "Cascade stage that decided the merge (exact_name, score, llm, person), or stated_alias (the "
        "text defines one name as the other).",
        "strategy": "prefer_older / prefer_higher_weight / prefer_more_links, or formation_time, or stated_name "
        "(a stated alias: the name the text prefers stays).",
        "origin": "weekly pass, cli, ui, or graph (formation-time dedup during ingestion).",
        "edges_redirected": "Edges of the duplicate moved onto the canonical node.",
        "edges_combined": "Edges of the duplicate folded into an existing edge of the canonical (weights averaged).",
        "self_loops_dropped": "Edges between the two nodes, dropped (no self-loops).",
        "snapshot": "Both nodes, every edge and support row the merge changed, as they were (JSON): what unmerge "
        "restores.",
        "undone_at": "When `unmerge` undid the merge; NULL while it holds.",
        "evidence": "The sentence stating the two names are one (stated_alias merges); NULL for other merges.",
    },
    "node_aliases": {
        "alias_id": "Node id merged away; graph building files its new support under canonical_id.",
        "canonical_id": "Node that carries the alias now (chains resolve: always a live node).",
        "merge_id": "Merge that made the alias (node_merges.merge_id).",
    },
    "dedup_state": {
        "name": "`formation_checked_until`: entity nodes created after it still await formation-time dedup.",
        "value": "The time.",
    },
    "stated_aliases": {
        "document_id": _DOCUMENT_ID,
        "chunk_id": _CHUNK_ID,
        "collection": _COLLECTION,
        "kind": 'abbreviation ("long form (SHORT)" or "SHORT (long form)", Schwartz-Hearst) or cue '
        '("X, also known as Y", "X, formerly Y", ...: graph/data/alias_cues.txt).',
        "name_a": "The name the text prefers (the long form, or the current name), as written.",
        "name_b": "The other name (the short form, or the former name), as written.",
        "keys_a": "Node keys tried for name_a, longest first (one for an abbreviation; the word-suffixes of the "
        "clause before a cue).",
        "keys_b": "Node keys tried for name_b, longest first (the word-prefixes of the clause after a cue).",
        "evidence": "The sentence that states it (recorded in node_merges.evidence when the nodes merge).",
        "found_at": "When the chunk was read.",
    },
}


def column_description(table: str, column: str) -> str | None:
    """The column's description, None when it has none (yet)."""
    return COLUMN_DESCRIPTIONS.get(table, {}).get(column)
