"""Rendering: IR + models source -> the generated package's files (unformatted).

Jinja runs with StrictUndefined, trim_blocks, lstrip_blocks and keep_trailing_newline.
Spec text only reaches code through the ``pyrepr`` (Python literal), ``docstring``,
``docline`` and ``comment`` filters.  The runtime is copied verbatim, not templated.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2

from .ir import ProjectIR
from .models import ModelsModule
from .naming import RUNTIME_ERROR_NAMES

#: Output file -> template (one template per generated file kind).
TEMPLATES = {
    "__init__.py": "__init__.py.jinja",
    "__main__.py": "__main__.py.jinja",
    "models.py": "models.py.jinja",
    "tools.py": "tools.py.jinja",
    "errors.py": "errors.py.jinja",
    "server.py": "server.py.jinja",
    "client.py": "client.py.jinja",
}


@dataclass(frozen=True)
class GeneratedFile:
    """A file of the output, path relative to the output folder (posix)."""

    path: str
    content: str


def templates_dir() -> Path:
    """The templates folder: packaged in the wheel, or the repo's ``templates/``."""
    packaged = Path(str(resources.files("codegen"))) / "templates"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parent.parent / "templates"


def runtime_files() -> list[tuple[str, str]]:
    """(file name, text) of the runtime modules, sorted."""
    root = resources.files("codegen.runtime")
    out = []
    for entry in root.iterdir():
        if entry.name.endswith(".py"):
            out.append((entry.name, entry.read_text("utf-8")))
    return sorted(out)


def pyrepr(value: Any) -> str:
    """A Python literal for JSON-like data (strings escaped by ``repr``)."""
    return repr(value)


def jsonliteral(value: Any) -> str:
    """A Python expression for JSON data that black leaves alone: a raw triple-quoted JSON text.

    Pretty-printed JSON inside ``r\"\"\"...\"\"\"`` costs black nothing to format (large dict
    literals were a third of all formatting time).  ``ensure_ascii`` escapes every non-ASCII
    character; JSON escapes quotes and control characters (DEL too, here), and JSON tokens
    never put three quotes in a row, so the raw string cannot end early.  Anything unexpected
    falls back to ``repr``.
    """
    text = json.dumps(value, indent=2, ensure_ascii=True, allow_nan=False).replace("\x7f", "\\u007f")
    if '"""' in text or text.endswith("\\"):
        return f"json.loads(json.dumps({value!r}))"
    return f'json.loads(r"""{text}""")'


def docstring(text: str) -> str:
    """Text safe inside a triple-double-quoted docstring."""
    text = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"').replace("\x00", "\\x00")
    text = "".join(c if c in "\n\t" or c.isprintable() else _escape_char(c) for c in text)
    return _close_safely(text.strip()) or "(no description)"


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


def environment(extra_dir: Path | None = None) -> jinja2.Environment:
    """The Jinja environment (a user template folder, if given, overrides ours)."""
    loaders: list[jinja2.BaseLoader] = []
    if extra_dir is not None:
        loaders.append(jinja2.FileSystemLoader(str(extra_dir)))
    loaders.append(jinja2.FileSystemLoader(str(templates_dir())))
    env = jinja2.Environment(
        loader=jinja2.ChoiceLoader(loaders),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.filters.update(pyrepr=pyrepr, jsonliteral=jsonliteral, docstring=docstring, docline=docline, comment=comment,
                       toml=toml_string, pep440=pep440)
    return env


#: Names client.py.jinja imports itself (never imported a second time from models' imports).
_CLIENT_IMPORTS = frozenset({"Any", "ClassVar", "Literal", "Mapping"})


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


def _annotation_names(annotation: str) -> set[str]:
    return {n.id for n in ast.walk(ast.parse(annotation, mode="eval")) if isinstance(n, ast.Name)}


def render_package(ir: ProjectIR, models: ModelsModule, env: jinja2.Environment | None = None) -> list[GeneratedFile]:
    """Render every file of one package (paths relative to the output folder)."""
    env = env or environment()
    tools = [t for t in ir.tools]
    client_models: set[str] = {t.output_class for t in tools if t.output_class}
    import_lines: set[str] = set()
    for t in tools:
        for p in t.params:
            for name in _annotation_names(p.annotation):
                if name in models.classes:
                    client_models.add(name)
                elif name in models.imports and name not in _CLIENT_IMPORTS:
                    import_lines.add(models.imports[name])
    answers = {i.answer_class for t in tools for i in t.inputs if i.answer_class}
    tool_models = sorted({t.input_class for t in tools} | {t.output_class for t in tools if t.output_class} | answers)
    server_models = sorted({t.input_class for t in tools} | {t.output_class for t in tools if t.output_class} | answers)
    ctx = {
        "server": ir.server,
        "tools": tools,
        "errors": ir.errors,
        "any_inputs": any(t.inputs for t in tools),
        "raw_inputs": any(not i.answer_class for t in tools for i in t.inputs),
        "runtime_errors": sorted(RUNTIME_ERROR_NAMES),
        "models_source": models.source,
        "tool_models": tool_models,
        "server_models": server_models,
        "client_models": sorted(client_models),
        "client_import_lines": sorted(import_lines),
    }
    pkg = ir.server.package
    files = [GeneratedFile(f"{pkg}/{out}", env.get_template(tpl).render(ctx)) for out, tpl in TEMPLATES.items()]
    files.append(GeneratedFile(f"{pkg}/py.typed", ""))
    if ir.server.project:
        files.append(GeneratedFile(f"{pkg}/pyproject.toml", env.get_template("pyproject.toml.jinja").render(
            {**ctx, "needs_jsonschema": any(t.schema_checked for t in tools)})))
    runtime_header = f"# generated by mcp-codegen (runtime, copied verbatim) from {comment(ir.server.spec_display)} — do not edit\n"
    files += [GeneratedFile(f"{pkg}/_runtime/{name}", runtime_header + text) for name, text in runtime_files()]
    return files


def render_scaffold(ir: ProjectIR, env: jinja2.Environment | None = None) -> GeneratedFile:
    """The implementation stub of one server (``build --scaffold``): a hand-written file to be,
    so no header and no manifest entry; the caller writes it only if it does not exist."""
    env = env or environment()
    tools = list(ir.tools)
    models = sorted({t.input_class for t in tools} | {t.output_class for t in tools if t.output_class})
    text = env.get_template("impl.py.jinja").render({"server": ir.server, "tools": tools, "tool_models": models})
    return GeneratedFile(f"{ir.server.impl_module}.py", text)
