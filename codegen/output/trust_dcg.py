"""Which of datamodel-code-generator's classes in ``models.py`` black would leave as they are.

DCG's unformatted output, after :mod:`codegen.render.blackstyle`, is black's style already in
almost every class (``tests/generator/test_trusted_format.py``: black changes none of the classes
of the benchmark specs, one of the 213 of the examples and goldens: a line too long).  This
module recognises, line by line, the narrow shape in which black provably has nothing to
decide, and :func:`dcg_fits` says a class unit is in it; black formats every other unit,
in its context, as before.  The shape (anything else is black's):

* one top-level ``class Name(Bases):`` statement, body indented by four spaces, no nested
  block, no comment, no backslash continuation, no ``;``, no blank line except exactly one
  after the class docstring (what black puts there), none right after the ``class`` line;
* every statement on one line no wider than black's limit (as black measures width), with
  tokens of a small set (names, canonical decimal numbers, one-line string literals quoted
  as black quotes them with no prefix and no escape black rewrites, ``( ) [ ] { } , : = | .
  ... -``) spaced exactly as black spaces them: no space inside brackets, ``", "``,
  ``": "``, ``" | "``, ``=`` spaced at statement level and bare in a call, unary ``-``
  bare; no trailing comma (black would explode the line), no parenthesised expression
  (black may drop the parentheses), no keyword other than ``None``/``True``/``False``;
* DCG's exploded ``model_config = ConfigDict(`` block (one ``key=value,`` a line: the magic
  trailing comma keeps it exploded);
* triple-quoted strings in DCG's layout: ``\"\"\"`` alone on its line, text lines at the
  statement's indentation, none starting with whitespace or ending in it, no backslash,
  ``\"\"\"`` alone on the last line.  Black re-indents a class docstring only where its
  lines are not at that indentation (PEP 257 trimming) and leaves other strings alone.

Nothing here is taken on faith: ``tests/generator/test_trusted_format.py`` runs black on every
``models.py`` of every golden, example and benchmark spec and of property-based corpora of
hostile descriptions, names, enums, defaults, patterns and numbers, and ``build
--verify-format`` does the same on any build.  ``MCP_CODEGEN_FORMAT_ALL=1`` formats
everything with black (the same bytes).
"""

from __future__ import annotations

import keyword
import re

from ..render.blackstyle import LINE, black_quotes
from ..render.filters import width

_TOKEN = re.compile(r"""
    (?P<ws>\ +)
  | (?P<lit>"(?:[^"\\\n]|\\[^\n])*"|'(?:[^'\\\n]|\\[^\n])*'|\d+(?:\.\d+)?(?:e-?\d+)?(?![\w.])|\.\.\.)
  | (?P<name>[^\W\d]\w*)
  | (?P<op>[()\[\]{},:=|.\-])
""", re.VERBOSE)
#: characters some tool reads as a line end or treats specially: such a unit goes to black
_ODD = re.compile("[\x00-\x09\x0b-\x1f\x7f\x85\u2028\u2029\ufeff]")
_ATOMS = frozenset({"None", "True", "False"})
_CONFIG_ITEM = re.compile(r"        [^\W\d]\w*=(?:True|False|None|\"[\w .:/-]*\"|\d+),")
_ESCAPE = re.compile(r"\\[xuUN]")  # black lowercases hex escapes (uppercases \N{...}): left to it
_OPEN = {"(": ")", "[": "]", "{": "}"}
_AFTER = {",": " ", ":": " ", "|": " "}  # the space black puts after these


def _tokens(text: str) -> list[tuple[str, str, str]] | None:
    """(kind, value, whitespace before) of ``text``, or None when something is outside the set."""
    out: list[tuple[str, str, str]] = []
    at, ws = 0, ""
    while at < len(text):
        m = _TOKEN.match(text, at)
        if m is None:
            return None
        at = m.end()
        if m.lastgroup == "ws":
            ws = m.group()
            continue
        kind, value = m.lastgroup or "", m.group()
        if kind == "name" and value in _ATOMS:
            kind = "lit"
        elif kind == "name" and keyword.iskeyword(value):
            return None
        elif kind == "lit" and value[0] in "\"'" and (black_quotes(value) != value or _ESCAPE.search(value)):
            return None
        out.append((kind, value, ws))
        ws = ""
    return None if ws else out


def _spaced(text: str, colon: bool) -> bool:
    """True when ``text`` (one logical line, indentation removed) is in the token set and
    spaced as black spaces it (see the module doc); ``colon``: an annotation's ``:`` may
    stand outside brackets."""
    toks = _tokens(text)
    if not toks:
        return False
    stack: list[str] = []
    prev = ""  # "" (start), "open", "close", "name", "lit", "unary" or the operator itself
    for kind, value, ws in toks:
        if kind in ("name", "lit") or value == "-":
            if value == "-" and prev not in ("", "open", ",", ":", "=", "|"):
                return False  # a binary minus: not DCG's
            if prev in ("name", "lit", "close", "unary") and value != "-" and prev != "unary":
                return False  # two atoms side by side (implicit concatenation, a string prefix, ...)
            if prev == "unary" and kind == "lit" and not value[0].isdigit():
                return False
            want = _before(prev, stack)
        elif value in ")]}":
            if prev in (",", "unary") or not stack or _OPEN[stack.pop()] != value:
                return False  # a trailing comma: black explodes the line
            want = ""
        elif value == ",":
            if prev in ("", "open", ",", ":", "=", "|", "unary", "."):
                return False
            want = ""
        elif value == ":":
            if prev not in ("name", "lit", "close") or (stack[-1] != "{" if stack else not colon):
                return False  # slices, lambdas: black's own rules
            want = ""
        elif value == ".":
            if prev not in ("name", "close"):
                return False
            want = ""
        elif value in ("=", "|"):
            if prev not in ("name", "lit", "close") or (value == "=" and stack and stack[-1] != "("):
                return False
            want = "" if value == "=" and stack else " "
        elif value in "([{":
            if prev in ("name", "close") and value != "{":
                want = ""  # a call or a subscript
            elif value != "(" and prev in ("", "open", ",", ":", "=", "|"):
                want = _before(prev, stack)  # a list or dict display
            else:
                return False  # a parenthesised expression: black may make the parentheses invisible
            stack.append(value)
        else:
            return False
        if ws != want:
            return False
        if value == "-":
            prev = "unary"
        elif kind in ("name", "lit"):
            prev = kind
        else:
            prev = "open" if value in "([{" else "close" if value in ")]}" else value
    return not stack and prev in ("name", "lit", "close")


def _before(prev: str, stack: list[str]) -> str:
    """The space black puts before an operand after ``prev``."""
    if prev in ("", "open", "unary", "."):
        return ""
    if prev == "=":
        return "" if stack else " "
    return _AFTER.get(prev, "")


def _string_block(lines: list[str], i: int, indent: str) -> int | None:
    """The index after a triple-quoted string statement starting at ``lines[i]`` in DCG's
    layout (see the module doc), or None."""
    j = i + 1
    while j < len(lines) and lines[j] != indent + '"""':
        line = lines[j]
        if line and (not line.startswith(indent) or line[len(indent):][:1].isspace() or line[-1:].isspace()
                     or "\\" in line or '"""' in line):
            return None
        j += 1
    return j + 1 if j < len(lines) and j > i + 1 else None


def dcg_fits(unit: str) -> bool:
    """True when ``unit`` (a ``models.py`` unit of :mod:`codegen.output.fmtunits`) is one of
    DCG's classes in the shape black leaves unchanged (see the module doc)."""
    if not unit.startswith("class ") or _ODD.search(unit):
        return False
    lines = unit.rstrip("\n").split("\n")
    head = lines[0]
    if not head.endswith(":") or head.endswith("():") or width(head) > LINE or not _spaced(head[6:-1], False):
        return False
    if len(lines) < 2:
        return False
    i, first = 1, True
    while i < len(lines):
        line = lines[i]
        if line == '    """':
            end = _string_block(lines, i, "    ")
            if end is None:
                return False
            if first and end < len(lines):  # the class docstring: black puts one blank line after it
                if lines[end] != "" or end + 1 >= len(lines) or lines[end + 1] == "":
                    return False
                end += 1
            i, first = end, False
            continue
        first = False
        if not line.startswith("    ") or line[4:5].isspace() or width(line) > LINE:
            return False
        if line == "    model_config = ConfigDict(":
            j = i + 1
            while j < len(lines) and _CONFIG_ITEM.fullmatch(lines[j]):
                j += 1
            if j == i + 1 or j >= len(lines) or lines[j] != "    )":
                return False
            i = j + 1
            continue
        if not _spaced(line[4:], True):
            return False
        i += 1
    return True
