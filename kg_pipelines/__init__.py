"""kg-pipelines: documents in, a knowledge graph out.

The package has two layers. The core (every module except ``kg_pipelines.dagster_shell`` and
``kg_pipelines.definitions``) is plain Python and never imports dagster; the Dagster shell wraps
it in assets, checks, sensors and schedules.
"""

__version__ = "0.1.0"
