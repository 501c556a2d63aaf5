"""JSON Schema ``pattern`` with ECMA-262 semantics, on Python's ``re``.

JSON Schema patterns are ECMA-262 regular expressions, and several escapes mean something
else in Python: ``\\d``/``\\w``/``\\b`` are ASCII-only, ``$`` matches only at the very end
(Python's also before a final newline), ``.`` excludes every line terminator, ``\\s`` has its
own set, ``\\cC`` is a control character, ``\\p{Letter}`` a Unicode property, and named groups
are ``(?<name>...)`` and ``\\k<name>`` (Python's ``(?P<name>...)`` and ``(?P=name)``).
:func:`to_python` rewrites a pattern so ``re`` (with ``re.ASCII``) gives the ECMA answer;
general-category properties (``\\p{L}``, ``\\p{Letter}``, ``\\P{Lu}`` ...) become character
classes built from :mod:`unicodedata`.  A pattern that still cannot be compiled raises
:class:`PatternError` (the generator warns at build time).
"""

from __future__ import annotations

import re
import sys
import unicodedata
from functools import lru_cache


class PatternError(ValueError):
    """The pattern cannot be translated to Python's ``re``."""


_SPACE = r"\t\n\x0b\x0c\r \xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_LINE_END = r"\n\r\u2028\u2029"
_CATEGORIES = {
    "Letter": "L", "Cased_Letter": "LC", "Uppercase_Letter": "Lu", "Lowercase_Letter": "Ll",
    "Titlecase_Letter": "Lt", "Modifier_Letter": "Lm", "Other_Letter": "Lo", "Mark": "M",
    "Combining_Mark": "M", "Nonspacing_Mark": "Mn", "Spacing_Mark": "Mc", "Enclosing_Mark": "Me",
    "Number": "N", "Decimal_Number": "Nd", "digit": "Nd", "Letter_Number": "Nl", "Other_Number": "No",
    "Punctuation": "P", "punct": "P", "Connector_Punctuation": "Pc", "Dash_Punctuation": "Pd",
    "Open_Punctuation": "Ps", "Close_Punctuation": "Pe", "Initial_Punctuation": "Pi",
    "Final_Punctuation": "Pf", "Other_Punctuation": "Po", "Symbol": "S", "Math_Symbol": "Sm",
    "Currency_Symbol": "Sc", "Modifier_Symbol": "Sk", "Other_Symbol": "So", "Separator": "Z",
    "Space_Separator": "Zs", "Line_Separator": "Zl", "Paragraph_Separator": "Zp", "Other": "C",
    "Control": "Cc", "cntrl": "Cc", "Format": "Cf", "Surrogate": "Cs", "Private_Use": "Co",
    "Unassigned": "Cn",
}


@lru_cache(maxsize=64)
def _category_class(name: str) -> str:
    """Character-class body (ranges) of a Unicode general category, e.g. ``L`` or ``Lu``."""
    if name.startswith(("General_Category=", "gc=")):
        name = name.split("=", 1)[1]
    code = _CATEGORIES.get(name, name)
    if not re.fullmatch(r"[A-Z][a-z]?|LC", code):
        raise PatternError(f"unsupported Unicode property \\p{{{name}}}")
    wanted = {"Lu", "Ll", "Lt"} if code == "LC" else None

    def hit(cat: str) -> bool:
        return cat in wanted if wanted is not None else cat.startswith(code) if len(code) == 1 else cat == code

    ranges: list[tuple[int, int]] = []
    for cp in range(sys.maxunicode + 1):
        if hit(unicodedata.category(chr(cp))):
            if ranges and ranges[-1][1] == cp - 1:
                ranges[-1] = (ranges[-1][0], cp)
            else:
                ranges.append((cp, cp))
    if not ranges:
        raise PatternError(f"unknown Unicode property \\p{{{name}}}")
    return "".join(f"\\U{a:08x}" if a == b else f"\\U{a:08x}-\\U{b:08x}" for a, b in ranges)


def to_python(pattern: str) -> str:
    """``pattern`` (ECMA-262) rewritten for ``re.compile(..., re.ASCII)``.

    Raises:
        PatternError: an escape with no Python equivalent.
    """
    out: list[str] = []
    i, in_class = 0, False
    n = len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "\\" and i + 1 < n:
            nxt = pattern[i + 1]
            if nxt == "c" and i + 2 < n and pattern[i + 2].isascii() and pattern[i + 2].isalpha():
                out.append(f"\\x{ord(pattern[i + 2]) % 32:02x}")
                i += 3
            elif nxt in "pP" and i + 2 < n and pattern[i + 2] == "{":
                end = pattern.find("}", i + 3)
                if end < 0:
                    raise PatternError(f"unterminated \\{nxt}{{ in {pattern!r}")
                body = _category_class(pattern[i + 3:end])
                if nxt == "p":
                    out.append(body if in_class else f"[{body}]")
                elif in_class:
                    raise PatternError(f"\\P{{...}} inside a character class is not supported: {pattern!r}")
                else:
                    out.append(f"[^{body}]")
                i = end + 1
            elif nxt == "s":
                out.append(_SPACE if in_class else f"[{_SPACE}]")
                i += 2
            elif nxt == "S" and not in_class:
                out.append(f"[^{_SPACE}]")
                i += 2
            elif nxt == "k" and not in_class and pattern.startswith("<", i + 2) and pattern.find(">", i + 3) > 0:
                end = pattern.find(">", i + 3)
                out.append(f"(?P={pattern[i + 3:end]})")
                i = end + 1
            elif nxt == "u" and i + 2 < n and pattern[i + 2] == "{":
                end = pattern.find("}", i + 3)
                out.append(f"\\U{int(pattern[i + 3:end], 16):08x}")
                i = end + 1
            else:
                out.append(ch + nxt)
                i += 2
            continue
        if in_class:
            if ch == "]":
                in_class = False
            out.append(ch)
        elif ch == "[":
            in_class = True
            out.append(ch)
            if pattern.startswith("^", i + 1):
                out.append("^")
                i += 1
            if pattern.startswith("]", i + 1):  # ECMA: [] matches nothing, [^] anything
                if out[-1] == "^":
                    out[-1] = r"\x00-\U0010ffff]"
                else:
                    out.append(r"^\x00-\U0010ffff]")
                in_class = False
                i += 1
        elif ch == "(" and pattern.startswith("?<", i + 1) and not pattern.startswith(("?<=", "?<!"), i + 1):
            out.append("(?P<")
            i += 3
            continue
        elif ch == "$":
            out.append(r"\Z")
        elif ch == ".":
            out.append(f"[^{_LINE_END}]")
        else:
            out.append(ch)
        i += 1
    return "".join(out)


@lru_cache(maxsize=1024)
def compile_pattern(pattern: str) -> re.Pattern[str]:
    """The compiled Python form of an ECMA-262 pattern.

    Raises:
        PatternError: it cannot be translated or compiled.
    """
    try:
        return re.compile(to_python(pattern), re.ASCII)
    except (re.error, ValueError, OverflowError) as exc:
        raise PatternError(f"pattern {pattern!r} cannot be used: {exc}") from None


def search(pattern: str, text: str) -> bool:
    """Whether ``pattern`` (ECMA-262) matches somewhere in ``text``."""
    return compile_pattern(pattern).search(text) is not None
