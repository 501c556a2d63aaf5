"""Hand-written implementation of the generated weather server (an example).

Serve it with ``python -m weather --stdio`` from this folder (the spec names this class as
the default implementation).
"""

from __future__ import annotations

from weather import Context, TextContent, ToolResult
from weather.errors import UnknownLocationError
from weather.models import GetForecastInput, GetWeatherInput, GetWeatherOutput, Unit
from weather.server import GetWeatherInputs, WeatherServerBase

_CITIES: dict[str, tuple[float, str]] = {
    "paris": (18.0, "sunny"),
    "london": (12.5, "rain"),
    "tokyo": (22.0, "cloudy"),
}


def _lookup(location: str) -> tuple[float, str]:
    try:
        return _CITIES[location.strip().lower()]
    except KeyError:
        raise UnknownLocationError(f"unknown location: {location}", data={"location": location})


class WeatherService(WeatherServerBase):
    """Canned weather for three cities; asks the client for the unit when none is given."""

    async def get_weather(self, args: GetWeatherInput, ctx: Context) -> GetWeatherOutput:
        celsius, conditions = _lookup(args.location)
        unit = args.unit
        if unit is None:
            answer = await GetWeatherInputs(ctx).unit()
            unit = Unit(answer.content.unit.value) if answer.content else Unit.celsius
        temperature = celsius if unit is Unit.celsius else round(celsius * 9 / 5 + 32, 1)
        return GetWeatherOutput(temperature=temperature, conditions=conditions, unit=unit)

    def get_forecast(self, args: GetForecastInput, ctx: Context) -> ToolResult:
        celsius, conditions = _lookup(args.location)
        days = args.days or 3
        lines = [f"day {i + 1}: {conditions}, {celsius + i:.1f} C" for i in range(days)]
        return ToolResult(content=[TextContent(text="\n".join(lines))])
