"""Structural comparison of two self-contained JSON Schemas (the bundled wire schemas).

:func:`compare_schemas` walks an old and a new schema side by side (following local
``$ref`` s into each root's ``$defs``, cycle-safe) and reports every difference as a
:class:`Delta` that says *what* changed (its ``aspect``) and whether the new schema accepts
more (``WIDENED``), less (``NARROWED``), something incomparable (``CHANGED``) or only differs
in annotations (``DOC``).  Whether that is breaking depends on the direction (inputs are
contravariant, outputs covariant) and is decided in :mod:`codegen.commands.diff.classify`.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...schemas.walk import deref_local
from ...spec.pointer import join_pointer
from .schema_facts import (
    HANDLED,
    LOWER_BOUNDS,
    STRING_CONSTRAINTS,
    UPPER_BOUNDS,
    canon,
    covers,
    enum_values,
    is_doc_key,
    strip_doc,
    type_text,
    types_of,
)


class Effect(enum.Enum):
    WIDENED = "widened"  # the new schema accepts more values
    NARROWED = "narrowed"  # the new schema accepts fewer values
    CHANGED = "changed"  # neither: some old values rejected, some new values accepted
    DOC = "doc"  # annotations only; the accepted values are the same


@dataclass(frozen=True)
class Delta:
    """One difference between two schemas.

    Attributes:
        aspect: ``type``, ``enum``, ``constraint``, ``required``, ``property-added``,
            ``property-removed``, ``variant``, ``changed``, ``doc`` or ``default``.
        effect: see :class:`Effect`.
        path: JSON pointer relative to the schema root, ``$ref`` s followed transparently.
        message: a readable sentence.
        old: old value.  new: new value.
        required: for ``property-added``, whether the new property is required.
        closed: for ``property-*``, whether the object forbids unlisted properties
            (``additionalProperties: false``: the new one for removals, the old one for additions).
    """

    aspect: str
    effect: Effect
    path: str
    message: str
    old: Any = None
    new: Any = None
    required: bool = False
    closed: bool = False


class _Walker:
    """Holds the two roots (for ``$ref``) and the output list during one comparison."""

    def __init__(self, old_root: Any, new_root: Any) -> None:
        self.old_root = old_root
        self.new_root = new_root
        self.deltas: list[Delta] = []
        self._active: set[tuple[str, str]] = set()

    def emit(self, aspect: str, effect: Effect, path: str, message: str, old: Any = None, new: Any = None, **kw: Any) -> None:
        self.deltas.append(Delta(aspect, effect, path, message, old, new, **kw))

    # -- references -------------------------------------------------------------------
    def deref(self, schema: Any, root: Any) -> tuple[Any, str]:
        """Follow a local ``$ref`` chain; sibling keywords are merged over the target."""
        return deref_local(schema, root)

    # -- the walk ---------------------------------------------------------------------
    def compare(self, old: Any, new: Any, path: str) -> None:
        old, old_ref = self.deref(old, self.old_root)
        new, new_ref = self.deref(new, self.new_root)
        if old_ref or new_ref:
            pair = (old_ref or "@" + path, new_ref or "@" + path)
            if pair in self._active:
                return  # recursive schema: this pair is already being compared higher up
            self._active.add(pair)
            try:
                self._compare(old, new, path)
            finally:
                self._active.discard(pair)
            return
        self._compare(old, new, path)

    def _compare(self, old: Any, new: Any, path: str) -> None:
        if old is True:
            old = {}
        if new is True:
            new = {}
        if old is False or new is False or not isinstance(old, dict) or not isinstance(new, dict):
            if canon(old) != canon(new):
                effect = Effect.WIDENED if old is False else Effect.NARROWED if new is False else Effect.CHANGED
                self.emit("changed" if effect is Effect.CHANGED else "constraint", effect, path,
                          f"schema changed from {canon(old)} to {canon(new)}", old, new)
            return
        if self._union_introduced(old, new, path):
            return
        self._docs(old, new, path)
        self._type(old, new, path)
        self.enum_values(old, new, path)
        self._bounds(old, new, path)
        self._object(old, new, path)
        self._array(old, new, path)
        for key in ("anyOf", "oneOf"):
            self._alternatives(old, new, key, path)
        self._all_of(old, new, path)
        for key in sorted((set(old) | set(new)) - HANDLED):
            if is_doc_key(key):
                continue
            if canon(old.get(key)) != canon(new.get(key)):
                self.emit("changed", Effect.CHANGED, join_pointer(path, key),
                          f"keyword {key!r} changed", old.get(key), new.get(key))

    def _docs(self, old: dict[str, Any], new: dict[str, Any], path: str) -> None:
        for key in sorted(k for k in set(old) | set(new) if is_doc_key(k)):
            if canon(old.get(key)) != canon(new.get(key)):
                self.emit("doc", Effect.DOC, join_pointer(path, key), f"{key} changed", old.get(key), new.get(key))
        if canon(old.get("default")) != canon(new.get("default")):
            self.emit("default", Effect.DOC, join_pointer(path, "default"), "default changed",
                      old.get("default"), new.get("default"))

    def _type(self, old: dict[str, Any], new: dict[str, Any], path: str) -> None:
        ta, tb = types_of(old), types_of(new)
        if ta == tb:
            return
        at = join_pointer(path, "type")
        text = f"type {type_text(ta)} -> {type_text(tb)}"
        if covers(tb, ta):
            self.emit("type", Effect.WIDENED, at, f"{text} (accepts more)", old.get("type"), new.get("type"))
        elif covers(ta, tb):
            self.emit("type", Effect.NARROWED, at, f"{text} (accepts less)", old.get("type"), new.get("type"))
        else:
            self.emit("type", Effect.CHANGED, at, text, old.get("type"), new.get("type"))

    def enum_values(self, old: dict[str, Any], new: dict[str, Any], path: str) -> None:
        ea, eb = enum_values(old), enum_values(new)
        at = join_pointer(path, "enum" if "enum" in new or "enum" in old else "const")
        if ea is None and eb is None:
            return
        if ea is None:
            self.emit("enum", Effect.NARROWED, at, f"now restricted to {canon(eb)}", None, eb)
            return
        if eb is None:
            self.emit("enum", Effect.WIDENED, at, f"no longer restricted to {canon(ea)}", ea, None)
            return
        ka, kb = {canon(v): v for v in ea}, {canon(v): v for v in eb}
        removed = [ka[k] for k in ka if k not in kb]
        added = [kb[k] for k in kb if k not in ka]
        if removed:
            self.emit("enum", Effect.NARROWED, at, f"value(s) removed: {', '.join(map(canon, removed))}", removed, None)
        if added:
            self.emit("enum", Effect.WIDENED, at, f"value(s) added: {', '.join(map(canon, added))}", None, added)

    def _bounds(self, old: dict[str, Any], new: dict[str, Any], path: str) -> None:
        for keys, tighter in ((LOWER_BOUNDS, lambda a, b: b > a), (UPPER_BOUNDS, lambda a, b: b < a)):
            for key in keys:
                self._bound(old, new, path, key, tighter)
        a, b = old.get("multipleOf"), new.get("multipleOf")
        if a != b:
            at = join_pointer(path, "multipleOf")
            if a is None or (b is not None and _is_multiple(b, a)):
                self.emit("constraint", Effect.NARROWED, at, f"multipleOf {a} -> {b}", a, b)
            elif b is None or _is_multiple(a, b):
                self.emit("constraint", Effect.WIDENED, at, f"multipleOf {a} -> {b}", a, b)
            else:
                self.emit("constraint", Effect.CHANGED, at, f"multipleOf {a} -> {b}", a, b)
        for key in STRING_CONSTRAINTS:
            a, b = old.get(key), new.get(key)
            if a == b:
                continue
            at = join_pointer(path, key)
            if a is None:
                self.emit("constraint", Effect.NARROWED, at, f"{key} {canon(b)} added", a, b)
            elif b is None:
                self.emit("constraint", Effect.WIDENED, at, f"{key} {canon(a)} removed", a, b)
            else:
                self.emit("constraint", Effect.CHANGED, at, f"{key} {canon(a)} -> {canon(b)}", a, b)
        a, b = bool(old.get("uniqueItems", False)), bool(new.get("uniqueItems", False))
        if a != b:
            self.emit("constraint", Effect.NARROWED if b else Effect.WIDENED, join_pointer(path, "uniqueItems"),
                      f"uniqueItems {str(a).lower()} -> {str(b).lower()}", a, b)

    def _bound(self, old: dict[str, Any], new: dict[str, Any], path: str, key: str,
               tighter: Callable[[Any, Any], bool]) -> None:
        a, b = old.get(key), new.get(key)
        if a == b:
            return
        at = join_pointer(path, key)
        if a is None:
            self.emit("constraint", Effect.NARROWED, at, f"{key} {b} added", a, b)
        elif b is None:
            self.emit("constraint", Effect.WIDENED, at, f"{key} {a} removed", a, b)
        elif isinstance(a, (int, float)) and isinstance(b, (int, float)):
            effect = Effect.NARROWED if tighter(a, b) else Effect.WIDENED
            self.emit("constraint", effect, at, f"{key} {a} -> {b}", a, b)
        else:
            self.emit("constraint", Effect.CHANGED, at, f"{key} {canon(a)} -> {canon(b)}", a, b)

    def _object(self, old: dict[str, Any], new: dict[str, Any], path: str) -> None:
        keys = ("properties", "required", "additionalProperties")
        if not any(k in old or k in new for k in keys):
            return
        pa: dict[str, Any] = old.get("properties") or {}
        pb: dict[str, Any] = new.get("properties") or {}
        ra, rb = set(old.get("required") or ()), set(new.get("required") or ())
        apa, apb = old.get("additionalProperties", True), new.get("additionalProperties", True)
        for name in sorted(set(pa) | set(pb)):
            at = join_pointer(path, "properties", name)
            if name in pa and name in pb:
                self.compare(pa[name], pb[name], at)
            elif name in pa:
                closed = apb is False
                self.emit("property-removed", Effect.NARROWED if closed else Effect.WIDENED, at,
                          f"property {name!r} removed" + (" (now rejected: additionalProperties is false)" if closed else ""),
                          pa[name], None, closed=closed, required=name in ra)
            else:
                closed = apa is False
                self.emit("property-added", Effect.NARROWED if name in rb else Effect.WIDENED, at,
                          f"{'required' if name in rb else 'optional'} property {name!r} added", None, pb[name],
                          required=name in rb, closed=closed)
        for name in sorted(rb - ra):
            if name in pa or name not in pb:
                self.emit("required", Effect.NARROWED, join_pointer(path, "properties", name),
                          f"property {name!r} is now required", False, True)
        for name in sorted(ra - rb):
            if name in pb or name not in pa:
                self.emit("required", Effect.WIDENED, join_pointer(path, "properties", name),
                          f"property {name!r} is no longer required", True, False)
        self._additional(apa, apb, join_pointer(path, "additionalProperties"))

    def _additional(self, a: Any, b: Any, at: str) -> None:
        if canon(a) == canon(b):
            return
        if a is False or b is False:
            effect = Effect.NARROWED if b is False else Effect.WIDENED
            self.emit("constraint", effect, at, f"additionalProperties {canon(a)} -> {canon(b)}", a, b)
            return
        self.compare({} if a is True else a, {} if b is True else b, at)

    def _array(self, old: dict[str, Any], new: dict[str, Any], path: str) -> None:
        if "items" in old or "items" in new:
            a, b = old.get("items", True), new.get("items", True)
            if a is False or b is False:
                self._additional(a, b, join_pointer(path, "items"))
            else:
                self.compare({} if a is True else a, {} if b is True else b, join_pointer(path, "items"))
        la, lb = old.get("prefixItems") or [], new.get("prefixItems") or []
        for i in range(max(len(la), len(lb))):
            a = la[i] if i < len(la) else {}
            b = lb[i] if i < len(lb) else {}
            self.compare(a, b, join_pointer(path, "prefixItems", i))

    def _union_introduced(self, old: dict[str, Any], new: dict[str, Any], path: str) -> bool:
        """One side is a union (anyOf/oneOf), the other is not: a variant added or removed.

        When the plain side equals one branch (merged with the union's sibling keywords) the
        union side is wider (or narrower); otherwise the change is incomparable.  Returns
        True when handled.
        """
        for key in ("anyOf", "oneOf"):
            if (key in old) == (key in new) or "anyOf" in old and "oneOf" in new or "oneOf" in old and "anyOf" in new:
                continue
            plain, union = (old, new) if key in new else (new, old)
            rest = {k: v for k, v in union.items() if k != key}
            branches = union[key] if isinstance(union[key], list) else []
            target = canon(strip_doc(plain))
            root = self.new_root if union is new else self.old_root
            hit = any(canon(strip_doc({**rest, **self.deref(b, root)[0]})) == target for b in branches if isinstance(b, dict))
            at = join_pointer(path, key)
            if hit:
                self._docs({k: v for k, v in old.items() if k != key}, {k: v for k, v in new.items() if k != key}, path)
                effect = Effect.WIDENED if union is new else Effect.NARROWED
                self.emit("variant", effect, at, f"{key} {'introduced (more variants)' if union is new else 'removed (one variant left)'}",
                          old.get(key), new.get(key))
            else:
                self.emit("changed", Effect.CHANGED, at, f"{key} {'added' if union is new else 'removed'}", old.get(key), new.get(key))
            return True
        return False

    def _alternatives(self, old: dict[str, Any], new: dict[str, Any], key: str, path: str) -> None:
        ba, bb = old.get(key), new.get(key)
        if ba is None or bb is None:
            return
        self._branches(ba, bb, join_pointer(path, key), "variant", Effect.NARROWED, Effect.WIDENED, f"{key} variant")

    def _branches(self, ba: list[Any], bb: list[Any], at: str, kind: str, removed: Effect, added: Effect,
                  label: str) -> None:
        """Compare two branch lists: identical ones pair up, the rest pair by order when the
        counts match, else each is reported as removed (``removed``) or added (``added``)."""
        unmatched_a, unmatched_b = self._match(ba, bb)
        if len(unmatched_a) == len(unmatched_b):
            for (i, a), (_, b) in zip(unmatched_a, unmatched_b, strict=True):
                self.compare(a, b, join_pointer(at, i))
            return
        for i, a in unmatched_a:
            self.emit(kind, removed, join_pointer(at, i), f"{label} {i} removed", a, None)
        for i, b in unmatched_b:
            self.emit(kind, added, join_pointer(at, i), f"{label} {i} added", None, b)

    def _match(self, ba: list[Any], bb: list[Any]) -> tuple[list[tuple[int, Any]], list[tuple[int, Any]]]:
        """Pair up branches that are identical (after following refs); return the rest of each."""
        rest_b = list(enumerate(bb))
        rest_a: list[tuple[int, Any]] = []
        for i, a in enumerate(ba):
            key = canon(strip_doc(self.deref(a, self.old_root)[0]))
            hit = next((j for j, (_, b) in enumerate(rest_b) if canon(strip_doc(self.deref(b, self.new_root)[0])) == key), None)
            if hit is None:
                rest_a.append((i, a))
            else:
                rest_b.pop(hit)
        return rest_a, rest_b

    def _all_of(self, old: dict[str, Any], new: dict[str, Any], path: str) -> None:
        ba, bb = old.get("allOf") or [], new.get("allOf") or []
        if ba or bb:
            self._branches(ba, bb, join_pointer(path, "allOf"), "constraint", Effect.WIDENED, Effect.NARROWED,
                           "allOf part")

def _is_multiple(a: Any, b: Any) -> bool:
    """True when every multiple of ``a`` is a multiple of ``b`` (``a`` is a multiple of ``b``)."""
    try:
        q = a / b
    except (TypeError, ZeroDivisionError):
        return False
    return bool(abs(q - round(q)) < 1e-9)


def compare_schemas(old: Any, new: Any, path: str = "") -> list[Delta]:
    """Every difference between two self-contained schemas.

    Args:
        old: the old schema (its ``$defs`` resolve its local ``$ref`` s).
        new: the new schema.
        path: prefix for the reported pointers (e.g. ``/inputSchema``).

    Returns:
        The deltas, in walk order (deterministic).
    """
    walker = _Walker(old, new)
    walker.compare(old, new, path)
    return walker.deltas
