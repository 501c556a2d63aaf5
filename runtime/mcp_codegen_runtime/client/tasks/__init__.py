"""Tasks on the client (the ``io.modelcontextprotocol/tasks`` extension): a tool call that runs on.

==================  ==============================================================
``handle``          :class:`TaskHandle` (``start_<tool>``), polling, waiting, cancelling
``notify``          ``notifications/tasks`` on open listen streams instead of polling
``sync``            :class:`SyncTaskHandle`, the blocking twin
==================  ==============================================================

Imported only when a package uses tasks (see ``client/async_client.py``); nothing is
re-exported here.
"""
