"""Scenario files of the mock server: which calls fail, wait or answer something fixed.

A scenario is a YAML or JSON file holding a list of rules (or a mapping whose ``rules`` key
holds it)::

    - tool: get_weather
      when: {location: Atlantis}          # optional: these arguments (a subset) must match
      error: unknown_location             # a declared error code of the tool
      message: No such place.             # optional, for error (default: the error's description)
      data: {location: Atlantis}          # optional, for error: the error's data
    - tool: get_weather
      when: {location: Slowtown}
      delay: 2.5                          # seconds; alone, or before any other outcome
    - tool: get_forecast
      fail: Upstream weather service down # a tool error (isError) without a declared code
      times: 1                            # optional: only the first N matching calls
    - tool: get_forecast
      protocol_error: {code: -32603, message: Internal error}   # a JSON-RPC error instead
    - tool: get_weather
      when: {location: Paris}
      result: {temperature: 21.5, conditions: sunny, unit: celsius}   # fixed structured content
                                          # (or {content: [...], structuredContent: ...})

The first matching rule applies (a rule whose ``times`` are used up no longer matches).  A
mistake in the file is a :class:`ScenarioError` listing every problem with its file, line and
JSON pointer; :meth:`MockScenario.problems` adds those only the server can see (an unknown tool,
an error code the tool does not declare).  YAML needs PyYAML (JSON files load without it).
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...wire.tools import ToolDef

#: Keys of a rule, and what each takes.
RULE_KEYS = ("tool", "when", "error", "message", "data", "fail", "protocol_error", "delay", "result", "times")
#: The outcomes a rule may name (at most one; ``delay`` goes with any of them or alone).
OUTCOMES = ("error", "fail", "protocol_error", "result")


@dataclass(frozen=True)
class Problem:
    """One mistake in a scenario file: where (file, 1-based line, JSON pointer) and what."""

    file: str
    line: int
    pointer: str
    message: str

    def render(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.message}" + (f" (at {self.pointer})" if self.pointer else "")


class ScenarioError(ValueError):
    """A scenario file that cannot be used; ``problems`` lists every mistake, located."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("\n".join(p.render() for p in problems))


@dataclass
class Rule:
    """One rule of a scenario (see the module docstring); ``line`` is where it starts."""

    tool: str
    when: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    message: str | None = None
    data: Any = None
    fail: str | None = None
    protocol_error: dict[str, Any] | None = None
    delay: float = 0.0
    result: Any = None
    has_result: bool = False
    times: int | None = None
    line: int = 0
    pointer: str = ""

    def matches(self, tool: str, arguments: Mapping[str, Any]) -> bool:
        return self.tool == tool and (self.times is None or self.times > 0) and _subset(self.when, arguments)


def _subset(wanted: Any, actual: Any) -> bool:
    """``wanted`` is found in ``actual``: every key of a mapping (recursively), else equal as JSON."""
    if isinstance(wanted, Mapping):
        return isinstance(actual, Mapping) and all(k in actual and _subset(v, actual[k]) for k, v in wanted.items())
    return json.dumps(wanted, sort_keys=True) == json.dumps(actual, sort_keys=True)


class MockScenario:
    """The rules of a scenario, in order (build one with :meth:`load`, or from rules)."""

    def __init__(self, rules: list[Rule], source: str = "<scenario>") -> None:
        self.rules = rules
        self.source = source

    @classmethod
    def load(cls, path: str | Path) -> MockScenario:
        """Read a scenario file.

        Raises:
            ScenarioError: the file cannot be read or holds mistakes (all of them, located).
        """
        shown = str(path)
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise ScenarioError([Problem(shown, 0, "", f"cannot read the scenario: {exc.strerror or exc}")]) from None
        data, lines = _parse(text, shown)
        return cls(_rules(data, lines, shown), shown)

    @classmethod
    def from_rules(cls, rules: list[dict[str, Any]], source: str = "<scenario>") -> MockScenario:
        """A scenario from rules already in memory (the same checks as :meth:`load`).

        Raises:
            ScenarioError: a rule is malformed.
        """
        return cls(_rules(rules, {}, source), source)

    def pick(self, tool: str, arguments: Mapping[str, Any]) -> Rule | None:
        """The first rule matching a call (its ``times`` counted down), or None."""
        for rule in self.rules:
            if rule.matches(tool, arguments):
                if rule.times is not None:
                    rule.times -= 1
                return rule
        return None

    def problems(self, tools: tuple[ToolDef, ...]) -> list[Problem]:
        """What the server's tools make wrong: unknown tools, undeclared error codes."""
        by_name = {t.name: t for t in tools}
        out: list[Problem] = []
        for rule in self.rules:
            tool = by_name.get(rule.tool)
            if tool is None:
                near = difflib.get_close_matches(rule.tool, list(by_name), n=1)
                hint = f"; did you mean {near[0]!r}?" if near else f"; the tools are {', '.join(sorted(by_name)) or 'none'}"
                out.append(Problem(self.source, rule.line, rule.pointer + "/tool", f"unknown tool {rule.tool!r}{hint}"))
            elif rule.error is not None and rule.error not in tool.errors:
                declared = ", ".join(sorted(tool.errors)) or "none"
                out.append(Problem(self.source, rule.line, rule.pointer + "/error",
                                   f"tool {rule.tool!r} declares no error {rule.error!r} (declared: {declared}); "
                                   "use fail: MESSAGE for an undeclared tool error"))
        return out


# -- reading ----------------------------------------------------------------------------------


def _parse(text: str, shown: str) -> tuple[Any, dict[str, int]]:
    """The data of a YAML/JSON text and the line of each JSON pointer in it."""
    try:
        import yaml  # type: ignore[import-untyped, unused-ignore]  # optional: YAML scenarios need PyYAML
    except ImportError:
        try:
            return json.loads(text), {}
        except json.JSONDecodeError as exc:
            raise ScenarioError([Problem(shown, exc.lineno, "", f"not JSON ({exc.msg}); YAML needs PyYAML")]) from None
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 0
        raise ScenarioError([Problem(shown, line, "", f"not valid YAML: {getattr(exc, 'problem', None) or exc}")]) from None
    lines: dict[str, int] = {}
    _lines(node, "", lines)
    return data, lines


def _lines(node: Any, pointer: str, out: dict[str, int]) -> None:
    if node is None:
        return
    out[pointer] = node.start_mark.line + 1
    if node.id == "mapping":
        for key, value in node.value:
            name = str(key.value).replace("~", "~0").replace("/", "~1")
            _lines(value, f"{pointer}/{name}", out)
            out[f"{pointer}/{name}"] = key.start_mark.line + 1  # a key's line, not its value's
    elif node.id == "sequence":
        for index, item in enumerate(node.value):
            _lines(item, f"{pointer}/{index}", out)


def _rules(data: Any, lines: dict[str, int], shown: str) -> list[Rule]:
    problems: list[Problem] = []

    def bad(pointer: str, message: str) -> None:
        line = next((lines[p] for p in _parents(pointer) if p in lines), 0)
        problems.append(Problem(shown, line, pointer, message))

    base = ""
    if isinstance(data, Mapping) and "rules" in data:
        data, base = data["rules"], "/rules"
    if not isinstance(data, list):
        bad(base, "a scenario is a list of rules (or a mapping with a 'rules' list)")
        raise ScenarioError(problems)
    rules: list[Rule] = []
    for index, raw in enumerate(data):
        at = f"{base}/{index}"
        count = len(problems)
        rule = _rule(raw, at, bad)
        if rule is not None and len(problems) == count:
            rule.line = lines.get(at, 0)
            rules.append(rule)
    if problems:
        raise ScenarioError(problems)
    return rules


def _parents(pointer: str) -> list[str]:
    parts = pointer.split("/")
    return ["/".join(parts[:n]) for n in range(len(parts), 0, -1)]


def _rule(raw: Any, at: str, bad: Any) -> Rule | None:
    if not isinstance(raw, Mapping):
        bad(at, "a rule is a mapping such as {tool: NAME, error: CODE}")
        return None
    for key in raw:
        if key not in RULE_KEYS:
            near = difflib.get_close_matches(str(key), RULE_KEYS, n=1)
            bad(f"{at}/{key}", f"unknown key {key!r}" + (f"; did you mean {near[0]!r}?" if near else
                                                         f"; a rule takes {', '.join(RULE_KEYS)}"))
    tool = raw.get("tool")
    if not isinstance(tool, str) or not tool:
        bad(f"{at}/tool" if "tool" in raw else at, "a rule needs tool: NAME (a tool of the spec)")
    rule = Rule(tool=tool if isinstance(tool, str) else "", pointer=at)
    when = raw.get("when", {})
    if not isinstance(when, Mapping):
        bad(f"{at}/when", "when: is a mapping of argument names to values")
    else:
        rule.when = dict(when)
    outcomes = [k for k in OUTCOMES if k in raw]
    if len(outcomes) > 1:
        bad(f"{at}/{outcomes[1]}", f"a rule has one outcome; this one has {' and '.join(outcomes)}")
    if not outcomes and "delay" not in raw:
        bad(at, f"a rule needs one of {', '.join(OUTCOMES)} or delay")
    _strings(raw, at, bad, rule)
    if "protocol_error" in raw:
        perr = raw["protocol_error"]
        if (not isinstance(perr, Mapping) or not isinstance(perr.get("code"), int) or isinstance(perr.get("code"), bool)
                or not isinstance(perr.get("message"), str)):
            bad(f"{at}/protocol_error", "protocol_error: is {code: INTEGER, message: TEXT} (optionally data)")
        else:
            rule.protocol_error = dict(perr)
    if "delay" in raw:
        delay = raw["delay"]
        if isinstance(delay, bool) or not isinstance(delay, (int, float)) or delay < 0:
            bad(f"{at}/delay", "delay: is a number of seconds (0 or more)")
        else:
            rule.delay = float(delay)
    if "times" in raw:
        times = raw["times"]
        if isinstance(times, bool) or not isinstance(times, int) or times < 1:
            bad(f"{at}/times", "times: is a whole number of calls (1 or more)")
        else:
            rule.times = times
    if "result" in raw:
        rule.result, rule.has_result = raw["result"], True
    if ("message" in raw or "data" in raw) and "error" not in raw:
        bad(f"{at}/{'message' if 'message' in raw else 'data'}", "message: and data: go with error: CODE")
    return rule


def _strings(raw: Mapping[str, Any], at: str, bad: Any, rule: Rule) -> None:
    for key in ("error", "fail", "message"):
        if key in raw:
            if not isinstance(raw[key], str) or not raw[key]:
                bad(f"{at}/{key}", f"{key}: is a text")
            else:
                setattr(rule, key, raw[key])
    if "data" in raw:
        rule.data = raw["data"]


__all__ = ["MockScenario", "Problem", "Rule", "ScenarioError"]
