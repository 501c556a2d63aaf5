"""Two of black's rewrites, done cheaply on generated text before black sees it.

Black reformats a text in one pass, and makes a second pass whenever the first changed
anything (:mod:`codegen.output.fmtunits` makes that second pass only on the units the first one
changed).  Text that already looks as black writes it costs black one pass.  The model
generator's unformatted output differs from black's mostly in two ways, both fixed here
without changing what the code means:

* a ``'...'`` string literal is quoted as black quotes it (double quotes unless that needs
  more escapes; black's own function);
* a class docstring directly followed by a statement gets one blank line after it (black
  puts one there);
* a too-long ``name: T = Field(...)`` line is split as black splits it (simple cases only).

Anything else (long lines, for instance) is left to black; this only saves it work, the
result is black's either way.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize

#: black's line length for generated code (``codegen.output.format.black_mode``)
LINE = 100
#: a line as ``ast`` counts lines (``str.splitlines`` also breaks at \x0b, \x1c, \u2028 ...)
AST_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_READLINE = re.compile(r"[^\n]*\n|[^\n]+\Z")  # a line as io.StringIO.readline (tokenize) reads it


def double_quotes(text: str) -> str:
    """``text`` with every single-quoted string literal (not triple-quoted, on one line)
    quoted as black quotes it (:func:`black_quotes`).  ``text`` unchanged when it does not tokenize."""
    if "'" not in text:  # no single-quoted literal (the model generator writes double quotes)
        return text
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return text
    starts = [0]
    for line in _READLINE.findall(text):
        starts.append(starts[-1] + len(line))
    out: list[str] = []
    done = 0
    for tok in tokens:
        s = tok.string
        if (tok.type != tokenize.STRING or len(s) < 2 or s[0] != "'" or s.startswith("'''")
                or tok.start[0] != tok.end[0]):
            continue
        quoted = black_quotes(s)
        if quoted == s:
            continue
        at = starts[tok.start[0] - 1] + tok.start[1]
        out.append(text[done:at])
        out.append(quoted)
        done = at + len(s)
    out.append(text[done:])
    return "".join(out)


def black_quotes(literal: str) -> str:
    """A one-line string literal (no prefix) quoted as black quotes it: double quotes unless
    that needs more escapes (black's own rule, ``black.strings.normalize_string_quotes``;
    a literal with no quote and no backslash is done here without black)."""
    if literal[:1] == "'" and not any(c in literal[1:-1] for c in "'\"\\"):
        return '"' + literal[1:-1] + '"'
    from black.strings import normalize_string_quotes

    return str(normalize_string_quotes(literal))


def class_docstring_gaps(text: str) -> str:
    """``text`` with a blank line after every class docstring that a statement follows
    directly (classes at the top level of ``text``)."""
    try:
        body = ast.parse(text).body
    except SyntaxError:
        return text
    after: list[int] = []  # line numbers (1-based) to put a blank line after
    for node in body:
        if (isinstance(node, ast.ClassDef) and len(node.body) > 1 and isinstance(node.body[0], ast.Expr)
                and isinstance(node.body[0].value, ast.Constant) and isinstance(node.body[0].value.value, str)):
            end = node.body[0].end_lineno
            if end is not None and node.body[1].lineno == end + 1:
                after.append(end)
    if not after:
        return text
    lines = AST_LINE.findall(text)
    for end in reversed(after):
        lines.insert(end, "\n")
    return "".join(lines)


_FIELD = re.compile(r"^( +)([A-Za-z_][A-Za-z_0-9]*: [^#]* = )Field\(([^()\[\]{}#]*)\)$")


def _comma_split(args: str) -> list[str] | None:
    """``a=1, b="x, y"`` -> ``["a=1", 'b="x, y"']`` (commas inside strings kept)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(args).readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    cuts = [t.start[1] for t in tokens if t.type == tokenize.OP and t.string == "," and t.start[0] == 1]
    parts, at = [], 0
    for cut in cuts:
        parts.append(args[at:cut].strip())
        at = cut + 1
    parts.append(args[at:].strip())
    return parts if all(parts) else None


def long_fields(text: str) -> str:
    """A field line ``name: T = Field(args)`` over black's line length, split the way black
    splits it: the arguments on one line of their own if they fit there, else one per line
    with a trailing comma (only when ``args`` hold no bracket, so the call is the last one)."""
    if not any(len(line) > LINE for line in AST_LINE.findall(text)):
        return text
    out = []
    for line in AST_LINE.findall(text):
        bare = line.rstrip("\n")
        m = _FIELD.match(bare) if len(bare) > LINE else None
        if m is None:
            out.append(line)
            continue
        pad, head, args = m.group(1), m.group(2), m.group(3)
        inner, end = pad + "    ", line[len(bare):]  # the line's own ending (none on a text's last line)
        if len(pad + head + "Field(") > LINE or not args.strip() or args.rstrip().endswith(","):
            out.append(line)
        elif len(inner + args) <= LINE:
            out.append(f"{pad}{head}Field(\n{inner}{args}\n{pad}){end}")
        elif (parts := _comma_split(args)) is not None and all(len(inner + p) < LINE for p in parts):
            out.append(f"{pad}{head}Field(\n" + "".join(f"{inner}{p},\n" for p in parts) + f"{pad}){end}")
        else:
            out.append(line)
    return "".join(out)


def black_style(text: str) -> str:
    """All rewrites of this module."""
    return long_fields(class_docstring_gaps(double_quotes(text)))
