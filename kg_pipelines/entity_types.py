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
