"""The single ``Definitions`` of kg-pipelines (loaded by workspace.yaml and `dagster dev`)."""

from dagster import Definitions

from kg_pipelines.dagster_shell.consolidation_assets import CONSOLIDATION_ASSETS
from kg_pipelines.dagster_shell.dedup_assets import DEDUP_ASSETS, DEDUP_JOBS, DEDUP_SCHEDULES
from kg_pipelines.dagster_shell.graph_assets import knowledge_graph
from kg_pipelines.dagster_shell.ingestion_assets import (
    atomic_questions,
    chunks,
    documents,
    extract_entities_relationships,
)
from kg_pipelines.dagster_shell.jobs import CONSOLIDATION_JOBS, sync_collection_job
from kg_pipelines.dagster_shell.resources import KGResource
from kg_pipelines.dagster_shell.schedules import CONSOLIDATION_SCHEDULES
from kg_pipelines.dagster_shell.sensors import inbox_sensor, retry_sensor
from kg_pipelines.dagster_shell.sql_models import sql_model_assets

defs = Definitions(
    assets=[
        documents,
        chunks,
        extract_entities_relationships,
        atomic_questions,
        knowledge_graph,
        *sql_model_assets(),
        *CONSOLIDATION_ASSETS,
        *DEDUP_ASSETS,
    ],
    jobs=[sync_collection_job, *CONSOLIDATION_JOBS.values(), *DEDUP_JOBS],
    schedules=[*CONSOLIDATION_SCHEDULES, *DEDUP_SCHEDULES],
    sensors=[inbox_sensor, retry_sensor],
    resources={"kg": KGResource()},
)
