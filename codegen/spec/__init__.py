"""Spec files: loading with source positions, the spec model, and validation."""
