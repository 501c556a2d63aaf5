"""A stdio server's stderr (its start-up line, its logs) stays out of the calling program's own
output unless asked for (``stderr="passthrough"``): it is captured, readable as
``stderr_output``, and its last lines are quoted when the server exits while connected."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from mcp_codegen_runtime.client import ClientBase
from mcp_codegen_runtime.wire.errors import TransportClosedError
from weather import WeatherClient

GENERATED = Path(__file__).resolve().parents[2] / "generated_examples"


def test_the_start_up_line_is_not_in_the_programs_stderr(capfd: pytest.CaptureFixture[str]) -> None:
    async def main() -> tuple[float, str]:
        async with WeatherClient.stdio(sys.executable, ["-m", "weather", "--stdio"], cwd=GENERATED, audit=None) as client:
            out = await client.get_weather(location="Paris", unit="celsius")
            return out.temperature, client.stderr_output

    temperature, captured = asyncio.run(main())
    assert isinstance(temperature, float)
    seen = capfd.readouterr()
    assert "MCP over stdio" not in seen.err + seen.out, seen
    assert "weather" in captured and "MCP over stdio" in captured, captured


def test_passthrough_still_shows_it(capfd: pytest.CaptureFixture[str]) -> None:
    async def main() -> None:
        async with WeatherClient.stdio(sys.executable, ["-m", "weather", "--stdio"], cwd=GENERATED, audit=None,
                                       stderr="passthrough") as client:
            await client.get_weather(location="Paris", unit="celsius")

    asyncio.run(main())
    assert "MCP over stdio" in capfd.readouterr().err


def test_a_server_that_dies_is_quoted_in_the_error(tmp_path: Path) -> None:
    script = tmp_path / "dies.py"
    script.write_text("import sys\nsys.stdin.readline()\nprint('boom: the database is gone', file=sys.stderr)\n"
                      "sys.exit(3)\n", "utf-8")

    async def main() -> None:
        async with ClientBase.stdio(sys.executable, [str(script)], audit=None, timeout=20):
            pass

    with pytest.raises(TransportClosedError) as caught:
        asyncio.run(main())
    assert "status 3" in str(caught.value) and "boom: the database is gone" in str(caught.value), caught.value
