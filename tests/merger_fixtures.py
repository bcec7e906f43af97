"""The seed's walkthrough as page bundles (its "Main Graph (existing)" and "Input: New Pages"), a
deterministic scorer with the walkthrough's similarity scores, and helpers to run the merger core
on a temporary warehouse."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from kg_pipelines.config import load_settings
from kg_pipelines.llm.client import LLMClient
from kg_pipelines.llm.offline_provider import OfflineProvider
from kg_pipelines.merger.pages import WikiPage
from kg_pipelines.stores import warehouse

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


def page(page_id, page_type, title, overview, content, links=()):
    return {
        "page_id": page_id,
        "page_type": page_type,
        "title": title,
        "overview": overview,
        "content": content,
        "outgoing_links": [{"target_id": t, "edge_type": e} for e, t in links],
    }


MAIN_GRAPH = {
    "pages": [
        page(
            "Principle_X",
            "Principle",
            "QLoRA",
            "QLoRA parameter-efficient fine-tuning.",
            "## Idea\n\nQLoRA freezes a 4-bit quantized base model and trains low-rank adapters.\n\n"
            "## Why it works\n\nThe adapters hold few parameters, so gradients stay small.",
            [
                ("implemented_by", "Implementation_A"),
                ("implemented_by", "Implementation_B"),
                ("uses_heuristic", "Heuristic_H2"),
            ],
        ),
        page(
            "Implementation_A",
            "Implementation",
            "FastLanguageModel.from_pretrained",
            "FastLanguageModel.from_pretrained loads a quantized model.",
            "## Usage\n\nCall FastLanguageModel.from_pretrained with load_in_4bit set to true.",
            [("requires_env", "Environment_E1")],
        ),
        page(
            "Implementation_B",
            "Implementation",
            "get_peft_model for LoRA",
            "get_peft_model wraps a model with LoRA adapters.",
            "## Usage\n\nPass a LoraConfig to get_peft_model.",
            [("requires_env", "Environment_E4")],
        ),
        page(
            "Environment_E1",
            "Environment",
            "CUDA and PyTorch",
            "CUDA 11.x + PyTorch.",
            "## Versions\n\nCUDA 11.x with a matching PyTorch build.",
        ),
        page(
            "Environment_E4", "Environment", "PEFT library", "PEFT library 0.5+.", "## Versions\n\nPEFT 0.5 or newer."
        ),
        page(
            "Heuristic_H2",
            "Heuristic",
            "Batch size tuning",
            "Batch size tuning for QLoRA.",
            "## Tip\n\nRaise the batch size until memory runs out, then halve it.",
        ),
        # elsewhere in the graph: Environment_E5 under some other Implementation
        page(
            "Principle_Y",
            "Principle",
            "Post-training quantization",
            "Quantizing a trained model's weights.",
            "## Idea\n\nWeights are rounded to 8 or 4 bits after training.",
            [("implemented_by", "Implementation_Z")],
        ),
        page(
            "Implementation_Z",
            "Implementation",
            "bitsandbytes Linear8bitLt",
            "An 8-bit linear layer.",
            "## Usage\n\nReplace nn.Linear with Linear8bitLt.",
            [("requires_env", "Environment_E5")],
        ),
        page(
            "Environment_E5",
            "Environment",
            "bitsandbytes",
            "bitsandbytes 0.40+.",
            "## Versions\n\nbitsandbytes 0.40 or newer.",
        ),
    ]
}

NEW_PAGES = {
    "pages": [
        page(
            "Principle_X'",
            "Principle",
            "QLoRA fine-tuning",
            "QLoRA fine-tuning theory.",
            "## Idea\n\nQLoRA freezes a 4-bit quantized base model and trains low-rank adapters. "
            "Paged optimizers absorb memory spikes.\n\n## Limits\n\nDequantization costs some speed.",
            [
                ("implemented_by", "Implementation_A'"),
                ("implemented_by", "Implementation_C'"),
                ("uses_heuristic", "Heuristic_H1'"),
            ],
        ),
        page(
            "Implementation_A'",
            "Implementation",
            "FastLanguageModel loader",
            "FastLanguageModel loader.",
            "## Usage\n\nCall FastLanguageModel.from_pretrained with load_in_4bit set to true. "
            "Set max_seq_length to the longest training example.",
            [("requires_env", "Environment_E1'"), ("requires_env", "Environment_E2'")],
        ),
        page(
            "Environment_E1'",
            "Environment",
            "CUDA 11.8 and PyTorch 2.0",
            "CUDA 11.8 + PyTorch 2.0.",
            "## Versions\n\nCUDA 11.8 with PyTorch 2.0.",
        ),
        page(
            "Environment_E2'",
            "Environment",
            "16GB VRAM",
            "16GB VRAM minimum.",
            "## Hardware\n\nA GPU with at least 16 GB of memory.",
        ),
        page(
            "Implementation_C'",
            "Implementation",
            "Custom LoRA config",
            "Custom LoRA config.",
            "## Usage\n\nChoose the rank r and lora_alpha, and target the attention projections.",
            [("requires_env", "Environment_E3'")],
        ),
        page(
            "Environment_E3'",
            "Environment",
            "bitsandbytes 0.41",
            "bitsandbytes 0.41+.",
            "## Versions\n\nbitsandbytes 0.41 or newer.",
        ),
        page(
            "Heuristic_H1'",
            "Heuristic",
            "Memory optimization tips",
            "Memory optimization tips.",
            "## Tip\n\nUse gradient checkpointing to trade compute for memory.",
        ),
    ]
}

# the walkthrough's scores; the traps make a wrong scope or a search that should not happen visible
WALKTHROUGH_SCORES = {
    "Principle_X'": {"Principle_X": 0.92, "Principle_Y": 0.30},
    "Implementation_A'": {"Implementation_A": 0.95, "Implementation_B": 0.40, "Implementation_Z": 0.99},
    "Implementation_C'": {"Implementation_A": 0.45, "Implementation_B": 0.30, "Implementation_Z": 0.97},
    "Heuristic_H1'": {"Heuristic_H2": 0.35},
    "Environment_E1'": {"Environment_E1": 0.88, "Environment_E4": 0.20, "Environment_E5": 0.10},
    "Environment_E2'": {"Environment_E1": 0.25, "Environment_E4": 0.95},
    "Environment_E3'": {"Environment_E5": 0.90, "Environment_E1": 0.50},
}


class TableScorer:
    """Similarity from a fixed table (page_id -> node_id -> score); records every search."""

    def __init__(self, scores: dict[str, dict[str, float]] | None = None, default: float | None = None):
        self.scores = scores or {}
        self.default = default
        self.calls: list[tuple[str, str, tuple[str, ...] | None]] = []

    def rank(self, page: WikiPage, page_type: str, candidates: Sequence[str] | None) -> list[tuple[str, float]]:
        self.calls.append((page.page_id, page_type, None if candidates is None else tuple(candidates)))
        table = dict(self.scores.get(page.page_id, {}))
        if self.default is not None and candidates is not None:
            for node_id in candidates:
                table.setdefault(node_id, self.default)
        # deliberately returns pages of every type and outside the scope: the planner must filter
        return sorted(table.items(), key=lambda x: -x[1])


def write_bundle(folder: Path, name: str, bundle: dict) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.json"
    path.write_text(json.dumps(bundle, indent=1), encoding="utf-8")
    return path


def settings_for(root: Path, **merger):
    root.mkdir(parents=True, exist_ok=True)
    if merger:
        import yaml

        (root / "kg.yaml").write_text(yaml.safe_dump({"merger": merger}))
    return load_settings(root)


def offline_llm(settings) -> LLMClient:
    return LLMClient(OfflineProvider(), settings.resolved_entity_types)


def connect(settings):
    return warehouse.connect(settings.warehouse_path)


def wiki_edges(conn) -> set[tuple[str, str, str]]:
    return {
        (r[0], r[1], r[2])
        for r in conn.execute(
            "SELECT source_id, edge_type, target_id FROM kg_edges WHERE created_by = 'merger'"
        ).fetchall()
    }


def snapshot(conn) -> tuple[list, list]:
    nodes = conn.execute("SELECT * FROM kg_nodes ORDER BY node_id").fetchall()
    edges = conn.execute("SELECT * FROM kg_edges ORDER BY edge_id").fetchall()
    return nodes, edges
