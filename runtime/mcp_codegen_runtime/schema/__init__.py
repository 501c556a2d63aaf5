"""Validation shared by server (arguments) and client (results): the models first, the
original JSON Schema (``jsonschema``, ECMA-262 patterns) for schema-checked tools."""
