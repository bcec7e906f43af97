"""The sentence-transformers embedder batches texts by length in word pieces, and returns the
vectors in the caller's order."""

import numpy as np

from kg_pipelines.embedding import SentenceTransformerEmbedder


class FakeModel:
    """Word pieces = words; a text's vector says which text it is; records each batch it encodes."""

    max_seq_length = 8

    def __init__(self):
        self.batches: list[list[str]] = []

    def get_embedding_dimension(self) -> int:
        return 2

    def tokenizer(self, texts, add_special_tokens, truncation, max_length):
        return {"input_ids": [t.split()[:max_length] for t in texts]}

    def encode(self, texts, batch_size, **_):
        assert len(texts) <= batch_size
        self.batches.append(list(texts))
        return np.array([[float(len(t)), 1.0] for t in texts], dtype=np.float32)


def embedder(batch_size: int) -> SentenceTransformerEmbedder:
    e = SentenceTransformerEmbedder.__new__(SentenceTransformerEmbedder)
    e.model_name, e.batch_size, e._model = "fake", batch_size, FakeModel()
    return e


def test_batches_hold_texts_of_similar_length_in_word_pieces_and_vectors_keep_the_callers_order():
    # by characters the order would be long-word, a b c, ...; by word pieces it is 6, 5, 3, 2, 1, 1
    texts = ["a b c", "extraordinarily", "a b c d e f", "x y", "q", "a b c d e"]
    e = embedder(batch_size=2)
    vectors = e.embed(texts)
    assert e._model.batches == [["a b c d e f", "a b c d e"], ["a b c", "x y"], ["extraordinarily", "q"]]
    assert vectors[:, 0].tolist() == [float(len(t)) for t in texts]
    assert e.embed([]).shape == (0, 2)


def test_lengths_are_counted_up_to_the_models_limit():
    # both texts are over the limit of 8 word pieces: one length, the caller's order kept
    e = embedder(batch_size=1)
    e.embed(["w " * 9, "w " * 20])
    assert e._model.batches == [["w " * 9], ["w " * 20]]
