"""Atomic-question index (seed 003, "Agentic Rationale Retrieval", indexing part).

For every chunk the LLM writes 5 to 10 specific, atomic questions the chunk directly answers. The
questions are embedded into LanceDB (one question table per collection) and become
``AtomicQuestion`` nodes linked to their chunk by an ``ANSWERS_IN`` edge. At query time the
decomposer searches this index and follows ``ANSWERS_IN`` to the chunk.
"""

from __future__ import annotations

from kg_pipelines.ingestion.chunk_stage import ChunkStageReport, run_chunk_stage
from kg_pipelines.llm.schemas import AtomicQuestions
from kg_pipelines.stores.vectors import embedded_table


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


def generate_questions(ctx, scope) -> ChunkStageReport:
    """Sync ``atomic_questions`` (and their vectors) of the scope's chunks, embedded per batch."""
    collection = scope.collection

    def work(chunk: dict) -> dict[str, list[dict]]:
        return {"atomic_questions": question_rows(ctx.llm.atomic_questions(chunk["chunk_id"], chunk["text"]), chunk)}

    def write_vectors(processed: list[dict], rows: dict[str, list[dict]]) -> None:
        embedder = ctx.embedder_for(collection)
        ctx.vectors.drop_if_model_changed("questions", collection, embedder.model_name)
        table = None
        if rows["atomic_questions"]:
            columns = ("question_id", "chunk_id", "document_id", "collection", "question")
            table = embedded_table(rows["atomic_questions"], columns, "question", embedder)
        ctx.vectors.replace("questions", collection, "chunk_id", [c["chunk_id"] for c in processed], table)

    def delete_vectors(chunk_ids: list[str]) -> None:
        ctx.vectors.delete_chunks("questions", collection, chunk_ids)

    fingerprint = ctx.llm.fingerprint("questions") + ":" + ctx.settings.embedding_model_for(collection)
    return run_chunk_stage(
        ctx, scope, "questions", fingerprint, work, ("atomic_questions",), write_vectors, delete_vectors
    )
