"""The server side: :class:`~.core.ServerBase` (dispatch), connections and request context,
stdio, in-process sessions and the ``python -m <package>`` entry point.  HTTP is in ``http/``."""
