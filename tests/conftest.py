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


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        try:
            concern = item.path.resolve().relative_to(TESTS).parts[0]
        except ValueError:
            continue
        if concern in CONCERNS:
            item.add_marker(concern)


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
