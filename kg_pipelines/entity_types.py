"""Entity types the extractor may emit (the seed's BASE_ENTITY_TYPES, plus an opt-in extension).

The types are lower-case snake_case strings. The LLM schema sent to a provider enumerates exactly
the configured list, and validation rejects anything else as a schema failure.
"""

BASE_ENTITY_TYPES: tuple[str, ...] = (
    "gene",
    "protein",
    "compound",
    "microbe",
    "organism",
    "disease",
    "phenotype",
    "biological_process",
    "pathway",
    "cell_type",
    "anatomy",
    "intervention",
    "biomarker",
    "person",
    "organization",
    "location",
    "concept",
)

# Opt-in types for longevity research (settings: longevity_extension: true).
LONGEVITY_ENTITY_TYPES: tuple[str, ...] = (
    "aging_hallmark",
    "geroprotector",
    "model_organism",
    "lifespan_outcome",
)


def resolve_entity_types(base: list[str] | tuple[str, ...], longevity_extension: bool) -> tuple[str, ...]:
    """The configured type list, normalised and de-duplicated, with the extension appended if on."""
    types: list[str] = []
    for name in [*base, *(LONGEVITY_ENTITY_TYPES if longevity_extension else ())]:
        key = name.strip().lower().replace(" ", "_").replace("-", "_")
        if key and key not in types:
            types.append(key)
    if not types:
        raise ValueError("entity_types is empty: configure at least one entity type")
    return tuple(types)


# -- type conflicts ---------------------------------------------------------------------------------
# The fallback type: what an extractor gives a name it cannot type.
FALLBACK_TYPE = "concept"
# Ties between specific types go to the earlier type here: the longevity refinements first (a
# geroprotector is a compound), then the base types in their order; a configured type not listed
# here comes after them (alphabetically), ``concept`` last.
TYPE_PRECEDENCE: tuple[str, ...] = LONGEVITY_ENTITY_TYPES + tuple(t for t in BASE_ENTITY_TYPES if t != FALLBACK_TYPE)


def type_order(entity_type: str, votes: int) -> tuple[bool, int, int, str]:
    """Sort key of a candidate type of one name (smallest wins): specific before the fallback
    ``concept``, then the type given most often, then ``TYPE_PRECEDENCE``, then the name."""
    rank = TYPE_PRECEDENCE.index(entity_type) if entity_type in TYPE_PRECEDENCE else len(TYPE_PRECEDENCE)
    return (entity_type == FALLBACK_TYPE, -votes, rank, entity_type)


def resolve_type_conflict(votes: dict[str, int]) -> str:
    """The one type of a name extracted with several (``votes``: type -> how often it was given).

    A specific type beats ``concept``; between specific types the one given most often wins, a tie
    goes to the earlier type of ``TYPE_PRECEDENCE``. Graph building applies the same rule in SQL
    over every chunk that extracted the name (``kg_pipelines.graph.graph_building``)."""
    if not votes:
        raise ValueError("resolve_type_conflict needs at least one type")
    return min(votes, key=lambda t: type_order(t, votes[t]))
