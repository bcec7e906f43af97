"""Page bundles: proposed wiki pages, read from JSON or from a folder of Markdown files with front
matter, and validated against the wiki hierarchy and the graph.

JSON form::

    {"pages": [{"page_id": "...", "page_type": "Principle", "title": "...", "overview": "...",
                "content": "...", "outgoing_links": [{"target_id": "...", "edge_type": "implemented_by"}]}]}

Markdown form: a folder of ``*.md`` files, one page each; the front matter (YAML between ``---``
lines) holds page_id, page_type, title, overview and outgoing_links, the body is the content.

The hierarchy (which page type may link to which, by which edge type) is ``ALLOWED_LINKS``;
``github_url`` links point at a repository URL, not at a page.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import networkx as nx
import yaml

PAGE_TYPES = ("Workflow", "Principle", "Implementation", "Environment", "Heuristic")
EDGE_TYPES = ("implemented_by", "requires_env", "uses_heuristic", "github_url")
# (source page type, edge type) -> target page type
ALLOWED_LINKS: dict[tuple[str, str], str] = {
    ("Principle", "implemented_by"): "Implementation",
    ("Principle", "uses_heuristic"): "Heuristic",
    ("Implementation", "requires_env"): "Environment",
    ("Implementation", "uses_heuristic"): "Heuristic",
}
EXTERNAL_EDGE_TYPES = {"github_url": "Workflow"}  # edge type -> the page type that may carry it
# top-down level: a parent always has a smaller level than its children
LEVEL = {"Workflow": 0, "Principle": 1, "Implementation": 2, "Environment": 3, "Heuristic": 3}
# bottom-up execution rank (the seed's processing order)
EXECUTION_RANK = {"Environment": 0, "Heuristic": 1, "Implementation": 2, "Principle": 3, "Workflow": 4}
PAGE_FIELDS = ("page_id", "page_type", "title", "overview", "content", "outgoing_links")
WIKI_NODE_KIND = "wiki_page"
_FRONT_MATTER = re.compile(r"\A---\s*\n(.*?)\n---\s*(?:\n|\Z)(.*)\Z", re.DOTALL)


class BundleError(ValueError):
    """A bundle that cannot be merged; ``problems`` lists every problem, each naming its page."""

    def __init__(self, bundle: str, problems: Sequence[str]):
        self.bundle = bundle
        self.problems = list(problems)
        shown = "; ".join(self.problems[:8]) + (
            f"; and {len(self.problems) - 8} more" if len(self.problems) > 8 else ""
        )
        super().__init__(f"page bundle {bundle!r} rejected: {shown}")


@dataclass(frozen=True)
class PageLink:
    target_id: str
    edge_type: str


@dataclass
class WikiPage:
    page_id: str
    page_type: str
    title: str
    overview: str
    content: str
    outgoing_links: list[PageLink] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {
            "page_id": self.page_id,
            "page_type": self.page_type,
            "title": self.title,
            "overview": self.overview,
            "content": self.content,
            "outgoing_links": [{"target_id": x.target_id, "edge_type": x.edge_type} for x in self.outgoing_links],
        }

    @property
    def page_links(self) -> list[PageLink]:
        """Links to pages (``github_url`` links point at a URL)."""
        return [x for x in self.outgoing_links if x.edge_type not in EXTERNAL_EDGE_TYPES]


@dataclass
class PageBundle:
    bundle_id: str
    source_path: str
    pages: list[WikiPage]
    content_hash: str

    def by_id(self) -> dict[str, WikiPage]:
        return {p.page_id: p for p in self.pages}


# -- reading ------------------------------------------------------------------------------------


def bundle_id_for(path: Path | str) -> str:
    """The bundle's name: the file's stem or the folder's name."""
    path = Path(path)
    return path.stem if path.is_file() else path.name


def bundle_content_hash(path: Path | str) -> str:
    """sha1 of the bundle's bytes (a folder: of its ``.md`` files' relative paths and bytes)."""
    path = Path(path)
    digest = hashlib.sha1()
    if path.is_file():
        digest.update(path.read_bytes())
    else:
        for file in sorted(path.rglob("*.md")):
            if any(part.startswith(".") for part in file.relative_to(path).parts):
                continue
            digest.update(file.relative_to(path).as_posix().encode() + b"\0" + file.read_bytes() + b"\0")
    return digest.hexdigest()


BUNDLE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}\Z", re.ASCII)


def find_bundles(folder: Path | str) -> tuple[dict[str, Path], list[str]]:
    """The bundles of a folder (``<inbox>/pages/``): ``*.json`` files and sub-folders holding ``.md``
    files, by bundle id; and what was skipped, with why."""
    folder = Path(folder)
    found: dict[str, Path] = {}
    skipped: list[str] = []
    if not folder.is_dir():
        return found, skipped
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith("."):
            continue
        is_bundle = (entry.is_file() and entry.suffix.lower() == ".json") or (
            entry.is_dir() and any(entry.rglob("*.md"))
        )
        if not is_bundle:
            continue
        bundle_id = bundle_id_for(entry)
        if not BUNDLE_ID.match(bundle_id):
            skipped.append(f"{entry}: a bundle name is 1 to 100 ASCII letters, digits, '_', '.' or '-'")
        elif bundle_id in found:
            skipped.append(f"{entry}: another bundle is named {bundle_id!r} ({found[bundle_id].name})")
        else:
            found[bundle_id] = entry
    return found, skipped


def load_bundle(path: Path | str, bundle_id: str | None = None) -> PageBundle:
    """Read a bundle (a ``.json`` file or a folder of ``.md`` files); ``BundleError`` if unreadable.
    The pages are checked for shape here; ``validate_bundle`` checks them against each other and the graph."""
    path = Path(path)
    name = bundle_id or bundle_id_for(path)
    if not path.exists():
        raise BundleError(name, [f"{path} does not exist"])
    if path.is_dir():
        raw, problems = _read_markdown_folder(path)
    elif path.suffix.lower() == ".json":
        raw, problems = _read_json(path)
    else:
        raise BundleError(name, [f"{path} is neither a .json file nor a folder of .md files"])
    pages = []
    for where, item in raw:
        page, item_problems = _page_from(where, item)
        problems += item_problems
        if page is not None:
            pages.append(page)
    if problems:
        raise BundleError(name, problems)
    return PageBundle(name, str(path.resolve()), pages, bundle_content_hash(path))


def _read_json(path: Path) -> tuple[list[tuple[str, object]], list[str]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        return [], [f"{path.name} is not valid JSON: {exc}"]
    if not isinstance(data, dict) or not isinstance(data.get("pages"), list):
        return [], [f'{path.name} must be an object {{"pages": [...]}}']
    return [(f"pages[{i}]", item) for i, item in enumerate(data["pages"])], []


def _read_markdown_folder(path: Path) -> tuple[list[tuple[str, object]], list[str]]:
    found, problems = [], []
    for file in sorted(path.rglob("*.md")):
        relative = file.relative_to(path).as_posix()
        if any(part.startswith(".") for part in file.relative_to(path).parts):
            continue
        text = file.read_text(encoding="utf-8", errors="replace")
        match = _FRONT_MATTER.match(text)
        if match is None:
            problems.append(f"{relative}: no front matter (a block between '---' lines with page_id, page_type, ...)")
            continue
        try:
            meta = yaml.safe_load(match.group(1))
        except yaml.YAMLError as exc:
            problems.append(f"{relative}: front matter is not valid YAML: {exc}")
            continue
        if not isinstance(meta, dict):
            problems.append(f"{relative}: front matter must be a mapping of fields")
            continue
        found.append((relative, {**meta, "content": match.group(2).strip()}))
    return found, problems


def _page_from(where: str, item: object) -> tuple[WikiPage | None, list[str]]:
    if not isinstance(item, dict):
        return None, [f"{where}: a page must be an object"]
    page_id = item.get("page_id")
    label = f"page {page_id!r}" if isinstance(page_id, str) and page_id.strip() else where
    problems = []
    for name in ("page_id", "page_type", "title"):
        if not isinstance(item.get(name), str) or not item[name].strip():
            problems.append(f"{label}: {name} must be a non-empty string")
    for name in ("overview", "content"):
        if item.get(name) is not None and not isinstance(item[name], str):
            problems.append(f"{label}: {name} must be a string")
    unknown = sorted(set(item) - set(PAGE_FIELDS))
    if unknown:
        problems.append(f"{label}: unknown field(s) {', '.join(unknown)} (a page has {', '.join(PAGE_FIELDS)})")
    links, raw_links = [], item.get("outgoing_links") or []
    if not isinstance(raw_links, list):
        problems.append(f"{label}: outgoing_links must be a list of {{target_id, edge_type}}")
        raw_links = []
    for i, link in enumerate(raw_links):
        if (
            not isinstance(link, dict)
            or not isinstance(link.get("target_id"), str)
            or not link["target_id"].strip()
            or not isinstance(link.get("edge_type"), str)
        ):
            problems.append(f"{label}: outgoing_links[{i}] must be {{target_id, edge_type}} with non-empty strings")
            continue
        links.append(PageLink(link["target_id"].strip(), link["edge_type"].strip()))
    if problems:
        return None, problems
    page = WikiPage(
        page_id=item["page_id"].strip(),
        page_type=item["page_type"].strip(),
        title=item["title"].strip(),
        overview=(item.get("overview") or "").strip(),
        content=(item.get("content") or "").strip(),
        outgoing_links=links,
    )
    return page, []


# -- validation ---------------------------------------------------------------------------------


def validate_bundle(bundle: PageBundle, graph_pages: Mapping[str, str]) -> None:
    """Every problem of the bundle at once, as ``BundleError``; nothing when it can be merged.

    ``graph_pages``: node_id -> page type of the wiki pages already in the graph (links may point
    at them). Checked: an empty bundle, duplicate page ids, unknown page types, unknown edge types,
    links to pages in neither the bundle nor the graph, links the hierarchy does not allow, cycles,
    and a Principle without an Implementation (the hierarchy says 1+).
    """
    problems: list[str] = []
    if not bundle.pages:
        raise BundleError(bundle.bundle_id, ["the bundle holds no pages"])
    seen: dict[str, int] = {}
    for page in bundle.pages:
        seen[page.page_id] = seen.get(page.page_id, 0) + 1
    for page_id, count in seen.items():
        if count > 1:
            problems.append(f"page {page_id!r}: duplicate page_id ({count} pages use it)")
    types = {p.page_id: p.page_type for p in bundle.pages}
    for page in bundle.pages:
        label = f"page {page.page_id!r}"
        if page.page_type not in PAGE_TYPES:
            problems.append(f"{label}: unknown page type {page.page_type!r} (one of {', '.join(PAGE_TYPES)})")
            continue
        for link in page.outgoing_links:
            problems += _link_problems(label, page, link, types, graph_pages)
        if page.page_type == "Principle" and not any(x.edge_type == "implemented_by" for x in page.outgoing_links):
            problems.append(f"{label}: a Principle needs at least one implemented_by link to an Implementation")
    links = nx.DiGraph()
    links.add_nodes_from(types)
    links.add_edges_from((p.page_id, x.target_id) for p in bundle.pages for x in p.page_links if x.target_id in types)
    try:
        cycle = nx.find_cycle(links)
    except nx.NetworkXNoCycle:
        cycle = None
    if cycle:
        path = " -> ".join([edge[0] for edge in cycle] + [cycle[-1][1]])
        problems.append(f"page {cycle[0][0]!r}: cycle of links {path}")
    if problems:
        raise BundleError(bundle.bundle_id, problems)


def _link_problems(label: str, page: WikiPage, link: PageLink, types: Mapping[str, str], graph: Mapping[str, str]):
    if link.edge_type not in EDGE_TYPES:
        return [f"{label}: unknown edge type {link.edge_type!r} (one of {', '.join(EDGE_TYPES)})"]
    if link.edge_type in EXTERNAL_EDGE_TYPES:
        owner = EXTERNAL_EDGE_TYPES[link.edge_type]
        problems = [] if page.page_type == owner else [f"{label}: only a {owner} has {link.edge_type} links"]
        if not re.match(r"https?://", link.target_id):
            problems.append(f"{label}: {link.edge_type} target {link.target_id!r} is not an http(s) URL")
        return problems
    if link.target_id == page.page_id:
        return [f"{label}: links to itself ({link.edge_type}), a cycle of links"]
    target_type = types.get(link.target_id) or graph.get(link.target_id)
    if target_type is None:
        return [
            f"{label}: links to {link.target_id!r} ({link.edge_type}), which is in neither the bundle nor the graph"
        ]
    expected = ALLOWED_LINKS.get((page.page_type, link.edge_type))
    if expected is None:
        allowed = [f"{e} -> {t}" for (s, e), t in ALLOWED_LINKS.items() if s == page.page_type]
        hint = f"a {page.page_type} may link {', '.join(allowed)}" if allowed else f"a {page.page_type} is a leaf"
        return [f"{label}: a {page.page_type} cannot have {link.edge_type} links ({hint})"]
    if target_type != expected:
        return [f"{label}: {link.edge_type} must point at an {expected}, but {link.target_id!r} is a {target_type}"]
    return []
