"""Protocol runtime copied verbatim into every generated package as ``_runtime``.

Nothing in here is templated: the generated modules (``tools.py``, ``server.py``,
``client.py``) import these classes and fill them with per-server data.  The runtime
depends only on the standard library and pydantic (``jsonschema`` is imported lazily,
only for tools whose schemas use keywords the models cannot express).
"""
