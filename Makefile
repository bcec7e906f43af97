# Two commands set everything up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# torch is pinned to the CPU build; an unpinned torch pulls gigabytes of CUDA packages.
PIP_INSTALL := $(BIN)/pip install --constraint .ci/constraints.txt
DATA_DIR ?= $(abspath data)
PORT ?= 3000
export HF_HUB_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false

.PHONY: install demo test lint dev clean-data

$(BIN)/activate:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed: $(BIN)/activate pyproject.toml .ci/constraints.txt
	$(PIP_INSTALL) --upgrade pip
	$(PIP_INSTALL) torch==2.13.0
	$(PIP_INSTALL) -e '.[test]'
	touch $@

install: $(VENV)/.installed

## make demo: install, run the whole pipeline on data/inbox, print what came out
demo: install
	$(BIN)/kg-pipelines --data-dir $(DATA_DIR) demo

## make test: install, lint (ruff), run the test suite
test: install lint
	$(BIN)/python -m pytest

## make lint: ruff check and ruff format --check over the tree (.venv and data/ excluded); both always run
lint: install
	@status=0; \
	$(BIN)/ruff check . || status=1; \
	$(BIN)/ruff format --check . || status=1; \
	exit $$status

## make dev: the Dagster UI, sensors and schedules on http://127.0.0.1:$(PORT) (`make dev PORT=3456`).
## Ctrl-C (or SIGTERM to make) stops dagster dev and every process it started (kg_pipelines/dev_server.py).
# `exec`: the launcher replaces the recipe's shell, so the SIGTERM make forwards reaches it directly.
dev: install
	$(BIN)/kg-pipelines --data-dir $(DATA_DIR) init
	exec env DAGSTER_HOME=$(DATA_DIR)/dagster_home KG_DATA_DIR=$(DATA_DIR) \
		$(BIN)/python -m kg_pipelines.dev_server --host 127.0.0.1 --port $(PORT) --workspace workspace.yaml

## make clean-data: delete the generated stores under data/ (keeps data/inbox, data/eval, data/never_merge.txt);
## dedup_decisions.csv goes too: its pairs name nodes of the deleted graph
clean-data:
	rm -rf data/warehouse.duckdb* data/lancedb data/dagster_home data/sources.sqlite* data/activations.sqlite* \
		data/graph_snapshots data/graph_stats.json data/consolidation_reports data/merges data/pictures \
		data/dedup_decisions.csv
