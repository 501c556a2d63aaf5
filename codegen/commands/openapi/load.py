"""Read an OpenAPI document (YAML or JSON) and every local file its ``$ref`` s name.

The spec loader (:func:`codegen.spec.load.load_spec_file`) reads each file, so every value keeps
its line and column and every problem is a located diagnostic.  A ``$ref`` may name another
file by a relative path inside the document's folder tree; network references and references
that leave the folder are refused.  Nothing here raises on a bad document.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from ...diagnostics import Diagnostic, Level
from ...spec.load import SourceDoc, load_spec_file
from ...spec.pointer import resolve_pointer

#: Versions read: the document's ``openapi`` (3.0.x, 3.1.x) or ``swagger`` (2.0) field.
_V3 = re.compile(r"3\.(0|1)(\.\d+)?(-.*)?")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


@dataclass(frozen=True)
class Ref:
    """Where a value lives: a loaded file and a JSON pointer into it."""

    doc: SourceDoc
    pointer: str

    @property
    def key(self) -> tuple[str, str]:
        return (self.doc.file, self.pointer)


@dataclass
class Document:
    """The loaded document: its root file, the other files it refers to, and what went wrong."""

    root: SourceDoc
    version: str  # "2.0", "3.0" or "3.1"
    folder: Path
    files: dict[str, SourceDoc] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    _reported: set[tuple[str, str, str]] = field(default_factory=set)
    _unreadable: set[str] = field(default_factory=set)

    @property
    def data(self) -> Any:
        return self.root.data

    def error(self, doc: SourceDoc, code: str, message: str, pointer: str, hint: str = "") -> None:
        key = (doc.file, pointer, message)
        if key not in self._reported:
            self._reported.add(key)
            self.diagnostics.append(doc.diag(code, message, pointer, hint=hint))

    def warn(self, doc: SourceDoc, code: str, message: str, pointer: str, hint: str = "") -> None:
        key = (doc.file, pointer, message)
        if key not in self._reported:
            self._reported.add(key)
            self.diagnostics.append(doc.diag(code, message, pointer, hint=hint, level=Level.WARNING))

    # -- references ------------------------------------------------------------------------

    def target(self, ref: Any, origin: SourceDoc, at: str) -> Ref | None:
        """Where ``ref`` (the value of a ``$ref`` at ``at`` in ``origin``) points; None (and a
        diagnostic) when it cannot be followed."""
        ref_at = at + "/$ref"
        if not isinstance(ref, str):
            self.error(origin, "E141", "$ref must be a string", ref_at)
            return None
        if _SCHEME.match(ref) or ref.startswith("//"):
            self.error(origin, "E143", f"network reference {ref!r} refused", ref_at,
                       "download the file next to the document and refer to it by a relative path")
            return None
        file_part, _, fragment = ref.partition("#")
        doc = origin
        if file_part:
            doc_or_none = self._file(unquote(file_part), origin, ref_at)
            if doc_or_none is None:
                return None
            doc = doc_or_none
        pointer = unquote(fragment)
        if pointer and not pointer.startswith("/"):
            self.error(origin, "E142", f"$ref {ref!r}: only JSON pointers (#/...) are supported, not anchors", ref_at)
            return None
        found, _ = resolve_pointer(doc.data, pointer)
        if not found:
            self.error(origin, "E142", f"$ref {ref!r} points to nothing", ref_at,
                       f"no value at {pointer or '/'} in {doc.display}")
            return None
        return Ref(doc, pointer)

    def _file(self, rel: str, origin: SourceDoc, at: str) -> SourceDoc | None:
        base = origin.path.parent
        joined = posixpath.normpath(posixpath.join(base.as_posix(), rel))
        path = Path(joined)
        try:
            inside = path.resolve().is_relative_to(self.folder.resolve())
        except (OSError, RuntimeError, ValueError):
            inside = False
        if Path(rel).is_absolute() or not inside:
            self.error(origin, "E144", f"$ref to {rel!r} leaves the document's folder", at,
                       f"keep referenced files inside {self.folder}")
            return None
        key = str(path.resolve())
        if key in self.files:
            return self.files[key]
        if key in self._unreadable:
            return None
        display = posixpath.join(posixpath.dirname(self.root.display), posixpath.relpath(joined, self.folder.as_posix()))
        doc, diags = load_spec_file(path, display)
        if doc is None or any(d.is_error for d in diags):
            self._unreadable.add(key)
            unread = [d for d in diags if d.code == "E001"]
            if unread or not diags:
                self.error(origin, "E142", f"$ref file {rel!r} cannot be read", at, "check the path: it is relative to "
                           "the file that holds the $ref")
            else:
                self.diagnostics.extend(diags)
                self.error(origin, "E142", f"$ref file {rel!r} cannot be read (see above)", at)
            return None
        self.diagnostics.extend(diags)
        self.files[key] = doc
        return doc

    def value(self, where: Ref) -> Any:
        return resolve_pointer(where.doc.data, where.pointer)[1]

    def follow(self, value: Any, where: Ref) -> tuple[Any, Ref] | None:
        """``value`` with any chain of ``$ref`` s followed (parameters, responses, bodies,
        path items, security schemes); None when a reference is broken or loops."""
        seen: set[tuple[str, str]] = set()
        while isinstance(value, dict) and "$ref" in value:
            if where.key in seen:
                self.error(where.doc, "E145", "$ref cycle: this reference leads back to itself", where.pointer + "/$ref")
                return None
            seen.add(where.key)
            nxt = self.target(value["$ref"], where.doc, where.pointer)
            if nxt is None:
                return None
            where, value = nxt, self.value(nxt)
        return value, where


def load_document(path: Path, display: str | None = None) -> tuple[Document | None, list[Diagnostic]]:
    """Load the OpenAPI or Swagger document at ``path``.

    Returns:
        The document (None when it is unreadable or no OpenAPI document) and the diagnostics
        so far (the document gathers later ones in its ``diagnostics``).
    """
    doc, diags = load_spec_file(path, display)
    if doc is None or any(d.is_error for d in diags):
        return None, diags
    data = doc.data
    if not isinstance(data, dict):
        return None, [doc.diag("E140", "an OpenAPI document is a mapping at the top level", "",
                               hint="the file should start with `openapi: 3.x` or `swagger: \"2.0\"`")]
    version = _version(data)
    if version is None:
        given = data.get("openapi", data.get("swagger"))
        where = "/openapi" if "openapi" in data else "/swagger" if "swagger" in data else ""
        what = f"unsupported version {given!r}" if where else "no `openapi` or `swagger` field"
        return None, [doc.diag("E140", f"not an OpenAPI 3.0/3.1 or Swagger 2.0 document: {what}", where,
                               hint="mcp-codegen openapi reads OpenAPI 3.0.x, 3.1.x and Swagger 2.0")]
    document = Document(doc, version, path.parent, {doc.file: doc}, list(diags))
    return document, []


def _version(data: dict[str, Any]) -> str | None:
    if "openapi" in data:
        text = str(data["openapi"])
        match = _V3.fullmatch(text)
        return f"3.{match.group(1)}" if match else None
    if "swagger" in data and str(data["swagger"]) in ("2.0", "2"):
        return "2.0"
    return None


def is_openapi_text(data: Any) -> bool:
    """Whether loaded data looks like an OpenAPI/Swagger document (a top-level version field)."""
    return isinstance(data, dict) and ("openapi" in data or "swagger" in data) and "mcp-codegen" not in data

