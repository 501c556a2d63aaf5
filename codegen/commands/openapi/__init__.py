"""``mcp-codegen openapi``: an OpenAPI 3.0/3.1 or Swagger 2.0 document -> an ordinary spec.

Modules by concern: :mod:`.load` (the document and its local ``$ref`` files, located),
:mod:`.shapes` and :mod:`.swagger2` (both versions read into one shape), :mod:`.schemas`
(OpenAPI schemas -> JSON Schema 2020-12, ``$defs``, request/response variants),
:mod:`.operations` (arguments and body binding), :mod:`.results` (outputSchema, wrap, errors),
:mod:`.security` (schemes, environment variables), :mod:`.ir` (what was read),
:mod:`.curation` and :mod:`.naming` (which tools, named how), :mod:`.writer` (spec data and
text) and :mod:`.convert` (the flow: ``convert``, ``write``).
This ``__init__`` imports nothing (its modules import one another).
"""
