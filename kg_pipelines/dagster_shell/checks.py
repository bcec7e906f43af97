"""Asset checks: audits that run after the tables they guard, with their findings as metadata.

The SQL of each audit lives in the core (``kg_pipelines.audits``); this module only reports it.
"""


from dagster import AssetCheckResult, AssetCheckSeverity, MetadataValue, asset_check

from kg_pipelines import audits

from .resources import KGResource


def _result(finding: audits.AuditFinding, check_name: str | None = None, asset_key: str | None = None) -> AssetCheckResult:
    return AssetCheckResult(
        passed=finding.passed,
        check_name=check_name,
        asset_key=asset_key,
        severity=AssetCheckSeverity.ERROR,
        description=finding.summary,
        metadata={"violations": finding.violations, "examples": MetadataValue.json(finding.examples)},
    )


def dangling_edges_result(conn) -> AssetCheckResult:
    return _result(audits.dangling_edges(conn), "no_dangling_edges", "kg_edges")


@asset_check(asset="entities", blocking=True, pool="duckdb",
             description="Every chunk of a Done document has an extraction result (entities, or an explicit "
             "empty result recorded in chunk_state).")
def every_done_chunk_extracted(kg: KGResource) -> AssetCheckResult:
    with kg.warehouse() as conn:
        return _result(audits.done_chunks_without_extraction(conn))


@asset_check(asset="entities", blocking=True, pool="duckdb",
             description="Entity rows obey the schema contract: configured entity_type, non-empty name and "
             "description, a node id matching (name, type).")
def entities_schema_valid(kg: KGResource) -> AssetCheckResult:
    with kg.warehouse() as conn:
        return _result(audits.invalid_entities(conn, kg.settings.resolved_entity_types))


@asset_check(asset="relationships", blocking=True, pool="duckdb",
             description="Relationship rows name entities extracted from the same chunk, with a non-empty "
             "description and at least one tag.")
def relationships_schema_valid(kg: KGResource) -> AssetCheckResult:
    with kg.warehouse() as conn:
        return _result(audits.invalid_relationships(conn))


@asset_check(asset="atomic_questions", blocking=True, pool="duckdb",
             description="Every chunk with a done question stage has between questions_min and questions_max "
             "distinct, non-empty questions.")
def questions_per_chunk_in_range(kg: KGResource) -> AssetCheckResult:
    with kg.warehouse() as conn:
        s = kg.settings
        return _result(audits.question_counts_out_of_range(conn, s.questions_min, s.questions_max))


ASSET_CHECKS = [every_done_chunk_extracted, entities_schema_valid, relationships_schema_valid, questions_per_chunk_in_range]
