"""Run the official MCP conformance suite against mcp-codegen (server and client).

Called by ``scripts/conformance`` (which installs Node 22 and the pinned harness first);
see docs/conformance.md.  Steps:

1. start the generated ``everything`` server (``python -m everything --http``) on a free
   127.0.0.1 port and wait until it answers;
2. check that ``tools/list`` lists every fixture tool, in both eras (an "unknown tool"
   error satisfies some scenarios, so a server without them could pass falsely);
3. run every in-scope server scenario of ``scope.yml``, for the 2025-11-25 and the
   2026-07-28 legs, one ``conformance server --scenario`` at a time;
4. stop the server (by its PID) and run every in-scope client scenario, one at a time,
   with ``client_driver.py`` (the generated client runtime) as the client;
5. print a table (passed / failed / warnings per scenario) and totals.

Extension scenarios (``extensions:`` in ``scope.yml``: not on the spec timeline, which the
harness skips at any ``--spec-version``) are run with ``--force`` at each leg that lists
them, and fail when they record no check or a SKIPPED one.

Exit status 0 only if every in-scope scenario passed, apart from the entries of
``expected-failures.yml``; an entry that no longer fails is an error too (remove it), so
the list can only shrink.  Checks are counted from the harness's ``checks.json`` files:
SUCCESS = passed, FAILURE = failed, WARNING = warning (INFO and SKIPPED are not counted, but a
SKIPPED check of an [extension] scenario fails it unless scope.yml's ``harness_skipped`` names it).
[extension] scenarios (the ``extension`` leg of scope.yml) run without ``--spec-version``.
A server scenario fails on any unexpected FAILURE check; a client scenario fails when the
harness says so (FAILURE or WARNING checks, a timeout, or the driver exiting non-zero).

Only the standard library and PyYAML are used; the venv's Python runs it.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
EXAMPLES = REPO / "generated_examples"
SCOPE_FILE = HERE / "scope.yml"
EXPECTED_FILE = HERE / "expected-failures.yml"
DRIVER = HERE / "client_driver.py"
LEGS = ("2025-03-26", "2025-11-25", "2026-07-28", "extension")  # 2025-03-26: the client's auth back-compat scenarios only
EXTENSION = "extension"  # [extension] scenarios: no --spec-version (the harness speaks 2026-07-28)
MODERN = "2026-07-28"
SIMPLE_TEXT = "This is a simple text response for testing."


# ----------------------------------------------------------------------------- data
@dataclass
class Outcome:
    kind: str  # "server" | "client"
    leg: str
    scenario: str
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    warnings: int = 0
    ok: bool = False
    note: str = ""
    failures: list[str] = field(default_factory=list)  # "check-id: message"
    expected: list[str] = field(default_factory=list)  # expected-failure entries that matched
    seconds: float = 0.0

    @property
    def label(self) -> str:
        return f"{self.kind} {self.leg}"


def load_yaml(path: Path) -> Any:
    with path.open(encoding="utf-8") as f:
        return yaml.safe_load(f)


def load_expected(path: Path) -> dict[str, dict[str, str]]:
    """``{"server 2026-07-28": {"scenario[:check-id]": reason, ...}, ...}``."""
    raw = load_yaml(path) if path.exists() else None
    out: dict[str, dict[str, str]] = {}
    for kind in ("server", "client"):
        legs = (raw or {}).get(kind) or {}
        for leg, entries in legs.items():
            table: dict[str, str] = {}
            for entry, reason in (entries or {}).items():
                if not isinstance(reason, str) or not reason.strip():
                    raise SystemExit(f"{path}: entry {entry!r} ({kind} {leg}) needs a one-line reason")
                table[str(entry)] = reason.strip()
            out[f"{kind} {leg}"] = table
    return out


# ----------------------------------------------------------------------------- server process
def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class FixtureServer:
    """``python -m everything --http`` on 127.0.0.1, stopped by its own PID."""

    def __init__(self, out_dir: Path) -> None:
        self.port = free_port()
        self.url = f"http://localhost:{self.port}/mcp"
        self.log_path = out_dir / "server.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 30.0) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = str(EXAMPLES) + os.pathsep + env.get("PYTHONPATH", "")
        cmd = [sys.executable, "-m", "everything", "--http", "--host", "127.0.0.1", "--port", str(self.port)]
        log = self.log_path.open("wb")
        self.proc = subprocess.Popen(cmd, cwd=EXAMPLES, env=env, stdout=log, stderr=subprocess.STDOUT)
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit(f"fixture server exited with {self.proc.returncode}; see {self.log_path}")
            try:
                urllib.request.urlopen(urllib.request.Request(self.url, data=b"{}", method="POST"), timeout=2)
                return
            except urllib.error.HTTPError:
                return  # any HTTP answer (400 here) means it is up
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise SystemExit(f"fixture server did not answer on {self.url} within {timeout:.0f}s; see {self.log_path}")

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def _post(url: str, body: dict[str, Any], headers: dict[str, str]) -> tuple[dict[str, Any] | None, Any]:
    """POST one JSON-RPC message; (the JSON-RPC response or None, the response headers)."""
    all_headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream", **headers}
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers=all_headers, method="POST")
    with urllib.request.urlopen(request, timeout=15) as response:
        text = response.read().decode("utf-8")
        ctype = response.headers.get("Content-Type", "")
        if not text.strip():
            return None, response.headers
        if "text/event-stream" in ctype:
            for line in text.splitlines():
                if line.startswith("data:") and line[5:].strip():
                    message = json.loads(line[5:])
                    if isinstance(message, dict) and message.get("id") == body.get("id"):
                        return message, response.headers
            return None, response.headers
        return json.loads(text), response.headers


def listed_tools(url: str) -> dict[str, set[str]]:
    """The tool names ``tools/list`` returns, per era (first page only, like the scenarios)."""
    meta = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "mcp-codegen-conformance", "version": "1"},
    }
    modern, _ = _post(
        url,
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}},
        {"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/list"},
    )
    init = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}}
    _, headers = _post(url, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init}, {})
    session = {"Mcp-Session-Id": headers.get("Mcp-Session-Id", ""), "MCP-Protocol-Version": "2025-11-25"}
    _post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
    legacy, _ = _post(url, {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}, session)
    if session["Mcp-Session-Id"]:
        try:
            urllib.request.urlopen(urllib.request.Request(url, headers=session, method="DELETE"), timeout=5)
        except OSError:
            pass
    # tools-call-simple-text also accepts an isError result with any text: demand the real one.
    call, _ = _post(
        url,
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
         "params": {"name": "test_simple_text", "arguments": {}, "_meta": meta}},
        {"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": "test_simple_text"},
    )  # fmt: skip
    result = (call or {}).get("result") or {}
    if result.get("isError") or result.get("content") != [{"type": "text", "text": SIMPLE_TEXT}]:
        raise SystemExit(f"test_simple_text answered {call!r}: the fixture server is broken")
    out: dict[str, set[str]] = {}
    for era, answer in (("2026-07-28", modern), ("2025-11-25", legacy)):
        tools = (answer or {}).get("result", {}).get("tools", [])
        out[era] = {t.get("name") for t in tools if isinstance(t, dict)}
    return out


# ----------------------------------------------------------------------------- harness runs
def read_checks(directory: Path) -> list[dict[str, Any]]:
    checks: list[dict[str, Any]] = []
    for path in sorted(directory.rglob("checks.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, list):
            checks.extend(c for c in data if isinstance(c, dict))
    return checks


def score(outcome: Outcome, checks: list[dict[str, Any]], expected: dict[str, str]) -> None:
    """Count the checks; FAILURE checks not covered by ``expected`` go to ``outcome.failures``."""
    for check in checks:
        status = check.get("status")
        if status == "SUCCESS":
            outcome.passed += 1
        elif status == "WARNING":
            outcome.warnings += 1
        elif status == "SKIPPED" and outcome.leg == EXTENSION:  # an extension scenario's checks must all run
            outcome.skipped += 1
            cid = str(check.get("id"))
            if f"{outcome.scenario}:{cid}" not in HARNESS_SKIPPED:
                outcome.failures.append(f"{cid}: SKIPPED: {check.get('errorMessage') or ''}"[:300])
        elif status == "FAILURE":
            outcome.failed += 1
            cid = str(check.get("id"))
            message = " ".join(str(check.get("errorMessage") or check.get("description") or "").split())
            for key in (f"{outcome.scenario}:{cid}", outcome.scenario):
                if key in expected:
                    if key not in outcome.expected:
                        outcome.expected.append(key)
                    break
            else:
                outcome.failures.append(f"{cid}: {message[:300]}")


#: What the harness prints when ``--spec-version`` is given for an [extension] scenario (not on
#: the spec timeline): such a scenario is run again with ``--force`` at that version.
EXTENSION_SKIP = "extension scenario, not on the spec timeline"


def run_harness(args: list[str], out_dir: Path, timeout: float) -> tuple[int, str]:
    """Run ``conformance <args>``; (exit code, combined output).  Output is saved too.  An
    extension scenario the harness skips at a given ``--spec-version`` is run with ``--force``."""
    code, text = _run_harness(args, out_dir, timeout)
    if EXTENSION_SKIP in text and "--force" not in args:
        code, text = _run_harness([*args, "--force"], out_dir, timeout)
    return code, text


def _run_harness(args: list[str], out_dir: Path, timeout: float) -> tuple[int, str]:
    out_dir.mkdir(parents=True, exist_ok=True)
    try:
        proc = subprocess.run(
            [HARNESS, *args, "-o", str(out_dir)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            timeout=timeout,
            cwd=REPO,
        )
        code, text = proc.returncode, proc.stdout.decode("utf-8", "replace")
    except subprocess.TimeoutExpired as exc:
        code, text = -1, (exc.stdout or b"").decode("utf-8", "replace") + f"\n[harness timed out after {timeout:.0f}s]"
    (out_dir / "harness-output.txt").write_text(text, encoding="utf-8")
    return code, text


def run_server_scenario(url: str, leg: str, scenario: str, out_root: Path, expected: dict[str, str]) -> Outcome:
    outcome = Outcome("server", leg, scenario)
    started = time.monotonic()
    out_dir = out_root / f"server-{leg}" / scenario
    version = [] if leg == EXTENSION else ["--spec-version", leg]
    code, text = run_harness(
        ["server", "--url", url, "--scenario", scenario, *version, "--timeout", "60000"], out_dir, 120
    )
    outcome.seconds = time.monotonic() - started
    checks = read_checks(out_dir)
    score(outcome, checks, expected)
    if not checks:
        outcome.note = "no checks recorded (harness error, see harness-output.txt)"
        outcome.failures.append(f"harness exit {code}: {text.strip().splitlines()[-1:] or ''}")
    if "SKIPPED: scenario" in text:
        outcome.note = "skipped by the harness (not applicable at this version)"
        outcome.failures.append("scenario was skipped")
    outcome.ok = not outcome.failures
    return outcome


def run_client_scenario(leg: str, scenario: str, out_root: Path, expected: dict[str, str],
                        extension: bool = False) -> Outcome:
    outcome = Outcome("client", leg, scenario)
    started = time.monotonic()
    out_dir = out_root / f"client-{leg}" / scenario
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(DRIVER))}"
    code, text = run_harness(
        ["client", "--command", command, "--scenario", scenario, "--spec-version", leg, "--timeout", "60000",
         *(["--force"] if extension else [])],
        out_dir,
        120,
    )
    outcome.seconds = time.monotonic() - started
    checks = read_checks(out_dir)
    score(outcome, checks, expected)
    if extension:  # every check of an extension scenario must run (none skipped, some recorded)
        skipped = [str(c.get("id")) for c in checks if c.get("status") == "SKIPPED"]
        if skipped:
            outcome.failures.append(f"skipped check(s): {', '.join(skipped)}")
        if not checks:
            outcome.failures.append("no checks recorded (skipped by the harness?)")
    if code != 0 and not outcome.failures:
        # The harness also fails a client scenario on warnings, a timeout or a driver crash.
        where = out_dir / "harness-output.txt"
        if scenario in expected:
            if scenario not in outcome.expected:
                outcome.expected.append(scenario)
        elif outcome.warnings:
            outcome.failures.append(f"{outcome.warnings} warning check(s) (client scenarios fail on warnings); see {where}")
        elif not outcome.expected:
            outcome.failures.append(f"harness exit {code} (driver failure or timeout); see {where}")
    if not checks:
        outcome.note = "no checks recorded"
    outcome.ok = not outcome.failures
    return outcome


# ----------------------------------------------------------------------------- report
def print_table(outcomes: list[Outcome]) -> None:
    width = max([len(o.scenario) for o in outcomes] + [8])
    header = f"{'suite':<18} {'scenario':<{width}} {'passed':>6} {'failed':>6} {'warn':>5}  result"
    print("\n" + header)
    print("-" * len(header))
    for o in outcomes:
        if o.ok and o.expected:
            result = "ok (expected failures: " + ", ".join(o.expected) + ")"
        elif o.ok:
            result = "PASS"
        else:
            result = "FAIL"
        print(f"{o.label:<18} {o.scenario:<{width}} {o.passed:>6} {o.failed:>6} {o.warnings:>5}  {result}")
    print("-" * len(header))
    groups: dict[str, list[Outcome]] = {}
    for o in outcomes:
        groups.setdefault(o.label, []).append(o)
    for label, items in groups.items():
        ok = sum(1 for o in items if o.ok)
        checks = sum(o.passed for o in items), sum(o.failed for o in items), sum(o.warnings for o in items)
        print(
            f"{label:<18} scenarios {ok}/{len(items)} passed; "
            f"checks {checks[0]} passed, {checks[1]} failed, {checks[2]} warnings"
        )
    total_ok = sum(1 for o in outcomes if o.ok)
    print(f"{'total':<18} scenarios {total_ok}/{len(outcomes)} passed")


def write_markdown(outcomes: list[Outcome], path: Path) -> None:
    lines = ["| suite | scenario | passed | failed | warnings | result |", "|---|---|---|---|---|---|"]
    for o in outcomes:
        result = "pass" if o.ok and not o.expected else ("expected failure" if o.ok else "**FAIL**")
        lines.append(f"| {o.label} | {o.scenario} | {o.passed} | {o.failed} | {o.warnings} | {result} |")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


# ----------------------------------------------------------------------------- main
HARNESS = "conformance"
HARNESS_SKIPPED: dict[str, str] = {}  # scope.yml harness_skipped


def main(argv: list[str] | None = None) -> int:
    global HARNESS, HARNESS_SKIPPED
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--harness", default=os.environ.get("CONFORMANCE_BIN", "conformance"),
                        help="path of the conformance CLI (scripts/conformance sets it)")
    parser.add_argument("--out", type=Path, default=REPO / ".tools" / "conformance-results",
                        help="where the harness writes checks.json files (emptied first)")
    parser.add_argument("--only", choices=("server", "client"), help="run only one side")
    parser.add_argument("--leg", choices=LEGS, help="run only one protocol version")
    parser.add_argument("--scenario", action="append", default=[], help="run only these scenarios (repeatable)")
    args = parser.parse_args(argv)
    HARNESS = shutil.which(args.harness) or args.harness

    scope = load_yaml(SCOPE_FILE)
    expected = load_expected(EXPECTED_FILE)
    HARNESS_SKIPPED = dict(scope.get("harness_skipped") or {})
    fixture_tools = set(scope["fixture_tools"])
    extensions = set(scope.get("extensions") or [])
    if args.out.exists():
        shutil.rmtree(args.out)
    args.out.mkdir(parents=True)

    def wanted(kind: str) -> list[tuple[str, str]]:
        if args.only not in (None, kind):
            return []
        pairs = [(leg, s) for leg in LEGS for s in scope[kind].get(leg, [])]
        pairs = [(leg, s) for leg, s in pairs if args.leg in (None, leg)]
        return [(leg, s) for leg, s in pairs if not args.scenario or s in args.scenario]

    outcomes: list[Outcome] = []
    problems: list[str] = []
    server_runs = wanted("server")
    if server_runs:
        server = FixtureServer(args.out)
        try:
            server.start()
            print(f"fixture server: {server.url} (pid {server.proc.pid if server.proc else '?'})", flush=True)
            for era, names in listed_tools(server.url).items():
                missing = sorted(fixture_tools - names)
                if missing:
                    raise SystemExit(f"tools/list ({era}) lacks fixture tools {missing}: refusing to trust a run")
            print(f"fixture tools present in tools/list (both eras): {len(fixture_tools)}", flush=True)
            for leg, scenario in server_runs:
                outcome = run_server_scenario(server.url, leg, scenario, args.out, expected.get(f"server {leg}", {}))
                outcomes.append(outcome)
                print(f"  {'ok  ' if outcome.ok else 'FAIL'} server {leg} {scenario} ({outcome.seconds:.1f}s)", flush=True)
        finally:
            server.stop()
    for leg, scenario in wanted("client"):
        outcome = run_client_scenario(leg, scenario, args.out, expected.get(f"client {leg}", {}),
                                      extension=scenario in extensions)
        outcomes.append(outcome)
        print(f"  {'ok  ' if outcome.ok else 'FAIL'} client {leg} {scenario} ({outcome.seconds:.1f}s)", flush=True)

    print_table(outcomes)
    write_markdown(outcomes, args.out / "summary.md")
    for o in outcomes:
        for failure in o.failures:
            problems.append(f"{o.label} {o.scenario}: {failure}")
    # Stale expected failures: listed, run, and no longer failing.
    ran = {(o.label, o.scenario): o for o in outcomes}
    for label, entries in expected.items():
        for entry in entries:
            scenario = entry.split(":", 1)[0]
            o = ran.get((label, scenario))
            if o is not None and entry not in o.expected:
                problems.append(f"{label} {entry}: listed in expected-failures.yml but passed; remove it")
    if problems:
        print("\nProblems:")
        for line in problems:
            print(f"  - {line}")
        print(f"\nDetails: {args.out}/<suite>/<scenario>/ (checks.json, harness-output.txt), server log {args.out}/server.log")
        return 1
    print(f"\nAll in-scope conformance scenarios passed. Details: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
