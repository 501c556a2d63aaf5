"""Fewer garbage collections while a build runs (:func:`fewer_collections`).

A cold build allocates millions of container objects (DCG's parse, ``ast`` trees, black's
tokens) of which almost none form cycles: they are freed by reference counting.  With the
default thresholds (700, 10, 10) the collector still runs a young collection every 700
allocations and a full one every hundred or so, and each full one walks every object the
imports left (some 200,000).  For a 100-tool spec in one process that was 1.1 to 2 s of
CPU out of 6 to 8 (bench/README.md, "Generator, eighth pass").  During the build, the heap
the process already holds is frozen (never scanned, still freed by reference counting) and
the thresholds are raised; both are restored afterwards, so the process (``--watch``, a
caller of the API) collects as before.  The output does not depend on it.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

#: The thresholds during a build: a young collection per 50,000 net allocations, an older
#: one per 20 of those, a full one per 100 older ones (rarely, in a build).
BUILD_THRESHOLDS = (50_000, 20, 100)


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Raise the collector's thresholds and freeze the current heap for the ``with`` body.

    A heap frozen already (``watch`` freezes it after its initial build) stays frozen.
    """
    before = gc.get_threshold()
    freeze = gc.isenabled() and gc.get_freeze_count() == 0
    if freeze:
        gc.freeze()
    gc.set_threshold(*BUILD_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*before)
        if freeze:
            gc.unfreeze()
