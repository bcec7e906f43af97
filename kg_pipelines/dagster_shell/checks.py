"""Asset checks: audits of the partition's collection, evaluated in the step of the asset they
guard (as soon as its table is written, on the run's final state of it), with their findings as
metadata. Blocking checks stop the downstream steps of the run when they fail.

The SQL of each audit lives in the core (``kg_pipelines.audits``); this module only reports it.
"""

from dagster import AssetCheckResult, AssetCheckSeverity, AssetCheckSpec, MetadataValue

from kg_pipelines import audits

EXTRACTION_CHECKS = [
    AssetCheckSpec(
        "every_chunk_extracted",
        asset="entities",
        blocking=True,
        description="Every chunk of the collection has an extraction result for its current text and LLM "
        "settings (entities, an explicit empty result, or a recorded failure in chunk_state).",
    ),
    AssetCheckSpec(
        "entities_schema_valid",
        asset="entities",
        blocking=True,
        description="Entity rows obey the schema contract: configured entity_type, non-empty name and "
        "description, a node id matching (name, type).",
    ),
    AssetCheckSpec(
        "relationships_schema_valid",
        asset="relationships",
        blocking=True,
        description="Relationship rows name entities extracted from the same chunk, with a non-empty "
        "description and at least one tag, and no self-loop.",
    ),
]
QUESTION_CHECKS = [
    AssetCheckSpec(
        "questions_per_chunk_in_range",
        asset="atomic_questions",
        blocking=True,
        description="Every chunk with a done question stage has between questions_min and questions_max "
        "distinct, non-empty questions.",
    ),
]
GRAPH_CHECKS = [
    AssetCheckSpec(
        "no_dangling_edges", asset="kg_edges", blocking=True, description="Every edge's source and target is a node."
    ),
    AssetCheckSpec(
        "no_quarantined_chunks",
        asset="kg_nodes",
        blocking=False,
        description="No chunk of the collection is quarantined (failed every retry round). A warning, "
        "with the chunk ids and last errors; `kg-pipelines retry` re-queues them.",
    ),
]


def _result(
    finding: audits.AuditFinding,
    check_name: str,
    asset_key: str,
    severity: AssetCheckSeverity = AssetCheckSeverity.ERROR,
) -> AssetCheckResult:
    return AssetCheckResult(
        passed=finding.passed,
        check_name=check_name,
        asset_key=asset_key,
        severity=severity,
        description=finding.summary,
        metadata={"violations": finding.violations, "examples": MetadataValue.json(finding.examples)},
    )


def extraction_checks(conn, settings, extract_fingerprint: str, collection: str) -> list[AssetCheckResult]:
    return [
        _result(
            audits.chunks_without_extraction(conn, collection, extract_fingerprint), "every_chunk_extracted", "entities"
        ),
        _result(
            audits.invalid_entities(conn, settings.resolved_entity_types, collection),
            "entities_schema_valid",
            "entities",
        ),
        _result(audits.invalid_relationships(conn, collection), "relationships_schema_valid", "relationships"),
    ]


def question_checks(conn, settings, collection: str) -> list[AssetCheckResult]:
    finding = audits.question_counts_out_of_range(conn, settings.questions_min, settings.questions_max, collection)
    return [_result(finding, "questions_per_chunk_in_range", "atomic_questions")]


def graph_checks(conn, collection: str, findings: dict | None = None) -> list[AssetCheckResult]:
    """The graph's checks; ``findings`` (check name -> AuditFinding): audits the graph step already ran."""
    findings = findings or {
        "no_dangling_edges": audits.dangling_edges(conn),
        "no_quarantined_chunks": audits.quarantined_chunks(conn, collection),
    }
    return [
        _result(findings["no_dangling_edges"], "no_dangling_edges", "kg_edges"),
        _result(findings["no_quarantined_chunks"], "no_quarantined_chunks", "kg_nodes", AssetCheckSeverity.WARN),
    ]
