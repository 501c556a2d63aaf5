"""The names of a spec with ``upstream`` (its tools call a REST API, docs/openapi.md): the
constants of the generated ``upstream.py`` and the names its modules reserve.  Part of the naming
service (:mod:`codegen.ir.naming.core`); lowering calls these, templates only print them."""

from __future__ import annotations

#: Names the modules of a spec with ``upstream`` define or import besides (``upstream.py``,
#: ``server.py``): no class of such a spec may take them.
UPSTREAM_MODULE_NAMES = frozenset({"UPSTREAM", "UpstreamDef", "UpstreamServer", "HttpBinding", "json"})


def upstream_const() -> str:
    """The module constant (``upstream.py``) holding the spec's ``upstream`` as an ``UpstreamDef``."""
    return "UPSTREAM"


def http_const(method: str) -> str:
    """The module constant holding a tool's ``http`` binding: ``get_pet`` -> ``GET_PET_HTTP``."""
    return method.upper().rstrip("_") + "_HTTP"
