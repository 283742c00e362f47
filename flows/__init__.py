"""The write path: Prefect flows (ingest, reindex, snapshot-eval) and the plain functions
they compose. Each step is importable and testable without Prefect."""
