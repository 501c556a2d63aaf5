"""The official MCP conformance suite, as part of the normal test run (docs/conformance.md).

``test_official_conformance_suite`` runs ``scripts/conformance`` (Node 22 and the pinned
harness are installed under ``.tools/`` on first use, from the npm registry) and needs it
to exit 0: every in-scope scenario passes, apart from the reasoned entries of
``tests/conformance/expected-failures.yml``.  Takes about two minutes.  Set
``MCP_CODEGEN_SKIP_CONFORMANCE=1`` to skip it (e.g. offline); CI never sets it.

The other tests check the conformance configuration itself, without Node.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
CONF = REPO / "tests" / "conformance"


def _load(path: Path) -> dict:
    with path.open(encoding="utf-8") as f:
        data = yaml.safe_load(f)
    assert isinstance(data, dict)
    return data


def test_fixture_tools_are_declared_in_the_spec() -> None:
    scope = _load(CONF / "scope.yml")
    spec = _load(REPO / "specs" / "everything.yaml")
    declared = {tool["name"] for tool in spec["tools"]}
    assert set(scope["fixture_tools"]) <= declared


def test_expected_failures_are_in_scope_and_reasoned() -> None:
    scope = _load(CONF / "scope.yml")
    expected = _load(CONF / "expected-failures.yml")
    for kind in ("server", "client"):
        for leg, entries in (expected.get(kind) or {}).items():
            for entry, reason in (entries or {}).items():
                assert entry.split(":", 1)[0] in scope[kind][leg], f"{kind} {leg}: {entry} is not in scope.yml"
                assert isinstance(reason, str) and reason.strip() and "\n" not in reason.strip()


def test_driver_handles_every_in_scope_client_scenario() -> None:
    sys.path.insert(0, str(CONF))
    try:
        import client_driver
    finally:
        sys.path.remove(str(CONF))
    scope = _load(CONF / "scope.yml")
    for leg, scenarios in scope["client"].items():
        missing = set(scenarios) - set(client_driver.SCENARIOS)
        assert not missing, f"client_driver.py has no handler for {leg} scenarios {sorted(missing)}"


@pytest.mark.skipif(os.environ.get("MCP_CODEGEN_SKIP_CONFORMANCE") == "1", reason="MCP_CODEGEN_SKIP_CONFORMANCE=1")
def test_official_conformance_suite() -> None:
    proc = subprocess.run(
        ["bash", str(REPO / "scripts" / "conformance")],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=1800,
    )
    print(proc.stdout)
    assert proc.returncode == 0, "scripts/conformance failed:\n" + proc.stdout[-12000:]
