"""Ingestion assets, partitioned by document: documents -> chunks -> entities, relationships,
atomic_questions. Each reads its inputs from the warehouse, calls the core, writes its table(s)
for the run's partitions and reports what it wrote.

``BackfillPolicy.single_run()`` lets one run process a range of documents, so bulk ingestion pays
Dagster's per-run cost once and embeds across documents in batches.
"""


from dataclasses import asdict

from dagster import AssetExecutionContext, AssetSpec, BackfillPolicy, MaterializeResult, asset, multi_asset

from kg_pipelines.ingestion.chunking import build_chunks
from kg_pipelines.ingestion.documents import load_documents
from kg_pipelines.ingestion.extraction import extract_chunks
from kg_pipelines.progress import StageProgress
from kg_pipelines.ingestion.questions import generate_questions
from kg_pipelines.ingestion.tokens import default_token_counter

from .metadata import definition_metadata, table_metadata
from .partitions import documents_partitions
from .resources import KGResource

PARTITIONED = dict(partitions_def=documents_partitions, backfill_policy=BackfillPolicy.single_run(), pool="duckdb")


def _chunk_progress(context: AssetExecutionContext, stage: str):
    """Progress over the chunks a stage actually processes (it knows how many once it starts)."""
    return lambda total: StageProgress(f"{stage} (chunks)", total, context.log.info)


def _chunk_stage_stats(report, llm) -> dict:
    return {"chunks": report.chunks, "chunks_processed": report.chunks_processed,
            "chunks_failed": report.chunks_failed, **llm.counters.snapshot()}


@asset(
    group_name="ingestion",
    kinds={"duckdb"},
    description="One row per document: text, collection, title (first Markdown heading, else the file "
    "name), content hash, status (Pending / Done / PartiallyFailed / Failed) and, for bad input, the error.",
    metadata=definition_metadata("documents"),
    **PARTITIONED,
)
def documents(context: AssetExecutionContext, kg: KGResource) -> MaterializeResult:
    ids = list(context.partition_keys)
    with kg.warehouse() as conn:
        report = load_documents(conn, kg.registry().lookup(ids), ids, int(kg.settings.max_document_mb * 1e6), kg.now())
        for document_id, message in (report.errors or {}).items():
            context.log.warning(f"{document_id}: {message}")
        for document_id in report.unregistered or []:
            context.log.warning(f"{document_id}: no source file is registered for this partition; skipped")
        meta = table_metadata(conn, "documents", ids, ["document_id", "collection", "title", "status", "error", "n_chars"])
    return MaterializeResult(
        metadata={**meta, "read": report.read, "unchanged": report.unchanged, "failed": report.failed,
                  "kept_previous_version": report.kept_previous, "unregistered": len(report.unregistered or [])}
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
    ids = list(context.partition_keys)
    llm = kg.llm_client()
    with kg.warehouse() as conn:
        report = build_chunks(
            conn, kg.vectors(), lambda cid, text, prior: llm.summarize(cid, text, prior).summary, kg.embedder, ids,
            kg.settings.chunk_tokens, default_token_counter(), kg.retry_policy(), kg.workers, kg.now(),
            StageProgress("chunk + summarize (documents)", len(ids), context.log.info),
        )
        meta = table_metadata(conn, "chunks", ids, ["chunk_id", "seq", "token_count", "summary", "prior_summary"])
    return MaterializeResult(metadata={**meta, **asdict(report), **llm.counters.snapshot()})


@multi_asset(
    specs=[
        AssetSpec("entities", group_name="ingestion", kinds={"duckdb"}, deps=[chunks],
                  description="Entities per chunk, validated against the schema contract (entity_type from the "
                  "configured types, non-empty grounded description), deduplicated by (name, type), names "
                  "title-cased and trimmed.", metadata=definition_metadata("entities")),
        AssetSpec("relationships", group_name="ingestion", kinds={"duckdb"}, deps=[chunks],
                  description="Relationships per chunk between extracted entities, with keywords split into tags.",
                  metadata=definition_metadata("relationships")),
    ],
    **PARTITIONED,
)
def extract_entities_relationships(context: AssetExecutionContext, kg: KGResource):
    ids = list(context.partition_keys)
    llm = kg.llm_client()
    with kg.warehouse() as conn:
        report = extract_chunks(conn, llm.extract, ids, kg.retry_policy(), kg.workers, kg.now(),
                                progress=_chunk_progress(context, "extract"))
        for kind, n in report.errors.items():
            context.log.warning(f"{n} chunk(s) failed extraction after retries ({kind}); see chunk_state")
        stats = _chunk_stage_stats(report, llm)
        yield MaterializeResult(asset_key="entities", metadata={
            **table_metadata(conn, "entities", ids, ["name", "entity_type", "description", "chunk_id"]),
            **stats, "entities_written": report.rows["entities"]})
        yield MaterializeResult(asset_key="relationships", metadata={
            **table_metadata(conn, "relationships", ids, ["source_name", "target_name", "tags", "description"]),
            **stats, "relationships_written": report.rows["relationships"]})


@asset(
    group_name="ingestion",
    kinds={"duckdb", "lancedb"},
    deps=[chunks],
    description="5-10 atomic questions per chunk that the chunk directly answers (seed 003, rationale "
    "index). Vectors go to LanceDB table questions__<collection>; the graph links each to its chunk "
    "(ANSWERS_IN).",
    metadata=definition_metadata("atomic_questions"),
    **PARTITIONED,
)
def atomic_questions(context: AssetExecutionContext, kg: KGResource) -> MaterializeResult:
    ids = list(context.partition_keys)
    llm = kg.llm_client()
    with kg.warehouse() as conn:
        report = generate_questions(conn, kg.vectors(), llm.atomic_questions, kg.embedder, ids, kg.retry_policy(),
                                    kg.workers, kg.now(), progress=_chunk_progress(context, "questions"))
        meta = table_metadata(conn, "atomic_questions", ids, ["question", "chunk_id"])
    return MaterializeResult(metadata={
        **meta, **_chunk_stage_stats(report, llm), "questions_written": report.rows["atomic_questions"]})
