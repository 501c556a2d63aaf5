"""The stdio transport on the server side.

:mod:`.transport` serves one connection on stdin/stdout (:func:`~.transport.run_stdio`);
:mod:`.pipe` reads stdin as an event-loop pipe.
"""
