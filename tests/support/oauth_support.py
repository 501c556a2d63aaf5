"""A protected MCP server with its own OAuth authorization server, for the OAuth client tests.

:class:`ProtectedDemo` is one ASGI app (serve it with ``http_support.serve_app``):

* the authorization server at the origin: RFC 8414 metadata
  (``/.well-known/oauth-authorization-server``, issuer = the origin, RFC 9207 ``iss``
  advertised and sent), ``/register`` (RFC 7591; secrets for ``client_secret_basic``),
  ``/authorize`` (approves at once: a redirect with ``code``, ``state`` and ``iss``),
  ``/token`` (``authorization_code`` with PKCE S256 checked, ``refresh_token``; access tokens
  live ``access_ttl`` seconds; scopes in ``never_grant`` are left out of every grant);
* protected resource metadata at ``/.well-known/oauth-protected-resource/mcp`` (its
  ``resource`` is the ``/mcp`` URL unless ``prm_resource`` says otherwise);
* ``/mcp``: :class:`~http_support.DemoHttpServer` behind a bearer check: 401 with
  ``resource_metadata`` without a live token; 403 ``insufficient_scope`` for a ``tools/call``
  of a tool in ``tool_scopes`` when the token lacks its scope.

Everything it issued is kept (:attr:`ProtectedDemo.secrets`) so tests can look for leaks;
:meth:`ProtectedDemo.revoke_access_tokens` makes the server refuse the current access tokens.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import time
from typing import Any
from urllib.parse import parse_qs, urlencode

from http_support import DemoHttpServer
from mcp_codegen_runtime.server.http import HttpApp


def _s256(verifier: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()


class ProtectedDemo:
    """See the module docstring."""

    def __init__(self, *, access_ttl: float = 3600, never_grant: set[str] | None = None,
                 tool_scopes: dict[str, str] | None = None, scopes_supported: list[str] | None = None,
                 prm_resource: str | None = None) -> None:
        self.prm_resource = prm_resource
        self.access_ttl = access_ttl
        self.never_grant = never_grant or set()
        self.tool_scopes = tool_scopes or {}
        self.scopes_supported = scopes_supported or ["mcp", "admin", "offline_access"]
        self.mcp = HttpApp(DemoHttpServer())
        self.base = ""  # set from the first request's Host
        self.clients: dict[str, dict[str, Any]] = {}
        self.codes: dict[str, dict[str, Any]] = {}
        self.access: dict[str, dict[str, Any]] = {}
        self.refresh: dict[str, dict[str, Any]] = {}
        #: (kind, details) of every authorization server request, in order.
        self.log: list[tuple[str, dict[str, Any]]] = []
        #: Every secret it handed out: client secrets, codes, access and refresh tokens.
        self.secrets: list[str] = []
        #: The authorization codes among them.
        self.issued_codes: list[str] = []

    # -- test controls ------------------------------------------------------------------------
    def revoke_access_tokens(self) -> None:
        self.access.clear()

    def count(self, kind: str, **match: Any) -> int:
        return sum(1 for k, d in self.log if k == kind and all(d.get(x) == v for x, v in match.items()))

    def _secret(self) -> str:
        value = secrets.token_urlsafe(24)
        self.secrets.append(value)
        return value

    # -- ASGI ---------------------------------------------------------------------------------
    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.mcp(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        self.base = self.base or f"http://{headers['host']}"
        path, method = scope["path"], scope["method"]
        if path == "/mcp":
            await self._protected(scope, receive, send, headers)
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        status, payload, extra = self._route(method, path, scope.get("query_string", b"").decode(), headers, body)
        data = json.dumps(payload).encode() if payload is not None else b""
        out = [(b"content-type", b"application/json"), *extra]
        await send({"type": "http.response.start", "status": status, "headers": out})
        await send({"type": "http.response.body", "body": data})

    def _route(self, method: str, path: str, query: str, headers: dict[str, str],
               body: bytes) -> tuple[int, Any, list[tuple[bytes, bytes]]]:
        if method == "GET" and path == "/.well-known/oauth-protected-resource/mcp":
            return 200, {"resource": self.prm_resource or self.base + "/mcp", "authorization_servers": [self.base],
                         "scopes_supported": ["mcp"]}, []
        if method == "GET" and path == "/.well-known/oauth-authorization-server":
            return 200, {
                "issuer": self.base, "authorization_endpoint": self.base + "/authorize",
                "token_endpoint": self.base + "/token", "registration_endpoint": self.base + "/register",
                "response_types_supported": ["code"], "code_challenge_methods_supported": ["S256"],
                "grant_types_supported": ["authorization_code", "refresh_token"],
                "token_endpoint_auth_methods_supported": ["client_secret_basic"],
                "authorization_response_iss_parameter_supported": True, "scopes_supported": self.scopes_supported,
            }, []
        if method == "POST" and path == "/register":
            data = json.loads(body)
            client_id = "client-" + secrets.token_hex(4)
            secret = self._secret()
            self.clients[client_id] = {"secret": secret, "redirect_uris": data.get("redirect_uris", [])}
            self.log.append(("register", {"client_id": client_id}))
            return 201, {"client_id": client_id, "client_secret": secret,
                         "token_endpoint_auth_method": "client_secret_basic",
                         "redirect_uris": data.get("redirect_uris", [])}, []
        if method == "GET" and path == "/authorize":
            q = {k: v[0] for k, v in parse_qs(query).items()}
            self.log.append(("authorize", {"scope": q.get("scope"), "resource": q.get("resource")}))
            client = self.clients.get(q.get("client_id", ""))
            if client is None or q.get("redirect_uri") not in client["redirect_uris"] or q.get("code_challenge_method") != "S256":
                return 400, {"error": "invalid_request"}, []
            granted = [s for s in (q.get("scope") or "").split() if s not in self.never_grant]
            code = self._secret()
            self.issued_codes.append(code)
            self.codes[code] = {"client_id": q["client_id"], "challenge": q["code_challenge"], "scope": " ".join(granted),
                                "resource": q.get("resource"), "redirect_uri": q["redirect_uri"]}
            target = q["redirect_uri"] + "?" + urlencode({"code": code, "state": q.get("state", ""), "iss": self.base})
            return 302, None, [(b"location", target.encode())]
        if method == "POST" and path == "/token":
            return self._token(headers, {k: v[0] for k, v in parse_qs(body.decode()).items()})
        return 404, {"error": "not_found"}, []

    def _token(self, headers: dict[str, str], form: dict[str, str]) -> tuple[int, Any, list[tuple[bytes, bytes]]]:
        grant = form.get("grant_type")
        self.log.append(("token", {"grant_type": grant, "resource": form.get("resource")}))
        auth = headers.get("authorization", "")
        client_id, _, secret = base64.b64decode(auth[6:]).decode().partition(":") if auth.startswith("Basic ") else ("", "", "")
        client = self.clients.get(client_id)
        if client is None or not secrets.compare_digest(client["secret"], secret):
            return 401, {"error": "invalid_client"}, []
        if grant == "authorization_code":
            code = self.codes.pop(form.get("code", ""), None)
            if code is None or code["client_id"] != client_id or _s256(form.get("code_verifier", "")) != code["challenge"]:
                return 400, {"error": "invalid_grant"}, []
            scope, resource = code["scope"], code["resource"]
        elif grant == "refresh_token":
            held = self.refresh.get(form.get("refresh_token", ""))
            if held is None or held["client_id"] != client_id:
                return 400, {"error": "invalid_grant"}, []
            scope, resource = held["scope"], held["resource"]
        else:
            return 400, {"error": "unsupported_grant_type"}, []
        access, refresh = self._secret(), self._secret()
        self.access[access] = {"scope": scope, "expires_at": time.time() + self.access_ttl, "resource": resource}
        self.refresh[refresh] = {"client_id": client_id, "scope": scope, "resource": resource}
        return 200, {"access_token": access, "token_type": "Bearer", "expires_in": self.access_ttl,
                     "refresh_token": refresh, "scope": scope}, [(b"cache-control", b"no-store")]

    async def _protected(self, scope: dict[str, Any], receive: Any, send: Any, headers: dict[str, str]) -> None:
        chunks: list[dict[str, Any]] = []
        body = b""
        while True:
            message = await receive()
            chunks.append(message)
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        prm = self.base + "/.well-known/oauth-protected-resource/mcp"
        auth = headers.get("authorization", "")
        token = self.access.get(auth[7:]) if auth.startswith("Bearer ") else None
        if token is None or token["expires_at"] < time.time() or token["resource"] != self.base + "/mcp":
            await _refuse(send, 401, f'Bearer resource_metadata="{prm}", scope="mcp"')
            return
        call = json.loads(body) if body and scope["method"] == "POST" else {}
        params = call.get("params") if isinstance(call, dict) else None
        if isinstance(params, dict) and call.get("method") == "tools/call":
            needed = self.tool_scopes.get(str(params.get("name")))
            if needed and needed not in token["scope"].split():
                await _refuse(send, 403, f'Bearer error="insufficient_scope", scope="{needed}", resource_metadata="{prm}"')
                return

        async def replay() -> dict[str, Any]:
            return chunks.pop(0) if chunks else await receive()

        await self.mcp(scope, replay, send)


async def _refuse(send: Any, status: int, challenge: str) -> None:
    body = json.dumps({"error": "invalid_token" if status == 401 else "insufficient_scope"}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"www-authenticate", challenge.encode())]})
    await send({"type": "http.response.body", "body": body})
