"""The Streamable HTTP client transport (both eras; httpx for proxies and OAuth, else h11).

==================  ==============================================================
``transport``       :class:`HttpTransport`: what ``Client.http(url, ...)`` builds
``responses``       reading its answers (JSON or SSE) as JSON-RPC messages
``legacy``          the legacy (2025) session: its id, renewal after a 404, GET streams
``pool``            the h11 HTTP/1.1 connection pool (:class:`PooledHttp`)
``cookies``         the pool's cookie jar (sticky load balancers)
``env``             when the environment sends a request through httpx instead
==================  ==============================================================

Nothing is re-exported here: import from the module.
"""
