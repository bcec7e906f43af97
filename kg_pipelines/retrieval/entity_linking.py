"""Linking a question's names to graph nodes: exact, then fuzzy and partial, then vector (cheap to
costly).

- **exact**: every run of up to ``MAX_NAME_WORDS`` words of the question is keyed as the graph
  keys names (``node_key``: case- and separator-insensitive) and looked up among entity and title
  nodes; the longest runs win and the words they cover are not used again ("New York City" is
  taken whole, not also as "York");
- **fuzzy**: runs of capitalised words (or words with digits) left unlinked are compared with every
  name by rapidfuzz's ``ratio`` (spelling variants, a missing accent, a plural), kept above
  ``fuzzy_cutoff``;
- **partial**: runs of two or more such words, linked by neither, that begin a longer name and
  write at least half of its words ("Tikhaya Sosna" for Tikhaya Sosna River): a name written short;
- **vector**: the question's embedding against the ``graph_nodes`` LanceDB table (the
  ``node_embedding_model``), nearest entity or title nodes above ``vector_min_similarity``: a
  question that names nothing literally still gets a start.

Runs made only of function words ("the", "which", "of the") are never looked up.

:class:`WordFuzzyIndex` is the fuzzy match on the words of names, for a misspelled *part* of a name
(``akermansia`` -> Akkermansia Muciniphila), which a whole-name ratio misses (60 for that pair):
graph search falls back to it when no whole name matches (``retrieval/graph_search.py``).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, replace

from rapidfuzz import fuzz, process

from kg_pipelines.ingestion.names import EDGE_PUNCT, LOWER_PARTICLES, node_key
from kg_pipelines.retrieval.graph_ranking import PassageGraph

MAX_NAME_WORDS = 8
# longer names a short run of the question may stand for ("Tikhaya Sosna": Tikhaya Sosna River),
# as many as a fuzzy run links (process.extract's limit=3 there)
PARTIAL_NAMES = 3
LINKED_KINDS = ("entity", "title")
TITLE_QUALIFIER = re.compile(r"\s*\([^()]*\)\s*$")
_WORD = re.compile(r"[^\s,;:!?\"“”()\[\]{}]+")
# words that never name anything on their own: question words, auxiliaries, pronouns
FUNCTION_WORDS = (
    frozenset(
        """
what which who whom whose where when why how is are was were be been being do does did has have had
can could would should will shall may might must this that these those it its they them their he him
his she her we our you your i me my one ones there here than then not no yes both either neither
also as if so such same other another more most less least many much very
    """.split()
    )
    | LOWER_PARTICLES
)


@dataclass
class WordFuzzyIndex:
    """Names by the words of their keys, for fuzzy matching on words rather than on whole names.

    A term matches a name when every word of the term matches a word of the name: exactly, or,
    for a word of at least ``min_word_chars`` characters, by rapidfuzz's ``ratio`` at or above the
    cutoff (one letter dropped or doubled in a 10-letter word scores 95; a word of 4 letters with
    one letter changed scores 75, so short words effectively match only exactly, and a short term
    does not match every name that holds a similar short word). A name's score is the mean of its
    words' scores; names whose words the term covers better come first (``akermansia`` finds the
    name ``Akkermansia`` before ``Akkermansia Muciniphila``, both before a longer name)."""

    keys: list[str]  # the names' keys (``node_key``), as the caller numbers them
    words: list[str]  # distinct words of the keys
    postings: list[list[int]]  # word number -> key numbers holding it
    word_number: dict[str, int]
    word_counts: list[int]  # per key, its number of distinct words

    @classmethod
    def build(cls, keys: list[str]) -> WordFuzzyIndex:
        word_number: dict[str, int] = {}
        postings: list[list[int]] = []
        word_counts = []
        for k, key in enumerate(keys):
            distinct = set(key.split())
            word_counts.append(len(distinct))
            for word in distinct:
                number = word_number.setdefault(word, len(word_number))
                if number == len(postings):
                    postings.append([])
                postings[number].append(k)
        return cls(list(keys), list(word_number), postings, word_number, word_counts)

    def match(self, key: str, cutoff: float, min_word_chars: int, limit: int) -> list[tuple[float, int]]:
        """(score 0-100, key number) of the names every word of ``key`` matches, best first."""
        words = list(dict.fromkeys(key.split()))
        if not words or not self.words:
            return []
        scores: dict[int, float] | None = None
        for word in words:
            best: dict[int, float] = {}  # key number -> the best score of this term word in that name
            if len(word) < min_word_chars:
                alternatives = [(word, 100.0, self.word_number[word])] if word in self.word_number else []
            else:
                alternatives = process.extract(word, self.words, scorer=fuzz.ratio, score_cutoff=cutoff, limit=None)
            for _word, score, number in alternatives:
                for k in self.postings[number]:
                    if score > best.get(k, -1.0):
                        best[k] = score
            if scores is None:
                scores = best
            else:
                scores = {k: scores[k] + s for k, s in best.items() if k in scores}
            if not scores:
                return []
        ranked = sorted(
            ((total / len(words), k) for k, total in scores.items()),
            key=lambda found: (-found[0], self.word_counts[found[1]] - len(words), self.keys[found[1]]),
        )
        return ranked[:limit]


@dataclass(frozen=True)
class LinkedNode:
    position: int
    node_id: str
    name: str
    method: str  # exact | fuzzy | partial | vector | text (a title named in a passage the walk ranked first) | composed
    score: float  # 1.0 for exact, the ratio / 100 for fuzzy, the cosine similarity for vector
    mention: str  # the words of the question it was linked from ('' for vector)


@dataclass
class NameIndex:
    """Entity and title names of a passage graph: key -> positions, and the keys for fuzzy lookup;
    and each title's words (``title_words``: position -> the words of its name, as the question's
    runs are read) with their postings (``titles_with``: word -> title positions), for the titles a
    question composes from a bridge's name and its own words (``composed_titles``)."""

    by_key: dict[str, list[int]]
    keys: list[str]
    sorted_keys: list[str]  # the keys in order, for the names a run begins (``link_partial``)
    title_words: dict[int, list[str]]
    titles_with: dict[str, list[int]]

    @classmethod
    def build(cls, graph: PassageGraph) -> NameIndex:
        by_key: dict[str, list[int]] = {}
        title_words: dict[int, list[str]] = {}
        titles_with: dict[str, list[int]] = {}
        for position, (kind, name) in enumerate(zip(graph.kinds, graph.names)):
            if kind not in LINKED_KINDS or not name:
                continue
            if kind == "title":
                title_words[position] = name_words(name)
                for word in set(title_words[position]):
                    titles_with.setdefault(word, []).append(position)
            keys = {node_key(name)}
            if kind == "title":  # "Mercury (planet)" is also found as "Mercury", as graph building links it
                keys.add(node_key(TITLE_QUALIFIER.sub("", name)))
            # and by its words, as the question's runs are read ("Edward Stafford, 4th Baron Stafford"
            # is the run Edward Stafford 4th Baron Stafford: commas and edge punctuation dropped)
            keys |= {node_key(" ".join(question_words(key))) for key in keys}
            for key in keys - {""}:
                by_key.setdefault(key, []).append(position)
        return cls(by_key, list(by_key), sorted(by_key), title_words, titles_with)


def name_words(name: str) -> list[str]:
    """A name's words as a question's run of it is keyed: ``Kansas's congressional districts`` ->
    kansas congressional districts, ``Meet Me in St. Louis`` -> meet me in st louis."""
    return node_key(" ".join(question_words(name))).split()


def question_words(question: str) -> list[str]:
    words = (w.strip(EDGE_PUNCT) for w in _WORD.findall(question))
    return [w.removesuffix("'s").removesuffix("’s") if w.endswith(("'s", "’s")) else w for w in words if w]


def writes_names_capitalised(question: str) -> bool:
    """Whether the question marks names by capitals: a capitalised word after its first one (a
    question typed all in lower case marks nothing, and its lower-case words may be names)."""
    return any(_name_like(word) for word in question_words(question)[1:])


def common_word_mention(link: LinkedNode, question: str) -> bool:
    """A link from a run the question writes in lower case, while it capitalises names elsewhere:
    a common word ("big", "budget", "series") that happens to be some node's name."""
    return (
        link.method in ("exact", "fuzzy")
        and not any(_name_like(word) for word in link.mention.split())
        and writes_names_capitalised(question)
    )


def writes_name(link: LinkedNode, question: str) -> bool:
    """Whether the link is a name the question writes: exact, fuzzy or partial, and not a common word."""
    return link.method in ("exact", "fuzzy", "partial") and not common_word_mention(link, question)


def relation_words(question: str, links: list[LinkedNode]) -> list[str]:
    """The question's words that are not its names: what it asks *about* them ("the spouse of",
    "the country where ... is located"). Words of the runs linked as names (exact, fuzzy or partial,
    not a common word) and function words are left out; lower-cased, each once, in question order."""
    names = {word.casefold() for link in links if writes_name(link, question) for word in link.mention.split()}
    words = (w.casefold() for w in question_words(question))
    return list(dict.fromkeys(w for w in words if w not in names and w not in FUNCTION_WORDS and len(w) > 1))


def written_words(texts) -> set[str]:
    """The lower-cased words of ``texts``, a plural's final s dropped (what ``relation_words`` are
    compared with: "district" is written by "districts")."""
    return {w.casefold().removesuffix("s") for text in texts for w in question_words(text)}


def _meaningful(words: list[str]) -> bool:
    return any(w.casefold() not in FUNCTION_WORDS and len(w) > 1 for w in words)


def link_exact(words: list[str], names: NameIndex, graph: PassageGraph) -> tuple[list[LinkedNode], set[int]]:
    """Longest word runs first; returns the links and the positions of the words they cover."""
    links: list[LinkedNode] = []
    covered: set[int] = set()
    for length in range(min(MAX_NAME_WORDS, len(words)), 0, -1):
        for start in range(0, len(words) - length + 1):
            span = range(start, start + length)
            if covered.intersection(span) or not _meaningful(words[start : start + length]):
                continue
            mention = " ".join(words[start : start + length])
            found = names.by_key.get(node_key(mention))
            if not found:
                continue
            covered.update(span)
            links += [LinkedNode(p, graph.node_ids[p], graph.names[p], "exact", 1.0, mention) for p in found]
    return links, covered


def _name_like(word: str) -> bool:
    return word[:1].isupper() or any(c.isdigit() for c in word)


def titles_named_in(text: str, names: NameIndex, graph: PassageGraph, score: float, skip: set[int]) -> list[LinkedNode]:
    """Title nodes a passage's text names, written as a name (a capitalised word in the run), other
    than ``skip`` (the passage's own title): the links a reader follows out of a passage whose
    names extraction may have missed ("... a character from the Australian soap opera Neighbours"
    names the passage titled Neighbours). Method ``text``, each with ``score``."""
    links, _ = link_exact(question_words(text), names, graph)
    found: dict[int, LinkedNode] = {}
    for link in links:
        if graph.kinds[link.position] == "title" and link.position not in skip and _name_run(link.mention):
            found.setdefault(link.position, replace(link, method="text", score=score))
    return list(found.values())


def composed_titles(
    question: str,
    bridges: list[int],
    names: NameIndex,
    graph: PassageGraph,
    score: float,
    said: set[str] = frozenset(),
) -> list[LinkedNode]:
    """Title nodes the question names *through* a bridge: the title holds the bridge's name (a
    ``bridges`` position: an entity a first-hop passage mentions, or a title its text names) as a
    run of its words, and every other word of the title that is not a function word is a word of
    the question that the first-hop passages do not already write (``said``, as ``written_words``
    gives them). "Which actor plays John in Meet Me in the birthplace of Hyman B. Samuels?": his
    passage names St. Louis, and "Meet Me in St. Louis" is St. Louis plus words the question writes;
    likewise "Kansas's congressional districts" for "the state where Henry Worrall died has how
    many congressional districts". The bridge's own title (nothing left) is not one. Of those found,
    the titles that use the most of the question's words are kept ("District of Ohio" uses one of
    them, "Kansas's congressional districts" two). Method ``composed``, each with ``score``."""
    asked = {w.casefold().removesuffix("s") for w in question_words(question)} - said
    found: dict[int, tuple[int, LinkedNode]] = {}
    for bridge in bridges:
        run = name_words(TITLE_QUALIFIER.sub("", graph.names[bridge] or ""))
        if not run or not _meaningful(run):
            continue
        # the titles holding every word of the run, from its rarest word (a hub word such as "of"
        # may be in most titles of a large corpus)
        postings = sorted((names.titles_with.get(word, []) for word in set(run)), key=len)
        holders = set(postings[0])
        for more in postings[1:]:
            holders.intersection_update(more)
        for title in sorted(holders - {bridge}):
            rest = _without_run(names.title_words[title], run)
            content = [w for w in rest or () if w not in FUNCTION_WORDS and len(w) > 1]
            if content and all(w.removesuffix("s") in asked for w in content) and title not in found:
                link = LinkedNode(title, graph.node_ids[title], graph.names[title], "composed", score, "")
                found[title] = (len(set(content)), link)
    most = max((uses for uses, _ in found.values()), default=0)
    return [link for uses, link in found.values() if uses == most]


def _without_run(words: list[str], run: list[str]) -> list[str] | None:
    """``words`` less the first occurrence of ``run`` as consecutive words (None: not there)."""
    for start in range(len(words) - len(run) + 1):
        if words[start : start + len(run)] == run:
            return words[:start] + words[start + len(run) :]
    return None


def _name_run(mention: str) -> bool:
    return any(word[:1].isupper() for word in mention.split())


def link_fuzzy(
    words: list[str], covered: set[int], names: NameIndex, graph: PassageGraph, cutoff: float
) -> list[LinkedNode]:
    """Runs of name-like words not linked exactly, matched by spelling similarity."""
    links = []
    for run in name_runs(words, covered):
        mention = " ".join(run)
        if len(mention) < 4 or not names.keys:
            continue
        for key, score, _ in process.extract(
            node_key(mention), names.keys, scorer=fuzz.ratio, score_cutoff=cutoff, limit=3
        ):
            links += [
                LinkedNode(p, graph.node_ids[p], graph.names[p], "fuzzy", score / 100.0, mention)
                for p in names.by_key[key]
            ]
    return links


def name_runs(words: list[str], covered: set[int]) -> list[list[str]]:
    """Runs of consecutive name-like words (capitalised or with a digit, not function words) whose
    positions are not in ``covered``."""
    runs, current = [], []
    for i, word in enumerate(words):
        if i not in covered and _name_like(word) and word.casefold() not in FUNCTION_WORDS:
            current.append(word)
        elif current:
            runs.append(current)
            current = []
    if current:
        runs.append(current)
    return runs


def link_partial(words: list[str], covered: set[int], names: NameIndex, graph: PassageGraph) -> list[LinkedNode]:
    """Runs of two or more name-like words linked neither exactly (no word of them) nor by spelling
    that begin a longer name: the question writes the name short ("Greenfield-Central High" for
    Greenfield-Central High School, "Tikhaya Sosna" for Tikhaya Sosna River). The names the run
    begins, up to ``PARTIAL_NAMES`` of the fewest words, each scored by the share of the name's
    words the run writes, and only when it writes at least half of them (method ``partial``). A run
    that holds a name of its own is left to it ("Mr. Smith" with a node Smith is not read as the
    start of "Mr. Smith Carries On")."""
    links = []
    for run in name_runs(words, covered):
        key = node_key(" ".join(run))
        length = len(key.split())
        if length < 2:
            continue
        start = bisect.bisect_left(names.sorted_keys, key + " ")
        longer = []
        for other in names.sorted_keys[start:]:
            if not other.startswith(key + " "):
                break
            if 2 * length >= len(other.split()):
                longer.append(other)
        for other in sorted(longer, key=lambda k: (len(k.split()), k))[:PARTIAL_NAMES]:
            score = length / len(other.split())
            links += [
                LinkedNode(p, graph.node_ids[p], graph.names[p], "partial", score, " ".join(run))
                for p in names.by_key[other]
            ]
    return links


def link_vector(question_vector, node_vectors, graph: PassageGraph, k: int, min_similarity: float) -> list[LinkedNode]:
    if question_vector is None or node_vectors is None:
        return []
    links = []
    for node_id, similarity in node_vectors.search(question_vector, k=k * 3):
        position = graph.position.get(node_id)
        if position is None or graph.kinds[position] not in LINKED_KINDS or similarity < min_similarity:
            continue
        links.append(LinkedNode(position, node_id, graph.names[position], "vector", float(similarity), ""))
        if len(links) == k:
            break
    return links


def link_question(
    question: str,
    graph: PassageGraph,
    names: NameIndex,
    fuzzy_cutoff: float = 90.0,
    question_vector=None,
    node_vectors=None,
    vector_k: int = 3,
    vector_min_similarity: float = 0.5,
) -> list[LinkedNode]:
    """Every node the question names, best link per node (exact > fuzzy > vector)."""
    if graph.empty:
        return []
    words = question_words(question)
    exact, covered = link_exact(words, names, graph)
    fuzzy = link_fuzzy(words, covered, names, graph, fuzzy_cutoff)
    spelled = {i for i, word in enumerate(words) if any(word in link.mention.split() for link in fuzzy)}
    found = exact + fuzzy + link_partial(words, covered | spelled, names, graph)
    found += link_vector(question_vector, node_vectors, graph, vector_k, vector_min_similarity)
    best: dict[int, LinkedNode] = {}
    for link in found:
        if link.position not in best:
            best[link.position] = link
    return list(best.values())
