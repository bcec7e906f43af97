"""The Dagster shell: assets, checks, sensors, jobs and resources around the core."""
