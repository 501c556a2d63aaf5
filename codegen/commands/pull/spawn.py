"""``pull --stdio``: the server started first, before the command line's heavy imports.

``mcp-codegen pull`` spends its first few hundred milliseconds importing (typer, the
runtime client, the schema repairs); a stdio server's own start-up (an interpreter, node)
can overlap them.  :func:`start_early` is called at the very top of the command line
(``codegen/commands/cli/entry.py``) with the raw arguments: when they are *plainly* a
``pull --stdio CMD`` (every option known, nothing ambiguous) it spawns ``CMD`` exactly as
the stdio transport would (same program and arguments, working directory, environment,
pipes).  Later :func:`adopt` hands that process to the transport (``adopt.py``) only
if the options typer parsed give the same command, directory and environment; otherwise,
and whenever the process is not adopted by the time the interpreter exits, it is stopped
(stdin closed, then SIGTERM, then SIGKILL, by its PID), as the transport would stop it.

Standard library only: this module runs before anything else is imported.
"""

from __future__ import annotations

import atexit
import os
import shlex
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["adopt", "discard", "plan", "start_early"]

#: ``pull`` options that take a value (``--opt VALUE`` or ``--opt=VALUE``).
_VALUED = frozenset({"-o", "--output", "--stdio", "--http", "--name", "--era", "--cwd", "--env", "--header",
                     "--timeout", "--oauth-client-id", "--oauth-token-file", "--layout", "--skill"})
#: ``pull`` flags.
_FLAGS = frozenset({"--force", "--check", "--no-check", "--oauth"})


@dataclass(frozen=True)
class Plan:
    """What the transport would spawn for a ``pull --stdio`` command line."""

    command: tuple[str, ...]
    cwd: str | None
    env: tuple[tuple[str, str], ...]  #: the ``--env`` pairs, in order


@dataclass
class _Early:
    plan: Plan
    environ: dict[str, str]
    popen: subprocess.Popen[bytes]


_early: _Early | None = None


def plan(argv: Sequence[str]) -> Plan | None:
    """The server to start for ``argv`` (the arguments after the program name), or None
    unless they are unambiguously ``pull --stdio CMD`` with the spec layout and an output
    that will be written (an existing file without ``--force`` is refused before connecting)."""
    if len(argv) < 2 or argv[0] != "pull" or os.name != "posix":  # (asyncio adopts POSIX pipes only)
        return None
    values: dict[str, list[str]] = {}
    flags: set[str] = set()
    i = 1
    while i < len(argv):
        token = argv[i]
        name, eq, inline = token.partition("=")
        if token in _FLAGS:
            flags.add(token)
        elif token in _VALUED and i + 1 < len(argv):
            values.setdefault(token, []).append(argv[i + 1])
            i += 1
        elif eq and name in _VALUED and name.startswith("--"):
            values.setdefault(name, []).append(inline)
        else:
            return None  # --help, a short option glued to its value, a stray word: typer decides
        i += 1
    outputs = values.get("-o", []) + values.get("--output", [])
    stdio = values.get("--stdio", [])
    if len(stdio) != 1 or "--http" in values or len(outputs) != 1 or values.get("--layout", ["spec"]) != ["spec"]:
        return None
    if any(len(values.get(opt, [])) > 1 for opt in ("--cwd", "--era", "--name", "--timeout")):
        return None
    if outputs[0] != "-" and "--force" not in flags and os.path.lexists(outputs[0]):
        return None
    try:
        command = tuple(shlex.split(stdio[0]))
    except ValueError:
        return None
    pairs: list[tuple[str, str]] = []
    for item in values.get("--env", []):
        key, found, value = item.partition("=")
        if not found or not key.strip():
            return None
        pairs.append((key.strip(), value))
    cwd = values.get("--cwd")
    return Plan(command, str(Path(cwd[0])) if cwd else None, tuple(pairs)) if command else None


def _environ(extra: Mapping[str, str]) -> dict[str, str]:
    """The server's environment, as the stdio transport builds it (inherited, ``extra`` over it)."""
    env = dict(os.environ)
    env.update(extra)
    return env


def start_early(argv: Sequence[str]) -> bool:
    """Spawn the server of a plain ``pull --stdio CMD`` now (see the module docstring);
    whether ``argv`` is one."""
    global _early
    wanted = plan(argv)
    if wanted is None:
        return False
    if _early is not None:
        return True
    environ = _environ(dict(wanted.env))
    try:
        popen = subprocess.Popen(list(wanted.command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, env=environ, cwd=wanted.cwd, bufsize=0)
    except (OSError, ValueError):
        return True  # the transport spawns it again and reports the error
    _early = _Early(wanted, environ, popen)
    atexit.register(discard)
    return True


def adopt(command: Sequence[str], cwd: str | os.PathLike[str] | None,
          env: Mapping[str, str]) -> subprocess.Popen[bytes] | None:
    """The early server, if it was started with exactly this command, working directory and
    environment (running or not); otherwise it is stopped and None returned."""
    global _early
    early = _early
    if early is None:
        return None
    _early = None
    same = (early.plan.command == tuple(command)
            and early.plan.cwd == (str(Path(cwd)) if cwd is not None else None)
            and early.environ == _environ(env))
    if same:  # even when it has exited already: the transport reports its status and stderr
        return early.popen
    _stop(early.popen)
    return None


def discard() -> None:
    """Stop the early server unless it was adopted (registered with :mod:`atexit`)."""
    global _early
    early, _early = _early, None
    if early is not None:
        _stop(early.popen)


def _stop(popen: subprocess.Popen[bytes], timeout: float = 2.0) -> None:
    """Close stdin, then SIGTERM, then SIGKILL (by PID), waiting ``timeout`` s between steps."""
    for stream in (popen.stdin, popen.stdout, popen.stderr):
        if stream is not None:
            try:
                stream.close()
            except OSError:
                pass
    for step in (None, popen.terminate, popen.kill):
        if popen.poll() is not None:
            return
        if step is not None:
            try:
                step()
            except ProcessLookupError:
                return
        try:
            popen.wait(timeout)
            return
        except subprocess.TimeoutExpired:
            continue
