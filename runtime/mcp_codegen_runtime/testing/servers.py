"""The server a test talks to: the user's implementation, or the package's mock.

:func:`implementation` turns what a test names (a class, an instance, ``"module:Class"``, or
nothing) into an instance of the generated base class, resolved the way ``python -m <pkg>``
resolves ``--impl`` (:func:`~server.main.default_implementation`): the spec's
``server.implementation``, else the class ``build --scaffold`` writes when its module is
importable.  :func:`mock` is the package's mock server (``server/mock/``,
:func:`~server.gencode.mock_server`), a scenario given as a file loaded first.

The generated ``testing.py`` hands the instance to its typed client's ``in_process``
constructor (``client/inprocess.py``): the server runs in the client's event loop, messages
copied through JSON as on a wire.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias, TypeVar, cast

from ..server.base import ServerBase
from ..server.features import missing
from ..server.main import default_implementation, load_implementation

if TYPE_CHECKING:
    from ..server.mock import MockScenario  # type: ignore[import-not-found, unused-ignore]  # runtime-copy: optional

S = TypeVar("S", bound=ServerBase)

#: What a test may name as the implementation: a class, an instance, ``"module:Class"`` or None (the default).
Implementation: TypeAlias = type[S] | S | str | None
#: A mock scenario: a loaded ``MockScenario`` or the path of its YAML/JSON file (annotations only).
Scenario: TypeAlias = "MockScenario | str | os.PathLike[str] | None"


class NoImplementationError(LookupError):
    """A test asked for the default implementation, and the package has none to offer."""


def implementation(base: type[S], impl: type[S] | S | str | None, scaffold: str) -> S:
    """An instance of ``base`` for a test (see the module docstring).

    Raises:
        NoImplementationError: ``impl`` is None and neither the spec's ``server.implementation``
            nor the scaffold's module (``scaffold``, ``module:Class``) can be imported.
        ImportError, ValueError: ``"module:Class"`` cannot be imported, or is not a subclass of ``base``.
        TypeError: ``impl`` is neither a subclass of ``base``, an instance of one, nor a string.
    """
    if impl is None:
        named: str | None = default_implementation(base, scaffold)
        if named is None:
            module, _, name = scaffold.partition(":")
            raise NoImplementationError(
                f"no implementation of {base.__name__} to test: pass one (connect(MyService), a fixture "
                f"overriding the implementation), set server.implementation in the spec, or write {name} in "
                f"{module}.py (mcp-codegen build --scaffold) where Python finds it")
        impl = named
    if isinstance(impl, str):
        impl = cast(type[S], load_implementation(impl, base))
    if isinstance(impl, type):
        if not issubclass(impl, base):
            raise TypeError(f"{impl.__name__} is not a subclass of {base.__name__}")
        return impl()
    if isinstance(impl, base):
        return impl
    raise TypeError(f"the implementation must be a subclass of {base.__name__}, an instance of one or 'module:Class', "
                    f"not {type(impl).__name__}")


def mock(base: type[S], *, seed: int = 0, scenario: Scenario = None, replay: str | os.PathLike[str] | None = None) -> ServerBase:
    """The mock server of ``base`` (every handler answering from the spec; see ``server/mock/``).

    ``scenario`` is a ``MockScenario`` or the path of a scenario file; ``replay`` a cassette
    whose recorded answers it gives."""
    try:
        from ..server.mock import MockScenario, mock_server  # type: ignore[import-not-found, unused-ignore]  # runtime-copy: optional
    except ImportError as exc:
        missing("mock", "connect_mock", exc)
    if isinstance(scenario, (str, os.PathLike)):
        scenario = MockScenario.load(Path(scenario))
    server: ServerBase = mock_server(base, seed=seed, scenario=scenario, replay=None if replay is None else Path(replay))
    return server


__all__ = ["Implementation", "NoImplementationError", "Scenario", "implementation", "mock"]
