"""The mock server (optional feature ``mock``, see ``server/features.py``): a generated server
base answering from its spec alone, with scenarios of errors and delays and replay of cassettes.

By concern: :mod:`.values` (what the handlers answer), :mod:`.scenario` (scenario files),
:mod:`.replay` (cassettes read back), :mod:`.server` (:func:`mock_server`, the mock class).
The values themselves come from :mod:`mcp_codegen_runtime.schema.examples`.
"""

from __future__ import annotations

from .replay import CASSETTE_VERSION, Cassette, CassetteError
from .scenario import MockScenario, ScenarioError
from .server import UNRECORDED, UNSATISFIABLE, MockServer, mock_class, mock_server

__all__ = ["CASSETTE_VERSION", "UNRECORDED", "UNSATISFIABLE", "Cassette", "CassetteError", "MockScenario",
           "MockServer", "ScenarioError", "mock_class", "mock_server"]
