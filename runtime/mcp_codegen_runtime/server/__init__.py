"""The server side of MCP.

:mod:`.dispatch` is the transport-neutral protocol core (:class:`~.dispatch.ServerCore`);
:mod:`.base` adds the ways to serve it (:class:`~.base.ServerBase`, what generated servers
subclass).  The transports: ``stdio/``, ``http/`` and the in-process :mod:`.session`;
optional extensions: ``tasks/`` and :mod:`.skills`; ``python -m <package>`` is :mod:`.main`.
"""
