"""The HTTP client's own connection pool (``client/http/pool.py``) against a real socket peer.

The peer is a small asyncio HTTP/1.1 server in a subprocess (written here, stopped by its
PID).  Its answer to each request depends on the path, and every JSON answer says which
accepted connection carried it, so reuse is observed from the server's side:

* keep-alive: sequential requests share one connection; 2 concurrent requests use 2;
* ``Connection: close``, a close-delimited body and a peer that closes an idle connection
  never break the next request (it takes a new connection);
* cookies the server sets are sent back on later requests (path rules applied);
* chunked bodies are joined; an oversized response head, a peer that closes without an
  answer and an unreachable port fail with httpx's exception classes;
* ``max_connections``: a request beyond the limit waits, and fails with ``PoolTimeout`` when
  none frees up in time; a slow answer fails with ``ReadTimeout``;
* a response abandoned before its end closes its connection (the peer sees the close),
  and that connection is not reused;
* https checks the server's certificate with httpx's TLS context (``SSL_CERT_FILE`` honoured);
* the transport picks this pool by default, and httpx when the environment names a proxy.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from common_support import free_port, stop_pid, wait_port
from mcp_codegen_runtime.client.http.env import usable_for
from mcp_codegen_runtime.client.http.pool import PooledHttp
from mcp_codegen_runtime.client.http.transport import HttpTransport

PEER = r'''
import asyncio, json, sys

conns = 0
closed = []  # connection numbers whose client closed them


async def handle(reader, writer):
    global conns
    conns += 1
    me = conns
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            method, path, _ = lines[0].split(" ")
            headers = {l.split(":", 1)[0].strip().lower(): l.split(":", 1)[1].strip() for l in lines[1:] if ":" in l}
            body = await reader.readexactly(int(headers.get("content-length", "0")))
            answer = json.dumps({"conn": me, "method": method, "target": path, "body": body.decode(), "closed": closed,
                                 "ua": headers.get("user-agent"), "host": headers.get("host"),
                                 "cookie": headers.get("cookie")}).encode()
            if path == "/close":
                writer.write(b"HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: %d\r\n\r\n%s" % (len(answer), answer))
                await writer.drain(); writer.close(); return
            if path == "/eof-body":
                writer.write(b"HTTP/1.1 200 OK\r\nconnection: close\r\n\r\n" + answer)
                await writer.drain(); writer.close(); return
            if path == "/idle-close":
                writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n\r\n%s" % (len(answer), answer))
                await writer.drain(); await asyncio.sleep(0.2); writer.close(); return
            if path == "/chunked":
                writer.write(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n")
                for part in (answer[:5], answer[5:]):
                    writer.write(b"%x\r\n%s\r\n" % (len(part), part)); await writer.drain(); await asyncio.sleep(0.01)
                writer.write(b"0\r\n\r\n"); await writer.drain(); continue
            if path == "/stream":  # a chunked body that never ends
                writer.write(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n"); await writer.drain()
                await reader.read()  # until the client closes
                closed.append(me); return
            if path == "/bighead":
                writer.write(b"HTTP/1.1 200 OK\r\nx-big: " + b"a" * 100000 + b"\r\ncontent-length: 0\r\n\r\n")
                await writer.drain(); continue
            if path == "/cookie":
                writer.write(b"HTTP/1.1 200 OK\r\nset-cookie: affinity=abc; Path=/\r\nset-cookie: other=1; Path=/nope\r\n"
                             b"content-length: %d\r\n\r\n%s" % (len(answer), answer))
                await writer.drain(); continue
            if path == "/sse-open":  # a response on an SSE stream the server leaves open
                rid = json.loads(body)["id"]
                event = json.dumps({"jsonrpc": "2.0", "id": rid, "result": {"tools": []}}).encode()
                data = b"data: " + event + b"\n\n"
                writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
                             + b"%x\r\n%s\r\n" % (len(data), data))
                await writer.drain()
                await reader.read()
                closed.append(me); return
            if path == "/nothing":
                writer.close(); return
            path = path.split("?")[0]
            if path.startswith("/slow"):
                await asyncio.sleep(float(path.split("/")[2]))
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n%s"
                         % (len(answer), answer))
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        closed.append(me)
        writer.close()


async def main():
    tls = None
    if len(sys.argv) > 2:  # certificate and key: serve TLS
        import ssl
        tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        tls.load_cert_chain(sys.argv[2], sys.argv[3])
    server = await asyncio.start_server(handle, "127.0.0.1", int(sys.argv[1]), ssl=tls)
    async with server:
        await server.serve_forever()

asyncio.run(main())
'''


@pytest.fixture(scope="module")
def peer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    script = Path(tmp_path_factory.mktemp("peer")) / "peer.py"
    script.write_text(PEER, "utf-8")
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(script), str(port)])
    try:
        wait_port(port, proc=proc)
        yield f"http://127.0.0.1:{port}"
    finally:
        stop_pid(proc)


def _self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 (and its key), valid for a day."""
    import datetime
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


def test_https_verifies_the_certificate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """TLS with httpx's context: a certificate trusted through ``SSL_CERT_FILE`` is accepted
    (and the connection reused); without it the same server is refused."""
    cert, key = _self_signed(tmp_path)
    script = tmp_path / "peer.py"
    script.write_text(PEER, "utf-8")
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(script), str(port), str(cert), str(key)])

    async def main(trusted: bool) -> None:
        pool = PooledHttp(timeout=5, read_timeout=None, max_connections=10)
        try:
            if not trusted:
                with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
                    await get_json(pool, f"https://127.0.0.1:{port}/ok")
                return
            first, second = await get_json(pool, f"https://127.0.0.1:{port}/ok"), await get_json(pool, f"https://127.0.0.1:{port}/ok")
            assert first["conn"] == second["conn"] and first["host"] == f"127.0.0.1:{port}"
        finally:
            await pool.aclose()

    try:
        wait_port(port, proc=proc)
        monkeypatch.delenv("SSL_CERT_DIR", raising=False)
        monkeypatch.setenv("SSL_CERT_FILE", str(cert))
        run(main(trusted=True))
        monkeypatch.delenv("SSL_CERT_FILE")
        run(main(trusted=False))
    finally:
        stop_pid(proc)


def run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, 60))


async def get_json(pool: PooledHttp, url: str, body: bytes = b"{}") -> dict[str, Any]:
    async with pool.stream("POST", url, content=body, headers={"content-type": "application/json"}) as resp:
        assert resp.status_code == 200
        data = bytearray()
        async for chunk in resp.aiter_bytes():
            data += chunk
    return json.loads(bytes(data))  # type: ignore[no-any-return]


def test_keep_alive_reuses_one_connection_and_sends_the_request_whole(peer: str) -> None:
    async def main() -> None:
        pool = PooledHttp(timeout=5, read_timeout=None, max_connections=10)
        try:
            answers = [await get_json(pool, f"{peer}/ok", b'{"n":%d}' % i) for i in range(5)]
            assert len({a["conn"] for a in answers}) == 1
            assert [json.loads(a["body"])["n"] for a in answers] == list(range(5))
            assert answers[0]["host"] == peer.removeprefix("http://") and answers[0]["ua"] == "mcp-codegen"
            both = await asyncio.gather(get_json(pool, f"{peer}/slow/0.2"), get_json(pool, f"{peer}/slow/0.2"))
            assert len({a["conn"] for a in both}) == 2  # concurrent requests: two connections
            again = await asyncio.gather(get_json(pool, f"{peer}/ok"), get_json(pool, f"{peer}/ok"))
            assert {a["conn"] for a in again} <= {a["conn"] for a in [*answers, *both]}  # both kept idle, reused
            assert (await get_json(pool, f"{peer}/ok?a=1&b=%20"))["target"] == "/ok?a=1&b=%20"
            resp = await pool.post(f"{peer}/ok", content=b"x")
            assert json.loads(resp.content)["body"] == "x"
            assert (await pool.delete(f"{peer}/ok")).status_code == 200
        finally:
            await pool.aclose()

    run(main())


@pytest.mark.parametrize("path", ["/close", "/eof-body", "/idle-close"])
def test_a_connection_the_server_ends_is_not_reused(peer: str, path: str) -> None:
    async def main() -> None:
        pool = PooledHttp(timeout=5, read_timeout=None, max_connections=10)
        try:
            first = await get_json(pool, f"{peer}{path}")
            await asyncio.sleep(0.5)  # /idle-close: the peer closed the idle connection meanwhile
            second = await get_json(pool, f"{peer}/ok")
            assert second["conn"] != first["conn"]
            assert pool._open == 1  # the closed one was let go
        finally:
            await pool.aclose()

    run(main())


def test_cookies_set_by_the_server_are_sent_back(peer: str) -> None:
    async def main() -> None:
        pool = PooledHttp(timeout=5, read_timeout=None, max_connections=10)
        try:
            assert (await get_json(pool, f"{peer}/ok"))["cookie"] is None
            assert (await get_json(pool, f"{peer}/cookie"))["cookie"] is None
            assert (await get_json(pool, f"{peer}/ok"))["cookie"] == "affinity=abc"  # not the one for /nope
        finally:
            await pool.aclose()

    run(main())


def test_chunked_body(peer: str) -> None:
    async def main() -> None:
        pool = PooledHttp(timeout=5, read_timeout=None, max_connections=10)
        try:
            first = await get_json(pool, f"{peer}/chunked")
            assert first["method"] == "POST"
            assert (await get_json(pool, f"{peer}/ok"))["conn"] == first["conn"]  # read to its end: reused
        finally:
            await pool.aclose()

    run(main())


def test_protocol_and_network_errors_are_httpx_errors(peer: str) -> None:
    async def main() -> None:
        pool = PooledHttp(timeout=5, read_timeout=0.3, max_connections=10)
        try:
            with pytest.raises(httpx.RemoteProtocolError):
                await get_json(pool, f"{peer}/bighead")  # h11's limit on the size of a response head
            with pytest.raises(httpx.RemoteProtocolError):
                await get_json(pool, f"{peer}/nothing")
            with pytest.raises(httpx.ReadTimeout):
                await get_json(pool, f"{peer}/slow/2")
            with pytest.raises(httpx.ConnectError):
                await get_json(pool, f"http://127.0.0.1:{free_port()}/ok")
            with pytest.raises(httpx.LocalProtocolError):
                await pool.post(f"{peer}/ok", headers={"x-bad": "a\r\nx-injected: 1"})
            assert pool._open == 0  # every failed exchange let its connection go
            assert (await get_json(pool, f"{peer}/ok"))["method"] == "POST"
        finally:
            await pool.aclose()

    run(main())


def test_pool_limit_waits_then_times_out(peer: str) -> None:
    async def main() -> None:
        pool = PooledHttp(timeout=5, read_timeout=None, max_connections=2)
        try:
            answers = await asyncio.gather(*(get_json(pool, f"{peer}/slow/0.3") for _ in range(4)))
            assert len({a["conn"] for a in answers}) == 2  # the last two waited for the first two
            short = PooledHttp(timeout=0.2, read_timeout=None, max_connections=1)
            try:
                slow = asyncio.ensure_future(get_json(short, f"{peer}/slow/1"))
                await asyncio.sleep(0.1)
                with pytest.raises(httpx.PoolTimeout):
                    await get_json(short, f"{peer}/ok")
                await slow
            finally:
                await short.aclose()
        finally:
            await pool.aclose()

    run(main())


def test_an_abandoned_response_closes_its_connection(peer: str) -> None:
    async def main() -> None:
        pool = PooledHttp(timeout=5, read_timeout=None, max_connections=10)
        try:
            async with pool.stream("POST", f"{peer}/stream", content=b"{}") as resp:
                async for chunk in resp.aiter_bytes():
                    assert chunk == b"hello"
                    break
            await asyncio.sleep(0.3)
            after = await get_json(pool, f"{peer}/ok")
            assert after["closed"], "the peer did not see the abandoned stream's connection close"
            assert after["conn"] not in after["closed"]
        finally:
            await pool.aclose()

    run(main())


def test_a_stream_left_open_after_its_response(peer: str) -> None:
    """The response is delivered at once; the client reads on for ``SSE_DRAIN_SECONDS`` (the
    server SHOULD end the stream), then closes that connection instead of reusing it."""
    from mcp_codegen_runtime.client.http.transport import SSE_DRAIN_SECONDS

    async def main() -> None:
        transport = HttpTransport(f"{peer}/sse-open")
        got: list[Any] = []
        arrived = asyncio.Event()

        class Sink:
            async def deliver(self, message: Any) -> None:
                got.append((message, transport._http._open))  # the stream still open: not held back
                arrived.set()

            def closed(self, error: Any) -> None: ...

        await transport.start(Sink())
        try:
            await transport.send({"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {}})
            await asyncio.wait_for(arrived.wait(), 10)
            assert got == [({"jsonrpc": "2.0", "id": 7, "result": {"tools": []}}, 1)]
            await asyncio.sleep(SSE_DRAIN_SECONDS + 0.5)
            assert transport._http._open == 0  # given up on, closed
        finally:
            await transport.aclose()

    run(main())


def test_the_transport_uses_the_pool_unless_a_proxy_is_configured(peer: str, monkeypatch: pytest.MonkeyPatch) -> None:
    async def kind() -> str:
        transport = HttpTransport(f"{peer}/mcp")

        class Sink:
            async def deliver(self, message: Any) -> None: ...
            def closed(self, error: Any) -> None: ...

        await transport.start(Sink())
        try:
            return type(transport._http).__name__
        finally:
            await transport.aclose()

    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    assert usable_for(f"{peer}/mcp") and run(kind()) == "PooledHttp"
    assert not usable_for(f"http://user:secret@{peer.removeprefix('http://')}/mcp")  # httpx: basic auth
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    assert not usable_for(f"{peer}/mcp") and run(kind()) == "AsyncClient"


@pytest.mark.parametrize("server", ["generated", "sdk"])
@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_sequential_calls_reuse_their_connections(server: str, era: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Legacy answers come as SSE streams: the client reads each to its end (the server closes
    it after the response), so the connection is reused, as for 2026's JSON answers.  The
    response is delivered before the stream's last bytes are read, so the next call may find
    that connection still busy and open a second one; after that both are reused."""
    from http_support import ROOT, ServerProcess
    from mcp_codegen_runtime.client import ClientBase

    connects: list[Any] = []
    original = PooledHttp._connect

    async def counting(self: PooledHttp, origin: Any) -> Any:
        connects.append(origin.key)
        return await original(self, origin)

    monkeypatch.setattr(PooledHttp, "_connect", counting)
    if server == "generated":
        proc = ServerProcess.weather()
    else:
        port = free_port()
        proc = ServerProcess([str(ROOT / "tests" / "support" / "sdk_weather_http_server.py"), "--port", str(port)], port=port)

    async def main() -> None:
        async with ClientBase.http(proc.url, era=era, audit=None) as client:
            for _ in range(30):
                out = await client.call_raw("get_weather", {"location": "Paris", "unit": "celsius"})
                assert not out.isError

    try:
        run(main())
    finally:
        proc.stop()
    assert len(connects) <= 2, connects  # one per call before legacy streams were read to their end
