"""The client's optional features: what each brings, and the error of a private copy without one.

Four subpackages of the client are optional: the core client modules import them only where a
feature is used (inside the method, or under ``TYPE_CHECKING``), on a line marked
``# runtime-copy: optional``.  A private runtime copy (``build --private-runtime``) holds one only
when the package uses it, as the facade ``client/gencode.py`` records: the generated files import
one of the feature's names from it (see ``codegen/render/runtime_copy.py``):

==============  ===========================  ==================================================
feature         modules                      in a private copy when
==============  ===========================  ==================================================
``tasks``       ``client/tasks/``            a tool of the spec declares ``task:``
                                             (``TaskHandle``... in ``client.py``, ``__init__.py``)
``skills``      ``client/skills/``           the spec declares ``skills:`` (``LoadedSkill``...)
``oauth``       ``client/oauth/``            the spec declares ``server.auth`` (``OAuthSettings``)
``agent``       ``client/agent/``            ``--layout agent`` (``agent_client``...)
==============  ===========================  ==================================================

The library (``mcp-codegen-runtime``) has them all.  In a copy without one, using it raises the
:class:`ImportError` of :func:`missing`, which names the feature and how to get it.
"""

from __future__ import annotations

from typing import NoReturn

#: feature -> (its modules, what brings them into a private copy).
FEATURES: dict[str, tuple[str, str]] = {
    "tasks": ("client/tasks/", "a tool declaring 'task: optional' or 'task: required' in its spec"),
    "skills": ("client/skills/", "'skills:' in its spec"),
    "oauth": ("client/oauth/", "'server.auth' in its spec"),
    "agent": ("client/agent/", "'--layout agent'"),
}


def missing(feature: str, what: str, exc: ImportError) -> NoReturn:
    """Raise the error of ``what`` (a method, an argument, a name) whose ``feature`` failed to
    import with ``exc``: a clear :class:`ImportError` when the feature's modules are absent (a
    private copy without them), else ``exc`` itself (something the feature imports is missing)."""
    folder, brings = FEATURES[feature]
    name = getattr(exc, "name", None) or ""
    if not name.endswith(".client." + feature) and ".client." + feature + "." not in name:
        raise exc
    raise ImportError(
        f"{what} needs the {feature} feature of the runtime ({folder}), which this private runtime copy does "
        f"not hold: a copy holds it when the package is built with {brings}; or build with --library-runtime "
        "to use the installed mcp-codegen-runtime library", name=name) from exc


__all__ = ["FEATURES", "missing"]
