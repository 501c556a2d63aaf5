"""A real authorization server on loopback and an OAuth-protected generated server, for the
OAuth resource-server tests (tests/runtime/test_oauth_server.py).

* :func:`auth_server`: ``oauth2-mock-server`` (npm; installed on first use by
  ``scripts/npm-oauth``, run on Node 22 from ``scripts/node22``) driven by
  ``tests/support/oauth_as.mjs``, stopped by its PID.  Fails the test when npm is missing,
  unless ``MCP_CODEGEN_SKIP_NPM_TESTS=1``.
* :func:`build_vault`: the ``vault`` test spec (``server.auth`` and tool ``scopes``) built into
  a folder with its implementation module.
* :func:`forged`, :func:`unsigned`: tokens signed with a key the server never published, or
  with ``alg: none``.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from common_support import free_port, stop_pid, wait_port

ROOT = Path(__file__).resolve().parents[2]
SKIP_NPM_ENV = "MCP_CODEGEN_SKIP_NPM_TESTS"


def _script(name: str) -> str:
    proc = subprocess.run([str(ROOT / "scripts" / name)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"scripts/{name} failed:\n{proc.stderr}"
    return proc.stdout.strip().splitlines()[-1]


@dataclass
class AuthServer:
    """The running authorization server: its issuer URL and helpers to get tokens."""

    issuer: str
    kid: str
    proc: subprocess.Popen[str]

    def token(self, *, scope: str | None = None, resource: str | None = None, sub: str | None = None,
              client: tuple[str, str] = ("app-client", "app-secret"), claims: dict[str, Any] | None = None,
              dpop: str | None = None) -> str:
        """An access token from the real token endpoint (client credentials grant); with a
        ``dpop`` proof of the token request, bound to its key (``cnf.jkt``)."""
        form = {"grant_type": "client_credentials"}
        if scope is not None:
            form["scope"] = scope
        if resource is not None:
            form["resource"] = resource
        if sub is not None:
            form["sub"] = sub
        if claims:
            form["x_claims"] = json.dumps(claims)
        res = httpx.post(f"{self.issuer}/token", data=form, auth=client, timeout=10,
                         headers={"dpop": dpop} if dpop else None)
        assert res.status_code == 200, res.text
        assert res.json()["token_type"] == ("DPoP" if dpop else "Bearer")
        return str(res.json()["access_token"])

    def advertise_dpop(self, on: bool) -> None:
        """List ES256 in the metadata's ``dpop_signing_alg_values_supported`` (or stop)."""
        assert httpx.post(f"{self.issuer}/test/dpop", json={"advertise": on}, timeout=10).status_code == 200

    def rotate(self, kid: str) -> None:
        """Add a new signing key named ``kid`` (published in the JWKS from now on)."""
        assert httpx.post(f"{self.issuer}/test/rotate", json={"kid": kid}, timeout=10).status_code == 200

    def signed_with(self, kid: str, claims: dict[str, Any]) -> str:
        """A token signed by the key ``kid`` with these claims (on top of iss/iat/exp/nbf)."""
        res = httpx.post(f"{self.issuer}/test/token", json={"kid": kid, "claims": claims}, timeout=10)
        assert res.status_code == 200, res.text
        return str(res.json()["access_token"])

    def revoke(self, token: str) -> None:
        assert httpx.post(f"{self.issuer}/test/revoke", json={"token": token}, timeout=10).status_code == 200

    def lifetime(self, seconds: int | None = None, *, advertise: bool = True) -> None:
        """Access tokens of the code and refresh grants expire ``seconds`` after issue from now
        on (``expires_in`` left out unless ``advertise``); None: the library's hour again."""
        body: dict[str, Any] = {} if seconds is None else {"seconds": seconds, "advertise": advertise}
        assert httpx.post(f"{self.issuer}/test/lifetime", json=body, timeout=10).status_code == 200

    def requests(self) -> list[dict[str, Any]]:
        """The /authorize and /token requests so far (no secrets), oldest first."""
        res = httpx.get(f"{self.issuer}/test/requests", timeout=10)
        assert res.status_code == 200, res.text
        return list(res.json())


@contextmanager
def auth_server() -> Iterator[AuthServer]:
    """Start the authorization server on 127.0.0.1 (module docstring); stopped by PID."""
    if shutil.which("npm") is None:
        if os.environ.get(SKIP_NPM_ENV) == "1":
            pytest.skip("npm not on PATH")
        pytest.fail(f"npm is needed for the OAuth tests (or set {SKIP_NPM_ENV}=1)")
    modules = Path(_script("npm-oauth")) / "node_modules"
    node = Path(_script("node22")) / "node"
    port = free_port()
    proc = subprocess.Popen([str(node), str(ROOT / "tests" / "support" / "oauth_as.mjs"), str(modules), str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the authorization server did not start: {proc.stderr.read() if proc.stderr else ''}")
        info = json.loads(line)
        wait_port(port, proc=proc)
        yield AuthServer(info["issuer"], info["kid"], proc)
    finally:
        stop_pid(proc, 5)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


VAULT_SPEC = """\
mcp-codegen: 1
server:
  name: vault
  version: "1.0.0"
  implementation: vault_impl:VaultService
  auth:
    authorizationServers: [{issuer}]
    resource: {resource}
    scopes: [vault:read]
    resourceName: Test vault
tools:
  - name: whoami
    description: The caller as the handler sees it.
    inputSchema: {{type: object}}
    outputSchema:
      type: object
      properties:
        subject: {{type: string}}
        client_id: {{type: [string, "null"]}}
        scopes: {{type: array, items: {{type: string}}}}
      required: [subject, scopes]
  - name: write_secret
    description: Store a secret.
    scopes: [vault:write]
    inputSchema:
      type: object
      properties:
        name: {{type: string}}
      required: [name]
"""

VAULT_IMPL = '''\
from vault import Context, Principal, TextContent, ToolResult, VaultServerBase
from vault.models import WhoamiInput, WhoamiOutput, WriteSecretInput


class VaultService(VaultServerBase):
    async def whoami(self, args: WhoamiInput, ctx: Context) -> WhoamiOutput:
        p = ctx.principal
        assert isinstance(p, Principal)
        return WhoamiOutput(subject=p.subject, client_id=p.client_id, scopes=sorted(p.scopes))

    async def write_secret(self, args: WriteSecretInput, ctx: Context) -> ToolResult:
        return ToolResult(content=[TextContent(text=f"stored {args.name} for {ctx.principal.subject}")])
'''


def build_vault(out: Path, issuer: str, resource: str) -> Path:
    """Generate the vault package into ``out`` (with its implementation module); returns ``out``."""
    spec = out / "vault.yaml"
    out.mkdir(parents=True, exist_ok=True)
    spec.write_text(VAULT_SPEC.format(issuer=json.dumps(issuer), resource=json.dumps(resource)), "utf-8")
    proc = subprocess.run([sys.executable, "-m", "codegen", "build", str(spec), "-o", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (out / "vault_impl.py").write_text(textwrap.dedent(VAULT_IMPL), "utf-8")
    return out


class VaultProcess:
    """``python -m vault --http`` (or another ``package``) on 127.0.0.1 (stderr kept for the
    leak checks); stop by PID."""

    def __init__(self, folder: Path, port: int, *flags: str, env: dict[str, str] | None = None,
                 package: str = "vault") -> None:
        full_env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(folder), str(ROOT)]), **(env or {})}
        self.url = f"http://127.0.0.1:{port}/mcp"
        self.port = port
        self.proc = subprocess.Popen([sys.executable, "-m", package, "--http", "--port", str(port), "--log-level", "DEBUG",
                                      *flags], cwd=folder, env=full_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True)
        try:
            wait_port(port, proc=self.proc, detail=lambda: self.proc.stderr.read() if self.proc.stderr else "")
        except Exception:
            self.stop()
            raise

    def stop(self) -> str:
        """Stop the server; its whole stderr."""
        stop_pid(self.proc, 5)
        out, err = self.proc.communicate()
        return (out or "") + (err or "")


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def forged(claims: dict[str, Any], kid: str) -> str:
    """``claims`` signed (RS256) with a fresh key the authorization server never published, under ``kid``."""
    import jwt
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return str(jwt.encode(claims, key, algorithm="RS256", headers={"kid": kid}))


def unsigned(claims: dict[str, Any], kid: str) -> str:
    """``claims`` with ``alg: none`` and no signature."""
    header = _b64(json.dumps({"alg": "none", "typ": "JWT", "kid": kid}).encode())
    return f"{header}.{_b64(json.dumps(claims).encode())}."


def hmac_signed(claims: dict[str, Any], secret: bytes, kid: str) -> str:
    """``claims`` as an HS256 JWT keyed with ``secret`` (the algorithm-confusion attack, when
    ``secret`` is the server's public key)."""
    import hashlib
    import hmac

    signing_input = _b64(json.dumps({"alg": "HS256", "typ": "JWT", "kid": kid}).encode()) + "." + _b64(json.dumps(claims).encode())
    mac = hmac.new(secret, signing_input.encode(), hashlib.sha256).digest()
    return f"{signing_input}.{_b64(mac)}"


def public_pem(jwk: dict[str, Any]) -> bytes:
    """The PEM text of a public JWK."""
    import jwt
    from cryptography.hazmat.primitives import serialization

    key = jwt.PyJWK(jwk).key
    return bytes(key.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))


def claims_of(token: str) -> dict[str, Any]:
    """The (unverified) payload of a JWT."""
    body = token.split(".")[1]
    return dict(json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))))
