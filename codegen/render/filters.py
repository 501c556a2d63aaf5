"""The Jinja filters through which spec text reaches generated code: Python literals
(``pyrepr``, ``jsonliteral``), docstrings and docstring lines, ``#`` comments, TOML strings,
PEP 440 versions.  Every one escapes what would end its context early."""

from __future__ import annotations

import json
import re
from typing import Any

_WIDE = re.compile(r"[^\x00-\u10ff]")  # below U+1100 black counts every character as one column


def pyrepr(value: Any) -> str:
    """A Python literal for JSON-like data (strings escaped by ``repr``), in black's style.

    A string is quoted as black quotes it (:func:`codegen.render.blackstyle.black_quotes`:
    double quotes unless that needs more escapes), so black has nothing to change.  Lists, tuples and dicts are spelled as
    ``repr`` spells them, with their items through this function.
    """
    if isinstance(value, str):
        text = repr(value)
        if "'" not in value and '"' not in value:
            return f'"{text[1:-1]}"'
        from .blackstyle import black_quotes

        return black_quotes(text)
    if isinstance(value, list):
        return "[" + ", ".join(map(pyrepr, value)) + "]"
    if isinstance(value, tuple):
        return "(" + ", ".join(map(pyrepr, value)) + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{pyrepr(k)}: {pyrepr(v)}" for k, v in value.items()) + "}"
    return repr(value)


def pylines(text: str) -> str:
    """A long text as a Python expression: one literal per line of ``text`` (each through
    :func:`pyrepr`), concatenated in parentheses, so a diff of the generated file shows the
    lines that changed."""
    lines = text.splitlines(keepends=True)
    if len(lines) <= 1:
        return pyrepr(text)
    return "(\n" + "".join(f"    {pyrepr(line)}\n" for line in lines) + ")"


def jsonliteral(value: Any) -> str:
    """A Python expression for JSON data that black leaves alone: a raw triple-quoted JSON text.

    Pretty-printed JSON inside ``r\"\"\"...\"\"\"`` costs black nothing to format (large dict
    literals were a third of all formatting time).  ``ensure_ascii`` escapes every non-ASCII
    character; JSON escapes quotes and control characters (DEL too, here), and JSON tokens
    never put three quotes in a row, so the raw string cannot end early.  Anything unexpected
    falls back to ``repr``.
    """
    text = json.dumps(value, indent=2, ensure_ascii=True, allow_nan=False).replace("\x7f", "\\u007f")
    if '"""' in text or text.endswith(("\\", '"')) or text.startswith('"'):  # would merge with the quotes
        return f"json.loads(json.dumps({value!r}))"
    return f'json.loads(r"""{text}""")'


def docstring(text: str) -> str:
    """Text safe inside a triple-double-quoted docstring.

    Where black would re-indent the docstring (a line after the first that starts with a
    space or a tab: black strips the lines' common indentation and expands leading tabs),
    that line is recorded in :data:`FLAGGED`, so the unit holding it goes through black.
    """
    text = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"').replace("\x00", "\\x00")
    text = "".join(c if c in "\n\t" or c.isprintable() else _escape_char(c) for c in text)
    text = _close_safely(text.strip()) or "(no description)"
    if "\n " in text or "\n\t" in text:
        _flag(line.strip() for line in text.split("\n")[1:] if line[:1] in (" ", "\t") and line.strip())
    return text


#: Text the writer could not put in black's style itself (see :func:`docstring`): a unit of
#: generated code that contains one of these is formatted by black (``codegen.output.trust``).
FLAGGED: set[str] = set()
_FLAGGED_LIMIT = 10_000


def _flag(lines: Any) -> None:
    if len(FLAGGED) > _FLAGGED_LIMIT:
        FLAGGED.clear()  # only ever costs black time: a unit no longer flagged is checked again by black
    FLAGGED.update(lines)


def _escape_char(c: str) -> str:
    code = ord(c)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _close_safely(text: str) -> str:
    """A final ``"`` would merge with the closing triple quote: escape it."""
    if not text.endswith('"'):
        return text
    body = text[:-1]
    escaped = (len(body) - len(body.rstrip("\\"))) % 2 == 1
    return text if escaped else body + '\\"'


def docline(text: str) -> str:
    """A single docstring line (newlines folded)."""
    return _close_safely(" ".join(docstring(str(text)).split()))


def comment(text: str) -> str:
    """Text safe in a ``#`` comment: one line, printable."""
    return "".join(c if c.isprintable() else "?" for c in " ".join(str(text).split()))


def toml_string(text: str) -> str:
    """A TOML basic string literal of ``text`` (quotes, backslashes and controls escaped)."""
    out = []
    for ch in str(text):
        if ch in '"\\':
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


_PEP440 = re.compile(r"\d+(\.\d+)*((a|b|rc)\d+)?(\.post\d+)?(\.dev\d+)?")


def pep440(version: str) -> str:
    """``version`` if it is a plain PEP 440 version, else ``0.0.0`` (a distribution needs one)."""
    return version if _PEP440.fullmatch(version) else "0.0.0"


def width(line: str) -> int:
    """Columns of ``line`` as black counts them (East Asian wide characters take two)."""
    if not _WIDE.search(line):
        return len(line)
    from black.strings import str_width  # black's own measure

    return int(str_width(line))
