"""Stores: the DuckDB warehouse (rows), the LanceDB vector store, the inbox source registry."""
