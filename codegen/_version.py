"""The generator's version, a leaf every stage may import (the package ``__init__`` re-exports it)."""

__version__ = "0.1.0"
