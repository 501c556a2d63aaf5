"""Grants without a user: the OAuth client's ``OAuthSettings.grant`` choices, with ``private_key_jwt``.

Give one of these as ``OAuthSettings(grant=...)``; without one the flow is the authorization
code flow with a user.  They run where the code flow would (on a ``401``), after the same
discovery (protected resource and authorization server metadata, checked the same way):

* :class:`ClientCredentials` — the client credentials grant (OAuth 2.1 §4.2, the MCP
  ``oauth-client-credentials`` extension, SEP-1046): the client authenticates as itself with
  ``client_secret_basic``/``client_secret_post`` (``OAuthSettings.client_secret``) or a JWT
  assertion signed with its private key (``private_key_jwt``, RFC 7523 §2.2,
  ``OAuthSettings.private_key``).
* :class:`JwtBearer` — the JWT bearer grant (RFC 7523 §2.1) with an assertion issued to this
  workload by someone else (workload identity federation, SEP-1933: a Kubernetes service
  account token, a cloud identity token...), read from a string, a file, an environment
  variable or a callable each time a token is asked.
* :class:`EnterpriseManaged` — enterprise-managed authorization (SEP-990): the user's ID
  token from the enterprise identity provider is exchanged there (RFC 8693 token exchange)
  for an identity assertion authorization grant (ID-JAG, ``oauth-id-jag+jwt``) naming this
  authorization server and resource, which the client then presents to the authorization
  server in a JWT bearer grant, authenticating as itself.

A failed grant is not retried and no other grant is tried: the error is raised.
The ``private_key_jwt`` assertion is built by authlib (RFC 7523, signing by joserfc): ``iss``
and ``sub`` the client id, ``aud`` the authorization server's issuer identifier, a new
``jti``, five minutes of validity.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union

#: An assertion: the JWT itself, or a callable (sync or async) returning it when asked.
AssertionSource = Union[str, Callable[[], Union[str, Awaitable[str]]]]

JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ID_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id_token"
ID_JAG_TYPE = "urn:ietf:params:oauth:token-type:id-jag"
#: Seconds a ``private_key_jwt`` client assertion is valid.
ASSERTION_LIFETIME = 300


def assertion_from_file(path: str | os.PathLike[str]) -> Callable[[], str]:
    """An assertion read from ``path`` at every token request (tokens that rotate on disk)."""
    where = Path(path).expanduser()

    def read() -> str:
        return where.read_text(encoding="utf-8").strip()

    return read


def assertion_from_env(name: str) -> Callable[[], str]:
    """An assertion read from the environment variable ``name`` at every token request."""

    def read() -> str:
        value = os.environ.get(name, "").strip()
        if not value:
            raise LookupError(f"the environment variable {name} holds no assertion")
        return value

    return read


async def resolve(source: AssertionSource, what: str) -> str:
    """The assertion of ``source`` now (a callable is called, awaited if it must be)."""
    if isinstance(source, str):
        value: Any = source
    else:
        value = source()
        if inspect.isawaitable(value):
            value = await value
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"the {what} is empty")
    return value.strip()


@dataclass(frozen=True)
class ClientCredentials:
    """The client credentials grant: the client acts on its own behalf.

    The client id is ``OAuthSettings.client_id`` (required); it authenticates with
    ``OAuthSettings.client_secret`` or ``OAuthSettings.private_key``.
    """

    grant_type: str = field(default="client_credentials", init=False)


@dataclass(frozen=True)
class JwtBearer:
    """The JWT bearer grant with an externally issued assertion (workload identity).

    Args:
        assertion: the JWT, or where to get it (:func:`assertion_from_file`,
            :func:`assertion_from_env`, any callable); read again for every token request.
    """

    assertion: AssertionSource = field(repr=False)
    grant_type: str = field(default=JWT_BEARER, init=False)


@dataclass(frozen=True)
class EnterpriseManaged:
    """Enterprise-managed authorization: ID token -> ID-JAG (identity provider) -> access token.

    Args:
        id_token: the user's ID token from the identity provider (or where to get it).
        idp_token_endpoint: the identity provider's token endpoint (the token exchange).
        idp_client_id: this client's id at the identity provider.
        idp_client_secret: its secret there (``client_secret_basic``), if it has one.
        audience: the ``audience`` of the exchange; default: the authorization server's issuer.
    """

    id_token: AssertionSource = field(repr=False)
    idp_token_endpoint: str
    idp_client_id: str | None = None
    idp_client_secret: str | None = field(default=None, repr=False)
    audience: str | None = None
    grant_type: str = field(default=JWT_BEARER, init=False)


Grant = Union[ClientCredentials, JwtBearer, EnterpriseManaged]


# --------------------------------------------------------------------------- private_key_jwt
def load_private_key(pem: str | bytes) -> Any:
    """A joserfc key from a PEM private key (RSA, EC or Ed25519/Ed448)."""
    from cryptography.hazmat.primitives import serialization  # type: ignore[import-not-found, unused-ignore]
    from cryptography.hazmat.primitives.asymmetric import ec, ed448, ed25519, rsa  # type: ignore[import-not-found, unused-ignore]
    from joserfc.jwk import ECKey, OKPKey, RSAKey  # type: ignore[import-not-found, unused-ignore]

    data = pem.encode("ascii") if isinstance(pem, str) else pem
    try:
        loaded = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError):
        raise ValueError("OAuthSettings.private_key is not an unencrypted PEM private key") from None
    if isinstance(loaded, rsa.RSAPrivateKey):
        return RSAKey.import_key(data)
    if isinstance(loaded, ec.EllipticCurvePrivateKey):
        return ECKey.import_key(data)
    if isinstance(loaded, (ed25519.Ed25519PrivateKey, ed448.Ed448PrivateKey)):
        return OKPKey.import_key(data)
    raise ValueError("OAuthSettings.private_key must be an RSA, EC or EdDSA key")


def signing_alg(key: Any, wanted: str | None, supported: Any) -> str:
    """The assertion's ``alg``: ``wanted``, else one the server lists for the key type, else the key's default."""
    kty = key.key_type
    if kty == "EC":
        curve = key.curve_name
        options = {"P-256": ["ES256"], "P-384": ["ES384"], "P-521": ["ES512"], "secp256k1": ["ES256K"]}.get(curve, [])
    elif kty == "RSA":
        options = ["RS256", "PS256", "RS384", "PS384", "RS512", "PS512"]
    else:
        options = ["EdDSA", "Ed25519"]
    if wanted:
        if wanted not in options:
            raise ValueError(f"signing algorithm {wanted} does not fit a {kty} key")
        return wanted
    if isinstance(supported, list):
        for alg in options:
            if alg in supported:
                return alg
    if not options:
        raise ValueError(f"no signing algorithm for this {kty} key")
    return options[0]


class PrivateKeyJwtAuth:
    """The ``private_key_jwt`` client authentication, as an authlib client auth method.

    A new assertion (authlib's :func:`private_key_jwt_sign`) for every token request: ``aud``
    is the authorization server's issuer identifier (RFC 7523bis; what MCP servers check).
    """

    name = "private_key_jwt"

    def __init__(self, key: Any, alg: str, audience: str, key_id: str | None = None) -> None:
        self.key, self.alg, self.audience, self.key_id = key, alg, audience, key_id

    def __call__(self, auth: Any, method: str, uri: str, headers: Any, body: str) -> tuple[str, Any, str]:
        from authlib.common.urls import add_params_to_qs  # type: ignore[import-untyped, import-not-found, unused-ignore]
        from authlib.oauth2.rfc7523 import private_key_jwt_sign  # type: ignore[import-untyped, import-not-found, unused-ignore]

        header = {"kid": self.key_id} if self.key_id else None
        assertion = private_key_jwt_sign(self.key, client_id=auth.client_id, token_endpoint=self.audience,
                                         alg=self.alg, claims={}, header=header, expires_in=ASSERTION_LIFETIME)
        body = add_params_to_qs(body or "", [
            ("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"),
            ("client_assertion", assertion),
        ])
        return uri, headers, body

    def __repr__(self) -> str:
        return f"PrivateKeyJwtAuth(alg={self.alg!r})"


__all__ = [
    "AssertionSource", "ClientCredentials", "EnterpriseManaged", "Grant", "JwtBearer", "PrivateKeyJwtAuth",
    "assertion_from_env", "assertion_from_file", "load_private_key", "resolve", "signing_alg",
]  # fmt: skip
