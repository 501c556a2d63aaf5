"""The weather server's example implementation with test behaviours (HTTP stress suites).

Loaded by ``python -m weather --http --impl http_stress_impl:StressWeather`` (see
tests/support/http_stress_support.py).  ``get_forecast`` with ``location`` =

* ``sleep:<seconds>``: sleeps, counting the calls running at once (peak), the finished
  and the cancelled ones;
* ``tick:<n>:<seconds>``: sends ``n`` progress notifications (1 kB message each, when the
  request carried a progress token), sleeping ``seconds`` before each (counted like
  ``sleep:``);
* ``crash``: raises with an internal path and traceback-like text in the message;
* ``stats``: returns the counters as JSON text;

anything else is the normal forecast.  ServerSettings fields come from the JSON in
``MCP_STRESS_SETTINGS`` (e.g. low rate and concurrency limits).
"""

from __future__ import annotations

import asyncio
import json
import os
from dataclasses import replace
from typing import Any

from weather import Context, ServerSettings, TextContent, ToolResult
from weather.models import GetForecastInput
from weather_impl import WeatherService

SECRET_PATH = "/srv/internal-secret/weather_db.sqlite"


class StressWeather(WeatherService):
    def __init__(self, settings: ServerSettings | None = None, **kw: Any) -> None:
        extra = json.loads(os.environ.get("MCP_STRESS_SETTINGS") or "{}")
        super().__init__(replace(settings or ServerSettings(), **extra), **kw)
        self.stats = {"running": 0, "peak": 0, "started": 0, "finished": 0, "cancelled": 0}

    async def get_forecast(self, args: GetForecastInput, ctx: Context) -> ToolResult:  # type: ignore[override]
        where = args.location
        if where == "crash":
            raise RuntimeError(f'{SECRET_PATH} exploded\nTraceback (most recent call last):\n  File "/srv/x.py", line 1')
        if where == "stats":
            return ToolResult(content=[TextContent(text=json.dumps(self.stats))])
        if where.startswith(("sleep:", "tick:")):
            s = self.stats
            s["running"] += 1
            s["started"] += 1
            s["peak"] = max(s["peak"], s["running"])
            try:
                if where.startswith("sleep:"):
                    await asyncio.sleep(float(where[6:]))
                else:
                    _, count, pause = where.split(":")
                    for i in range(int(count)):
                        await asyncio.sleep(float(pause))
                        await ctx.progress(i + 1, int(count), "x" * 1000)
            except asyncio.CancelledError:
                s["cancelled"] += 1
                raise
            finally:
                s["running"] -= 1
            s["finished"] += 1
            return ToolResult(content=[TextContent(text=f"done {where}")])
        return super().get_forecast(args, ctx)
