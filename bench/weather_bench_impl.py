"""A trivial implementation of the README's weather server (``specs/weather.yaml``) for
``bench_http_floor.py``: a fixed answer, the per-client rate limit lifted (the peers it is
compared with have none); every other setting keeps its default."""

from __future__ import annotations

import dataclasses
from typing import Any

from weather import Context, ServerSettings, TextContent, ToolResult
from weather.models import GetForecastInput, GetWeatherInput, GetWeatherOutput, Unit
from weather.server import WeatherServerBase


class WeatherBench(WeatherServerBase):
    def __init__(self, settings: ServerSettings | None = None, **options: Any) -> None:
        settings = dataclasses.replace(settings or ServerSettings(), rate_limit_per_second=1e9, rate_limit_burst=10**9)
        super().__init__(settings, **options)

    async def get_weather(self, args: GetWeatherInput, ctx: Context) -> GetWeatherOutput:
        return GetWeatherOutput(temperature=18.0, conditions="sunny", unit=args.unit or Unit.celsius)

    async def get_forecast(self, args: GetForecastInput, ctx: Context) -> ToolResult:
        return ToolResult(content=[TextContent(text="sunny")])
