"""The conformance fixture server (specs/everything.yaml + everything_impl.py), in process.

A fast check, in both protocol eras, that every fixture tool answers the way the
official conformance scenarios expect (scripts/conformance runs the real suite over
HTTP; see docs/conformance.md).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from everything import (
    ElicitationRequest,
    ElicitationResponse,
    Root,
    SamplingRequest,
    SamplingResponse,
)
from everything.client import EverythingClient
from everything_impl import EverythingService

ROOT = Path(__file__).resolve().parents[2]

#: Tool names the conformance scenarios call (tests/conformance/scope.yml); all must be listed.
with (ROOT / "tests" / "conformance" / "scope.yml").open(encoding="utf-8") as _f:
    FIXTURE_TOOLS = set(yaml.safe_load(_f)["fixture_tools"])

asked: list[str] = []


def _elicit(req: ElicitationRequest) -> ElicitationResponse:
    asked.append("elicitation")
    props = (req.requestedSchema or {}).get("properties", {})
    content: dict[str, Any] = {}
    for name, schema in props.items():
        kind = schema.get("type")
        content[name] = {"boolean": True, "integer": 1, "number": 1.5, "array": []}.get(kind, "x")
        if "default" in schema:
            content[name] = schema["default"]
        elif "enum" in schema:
            content[name] = schema["enum"][0]
        elif "oneOf" in schema:
            content[name] = schema["oneOf"][0]["const"]
    return ElicitationResponse(action="accept", content=content)


def _sample(req: SamplingRequest) -> SamplingResponse:
    asked.append("sampling")
    return SamplingResponse(content={"type": "text", "text": "Paris"}, model="test-model")


def _roots() -> list[Root]:
    asked.append("roots")
    return [Root(uri="file:///test/root", name="Test Root")]


def _client(era: str, **handlers: Any) -> EverythingClient:
    options: dict[str, Any] = {"elicitation": _elicit, "sampling": _sample, "roots": _roots, "audit": None}
    options.update(handlers)
    return EverythingClient.in_process(EverythingService(), era=era, confirm=lambda info: True, **options)


@pytest.fixture(autouse=True)
def _reset() -> None:
    asked.clear()


async def _test_fixture_tools_listed_first_tool_simple(era: str) -> None:
    async with _client(era) as client:
        tools = await client.list_tools()
    names = [t.name for t in tools]
    assert FIXTURE_TOOLS <= set(names)
    assert names[0] == "test_simple_text"  # http-header-validation calls the first tool bare
    schema = next(t for t in tools if t.name == "json_schema_2020_12_tool").input_schema
    for key in ("$schema", "$defs", "allOf", "if", "then", "else"):
        assert key in schema
    assert schema["additionalProperties"] is False and "$anchor" in schema["$defs"]["address"]


async def _test_content_tools(era: str) -> None:
    async with _client(era) as client:
        text = await client.call_raw("test_simple_text")
        assert text.content[0].text == "This is a simple text response for testing."
        image = await client.call_raw("test_image_content")
        assert image.content[0].type == "image" and image.content[0].mimeType == "image/png"
        audio = await client.call_raw("test_audio_content")
        assert audio.content[0].type == "audio" and audio.content[0].mimeType == "audio/wav"
        resource = await client.call_raw("test_embedded_resource")
        assert resource.content[0].resource.uri == "test://embedded-resource"
        mixed = await client.call_raw("test_multiple_content_types")
        assert [b.type for b in mixed.content] == ["text", "image", "resource"]
        error = await client.call_raw("test_error_handling")
        assert error.isError and "intentionally" in error.text()


async def _test_client_input_tools(era: str) -> None:
    async with _client(era) as client:
        assert "Paris" in (await client.call_raw("test_sampling", {"prompt": "Capital?"})).text()
        assert "accept" in (await client.call_raw("test_elicitation", {"message": "Hi"})).text()
        defaults = await client.call_raw("test_elicitation_sep1034_defaults")
        assert "John Doe" in defaults.text()
        enums = await client.call_raw("test_elicitation_sep1330_enums")
        assert "option1" in enums.text()
        assert (await client.call_raw("test_input_required_result_elicitation")).text() == "Hello, x!"
        assert "state-ok" in (await client.call_raw("test_input_required_result_request_state")).text()
        multi = await client.call_raw("test_input_required_result_multiple_inputs")
        assert multi.text() == "name=x; greeting=Paris; roots=1"
        assert (await client.call_raw("test_input_required_result_multi_round")).text() == "x likes x."
        roots = await client.call_raw("test_input_required_result_list_roots")
        assert "file:///test/root" in roots.text()


async def _test_modern_rounds_and_state() -> None:
    """2026: the raw input_required shapes the MRTR scenarios check."""
    all_caps = {"sampling": {}, "elicitation": {}, "roots": {}}
    async with EverythingService().connect_in_process() as peer:
        ids = iter(range(1, 100))

        async def call(name: str, caps: dict[str, Any] = all_caps, **extra: Any) -> dict[str, Any]:
            meta = {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": caps,
            }
            rid = next(ids)
            params = {"name": name, "arguments": {}, "_meta": meta, **extra}
            await peer.send({"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params})
            while True:
                message = await peer.receive()
                if message.get("id") == rid:
                    return dict(message)

        first = (await call("test_input_required_result_multiple_inputs"))["result"]
        assert first["resultType"] == "input_required"
        assert set(first["inputRequests"]) == {"user_name", "greeting", "client_roots"}
        r1 = (await call("test_input_required_result_tampered_state"))["result"]
        answer = {"confirm": {"action": "accept", "content": {"ok": True}}}
        tampered = await call(
            "test_input_required_result_tampered_state",
            requestState=r1["requestState"] + "-TAMPERED",
            inputResponses=answer,
        )
        assert tampered["error"]["code"] == -32602
        good = await call(
            "test_input_required_result_tampered_state", requestState=r1["requestState"], inputResponses=answer
        )
        assert good["result"]["resultType"] == "complete"
        caps = (await call("test_input_required_result_capabilities", {"sampling": {}}))["result"]
        assert [r["method"] for r in caps["inputRequests"].values()] == ["sampling/createMessage"]
        missing = await call("test_missing_capability", {})
        assert missing["error"]["code"] == -32021
        assert missing["error"]["data"]["requiredCapabilities"] == {"sampling": {}}
        r1 = (await call("test_input_required_result_multi_round"))["result"]
        r2 = (await call(
            "test_input_required_result_multi_round",
            requestState=r1["requestState"],
            inputResponses={"step1": {"action": "accept", "content": {"name": "Alice"}}},
        ))["result"]  # fmt: skip
        assert list(r2["inputRequests"]) == ["step2"] and r2["requestState"] != r1["requestState"]
        r3 = (await call(
            "test_input_required_result_multi_round",
            requestState=r2["requestState"],
            inputResponses={"step2": {"action": "accept", "content": {"color": "blue"}}},
        ))["result"]  # fmt: skip
        assert r3["content"][0]["text"] == "Alice likes blue."

def _run(fn: Callable[..., Awaitable[None]], *args: object) -> None:
    asyncio.run(asyncio.wait_for(fn(*args), 60))


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_fixture_tools_listed_first_tool_simple(era: str) -> None:
    _run(_test_fixture_tools_listed_first_tool_simple, era)


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_content_tools(era: str) -> None:
    _run(_test_content_tools, era)


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_client_input_tools(era: str) -> None:
    _run(_test_client_input_tools, era)


def test_modern_rounds_and_state() -> None:
    _run(_test_modern_rounds_and_state)
