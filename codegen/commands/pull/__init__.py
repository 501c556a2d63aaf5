"""``mcp-codegen pull``: a spec file (or an agent tree) from a live MCP server's lists.

The flow (:mod:`.flow`, its :func:`~.flow.pull` runs the steps in order):

1. connect and read (:mod:`.read`): the runtime client, both eras, every ``tools/list`` page,
   into a ``ServerSnapshot``; a plain ``pull --stdio`` started its server at CLI entry
   (:mod:`.spawn`) and the transport adopts that process (:mod:`.adopt`);
2. the spec text: ``serverInfo`` and tools normalized (:mod:`.normalize`, schema repairs in
   :mod:`.schemas`), resources and prompts (:mod:`.catalog`), an existing spec's overlays
   kept (:mod:`.overlays`), every change a note (:mod:`.notes`) written as a comment by the
   YAML writer (:mod:`.emit`);
3. check and write the file (:mod:`.flow`); ``--layout agent`` also builds it into an agent
   tree and records the connection in ``servers/mcp.json`` (:mod:`.agent`).

This ``__init__`` imports nothing: :mod:`.spawn` runs at CLI entry, before the heavy imports.
"""
