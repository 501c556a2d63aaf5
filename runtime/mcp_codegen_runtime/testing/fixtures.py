"""The pytest fixtures of a generated package (its ``testing`` module is a pytest plugin).

``testing.py`` calls :func:`define_fixtures` with its own ``globals()``: when pytest is
running (already imported: the package's ``pytest11`` entry point, a ``pytest_plugins =
["<pkg>.testing"]`` line, or a test module importing it), the fixtures are added to the module,
where pytest finds them; anywhere else nothing happens, so importing ``testing`` never needs
pytest.  Their names come from the generator (``<pkg>_client`` ...):

=====================  ======================================================================
``client``             the async typed client, in process, on the implementation
``sync_client``        the blocking typed client, likewise (connected)
``mock_client``        the async typed client of the package's mock server
``mock_sync_client``   the blocking one (connected)
``implementation``     the implementation the clients serve: None (the default one); override
                       it (a class, an instance, ``"module:Class"``) in a ``conftest.py``
``mock_scenario``      the mock's scenario: None; override it with a ``MockScenario`` or a path
=====================  ======================================================================

The async fixtures are plain (synchronous) fixtures, so they work with pytest-asyncio (strict or
auto mode), with anyio's plugin, and with neither: the client they give connects on its first
call, in the event loop of the test (``asyncio.run(...)`` in a plain ``def`` test), and is
closed after the test in that loop when it still runs.  One client per test, used in one loop.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager
from typing import Any

from ..client.async_client import ClientBase

#: The roles of the fixtures (keys of the names the generator decides).
ROLES = ("client", "sync_client", "mock_client", "mock_sync_client", "implementation", "mock_scenario")


def close_after_test(client: ClientBase) -> None:
    """Close an async client a test may have connected: in its loop, when that loop is still
    there and idle (a closed loop has cancelled the connection's tasks already)."""
    loop = getattr(client.transport, "loop", None)
    if loop is None or loop.is_closed() or loop.is_running() or client.is_closed:
        return
    loop.run_until_complete(client.aclose())


def define_fixtures(namespace: dict[str, Any], names: Mapping[str, str], *,
                    connect: Callable[..., ClientBase], connect_sync: Callable[..., AbstractContextManager[Any]],
                    connect_mock: Callable[..., ClientBase],
                    connect_mock_sync: Callable[..., AbstractContextManager[Any]]) -> None:
    """Add the fixtures (see the module docstring) to ``namespace`` when pytest runs.

    ``names``: role -> fixture name; the callables are the generated module's ``connect``
    (implementation -> async client), ``connect_sync``, ``connect_mock`` and
    ``connect_mock_sync`` (``scenario=`` -> client)."""
    if "pytest" not in sys.modules:
        return
    import pytest

    impl, scenario = names["implementation"], names["mock_scenario"]

    def impl_default() -> None:
        return None

    def scenario_default() -> None:
        return None

    def client(request: pytest.FixtureRequest) -> Iterator[ClientBase]:
        made = connect(request.getfixturevalue(impl))
        yield made
        close_after_test(made)

    def sync_client(request: pytest.FixtureRequest) -> Iterator[Any]:
        with connect_sync(request.getfixturevalue(impl)) as made:
            yield made

    def mock_client(request: pytest.FixtureRequest) -> Iterator[ClientBase]:
        made = connect_mock(scenario=request.getfixturevalue(scenario))
        yield made
        close_after_test(made)

    def mock_sync_client(request: pytest.FixtureRequest) -> Iterator[Any]:
        with connect_mock_sync(scenario=request.getfixturevalue(scenario)) as made:
            yield made

    docs: dict[str, tuple[Callable[..., object], str]] = {
        "client": (client, f"The async typed client, in process, on the implementation ({impl}); connects on first call."),
        "sync_client": (sync_client, f"The blocking typed client, in process, on the implementation ({impl})."),
        "mock_client": (mock_client, f"The async typed client of the mock server (scenario: {scenario})."),
        "mock_sync_client": (mock_sync_client, f"The blocking typed client of the mock server (scenario: {scenario})."),
        "implementation": (impl_default, "The implementation the clients serve: None (the spec's); override it in a conftest.py."),
        "mock_scenario": (scenario_default, "The mock server's scenario: None; override it (a MockScenario or a path)."),
    }
    for role, (function, doc) in docs.items():  # each a fresh function: named after its fixture
        function.__name__ = function.__qualname__ = names[role]
        function.__doc__ = doc
        namespace[names[role]] = pytest.fixture(name=names[role])(function)


__all__ = ["ROLES", "close_after_test", "define_fixtures"]
