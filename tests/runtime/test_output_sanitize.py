"""Tool outputs are sanitized (the tools specification says a server MUST): terminal escape
sequences and control characters from a handler never reach the client, unless the tool
says ``raw_output: true``; the client's display helpers strip them from any server."""

from __future__ import annotations

import asyncio
import importlib
from pathlib import Path
from typing import Any

import pytest
from mcp_codegen_runtime.wire.sanitize import strip_controls
from pull_support import imported

from codegen import build

HOSTILE = "ok \x1b[31mred\x1b[0m \x1b]0;retitled\x07 \x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\ bell\x07 nul\x00 c1\x9b2J\n\tend"
CLEAN = "ok red  link bell nul c1\n\tend"


@pytest.mark.parametrize(("raw", "clean"), [
    (HOSTILE, CLEAN),
    ("plain text, tabs\tand\nnewlines\r\n", "plain text, tabs\tand\nnewlines\r\n"),
    ("\x1bc reset and \x1b(0 charset", " reset and  charset"),
    ("unterminated \x1b]0;title", "unterminated "),
    ("8-bit CSI \x9b31m and DCS \x90q\x9c done", "8-bit CSI  and DCS  done"),
    ("héllo ✓ 𝄞", "héllo ✓ 𝄞"),
])
def test_strip_controls(raw: str, clean: str) -> None:
    assert strip_controls(raw) == clean


SPEC = """mcp-codegen: 1
server: {name: noisy, version: "1.0"}
tools:
  - name: shout
    inputSchema: {type: object}
    errors: {loud: {description: A declared error.}}
  - name: fail
    inputSchema: {type: object}
    errors: {loud: {description: A declared error.}}
  - name: raw
    raw_output: true
    inputSchema: {type: object}
"""


def test_server_strips_text_and_errors_and_client_display_strips_too(tmp_path: Path) -> None:
    (tmp_path / "spec.yaml").write_text(SPEC, "utf-8")
    result, written = build([tmp_path / "spec.yaml"], tmp_path / "out")
    assert written is not None, [d.render() for d in result.diagnostics]
    with imported(tmp_path / "out", "noisy") as mods:
        server_mod = importlib.import_module("noisy.server")
        errors = importlib.import_module("noisy.errors")

        class Impl(server_mod.NoisyServerBase):  # type: ignore[misc]
            def shout(self, args: Any, ctx: Any) -> str:
                return HOSTILE

            def fail(self, args: Any, ctx: Any) -> str:
                raise errors.LoudError(HOSTILE)

            def raw(self, args: Any, ctx: Any) -> str:
                return HOSTILE

        async def main() -> None:
            async with mods["client"].NoisyClient.in_process(Impl()) as c:
                shouted = await c.call_raw("shout", {})
                assert shouted.content[0].text == CLEAN  # on the wire
                failed = await c.call_raw("fail", {})
                assert failed.isError and failed.content[0].text == CLEAN
                with pytest.raises(errors.LoudError) as err:
                    await c.fail()
                assert str(err.value) == CLEAN
                kept = await c.call_raw("raw", {})  # raw_output: the server sends it as written
                assert kept.content[0].text == HOSTILE
                assert kept.text() == CLEAN and kept.text(raw=True) == HOSTILE  # the client's display helper

        asyncio.run(main())


def test_lone_surrogates_in_output_become_replacement_characters() -> None:
    """A handler's text with a lone surrogate cannot be UTF-8: it is sent with U+FFFD in its
    place (stdio/HTTP JSON through jsonrpc.encode, SSE through encode_event), pairs stay."""
    from mcp_codegen_runtime.wire import jsonrpc, sse

    assert jsonrpc.encode({"t": "a\ud800b\ud83d\ude00"}) == '{"t":"a\ufffdb\U0001F600"}\n'.encode()
    assert sse.encode_event("x\udc00") == "data: x\ufffd\n\n".encode()
