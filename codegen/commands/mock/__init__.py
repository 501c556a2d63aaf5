"""``mcp-codegen mock``, ``proxy`` and ``check --cassette``: testing without the real counterpart.

* :mod:`.package`: a spec built into a cached package and its server base imported;
* :mod:`.serve`: that base served as a mock (``mcp_codegen_runtime.server.mock``) over stdio or HTTP;
* :mod:`.cassette`: the cassette writer and its secret scrubbing;
* :mod:`.proxy_stdio` / :mod:`.proxy_http`: recording pass-throughs to a real server;
* :mod:`.drift`: recorded answers checked against a spec, as a ``diff`` report.
"""
