"""A REST API for the upstream-bound tool tests (tests/runtime/test_upstream_*.py), served by
uvicorn in a subprocess (:func:`upstream_support.start_app`).

``/echo/...`` (any method) answers exactly what it received: method, raw path, raw query
string, headers (in order, lower-case names), cookies, body bytes (base64) and the form or
multipart parts.  Other endpoints answer each kind of result: JSON object and array, XML,
text, a PNG image, WAV audio, an octet-stream, 204, 404 problem+json, 500, 503 then 200, 429
then 200, a slow answer, a redirect to another host, credential checks and an OAuth 2 token
endpoint (client credentials; ``client_id`` ``short-lived`` gets 2-second tokens).
``/_stats`` tells how often each endpoint was hit (the retries, the token requests).

Expected credentials come from the environment: ``APP_API_KEY``, ``APP_BEARER``,
``APP_BASIC`` (``user:password``), ``APP_CLIENT_SECRET``.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import itertools
import os
from collections import Counter
from typing import Any

from fastapi import FastAPI, Request, Response
from fastapi.responses import JSONResponse, PlainTextResponse
from starlette.datastructures import UploadFile

app = FastAPI()
HITS: Counter[str] = Counter()
_tokens = itertools.count(1)
ISSUED: set[str] = set()
#: A 1x1 transparent PNG.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")
WAV = b"RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\x40\x1f\x00\x00\x80\x3e\x00\x00\x02\x00\x10\x00"


def _hit(name: str) -> int:
    HITS[name] += 1
    return HITS[name]


async def _echo(request: Request) -> dict[str, Any]:
    body = await request.body()
    parts: list[dict[str, Any]] = []
    ctype = request.headers.get("content-type", "")
    if ctype.startswith(("multipart/form-data", "application/x-www-form-urlencoded")):
        form = await request.form()
        for name, value in form.multi_items():
            if isinstance(value, UploadFile):
                data = await value.read()
                parts.append({"name": name, "filename": value.filename, "content_type": value.content_type,
                              "data": base64.b64encode(data).decode()})
            else:
                parts.append({"name": name, "value": value})
    return {
        "method": request.method,
        "raw_path": request.scope["raw_path"].decode("latin-1"),
        "query": request.scope["query_string"].decode("latin-1"),
        "headers": [[k.decode("latin-1"), v.decode("latin-1")] for k, v in request.scope["headers"]],
        "cookies": dict(request.cookies),
        "body": base64.b64encode(body).decode(),
        "parts": parts,
    }


@app.api_route("/echo/{rest:path}", methods=["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])
async def echo(request: Request) -> JSONResponse:
    _hit("echo")
    return JSONResponse(await _echo(request))


@app.get("/json/object")
async def json_object() -> JSONResponse:
    return JSONResponse({"id": 7, "name": "Rex", "tags": ["good"]})


@app.get("/json/array")
async def json_array() -> JSONResponse:
    return JSONResponse([1, 2, 3])


@app.get("/json/wrong")
async def json_wrong() -> JSONResponse:
    return JSONResponse({"id": "seven", "name": "sk-wrong-typed-secret-value"})


@app.get("/json/vendor")
async def json_vendor() -> Response:
    return Response(b'{"id": 8, "name": "Vendor"}', media_type="application/vnd.pets+json")


@app.get("/xml")
async def xml() -> Response:
    return Response(b"<pet><id>7</id></pet>", media_type="application/xml")


@app.get("/text")
async def text() -> PlainTextResponse:
    return PlainTextResponse("caf\u00e9 is open")


@app.get("/image.png")
async def image() -> Response:
    return Response(PNG, media_type="image/png")


@app.get("/audio")
async def audio() -> Response:
    return Response(WAV, media_type="audio/wav")


@app.get("/octet")
async def octet() -> Response:
    return Response(b"\x00\x01\x02\xff", media_type="application/octet-stream")


@app.delete("/empty")
async def empty() -> Response:
    return Response(status_code=204)


@app.get("/missing")
async def missing() -> Response:
    body = b'{"type": "about:blank", "title": "Not Found", "status": 404, "detail": "no pet 9"}'
    return Response(body, status_code=404, media_type="application/problem+json")


@app.get("/boom")
async def boom() -> PlainTextResponse:
    return PlainTextResponse("internal trouble", status_code=500)


@app.get("/teapot")
async def teapot() -> PlainTextResponse:
    return PlainTextResponse("short and stout", status_code=418)


@app.api_route("/flaky/{key}", methods=["GET", "POST"])
async def flaky(key: str) -> JSONResponse:
    n = _hit(f"flaky/{key}")
    if n == 1:
        return JSONResponse({"error": "busy"}, status_code=503)
    return JSONResponse({"attempts": n})


@app.get("/limited/{key}")
async def limited(key: str) -> JSONResponse:
    n = _hit(f"limited/{key}")
    if n == 1:
        return JSONResponse({"error": "slow down"}, status_code=429, headers={"Retry-After": "1"})
    return JSONResponse({"attempts": n})


@app.get("/limited-long/{key}")
async def limited_long(key: str) -> JSONResponse:
    _hit(f"limited-long/{key}")
    return JSONResponse({"error": "slow down"}, status_code=429, headers={"Retry-After": "120"})


@app.get("/slow")
async def slow() -> JSONResponse:
    _hit("slow")
    await asyncio.sleep(3)
    return JSONResponse({"slow": True})


@app.get("/redirect")
async def redirect(request: Request) -> Response:
    _hit("redirect")
    target = request.query_params.get("to", "")
    return Response(status_code=302, headers={"Location": target})


@app.get("/secure/bearer")
async def secure_bearer(request: Request) -> JSONResponse:
    if request.headers.get("authorization") != f"Bearer {os.environ['APP_BEARER']}":
        return JSONResponse({"error": "unauthorized"}, status_code=401)
    return JSONResponse({"ok": "bearer"})


@app.get("/secure/basic")
async def secure_basic(request: Request) -> JSONResponse:
    expected = base64.b64encode(os.environ["APP_BASIC"].encode()).decode()
    if request.headers.get("authorization") != f"Basic {expected}":
        return JSONResponse({"error": "unauthorized"}, status_code=401)
    return JSONResponse({"ok": "basic"})


@app.get("/secure/apikey")
async def secure_apikey(request: Request) -> JSONResponse:
    key = os.environ["APP_API_KEY"]
    if key not in (request.headers.get("x-api-key"), request.query_params.get("api_key"),
                   request.cookies.get("session_key")):
        return JSONResponse({"error": "unauthorized"}, status_code=401)
    return JSONResponse({"ok": "apikey"})


@app.post("/oauth/token")
async def token(request: Request) -> JSONResponse:
    _hit("token")
    form = await request.form()
    try:
        scheme, _, encoded = request.headers.get("authorization", "").partition(" ")
        client_id, _, secret = base64.b64decode(encoded).decode().partition(":")
    except (binascii.Error, UnicodeDecodeError):
        scheme, client_id, secret = "", "", ""
    if scheme != "Basic" or secret != os.environ["APP_CLIENT_SECRET"]:
        return JSONResponse({"error": "invalid_client"}, status_code=401)
    if form.get("grant_type") != "client_credentials":
        return JSONResponse({"error": "unsupported_grant_type"}, status_code=400)
    HITS[f"token-scope:{form.get('scope')}"] += 1
    access = f"at-{next(_tokens)}-{client_id}"
    ISSUED.add(access)
    lifetime = 2 if client_id == "short-lived" else 3600
    return JSONResponse({"access_token": access, "token_type": "Bearer", "expires_in": lifetime})


@app.get("/oauth/protected")
async def protected(request: Request) -> JSONResponse:
    _hit("protected")
    scheme, _, access = request.headers.get("authorization", "").partition(" ")
    if scheme != "Bearer" or access not in ISSUED:
        return JSONResponse({"error": "invalid_token"}, status_code=401)
    return JSONResponse({"token": access})


@app.post("/oauth/revoke-all")
async def revoke_all() -> JSONResponse:
    ISSUED.clear()
    return JSONResponse({"revoked": True})


@app.get("/_stats")
async def stats() -> JSONResponse:
    return JSONResponse(dict(HITS))
