"""The naming service: every Python name of generated code is decided here, and only read elsewhere.

* :mod:`.core`: the building blocks (``PyIdent``, ``ClassName``, the collision registry) and
  the names of a package (package, classes, methods, arguments, ``$defs`` classes ...);
* :mod:`.models`: the names inside a model (fields, enum members), which the model generator
  is told;
* :mod:`.agent`: the names of the agent layout (``servers/<server>/<tool>.py`` ...);
* :mod:`.upstream`: the constants of a spec with ``upstream`` (``UPSTREAM``, ``<TOOL>_HTTP``);
* :mod:`.testing`: the pytest fixtures of a package's ``testing`` module;
* :mod:`.publish`: the PyPI project of a package in the MCP Registry (``registry.pypi``).

This ``__init__`` imports nothing: ``core`` and ``models`` are leaves any stage may import.
"""
