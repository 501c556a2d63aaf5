"""``mock_server`` in process: answers from the spec, scenarios, replay of a cassette.

Values are judged by ``jsonschema`` (independent of the runtime's validation); error answers
are compared with those of the generated server running a trivial implementation."""

from __future__ import annotations

import asyncio
import importlib
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from common_support import run_async
from mcp_codegen_runtime.schema.examples import example
from mcp_codegen_runtime.server.mock import Cassette, CassetteError, MockScenario, ScenarioError, mock_server
from weather.server import WeatherServerBase

INIT = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}


async def _session(server: Any, calls: list[tuple[str, dict[str, Any]]], *, init: bool = True) -> list[dict[str, Any]]:
    """The responses of ``calls``, in order, on one in-process connection (after initialize)."""
    out = []
    async with server.connect_in_process() as peer:
        todo = ([("initialize", INIT)] if init else []) + calls
        for number, (method, params) in enumerate(todo):
            await peer.send({"jsonrpc": "2.0", "id": number, "method": method, "params": params})
            while True:
                message = await peer.receive()
                if message.get("id") == number and "method" not in message:
                    out.append(message)
                    break
            if method == "initialize":
                await peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    return out[1:] if init else out


def _call(name: str, **arguments: Any) -> tuple[str, dict[str, Any]]:
    return "tools/call", {"name": name, "arguments": arguments}


class Trivial(WeatherServerBase):
    def get_weather(self, args: Any, ctx: Any) -> Any:
        return {"temperature": 1.0, "conditions": "x", "unit": "celsius"}

    def get_forecast(self, args: Any, ctx: Any) -> Any:
        return "x"


def test_results_fit_the_output_schema_and_depend_on_seed_and_arguments() -> None:
    schema = WeatherServerBase.tool_defs[0].wire["outputSchema"]
    calls = [_call("get_weather", location=city) for city in ("Paris", "Paris", "Oslo")]
    first = run_async(_session(mock_server(WeatherServerBase, seed=1), calls))
    again = run_async(_session(mock_server(WeatherServerBase, seed=1), calls))
    other = run_async(_session(mock_server(WeatherServerBase, seed=2), calls))
    values = [r["result"]["structuredContent"] for r in first]
    for value in values:
        jsonschema.validate(value, schema)
    assert values[0] == values[1] and values[0] != values[2]
    assert [r["result"]["structuredContent"] for r in again] == values
    assert [r["result"]["structuredContent"] for r in other] != values
    assert json.loads(first[0]["result"]["content"][0]["text"]) == values[0]
    text = run_async(_session(mock_server(WeatherServerBase), [_call("get_forecast", location="Oslo")]))[0]["result"]
    assert "structuredContent" not in text and "get_forecast" in text["content"][0]["text"]


@pytest.mark.parametrize("version", ["2025-06-18", "2025-11-25"])
def test_invalid_arguments_get_the_generated_servers_errors(version: str) -> None:
    bad = [_call("get_weather", location=""), _call("get_weather"), _call("get_weather", location="x", unit="kelvin"),
           _call("nope", location="x"), ("tools/call", {"name": "get_weather", "arguments": [1]})]
    init = {**INIT, "protocolVersion": version}

    async def both() -> tuple[list[Any], list[Any]]:
        async def run(server: Any) -> list[Any]:
            async with server.connect_in_process() as peer:
                await peer.send({"jsonrpc": "2.0", "id": "i", "method": "initialize", "params": init})
                await peer.receive()
                out = []
                for n, (method, params) in enumerate(bad):
                    await peer.send({"jsonrpc": "2.0", "id": n, "method": method, "params": params})
                    out.append(await peer.receive())
                return out
        return await run(mock_server(WeatherServerBase)), await run(Trivial())

    mocked, real = run_async(both())
    assert mocked == real
    assert all("error" in m or m["result"].get("isError") for m in mocked)


def test_scenario_rules(tmp_path: Path) -> None:
    scenario = MockScenario.from_rules([
        {"tool": "get_weather", "when": {"location": "Atlantis"}, "error": "unknown_location", "data": {"where": "sea"}},
        {"tool": "get_weather", "when": {"location": "Slow"}, "delay": 0.3},
        {"tool": "get_weather", "when": {"location": "Broken"}, "fail": "Upstream down", "times": 1},
        {"tool": "get_weather", "when": {"location": "Rpc"}, "protocol_error": {"code": -32050, "message": "nope"}},
        {"tool": "get_weather", "when": {"location": "Paris"},
         "result": {"temperature": 21.5, "conditions": "sunny", "unit": "celsius"}},
        {"tool": "get_weather", "when": {"location": "Bad"}, "result": {"temperature": "hot"}},
    ])
    server = mock_server(WeatherServerBase, scenario=scenario)

    async def timed() -> tuple[list[Any], float]:
        loop = asyncio.get_running_loop()
        start = loop.time()
        slow = await _session(server, [_call("get_weather", location="Slow")])
        elapsed = loop.time() - start
        rest = await _session(server, [_call("get_weather", location=c) for c in ("Atlantis", "Broken", "Broken", "Rpc",
                                                                                  "Paris", "Bad")])
        return slow + rest, elapsed

    (slow, declared, broken, recovered, rpc, fixed, bad), elapsed = run_async(timed())
    assert elapsed >= 0.3 and "structuredContent" in slow["result"]
    assert declared["result"]["isError"] and declared["result"]["_meta"]["mcp-codegen/error"] == {
        "code": "unknown_location", "data": {"where": "sea"}}
    assert declared["result"]["content"][0]["text"] == "No such place."  # the error's description
    assert broken["result"] == {"content": [{"type": "text", "text": "Upstream down"}], "isError": True}
    assert "isError" not in recovered["result"]  # times: 1 used up
    assert rpc["error"]["code"] == -32050 and rpc["error"]["message"] == "nope"
    assert fixed["result"]["structuredContent"] == {"temperature": 21.5, "conditions": "sunny", "unit": "celsius"}
    assert bad["error"]["code"] == -32603  # a fixed result breaking the output schema: as the generated server


def test_scenario_file_mistakes_are_located(tmp_path: Path) -> None:
    path = tmp_path / "scenario.yaml"
    path.write_text("- tool: get_weather\n  eror: unknown_location\n- tool: get_weather\n  delay: -1\n"
                    "- tool: get_wether\n  fail: x\n- tool: get_forecast\n  error: nope\n")
    with pytest.raises(ScenarioError) as caught:
        MockScenario.load(path)
    rendered = [p.render() for p in caught.value.problems]
    assert rendered == [f"{path}:2: unknown key 'eror'; did you mean 'error'? (at /0/eror)",
                        f"{path}:1: a rule needs one of error, fail, protocol_error, result or delay (at /0)",
                        f"{path}:4: delay: is a number of seconds (0 or more) (at /1/delay)"]
    path.write_text("- tool: get_wether\n  fail: x\n- tool: get_forecast\n  error: nope\n")
    with pytest.raises(ScenarioError) as caught:
        mock_server(WeatherServerBase, scenario=MockScenario.load(path))
    rendered = [p.render() for p in caught.value.problems]
    assert rendered == [f"{path}:1: unknown tool 'get_wether'; did you mean 'get_weather'? (at /0/tool)",
                        f"{path}:3: tool 'get_forecast' declares no error 'nope' (declared: unknown_location); use "
                        "fail: MESSAGE for an undeclared tool error (at /1/error)"]


def _cassette(tmp_path: Path, lines: list[dict[str, Any]]) -> Path:
    path = tmp_path / "c.jsonl"
    header = {"cassette": 1, "transport": "stdio", "recorded": "2026-01-01T00:00:00Z", "server": None, "command": ["x"]}
    path.write_text("\n".join(json.dumps(x) for x in [header, *lines]) + "\n")
    return path


def _exchange(seq: int, rid: int, method: str, params: dict[str, Any], response: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"seq": seq, "dir": "c2s", "t": 0, "message": {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}},
            {"seq": seq + 1, "dir": "s2c", "t": 0, "message": {"jsonrpc": "2.0", "id": rid, **response}}]


def test_replay_answers_recorded_calls_in_turn_and_names_the_nearest(tmp_path: Path) -> None:
    def result(text: str) -> dict[str, Any]:
        return {"result": {"content": [{"type": "text", "text": text}]}}

    lines = (_exchange(1, 1, "initialize", {**INIT, "clientInfo": {"name": "recorder", "version": "9"}},
                       {"result": {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                                   "serverInfo": {"name": "recorded", "version": "0.1"}}})
             + _exchange(3, 2, "tools/call", {"name": "get_forecast", "arguments": {"location": "Oslo", "days": 2},
                                              "_meta": {"progressToken": 5}}, result("first"))
             + _exchange(5, 3, "tools/call", {"name": "get_forecast", "arguments": {"location": "Oslo", "days": 2}},
                         result("second"))
             + _exchange(7, 4, "tools/call", {"name": "get_weather", "arguments": {"location": "Rome", "unit": "celsius"}},
                         {"error": {"code": -32000, "message": "boom"}})
             + _exchange(9, 5, "resources/read", {"uri": "file:///a"}, result("r")))
    server = mock_server(WeatherServerBase, replay=_cassette(tmp_path, lines))
    calls = [("tools/list", {}),
             ("tools/call", {"name": "get_forecast", "arguments": {"days": 2, "location": "Oslo"}, "_meta": {"progressToken": "x"}}),
             _call("get_forecast", location="Oslo", days=2), _call("get_forecast", location="Oslo", days=2),
             _call("get_weather", location="Rome", unit="celsius"), _call("get_weather", location="Rom", unit="celsius"),
             _call("get_forecast", location="Oslo", days=3), _call("unknown_tool"), ("resources/read", {"uri": "file:///b"})]

    async def run() -> list[Any]:
        async with server.connect_in_process() as peer:
            await peer.send({"jsonrpc": "2.0", "id": "i", "method": "initialize", "params": INIT})
            init = await peer.receive()
            out = [init]
            for n, (method, params) in enumerate(calls):
                await peer.send({"jsonrpc": "2.0", "id": n, "method": method, "params": params})
                out.append(await peer.receive())
            return out

    init, listed, first, second, third, recorded_error, near_weather, near_days, unknown, resource = run_async(run())
    assert init["result"]["serverInfo"] == {"name": "recorded", "version": "0.1"}  # by protocol version alone
    assert [t["name"] for t in listed["result"]["tools"]] == ["get_weather", "get_forecast"]  # from the spec
    assert [r["result"]["content"][0]["text"] for r in (first, second, third)] == ["first", "second", "second"]
    assert recorded_error["error"] == {"code": -32000, "message": "boom"}
    text = near_weather["result"]["content"][0]["text"]
    assert near_weather["result"]["isError"] and near_weather["result"]["_meta"]["mcp-codegen/error"]["code"] == "mcp-codegen.unrecorded"
    assert text.endswith('nearest recorded call: tools/call get_weather {"location":"Rome","unit":"celsius"} (line 8)')
    assert near_days["result"]["content"][0]["text"].endswith(
        'nearest recorded call: tools/call get_forecast {"days":2,"location":"Oslo"} (line 4)')
    assert unknown["error"]["code"] == -32602 and "nearest recorded call: tools/call get_forecast" in unknown["error"]["message"]
    assert resource["error"]["code"] == -32602 and resource["error"]["message"].endswith(
        "nearest recorded call: resources/read file:///a (line 10)")


def test_redacted_secrets_match_any_text_and_bad_cassettes_are_located(tmp_path: Path) -> None:
    lines = _exchange(1, 1, "tools/call", {"name": "get_forecast", "arguments": {"location": "key <redacted>!"}},
                      {"result": {"content": [{"type": "text", "text": "ok"}]}})
    cassette = Cassette.load(_cassette(tmp_path, lines))
    assert cassette.answer("tools/call", {"name": "get_forecast", "arguments": {"location": "key s3cr3t!"}}) is not None
    assert cassette.answer("tools/call", {"name": "get_forecast", "arguments": {"location": "other"}}) is None
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"cassette": 1}\n{not json\n{"seq": 2}\n')
    with pytest.raises(CassetteError, match=rf"^{broken}:2: not a JSON line"):
        Cassette.load(broken)
    broken.write_text('{"seq": 1}\n')
    with pytest.raises(CassetteError, match=rf"^{broken}:1: not a cassette"):
        Cassette.load(broken)


@pytest.mark.parametrize("package", ["weather", "catalog", "notes", "everything"])
def test_every_mocked_result_of_the_example_specs_fits_its_output_schema(package: str) -> None:
    """Arguments drawn from each input schema, several seeds; ``jsonschema`` judges each result."""
    base = next(v for v in vars(importlib.import_module(f"{package}.server")).values()
                if isinstance(v, type) and v.__name__.endswith("ServerBase") and v.__module__ == f"{package}.server")
    calls = [_call(t.name, **example(t.wire["inputSchema"], seed=s)) for t in base.tool_defs
             if "outputSchema" in t.wire and t.task_support != "required" for s in range(3)]
    assert calls
    for seed in (0, 1):
        answers = run_async(_session(mock_server(base, seed=seed), calls))
        for (_, params), answer in zip(calls, answers, strict=True):
            schema = next(t for t in base.tool_defs if t.name == params["name"]).wire["outputSchema"]
            assert "result" in answer and not answer["result"].get("isError"), (params, answer)
            jsonschema.Draft202012Validator(schema).validate(answer["result"]["structuredContent"])
