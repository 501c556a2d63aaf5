"""What to do about a YAML syntax error, from the parser's own description of it (E002).

PyYAML says what it met, in its terms ("found character '\\t' that cannot start any token");
the hint says what to write instead.  Unknown problems keep the general hint.
"""

from __future__ import annotations

import yaml

GENERAL = "fix the YAML syntax at this position (indentation, quotes, colons)"

#: (a piece of PyYAML's problem text, the hint), first match wins.
_HINTS = (
    ("found character '\\t'", "YAML does not indent with tabs: indent with spaces"),
    ("mapping values are not allowed here",
     "a ': ' inside a plain value starts a mapping: quote the text (description: \"Note: ...\")"),
    ("but found another document", "a spec is one YAML document: remove the second '---' (or split the file)"),
    ("found undefined alias", "an alias (*name) needs its anchor (&name) earlier in the file"),
    ("found unhashable key", "keys are plain text: quote a key that starts with [ or {"),
    ("expected <block end>, but found", "the indentation of this line does not match its siblings: line the keys up"),
    ("did not find expected key", "the indentation of this line does not match its siblings: line the keys up"),
    ("found unexpected end of stream", "a quote or bracket is not closed: close it before the end of the file"),
    ("unacceptable character", "the file holds a control character YAML refuses: remove it (or escape it in a "
     "double-quoted string, \\x00 style)"),
    ("found character '@' that cannot start any token", "'@' cannot start a plain value: quote the text"),
    ("found character '`' that cannot start any token", "'`' cannot start a plain value: quote the text"),
)


def yaml_problem(exc: yaml.YAMLError, text: str) -> tuple[int, int, str]:
    """(line, column, what is wrong) of PyYAML's error on ``text``; 0, 0 when it says no place.
    A character the reader refuses is located from its offset and named by its code point."""
    if isinstance(exc, yaml.reader.ReaderError) and isinstance(exc.position, int):
        at = min(exc.position, len(text))
        line, col = text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at)
        code = exc.character if isinstance(exc.character, int) else ord(str(exc.character)[:1] or "\0")
        return line, col, f"unacceptable character U+{code:04X} (YAML refuses control characters)"
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    line, col = (mark.line + 1, mark.column + 1) if mark else (0, 0)
    problem = getattr(exc, "problem", None) or getattr(exc, "context", None) or str(exc) or "syntax error"
    return line, col, " ".join(str(problem).split())


def yaml_hint(problem: str) -> str:
    """The hint for PyYAML's ``problem`` text."""
    return next((hint for piece, hint in _HINTS if piece in problem), GENERAL)


__all__ = ["GENERAL", "yaml_hint", "yaml_problem"]
