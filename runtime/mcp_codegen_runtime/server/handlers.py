"""Which handlers an implementation provides: every tool, resource, resource template, prompt
and completion handler the generated base declares, checked against a subclass.

A handler is *missing* when the subclass does not override the base's method and the base's
own only raises ``NotImplementedError`` (a generated handler, such as one calling an upstream
REST API, counts as implemented: the base itself may be checked), a *stub* when its body only raises
``NotImplementedError`` (what ``mcp-codegen build --scaffold`` writes), and *uncallable*
when its signature does not take the arguments the runtime passes.  ``python -m <pkg>
--check``, ``mcp-codegen validate --impl`` and the start-up warning all read
:func:`check_implementation`.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from dataclasses import dataclass, field
from typing import Any

from .dispatch import ServerCore

#: Kind -> (label of the count, the handler's parameters after ``self``).
KINDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "tool": ("tools", ("args", "ctx")),
    "resource": ("resources", ("ctx",)),
    "resource template": ("resource templates", ("variables", "ctx")),
    "prompt": ("prompts", ("args", "ctx")),
    "completion": ("completions", ("value", "context", "ctx")),
}


@dataclass(frozen=True)
class Handler:
    """One handler the base declares: its kind, method name and what the spec calls it."""

    kind: str
    method: str
    origin: str  # e.g. "tool 'get_weather'", "prompt 'greet' argument 'name'"


@dataclass(frozen=True)
class Problem:
    """A handler the implementation does not provide properly."""

    handler: Handler
    state: str  # "missing" | "stub" | "uncallable"
    detail: str  # one sentence for the --check listing


@dataclass
class Report:
    """The outcome of :func:`check_implementation`."""

    cls_name: str
    spec: str | None
    handlers: list[Handler] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return not self.problems

    def where(self, handler: Handler) -> str:
        """``(specs/x.yaml tool 'get_weather')``: where the spec declares the handler."""
        return f"({self.spec} {handler.origin})" if self.spec else f"({handler.origin})"

    def lines(self) -> list[str]:
        """One line per handler whose signature is wrong, with why (the summary names the others)."""
        return [f"{p.handler.kind} {p.handler.method}: {p.detail} {self.where(p.handler)}" for p in self.problems
                if p.state == "uncallable"]

    def summary(self) -> str:
        """``2 of 2 tools, 0 of 1 resources implemented; missing: resource read_catalog (…)``."""
        bad = {p.handler for p in self.problems}
        counts = []
        for kind, (label, _) in KINDS.items():
            mine = [h for h in self.handlers if h.kind == kind]
            if mine or (kind == "tool" and not self.handlers):
                counts.append(f"{sum(h not in bad for h in mine)} of {len(mine)} {label}")
        text = f"{', '.join(counts)} implemented"
        for state, title in (("missing", "missing"), ("stub", "still stubs (only raise NotImplementedError)"),
                             ("uncallable", "wrong signature")):
            named = [f"{p.handler.kind} {p.handler.method} {self.where(p.handler)}" for p in self.problems
                     if p.state == state]
            if named:
                text += f"; {title}: {', '.join(named)}"
        return text


def declared_handlers(base: type[ServerCore]) -> list[Handler]:
    """Every handler ``base`` declares, in spec order, kind by kind."""
    out = [Handler("tool", t.method, f"tool {t.name!r}") for t in base.tool_defs]
    out += [Handler("resource", r.method, f"resource {r.name!r}") for r in base.resource_defs]
    for tpl in base.resource_template_defs:
        out.append(Handler("resource template", tpl.method, f"resource template {tpl.name!r}"))
        out += [Handler("completion", c.method, f"resource template {tpl.name!r} variable {key!r}")
                for key, c in tpl.completions.items() if c.method]
    for prompt in base.prompt_defs:
        out.append(Handler("prompt", prompt.method, f"prompt {prompt.name!r}"))
        out += [Handler("completion", c.method, f"prompt {prompt.name!r} argument {key!r}")
                for key, c in prompt.completions.items() if c.method]
    return out


def is_stub(function: Any, unreadable: bool = False) -> bool:
    """Whether a handler only raises ``NotImplementedError`` (a scaffold stub left as is);
    ``unreadable`` when its source cannot be read."""
    try:
        source = inspect.getsource(function)
    except (OSError, TypeError):
        return unreadable
    try:
        tree = ast.parse(textwrap.dedent(source))
    except SyntaxError:
        return unreadable
    node = tree.body[0] if tree.body else None
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    body = [n for n in node.body if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))]
    return len(body) == 1 and isinstance(body[0], ast.Raise) and "NotImplementedError" in ast.unparse(body[0])


def check_implementation(cls: type[ServerCore], base: type[ServerCore], *, stubs: bool = True) -> Report:
    """Check every handler of ``base`` in ``cls``: overridden, callable with the runtime's
    arguments, and (with ``stubs``) more than a ``raise NotImplementedError``."""
    report = Report(cls.__name__, base.server_info.spec if hasattr(base, "server_info") else None,
                    declared_handlers(base))
    for handler in report.handlers:
        mine = getattr(cls, handler.method, None)
        if mine is None or mine is getattr(base, handler.method, None) and is_stub(mine, unreadable=True):
            report.problems.append(Problem(handler, "missing", f"no method {handler.method}() in {cls.__name__}"))
            continue
        params = KINDS[handler.kind][1]
        try:
            inspect.signature(mine).bind(None, *params)
        except (TypeError, ValueError) as exc:
            report.problems.append(Problem(handler, "uncallable", f"{cls.__name__}.{handler.method}() cannot be "
                                           f"called as (self, {', '.join(params)}): {exc}"))
            continue
        if stubs and is_stub(mine):
            report.problems.append(Problem(handler, "stub",
                                           f"{cls.__name__}.{handler.method}() only raises NotImplementedError"))
    return report
