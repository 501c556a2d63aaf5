"""Security schemes -> ``upstream.security`` (with environment-variable names) and requirements.

=========================================  ==============================================
document                                   upstream.security
=========================================  ==============================================
apiKey (header, query, cookie)             ``{type: apiKey, in, name, env: S_SCHEME}``
http bearer; oauth2 (other flows);         ``{type: bearer, env: S_SCHEME}``
openIdConnect; 2.0 oauth2 (other flows)
http basic; 2.0 basic                      ``{type: basic, env: {username, password}}``
oauth2 clientCredentials; 2.0 application  ``{type: oauth2, tokenUrl, scopes, env: {clientId, clientSecret}}``
anything else (digest, mutualTLS ...)      dropped with W122, and every requirement naming it
=========================================  ==============================================

``S_SCHEME`` is ``<SERVER>_<SCHEME>`` upper-cased, other characters than letters and digits as ``_``.
"""

from __future__ import annotations

import re
from typing import Any

from ...spec.pointer import join_pointer
from .ir import SecurityScheme
from .load import Document, Ref

_NOT_ALNUM = re.compile(r"[^A-Za-z0-9]")


def env_name(*parts: str) -> str:
    """An environment-variable name from ``parts``: upper case, ``_`` for anything else."""
    name = _NOT_ALNUM.sub("_", "_".join(parts)).upper()
    return name if re.match(r"[A-Z_]", name) else "_" + name


def read_schemes(doc: Document, server: str) -> list[SecurityScheme]:
    """The document's security schemes the binding can express, in document order."""
    data = doc.data
    if doc.version == "2.0":
        table, base = data.get("securityDefinitions"), "/securityDefinitions"
    else:
        comps = data.get("components")
        table, base = (comps.get("securitySchemes") if isinstance(comps, dict) else None), "/components/securitySchemes"
    if table is None:
        return []
    if not isinstance(table, dict):
        doc.error(doc.root, "E141", "security schemes must be a mapping of name to scheme", base)
        return []
    out = []
    for name, raw in table.items():
        at = Ref(doc.root, join_pointer(base, name))
        followed = doc.follow(raw, at)
        if followed is None:
            continue
        raw, at = followed
        if not isinstance(raw, dict):
            doc.error(at.doc, "E141", "a security scheme must be a mapping", at.pointer)
            continue
        spec = _scheme(doc, name, raw, at, env_name(server, name))
        if spec is not None:
            out.append(SecurityScheme(name, spec))
    return out


def _scheme(doc: Document, name: str, raw: dict[str, Any], at: Ref, env: str) -> dict[str, Any] | None:
    kind = raw.get("type")
    if kind == "apiKey":
        where, key = raw.get("in"), raw.get("name")
        if where not in ("header", "query", "cookie") or not isinstance(key, str) or not key:
            doc.error(at.doc, "E141", f"apiKey scheme {name!r} needs `in` (header, query or cookie) and a `name`", at.pointer)
            return None
        return {"type": "apiKey", "in": where, "name": key, "env": env}
    if kind == "http":
        scheme = str(raw.get("scheme", "")).lower()
        if scheme == "bearer":
            return {"type": "bearer", "env": env}
        if scheme == "basic":
            return _basic(env)
        doc.warn(at.doc, "W122", f"security scheme {name!r}: HTTP scheme {raw.get('scheme')!r} is not supported "
                 "(bearer and basic are); dropped", at.pointer)
        return None
    if kind == "basic":  # Swagger 2.0
        return _basic(env)
    if kind == "oauth2":
        token_url, scopes = _client_credentials(doc, raw)
        if token_url is None:
            return {"type": "bearer", "env": env}
        return {"type": "oauth2", "tokenUrl": token_url, "scopes": scopes,
                "env": {"clientId": env + "_CLIENT_ID", "clientSecret": env + "_CLIENT_SECRET"}}
    if kind == "openIdConnect":
        return {"type": "bearer", "env": env}
    doc.warn(at.doc, "W122", f"security scheme {name!r} of type {kind!r} cannot be expressed; dropped", at.pointer)
    return None


def _basic(env: str) -> dict[str, Any]:
    return {"type": "basic", "env": {"username": env + "_USERNAME", "password": env + "_PASSWORD"}}


def _client_credentials(doc: Document, raw: dict[str, Any]) -> tuple[str | None, list[str]]:
    """(tokenUrl, scopes) of a client-credentials flow, or (None, []) when there is none."""
    if doc.version == "2.0":
        flow = raw if raw.get("flow") == "application" else None
    else:
        flows = raw.get("flows")
        flow = flows.get("clientCredentials") if isinstance(flows, dict) else None
    if not isinstance(flow, dict) or not isinstance(flow.get("tokenUrl"), str):
        return None, []
    scopes = flow.get("scopes")
    return flow["tokenUrl"], sorted(str(s) for s in scopes) if isinstance(scopes, dict) else []


def requirements(doc: Document, raw: Any, where: Ref, known: set[str]) -> list[list[str]] | None:
    """A ``security`` list as alternatives of scheme names: ``{}`` is ``[]`` (no credentials);
    an alternative naming an unknown or dropped scheme is dropped (W122)."""
    if raw is None:
        return None
    if not isinstance(raw, list):
        doc.error(where.doc, "E141", "`security` must be a list of requirement objects", where.pointer)
        return None
    out: list[list[str]] = []
    for i, item in enumerate(raw):
        at = join_pointer(where.pointer, i)
        if not isinstance(item, dict):
            doc.error(where.doc, "E141", "a security requirement must be a mapping of scheme name to scopes", at)
            continue
        missing = [n for n in item if n not in known]
        if missing:
            doc.warn(where.doc, "W122", f"security requirement names {', '.join(map(repr, missing))}, which is not "
                     "a scheme the binding can use; this alternative is dropped", at)
            continue
        names = list(item)
        if names not in out:
            out.append(names)
    return out
