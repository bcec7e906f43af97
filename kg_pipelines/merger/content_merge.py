"""Merging two wiki pages without an LLM, deterministic: sections unioned, repeated sentences dropped.

A page's content is Markdown; its sections are split at headings (``#`` to ``######``). The merged
content keeps the existing page's sections in their order, adds to each the sentences of the new
page's section of the same heading that it does not already hold (compared case- and
space-insensitively), and appends the new page's other sections after them. Text before the first
heading is a section without a heading. The overview is merged the same way, as one section.
"""

from __future__ import annotations

import re

_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\"'`*\[-])")


def split_sections(content: str) -> list[tuple[str, list[str]]]:
    """[(heading line or '', body lines)] in order."""
    sections: list[tuple[str, list[str]]] = [("", [])]
    for line in (content or "").splitlines():
        if _HEADING.match(line):
            sections.append((line.strip(), []))
        else:
            sections[-1][1].append(line)
    return [(h, body) for h, body in sections if h or any(x.strip() for x in body)]


def heading_key(heading: str) -> str:
    match = _HEADING.match(heading)
    return " ".join((match.group(2) if match else heading).lower().split())


def sentences(text: str) -> list[str]:
    """Sentences of a paragraph; list items and table rows are one unit each."""
    units: list[str] = []
    for block in re.split(r"\n\s*\n", text or ""):
        lines = [x for x in block.splitlines() if x.strip()]
        if any(re.match(r"\s*([-*+]|\d+[.)]|\|)", x) for x in lines):
            units += [x.rstrip() for x in lines]
        elif lines:
            units += [s.strip() for s in _SENTENCE_END.split(" ".join(x.strip() for x in lines)) if s.strip()]
    return units


def sentence_key(sentence: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", sentence.lower()).split())


def _merge_body(existing: list[str], new: list[str]) -> list[str]:
    have = {sentence_key(s) for s in sentences("\n".join(existing))}
    added = [s for s in sentences("\n".join(new)) if sentence_key(s) not in have and not have.add(sentence_key(s))]
    if not added:
        return existing
    body = list(existing)
    while body and not body[-1].strip():
        body.pop()
    if body:
        body.append("")
    list_like = all(re.match(r"\s*([-*+]|\d+[.)]|\|)", s) for s in added)
    body += added if list_like else [" ".join(added)]
    body.append("")
    return body


def merge_content(existing: str, new: str) -> str:
    merged = split_sections(existing)
    index = {heading_key(h): i for i, (h, _) in enumerate(merged)}
    for heading, body in split_sections(new):
        key = heading_key(heading)
        if key in index:
            i = index[key]
            merged[i] = (merged[i][0], _merge_body(merged[i][1], body))
        else:
            index[key] = len(merged)
            merged.append((heading, _merge_body([], body)))
    parts = []
    for heading, body in merged:
        text = "\n".join(body).strip()
        parts.append(f"{heading}\n\n{text}".strip() if heading else text)
    return "\n\n".join(p for p in parts if p).strip()


def merge_overview(existing: str, new: str) -> str:
    have = {sentence_key(s) for s in sentences(existing)}
    added = [s for s in sentences(new) if sentence_key(s) not in have and not have.add(sentence_key(s))]
    return " ".join([existing.strip(), *added]).strip()
