"""Connections of ``--layout agent`` tool functions: one reused, drift-checked client per server.

==================  ==============================================================
``connect``         :func:`agent_client` / :func:`agent_client_async`, the drift check
``config``          the servers configuration files (hosts' ``mcp.json`` and friends)
``options``         a server entry's client options (timeouts, hooks, OAuth, drift policy)
==================  ==============================================================

Nothing is re-exported here: import from the module.
"""
