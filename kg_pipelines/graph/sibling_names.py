"""The distinguishing-token rule: two names that differ only where a sibling differs are distinct.

FOXO1 / FOXO4, IL-6 / IL-10, Type 1 / Type 2 Diabetes, PPAR-alpha / PPAR-gamma, H1N1 / H3N2,
TNF-α / TGF-β, ER+ / ER-, acute / chronic myeloid leukemia, iPhone 12 / iPhone 13, iPhone 13 /
iPhone 13 Pro, HP 62 / HP 62XL: a family names its members by a number, a letter, a Roman numeral,
a Greek letter, a variant word (an edition, a form, a colour, a pack) or a sign. An embedding reads
such names (and the sentence they share) as one thing; they are not.

Each name becomes a list of tokens: runs of letters and runs of digits (``H1N1`` is h 1 n 1), a
Greek letter spelled or written as a symbol (``TNFα``, ``TNF-alpha`` and ``TNFalpha`` all end in
``alpha``), and a sign (``+``, or ``-`` ending a word: ``CD8-``). Numbers compare by value and
Roman numerals are numbers (``Type II`` is ``Type 2``); case, hyphens and spaces never count
(``HNF-6`` is ``HNF6``); a unit right after a number is written one way (``13"``, ``13-inch`` and
``13 in`` are 13 inch; ``128 GB`` and ``128 gigabytes``: ``data/units.txt``). The two token lists
are aligned (``difflib``); in each stretch where one name has tokens in place of the other's:

- same length: any aligned pair of *distinguishing* tokens that differ (a number, a single letter,
  a Greek letter, a variant word of ``data/variant_markers.txt`` or ``data/colours.txt``, a sign)
  makes the names siblings (``TNF-α`` / ``TGF-β``: alpha against beta);
- different lengths: siblings when both sides hold only distinguishing tokens (``type 1a`` /
  ``type 2``).

A stretch one name adds counts when it holds only numbers, single letters, variant words and
signs: it names a member, subtype or edition of what the other names (glutathione peroxidase /
glutathione peroxidase 1, type 1 / type 1a receptor, AKT / AKT1, SARS-CoV / SARS-CoV-2, Galaxy
S21 / Galaxy S21 Ultra or S21+, HP 62 / HP 62XL, ink cartridge / ink cartridge 2-pack,
leukemia / chronic leukemia). Any other added word (a Greek letter: TNF / TNF-alpha, a brand,
``HNF-6`` / ``hepatocyte nuclear factor-6``) is left to the name similarity and the score. Tokens
only moved (``2022 Toyota RAV4`` / ``Toyota RAV4 2022``) are neither added nor replaced. The word
lists (Greek letters, Roman numerals, variant words, colours, units) are data files under
``kg_pipelines/graph/data/``, read once.
"""

from __future__ import annotations

import difflib
import functools
import re
import unicodedata

from kg_pipelines.graph.data_files import data_lines

NUMBER, LETTER, GREEK, MARKER, SIGN, WORD = "number", "letter", "greek", "variant word", "sign", "word"
PLATFORM = "platform"
DISTINGUISHING = frozenset({NUMBER, LETTER, GREEK, MARKER, SIGN, PLATFORM})
# added alone, they name a member, subtype or edition (peroxidase 1, S21 Ultra, i7+); not a Greek
# letter (TNF / TNF-alpha name one thing) nor a platform (Dreamweaver CS3 / Dreamweaver CS3 (Mac))
ADDED = frozenset({NUMBER, LETTER, MARKER, SIGN})
# 10,000 or 10 000 (a thin or no-break space anywhere; a plain space only when no letter follows:
# "iPhone 13 128 GB" holds 13 and 128), never glued to a letter (M2 256GB)
_THOUSANDS = re.compile(
    r"(?<![\w.,])\d{1,3}(?:(?:[,\u202f\u00a0]\d{3})+(?![\d.,]?\d)|(?: \d{3})+(?![\d.,]?\d|\s*[^\W\d_]))"
)
_INCH_SIGN = re.compile(r"(?<=\d)\s*(?:\"|″|'')")


def _lines(name: str) -> list[list[str]]:
    return [line.split() for line in data_lines(name)]


@functools.cache
def greek_letters() -> dict[str, str]:
    """Symbol or spelled name (lower case) -> spelled name."""
    found = {}
    for name, *symbols in _lines("greek_letters.txt"):
        found[name.lower()] = name.lower()
        found.update((s, name.lower()) for s in symbols)
        found.update((s.lower(), name.lower()) for s in symbols)
    return found


@functools.cache
def roman_numerals() -> dict[str, int]:
    return {numeral.lower(): int(value) for numeral, value in _lines("roman_numerals.txt")}


@functools.cache
def variant_markers() -> dict[str, str]:
    """Variant word or colour (lower case) -> the first spelling of its line."""
    rows = _lines("variant_markers.txt") + _lines("colours.txt")
    return {word.lower(): row[0].lower() for row in rows for word in row}


@functools.cache
def platforms() -> dict[str, str]:
    """Platform spelling (lower case) -> the first spelling of its line."""
    return {word.lower(): row[0].lower() for row in _lines("platforms.txt") for word in row}


@functools.cache
def units() -> dict[str, str]:
    """Unit spelling (lower case) -> the first spelling of its line."""
    return {word.lower(): row[0].lower() for row in _lines("units.txt") for word in row}


@functools.cache
def _patterns() -> tuple[re.Pattern, re.Pattern, re.Pattern]:
    symbols = sorted((s for s in greek_letters() if len(s) == 1), key=len)
    spelled = sorted({v for v in greek_letters().values()}, key=len, reverse=True)
    symbol = re.compile("[-−]?[" + "".join(map(re.escape, symbols)) + "]")  # TNF-α as TNF alpha
    # a Greek name glued to an upper-case stem: TNFalpha, PPARgamma, ERbeta (not "alphabet")
    glued = re.compile(r"(?<=[A-Z])(" + "|".join(spelled) + r")(?=[^a-z]|$)")
    # runs of letters, runs of digits, a plus sign, a minus ending a word (CD8-, not IL-6)
    # a plus is a sign glued to what precedes it (CD8+, i7+, Na(+)) or ending the name or a bracket
    # (Ca2 +); standing alone between words it says "and" (antivirus + firewall, GPS + Cellular)
    token = re.compile(r"[^\W\d_]+|\d+|(?<=\S)[+±]|[+±](?=\s*(?:[)\]/,;]|$))|(?<=[^\W_])[-−](?=[\s)/,;]|$)")
    return symbol, glued, token


@functools.lru_cache(maxsize=1 << 16)
def tokens(name: str) -> tuple[tuple[str, object], ...]:
    """The name's tokens as (kind, value): numbers by value, Roman numerals as numbers, Greek
    letters by spelled name, case folded."""
    symbol, glued, token = _patterns()
    text = unicodedata.normalize("NFKC", name or "").replace("_", " ")
    text = symbol.sub(lambda m: " " + greek_letters()[m.group(0)[-1]] + " ", text)
    text = glued.sub(r" \1", text)
    text = _THOUSANDS.sub(lambda m: re.sub(r"[ ,\u202f\u00a0]", "", m.group(0)), text)  # 10 000, 10,000
    text = _INCH_SIGN.sub(" inch ", text)  # 13" is 13 inch
    greek, roman, markers, unit, platform = greek_letters(), roman_numerals(), variant_markers(), units(), platforms()
    found = token.findall(text)
    out = []
    for i, raw in enumerate(found):
        low = raw.lower()
        if low in unit and i and found[i - 1].isdigit() and not (i + 1 < len(found) and found[i + 1].isdigit()):
            out.append((WORD, unit[low]))  # 13-inch, 128 GB (not the "in" of 7-in-1)
        elif raw.isdigit():
            out.append((NUMBER, int(raw)))
        elif raw in "+±-−":
            out.append((SIGN, "-" if raw in "-−" else raw))
        elif low in roman:
            out.append((NUMBER, roman[low]))
        elif low in greek:
            out.append((GREEK, greek[low]))
        elif len(low) == 1:
            out.append((LETTER, low))
        elif low in markers:
            out.append((MARKER, markers[low]))
        elif low in platform:
            out.append((PLATFORM, platform[low]))
        else:
            out.append((WORD, low))
    return tuple(out)


def name_key(name: str) -> tuple:
    """What two names written differently but the same share: their tokens (``HNF-6`` and
    ``HNF6``, ``TNF-α`` and ``TNF-alpha``, ``Type II`` and ``type 2``); a name without letters or
    digits keys on its lower-cased text."""
    found = tokens(name)
    return found if found else (("text", " ".join((name or "").lower().split())),)


def _shown(token: tuple[str, object]) -> str:
    return str(token[1])


def _thousands(stretch: tuple) -> int | None:
    """The number a run of numbers writes in groups of thousands (950 000), or None."""
    if not stretch or any(t[0] != NUMBER for t in stretch) or any(t[1] >= 1000 for t in stretch[1:]):
        return None
    value = 0
    for _, number in stretch:
        value = value * 1000 + number
    return value


def _holds(stretch: tuple, part: tuple) -> bool:
    return any(stretch[i : i + len(part)] == part for i in range(len(stretch) - len(part) + 1))


def sibling_difference(name_a: str, name_b: str) -> str | None:
    """Why the two names are siblings (distinct whatever the embedding says), or None."""
    a, b = tokens(name_a), tokens(name_b)
    if a == b:
        return None
    opcodes = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    # the stretches each name holds outside the aligned ones: a stretch one name adds that the
    # other holds in one of its own, in the same order, was moved, not added (2022 Toyota RAV4 /
    # Toyota RAV4 2022); swapped tokens are not (H1N2 / H2N1)
    unaligned_a = [a[i1:i2] for op, i1, i2, _, _ in opcodes if op != "equal"]
    unaligned_b = [b[j1:j2] for op, _, _, j1, j2 in opcodes if op != "equal"]
    for op, i1, i2, j1, j2 in opcodes:
        left, right = a[i1:i2], b[j1:j2]
        if op in ("insert", "delete"):
            added = left or right
            if any(_holds(other, added) for other in (unaligned_b if left else unaligned_a)):
                continue  # moved
            if all(t[0] in ADDED for t in added):
                shown = " ".join(map(_shown, added))
                return f"one name adds {shown} (a member, subtype or edition of the other)"
            continue
        if op != "replace":
            continue
        if len(left) == len(right):
            for x, y in zip(left, right):
                if x != y and x[0] in DISTINGUISHING and y[0] in DISTINGUISHING:
                    return f"the names differ by a distinguishing token: {_shown(x)} / {_shown(y)} ({x[0]})"
        elif _thousands(left) is not None and _thousands(left) == _thousands(right):
            continue  # 950 000 / 950000: one number, grouped another way
        elif all(t[0] in DISTINGUISHING for t in left + right):
            shown_a, shown_b = " ".join(map(_shown, left)), " ".join(map(_shown, right))
            return f"the names differ by distinguishing tokens: {shown_a} / {shown_b}"
    return None
