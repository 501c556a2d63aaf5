"""Spec files: finding them, reading each once, loading with source positions, the spec model, ``$ref`` resolution, validation."""
