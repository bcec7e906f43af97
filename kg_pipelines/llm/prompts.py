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
    "(for example 'increases', 'supplementation'). A relationship follows the sentence: source_entity "
    "is the subject of the verb, also in the passive ('Y is activated by X' and 'activation of Y by X' "
    "give source X, target Y). Leave out what the text negates ('X does not bind Y', 'no effect of X "
    "on Y', 'X was not associated with Y'): it is no relationship. Items of one list ('A, B and C "
    "reduce D') are not related to each other, only to what the sentence says about them. "
    "Answer as JSON matching the schema."
)

QUESTIONS_SYSTEM = (
    "Generate {low}-{high} specific, atomic questions that this text chunk can directly answer. "
    "Each question asks for one fact stated in the chunk and names its subject explicitly "
    "(no pronouns such as 'it' or 'this study'). Answer as JSON matching the schema."
)


def summarize_user(text: str, prior_summary: str) -> str:
    prior = prior_summary.strip() or "(this is the first block)"
    return f"Summary of the previous block:\n{prior}\n\nBlock to summarize:\n{text}"


MERGE_DECISION_SYSTEM = (
    "You maintain a wiki knowledge graph of Workflow, Principle, Implementation, Environment and Heuristic "
    "pages. A new page is proposed. Decide whether it describes the same thing as one of the candidate pages "
    "(all of the same type, found by similarity search within the page's scope): answer MERGE with that "
    "candidate's id as target_id, or CREATE_NEW with target_id null when none is the same thing. A similar "
    "topic is not enough: merge only when both pages are about the same principle, code, environment or tip. "
    "Give a one-sentence reason. Answer as JSON matching the schema."
)

MERGE_CONTENT_SYSTEM = (
    "Merge a proposed wiki page into the existing page it duplicates. Keep every fact of both pages; keep "
    "the existing page's section headings and add the proposed page's sections and facts where they fit; "
    "drop repeated sentences; every section heading of the proposed page must appear in the merged content. "
    "Write the merged overview (1-3 sentences) and the merged Markdown content. superseded_links lists the ids "
    "of existing linked pages the proposed page clearly replaces (usually none: both are kept). "
    "Answer as JSON matching the schema."
)


def merge_decision_user(page: dict, candidates: list[dict]) -> str:
    lines = [
        f"Proposed {page['page_type']} page {page['page_id']!r}: {page['title']}",
        f"Overview: {page['overview']}",
        f"Content:\n{page['content'][:3000]}",
        "",
        "Candidates (id, similarity, title, overview):",
    ]
    lines += [f"- {c['node_id']} ({c['score']:.2f}): {c['title']}: {c['overview']}" for c in candidates]
    return "\n".join(lines)


def merge_content_user(existing: dict, page: dict, feedback: str | None) -> str:
    parts = [
        f"Existing page {existing['node_id']!r}: {existing['title']}",
        f"Overview: {existing['overview']}",
        f"Content:\n{existing['content']}",
        f"Existing links: {', '.join(existing.get('links') or []) or '(none)'}",
        "",
        f"Proposed page {page['page_id']!r}: {page['title']}",
        f"Overview: {page['overview']}",
        f"Content:\n{page['content']}",
    ]
    if feedback:
        parts += ["", f"An audit rejected the previous merge: {feedback}. Fix that this time."]
    return "\n".join(parts)


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


SAME_ENTITY_SYSTEM = (
    "Two nodes of a knowledge graph have the same type and similar names and descriptions. Decide "
    "whether they name the same real-world thing (one node should absorb the other) or two distinct "
    "things (for example a general concept and a specific mechanism, a gene and its variant, two "
    "people with similar names). Answer `same` true or false and a one-sentence reason, as JSON "
    "matching the schema."
)


def same_entity_user(node_type: str, first: dict, second: dict) -> str:
    def describe(node: dict) -> str:
        text = f"name: {node.get('name', '')}\ndescription: {node.get('description') or '(none)'}"
        return text + (f"\nmetadata: {node['metadata']}" if node.get("metadata") else "")

    return f"Type: {node_type}\n\nNode A\n{describe(first)}\n\nNode B\n{describe(second)}"


# -- rationale QA: the reasoner's answer with its supporting sentences ---------------------------

REASON_SUPPORT_SYSTEM = (
    "Answer the question using only the numbered sentences. Each sentence has an id such as [2.3] "
    "(passage 2, sentence 3). State the answer in one or two plain sentences (no Markdown heading) "
    "and list in sentence_ids the ids of the sentences that state it; for a question with several "
    "hops, cite the sentence of each hop. Set supported to true only when the cited sentences "
    "state the relation the question asks about between the things it names; otherwise set "
    "supported to false and say that the context does not answer it. Answer as JSON matching the "
    "schema."
)


def reason_support_user(question: str, sentences: list[tuple[str, str]]) -> str:
    listed = "\n".join(f"[{sid}] {text}" for sid, text in sentences) or "(no sentences gathered)"
    return f"Question:\n{question}\n\nSentences:\n{listed}"
