"""``$ref`` resolution for spec schemas: local only, never the network.

Every reference resolves to a :class:`Target` (file + JSON pointer inside it).  Rules:

* ``#/$defs/X`` inside a tool schema means the tool schema's own ``$defs`` when it has ``X``
  (as on the wire), else the spec file's shared ``$defs``.
* ``#`` and other ``#/...`` pointers inside a tool schema point into that schema.
* ``other.yaml#/$defs/X`` (or ``other.json``, or no fragment for a whole-file schema) loads
  a file relative to the referring file; it must stay inside the spec's folder.
* Anything with a URI scheme (``https:``, ``file:`` ...) is refused, never fetched.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urljoin

from ..diagnostics import Diagnostic
from .load import SourceDoc, load_spec_file
from .pointer import resolve_pointer

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
#: Base URI of a spec document when no ``$id`` says otherwise (never fetched).
_BASE = "https://mcp-codegen.invalid/spec"


@dataclass(frozen=True, order=True)
class Target:
    """A schema location: absolute file path and a JSON pointer inside it."""

    file: str
    pointer: str


def iter_refs(schema: Any, pointer: str = "") -> Iterator[tuple[str, str]]:
    """Yield (pointer, ref) for every ``$ref`` string in a schema, depth first, in order."""
    stack: list[tuple[Any, str]] = [(schema, pointer)]
    while stack:
        node, ptr = stack.pop()
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str):
                yield ptr + "/$ref", ref
            for key in sorted(node, reverse=True):
                if key in ("const", "enum", "default", "examples"):
                    continue  # data, not schema
                stack.append((node[key], f"{ptr}/{key.replace('~', '~0').replace('/', '~1')}"))
        elif isinstance(node, list):
            for i in range(len(node) - 1, -1, -1):
                stack.append((node[i], f"{ptr}/{i}"))


def join_uri(base: str, ref: str) -> str:
    """``ref`` resolved against ``base`` (RFC 3986), URNs included (``urljoin`` leaves them)."""
    if _SCHEME.match(ref):
        return ref
    if ref.startswith("#") or not ref:
        return base.partition("#")[0] + ref
    return urljoin(base, ref)


class Resolver:
    """Resolves refs across the main spec file and the files it references."""

    def __init__(self, main: SourceDoc) -> None:
        self.main = main
        self.root_dir = main.path.resolve().parent
        self.docs: dict[str, SourceDoc] = {main.file: main}
        self.diagnostics: list[Diagnostic] = []
        self._indexes: dict[str, dict[str, str]] = {}

    def doc(self, file: str) -> SourceDoc:
        return self.docs[file]

    def schema_at(self, target: Target) -> Any:
        return resolve_pointer(self.docs[target.file].data, target.pointer)[1]

    def resolve(self, ref: str, origin: SourceDoc, at: str, scope: str) -> Target | None:
        """Resolve ``ref`` written at pointer ``at`` of ``origin``.

        Args:
            ref: the ``$ref`` value.
            origin: the document containing it.
            at: JSON pointer of the ``$ref`` key (for diagnostics).
            scope: pointer of the enclosing schema root (a tool schema, or "" for the file).

        Returns:
            The target, or None after recording a diagnostic.
        """
        by_id = self.resolve_by_id(ref, origin, at)
        if by_id is not None:
            return by_id
        if _SCHEME.match(ref):
            self.diagnostics.append(origin.diag(
                "E025", f"network or absolute $ref {ref!r} is not allowed", at,
                hint="copy the schema into the spec's $defs (or a local file) and reference it as #/$defs/Name"))
            return None
        path_part, _, fragment = ref.partition("#")
        fragment = unquote(fragment)
        if fragment and not fragment.startswith("/"):
            self.diagnostics.append(origin.diag(
                "E024", f"$ref {ref!r}: no $anchor or $dynamicAnchor {fragment!r} in this schema resource", at,
                hint="define the anchor, or use a JSON pointer such as #/$defs/Name"))
            return None
        if path_part:
            doc = self._load_relative(path_part, origin, at)
            if doc is None:
                return None
            target = Target(doc.file, fragment)
            return self._check(target, ref, origin, at)
        file = origin.file
        if scope and resolve_pointer(origin.data, scope + fragment)[0]:
            return Target(file, scope + fragment)
        return self._check(Target(file, fragment), ref, origin, at)

    def resolve_by_id(self, ref: str, origin: SourceDoc, at: str) -> Target | None:
        """``ref`` resolved against the ``$id`` / ``$anchor`` resources of ``origin`` itself.

        Same-document identifiers only: the base URI at ``at`` comes from the ``$id``s
        above it, and the result must be a resource or anchor defined in this file.
        """
        index = self._index(origin)
        if not index:  # the usual document: no $id or anchor anywhere, nothing to look up
            return None
        base = _BASE
        node: Any = origin.data
        tokens = [t.replace("~1", "/").replace("~0", "~") for t in at.strip("/").split("/")[:-1]] if at.strip("/") else []
        for token in tokens:
            if isinstance(node, dict) and isinstance(node.get("$id"), str):
                base = join_uri(base, node["$id"])
            if isinstance(node, dict) and token in node:
                node = node[token]
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
            else:
                break
        if isinstance(node, dict) and isinstance(node.get("$id"), str):
            base = join_uri(base, node["$id"])
        uri, _, fragment = join_uri(base, ref).partition("#")
        fragment = unquote(fragment)
        if uri == _BASE and (not fragment or fragment.startswith("/")):
            return None  # a plain pointer into the document: the usual rules apply
        if fragment and not fragment.startswith("/"):
            pointer = index.get(uri + "#" + fragment)
            return Target(origin.file, pointer) if pointer is not None else None
        pointer = index.get(uri)
        if pointer is None:
            return None
        target = Target(origin.file, pointer + fragment)
        return target if resolve_pointer(origin.data, target.pointer)[0] else None

    def _index(self, doc: SourceDoc) -> dict[str, str]:
        """URI -> pointer of every ``$id`` resource and anchor in ``doc`` (cached)."""
        key = doc.file
        if key not in self._indexes:
            index: dict[str, str] = {}
            stack: list[tuple[Any, str, str]] = [(doc.data, "", _BASE)]
            while stack:
                node, ptr, base = stack.pop()
                if isinstance(node, dict):
                    if isinstance(node.get("$id"), str):
                        base = join_uri(base, node["$id"])
                        index.setdefault(base.partition("#")[0], ptr)
                    for k in ("$anchor", "$dynamicAnchor"):
                        if isinstance(node.get(k), str):
                            index.setdefault(base.partition("#")[0] + "#" + node[k], ptr)
                    for k, v in node.items():
                        if k not in ("const", "enum", "default", "examples"):
                            stack.append((v, f"{ptr}/{k.replace('~', '~0').replace('/', '~1')}", base))
                elif isinstance(node, list):
                    stack.extend((v, f"{ptr}/{i}", base) for i, v in enumerate(node))
            self._indexes[key] = index
        return self._indexes[key]

    def _check(self, target: Target, ref: str, origin: SourceDoc, at: str) -> Target | None:
        ok, _ = resolve_pointer(self.docs[target.file].data, target.pointer)
        if not ok:
            names = sorted((self.docs[target.file].data or {}).get("$defs", {}) or {})
            self.diagnostics.append(origin.diag(
                "E024", f"$ref {ref!r} does not resolve", at,
                hint=f"defined in $defs: {', '.join(names) or '(none)'}"))
            return None
        return target

    def _load_relative(self, rel: str, origin: SourceDoc, at: str) -> SourceDoc | None:
        path = (origin.path.resolve().parent / unquote(rel)).resolve()
        if not path.is_relative_to(self.root_dir):
            self.diagnostics.append(origin.diag(
                "E026", f"$ref file {rel!r} lies outside the spec folder", at,
                hint="keep referenced schema files next to the spec (or below its folder)"))
            return None
        key = str(path)
        if key in self.docs:
            return self.docs[key]
        if not path.is_file():
            self.diagnostics.append(origin.diag("E024", f"$ref file {rel!r} not found", at))
            return None
        display = str(Path(self.main.display).parent / path.relative_to(self.root_dir))
        doc, diags = load_spec_file(path, display)
        self.diagnostics.extend(diags)
        if doc is None:
            return None
        self.docs[key] = doc
        return doc
