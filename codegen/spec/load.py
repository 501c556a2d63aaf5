"""Load YAML or JSON spec files into plain data, remembering where every value came from.

The result keeps a map from JSON pointer to (line, column) so that every later diagnostic
can name the exact place in the file.  YAML quirks are neutralised: timestamps stay strings,
duplicate keys are errors, and only JSON-compatible values come out.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ..diagnostics import Diagnostic


def escape_pointer_token(token: str | int) -> str:
    return str(token).replace("~", "~0").replace("/", "~1")


def join_pointer(base: str, *tokens: str | int) -> str:
    return base + "".join("/" + escape_pointer_token(t) for t in tokens)


@dataclass
class SourceDoc:
    """A loaded spec file: its data and the position of every value in it."""

    path: Path
    display: str
    data: Any
    positions: dict[str, tuple[int, int]] = field(default_factory=dict)

    def locate(self, pointer: str) -> tuple[int, int]:
        """(line, col) of ``pointer`` or of its nearest located ancestor (1-based)."""
        probe = pointer
        while True:
            if probe in self.positions:
                return self.positions[probe]
            if not probe:
                return (1, 1)
            probe = probe.rsplit("/", 1)[0]

    def diag(self, code: str, message: str, pointer: str = "", hint: str = "", **kw: Any) -> Diagnostic:
        line, col = self.locate(pointer)
        return Diagnostic(self.display, line, col, code, message, pointer=pointer, hint=hint, **kw)


class _Builder:
    """Turns a composed YAML node tree into JSON-like data plus pointer positions."""

    def __init__(self, doc: SourceDoc) -> None:
        self.doc = doc
        self.diagnostics: list[Diagnostic] = []
        self._constructor = yaml.SafeLoader("")

    def build(self, node: yaml.Node, pointer: str) -> Any:
        self.doc.positions[pointer] = (node.start_mark.line + 1, node.start_mark.column + 1)
        if isinstance(node, yaml.MappingNode):
            out: dict[str, Any] = {}
            for key_node, value_node in node.value:
                key = self._scalar(key_node)
                if not isinstance(key, str):
                    key = str(key).lower() if isinstance(key, bool) else str(key)
                child = join_pointer(pointer, key)
                if key in out:
                    line, col = key_node.start_mark.line + 1, key_node.start_mark.column + 1
                    self.diagnostics.append(
                        Diagnostic(self.doc.display, line, col, "E003", f"duplicate key {key!r}",
                                   pointer=child, hint="remove one of the two entries")
                    )
                out[key] = self.build(value_node, child)
            return out
        if isinstance(node, yaml.SequenceNode):
            return [self.build(item, join_pointer(pointer, i)) for i, item in enumerate(node.value)]
        return self._scalar(node)

    def _scalar(self, node: yaml.Node) -> Any:
        if not isinstance(node, yaml.ScalarNode):
            return str(node.value)
        value = self._constructor.construct_object(node, deep=True)
        if value is None or isinstance(value, (str, bool, int, float)):
            if isinstance(value, float) and value != value:  # NaN is not JSON
                return str(node.value)
            return value
        # timestamps, binary and other YAML-only types: keep the source text
        return str(node.value)


def load_spec_file(path: Path, display: str | None = None) -> tuple[SourceDoc | None, list[Diagnostic]]:
    """Read and parse one spec file.

    Args:
        path: the file (``.yaml``, ``.yml`` or ``.json``).
        display: the name to show in diagnostics (defaults to the path as given).

    Returns:
        The loaded document (``None`` if it could not be parsed) and the diagnostics.
    """
    shown = display or str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return None, [Diagnostic(shown, 0, 0, "E001", f"cannot read spec file: {exc}",
                                 hint="check the path and that the file is UTF-8 text")]
    if path.suffix == ".json":
        try:
            json.loads(text)
        except json.JSONDecodeError as exc:
            return None, [Diagnostic(shown, exc.lineno, exc.colno, "E002", f"invalid JSON: {exc.msg}",
                                     hint="fix the JSON syntax at this position")]
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (0, 0)
        problem = exc.problem or exc.context or "syntax error"
        return None, [Diagnostic(shown, line, col, "E002", f"invalid YAML: {problem}",
                                 hint="fix the YAML syntax at this position (indentation, quotes, colons)")]
    except yaml.YAMLError as exc:
        return None, [Diagnostic(shown, 0, 0, "E002", f"invalid YAML: {exc}")]
    doc = SourceDoc(path=path, display=shown, data=None)
    if node is None:
        return None, [Diagnostic(shown, 1, 1, "E010", "spec file is empty",
                                 hint="start from `mcp-codegen init NAME`")]
    builder = _Builder(doc)
    doc.data = builder.build(node, "")
    return doc, builder.diagnostics
