"""The single ``Definitions`` of kg-pipelines (loaded by workspace.yaml and `dagster dev`)."""

from dagster import Definitions

from kg_pipelines.dagster_shell.activation_assets import activations_sensor, apply_activations_job, edge_activations
from kg_pipelines.dagster_shell.consolidation_assets import CONSOLIDATION_ASSETS
from kg_pipelines.dagster_shell.dedup_assets import DEDUP_ASSETS, DEDUP_JOBS
from kg_pipelines.dagster_shell.graph_assets import knowledge_graph
from kg_pipelines.dagster_shell.ingestion_assets import (
    atomic_questions,
    chunks,
    documents,
    extract_entities_relationships,
)
from kg_pipelines.dagster_shell.jobs import CONSOLIDATION_JOBS, merge_page_bundle_job, sync_collection_job
from kg_pipelines.dagster_shell.merger_assets import merge_plans, merged_wiki_pages, proposed_pages
from kg_pipelines.dagster_shell.merger_sensor import page_bundle_sensor
from kg_pipelines.dagster_shell.resources import KGResource
from kg_pipelines.dagster_shell.retrieval_assets import measure_retrieval_quality_job, retrieval_quality
from kg_pipelines.dagster_shell.schedules import GRAPH_HEALTH_SCHEDULES
from kg_pipelines.dagster_shell.sensors import inbox_sensor, retry_sensor
from kg_pipelines.dagster_shell.sql_models import sql_model_assets

defs = Definitions(
    assets=[
        documents,
        chunks,
        extract_entities_relationships,
        atomic_questions,
        knowledge_graph,
        proposed_pages,
        merge_plans,
        merged_wiki_pages,
        edge_activations,
        retrieval_quality,
        *sql_model_assets(),
        *CONSOLIDATION_ASSETS,
        *DEDUP_ASSETS,
    ],
    jobs=[
        sync_collection_job,
        merge_page_bundle_job,
        apply_activations_job,
        measure_retrieval_quality_job,
        *CONSOLIDATION_JOBS.values(),
        *DEDUP_JOBS,
    ],
    schedules=GRAPH_HEALTH_SCHEDULES,  # all four RUNNING by default, gated by consolidation.enabled
    sensors=[inbox_sensor, retry_sensor, page_bundle_sensor, activations_sensor],
    resources={"kg": KGResource()},
)
