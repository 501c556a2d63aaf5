"""``mcp-codegen build --watch``: rebuild when spec files change (polling; no dependencies).

The watcher polls the modification time and size of every ``.yaml``/``.yml``/``.json`` file
under the watched paths, and of every file a spec ``$ref`` s (wherever it is).  When something changed (and stayed unchanged for one more poll, so
half-written files are not built), only the affected specs are rebuilt: a spec is affected
when it or one of the files it ``$ref`` s changed, or when its last build failed.  Each
rebuild is the ordinary atomic :func:`codegen.api.build` of that one spec, so a failed build
leaves the previous output and does not hold back the other specs.  (The initial build is
one :func:`~codegen.api.build` of everything, with the cross-spec package-name check.)

Ctrl-C (SIGINT) or SIGTERM stops the loop between builds, never in the middle of one.
"""

from __future__ import annotations

import gc
import signal
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

from ..api import build
from ..driver.pipeline import Result, lower_one
from ..options import DEFAULT, Options
from ..output.emit import WriteReport
from ..spec.discovery import SPEC_SUFFIXES, discover

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

    def __init__(self, paths: Sequence[Path], out: Path, on_event: Callable[[BuildEvent], None],
                 options: Options = DEFAULT) -> None:
        self.options = options
        self.paths = list(paths)
        self.out = out
        self.on_event = on_event
        self.stamps: dict[Path, Stamp] = {}
        self.deps: dict[Path, frozenset[Path]] = {}  # spec -> files it reads (itself included)
        self.failed: set[Path] = set()  # specs whose last build failed
        self.stop = threading.Event()

    def _specs(self) -> dict[Path, str]:
        found, _ = discover(self.paths)
        return {p.resolve(): display for p, display in found}

    def _scan(self) -> dict[Path, Stamp]:
        """Stamps of the watched paths and of every file a spec reads (a ``$ref``-ed file outside
        them, or next to a spec file given alone, included)."""
        return scan([*self.paths, *sorted({p for deps in self.deps.values() for p in deps})])

    def _add_new_deps(self) -> None:
        """Start watching the dependency files found by the last build (not a change)."""
        for path, stamp in self._scan().items():
            self.stamps.setdefault(path, stamp)

    def _record_deps(self, specs: dict[Path, str]) -> None:
        for spec, display in specs.items():
            low = lower_one(spec, display, with_models=False)
            self.deps[spec] = frozenset(p.resolve() for p in low.deps) | {spec}

    def initial_build(self) -> BuildEvent:
        """Build everything once (cross-spec checks included) and remember the stamps."""
        self.stamps = scan(self.paths)
        specs = self._specs()
        result, report = build(self.paths, self.out, options=self.options)
        self._record_deps(specs)
        self._add_new_deps()
        self.failed = set(specs) if report is None else set()
        event = BuildEvent(sorted(specs.values()), result, report, initial=True)
        self.on_event(event)
        return event

    @staticmethod
    def freeze_heap() -> None:
        """Move what the process holds after the initial build out of the garbage collector's view.

        The generator's imports (black, datamodel-code-generator, jsonschema, pydantic) leave
        some 200,000 tracked objects; every full collection walks them all, which took 0.1 to
        0.2 s of CPU in one rebuild out of four or so.  After a collection, ``gc.freeze()``
        moves the survivors to a generation that is never scanned.  They are still freed by
        reference counting; only a cycle among them would stay (none is made after this).
        :meth:`run` calls it once, after the initial build.
        """
        gc.collect()
        gc.freeze()

    def affected(self, changed: set[Path], specs: dict[Path, str]) -> list[Path]:
        """Specs to rebuild: new specs, specs whose own file or a dependency changed, and
        specs whose last build failed (a fix elsewhere may be what they waited for)."""
        return sorted(s for s in specs if s not in self.deps or self.deps[s] & changed or s in self.failed)

    def poll(self, settle: float = 0.0) -> list[BuildEvent]:
        """One poll: rebuild, one spec at a time, what changed since the last poll.

        Args:
            settle: seconds to wait for the changed files to stop changing before building.

        Returns:
            One event per rebuilt spec (plus one listing removed specs); empty when nothing changed.
        """
        now = self._scan()
        if now == self.stamps:
            return []
        while settle > 0 and not self.stop.is_set():
            time.sleep(settle)
            again = self._scan()
            if again == now:
                break
            now = again
        changed = {p for p in set(now) | set(self.stamps) if now.get(p) != self.stamps.get(p)}
        self.stamps = now
        specs = self._specs()
        events: list[BuildEvent] = []
        removed = sorted(str(s) for s in self.deps if s not in specs)
        for s in [s for s in self.deps if s not in specs]:
            del self.deps[s]
            self.failed.discard(s)
        if removed:
            events.append(BuildEvent([], Result(), None, removed=removed))
            self.on_event(events[-1])
        for spec in self.affected(changed, specs):
            if self.stop.is_set():
                break
            result, report = build([spec], self.out, options=self.options)
            if result.inputs:  # the files this build read: no second load of the spec
                self.deps[spec] = frozenset(p.resolve() for p in result.inputs) | {spec}
            else:
                self._record_deps({spec: specs[spec]})
            (self.failed.add if report is None else self.failed.discard)(spec)
            events.append(BuildEvent([specs[spec]], result, report))
            self.on_event(events[-1])
        self._add_new_deps()
        return events

    def run(self, interval: float = 0.5) -> None:
        """Initial build, then poll every ``interval`` seconds until stopped (Ctrl-C / SIGTERM)."""
        previous = {}
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                previous[sig] = signal.signal(sig, self._handle_signal)
        try:
            self.initial_build()
            self.freeze_heap()
            while not self.stop.wait(interval):
                self.poll(settle=min(interval, 0.2))
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def _handle_signal(self, signum: int, frame: FrameType | None) -> None:
        self.stop.set()
