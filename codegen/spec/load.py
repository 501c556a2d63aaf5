"""Load YAML or JSON spec files into plain data, remembering where every value came from.

The result keeps a map from JSON pointer to (line, column) so that every later diagnostic
can name the exact place in the file.  YAML quirks are neutralised: timestamps stay strings,
duplicate keys are errors, and only JSON-compatible values come out.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ..diagnostics import Diagnostic, Level
from .commatrap import comma_trap, cut_off
from .jsondata import json_problems
from .pointer import depth_exceeded, join_pointer
from .sources import read_bytes
from .yamlhints import yaml_hint, yaml_problem

#: Deepest nesting accepted anywhere in a spec file (schemas themselves are limited to
#: ``validate.MAX_DEPTH``); checked before parsing, which recurses per level.
MAX_DOCUMENT_DEPTH = 256
#: Values a document may expand to through YAML aliases (an alias bomb stops here).
MAX_EXPANDED_VALUES = 1_000_000
#: How the first line of a spec written by ``mcp-codegen pull`` starts: such a spec keeps what
#: the server sent, so keys that look like mistakes are warnings there, not errors.
PULL_MARKER = "# Pulled by `mcp-codegen pull`"
_OPEN = (yaml.BlockMappingStartToken, yaml.BlockSequenceStartToken, yaml.FlowMappingStartToken, yaml.FlowSequenceStartToken)
_CLOSE = (yaml.BlockEndToken, yaml.FlowMappingEndToken, yaml.FlowSequenceEndToken)
_FLOW_OPEN = (yaml.FlowMappingStartToken, yaml.FlowSequenceStartToken)
_FLOW_CLOSE = (yaml.FlowMappingEndToken, yaml.FlowSequenceEndToken)
#: libyaml (PyYAML's C parser) is there: JSON texts are read for positions with it, and YAML
#: texts for their values (:func:`_quick_yaml`)
_LIBYAML = getattr(yaml, "CSafeLoader", None) is not None
#: What PyYAML's constructor raises for a value it resolves but cannot build (``=``, ``<<`` as a
#: value, a date that does not exist: ValueError): readers of YAML data catch all of them
CONSTRUCT_ERRORS = (yaml.YAMLError, ValueError, OverflowError)
#: What libyaml and PyYAML's pure-Python parser read differently, each found by the differential
#: corpus of ``tests/generator/test_spec_load_yaml.py``: byte order marks, the Unicode line and
#: paragraph separators, NEL, tabs, carriage returns and other control characters, a comment
#: right after a block scalar's header (``|#``), directives.  A text with any of them (or a
#: ``?`` in a plain scalar of a flow collection: :func:`_libyaml_may_differ`) is read by the
#: pure-Python parser alone.
_YAML_UNSURE = re.compile("[\ufeff\u2028\u2029\x85\t\r\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]"
                          "|[|>][-+0-9]*#|^%", re.MULTILINE)


@dataclass
class SourceDoc:
    """A loaded spec file: its data and the position of every value in it."""

    path: Path
    display: str
    data: Any
    _positions: dict[str, tuple[int, int]] = field(default_factory=dict, repr=False)
    sha: str = ""  # sha256 of the bytes this document was parsed from (build stamps, caches)
    pulled: bool = False  # written by `mcp-codegen pull` (its text starts with PULL_MARKER)
    #: the text whose positions are read only when first asked for (most builds report
    #: nothing, and reading them costs more than the rest of loading): a JSON text by libyaml,
    #: a YAML text by the pure-Python parser (whose marks every diagnostic reports)
    _unread: str | None = field(default=None, repr=False)

    @property
    def positions(self) -> dict[str, tuple[int, int]]:
        """JSON pointer -> (line, col), 1-based, of every value the file's text places."""
        if self._unread is not None:
            text, self._unread = self._unread, None
            try:
                node = _compose(text, _LIBYAML and self.path.suffix == ".json")
                if node is not None:
                    _Builder(self).build(node, "")
            except (yaml.YAMLError, _Refused, RecursionError):  # JSON that YAML cannot read: no positions, as when loaded
                pass
        return self._positions

    @functools.cached_property
    def file(self) -> str:
        """The resolved path as text (what refs and targets name the file by), resolved once."""
        return str(self.path.resolve())

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


class _Refused(Exception):
    """A YAML construct a spec may not use; carries its located diagnostic."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


class _Builder:
    """Turns a composed YAML node tree into JSON-like data plus pointer positions."""

    def __init__(self, doc: SourceDoc) -> None:
        self.doc = doc
        self.diagnostics: list[Diagnostic] = []
        self._constructor = yaml.SafeLoader("")
        self._built: dict[int, Any] = {}  # node id -> value: an alias reuses it, never re-walks it
        self._sizes: dict[int, int] = {}  # node id -> values it expands to
        self._open: set[int] = set()  # nodes being built (an alias to one of them is a cycle)
        self._count = 0  # values built so far, aliases counted expanded

    def _refuse(self, node: yaml.Node, code: str, message: str, hint: str) -> _Refused:
        line, col = node.start_mark.line + 1, node.start_mark.column + 1
        return _Refused(Diagnostic(self.doc.display, line, col, code, message, hint=hint))

    def build(self, node: yaml.Node, pointer: str) -> Any:
        """The value of ``node``.

        Raises:
            _Refused: an alias cycle, or aliases expanding beyond ``MAX_EXPANDED_VALUES``.
        """
        key = id(node)
        if key in self._open:
            raise self._refuse(node, "E006", "an alias refers to a value that contains it (a cycle)",
                               "YAML aliases must not be recursive in a spec")
        if key in self._built:  # an alias: the anchored value, shared
            self._count += self._sizes[key]
            if self._count > MAX_EXPANDED_VALUES:
                raise self._refuse(node, "E006", f"aliases expand the document beyond {MAX_EXPANDED_VALUES:,} values",
                                   "write the repeated part once in $defs and $ref it")
            return self._built[key]
        start = self._count
        self._count += 1
        self._open.add(key)
        value = self._build_new(node, pointer)
        self._open.discard(key)
        if isinstance(node, (yaml.MappingNode, yaml.SequenceNode)):
            self._built[key] = value
            self._sizes[key] = self._count - start
        return value

    def _build_new(self, node: yaml.Node, pointer: str) -> Any:
        self.doc.positions[pointer] = (node.start_mark.line + 1, node.start_mark.column + 1)
        if isinstance(node, yaml.MappingNode):
            out: dict[str, Any] = {}
            previous: yaml.Node | None = None
            for key_node, value_node in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    raise self._refuse(key_node, "E005", "YAML merge keys (<<) are not supported in a spec",
                                       "write the keys out, or share the schema through $defs and $ref")
                if not isinstance(key_node, yaml.ScalarNode):  # its text could expand aliases without limit
                    raise self._refuse(key_node, "E005", "a mapping or a list as a key is not supported in a spec",
                                       "keys are strings: write the key as plain text")
                key = self._scalar(key_node)
                if not isinstance(key, str):
                    key = str(key).lower() if isinstance(key, bool) else "null" if key is None else str(key)
                child = join_pointer(pointer, key)
                self._yaml_word(key_node, key, child, "key")
                if key in out:
                    line, col = key_node.start_mark.line + 1, key_node.start_mark.column + 1
                    self.diagnostics.append(
                        Diagnostic(self.doc.display, line, col, "E003", f"duplicate key {key!r}",
                                   pointer=child, hint="remove one of the two entries")
                    )
                if node.flow_style and cut_off(previous, key_node, value_node):
                    self.diagnostics.append(comma_trap(self.doc.display, node.value, key_node, child))
                out[key] = self.build(value_node, child)
                previous = value_node
            return out
        if isinstance(node, yaml.SequenceNode):
            items = []
            for i, item in enumerate(node.value):
                value = self.build(item, join_pointer(pointer, i))
                self._yaml_word(item, value, join_pointer(pointer, i), "list item")
                items.append(value)
            return items
        return self._scalar(node)

    def _yaml_word(self, node: yaml.Node, value: Any, pointer: str, where: str) -> None:
        """W115 for a key or list item written as a YAML 1.1 word for true, false or null
        (``on``, ``no``, ``~`` ...): the spec then holds a boolean or null, not the text."""
        if not isinstance(node, yaml.ScalarNode) or node.style:  # quoted or block: the text it says
            return
        word = str(node.value)
        read = {"tag:yaml.org,2002:bool": "the boolean " + ("true" if value in (True, "true") else "false"),
                "tag:yaml.org,2002:null": "null"}.get(node.tag)
        if read is None or word.lower() in ("true", "false", "null"):
            return
        line, col = node.start_mark.line + 1, node.start_mark.column + 1
        became = f", so the key is {value!r}" if where == "key" else ""
        self.diagnostics.append(Diagnostic(
            self.doc.display, line, col, "W115", f"{where} {word!r} is read by YAML as {read}{became}", pointer=pointer,
            hint=f'quote it if you meant the text: "{word}"', level=Level.WARNING))

    def _scalar(self, node: yaml.Node) -> Any:
        if not isinstance(node, yaml.ScalarNode):
            return str(node.value)
        try:
            value = self._constructor.construct_object(node, deep=True)
        except CONSTRUCT_ERRORS:  # `=` or `<<` as a value, an impossible date
            return str(node.value)
        if value is None or isinstance(value, (str, bool, int, float)):
            return value  # NaN and infinities are reported (E007) once the document is built
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
        raw = read_bytes(path)
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return None, [Diagnostic(shown, 0, 0, "E001", f"cannot read spec file: {exc}",
                                 hint="check the path and that the file is UTF-8 text")]
    quick = _quick_json(path, shown, raw, text) if path.suffix == ".json" else _quick_yaml(path, shown, raw, text)
    if quick is not None:
        return quick
    # JSON (already checked by json.loads) is read for positions by libyaml when present: the
    # same nodes and marks, about four times faster; anything libyaml refuses goes the usual way
    fast = path.suffix == ".json" and _LIBYAML
    deep, tag, _ = _scan(text, yaml.CSafeLoader if fast else yaml.SafeLoader)
    too_deep = [Diagnostic(shown, *(deep or (1, 1)), "E028", f"nested more than {MAX_DOCUMENT_DEPTH} levels deep",
                           hint="flatten the schema with $defs and $ref")]
    if deep is not None:
        return None, too_deep
    if tag is not None and path.suffix != ".json":
        return None, [Diagnostic(shown, tag[0], tag[1], "E005", f"YAML tag {tag[2]!r} is not allowed in a spec",
                                 hint="remove the tag; a spec holds plain JSON data (quote a string that starts with !)")]
    if path.suffix == ".json":
        try:
            json_data = json.loads(text)
        except json.JSONDecodeError as exc:
            return None, [Diagnostic(shown, exc.lineno, exc.colno, "E002", f"invalid JSON: {exc.msg}",
                                     hint="fix the JSON syntax at this position")]
        except RecursionError:
            return None, too_deep
    try:
        node = _compose(text, fast)
    except yaml.YAMLError as exc:
        if path.suffix == ".json":
            # valid JSON that YAML cannot read (raw control characters): usable, without positions
            doc = SourceDoc(path=path, display=shown, data=json_data, sha=hashlib.sha256(raw).hexdigest())
            return doc, _unicode_problems(doc)
        line, col, problem = yaml_problem(exc, text)
        return None, [Diagnostic(shown, line, col, "E002", f"invalid YAML: {problem}", hint=yaml_hint(problem))]
    doc = SourceDoc(path=path, display=shown, data=None, sha=hashlib.sha256(raw).hexdigest(),
                    pulled=text.startswith(PULL_MARKER))
    if node is None:
        return None, [Diagnostic(shown, 1, 1, "E010", "spec file is empty",
                                 hint="start from `mcp-codegen init NAME`")]
    builder = _Builder(doc)
    try:
        doc.data = builder.build(node, "")
    except _Refused as exc:
        return None, [exc.diagnostic]
    if path.suffix == ".json":
        doc.data = json_data  # YAML reads some JSON differently (1e5, "\\ud83d\\ude00")
    return doc, builder.diagnostics + _unicode_problems(doc)


class _Duplicate(Exception):
    """A JSON object repeats a key (the full path reports where: E003)."""


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        raise _Duplicate
    return out


def _quick_json(path: Path, shown: str, raw: bytes, text: str) -> tuple[SourceDoc | None, list[Diagnostic]] | None:
    """A JSON spec with nothing to report about its text (valid, no repeated key, not too deep,
    not empty), loaded without reading positions: they are read when a diagnostic first asks
    (:attr:`SourceDoc.positions`).  None: the full path decides and reports, as before."""
    try:
        data = json.loads(text, object_pairs_hook=_pairs)
    except (_Duplicate, ValueError, RecursionError):
        return None
    if depth_exceeded(data, MAX_DOCUMENT_DEPTH - 1) is not None:  # the scan might refuse it: let it say where
        return None
    doc = SourceDoc(path=path, display=shown, data=data, sha=hashlib.sha256(raw).hexdigest(),
                    pulled=text.startswith(PULL_MARKER), _unread=text)
    return doc, _unicode_problems(doc)


def _quick_yaml(path: Path, shown: str, raw: bytes, text: str) -> tuple[SourceDoc | None, list[Diagnostic]] | None:
    """A YAML spec that libyaml reads with nothing to report (no tag, not too deep, not empty,
    no repeated key, alias or merge key refused) and holds nothing the two parsers read
    differently (:func:`_libyaml_may_differ`): its values from libyaml's nodes, about four
    times faster than the pure-Python scan and compose (a 10-tool spec: 31 against 145 ms);
    its positions from the pure-Python parser when a diagnostic first asks
    (:attr:`SourceDoc.positions`).  None: the full path decides and reports, as before."""
    if not _LIBYAML or _libyaml_may_differ(text):
        return None
    try:
        node = yaml.compose(text, Loader=yaml.CSafeLoader)
    except yaml.YAMLError:
        return None
    if node is None:
        return None
    builder = _Builder(SourceDoc(path=path, display=shown, data=None))  # its positions are libyaml's: dropped
    try:
        data = builder.build(node, "")
    except _Refused:
        return None
    if builder.diagnostics:
        return None
    doc = SourceDoc(path=path, display=shown, data=data, sha=hashlib.sha256(raw).hexdigest(),
                    pulled=text.startswith(PULL_MARKER), _unread=text)
    return doc, _unicode_problems(doc)


def _libyaml_may_differ(text: str) -> bool:
    """Whether libyaml's reading of ``text`` is not to be taken: it holds what the two parsers
    read differently (``_YAML_UNSURE``; in a flow collection, a plain scalar with a ``?``, which
    the pure-Python parser ends there and libyaml does not: ``[why?]``), or something the full
    path reports (nesting beyond ``MAX_DOCUMENT_DEPTH``, a tag, a scanner error)."""
    if _YAML_UNSURE.search(text):
        return True
    deep, tag, unsure = _scan(text, yaml.CSafeLoader)
    return deep is not None or tag is not None or unsure


def _compose(text: str, fast: bool) -> yaml.Node | None:
    """The YAML node tree of ``text``: libyaml first when ``fast``, the pure-Python parser
    when libyaml is not asked or refuses (its errors and positions are the ones reported)."""
    if fast:
        try:
            return yaml.compose(text, Loader=yaml.CSafeLoader)
        except yaml.YAMLError:
            pass
    return yaml.compose(text, Loader=yaml.SafeLoader)


def _scan(text: str, loader: Any = yaml.SafeLoader) -> tuple[tuple[int, int] | None, tuple[int, int, str] | None, bool]:
    """One pass of the YAML scanner (which does not recurse): (line, col) where nesting first
    exceeds ``MAX_DOCUMENT_DEPTH``; (line, col, tag) of the first explicit tag; and whether the
    scan failed or met a plain scalar with a ``?`` in a flow collection (what
    :func:`_libyaml_may_differ` must know)."""
    depth = flow = 0
    tag: tuple[int, int, str] | None = None
    unsure = False
    try:
        for token in yaml.scan(text, Loader=loader):
            if isinstance(token, _OPEN):
                depth += 1
                flow += isinstance(token, _FLOW_OPEN)
                if depth > MAX_DOCUMENT_DEPTH:
                    return (token.start_mark.line + 1, token.start_mark.column + 1), tag, unsure
            elif isinstance(token, _CLOSE):
                depth -= 1
                flow -= isinstance(token, _FLOW_CLOSE)
            elif isinstance(token, yaml.TagToken) and tag is None:
                handle, suffix = token.value
                tag = (token.start_mark.line + 1, token.start_mark.column + 1, f"{handle or ''}{suffix}")
            elif flow and isinstance(token, yaml.ScalarToken) and token.plain and "?" in token.value:
                unsure = True
    except yaml.YAMLError:
        unsure = True  # the parser reports it with its position
    return None, tag, unsure


def _unicode_problems(doc: SourceDoc) -> list[Diagnostic]:
    """:func:`~.jsondata.json_problems` of ``doc``'s data, the repaired value kept."""
    doc.data, found = json_problems(doc.data, doc.diag)
    return found
