"""``mcp-codegen build --watch``: rebuild when spec files change (polling; no dependencies).

The watcher polls the modification time and size of every ``.yaml``/``.yml``/``.json`` file
under the watched paths.  When something changed (and stayed unchanged for one more poll, so
half-written files are not built), only the affected specs are rebuilt: a spec is affected
when it or one of the files it ``$ref`` s changed.  Each rebuild is the ordinary atomic
:func:`codegen.api.build` of that one spec, so a failed build leaves the previous output.

Ctrl-C (SIGINT) or SIGTERM stops the loop between builds, never in the middle of one.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

from .api import SPEC_SUFFIXES, Result, build, discover, lower_one
from .emit import WriteReport

Stamp = tuple[int, int]  # (mtime_ns, size)


@dataclass
class BuildEvent:
    """One (re)build: which specs, and what came of it."""

    specs: list[str]
    result: Result
    report: WriteReport | None
    initial: bool = False
    removed: list[str] = field(default_factory=list)  # specs that disappeared (their output is kept)


def scan(paths: Sequence[Path]) -> dict[Path, Stamp]:
    """Stamps of every spec-like file under ``paths`` (folders recursively, files as given)."""
    stamps: dict[Path, Stamp] = {}
    for root in paths:
        candidates = [root] if root.is_file() else sorted(root.rglob("*")) if root.is_dir() else []
        for p in candidates:
            if p.suffix in SPEC_SUFFIXES and "__pycache__" not in p.parts:
                try:
                    st = p.stat()
                except OSError:
                    continue
                stamps[p.resolve()] = (st.st_mtime_ns, st.st_size)
    return stamps


class Watcher:
    """Keeps the last stamps and each spec's dependencies; decides what to rebuild.

    Args:
        paths: spec files or folders (as for ``build``).
        out: the output folder.
        on_event: called after every build with a :class:`BuildEvent`.
    """

    def __init__(self, paths: Sequence[Path], out: Path, on_event: Callable[[BuildEvent], None]) -> None:
        self.paths = list(paths)
        self.out = out
        self.on_event = on_event
        self.stamps: dict[Path, Stamp] = {}
        self.deps: dict[Path, frozenset[Path]] = {}  # spec -> files it reads (itself included)
        self.stop = threading.Event()

    def _specs(self) -> dict[Path, str]:
        found, _ = discover(self.paths)
        return {p.resolve(): display for p, display in found}

    def _record_deps(self, specs: dict[Path, str]) -> None:
        for spec, display in specs.items():
            low = lower_one(spec, display, with_models=False)
            self.deps[spec] = frozenset(p.resolve() for p in low.deps) | {spec}

    def initial_build(self) -> BuildEvent:
        """Build everything once (cross-spec checks included) and remember the stamps."""
        self.stamps = scan(self.paths)
        specs = self._specs()
        result, report = build(self.paths, self.out)
        self._record_deps(specs)
        event = BuildEvent(sorted(specs.values()), result, report, initial=True)
        self.on_event(event)
        return event

    def affected(self, changed: set[Path], specs: dict[Path, str]) -> list[Path]:
        """Specs to rebuild: new specs, and specs whose own file or a dependency changed."""
        return sorted(s for s in specs if s not in self.deps or self.deps[s] & changed)

    def poll(self, settle: float = 0.0) -> BuildEvent | None:
        """One poll: rebuild what changed since the last poll; None when nothing did.

        Args:
            settle: seconds to wait for the changed files to stop changing before building.
        """
        now = scan(self.paths)
        if now == self.stamps:
            return None
        while settle > 0 and not self.stop.is_set():
            time.sleep(settle)
            again = scan(self.paths)
            if again == now:
                break
            now = again
        changed = {p for p in set(now) | set(self.stamps) if now.get(p) != self.stamps.get(p)}
        self.stamps = now
        specs = self._specs()
        removed = sorted(str(s) for s in self.deps if s not in specs)
        for s in list(self.deps):
            if s not in specs:
                del self.deps[s]
        todo = self.affected(changed, specs)
        if not todo and not removed:
            return None
        result, report = build(todo, self.out) if todo else (Result(), None)
        self._record_deps({s: specs[s] for s in todo})
        event = BuildEvent([specs[s] for s in todo], result, report, removed=removed)
        self.on_event(event)
        return event

    def run(self, interval: float = 0.5) -> None:
        """Initial build, then poll every ``interval`` seconds until stopped (Ctrl-C / SIGTERM)."""
        previous = {}
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                previous[sig] = signal.signal(sig, self._handle_signal)
        try:
            self.initial_build()
            while not self.stop.wait(interval):
                self.poll(settle=min(interval, 0.2))
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def _handle_signal(self, signum: int, frame: FrameType | None) -> None:
        self.stop.set()
