"""Ingestion stages: documents -> chunks -> entities, relationships, atomic questions."""
