"""Faults under load: the scenario of tests/runtime/test_faults_under_load.py, longer, figures printed.

Two ``python -m everything --http`` replicas behind a sticky load balancer with failover
(tests/support/lb_proxy.py) share a real ``redis-server``; ``--clients`` generated clients of one
era (``retry`` on; every other one with a tool table that marks nothing repeatable, so a call cut
after it was sent raises ``CallMayHaveRunError``) call through the balancer for ``--duration``
seconds while, at 15 %, 35 %, 55 % and 70 % of it, one replica is killed (SIGKILL), Redis is
stopped for a second and restarted empty, every client connection is cut mid-stream, and the
replica comes back.  Printed per era: calls by outcome (completed, each error class, lost
silently, other exceptions), the faults, how soon a tool-list change crossed replicas again,
the probe's shared rate-limit bucket in Redis, and the surviving replica's RSS before and after.
See tests/support/faults_support.py.

Usage::

    .venv/bin/python bench/bench_faults.py [--era modern,legacy] [--clients 8] [--duration 40]

Needs ``redis-server`` (installed with apt-get on first use, as the tests do).  Every process is
started by this script and stopped by its PID.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests" / "support"), str(ROOT / "generated_examples"), str(ROOT)]

from faults_support import run_scenario  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--era", default="modern,legacy", help="comma-separated: modern, legacy")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--duration", type=float, default=40.0)
    args = parser.parse_args()
    failed = False
    for era in args.era.split(","):
        report = run_scenario(era.strip(), clients=args.clients, duration=args.duration)
        print("\n".join(report.lines()), flush=True)
        failed |= report.outcomes.hung > 0 or bool(report.outcomes.other)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
