"""General vocabulary of the offline recogniser: geography, given names, the head nouns that type a
name by what the text says it is, and general biomedical word formation.

Every list here is general knowledge, written for text the recogniser has never seen: the world's
countries and first-level regions, large cities, common given names, the nouns that say what kind
of thing a name is ("an American *actor*", "a *river* in ..."), common disease and symptom words,
animals, chemical elements, and the word endings of drug names (the WHO INN stems). No entry is
here because some document or test mentions it.

The lists themselves are data files in ``kg_pipelines/offline/data`` (one entry a line), read once
through ``cue_words``; this module names them.
"""

from __future__ import annotations

from kg_pipelines.offline.cue_words import data_table, word_set, word_tuple

# -- geography ------------------------------------------------------------------------------------

COUNTRIES = word_tuple("countries.txt")

REGIONS = word_tuple("regions.txt")

CITIES = word_tuple("cities.txt")

# -- people ----------------------------------------------------------------------------------------

# Common given names: a capitalised name that starts with one of them names a person
# ("Lester Smith", "Mary Ann Evans").
GIVEN_NAMES = word_set("given_names.txt")

# -- what a name is: head nouns of "X is a/an ... NOUN" --------------------------------------------

PERSON_NOUNS = word_set("person_nouns.txt")
LOCATION_NOUNS = word_set("location_nouns.txt")
ORGANIZATION_NOUNS = word_set("organization_nouns.txt")
# "X is a species of ...", "the marsh flower X": organisms.
ORGANISM_NOUNS = word_set("organism_nouns.txt")
# Nouns of named things that are none of the above (works, events, products): ``concept``.
WORK_NOUNS = word_set("work_nouns.txt")

# -- biomedicine -------------------------------------------------------------------------------------

# Single words that name a disease or symptom in any biomedical text.
DISEASE_WORDS = word_set("disease_words.txt")
# Heads of multi-word disease names ("chronic kidney disease", "acute renal failure").
DISEASE_HEAD_WORDS = word_set("disease_head_words.txt")
# Word endings of disease names (lower-case words; "-itis", "-osis", ...). Weak ones need a
# lower-case word, strong ones also count at a sentence start.
DISEASE_SUFFIXES = word_tuple("disease_suffixes.txt")
DISEASE_STOP = word_set("disease_stop.txt")

# Chemical elements and common inorganic compounds, written in lower case.
ELEMENT_WORDS = word_set("element_words.txt")
# Drug-name stems (WHO INN) and chemical word endings; the strong ones name a drug even when
# capitalised at a sentence start ("Atorvastatin lowered ...").
STRONG_COMPOUND_SUFFIXES = word_tuple("strong_compound_suffixes.txt")
WEAK_COMPOUND_SUFFIXES = word_tuple("weak_compound_suffixes.txt")
# Endings of the weak kind, each with the minimum word length it needs (short words are English).
WEAK_SUFFIX_MIN = {ending: int(length) for ending, length in data_table("weak_suffix_min.tsv")}
COMPOUND_STOP = word_set("compound_stop.txt")
# Protein heads: "<modifier> receptor", "growth hormone", "tyrosine kinase".
PROTEIN_HEADS = word_set("protein_heads.txt")
# Modifiers that make a protein head generic, not a name ("risk factor", "transcription factor").
PROTEIN_HEAD_STOP = word_set("protein_head_stop.txt")
# Cues that a text is biomedical (gene-like symbols are then trusted without a cue of their own).
BIO_CUES = word_set("bio_cues.txt")
# Context words after which an unknown lower-case word is a compound ("treated with X").
DRUG_CONTEXT_BEFORE = word_tuple("drug_context_before.txt")

# -- general text -------------------------------------------------------------------------------------

# Nationality and regional adjectives: "a South Korean film" names no entity.
DEMONYMS = word_set("demonyms.txt")
# Capitalised common words that begin sentences, label things or stand in titles, but name nothing
# on their own ("Life", "World", "Records", "President").
GENERIC_CAPITALISED = word_set("generic_capitalised.txt")
# Honorifics and offices written before a name ("President Chiang", "Dr. Smith"); words that also
# begin names of other things ("General Motors", "Saint Louis") are not among them.
PERSON_TITLES = word_set("person_titles.txt")
# Last words of organisation names ("Marvel Comics", "National Football League", "Pizza Hut").
ORG_LAST = word_set("org_last.txt")
ORG_FIRST = word_set("org_first.txt")
LOCATION_FIRST = word_set("location_first.txt")
