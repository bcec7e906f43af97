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

import functools
import hashlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from kg_pipelines.ingestion.activity import RunActivity
from kg_pipelines.ingestion.batches import write_in_batches
from kg_pipelines.ingestion.chunk_jobs import ChunkOutcome, RetryPolicy, run_with_retries
from kg_pipelines.ingestion.chunk_state import delete_chunk_rows, state_row, write_states
from kg_pipelines.ingestion.sentences import split_sentences
from kg_pipelines.ingestion.tokens import TokenCounter
from kg_pipelines.stores.vectors import embedded_table
from kg_pipelines.stores.warehouse import delete_where_in, fetch_dicts, replace_rows, transaction


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
    input_hash: str  # hash of (block text, prior summary, summarizer): unchanged input, reusable summary
    outcome: ChunkOutcome | None  # None when a previous run's summary was reused


def summarize_sequentially(
    document_id: str,
    blocks: list[TextBlock],
    summarize: Callable[[str, str, str], str],
    policy: RetryPolicy,
    previous: dict[str, tuple[str, str]] | None = None,
    fingerprint: str = "",
) -> list[SummarizedBlock]:
    """Summarize blocks in order, passing each summary forward as the next block's context.

    ``summarize(chunk_id, text, prior_summary) -> summary``. ``previous`` maps chunk_id to
    (input_hash, summary) of summaries that succeeded before; those are reused when the input is
    unchanged, so a re-run only calls the LLM for new or failed chunks. ``fingerprint`` (the
    summarizer's provider, model and prompt) is part of the input: another model, another summary.
    """
    previous = previous or {}
    out: list[SummarizedBlock] = []
    forward_summary = ""
    for block in blocks:
        chunk_id = chunk_id_for(document_id, block.seq)
        input_hash = text_hash(block.text, forward_summary, fingerprint)
        cached = previous.get(chunk_id)
        if cached and cached[0] == input_hash:
            out.append(SummarizedBlock(block, chunk_id, cached[1], forward_summary, input_hash, None))
            forward_summary = cached[1]
            continue
        call = functools.partial(summarize, chunk_id, block.text, forward_summary)
        outcome = run_with_retries(chunk_id, call, policy)
        summary = outcome.value if outcome.ok else ""
        out.append(SummarizedBlock(block, chunk_id, summary, forward_summary, input_hash, outcome))
        if outcome.ok:
            forward_summary = summary
    return out


# -- the stage: documents -> chunks (+ chunk vectors) ---------------------------------------------


@dataclass
class ChunkingReport:
    documents: int = 0  # documents (re)chunked by this run
    documents_removed: int = 0
    chunks: int = 0  # chunks written by this run
    chunks_embedded: int = 0
    summaries_reused: int = 0
    summaries_failed: int = 0
    tokens_total: int = 0
    activity: RunActivity = field(default_factory=RunActivity)  # what this run did, first documents by id


def chunking_settings_key(ctx, collection: str, counter_name: str) -> str:
    """Everything that shapes a document's chunks besides its text: block size, tokenizer, the
    summarizer's LLM fingerprint and the collection's embedding model."""
    parts = (
        str(ctx.settings.chunk_tokens),
        counter_name,
        ctx.llm.fingerprint("summarize"),
        ctx.settings.embedding_model_for(collection),
    )
    return text_hash(*parts)[:16]


def documents_to_chunk(ctx, scope, settings_key: str) -> tuple[list[dict], list[str]]:
    """(readable documents to chunk, ids of documents whose chunks must go).

    A document is chunked when it was never chunked, its text or the chunking settings changed, one
    of its summaries failed and is due for a retry, or it is re-processed on purpose.
    """
    where, params = scope.sql_filter("d")
    forced = sorted(scope.only) if scope.only is not None else []
    now = ctx.now()
    to_chunk = fetch_dicts(
        ctx.conn,
        f"""SELECT d.document_id, d.collection, d.text, d.content_hash FROM documents d
        LEFT JOIN document_chunking k USING (document_id)
        WHERE {where} AND d.text IS NOT NULL AND (
            k.document_id IS NULL OR k.content_hash <> d.content_hash OR k.settings_key <> ?
            OR d.document_id IN (SELECT unnest(?::VARCHAR[]))
            OR EXISTS (SELECT 1 FROM chunk_state s WHERE s.document_id = d.document_id AND s.stage = 'summarize'
                       AND s.status = 'failed' AND coalesce(s.next_run_at, ?) <= ?))
        ORDER BY d.document_id""",
        [*params, settings_key, forced, now, now],
    )
    where_k, params_k = scope.sql_filter("k")
    gone = [
        r[0]
        for r in ctx.conn.execute(
            f"""SELECT k.document_id FROM document_chunking k WHERE {where_k} AND NOT EXISTS
        (SELECT 1 FROM documents d WHERE d.document_id = k.document_id AND d.text IS NOT NULL)""",
            params_k,
        ).fetchall()
    ]
    return to_chunk, gone


def sync_chunks(ctx, scope, counter: TokenCounter) -> ChunkingReport:
    """Chunk and summarize the scope's new or changed documents; drop the chunks of removed ones.

    Unchanged chunks keep their summaries and vectors; only new, changed or failed chunks call the
    LLM or the embedder. Documents are processed concurrently (``workers``), each one's blocks in
    order, because every summary is the next block's context. Rows go in batches of about
    ``ctx.batch_size`` chunks, one DuckDB transaction per batch; the new chunks of up to
    ``chunk_jobs.embed_every`` chunks' worth of batches are then embedded in one call
    and written to LanceDB, and only then are their documents marked chunked
    (``document_chunking``, a transaction per batch). A crash between the two leaves chunks
    without vectors, whose documents are not marked: the next run takes them up again, reuses
    their summaries and embeds what has no vector.
    """
    report = ChunkingReport()
    settings_key = chunking_settings_key(ctx, scope.collection, counter.name)
    to_chunk, gone = documents_to_chunk(ctx, scope, settings_key)
    if gone:
        stale = [
            r[0]
            for r in ctx.conn.execute(
                "SELECT chunk_id FROM chunks WHERE document_id IN (SELECT unnest(?::VARCHAR[]))", [gone]
            ).fetchall()
        ]
        ctx.vectors.delete_chunks("chunks", scope.collection, stale)
        with transaction(ctx.conn):
            for table in ("chunks", "document_chunking"):
                delete_where_in(ctx.conn, table, "document_id", gone)
            delete_chunk_rows(ctx.conn, "summarize", (), stale)
        report.documents_removed = len(gone)
        for document_id in gone:
            report.activity.set(document_id, {"status": "removed", "chunks": 0})
    if not to_chunk:
        return report
    embedder = ctx.embedder_for(scope.collection)
    # another model: its table goes, and every document is in ``to_chunk`` (the key has the model)
    ctx.vectors.drop_if_model_changed("chunks", scope.collection, embedder.model_name)
    tick = ctx.progress("chunk + summarize (documents)", len(to_chunk))
    window: list[_ChunkBatch] = []  # batches whose rows are written, their vectors not yet

    def prepare(docs: list[dict]) -> _ChunkBatch:
        return _prepare_chunk_batch(ctx, scope, docs, settings_key, counter, tick, report)

    def drop_outdated_vectors(batch: _ChunkBatch) -> None:
        """Before the rows: the vectors of chunks that go or are embedded again (a crash after
        this leaves them without a vector, which the next run sees)."""
        ctx.vectors.delete_chunks("chunks", scope.collection, batch.outdated + batch.stale)

    def commit(batch: _ChunkBatch) -> None:
        with transaction(ctx.conn):
            replace_rows(ctx.conn, "chunks", "document_id", batch.ids, batch.chunk_rows)
            write_states(ctx.conn, "summarize", batch.state_rows)
            delete_chunk_rows(ctx.conn, "summarize", (), batch.stale)
        report.documents += len(batch.ids)
        report.chunks += len(batch.chunk_rows)
        window.append(batch)
        # the window (``chunk_jobs.embed_every`` chunks) is one embedding call: the embedder orders a
        # call's texts by length, so that a batch of 64 pads to little (a commit batch of 256 chunks
        # padded HotpotQA's 994 passages to 17 % more word pieces than one call over all of them);
        # it bounds what is held for it (texts and vectors) and what a crash costs (embedding only:
        # the rows are written by then)
        if sum(len(b.to_embed) for b in window) >= ctx.settings.chunk_jobs.embed_every:
            embed_window()

    def embed_window() -> None:
        rows = [r for b in window for r in b.to_embed]
        if rows:
            columns = ("chunk_id", "document_id", "collection", "seq", "text", "summary")
            table = embedded_table(rows, columns, "text", embedder)
            ctx.vectors.replace("chunks", scope.collection, "chunk_id", [r["chunk_id"] for r in rows], table)
            report.chunks_embedded += len(rows)
        for batch in window:
            with transaction(ctx.conn):
                replace_rows(ctx.conn, "document_chunking", "document_id", batch.ids, batch.chunking_rows)
        window.clear()

    batches = _document_batches(to_chunk, ctx.batch_size, ctx.settings.chunk_tokens)
    write_in_batches(batches, prepare, drop_outdated_vectors, commit)
    embed_window()
    return report


def _document_batches(docs: list[dict], chunks_per_batch: int, chunk_tokens: int):
    """Runs of documents of about ``chunks_per_batch`` chunks (about 4 characters a token)."""
    batch: list[dict] = []
    expected = 0
    for doc in docs:
        batch.append(doc)
        expected += 1 + len(doc["text"]) // (4 * chunk_tokens)
        if expected >= chunks_per_batch:
            yield batch
            batch, expected = [], 0
    if batch:
        yield batch


@dataclass
class _ChunkBatch:
    ids: list[str]
    chunk_rows: list[dict]
    state_rows: list[dict]
    chunking_rows: list[dict]
    to_embed: list[dict]  # new or changed chunks, re-summarized ones, and any without a vector
    outdated: list[str]  # chunk ids in ``to_embed`` that had a row before (and may have a vector)
    stale: list[str]  # chunk ids of these documents that no longer exist


def _prepare_chunk_batch(ctx, scope, docs, settings_key, counter, tick, report: ChunkingReport) -> _ChunkBatch:
    """Blocks and summaries of a batch of documents, and the rows to write (nothing written yet)."""
    conn, ids = ctx.conn, [d["document_id"] for d in docs]
    summarize_fp = ctx.llm.fingerprint("summarize")
    existing = fetch_dicts(
        conn,
        "SELECT c.chunk_id, c.document_id, c.text_hash, c.summary, s.input_hash AS summary_input, "
        "s.status AS summary_status, s.rounds AS rounds FROM chunks c "
        "LEFT JOIN chunk_state s ON s.chunk_id = c.chunk_id AND s.stage = 'summarize' "
        "WHERE c.document_id IN (SELECT unnest(?::VARCHAR[]))",
        [ids],
    )
    previous = {r["chunk_id"]: (r["summary_input"], r["summary"]) for r in existing if r["summary_status"] == "done"}
    states_before = {
        r["chunk_id"]: {"input_hash": r["summary_input"], "rounds": r["rounds"] or 0}
        for r in existing
        if r["summary_input"]
    }
    old_hash = {r["chunk_id"]: r["text_hash"] for r in existing}
    # a chunk written by a run that died before its vectors (see ``sync_chunks``) has none
    with_vector = (
        ctx.vectors.keys_present("chunks", scope.collection, "chunk_id", list(old_hash)) if old_hash else set()
    )

    def summarize(chunk_id: str, text: str, prior: str) -> str:
        return ctx.llm.summarize(chunk_id, text, prior).summary

    def one_document(doc: dict) -> list[SummarizedBlock]:
        blocks = split_into_blocks(doc["text"], counter, ctx.settings.chunk_tokens)
        reuse = {} if scope.forced(doc["document_id"]) else previous  # re-processed on purpose: no cache
        done = summarize_sequentially(doc["document_id"], blocks, summarize, ctx.retry_policy, reuse, summarize_fp)
        tick(1)
        return done

    with ThreadPoolExecutor(max_workers=max(1, ctx.workers), thread_name_prefix="chunker") as pool:
        per_doc = list(pool.map(one_document, docs))

    now = ctx.now()
    chunk_rows, state_rows, to_embed, chunking_rows = [], [], [], []
    for doc, summarized in zip(docs, per_doc):
        failed = 0
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
                failed += 0 if item.outcome.ok else 1
                state_rows.append(
                    state_row(
                        item.outcome,
                        row,
                        "summarize",
                        item.input_hash,
                        int(item.outcome.ok),
                        now,
                        states_before.get(item.chunk_id),
                        ctx.settings.chunk_jobs,
                    )
                )
            if (
                old_hash.get(item.chunk_id) != row["text_hash"]
                or item.outcome is not None
                or item.chunk_id not in with_vector
            ):
                to_embed.append(row)
        report.summaries_failed += failed
        chunking_rows.append(
            {
                "document_id": doc["document_id"],
                "collection": doc["collection"],
                "content_hash": doc["content_hash"],
                "settings_key": settings_key,
                "n_chunks": len(summarized),
                "updated_at": now,
            }
        )
        report.activity.set(
            doc["document_id"], {"status": "chunked", "chunks": len(summarized), "summaries_failed": failed}
        )
    current = {r["chunk_id"] for r in chunk_rows}
    stale = [r["chunk_id"] for r in existing if r["chunk_id"] not in current]
    outdated = [r["chunk_id"] for r in to_embed if r["chunk_id"] in old_hash]
    return _ChunkBatch(ids, chunk_rows, state_rows, chunking_rows, to_embed, outdated, stale)
