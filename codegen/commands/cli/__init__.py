"""The ``mcp-codegen`` command line, in one place.

* :mod:`.entry`: the console script (``mcp-codegen``, ``python -m codegen``): an up-to-date
  ``build`` answered by hand-parsed arguments before typer is imported, a plain
  ``pull --stdio`` started early; anything else runs the full command line;
* :mod:`.main`: the full command line: every command registered, the build commands defined;
* :mod:`.app`: the typer application itself (settings, ``--version``, process set-up), and
  the ``pull``-only command line of a plain ``pull --stdio``;
* :mod:`.pull`: the ``pull`` command; :mod:`.openapi`: the ``openapi`` command; :mod:`.sync`: ``diff``, ``docs`` and ``build --watch``.

This ``__init__`` imports nothing: the entry's fast path must not load typer.
"""
