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
