"""Run the official JSON-Schema-Test-Suite (draft 2020-12) through generated packages.

Each test group's schema ``S`` becomes tool ``g<N>`` with the input schema
``{type: object, properties: {v: S}, required: [v]}`` (``S``'s same-document refs re-pointed
to where it now lives).  Every test's ``data`` is then sent twice, in process:

* **server path**: ``client.call_raw("g<N>", {"v": data})`` -- the generated server must
  accept exactly the valid data (``isError`` false) and refuse the invalid data with an
  invalid-arguments result; the handler must see ``data`` unchanged (no coercion, nothing
  dropped);
* **client path**: the typed method ``client.g<n>(v=data)`` -- valid data must reach the
  server unchanged, invalid data must raise ``InvalidArgumentsError``.

The expected outcome is the suite's own ``valid`` flag.  Groups that need a document they do
not contain (``refRemote.json``, the metaschema by URL, ``remotes/``) are excluded: network
refs are refused by design.  Every other group is required.

Run ``python tests/support/json_schema_suite.py [--optional] [--json FILE]``; the builds are cached in
``.cache/json-schema-suite`` (ignored by git).
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import importlib
import json
import logging
import os
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SUITE_ENV = "MCP_CODEGEN_JSON_SCHEMA_SUITE"


def _suite_dir() -> Path:
    """The official suite: ``$MCP_CODEGEN_JSON_SCHEMA_SUITE``, else ``../shared/`` beside the
    checkout, else ``/work/shared/`` (where CI machines keep it)."""
    candidates = [Path(p) for p in (os.environ.get(SUITE_ENV, ""),) if p]
    candidates += [ROOT.parent / "shared" / "json-schema-test-suite", Path("/work/shared/json-schema-test-suite")]
    for candidate in candidates:
        if (candidate / "draft2020-12").is_dir():
            return candidate
    raise FileNotFoundError(f"JSON-Schema-Test-Suite not found (tried {', '.join(map(str, candidates))}; "
                            f"set {SUITE_ENV})")


SUITE = _suite_dir()
CACHE = ROOT / ".cache" / "json-schema-suite"


@dataclass
class Group:
    file: str  # e.g. "const.json" or "optional/format/date.json"
    index: int
    description: str
    schema: Any
    tests: list[dict[str, Any]]

    @property
    def tool(self) -> str:
        return f"g{self.index}"


@dataclass
class Outcome:
    file: str
    group: str
    test: str
    valid: bool
    path: str  # "server" or "client"
    verdict: str  # agree | refused-valid | accepted-invalid | altered | error
    detail: str = ""


@dataclass
class Report:
    outcomes: list[Outcome] = field(default_factory=list)
    narrower_models: int = 0  # calls where the typed model refused schema-valid data (runtime fell back)
    model_only_tests: int = 0  # tests whose tool the models validate alone (no jsonschema)
    excluded: list[tuple[str, str, str]] = field(default_factory=list)  # file, group, reason
    unbuildable: list[tuple[str, str]] = field(default_factory=list)  # file, diagnostics
    accelerated: bool | None = None  # the fast extra on (True), off (False), as installed (None)
    tool_paths: Counter[str] = field(default_factory=Counter)  # "native" / "pure": tools per argument check


_FAKE_BASE = "https://json-schema-suite.invalid/root"


def _needs_remote(schema: Any) -> str | None:
    """Why ``schema`` needs a document it does not contain (None when self-contained).

    Every ``$ref``/``$dynamicRef``/``$schema`` is resolved against the ``$id``s above it;
    one that lands outside the resources the schema defines itself is remote.
    """
    from codegen.spec.refs import join_uri

    resources: set[str] = {_FAKE_BASE}
    refs: list[str] = []

    def walk(node: Any, base: str, top: bool) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("$id"), str):
                base = join_uri(base, node["$id"]).partition("#")[0]
                resources.add(base)
            schema_uri = node.get("$schema")
            if isinstance(schema_uri, str) and schema_uri.rstrip("#") != "https://json-schema.org/draft/2020-12/schema":
                refs.append(schema_uri)
            for key, value in node.items():
                if key in ("$ref", "$dynamicRef") and isinstance(value, str):
                    refs.append(join_uri(base, value).partition("#")[0])
                elif key not in ("const", "enum", "default", "examples"):
                    walk(value, base, False)
        elif isinstance(node, list):
            for item in node:
                walk(item, base, False)

    walk(schema, _FAKE_BASE, True)
    remote = [r for r in refs if r not in resources]
    return f"needs remote document {remote[0]}" if remote else None


def load_groups(optional: bool) -> list[Group]:
    base = SUITE / "draft2020-12"
    files = sorted(p for p in base.glob("*.json"))
    if optional:
        files = sorted(base.glob("optional/*.json")) + sorted(base.glob("optional/format/*.json"))
    groups: list[Group] = []
    for path in files:
        for i, raw in enumerate(json.loads(path.read_text("utf-8"))):
            groups.append(Group(str(path.relative_to(base)), i, raw["description"], raw["schema"], raw["tests"]))
    return groups


def _repoint(schema: Any, base: str) -> Any:
    """``schema`` with same-document ``#...`` refs re-pointed below ``base`` (a JSON pointer).

    Refs inside a subschema with its own ``$id`` resolve against that resource and stay.
    """

    def walk(node: Any, in_resource: bool) -> Any:
        if isinstance(node, dict):
            inside = in_resource or isinstance(node.get("$id"), str)
            out = {}
            for key, value in node.items():
                if key in ("$ref", "$dynamicRef") and isinstance(value, str) and value.startswith("#") and not inside:
                    frag = value[1:]
                    out[key] = "#" + base + frag if (frag == "" or frag.startswith("/")) else value
                elif key in ("const", "enum", "default", "examples"):
                    out[key] = copy.deepcopy(value)
                else:
                    out[key] = walk(value, inside)
            return out
        if isinstance(node, list):
            return [walk(v, in_resource) for v in node]
        return node

    return walk(schema, False)


def tool_schema(schema: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"v": _repoint(schema, "/properties/v")}, "required": ["v"]}


def package_name(file: str) -> str:
    stem = re.sub(r"[^a-z0-9]+", "_", file.removesuffix(".json").lower()).strip("_")
    return f"jsts_{stem}"


def write_specs(groups: list[Group], spec_dir: Path, formats: bool) -> dict[str, list[Group]]:
    by_file: dict[str, list[Group]] = {}
    for g in groups:
        by_file.setdefault(g.file, []).append(g)
    spec_dir.mkdir(parents=True, exist_ok=True)
    wanted = set()
    for file, members in by_file.items():
        pkg = package_name(file)
        server: dict[str, Any] = {"name": pkg, "version": "1.0.0", "package": pkg}
        if formats:
            server["formatAssertion"] = True
        spec = {
            "mcp-codegen": 1,
            "server": server,
            "tools": [
                {"name": g.tool, "description": g.description, "inputSchema": tool_schema(g.schema)} for g in members
            ],
        }
        text = json.dumps(spec, indent=1, sort_keys=False) + "\n"
        target = spec_dir / f"{pkg}.json"
        wanted.add(target.name)
        if not target.exists() or target.read_text("utf-8") != text:
            target.write_text(text, "utf-8")
    for stale in spec_dir.glob("*.json"):
        if stale.name not in wanted:
            stale.unlink()
    return by_file


def build(spec_dir: Path, out: Path) -> dict[str, str]:
    """Build every spec; returns {package: diagnostics text} for specs that failed."""
    from codegen.api import build as api_build

    failures: dict[str, str] = {}
    specs = sorted(spec_dir.glob("*.json"))
    result, _ = api_build(specs, out)
    for d in result.diagnostics:
        if d.is_error:
            pkg = Path(d.file).stem
            failures[pkg] = failures.get(pkg, "") + str(d) + "\n"
    if failures and not result.ok:
        # one broken spec stops the whole build: build the others on their own
        for spec in specs:
            if spec.stem in failures:
                continue
            res, _ = api_build([spec], out)
            for d in res.diagnostics:
                if d.is_error:
                    failures[spec.stem] = failures.get(spec.stem, "") + str(d) + "\n"
    return failures


def json_equal(a: Any, b: Any) -> bool:
    """JSON equality: 1 == 1.0, but ``true`` never equals 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def _make_server(pkg: Any, seen: list[Any]) -> Any:
    server_mod = importlib.import_module(pkg.__name__ + ".server")
    base = next(v for k, v in vars(server_mod).items()
                if k.endswith("ServerBase") and isinstance(v, type) and v.__module__ == server_mod.__name__)
    content = importlib.import_module("mcp_codegen_runtime.wire.content")

    def handler(self: Any, args: Any, ctx: Any) -> Any:
        seen.append(args.model_dump(mode="json", by_alias=True, exclude_unset=True))
        return content.ToolResult(content=[content.TextContent(type="text", text="ok")])

    methods = {tool.method: handler for tool in base.tool_defs}
    settings_mod = importlib.import_module("mcp_codegen_runtime.server.settings")
    settings = settings_mod.ServerSettings(rate_limit_per_second=1e9, rate_limit_burst=10**9)
    return type("SuiteServer", (base,), methods)(settings)


async def run_package(pkg_name: str, groups: list[Group], report: Report) -> None:
    pkg = importlib.import_module(pkg_name)
    seen: list[Any] = []
    accelerator = importlib.import_module("mcp_codegen_runtime.wire.accelerator")
    accel = importlib.import_module("mcp_codegen_runtime.schema.accel")
    if report.accelerated is not None:
        accelerator.set_enabled(report.accelerated)
    before = dict(accel.counts)
    try:
        await _run_groups(pkg, pkg_name, groups, report, seen)
    finally:
        report.tool_paths.update({k: v - before[k] for k, v in accel.counts.items()})
        accelerator.set_enabled(True)


async def _run_groups(pkg: Any, pkg_name: str, groups: list[Group], report: Report, seen: list[Any]) -> None:
    client_mod = importlib.import_module(pkg_name + ".client")
    client_cls = next(v for k, v in vars(client_mod).items()
                      if k.endswith("Client") and not k.endswith("SyncClient") and isinstance(v, type)
                      and v.__module__ == client_mod.__name__)
    errors_mod = importlib.import_module(pkg_name + ".errors")
    invalid_exc = errors_mod.InvalidArgumentsError
    mcp_error = errors_mod.McpError
    server = _make_server(pkg, seen)
    by_name = {t.name: t for t in server.tool_defs}
    async with client_cls.in_process(server) as client:
        for g in groups:
            method = by_name[g.tool].method
            if not by_name[g.tool].schema_checked:
                report.model_only_tests += len(g.tests)
            for t in g.tests:
                data, valid = t["data"], t["valid"]

                def out(path: str, verdict: str, detail: str = "", g: Any = g, t: Any = t, valid: bool = valid) -> None:
                    report.outcomes.append(Outcome(g.file, g.description, t["description"], valid, path, verdict, detail))

                # server path
                seen.clear()
                try:
                    res = await client.call_raw(g.tool, {"v": data})
                    marker = (res.meta or {}).get("mcp-codegen/error") or {}
                    if res.isError and marker.get("code") != "mcp-codegen.invalid_arguments":
                        out("server", "error", res.text()[:300])
                    elif res.isError:
                        out("server", "refused-valid" if valid else "agree", res.text()[:300])
                    elif not valid:
                        out("server", "accepted-invalid")
                    elif not seen or not json_equal(seen[-1], {"v": data}):
                        out("server", "altered", f"handler saw {seen[-1] if seen else None!r}"[:300])
                    else:
                        out("server", "agree")
                except Exception as exc:
                    out("server", "error", f"{type(exc).__name__}: {exc}"[:300])
                # client path
                seen.clear()
                try:
                    await getattr(client, method)(v=data)
                    if not valid:
                        out("client", "accepted-invalid")
                    elif not seen or not json_equal(seen[-1], {"v": data}):
                        out("client", "altered", f"handler saw {seen[-1] if seen else None!r}"[:300])
                    else:
                        out("client", "agree")
                except invalid_exc as exc:
                    out("client", "refused-valid" if valid else "agree", str(exc)[:300])
                except mcp_error as exc:
                    out("client", "error", f"{type(exc).__name__}: {exc}"[:300])
                except Exception as exc:
                    out("client", "error", f"{type(exc).__name__}: {exc}"[:300])


class _Narrower(logging.Handler):
    def __init__(self, report: Report) -> None:
        super().__init__(logging.WARNING)
        self.report = report

    def emit(self, record: logging.LogRecord) -> None:
        if "narrower than the schema" in record.getMessage():
            self.report.narrower_models += 1


def run(optional: bool = False, formats: bool = False, accelerated: bool | None = None) -> Report:
    """Run the suite; ``accelerated``: the fast extra on or off (None: as installed)."""
    report = Report(accelerated=accelerated)
    handler = _Narrower(report)
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        _run_into(report, optional, formats)
    finally:
        root.removeHandler(handler)
    return report


def _run_into(report: Report, optional: bool, formats: bool) -> None:
    groups = []
    for g in load_groups(optional):
        reason = _needs_remote(g.schema)
        if reason:
            report.excluded.append((g.file, g.description, reason))
        else:
            groups.append(g)
    flavour = ("optional" if optional else "required") + ("-formats" if formats else "")
    spec_dir, out = CACHE / flavour / "specs", CACHE / flavour / "out"
    by_file = write_specs(groups, spec_dir, formats)
    failures = build(spec_dir, out)
    sys.path.insert(0, str(out))
    for file, members in sorted(by_file.items()):
        pkg = package_name(file)
        if pkg in failures:
            report.unbuildable.append((file, failures[pkg]))
            _fail_rest(report, file, members, "unbuildable")
            continue
        try:
            asyncio.run(run_package(pkg, members, report))
        except Exception as exc:
            report.unbuildable.append((file, f"{type(exc).__name__}: {exc}"))
            _fail_rest(report, file, members, f"{type(exc).__name__}: {exc}"[:300])


def _fail_rest(report: Report, file: str, members: list[Group], detail: str) -> None:
    """An ``error`` outcome for every test of ``file`` that has none yet, on both paths."""
    done = {(o.group, o.test, o.path) for o in report.outcomes if o.file == file}
    for g in members:
        for t in g.tests:
            for path in ("server", "client"):
                if (g.description, t["description"], path) not in done:
                    report.outcomes.append(Outcome(file, g.description, t["description"], t["valid"], path,
                                                   "error", detail))


VERDICTS = ("agree", "refused-valid", "accepted-invalid", "altered", "error")


def table(report: Report) -> str:
    lines = ["| path | cases agreeing | valid data refused | invalid data accepted | data altered | errors |",
             "|---|---|---|---|---|---|"]
    for path in ("server", "client"):
        counts = Counter(o.verdict for o in report.outcomes if o.path == path)
        total = sum(counts.values())
        pct = 100.0 * counts["agree"] / total if total else 0.0
        lines.append(f"| {path} | {counts['agree']} / {total} ({pct:.1f}%) | {counts['refused-valid']} | "
                     f"{counts['accepted-invalid']} | {counts['altered']} | {counts['error']} |")
    return "\n".join(lines)


def by_file(report: Report, path: str = "server") -> str:
    """Agreement per suite file (one path), as a Markdown table."""
    lines = ["| file | agreeing | valid refused | invalid accepted | altered | errors |", "|---|---|---|---|---|---|"]
    files = sorted({o.file for o in report.outcomes})
    for file in files:
        counts = Counter(o.verdict for o in report.outcomes if o.file == file and o.path == path)
        total = sum(counts.values())
        lines.append(f"| {file} | {counts['agree']} / {total} | {counts['refused-valid']} | {counts['accepted-invalid']} | "
                     f"{counts['altered']} | {counts['error']} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--optional", action="store_true", help="run optional/ and optional/format/ instead")
    parser.add_argument("--formats", action="store_true", help="build with format assertion switched on")
    parser.add_argument("--json", type=Path, help="write every outcome to this file")
    parser.add_argument("-v", "--verbose", action="store_true", help="list every disagreement")
    parser.add_argument("--by-file", action="store_true", help="also print the server path's agreement per file")
    opts = parser.parse_args(argv)
    report = run(optional=opts.optional, formats=opts.formats)
    print(table(report))
    print(f"\nexcluded groups: {len(report.excluded)} (remote documents); unbuildable files: {len(report.unbuildable)}; "
          f"calls where the typed model was narrower than the schema: {report.narrower_models}; "
          f"tests validated by the models alone (no jsonschema): {report.model_only_tests}")
    for file, diag in report.unbuildable:
        print(f"  unbuildable {file}: {diag.strip()[:500]}")
    if opts.by_file:
        print("\n" + by_file(report))
    if opts.verbose:
        for o in report.outcomes:
            if o.verdict != "agree":
                print(f"  [{o.path}] {o.verdict}: {o.file} / {o.group} / {o.test}: {o.detail}")
    if opts.json:
        opts.json.write_text(json.dumps([o.__dict__ for o in report.outcomes], indent=1), "utf-8")
    return 0 if all(o.verdict == "agree" for o in report.outcomes) else 1


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main())
