"""``mcp-codegen bundle SPEC -o DIR``: an MCP Bundle (``.mcpb``, a zip with ``manifest.json``) that a
desktop host installs and runs with only the Python interpreter the manifest asks for.

By concern: :mod:`.make` runs the steps and turns failures into diagnostics (E180-E184),
:mod:`.stage` lays the bundle out in a staging folder (the server package, the implementation,
the entry point, the vendored dependencies), :mod:`.manifest` writes ``manifest.json`` from the
IR, :mod:`.archive` zips the staging folder deterministically and atomically."""
