"""Formatting (black per unit, in a pool), compile checks, and the only code that touches disk: atomic writes, sealed caches, the tree write."""
