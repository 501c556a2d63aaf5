"""Faults under load (issue 31 point 4): two ``python -m everything --http`` replicas behind a
sticky load balancer with failover (tests/support/lb_proxy.py), sharing a real redis-server, with
six generated clients of one era calling through the balancer (``retry`` on; half of them with a
tool table that marks nothing repeatable) while one replica is killed, Redis is restarted, every
client connection is cut mid-stream and the replica comes back (tests/support/faults_support.py).

Asserted: no call is lost silently (each returned, or raised an ``McpError`` with a message;
none hung past 90 s, none raised anything else) and most completed; after the Redis restart a
tool-list change on one replica reaches a listener on the other again, and both replicas take
from the shared rate-limit bucket in Redis again (six probe calls through both leave exactly
``burst - 6`` tokens); the surviving replica's RSS grew by less than 150 MB.  The figures are
printed (``-s``); bench/bench_faults.py runs the same scenario longer.
"""

from __future__ import annotations

import pytest
from faults_support import BURST, run_scenario


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_no_call_is_lost_and_shared_state_recovers(era: str) -> None:
    report = run_scenario(era, clients=6, duration=20.0)
    print("\n" + "\n".join(report.lines()))
    out = report.outcomes
    assert out.hung == 0, "calls neither answered nor failed"
    assert not out.other, out.other[:5]
    assert not out.unclear, out.unclear[:5]
    assert out.total >= 60 and out.ok >= out.total * 0.6, report.lines()
    assert [what for _, what in report.faults] == [
        "replica r2 killed", "Redis stopped for 1 s and restarted", "client connections cut", "replica r2 restarted"]
    assert report.dropped_connections > 0
    assert report.change_after_s is not None, "list changes did not cross replicas after the Redis restart"
    assert report.probe_tokens is not None and abs(report.probe_tokens - (BURST - 6)) < 0.5, report.probe_tokens
    assert report.rss_after_kb - report.rss_before_kb < 150 * 1024
