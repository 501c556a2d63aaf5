"""Shared test fixtures and the ``--update-goldens`` flag."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings

# Property and fuzz tests are derandomized by default so CI is repeatable (a fixed sequence of
# examples per test); MCP_CODEGEN_FUZZ=long explores new random examples on every run.
settings.register_profile("repeatable", derandomize=True, print_blob=True)
settings.register_profile("explore", derandomize=False, print_blob=True)
settings.load_profile("explore" if os.environ.get("MCP_CODEGEN_FUZZ") == "long" else "repeatable")

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "generated_examples"
TESTS = Path(__file__).resolve().parent

#: The suite's folders by concern: a test gets the marker of the folder it lives in, so
#: ``pytest -m generator`` (or runtime, interop) selects by what changed.
CONCERNS = ("generator", "runtime", "interop")

#: Modules marked ``slow``: they start real processes (servers over HTTP or stdio, redis, the
#: OAuth authorization server on Node, ``mcp-codegen``, mypy, pip) or run a large differential
#: corpus.  ``scripts/test --fast`` leaves them out, with tests/interop/.
SLOW = frozenset({
    # generator
    "test_adversarial_build", "test_adversarial_specs", "test_agent_tree", "test_build_caches",
    "test_dev", "test_fmtunits", "test_handler_check", "test_mock_cli", "test_noop_fast_path", "test_openapi_corpus",
    "test_packaging", "test_spec_load_yaml", "test_testing_plugin", "test_trusted_format", "test_typecheck",
    "test_typed_dicts", "test_upstream_binding", "test_watch", "test_bundle_mcpb",
    # runtime
    "test_agent_connections", "test_agent_oauth", "test_client_generated", "test_client_hostile",
    "test_client_listing", "test_client_overlay", "test_client_retry", "test_client_session_renewal",
    "test_client_transports", "test_connection_bounds", "test_fairness", "test_faults_under_load",
    "test_fuzz_http", "test_hostile_numbers", "test_http_client_pool", "test_http_ops",
    "test_http_server_raw", "test_legacy_replicas", "test_load_http", "test_oauth_attacks",
    "test_oauth_client", "test_oauth_dpop_server", "test_oauth_e2e", "test_oauth_grants_e2e",
    "test_oauth_server", "test_ops_factory_telemetry", "test_output_errors", "test_schema_checker_startup",
    "test_security_http", "test_serve_first_try", "test_server_main", "test_server_stdio_raw",
    "test_shared_redis", "test_skills", "test_state_keys_http", "test_stdio_loop", "test_stdio_order",
    "test_task_notifications", "test_tasks", "test_testing_helpers", "test_testing_mock", "test_mock_server",
    "test_upstream_main", "test_upstream_results", "test_upstream_security", "test_upstream_wire",
    "test_server_card_http",
})

#: The longest modules (measured: minutes for the conformance run, tens of seconds for the
#: others) go first, so that on pytest-xdist workers (``--dist loadscope
#: --no-loadscope-reorder``, scripts/test) they start at once instead of ending the run alone.
LONG_FIRST = (
    "interop/test_conformance.py", "interop/test_agent_pypi.py", "interop/test_agents_doc.py",
    "interop/test_tutorial.py", "interop/test_readme.py", "interop/test_pull.py",
    "generator/test_fmtunits.py", "generator/test_spec_load_yaml.py", "generator/test_noop_fast_path.py",
    "generator/test_build_caches.py", "runtime/test_shared_redis.py", "generator/test_trusted_format.py",
    "runtime/test_fuzz_http.py", "runtime/test_http_ops.py", "generator/test_adversarial_specs.py",
    "generator/test_cli.py", "runtime/test_tasks.py", "generator/test_dev.py",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    rank: dict[pytest.Item, int] = {}
    for item in items:
        try:
            where = item.path.resolve().relative_to(TESTS)
        except ValueError:
            continue
        if where.parts[0] in CONCERNS:
            item.add_marker(where.parts[0])
        if where.stem in SLOW:
            item.add_marker("slow")
        path = where.as_posix()
        rank[item] = LONG_FIRST.index(path) if path in LONG_FIRST else len(LONG_FIRST)
    items.sort(key=lambda item: rank.get(item, len(LONG_FIRST)))  # stable: the rest keep their order


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-goldens", action="store_true", default=False,
                     help="rewrite tests/generator/golden expectations from the current generator output")


@pytest.fixture
def update_goldens(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-goldens"))


@pytest.fixture
def examples_env() -> dict[str, str]:
    """Environment in which ``python -m weather`` etc. import the generated examples."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(EXAMPLES) + os.pathsep + env.get("PYTHONPATH", "")
    return env


@pytest.fixture(scope="session", autouse=True)
def mypy_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One mypy cache per test process (each xdist worker has its own base folder), which every
    ``python -m mypy`` a test starts inherits: pydantic, the installed runtime and the standard
    library are analysed once per process, not once per check (about 15 s each, cold)."""
    cache = tmp_path_factory.getbasetemp() / "mypy-cache"
    os.environ["MYPY_CACHE_DIR"] = str(cache)
    return cache


@pytest.fixture(scope="session")
def python() -> str:
    return sys.executable
