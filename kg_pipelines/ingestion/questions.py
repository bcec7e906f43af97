"""Atomic-question index (seed 003, "Agentic Rationale Retrieval", indexing part).

For every chunk the LLM writes 5 to 10 specific, atomic questions the chunk directly answers. The
questions are embedded into LanceDB (one question table per collection) and become
``AtomicQuestion`` nodes linked to their chunk by an ``ANSWERS_IN`` edge. At query time the
decomposer searches this index and follows ``ANSWERS_IN`` to the chunk.
"""

from __future__ import annotations

from typing import Callable

from kg_pipelines.ingestion.chunk_stage import ChunkStageReport, run_chunk_stage
from kg_pipelines.llm.schemas import AtomicQuestions
from kg_pipelines.stores.vectors import VectorStore, embedded_table


def question_id_for(chunk_id: str, seq: int) -> str:
    return f"{chunk_id}/q{seq:02d}"


def question_rows(result: AtomicQuestions, chunk: dict) -> list[dict]:
    return [
        {
            "question_id": question_id_for(chunk["chunk_id"], i),
            "chunk_id": chunk["chunk_id"],
            "document_id": chunk["document_id"],
            "collection": chunk["collection"],
            "seq": i,
            "question": q,
        }
        for i, q in enumerate(result.questions)
    ]


def generate_questions(
    conn,
    vectors: VectorStore,
    ask: Callable[[str, str], AtomicQuestions],
    embedder_for_collection: Callable[[str], object],
    document_ids: list[str],
    policy,
    workers: int,
    now,
    progress: Callable[[int], Callable[[int], None]] | None = None,
) -> ChunkStageReport:
    """Questions for the chunks that need them, embedded in one batch per collection."""

    def work(chunk: dict) -> dict[str, list[dict]]:
        return {"atomic_questions": question_rows(ask(chunk["chunk_id"], chunk["text"]), chunk)}

    def write_vectors(processed: list[dict], rows: dict[str, list[dict]]) -> None:
        for collection in sorted({c["collection"] for c in processed}):
            mine = [r for r in rows["atomic_questions"] if r["collection"] == collection]
            table = None
            if mine:
                columns = ("question_id", "chunk_id", "document_id", "collection", "question")
                table = embedded_table(mine, columns, "question", embedder_for_collection(collection))
            chunk_ids = [c["chunk_id"] for c in processed if c["collection"] == collection]
            vectors.replace("questions", collection, "chunk_id", chunk_ids, table)

    return run_chunk_stage(
        conn,
        "questions",
        document_ids,
        work,
        ("atomic_questions",),
        policy,
        workers,
        now,
        progress,
        before_commit=write_vectors,
    )
