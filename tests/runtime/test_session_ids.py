"""Legacy session ids: ``<replica-id>.<random>`` with a replica id (``HttpSettings.replica_id``,
else ``MCP_CODEGEN_REPLICA_ID``), ``<random>`` without; visible ASCII, 192 random bits."""

from __future__ import annotations

import pytest
from mcp_codegen_runtime.server.base import ServerBase
from mcp_codegen_runtime.server.http import HttpApp, HttpSettings
from mcp_codegen_runtime.server.http.legacy import REPLICA_ENV, new_session_id, replica_id

VISIBLE = {chr(c) for c in range(0x21, 0x7F)}


def test_ids_carry_the_replica_and_stay_visible_ascii() -> None:
    ids = {new_session_id("pod-7") for _ in range(200)}
    assert len(ids) == 200
    for sid in ids:
        replica, dot, token = sid.partition(".")
        assert (replica, dot) == ("pod-7", ".") and len(token) == 32 and "." not in token
        assert set(sid) <= VISIBLE
    plain = new_session_id(None)
    assert len(plain) == 32 and "." not in plain and set(plain) <= VISIBLE


def test_replica_id_from_settings_then_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(REPLICA_ENV, raising=False)
    assert replica_id(None) is None
    monkeypatch.setenv(REPLICA_ENV, "")
    assert replica_id(None) is None
    monkeypatch.setenv(REPLICA_ENV, "from_env")
    assert replica_id(None) == "from_env"
    assert replica_id("given") == "given"


@pytest.mark.parametrize("bad", ["a.b", "", "x" * 65, "é", "a b", "a/b", "a:b"])
def test_bad_replica_ids_are_refused_at_startup(bad: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(REPLICA_ENV, raising=False)
    with pytest.raises(ValueError, match="replica id"):
        HttpApp(ServerBase(), HttpSettings(replica_id=bad))
    if bad:
        monkeypatch.setenv(REPLICA_ENV, bad)
        with pytest.raises(ValueError, match="replica id"):
            HttpApp(ServerBase())
