"""Prompts for the LLM tasks. Providers that understand text (openai) use them; the offline
provider reads the same request's structured ``inputs`` instead."""

SUMMARIZE_SYSTEM = (
    "You summarize one block of a scientific document for a knowledge graph. "
    "Write 2-4 sentences that state what this block says, using only facts from the block. "
    "The summary of the previous block is given as context so that references stay consistent; "
    "do not repeat it. Answer as JSON matching the schema."
)

EXTRACT_SYSTEM = (
    "Extract entities and relationships from the text chunk for a knowledge graph. "
    "entity_type must be one of: {entity_types}. "
    "Names are title-cased; every relationship's source_entity and target_entity must be the "
    "entity_name of an extracted entity. Descriptions must be grounded strictly in the chunk text "
    "(quote or closely paraphrase it) and never empty. relationship_keywords are short tags "
    "(for example 'increases', 'supplementation'). Answer as JSON matching the schema."
)

QUESTIONS_SYSTEM = (
    "Generate {low}-{high} specific, atomic questions that this text chunk can directly answer. "
    "Each question asks for one fact stated in the chunk and names its subject explicitly "
    "(no pronouns such as 'it' or 'this study'). Answer as JSON matching the schema."
)


def summarize_user(text: str, prior_summary: str) -> str:
    prior = prior_summary.strip() or "(this is the first block)"
    return f"Summary of the previous block:\n{prior}\n\nBlock to summarize:\n{text}"


# -- rationale QA (query time) ------------------------------------------------------------------

DECOMPOSE_SYSTEM = (
    "You plan the retrieval for answering a question from a knowledge base indexed by atomic "
    "questions. Given the goal and this context, what {n} sub-questions should we find answers for "
    "next? Each sub-question asks for one fact, names its subject explicitly, and is not among the "
    "questions already asked. Return an empty list when the context already answers the goal. "
    "Answer as JSON matching the schema."
)

REASON_SYSTEM = (
    "Answer the question using only the numbered passages. Be concise and state the facts that "
    "answer it; when the passages do not answer it, say so and set supported to false. List the "
    "numbers of the passages you used. Answer as JSON matching the schema."
)


def numbered_passages(context: list[str]) -> str:
    return "\n\n".join(f"[{i}] {text}" for i, text in enumerate(context, 1)) or "(no passages yet)"


def decompose_user(question: str, context: list[str], asked: list[str]) -> str:
    already = "\n".join(f"- {q}" for q in asked) or "(none)"
    return f"Goal:\n{question}\n\nContext gathered so far:\n{numbered_passages(context)}\n\nAlready asked:\n{already}"


def reason_user(question: str, context: list[str]) -> str:
    return f"Question:\n{question}\n\nPassages:\n{numbered_passages(context)}"
