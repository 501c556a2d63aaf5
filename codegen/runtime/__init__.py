"""Protocol runtime copied verbatim into every generated package as ``_runtime`` (or, with
``build --shared-runtime``, once per output folder as ``mcp_codegen_runtime``).

Nothing in here is templated: the generated modules (``tools.py``, ``server.py``,
``client.py``) import these classes and fill them with per-server data, only through the
facade ``gencode.py`` / ``server/gencode.py`` / ``client/gencode.py`` (``__all__`` is all
they may use; ``gencode.RUNTIME_API`` is the version they check at import).  Every copy of one
mcp-codegen version is byte-identical (see :data:`RUNTIME_VERSION`).  Layers, each importing
only the ones above it::

    wire/     protocol constants, JSON-RPC, errors, content blocks, versions, headers, SSE, tool tables
    schema/   argument and result validation (models, or jsonschema for schema-checked tools)
    server/   ServerBase (base) = the protocol core (core) + in-process and HTTP serving;
              connections, context, stdio, ``python -m`` main   (target "server")
    server/http/  Streamable HTTP (both eras) as an ASGI app, uvicorn launcher
    client/   ClientBase, transports (stdio, HTTP, in-process), the sync facade  (target "client")

The runtime depends only on the standard library and pydantic.  ``jsonschema`` (tools whose
schemas use keywords the models cannot express), ``uvicorn`` (serving HTTP) and ``httpx``
(calling over HTTP) are imported when first used, with a message naming the missing package.
"""

#: The mcp-codegen version this runtime belongs to; every generated copy carries it.
RUNTIME_VERSION = "0.1.0"
