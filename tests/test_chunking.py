"""Context-aware sequential chunking: blocks of whole sentences, summaries passed forward."""

from kg_pipelines.ingestion.chunk_jobs import RetryPolicy
from kg_pipelines.ingestion.chunking import split_into_blocks, summarize_sequentially, text_hash
from kg_pipelines.ingestion.sentences import split_sentences
from kg_pipelines.ingestion.tokens import default_token_counter
from kg_pipelines.llm.client import LLMError

TEXT = " ".join(
    f"Sentence {i} says that compound C{i} changes the activity of protein P{i} in mice." for i in range(60)
)
NO_RETRY = RetryPolicy(max_retries=0, base_s=0, max_s=0)


def test_blocks_hold_whole_sentences_within_the_token_budget():
    counter = default_token_counter()
    blocks = split_into_blocks(TEXT, counter, 120)
    assert len(blocks) > 3
    sentence_ends = {s.end for s in split_sentences(TEXT)}
    for block in blocks:
        assert counter.count(block.text) <= 120 + 2  # joins may add a token or two of whitespace
        assert block.char_end in sentence_ends
        assert TEXT[block.char_start : block.char_end] == block.text
    assert [b.seq for b in blocks] == list(range(len(blocks)))
    # nothing lost: every sentence is in exactly one block
    assert sum(b.text.count("Sentence ") for b in blocks) == 60


def test_a_sentence_longer_than_a_block_is_cut_at_token_boundaries():
    counter = default_token_counter()
    long_sentence = "word " * 500 + "end."
    blocks = split_into_blocks(long_sentence, counter, 100)
    assert len(blocks) >= 5
    assert all(b.token_count <= 100 for b in blocks)
    assert "".join(long_sentence[b.char_start : b.char_end] for b in blocks).replace(" ", "") == long_sentence.replace(
        " ", ""
    )


def test_each_summary_sees_the_previous_summary():
    blocks = split_into_blocks(TEXT, default_token_counter(), 200)
    seen = []

    def summarize(chunk_id, text, prior):
        seen.append((chunk_id, prior))
        return f"summary of {chunk_id}"

    out = summarize_sequentially("doc", blocks, summarize, NO_RETRY)
    assert seen[0] == ("doc#c0000", "")
    for i in range(1, len(out)):
        assert out[i].prior_summary == f"summary of doc#c{i - 1:04d}"
        assert seen[i][1] == out[i].prior_summary


def test_a_failed_summary_is_recorded_and_the_chain_continues_from_the_last_good_one():
    blocks = split_into_blocks(TEXT, default_token_counter(), 200)
    assert len(blocks) >= 3

    def summarize(chunk_id, text, prior):
        if chunk_id.endswith("c0001"):
            raise LLMError("timeout", "no answer within 1 s")
        return f"S({chunk_id})"

    out = summarize_sequentially("doc", blocks, summarize, RetryPolicy(max_retries=2, base_s=0, max_s=0))
    failed = out[1]
    assert failed.summary == "" and not failed.outcome.ok
    assert failed.outcome.attempts == 3 and failed.outcome.error_kind == "timeout"
    assert out[2].prior_summary == "S(doc#c0000)"


def test_unchanged_blocks_reuse_their_summary():
    blocks = split_into_blocks(TEXT, default_token_counter(), 200)
    calls = []

    def summarize(chunk_id, text, prior):
        calls.append(chunk_id)
        return f"S({chunk_id})"

    first = summarize_sequentially("doc", blocks, summarize, NO_RETRY)
    previous = {b.chunk_id: (b.input_hash, b.summary) for b in first}
    calls.clear()
    again = summarize_sequentially("doc", blocks, summarize, NO_RETRY, previous)
    assert calls == []
    assert [b.summary for b in again] == [b.summary for b in first]
    # change the first block's input: it and (through its new summary) nothing else must rerun
    previous["doc#c0000"] = ("stale", "old")
    calls.clear()
    summarize_sequentially("doc", blocks, summarize, NO_RETRY, previous)
    assert calls == ["doc#c0000"]
    assert text_hash("a", "b") != text_hash("ab", "")


def test_a_sentence_may_start_with_a_symbol_written_lower_case_first():
    text = "TSC2 restrains it. mTORC1 then drives growth. p53 induces p21. See e.g. mTOR signalling."
    assert [s.text for s in split_sentences(text)] == [
        "TSC2 restrains it.",
        "mTORC1 then drives growth.",
        "p53 induces p21.",
        "See e.g. mTOR signalling.",
    ]


def test_a_symbol_ending_in_a_capital_ends_a_sentence_and_an_initial_does_not():
    # the "A" of "HIF1A" is the end of a gene symbol, not an initial like the "E." of "E. coli"
    text = "Hypoxia stabilises the protein encoded by HIF1A. In E. coli the regulator differs. It binds DNA."
    assert [s.text for s in split_sentences(text)] == [
        "Hypoxia stabilises the protein encoded by HIF1A.",
        "In E. coli the regulator differs.",
        "It binds DNA.",
    ]
