"""``mcp-codegen dev SPEC``: the edit-run loop of one server.

Builds the spec into the output folder (``-o``, else ``[tool.mcp-codegen] output``, else
:data:`DEFAULT_OUTPUT`), serves the package over Streamable HTTP on 127.0.0.1 in a child
process, and prints the MCP Inspector commands that reach it (``--inspector`` also starts the
Inspector's web UI).  The implementation is ``--impl``, else the spec's
``server.implementation``, else the scaffold class ``<package>_impl:<Name>Service``; it is
imported the way ``python -m`` would import it from the folder ``dev`` was started in (see
:mod:`codegen.commands.devpath`), and only when the scaffold class is found nowhere on that path is its
stub written into the output folder.

Then it polls: a change to the spec or a file it ``$ref`` s rebuilds and restarts the server;
a change to a source file the server imported (its report, see :mod:`codegen.commands.devpath`), or to
where the implementation module would be found, restarts it; other files do not.  A failed
build keeps the previous server running and says why.  Ctrl-C (or SIGTERM) stops the server
(and the Inspector) by PID and exits.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

from ..api import scaffold
from ..diagnostics import Diagnostic
from ..driver.pipeline import lower_one
from ..options import Options
from .devpath import BOOTSTRAP, child_env, installed_module, module_candidates, read_report, search_path
from .watch import BuildEvent, Stamp, Watcher

#: The Inspector as ``npx`` runs it without asking (``-y``: no prompt, so it works in scripts).
INSPECTOR = ("npx", "-y", "@modelcontextprotocol/inspector")
#: The output folder when neither ``-o`` nor ``[tool.mcp-codegen] output`` names one.
DEFAULT_OUTPUT = Path("generated")


def inspector_ui(url: str) -> list[str]:
    """The command line of the Inspector's web UI, connected to ``url``."""
    return [*INSPECTOR, "--transport", "http", "--server-url", url]


def inspector_cli(url: str, method: str, *more: str) -> list[str]:
    """The command line of one Inspector CLI request to ``url``."""
    return [*INSPECTOR, "--cli", url, "--transport", "http", "--method", method, *more]


def _local(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    """``schema``, its local ``$ref`` (``#/...``) followed a few levels."""
    for _ in range(8):
        ref = schema.get("$ref")
        if not isinstance(ref, str) or not ref.startswith("#/"):
            break
        node: Any = root
        for part in ref[2:].split("/"):
            node = node.get(part.replace("~1", "/").replace("~0", "~")) if isinstance(node, dict) else None
        if not isinstance(node, dict):
            break
        schema = node
    return schema


def _sample(schema: dict[str, Any]) -> str | None:
    """A value the Inspector's ``--tool-arg key=value`` can send for a scalar property, or None."""
    for key in ("default", "const"):
        if isinstance(schema.get(key), (str, int, float, bool)):
            return str(schema[key]).lower() if isinstance(schema[key], bool) else str(schema[key])
    if isinstance(schema.get("enum"), list) and schema["enum"] and isinstance(schema["enum"][0], (str, int)):
        return str(schema["enum"][0])
    return {"string": "text", "integer": "1", "number": "1", "boolean": "true"}.get(str(schema.get("type")))


def sample_call(tools: list[dict[str, Any]]) -> list[str] | None:
    """``--tool-name NAME [--tool-arg k=v ...]`` for the first tool whose required arguments
    all have a scalar sample value (so the printed command works as pasted), or None."""
    for tool in tools:
        schema = tool.get("inputSchema") or {}
        props = schema.get("properties") or {}
        args = []
        for key in schema.get("required") or []:
            value = _sample(_local(props.get(key) or {}, schema))
            if value is None:
                break
            args.append(f"{key}={value}")
        else:
            return ["--tool-name", tool["name"], *(["--tool-arg", *args] if args else [])]
    return None


@dataclass(frozen=True)
class Target:
    """What the loop serves: the package, its implementation and where it listens."""

    package: str
    impl: str  # module:Class
    url: str
    source: str = "--impl"  # --impl | server.implementation | scaffold
    call: tuple[str, ...] | None = None  # a sample tools/call's arguments (see sample_call)
    stubs: tuple[tuple[str, str], ...] = ()  # (handler method, its stub as build --scaffold writes it)


class DevLoop:
    """Build, serve, watch, restart (see the module docstring).

    Args:
        spec: the spec file.
        out: the output folder (the implementation stub goes there too).
        port: the HTTP port on 127.0.0.1.
        impl: ``module:Class`` of the handlers (default: the spec's ``server.implementation``,
            else the scaffold ``<package>_impl:<Name>Service``).
        say: where status lines go.
        diagnostics: where build diagnostics go.
        options: build options.
        inspector: also start the Inspector's web UI, connected to the server.
    """

    def __init__(self, spec: Path, out: Path, port: int, impl: str | None, say: Callable[[str], None],
                 diagnostics: Callable[[list[Diagnostic]], None], options: Options | None = None,
                 inspector: bool = False) -> None:
        self.spec, self.out, self.port, self.impl, self.say, self.diagnostics = spec, out, port, impl, say, diagnostics
        self.inspector = inspector
        self.stop = threading.Event()
        self.server: subprocess.Popen[bytes] | None = None
        self.inspector_proc: subprocess.Popen[bytes] | None = None
        self.rebuilt = False
        self.options = self._with_server(options or Options())
        self.watcher = Watcher([spec], out, self._built, self.options)  # the same output as `build`
        self.cwd = Path.cwd().resolve()
        self.folders = search_path(self.cwd, os.environ.get("PYTHONPATH", ""), out)
        self.tmp = Path(tempfile.mkdtemp(prefix="mcp-codegen-dev-"))
        self.report = self.tmp / "imports.txt"
        self.imported: set[Path] = set()  # the source files the servers reported importing
        self.code: dict[Path, Stamp | None] = {}

    def _with_server(self, options: Options) -> Options:
        """``options`` with a target that has a server side (a client-only spec is served as both)."""
        low = lower_one(self.spec, self.spec.name, with_models=False)
        target = options.target or (low.ir.server.target if low.ir is not None else None)
        if target == "client":
            self.say("the spec's target is client; dev builds the server side too (--target both)")
            return Options("both", options.runtime)
        return options

    # -- building ------------------------------------------------------------------------
    def _built(self, event: BuildEvent) -> None:
        self.diagnostics(event.result.diagnostics)
        if event.report is None and event.specs:
            self.say(f"build of {', '.join(event.specs)} failed; the running server is unchanged")
        elif event.report is not None:
            r = event.report
            self.say(f"built {', '.join(event.specs)}: {len(r.created)} created, {len(r.updated)} updated, "
                     f"{len(r.deleted)} deleted")
            self.rebuilt = True

    def target(self) -> Target | None:
        low = lower_one(self.spec, self.spec.name)
        if low.ir is None:
            return None
        s = low.ir.server
        impl, source = ((self.impl, "--impl") if self.impl else (s.implementation, "server.implementation")
                        if s.implementation else (f"{s.impl_module}:{s.impl_class}", "scaffold"))
        call = sample_call([t.wire for t in low.ir.tools])
        return Target(s.package, impl, f"http://127.0.0.1:{self.port}/mcp", source, tuple(call) if call else None,
                      handler_stubs(low.ir))

    # -- what restarts the server ------------------------------------------------------------
    def _watched(self, target: Target | None) -> set[Path]:
        """The server's imported source files, and where its implementation module is looked for."""
        self.imported.update(read_report(self.report) or ())  # cumulative: a server that failed early imported less
        watched = set(self.imported)
        if target is not None:
            watched.update(module_candidates(target.impl.partition(":")[0], self.folders)[1])
        return watched

    def _code_changed(self, target: Target | None) -> list[Path]:
        """The watched files changed since the last poll (files newly watched are not changes)."""
        now: dict[Path, Stamp | None] = {}
        for path in self._watched(target):
            try:
                st = path.stat()
                now[path] = (st.st_mtime_ns, st.st_size)
            except OSError:
                now[path] = None
        changed = sorted(p for p in now if p in self.code and self.code[p] != now[p])
        self.code = now
        return changed

    # -- serving -------------------------------------------------------------------------
    def start(self, target: Target) -> None:
        self.report.unlink(missing_ok=True)
        argv = [sys.executable, "-c", BOOTSTRAP, target.package, "--http", "--host", "127.0.0.1", "--port",
                str(self.port), "--impl", target.impl, "--log-level", "INFO"]
        self.server = subprocess.Popen(argv, cwd=self.cwd, env=child_env(self.folders, self.report))
        self.say(f"serving {target.package} ({target.impl}) at {target.url}  [pid {self.server.pid}]")

    def halt(self) -> None:
        proc, self.server = self.server, None
        _stop(proc)

    # -- the loop ------------------------------------------------------------------------
    def run(self, interval: float = 0.5) -> int:
        previous = {}
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                previous[sig] = signal.signal(sig, self._handle_signal)
        try:
            return self._loop(interval)
        finally:
            self.halt()
            _stop(self.inspector_proc, group=True)
            shutil.rmtree(self.tmp, ignore_errors=True)
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def _loop(self, interval: float) -> int:
        self.watcher.initial_build()
        target = self.target()
        if target is None:
            self.say("the spec does not build; fix it (watching)")
        else:
            self._serve(target)
            self._hello(target)
        self._code_changed(target)
        exited_reported = False
        while not self.stop.wait(interval):
            self.rebuilt = False
            self.watcher.poll(settle=min(interval, 0.2))
            changed = self._code_changed(target)
            if self.rebuilt or (changed and target is not None):
                fresh = self.target()
                if fresh is not None:
                    if changed and not self.rebuilt:
                        self.say(f"{_show(changed[0], self.cwd)} changed: restarting")
                    if target is None:
                        self._hello(fresh)
                    else:
                        self._new_handlers(target, fresh)
                    target = fresh
                    self._serve(target)
                    self._code_changed(target)  # a stub written just now is not a change
                    exited_reported = False
            if self.server is not None and self.server.poll() is not None and not exited_reported:
                self.say(f"the server exited with status {self.server.returncode}; waiting for a change")
                exited_reported = True
        self.say("stopped")
        return 0

    def _serve(self, target: Target) -> None:
        """(Re)start the server, writing the scaffold stub first if no implementation resolves."""
        module = target.impl.partition(":")[0]
        found, _ = module_candidates(module, self.folders)
        found = found or installed_module(module)
        where = os.pathsep.join(_show(f, self.cwd) for f in self.folders)
        if found is None and target.source == "scaffold":
            written, _, _ = scaffold([self.spec], self.out)
            for path in written:
                self.say(f"no {module}.py on the module path {where}; wrote {path}: one stub per tool, yours to fill in")
        elif found is not None and not self.server:
            self.say(f"implementation: {target.impl} ({target.source}) from {_show(found, self.cwd)}")
        elif found is None and not self.server:
            self.say(f"implementation: {target.impl} ({target.source}), but no {module}.py on the module path {where}")
        self.halt()
        self.start(target)

    def _new_handlers(self, before: Target, after: Target) -> None:
        """The stub of each handler the spec declares now and did not before (a tool added while
        dev runs): the method to paste into the implementation, which answers "not implemented"
        for it until then."""
        known = {name for name, _ in before.stubs}
        for name, stub in after.stubs:
            if name not in known:
                self.say(f"the spec now declares {name}(); add it to {after.impl} (until then calls to it fail):")
                for line in stub.splitlines():
                    self.say(f"  {line}")

    def _hello(self, target: Target) -> None:
        self.say("inspect it with the MCP Inspector (Node.js 22+), web UI:")
        self.say(f"  {shlex.join(inspector_ui(target.url))}")
        self.say("or one request from the command line:")
        self.say(f"  {shlex.join(inspector_cli(target.url, 'tools/list'))}")
        if target.call:
            self.say(f"  {shlex.join(inspector_cli(target.url, 'tools/call', *target.call))}")
        if self.inspector and self.inspector_proc is None:
            self.start_inspector(target.url)

    def start_inspector(self, url: str) -> None:
        """Start the Inspector's web UI connected to ``url`` (its own process group, stopped with dev)."""
        argv = inspector_ui(url)
        if shutil.which(argv[0]) is None:
            self.say("--inspector needs npx (Node.js 22+, https://nodejs.org); serving without it")
            return
        self.inspector_proc = subprocess.Popen(argv, cwd=self.cwd, stdin=subprocess.DEVNULL, start_new_session=True)
        self.say(f"started the MCP Inspector  [pid {self.inspector_proc.pid}]")

    def _handle_signal(self, signum: int, frame: FrameType | None) -> None:
        self.stop.set()


def handler_stubs(ir: Any) -> tuple[tuple[str, str], ...]:
    """(method, source) of every handler stub ``build --scaffold`` writes for ``ir``'s server."""
    import ast
    import textwrap

    from ..render.package import render_scaffold

    text = render_scaffold(ir).content
    out: list[tuple[str, str]] = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    lines = text.splitlines()[(item.decorator_list[0].lineno if item.decorator_list else item.lineno) - 1:
                                              item.end_lineno]
                    out.append((item.name, textwrap.dedent("\n".join(lines))))
    return tuple(out)


def _show(path: Path, cwd: Path) -> str:
    """``path`` relative to ``cwd`` when it is inside it."""
    try:
        return str(path.relative_to(cwd)) or "."
    except ValueError:
        return str(path)


def _stop(proc: subprocess.Popen[bytes] | None, group: bool = False) -> None:
    """SIGTERM ``proc`` (its process group when ``group``), SIGKILL after 10 s."""
    if proc is None or proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM) if group else proc.send_signal(signal.SIGTERM)
        proc.wait(10)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL) if group else proc.kill()
        proc.wait(5)
    except ProcessLookupError:
        pass
