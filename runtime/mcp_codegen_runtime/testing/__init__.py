"""Test helpers of generated packages: what a package's ``testing.py`` is made of.

=================  ==========================================================================
``gencode``        the facade ``testing.py`` imports (see :mod:`..gencode`)
``servers``        the server a test talks to: the implementation (resolved like ``--impl``),
                   or the package's mock server
``arguments``      ``ToolStrategies``, the base of a package's ``strategies`` (Hypothesis
                   imported on first use)
``strategies``     Hypothesis strategies from JSON Schemas (needs ``hypothesis`` and
                   ``jsonschema``: the ``testing`` extra)
``fixtures``       the pytest fixtures (added when pytest runs; pytest imported only then)
=================  ==========================================================================

docs/testing.md of mcp-codegen is the user's guide.
"""
