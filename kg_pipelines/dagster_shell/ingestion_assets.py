"""Ingestion assets, partitioned by knowledge collection: documents -> chunks -> entities,
relationships, atomic_questions. A run of a partition syncs that collection: each asset compares
its input with what it built before, does only the difference (new, changed, due for a retry,
removed), writes only its own tables and reports what it did per document.
"""

from dagster import AssetExecutionContext, AssetSpec, MaterializeResult, asset, multi_asset

from kg_pipelines.ingestion.chunking import sync_chunks
from kg_pipelines.ingestion.documents import sync_documents
from kg_pipelines.ingestion.extraction import extract_chunks
from kg_pipelines.ingestion.questions import generate_questions
from kg_pipelines.ingestion.tokens import default_token_counter

from .checks import EXTRACTION_CHECKS, QUESTION_CHECKS, extraction_checks, question_checks
from .metadata import activity_table, definition_metadata, table_metadata
from .partitions import collections_partitions
from .resources import KGResource

PARTITIONED = dict(partitions_def=collections_partitions, pool="duckdb")
# Extraction and the questions both follow the chunks; of two steps ready at once Dagster runs the
# one with the higher ``dagster/priority`` first (without it, atomic_questions ran first). The
# offline provider analyses a chunk once for its summary, extraction and questions, and drops the
# analysis after the questions, the last of the three: in the other order extraction analysed
# every chunk a second time (+1.3 s of CPU on HotpotQA as 10 long documents, 4 % of the run).
# Lineage is unchanged; the priority also ranks the step's claim on the duckdb pool.
BEFORE_QUESTIONS = {"dagster/priority": "1"}


@asset(
    group_name="ingestion",
    kinds={"duckdb"},
    description="One row per document of the collection: text, title (first Markdown heading, else the file "
    "name), content hash, and for bad input the error. Synced with the source registry: new and changed "
    "files are read, removed ones deleted. Status (Done / PartiallyFailed / Failed / Pending) is the "
    "document_status view, derived from chunk_state.",
    metadata=definition_metadata("documents"),
    **PARTITIONED,
)
def documents(context: AssetExecutionContext, kg: KGResource) -> MaterializeResult:
    with kg.stage(context) as (ctx, scope):
        report = sync_documents(ctx, scope, kg.registry().for_collection(scope.collection))
        kg.registry().forget(report.gone)
        errors, n_errors = sorted(report.activity.errors.items()), report.activity.documents_with_error
        for document_id, done in errors[:20]:  # each log line is an event: the rest are in this_run
            context.log.warning(f"{document_id}: {done['status']}: {done['error']}")
        if n_errors > 20:
            context.log.warning(f"... and {n_errors - 20} more document(s) with errors (see this_run)")
        meta = table_metadata(ctx.conn, "documents", scope, ["document_id", "title", "error", "n_chars"])
    return MaterializeResult(
        metadata={
            **meta,
            "read": report.read,
            "unchanged": report.unchanged,
            "failed": report.failed,
            "kept_previous_version": report.kept_previous,
            "removed": report.removed,
            "this_run": activity_table(report.activity, ["status", "error"]),
        }
    )


@asset(
    group_name="ingestion",
    kinds={"duckdb", "lancedb"},
    deps=[documents],
    description="Context-aware sequential chunks (seed 003): ~chunk_tokens-token blocks of whole sentences, "
    "each summarized by the LLM with the previous block's summary as context. Vectors go to LanceDB "
    "table chunks__<collection>.",
    metadata=definition_metadata("chunks"),
    **PARTITIONED,
)
def chunks(context: AssetExecutionContext, kg: KGResource) -> MaterializeResult:
    with kg.stage(context) as (ctx, scope):
        report = sync_chunks(ctx, scope, default_token_counter())
        kg.publish_retries(ctx.conn, scope.collection)
        meta = table_metadata(ctx.conn, "chunks", scope, ["chunk_id", "token_count", "summary", "prior_summary"])
    stats = {k: v for k, v in vars(report).items() if k != "activity"}
    return MaterializeResult(
        metadata={
            **meta,
            **stats,
            **ctx.llm.counters.snapshot(),
            "this_run": activity_table(report.activity, ["status", "chunks", "summaries_failed"]),
        }
    )


@multi_asset(
    specs=[
        AssetSpec(
            "entities",
            group_name="ingestion",
            kinds={"duckdb"},
            deps=[chunks],
            description="Entities per chunk, validated against the schema contract (entity_type from the "
            "configured types, non-empty description grounded in the chunk), deduplicated by (name, type), "
            "names title-cased and trimmed.",
            metadata=definition_metadata("entities"),
        ),
        AssetSpec(
            "relationships",
            group_name="ingestion",
            kinds={"duckdb"},
            deps=[chunks],
            description="Relationships per chunk between extracted entities, with keywords split into tags.",
            metadata=definition_metadata("relationships"),
        ),
    ],
    check_specs=EXTRACTION_CHECKS,
    op_tags=BEFORE_QUESTIONS,
    **PARTITIONED,
)
def extract_entities_relationships(context: AssetExecutionContext, kg: KGResource):
    with kg.stage(context) as (ctx, scope):
        report = extract_chunks(ctx, scope)
        kg.publish_retries(ctx.conn, scope.collection)
        for kind, n in report.errors.items():
            context.log.warning(f"{n} chunk(s) failed extraction after retries ({kind}); see chunk_state")
        stats = {
            **report.stats(),
            **ctx.llm.counters.snapshot(),
            "this_run": activity_table(report.activity, ["chunks", "failed", "entities", "relationships", "error"]),
        }
        yield MaterializeResult(
            asset_key="entities",
            metadata={
                **table_metadata(ctx.conn, "entities", scope, ["name", "entity_type", "description", "chunk_id"]),
                **stats,
                "entities_written": report.rows["entities"],
            },
        )
        yield MaterializeResult(
            asset_key="relationships",
            metadata={
                **table_metadata(
                    ctx.conn, "relationships", scope, ["source_name", "target_name", "tags", "description"]
                ),
                **stats,
                "relationships_written": report.rows["relationships"],
            },
        )
        yield from extraction_checks(ctx.conn, ctx.settings, ctx.llm.fingerprint("extract"), scope.collection)


@asset(
    group_name="ingestion",
    kinds={"duckdb", "lancedb"},
    deps=[chunks],
    description="5-10 atomic questions per chunk that the chunk directly answers (seed 003, rationale "
    "index). Vectors go to LanceDB table questions__<collection>; the graph links each to its chunk "
    "(ANSWERS_IN).",
    metadata=definition_metadata("atomic_questions"),
    check_specs=QUESTION_CHECKS,
    **PARTITIONED,
)
def atomic_questions(context: AssetExecutionContext, kg: KGResource):
    with kg.stage(context) as (ctx, scope):
        report = generate_questions(ctx, scope)
        kg.publish_retries(ctx.conn, scope.collection)
        yield MaterializeResult(
            metadata={
                **table_metadata(ctx.conn, "atomic_questions", scope, ["question", "chunk_id"]),
                **report.stats(),
                **ctx.llm.counters.snapshot(),
                "questions_written": report.rows["atomic_questions"],
                "this_run": activity_table(report.activity, ["chunks", "failed", "atomic_questions", "error"]),
            }
        )
        yield from question_checks(ctx.conn, ctx.settings, scope.collection)
