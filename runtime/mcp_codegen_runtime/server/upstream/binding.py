"""The spec's ``upstream`` section and a tool's ``http`` binding, parsed once at import time.

:meth:`UpstreamDef.from_spec` and :meth:`HttpBinding.from_spec` take the JSON the spec holds
(``docs/openapi.md``, ``/work/contract-openapi.md`` section 1) and give frozen dataclasses, or
raise :class:`ValueError` whose message names the key (``upstream.security.api_key.in: ...``).
Unknown keys are refused too: a misspelt key must not silently send a request without it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Union
from urllib.parse import urlsplit

Location = Literal["path", "query", "header", "cookie", "body"]

#: Methods a binding may use; the idempotent ones are retried (``client.py``).
METHODS = frozenset({"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE"})
#: Styles each parameter location allows (in OpenAPI's order), and its default style and explode
#: (OpenAPI 3.1).  The one table: the generator's checks and the OpenAPI converter read it too.
STYLES: dict[str, tuple[tuple[str, ...], str, bool]] = {
    "path": (("simple", "label", "matrix"), "simple", False),
    "query": (("form", "spaceDelimited", "pipeDelimited", "deepObject"), "form", True),
    "header": (("simple",), "simple", False),
    "cookie": (("form",), "form", True),
    "body": (("form",), "form", True),
}
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
#: An HTTP field name (RFC 9110 ``token``).
_HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
_ERROR_KEY = re.compile(r"^(?:[1-5][0-9]{2}|[1-5]XX|default)$", re.IGNORECASE)
_TEMPLATE_VAR = re.compile(r"\{([^{}]*)\}")


# ------------------------------------------------------------------ reading helpers
def _object(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ValueError(f"{where}: an object is required")
    return value


def _only(data: Mapping[str, Any], where: str, allowed: frozenset[str] | set[str]) -> None:
    unknown = sorted(str(k) for k in data if k not in allowed)
    if unknown:
        raise ValueError(f"{where}.{unknown[0]}: unknown key (allowed: {', '.join(sorted(allowed))})")


def _string(data: Mapping[str, Any], key: str, where: str, *, required: bool = True) -> str | None:
    value = data.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value:
        raise ValueError(f"{where}.{key}: a non-empty string is required")
    return value


def _env(value: Any, where: str) -> str:
    if not isinstance(value, str) or not _ENV_NAME.match(value):
        raise ValueError(f"{where}: an environment variable name (^[A-Za-z_][A-Za-z0-9_]*$) is required")
    return value


def _bool(data: Mapping[str, Any], key: str, where: str, default: bool) -> bool:
    value = data.get(key, default)
    if not isinstance(value, bool):
        raise ValueError(f"{where}.{key}: true or false is required")
    return value


def _requirements(value: Any, where: str) -> tuple[tuple[str, ...], ...]:
    """A security requirement list: alternatives, each a list of scheme names."""
    if not isinstance(value, list):
        raise ValueError(f"{where}: a list of alternatives (lists of scheme names) is required")
    out: list[tuple[str, ...]] = []
    for i, alternative in enumerate(value):
        if not isinstance(alternative, list) or not all(isinstance(n, str) and n for n in alternative):
            raise ValueError(f"{where}[{i}]: a list of scheme names is required")
        out.append(tuple(alternative))
    return tuple(out)


# ------------------------------------------------------------------ security schemes
@dataclass(frozen=True)
class ApiKeyScheme:
    """``{type: apiKey, in, name, env}``: the key from ``env`` sent as header, query or cookie ``name``."""

    location: Literal["header", "query", "cookie"]
    name: str
    env: str

    @property
    def env_names(self) -> tuple[str, ...]:
        return (self.env,)

    def variables(self, scheme: str) -> list[tuple[str, str]]:
        """Its environment variable and what it holds (for ``--print-config``; never a value)."""
        return [(self.env, f"the API key of scheme {scheme!r}, sent as {self.location} {self.name!r}")]


@dataclass(frozen=True)
class BearerScheme:
    """``{type: bearer, env}``: ``Authorization: Bearer <env>``."""

    env: str

    @property
    def env_names(self) -> tuple[str, ...]:
        return (self.env,)

    def variables(self, scheme: str) -> list[tuple[str, str]]:
        """Its environment variable and what it holds (for ``--print-config``; never a value)."""
        return [(self.env, f"the bearer token of scheme {scheme!r}, sent as Authorization: Bearer")]


@dataclass(frozen=True)
class BasicScheme:
    """``{type: basic, env: {username, password}}``: ``Authorization: Basic ...``."""

    username_env: str
    password_env: str

    @property
    def env_names(self) -> tuple[str, ...]:
        return (self.username_env, self.password_env)

    def variables(self, scheme: str) -> list[tuple[str, str]]:
        """Its environment variables and what each holds (for ``--print-config``; never a value)."""
        what = f"of scheme {scheme!r}, for HTTP basic authentication"
        return [(self.username_env, f"the user name {what}"), (self.password_env, f"the password {what}")]


@dataclass(frozen=True)
class OAuth2Scheme:
    """``{type: oauth2, tokenUrl, scopes, env: {clientId, clientSecret}}``: client credentials grant."""

    token_url: str
    scopes: tuple[str, ...]
    client_id_env: str
    client_secret_env: str

    @property
    def env_names(self) -> tuple[str, ...]:
        return (self.client_id_env, self.client_secret_env)

    def variables(self, scheme: str) -> list[tuple[str, str]]:
        """Its environment variables and what each holds (for ``--print-config``; never a value)."""
        what = f"of scheme {scheme!r}, for the client credentials grant at {self.token_url}"
        return [(self.client_id_env, f"the OAuth 2 client id {what}"),
                (self.client_secret_env, f"the OAuth 2 client secret {what}")]


SecurityScheme = Union[ApiKeyScheme, BearerScheme, BasicScheme, OAuth2Scheme]


def _http_url(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{where}: an absolute http(s) URL is required")
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{where}: an absolute http(s) URL is required")
    return value


def _scheme(name: str, data: Any) -> SecurityScheme:
    where = f"upstream.security.{name}"
    data = _object(data, where)
    kind = data.get("type")
    if kind == "apiKey":
        _only(data, where, {"type", "in", "name", "env", "description"})
        location = data.get("in")
        if location not in ("header", "query", "cookie"):
            raise ValueError(f"{where}.in: one of header, query, cookie is required")
        param = _string(data, "name", where) or ""
        if location == "header" and not _HEADER_NAME.match(param):
            raise ValueError(f"{where}.name: not a valid header name")
        return ApiKeyScheme(location, param, _env(data.get("env"), f"{where}.env"))
    if kind == "bearer":
        _only(data, where, {"type", "env", "description"})
        return BearerScheme(_env(data.get("env"), f"{where}.env"))
    if kind == "basic":
        _only(data, where, {"type", "env", "description"})
        env = _object(data.get("env"), f"{where}.env")
        _only(env, f"{where}.env", {"username", "password"})
        return BasicScheme(_env(env.get("username"), f"{where}.env.username"),
                           _env(env.get("password"), f"{where}.env.password"))
    if kind == "oauth2":
        _only(data, where, {"type", "tokenUrl", "scopes", "env", "description"})
        scopes = data.get("scopes", [])
        if not isinstance(scopes, list) or not all(isinstance(s, str) and s for s in scopes):
            raise ValueError(f"{where}.scopes: a list of scope names is required")
        env = _object(data.get("env"), f"{where}.env")
        _only(env, f"{where}.env", {"clientId", "clientSecret"})
        return OAuth2Scheme(_http_url(data.get("tokenUrl"), f"{where}.tokenUrl"), tuple(scopes),
                            _env(env.get("clientId"), f"{where}.env.clientId"),
                            _env(env.get("clientSecret"), f"{where}.env.clientSecret"))
    raise ValueError(f"{where}.type: one of apiKey, bearer, basic, oauth2 is required")


# ------------------------------------------------------------------ upstream
_UPSTREAM_KEYS = frozenset({"baseUrl", "env", "timeout", "retries", "forwardHeaders", "source", "security",
                            "defaultSecurity"})


@dataclass(frozen=True)
class UpstreamDef:
    """The spec's ``upstream`` section (base URL, its environment variable, timeouts, credentials).

    Attributes:
        base_url: the REST API's base URL (path included).
        env: the environment variable replacing it (None: ``<SERVER>_BASE_URL``, see
            :func:`default_env`).
        timeout: seconds per request (connect and read).
        retries: retries of idempotent methods (``client.py``).
        forward_headers: the caller's HTTP headers copied onto upstream requests (lower case).
        security: scheme name -> scheme.
        default_security: the alternatives of tools whose binding names none.
        source: the provenance (informational).
    """

    base_url: str
    env: str | None = None
    timeout: float = 30.0
    retries: int = 2
    forward_headers: tuple[str, ...] = ()
    security: Mapping[str, SecurityScheme] = field(default_factory=dict)
    default_security: tuple[tuple[str, ...], ...] = ()
    source: Mapping[str, Any] | None = field(default=None, repr=False)

    @classmethod
    def from_spec(cls, data: Mapping[str, Any]) -> UpstreamDef:
        """Parse the ``upstream`` section as the spec writes it.

        Raises:
            ValueError: a key is missing, unknown or malformed (the message names it).
        """
        data = _object(data, "upstream")
        _only(data, "upstream", _UPSTREAM_KEYS)
        base_url = _http_url(data.get("baseUrl"), "upstream.baseUrl")
        env = _env(data["env"], "upstream.env") if data.get("env") is not None else None
        timeout = data.get("timeout", 30)
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout <= 3600:
            raise ValueError("upstream.timeout: seconds, a number above 0 and at most 3600, is required")
        retries = data.get("retries", 2)
        if isinstance(retries, bool) or not isinstance(retries, int) or not 0 <= retries <= 10:
            raise ValueError("upstream.retries: an integer from 0 to 10 is required")
        forward = data.get("forwardHeaders", [])
        if not isinstance(forward, list) or not all(isinstance(h, str) and _HEADER_NAME.match(h) for h in forward):
            raise ValueError("upstream.forwardHeaders: a list of header names is required")
        schemes = _object(data.get("security", {}), "upstream.security")
        security = {str(name): _scheme(str(name), scheme) for name, scheme in schemes.items()}
        default = _requirements(data.get("defaultSecurity", []), "upstream.defaultSecurity")
        for i, alternative in enumerate(default):
            for name in alternative:
                if name not in security:
                    raise ValueError(f"upstream.defaultSecurity[{i}]: unknown scheme {name!r}")
        source = data.get("source")
        if source is not None:
            source = dict(_object(source, "upstream.source"))
        return cls(base_url=base_url, env=env, timeout=float(timeout), retries=retries,
                   forward_headers=tuple(h.lower() for h in forward), security=security,
                   default_security=default, source=source)

    def env_name(self, server_name: str) -> str:
        """The environment variable replacing the base URL: ``env``, else :func:`default_env`."""
        return self.env or default_env(server_name)

    def variables(self, server_name: str) -> list[tuple[str, str]]:
        """Every environment variable the upstream reads and what it holds (for ``--print-config``;
        never a value): the base URL's, then each scheme's in the spec's order, each named once."""
        out = [(self.env_name(server_name), f"the upstream's base URL, path included (default {self.base_url})")]
        for name, scheme in self.security.items():
            out += scheme.variables(name)
        first: dict[str, str] = {}
        for var, what in out:
            first.setdefault(var, what)
        return list(first.items())


def default_env(server_name: str) -> str:
    """The base URL's environment variable when the spec names none: ``<SERVER>_BASE_URL``."""
    return re.sub(r"[^A-Za-z0-9]", "_", server_name).upper() + "_BASE_URL"


# ------------------------------------------------------------------ tool binding
@dataclass(frozen=True)
class ArgBinding:
    """Where one argument goes: ``location``, the wire ``name`` (None: the whole body), style."""

    location: Location
    name: str | None
    style: str
    explode: bool
    allow_reserved: bool = False


@dataclass(frozen=True)
class FixedParam:
    """A pinned value sent on every call (``http.fixed``)."""

    location: Literal["path", "query", "header", "cookie", "body"]
    name: str | None  # None: the whole body (in: body only)
    value: Any
    style: str
    explode: bool
    allow_reserved: bool = False

    def as_arg(self) -> ArgBinding:
        return ArgBinding(self.location, self.name, self.style, self.explode, self.allow_reserved)


@dataclass(frozen=True)
class BodyBinding:
    """``http.body``: the media type, whether it is required, multipart file fields."""

    content_type: str
    required: bool = False
    files: Mapping[str, str] = field(default_factory=dict)


def _param(data: Mapping[str, Any], where: str) -> tuple[str, str | None, str, bool, bool]:
    """(location, name, style, explode, allowReserved) of an argument or a fixed value."""
    location = data.get("in")
    places = ("path", "query", "header", "cookie", "body")
    if not isinstance(location, str) or location not in places:
        raise ValueError(f"{where}.in: one of {', '.join(places)} is required")
    name = _string(data, "name", where, required=location != "body")
    if location == "header" and name is not None and not _HEADER_NAME.match(name):
        raise ValueError(f"{where}.name: not a valid header name")
    allowed, default_style, default_explode = STYLES[location]
    style = data.get("style", default_style)
    if not isinstance(style, str) or style not in allowed:
        raise ValueError(f"{where}.style: one of {', '.join(sorted(allowed))} is required for in: {location}")
    explode = _bool(data, "explode", where, default_explode)
    allow_reserved = _bool(data, "allowReserved", where, False)
    if allow_reserved and location != "query":
        raise ValueError(f"{where}.allowReserved: only query parameters may allow reserved characters")
    return location, name, style, explode, allow_reserved


def _body(data: Any) -> BodyBinding:
    where = "http.body"
    data = _object(data, where)
    _only(data, where, {"contentType", "required", "files"})
    ctype = _string(data, "contentType", where) or ""
    if "/" not in ctype:
        raise ValueError(f"{where}.contentType: a media type (type/subtype) is required")
    files = _object(data.get("files", {}), f"{where}.files")
    parsed: dict[str, str] = {}
    for fname, spec in files.items():
        spec = _object(spec, f"{where}.files.{fname}")
        _only(spec, f"{where}.files.{fname}", {"contentType"})
        parsed[str(fname)] = _string(spec, "contentType", f"{where}.files.{fname}", required=False) \
            or "application/octet-stream"
    if parsed and ctype.split(";")[0].strip().lower() != "multipart/form-data":
        raise ValueError(f"{where}.files: only a multipart/form-data body has file fields")
    return BodyBinding(ctype, _bool(data, "required", where, False), parsed)


_BINDING_KEYS = frozenset({"method", "path", "operationId", "security", "accept", "args", "body", "fixed", "wrap",
                           "errors"})


@dataclass(frozen=True)
class HttpBinding:
    """One tool's ``http`` section: method, path template and where each argument goes.

    Attributes:
        method: the HTTP method (upper case).
        path: the path template, relative to the upstream's base URL (``/pet/{petId}``).
        args: inputSchema property name -> where it goes.
        body: the request body's media type (None: no body).
        fixed: values sent on every call.
        security: the tool's own alternatives (None: the upstream's ``defaultSecurity``).
        accept: the ``Accept`` header (None: none sent).
        wrap: the key the (non-object) success body is wrapped under in ``structuredContent``.
        errors: response status (``"404"``, ``"4XX"``, ``"default"``) -> declared error code.
        operation_id: provenance.
    """

    method: str
    path: str
    args: Mapping[str, ArgBinding] = field(default_factory=dict)
    body: BodyBinding | None = None
    fixed: tuple[FixedParam, ...] = ()
    security: tuple[tuple[str, ...], ...] | None = None
    accept: str | None = None
    wrap: str | None = None
    errors: Mapping[str, str] = field(default_factory=dict)
    operation_id: str | None = None

    @classmethod
    def from_spec(cls, data: Mapping[str, Any]) -> HttpBinding:
        """Parse a tool's ``http`` section as the spec writes it.

        Raises:
            ValueError: a key is missing, unknown or malformed (the message names it).
        """
        data = _object(data, "http")
        _only(data, "http", _BINDING_KEYS)
        method = data.get("method")
        if not isinstance(method, str) or method.upper() not in METHODS:
            raise ValueError(f"http.method: one of {', '.join(sorted(METHODS))} is required")
        path = _string(data, "path", "http") or ""
        if not path.startswith("/") or any(c in path for c in "?#") or any(ord(c) < 32 or ord(c) == 127 for c in path):
            raise ValueError("http.path: a path template starting with / (no query, fragment or control characters) "
                             "is required")
        args: dict[str, ArgBinding] = {}
        for prop, spec in _object(data.get("args", {}), "http.args").items():
            where = f"http.args.{prop}"
            spec = _object(spec, where)
            _only(spec, where, {"in", "name", "style", "explode", "allowReserved"})
            args[str(prop)] = ArgBinding(*_param(spec, where))  # type: ignore[arg-type]
        body = _body(data["body"]) if data.get("body") is not None else None
        if body is None and any(a.location == "body" for a in args.values()):
            raise ValueError("http.body: arguments go to the body (in: body) but the binding has no body")
        whole = [p for p, a in args.items() if a.location == "body" and a.name is None]
        if whole and (len(whole) > 1 or any(a.location == "body" and a.name is not None for a in args.values())):
            raise ValueError(f"http.args.{whole[0]}: a whole-body argument (in: body, no name) must be the only body argument")
        fixed_list = data.get("fixed", [])
        if not isinstance(fixed_list, list):
            raise ValueError("http.fixed: a list is required")
        fixed: list[FixedParam] = []
        for i, spec in enumerate(fixed_list):
            where = f"http.fixed[{i}]"
            spec = _object(spec, where)
            _only(spec, where, {"in", "name", "value", "style", "explode", "allowReserved"})
            if "value" not in spec:
                raise ValueError(f"{where}.value: a value is required")
            location, name, style, explode, reserved = _param(spec, where)
            if location == "body" and body is None:
                raise ValueError(f"{where}.in: a fixed body value needs http.body")
            fixed.append(FixedParam(location, name, spec["value"], style, explode, reserved))  # type: ignore[arg-type]
        bound = {a.name for a in args.values() if a.location == "path"} | {f.name for f in fixed if f.location == "path"}
        for var in _TEMPLATE_VAR.findall(path):
            if var not in bound:
                raise ValueError(f"http.path: no argument or fixed value (in: path) fills {{{var}}}")
        for var in sorted(v for v in bound if v is not None and "{" + v + "}" not in path):
            raise ValueError(f"http.args: the path parameter {var!r} is not in http.path")
        security = _requirements(data["security"], "http.security") if data.get("security") is not None else None
        errors: dict[str, str] = {}
        for key, code in _object(data.get("errors", {}), "http.errors").items():
            if not _ERROR_KEY.match(str(key)) or not isinstance(code, str) or not code:
                raise ValueError(f"http.errors.{key}: a status (404), a range (4XX) or default, mapped to an error code, "
                                 "is required")
            errors[str(key).upper() if str(key).lower() != "default" else "default"] = code
        wrap = _string(data, "wrap", "http", required=False)
        accept = _string(data, "accept", "http", required=False)
        operation_id = _string(data, "operationId", "http", required=False)
        return cls(method=method.upper(), path=path, args=args, body=body, fixed=tuple(fixed), security=security,
                   accept=accept, wrap=wrap, errors=errors, operation_id=operation_id)


__all__ = [
    "ApiKeyScheme", "ArgBinding", "BasicScheme", "BearerScheme", "BodyBinding", "FixedParam", "HttpBinding",
    "OAuth2Scheme", "SecurityScheme", "UpstreamDef", "default_env",
]
