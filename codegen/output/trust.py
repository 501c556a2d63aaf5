"""Which generated text black need not see: the writer's own style, and what it flags.

The templates and the writer emit the package's modules in black's style already (one
statement per line, double quotes, black's blank lines, exploded collections where black
explodes them, ``pyrepr``/``docstring`` literals black leaves alone).  What the writer cannot
decide itself is where black would break a line that does not fit, so a unit
(:mod:`codegen.output.fmtunits`: a top-level statement or a method) is *flagged* when one of
its lines is wider than black's limit, as black measures width (East Asian wide characters
count two), or ends in whitespace, or when it holds docstring text the writer flagged
(:data:`codegen.render.filters.FLAGGED`: indented lines black would re-indent); black formats
the flagged units, in their context, and nothing else.  ``models.py`` holds datamodel-code-generator's output, which the writer does
not control: black formats its classes except those in the narrow shape black provably
leaves unchanged (:mod:`codegen.output.trust_dcg`), and the request TypedDicts the writer
adds there are trusted as the templates are (:func:`models_fits`).

Nothing here is taken on faith: ``tests/generator/test_trusted_format.py`` runs black on every
trusted file of every golden, example and benchmark spec and of a property-based corpus of
hostile spec strings, and ``build --verify-format`` (used by ``scripts/test``) does the same
on any build.
"""

from __future__ import annotations

import io
import tokenize

from ..render.filters import FLAGGED, width

#: black's line length for generated code (``codegen.output.format.black_mode``)
LINE = 100
#: Generated modules written in black's style by the templates (``models.py`` is DCG's).
TRUSTED = frozenset({"__init__.py", "__main__.py", "asgi.py", "tools.py", "errors.py", "server.py", "client.py"})
#: The module holding datamodel-code-generator's output, and the writer's TypedDicts.
MODELS = "models.py"


def trusted_file(path: str) -> bool:
    """True for a generated module the writer vouches for (``path`` relative to the output)."""
    return path.rsplit("/", 1)[-1] in TRUSTED and "/_runtime/" not in f"/{path}"


def models_file(path: str) -> bool:
    """True for a package's ``models.py``: DCG's classes, black-formatted, and the writer's
    request TypedDicts (:mod:`codegen.models.typeddicts`), which are trusted as the templates are."""
    return path.rsplit("/", 1)[-1] == MODELS and "/_runtime/" not in f"/{path}"


def models_fits(unit: str) -> bool:
    """True for a ``models.py`` unit black need not see: a request TypedDict the writer wrote
    that :func:`fits`, or a DCG class in the shape black leaves unchanged
    (:func:`codegen.output.trust_dcg.dcg_fits`)."""
    from .trust_dcg import dcg_fits

    return typeddict_fits(unit) or dcg_fits(unit)


def typeddict_fits(unit: str) -> bool:
    """:func:`fits` for a TypedDict class the writer wrote; False for everything else (DCG's)."""
    head = unit[:unit.find("\n")]
    return head.startswith("class ") and head.endswith("(TypedDict):") and fits(unit)


def fits(unit: str) -> bool:
    """True when no line of ``unit`` needs black: none wider than :data:`LINE` (but inside a
    multi-line string), none ending in whitespace (``\\n`` is the only line end the writer uses)."""
    long: list[int] = []
    for n, line in enumerate(unit.split("\n"), 1):
        if len(line) > LINE // 2 and width(line) > LINE:
            long.append(n)
        if line[-1:].isspace():
            return False
    if long and not _inside_strings(unit, long):
        return False
    if '""""' in unit:  # a docstring that starts or ends with a quote: black pads it with a space
        return False
    return not (FLAGGED and any(text in unit for text in FLAGGED))


def _inside_strings(unit: str, lines: list[int]) -> bool:
    """True when every line of ``lines`` (1-based) lies strictly inside a multi-line string
    literal of ``unit``: neither its first nor its last line.

    Black never re-wraps a string, and a statement holding a multi-line string is never
    "short enough" to black whatever the widths of the string's lines, so those widths decide
    nothing; the first and last lines do (the closing quotes of a docstring move to a line
    of their own when its last line is too long).
    """
    inside: set[int] = set()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(unit).readline):
            if tok.type == tokenize.STRING and tok.end[0] - tok.start[0] > 1:
                inside.update(range(tok.start[0] + 1, tok.end[0]))
    except (tokenize.TokenError, SyntaxError):
        return False
    return all(n in inside for n in lines)
