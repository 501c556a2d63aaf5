"""``mcp-codegen dev SPEC``: the edit-run loop of one server.

Builds the spec (and, once, an implementation stub if there is none), serves the package over
Streamable HTTP on 127.0.0.1 in a child process, and prints the MCP Inspector commands that
reach it.  Then it polls: a change to the spec (or a ``$ref``-ed file) rebuilds and restarts the
server; a change to a Python file of the implementation's folder restarts it.  A failed build
keeps the previous server running and says why.  Ctrl-C (or SIGTERM) stops the server by its
PID and exits.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from ..api import scaffold
from ..diagnostics import Diagnostic
from ..driver.pipeline import lower_one
from ..options import Options
from .watch import BuildEvent, Stamp, Watcher

INSPECTOR = "npx @modelcontextprotocol/inspector"


@dataclass(frozen=True)
class Target:
    """What the loop serves: the package, its implementation and where it listens."""

    package: str
    impl: str  # module:Class
    url: str


def _py_stamps(folders: list[Path]) -> dict[Path, Stamp]:
    stamps: dict[Path, Stamp] = {}
    for folder in folders:
        for p in sorted(folder.glob("*.py")):
            try:
                st = p.stat()
            except OSError:
                continue
            stamps[p] = (st.st_mtime_ns, st.st_size)
    return stamps


class DevLoop:
    """Build, serve, watch, restart (see the module docstring).

    Args:
        spec: the spec file.
        out: the output folder (the implementation stub goes there too).
        port: the HTTP port on 127.0.0.1.
        impl: ``module:Class`` of the handlers (default: the spec's ``server.implementation``,
            else the stub ``<package>_impl:<Name>Service``).
        say: where status lines go.
    """

    def __init__(self, spec: Path, out: Path, port: int, impl: str | None, say: Callable[[str], None],
                 diagnostics: Callable[[list[Diagnostic]], None], options: Options | None = None) -> None:
        self.spec, self.out, self.port, self.impl, self.say, self.diagnostics = spec, out, port, impl, say, diagnostics
        self.stop = threading.Event()
        self.server: subprocess.Popen[bytes] | None = None
        self.rebuilt = False
        self.options = self._with_server(options or Options())
        self.watcher = Watcher([spec], out, self._built, self.options)  # the same output as `build`
        self.watched_code = [out.resolve(), Path.cwd().resolve()]

    def _with_server(self, options: Options) -> Options:
        """``options`` with a target that has a server side (a client-only spec is served as both)."""
        low = lower_one(self.spec, self.spec.name, with_models=False)
        target = options.target or (low.ir.server.target if low.ir is not None else None)
        if target == "client":
            self.say("the spec's target is client; dev builds the server side too (--target both)")
            return Options("both", options.shared_runtime)
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
        impl = self.impl or s.implementation or f"{s.impl_module}:{s.impl_class}"
        return Target(s.package, impl, f"http://127.0.0.1:{self.port}/mcp")

    # -- serving -------------------------------------------------------------------------
    def start(self, target: Target) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([str(self.out.resolve()), str(Path.cwd()), env.get("PYTHONPATH", "")])
        argv = [sys.executable, "-m", target.package, "--http", "--host", "127.0.0.1", "--port", str(self.port),
                "--impl", target.impl, "--log-level", "INFO"]
        self.server = subprocess.Popen(argv, cwd=self.out, env=env)
        self.say(f"serving {target.package} ({target.impl}) at {target.url}  [pid {self.server.pid}]")

    def halt(self) -> None:
        proc, self.server = self.server, None
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)

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
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def _loop(self, interval: float) -> int:
        self.watcher.initial_build()
        target = self.target()
        if target is None:
            self.say("the spec does not build; fix it (watching)")
        else:
            self._hello(target)
            self._serve(target)
        code = _py_stamps(self.watched_code)
        exited_reported = False
        while not self.stop.wait(interval):
            self.rebuilt = False
            self.watcher.poll(settle=min(interval, 0.2))
            now = _py_stamps(self.watched_code)
            changed_code = now != code
            code = now
            if self.rebuilt or (changed_code and target is not None):
                fresh = self.target()
                if fresh is not None:
                    if changed_code and not self.rebuilt:
                        self.say("implementation changed: restarting")
                    if target is None:
                        self._hello(fresh)
                    target = fresh
                    self._serve(target)
                    code = _py_stamps(self.watched_code)  # a stub written just now is not a change
                    exited_reported = False
            if self.server is not None and self.server.poll() is not None and not exited_reported:
                self.say(f"the server exited with status {self.server.returncode}; waiting for a change")
                exited_reported = True
        self.say("stopped")
        return 0

    def _serve(self, target: Target) -> None:
        """(Re)start the server, writing the implementation stub first if it is missing."""
        module = target.impl.partition(":")[0]
        if self.impl is None and not (self.out / f"{module}.py").exists():
            written, _, _ = scaffold([self.spec], self.out)
            for path in written:
                self.say(f"wrote {path}: one stub per tool, yours to fill in")
        self.halt()
        self.start(target)

    def _hello(self, target: Target) -> None:
        self.say("inspect it with the MCP Inspector:")
        self.say(f"  {INSPECTOR}   (UI; connect to {target.url}, transport Streamable HTTP)")
        self.say(f"  {INSPECTOR} --cli {target.url} --transport http --method tools/list")
        self.say(f"  {INSPECTOR} --cli {target.url} --transport http --method tools/call --tool-name NAME "
                 "--tool-arg key=value")

    def _handle_signal(self, signum: int, frame: FrameType | None) -> None:
        self.stop.set()
