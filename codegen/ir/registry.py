"""The normalizer of ``server.env`` and ``server.registry``: their IR with every default applied.

:func:`server_env` is the one list of environment variables of a server: the spec's declarations
in spec order, then the upstream's variables (base URL, credentials: ``UpstreamDef.variables``)
that the spec does not declare itself, so nothing is declared twice and a declaration of the
same name wins.  An upstream credential is ``secret``; it is ``required`` when every alternative
of ``upstream.defaultSecurity`` needs its scheme.  :func:`registry_ir` applies the registry's
defaults (title, description, website and icons of ``server``; the PyPI project named after the
package; ``source`` of a github/gitlab repository; remotes' ``streamable-http``).
"""

from __future__ import annotations

from typing import Any

from ..spec.model import SpecFile
from ..spec.registry import registry_values, repository
from .naming.publish import pypi_name
from .nodes import EnvVarIR, RegistryIR


def server_env(spec: SpecFile) -> tuple[EnvVarIR, ...]:
    """Every environment variable the server reads (module docstring), each once."""
    out: dict[str, EnvVarIR] = {}
    for var in spec.server.env:
        out.setdefault(var.name, EnvVarIR(var.name, var.description, var.required, var.secret, var.default,
                                          var.format, var.choices))
    for var in _upstream_env(spec):
        out.setdefault(var.name, var)
    return tuple(out.values())


def _upstream_env(spec: SpecFile) -> list[EnvVarIR]:
    if spec.upstream is None:
        return []
    from mcp_codegen_runtime.server.upstream.binding import UpstreamDef  # only for specs with an upstream

    try:
        upstream = UpstreamDef.from_spec(spec.upstream)
    except ValueError:  # reported by validation (E130...)
        return []
    alternatives = upstream.default_security
    credentials: dict[str, bool] = {}  # variable -> required
    for name, scheme in upstream.security.items():
        needed = bool(alternatives) and all(name in alt for alt in alternatives)
        for var in scheme.env_names:
            credentials[var] = credentials.get(var, False) or needed
    base = upstream.env_name(spec.server.name)
    return [EnvVarIR(var, what, credentials.get(var, False), var in credentials,
                     upstream.base_url if var == base and var not in credentials else None, None, ())
            for var, what in upstream.variables(spec.server.name)]


def registry_ir(spec: SpecFile, package: str) -> RegistryIR | None:
    """``server.registry`` with its defaults (module docstring); None without one."""
    values = {key: value for key, (value, _) in registry_values(spec).items()}
    if not values:
        return None
    remotes = tuple({"type": r.get("type", "streamable-http"), "url": r["url"]} for r in values.get("remotes", ()))
    repo: dict[str, Any] | None = repository(values["repository"]) if "repository" in values else None
    return RegistryIR(name=values["name"], title=values.get("title"), description=values.get("description", ""),
                      website_url=values.get("websiteUrl"), repository=repo,
                      icons=tuple(dict(i) for i in values.get("icons", ())), pypi=values.get("pypi") or pypi_name(package),
                      remotes=remotes)
