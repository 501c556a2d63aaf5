"""How a host starts a generated server over stdio: the one table every launcher reads.

A generated server is started by a launcher (``python -m <package>`` in a host configuration,
``uvx <pypi-name>`` from the MCP Registry's ``server.json``, the entry point of an MCP bundle)
followed by the same arguments, :data:`STDIO_ARGUMENTS`, with the environment variables the spec
declares (``server.env`` plus the upstream's, one :class:`EnvVarDef` each, in the generated
server's ``env_vars``).  :func:`stdio_launch` is the single source of both: ``--print-config`` /
``--write-config`` (:mod:`..server.hostconfig`), the generator's ``server.json`` writer and the
bundle's manifest read it, so they cannot disagree.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

#: The server's arguments after its launcher: serve MCP over stdin/stdout.
STDIO_ARGUMENTS: tuple[str, ...] = ("--stdio",)


@dataclass(frozen=True)
class EnvVarDef:
    """One environment variable the server reads (the spec's ``server.env`` or its upstream's).

    ``default`` is the value used when it is unset (never for a secret); ``format`` is the
    registry's input format (``string``, ``number``, ``boolean`` or ``filepath``; None = string);
    ``choices`` the values allowed (empty: any).
    """

    name: str
    description: str = ""
    required: bool = False
    secret: bool = False
    default: str | None = None
    format: str | None = None
    choices: tuple[str, ...] = ()


class EnvVarLike(Protocol):
    """What a launcher reads of a variable (:class:`EnvVarDef`, or the generator's ``EnvVarIR``)."""

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def required(self) -> bool: ...

    @property
    def secret(self) -> bool: ...

    @property
    def default(self) -> str | None: ...

    @property
    def format(self) -> str | None: ...

    @property
    def choices(self) -> tuple[str, ...]: ...


E = TypeVar("E", bound=EnvVarLike)


@dataclass(frozen=True)
class StdioLaunch(Generic[E]):
    """The arguments after the launcher and the environment variables, in declaration order."""

    arguments: tuple[str, ...]
    env: tuple[E, ...]

    @property
    def env_names(self) -> tuple[str, ...]:
        return tuple(var.name for var in self.env)


def stdio_launch(env: Iterable[E]) -> StdioLaunch[E]:
    """How every launcher starts the server: :data:`STDIO_ARGUMENTS` and exactly ``env``.

    Raises:
        ValueError: a variable is named twice (the generator never declares one twice).
    """
    variables = tuple(env)
    names = [var.name for var in variables]
    if len(set(names)) != len(names):
        raise ValueError(f"environment variable declared twice: {sorted(n for n in set(names) if names.count(n) > 1)}")
    return StdioLaunch(STDIO_ARGUMENTS, variables)


__all__ = ["STDIO_ARGUMENTS", "EnvVarDef", "EnvVarLike", "StdioLaunch", "stdio_launch"]
