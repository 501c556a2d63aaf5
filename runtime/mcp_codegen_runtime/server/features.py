"""The server's optional features: what each brings, and the error of a private copy without one.

The server side of ``client/features.py``, the same mechanism: the core server modules import a
feature only where it is used (inside the method, or under ``TYPE_CHECKING``), on a line marked
``# runtime-copy: optional``.  A private runtime copy (``build --private-runtime``) holds one only
when the package uses it, as the facade ``server/gencode.py`` records: the generated files import
one of the feature's names from it (see ``codegen/render/runtime_copy.py``):

==============  ===========================  ==================================================
feature         modules                      in a private copy when
==============  ===========================  ==================================================
``tasks``       ``server/tasks/``            a tool of the spec declares ``task:``
                                             (``TaskContext``, which ``__init__.py`` imports)
``skills``      ``server/skills.py``         the spec declares ``skills:``
                                             (``SkillIntegrityError``, likewise)
``upstream``    ``server/upstream/``         the spec has an ``upstream:`` section
``mock``        ``server/mock/``             never: ``mcp-codegen mock`` and the ``connect_mock``
                (with ``schema/examples.py``) test helpers use the library's
==============  ===========================  ==================================================

What stays in every copy, chosen at run time rather than by the spec: the Redis state of
replicas (``replicas.py``, ``--redis-url``; its client library is imported only when used) and
OpenTelemetry (``telemetry.py``, active when the API is installed).  The names the core routes
by (the extensions' methods and capability keys) are in :mod:`.extensions`.

The library (``mcp-codegen-runtime``) has them all.  In a copy without one, using it raises the
:class:`ImportError` of :func:`missing`, which names the feature and how to get it.
"""

from __future__ import annotations

from typing import NoReturn

#: feature -> (its modules, what brings them into a private copy).
FEATURES: dict[str, tuple[str, str | None]] = {
    "tasks": ("server/tasks/", "a tool declaring 'task: optional' or 'task: required' in its spec"),
    "skills": ("server/skills.py", "'skills:' in its spec"),
    "upstream": ("server/upstream/", "'upstream:' in its spec (a spec converted from OpenAPI)"),
    "mock": ("server/mock/", None),  # the library's alone
}


def missing(feature: str, what: str, exc: ImportError) -> NoReturn:
    """Raise the error of ``what`` (a method, a request, a name) whose ``feature`` failed to
    import with ``exc``: a clear :class:`ImportError` when the feature's modules are absent (a
    private copy without them), else ``exc`` itself (something the feature imports is missing)."""
    folder, brings = FEATURES[feature]
    name = getattr(exc, "name", None) or ""
    if not name.endswith(".server." + feature) and ".server." + feature + "." not in name:
        raise exc
    held = (f"a copy holds it when the package is built with {brings}; or build" if brings
            else "no private copy does; build")
    raise ImportError(
        f"{what} needs the {feature} feature of the runtime ({folder}), which this private runtime copy does "
        f"not hold: {held} with --library-runtime to use the installed mcp-codegen-runtime library", name=name) from exc


__all__ = ["FEATURES", "missing"]
