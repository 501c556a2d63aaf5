"""The IR: its frozen nodes, the Python names every node gets, and lowering a validated spec into it."""
