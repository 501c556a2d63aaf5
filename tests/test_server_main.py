"""The ``python -m <pkg>`` command line (runtime main.py)."""

from __future__ import annotations

import subprocess
import sys

from codegen.runtime.main import load_implementation
from codegen.runtime.server import ServerBase
from support_server import EXAMPLES, DemoServer, server_env

import pytest


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "weather", *args], cwd=EXAMPLES, env=server_env(), input="", capture_output=True, text=True, timeout=30
    )


def test_bad_impl_is_a_usage_error() -> None:
    for impl, needle in (("weather_impl", "module:Class"), ("weather_impl:Nope", "no attribute"), ("json:JSONDecoder", "not a subclass"), ("no_such_mod:X", "no_such_mod")):
        proc = _run("--stdio", "--impl", impl)
        assert proc.returncode == 2, impl
        assert needle in proc.stderr and proc.stdout == ""


def test_eof_exits_zero_and_stdout_stays_clean() -> None:
    proc = _run("--stdio")
    assert proc.returncode == 0 and proc.stdout == ""


def test_load_implementation() -> None:
    assert load_implementation("support_server:DemoServer", ServerBase) is DemoServer
    with pytest.raises(ValueError, match="not a subclass"):
        load_implementation("support_server:EchoIn", ServerBase)
    with pytest.raises(ValueError, match="no attribute"):
        load_implementation("support_server:Missing", ServerBase)
