"""Asset checks: audits of the partition's collection that run after the tables they guard, with
their findings as metadata. Blocking checks stop the downstream steps of the run when they fail.

The SQL of each audit lives in the core (``kg_pipelines.audits``); this module only reports it.
"""

import warnings

from dagster import AssetCheckExecutionContext, AssetCheckResult, AssetCheckSeverity, MetadataValue, asset_check
from dagster._utils.warnings import PreviewWarning

# checks partitioned like their assets are "preview" in Dagster 1.13; a check must see its partition
warnings.filterwarnings("ignore", category=PreviewWarning)

from kg_pipelines import audits

from .partitions import collections_partitions
from .resources import KGResource

PARTITIONED_CHECK = dict(partitions_def=collections_partitions, pool="duckdb")


def _result(finding: audits.AuditFinding, check_name: str | None = None, asset_key: str | None = None,
            severity: AssetCheckSeverity = AssetCheckSeverity.ERROR) -> AssetCheckResult:
    return AssetCheckResult(
        passed=finding.passed,
        check_name=check_name,
        asset_key=asset_key,
        severity=severity,
        description=finding.summary,
        metadata={"violations": finding.violations, "examples": MetadataValue.json(finding.examples)},
    )


def dangling_edges_result(conn) -> AssetCheckResult:
    return _result(audits.dangling_edges(conn), "no_dangling_edges", "kg_edges")


@asset_check(asset="entities", blocking=True, **PARTITIONED_CHECK,
             description="Every chunk of the collection has an extraction result for its current text and LLM "
             "settings (entities, an explicit empty result, or a recorded failure in chunk_state).")
def every_chunk_extracted(context: AssetCheckExecutionContext, kg: KGResource) -> AssetCheckResult:
    with kg.warehouse() as conn:
        return _result(audits.chunks_without_extraction(conn, context.partition_key, kg.llm_client().fingerprint("extract")))


@asset_check(asset="entities", blocking=True, **PARTITIONED_CHECK,
             description="Entity rows obey the schema contract: configured entity_type, non-empty name and "
             "description, a node id matching (name, type).")
def entities_schema_valid(context: AssetCheckExecutionContext, kg: KGResource) -> AssetCheckResult:
    with kg.warehouse() as conn:
        return _result(audits.invalid_entities(conn, kg.settings.resolved_entity_types, context.partition_key))


@asset_check(asset="relationships", blocking=True, **PARTITIONED_CHECK,
             description="Relationship rows name entities extracted from the same chunk, with a non-empty "
             "description and at least one tag.")
def relationships_schema_valid(context: AssetCheckExecutionContext, kg: KGResource) -> AssetCheckResult:
    with kg.warehouse() as conn:
        return _result(audits.invalid_relationships(conn, context.partition_key))


@asset_check(asset="atomic_questions", blocking=True, **PARTITIONED_CHECK,
             description="Every chunk with a done question stage has between questions_min and questions_max "
             "distinct, non-empty questions.")
def questions_per_chunk_in_range(context: AssetCheckExecutionContext, kg: KGResource) -> AssetCheckResult:
    with kg.warehouse() as conn:
        s = kg.settings
        return _result(audits.question_counts_out_of_range(conn, s.questions_min, s.questions_max, context.partition_key))


@asset_check(asset="kg_nodes", blocking=False, **PARTITIONED_CHECK,
             description="No chunk of the collection is quarantined (failed every retry round). A warning, with "
             "the chunk ids and last errors; `kg-pipelines retry` re-queues them.")
def no_quarantined_chunks(context: AssetCheckExecutionContext, kg: KGResource) -> AssetCheckResult:
    with kg.warehouse() as conn:
        return _result(audits.quarantined_chunks(conn, context.partition_key), severity=AssetCheckSeverity.WARN)


ASSET_CHECKS = [every_chunk_extracted, entities_schema_valid, relationships_schema_valid, questions_per_chunk_in_range,
                no_quarantined_chunks]
