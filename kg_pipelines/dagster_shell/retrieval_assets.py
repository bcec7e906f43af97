"""Evaluation as an asset: ``retrieval_quality``, the recall of the current graph on labelled
questions, with a check that warns when it falls below the last accepted figure.

The asset is unpartitioned and downstream of the graph; materialize it after a sync (the
``measure_retrieval_quality`` job, the UI, or `kg-pipelines` runs). Its run config ``accept: true``
accepts a measurement whatever it shows (see ``retrieval/retrieval_quality.py`` for what
"accepted" means).
"""

from dagster import (
    AssetCheckResult,
    AssetCheckSeverity,
    AssetCheckSpec,
    AssetExecutionContext,
    AssetKey,
    Config,
    MaterializeResult,
    MetadataValue,
    asset,
    define_asset_job,
    in_process_executor,
)
from pydantic import Field

from kg_pipelines.retrieval.chunk_retrieval import ChunkRetriever, refresh_fts_index
from kg_pipelines.retrieval.retrieval_quality import eval_dir, measure_quality

from .metadata import definition_metadata, preview_table
from .resources import KGResource

QUALITY_CHECK = AssetCheckSpec(
    "retrieval_quality_not_below_accepted",
    asset="retrieval_quality",
    blocking=False,
    description="Warns when a collection's recall@k falls more than retrieval.quality_tolerance below its last "
    "accepted measurement (same labelled file and variant): a change of extraction, model or consolidation "
    "that hurt retrieval. Materialize with config accept: true to take the new figure as the baseline.",
)


class RetrievalQualityConfig(Config):
    accept: bool = Field(default=False, description="Accept this measurement as the baseline even if it dropped")


@asset(
    name="retrieval_quality",
    group_name="retrieval",
    kinds={"duckdb", "lancedb"},
    deps=[AssetKey("kg_nodes"), AssetKey("kg_edges")],
    pool="duckdb",
    check_specs=[QUALITY_CHECK],
    description="Recall@k and all-gold@k of chunk retrieval on the current graph, per collection that has a "
    "labelled file <data_dir>/eval/<collection>.jsonl ({question, gold_titles} lines). Also folds rows "
    "added since into each collection's full-text index.",
    metadata=definition_metadata("retrieval_quality"),
)
def retrieval_quality(context: AssetExecutionContext, kg: KGResource, config: RetrievalQualityConfig):
    settings = kg.settings
    retriever = ChunkRetriever(settings)
    fts = {}
    for collection in retriever.collections():
        table = retriever.index(collection).table()
        if table is not None:
            fts[collection] = refresh_fts_index(table)
    with kg.warehouse() as conn:
        now = kg.now()
        results = measure_quality(settings, retriever, conn, now, accept=config.accept)
        figures = {
            q.collection: {
                **{f"recall@{k}": round(v, 4) for k, v in q.recall.items()},
                **{f"all_gold@{k}": round(v, 4) for k, v in q.all_gold.items()},
                "questions": q.questions,
                "accepted": q.accepted,
            }
            for q in results
        }
        context.log.info(f"retrieval quality: {figures or 'no labelled collection'}")
        metadata = {
            **preview_table(
                conn,
                "retrieval_quality",
                "measured_at = ?",
                [now],
                ["collection", "k", "recall", "all_gold", "accepted_recall", "accepted"],
            ),
            "variant": settings.retrieval.variant,
            "labelled_collections": len(results),
            "eval_dir": MetadataValue.path(str(eval_dir(settings))),
            "figures": MetadataValue.json(figures),
            "misses": MetadataValue.json({q.collection: q.misses[:10] for q in results}),
            "fts_index": MetadataValue.json(fts),
        }
        for q in results:
            primary = 5 if 5 in q.recall else max(q.recall)
            metadata[f"{q.collection}_recall@{primary}"] = round(q.recall[primary], 4)
    yield MaterializeResult(metadata=metadata)
    dropped = {q.collection: {f"recall@{k}": lost for k, lost in q.drops.items()} for q in results if q.drops}
    yield AssetCheckResult(
        check_name=QUALITY_CHECK.name,
        asset_key="retrieval_quality",
        passed=not dropped or config.accept,
        severity=AssetCheckSeverity.WARN,
        description=(
            "no labelled collection to measure"
            if not results
            else f"recall fell below the accepted figure in {', '.join(sorted(dropped))}"
            + (" (accepted on purpose)" if config.accept else "")
            if dropped
            else "no recall@k below its accepted figure"
        ),
        metadata={
            "drops": MetadataValue.json(dropped),
            "baselines": MetadataValue.json(
                {q.collection: {f"recall@{k}": v for k, v in (q.baseline or {}).items()} for q in results}
            ),
        },
    )


measure_retrieval_quality_job = define_asset_job(
    "measure_retrieval_quality",
    selection=[retrieval_quality],
    executor_def=in_process_executor,
    description="Measure retrieval on the labelled questions of every collection (retrieval_quality).",
)
