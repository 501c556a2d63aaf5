"""Another client's latency while one floods plain ``def`` handlers (issue 44, attack 4).

A server with two plain ``def`` tools (``block`` sleeps, ``quick`` answers) on HTTP in this
process, ``--max-concurrency`` slots (default 8: the flooder's share is 6); the flooder starts
``--per-wave`` blocking calls and cancels them after 0.2 s, ``--waves`` times; meanwhile the other
client makes ``--rounds`` quick calls, one every 0.1 s, and their latencies are printed.  See
tests/support/sync_fairness_support.py.

Usage::

    .venv/bin/python bench/bench_sync_fairness.py [--waves 6] [--per-wave 8] [--seconds 3] [--rounds 20]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests" / "support")]

from sync_fairness_support import scenario, summary  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--max-concurrency", type=int, default=8)
    parser.add_argument("--waves", type=int, default=6)
    parser.add_argument("--per-wave", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    latencies, server = scenario(max_concurrent_calls=args.max_concurrency, waves=args.waves, per_wave=args.per_wave,
                                 seconds=args.seconds, rounds=args.rounds)
    print(f"other client's quick calls: {summary(latencies)}; "
          f"most blocking handlers running at once: {server.most}; saw ctx.cancelled: {server.saw_cancel}")


if __name__ == "__main__":
    main()
