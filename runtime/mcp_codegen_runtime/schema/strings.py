"""Strings for generated example values (:mod:`schema.examples`): one matching an ECMA-262
``pattern``, one of a ``format``.

A pattern is translated to Python's ``re`` by :mod:`schema.patterns` and parsed by the standard
library's own regular-expression parser (``re._parser``, the parser ``re.compile`` uses); the
parse tree is then walked with a seeded :class:`random.Random`: a literal is written, a
character class gives one of its members, a repeat a few copies, a branch one alternative.
Look-arounds and anchors write nothing, so a candidate is checked with the compiled pattern
and a few other draws are tried before giving up (:class:`PatternUnsatisfiable`).
"""

from __future__ import annotations

import importlib
import random
import re
from collections.abc import Callable
from typing import Any

from .patterns import PatternError, compile_pattern, to_python

#: The standard library's own regular-expression parser and its constants (Python 3.11+).
P: Any = importlib.import_module("re._parser")
C: Any = importlib.import_module("re._constants")

#: Candidate draws per pattern before it is declared unsatisfiable.
PATTERN_TRIES = 40
#: Extra copies an unbounded repeat (``*``, ``+``, ``{n,}``) writes at most.
_REPEAT_EXTRA = 3
#: Characters tried for ``.``, a negated class or a category, in order of preference.
_POOL = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-. @:/"
_CATEGORY_POOL = {
    "CATEGORY_DIGIT": "0123456789", "CATEGORY_NOT_DIGIT": "abcxyz", "CATEGORY_WORD": "abcxyz019_",
    "CATEGORY_NOT_WORD": "-. @", "CATEGORY_SPACE": " ", "CATEGORY_NOT_SPACE": "abcxyz019",
}


class PatternUnsatisfiable(ValueError):
    """No string matching the pattern was found (or it cannot be used in Python)."""


def pattern_string(pattern: str, rng: random.Random, min_length: int = 0, max_length: int | None = None) -> str:
    """A string that ``pattern`` (ECMA-262, searched anywhere) matches, of a length within the bounds.

    Raises:
        PatternUnsatisfiable: none found in :data:`PATTERN_TRIES` draws.
    """
    try:
        compiled = compile_pattern(pattern)
        tree = P.parse(to_python(pattern), re.ASCII)
    except (PatternError, re.error) as exc:
        raise PatternUnsatisfiable(str(exc)) from None
    for _ in range(PATTERN_TRIES):
        text = _Walk(rng).sub(tree)
        if len(text) < min_length:
            text = _pad(text, compiled, min_length)
        if compiled.search(text) and len(text) >= min_length and (max_length is None or len(text) <= max_length):
            return text
    raise PatternUnsatisfiable(f"no string of {min_length}..{max_length if max_length is not None else ''} "
                               f"characters matching {pattern!r} was found")


def _pad(text: str, compiled: re.Pattern[str], min_length: int) -> str:
    """``text`` lengthened (by characters that keep the match, when an unanchored end allows it)."""
    for filler in ("a", "0", " "):
        longer = text + filler * (min_length - len(text))
        if compiled.search(longer):
            return longer
        longer = filler * (min_length - len(text)) + text
        if compiled.search(longer):
            return longer
    return text


class _Walk:
    """One draw of a string from a parse tree of ``re._parser``."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.groups: dict[int, str] = {}

    def sub(self, items: Any) -> str:
        return "".join(self.one(op, av) for op, av in items)

    def one(self, op: Any, av: Any) -> str:
        name = str(op)
        if name == "LITERAL":
            return chr(av)
        if name == "NOT_LITERAL":
            return next(c for c in _POOL if ord(c) != av)
        if name == "ANY":
            return self.rng.choice("abcxyz")
        if name == "IN":
            return self.member(av)
        if name == "BRANCH":
            return self.sub(self.rng.choice(av[1]))
        if name == "SUBPATTERN":
            group, _, _, body = av
            text = self.sub(body)
            if group is not None:
                self.groups[group] = text
            return text
        if name == "ATOMIC_GROUP":
            return self.sub(av)
        if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            low, high, body = av
            top = low + _REPEAT_EXTRA if high == C.MAXREPEAT else high
            return "".join(self.sub(body) for _ in range(self.rng.randint(low, max(low, min(top, low + _REPEAT_EXTRA)))))
        if name == "GROUPREF":
            return self.groups.get(av, "")
        if name == "GROUPREF_EXISTS":
            group, yes, no = av
            return self.sub(yes) if group in self.groups else (self.sub(no) if no else "")
        return ""  # AT (anchors), ASSERT, ASSERT_NOT: nothing written; the final check decides

    def member(self, items: list[tuple[Any, Any]]) -> str:
        """One character of a class (``[...]``)."""
        if items and str(items[0][0]) == "NEGATE":
            rest = items[1:]
            allowed = [c for c in _POOL if not any(_in(op, av, c) for op, av in rest)]
            return self.rng.choice(allowed) if allowed else "\u00e9"
        plain = [(op, av) for op, av in items if _printable_ascii(op, av)]  # what every regex engine agrees on
        op, av = self.rng.choice(plain or items)
        name = str(op)
        if name == "LITERAL":
            return chr(av)
        if name == "RANGE":
            low, high = av
            if plain:
                low, high = max(low, 32), min(high, 126)
            return chr(self.rng.randint(low, min(high, low + 25)))
        if name == "CATEGORY":
            return self.rng.choice(_CATEGORY_POOL.get(str(av), "a"))
        return "a"


def _printable_ascii(op: Any, av: Any) -> bool:
    """Whether a class item holds a printable ASCII character (a range: one of its first ones)."""
    name = str(op)
    if name == "LITERAL":
        return bool(32 <= av < 127)
    if name == "RANGE":
        return bool(av[0] < 127 and av[1] >= 32)
    return name == "CATEGORY"


_CATEGORY_TEST: dict[str, Callable[[str], bool]] = {
    "CATEGORY_DIGIT": lambda c: c in "0123456789",
    "CATEGORY_WORD": lambda c: c.isascii() and (c.isalnum() or c == "_"),
    "CATEGORY_SPACE": lambda c: c in " \t\n\r\x0b\x0c",
}


def _in(op: Any, av: Any, char: str) -> bool:
    """Whether ``char`` belongs to one item of a character class."""
    name, code = str(op), ord(char)
    if name == "LITERAL":
        return bool(code == av)
    if name == "RANGE":
        return bool(av[0] <= code <= av[1])
    if name == "CATEGORY":
        category = str(av)
        test = _CATEGORY_TEST.get(category.replace("NOT_", ""))
        return test is not None and test(char) != ("NOT_" in category)
    return False


_HEX = "0123456789abcdef"


def format_string(fmt: str, rng: random.Random) -> str | None:
    """A valid example of a JSON Schema ``format`` (None for a format not known here)."""
    day, hour, n = rng.randint(1, 28), rng.randint(0, 23), rng.randint(1, 99)
    if fmt == "uuid":
        digits = "".join(rng.choice(_HEX) for _ in range(32))
        return f"{digits[:8]}-{digits[8:12]}-4{digits[13:16]}-a{digits[17:20]}-{digits[20:]}"
    values = {
        "date-time": f"2024-01-{day:02d}T{hour:02d}:30:00Z",
        "date": f"2024-01-{day:02d}",
        "time": f"{hour:02d}:30:00Z",
        "duration": f"P{day}D",
        "email": f"user{n}@example.com",
        "idn-email": f"user{n}@example.com",
        "hostname": f"host{n}.example.com",
        "idn-hostname": f"host{n}.example.com",
        "ipv4": f"192.0.2.{n}",
        "ipv6": f"2001:db8::{n:x}",
        "uri": f"https://example.com/items/{n}",
        "iri": f"https://example.com/items/{n}",
        "uri-reference": f"/items/{n}",
        "iri-reference": f"/items/{n}",
        "uri-template": "https://example.com/items/{id}",
        "json-pointer": f"/items/{n}",
        "relative-json-pointer": f"0/items/{n}",
        "regex": "^[a-z]+$",
    }
    return values.get(fmt)


__all__ = ["PATTERN_TRIES", "PatternUnsatisfiable", "format_string", "pattern_string"]
