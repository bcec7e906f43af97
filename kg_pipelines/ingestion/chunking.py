"""Context-aware sequential chunking (seed 003).

1. The document is cut into text blocks of about ``chunk_tokens`` tokens. Blocks end at sentence
   boundaries (``kg_pipelines.ingestion.sentences``), so a block is a run of whole sentences; a sentence
   longer than a block is cut at token boundaries.
2. Blocks are summarized in order: each LLM call gets the block and the summary of the previous
   block (``forward_summary``), and the new summary is stored with the chunk and passed on.

Summaries go through the per-chunk job runner, so a failed summary is retried and recorded; if it
still fails, the chunk keeps an empty summary and the chain goes on from the last good summary.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Callable

from kg_pipelines.ingestion.chunk_jobs import ChunkOutcome, RetryPolicy, run_with_retries
from kg_pipelines.ingestion.sentences import split_sentences
from kg_pipelines.ingestion.tokens import TokenCounter


@dataclass(frozen=True)
class TextBlock:
    seq: int
    char_start: int
    char_end: int
    text: str
    token_count: int


def chunk_id_for(document_id: str, seq: int) -> str:
    return f"{document_id}#c{seq:04d}"


def text_hash(*parts: str) -> str:
    digest = hashlib.sha1()
    for part in parts:
        digest.update(part.encode("utf-8", "surrogatepass"))
        digest.update(b"\x1f")
    return digest.hexdigest()


def split_into_blocks(text: str, counter: TokenCounter, max_tokens: int) -> list[TextBlock]:
    """Greedy packing of whole sentences into blocks of at most ``max_tokens`` tokens."""
    sentences = split_sentences(text)
    counts = counter.count_many([s.text for s in sentences])
    sized: list[tuple[int, int, int]] = []
    for sentence, count in zip(sentences, counts):
        if count <= max_tokens:
            sized.append((sentence.start, sentence.end, count))
            continue
        for start, end in counter.split_by_tokens(sentence.text, max_tokens):
            piece = sentence.text[start:end]
            sized.append((sentence.start + start, sentence.start + end, counter.count(piece)))
    blocks: list[TextBlock] = []
    block_start = block_end = None
    block_tokens = 0
    for start, end, count in sized:
        if block_start is not None and block_tokens + count > max_tokens:
            blocks.append(_block(text, len(blocks), block_start, block_end, block_tokens))
            block_start = None
            block_tokens = 0
        if block_start is None:
            block_start = start
        block_end = end
        block_tokens += count
    if block_start is not None:
        blocks.append(_block(text, len(blocks), block_start, block_end, block_tokens))
    return blocks


def _block(text: str, seq: int, start: int, end: int, tokens: int) -> TextBlock:
    return TextBlock(seq=seq, char_start=start, char_end=end, text=text[start:end], token_count=tokens)


@dataclass(frozen=True)
class SummarizedBlock:
    block: TextBlock
    chunk_id: str
    summary: str
    prior_summary: str
    input_hash: str  # hash of (block text, prior summary): unchanged input, reusable summary
    outcome: ChunkOutcome | None  # None when a previous run's summary was reused


def summarize_sequentially(
    document_id: str,
    blocks: list[TextBlock],
    summarize: Callable[[str, str, str], str],
    policy: RetryPolicy,
    previous: dict[str, tuple[str, str]] | None = None,
) -> list[SummarizedBlock]:
    """Summarize blocks in order, passing each summary forward as the next block's context.

    ``summarize(chunk_id, text, prior_summary) -> summary``. ``previous`` maps chunk_id to
    (input_hash, summary) of summaries that succeeded before; those are reused when the input is
    unchanged, so a re-run only calls the LLM for new or failed chunks.
    """
    previous = previous or {}
    out: list[SummarizedBlock] = []
    forward_summary = ""
    for block in blocks:
        chunk_id = chunk_id_for(document_id, block.seq)
        input_hash = text_hash(block.text, forward_summary)
        cached = previous.get(chunk_id)
        if cached and cached[0] == input_hash:
            out.append(SummarizedBlock(block, chunk_id, cached[1], forward_summary, input_hash, None))
            forward_summary = cached[1]
            continue
        outcome = run_with_retries(chunk_id, lambda: summarize(chunk_id, block.text, forward_summary), policy)
        summary = outcome.value if outcome.ok else ""
        out.append(SummarizedBlock(block, chunk_id, summary, forward_summary, input_hash, outcome))
        if outcome.ok:
            forward_summary = summary
    return out


# -- the stage: documents -> chunks (+ chunk vectors) ---------------------------------------------


@dataclass
class ChunkingReport:
    documents: int = 0
    chunks: int = 0
    chunks_embedded: int = 0
    summaries_reused: int = 0
    summaries_failed: int = 0
    tokens_total: int = 0


def build_chunks(
    conn,
    vectors,
    summarize: Callable[[str, str, str], str],
    embedder_for_collection: Callable[[str], "object"],
    document_ids: list[str],
    chunk_tokens: int,
    counter: TokenCounter,
    policy: RetryPolicy,
    workers: int,
    now,
    progress: Callable[[int], None] | None = None,
) -> ChunkingReport:
    """Chunk and summarize the given documents; write ``chunks``, chunk vectors and summarize states.

    Unchanged chunks keep their summaries and vectors; only new, changed or failed chunks call the
    LLM or the embedder. Documents are processed concurrently (``workers``), each one's blocks in
    order, because every summary is the next block's context.
    """
    from concurrent.futures import ThreadPoolExecutor

    from kg_pipelines.ingestion.chunk_state import delete_stale, refresh_document_status, state_row, write_states
    from kg_pipelines.stores.vectors import embedded_table
    from kg_pipelines.stores.warehouse import fetch_dicts, replace_rows, transaction

    report = ChunkingReport()
    docs = fetch_dicts(
        conn,
        "SELECT document_id, collection, text, status FROM documents WHERE document_id IN (SELECT unnest(?::VARCHAR[]))",
        [document_ids],
    )
    readable = [d for d in docs if d["status"] != "Failed" and d["text"]]
    ids = [d["document_id"] for d in readable]
    existing = fetch_dicts(
        conn,
        "SELECT c.chunk_id, c.document_id, c.text_hash, c.summary, s.input_hash AS summary_input "
        "FROM chunks c LEFT JOIN chunk_state s ON s.chunk_id = c.chunk_id AND s.stage = 'summarize' "
        "AND s.status = 'done' WHERE c.document_id IN (SELECT unnest(?::VARCHAR[]))",
        [document_ids],
    )
    previous = {r["chunk_id"]: (r["summary_input"], r["summary"]) for r in existing if r["summary_input"]}
    old_hash = {r["chunk_id"]: r["text_hash"] for r in existing}

    def one_document(doc: dict) -> list[SummarizedBlock]:
        blocks = split_into_blocks(doc["text"], counter, chunk_tokens)
        done = summarize_sequentially(doc["document_id"], blocks, summarize, policy, previous)
        if progress:
            progress(1)
        return done

    with ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="chunker") as pool:
        per_doc = list(pool.map(one_document, readable))

    chunk_rows, state_rows, to_embed = [], [], []
    for doc, summarized in zip(readable, per_doc):
        for item in summarized:
            row = {
                "chunk_id": item.chunk_id,
                "document_id": doc["document_id"],
                "collection": doc["collection"],
                "seq": item.block.seq,
                "text": item.block.text,
                "token_count": item.block.token_count,
                "char_start": item.block.char_start,
                "char_end": item.block.char_end,
                "summary": item.summary,
                "prior_summary": item.prior_summary,
                "text_hash": text_hash(item.block.text),
            }
            chunk_rows.append(row)
            report.tokens_total += item.block.token_count
            if item.outcome is None:
                report.summaries_reused += 1
            else:
                report.summaries_failed += 0 if item.outcome.ok else 1
                count = 1 if item.outcome.ok else 0
                state_rows.append(state_row(item.outcome, doc["document_id"], "summarize", item.input_hash, count, now))
            if old_hash.get(item.chunk_id) != row["text_hash"] or item.outcome is not None:
                to_embed.append(row)
    current = {r["chunk_id"] for r in chunk_rows}
    collection_of = {d["document_id"]: d["collection"] for d in docs}
    stale = [(r["chunk_id"], collection_of[r["document_id"]]) for r in existing if r["chunk_id"] not in current]

    # vectors first: if the DuckDB write below fails, a re-run rewrites both
    for collection in sorted(set(collection_of.values())):
        rows = [r for r in to_embed if r["collection"] == collection]
        table = None
        if rows:
            columns = ("chunk_id", "document_id", "collection", "seq", "text", "summary")
            table = embedded_table(rows, columns, "text", embedder_for_collection(collection))
        stale_here = [cid for cid, col in stale if col == collection]
        vectors.replace("chunks", collection, "chunk_id", [r["chunk_id"] for r in rows] + stale_here, table)
        vectors.replace("questions", collection, "chunk_id", stale_here, None)
        report.chunks_embedded += len(rows)

    with transaction(conn):
        replace_rows(conn, "chunks", "document_id", document_ids, chunk_rows)
        write_states(conn, "summarize", state_rows)
        delete_stale(conn, ["chunk_state", "entities", "relationships", "atomic_questions"], document_ids)
        refresh_document_status(conn, ids, now)
    report.documents = len(readable)
    report.chunks = len(chunk_rows)
    return report
