"""Helpers of the test_openapi_* modules: write a small document, convert it, validate the spec."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from codegen.commands.openapi.convert import Conversion, convert
from codegen.spec.load import load_spec_file
from codegen.spec.validate import validate


def write_doc(folder: Path, doc: dict[str, Any] | str, name: str = "api.yaml") -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(doc if isinstance(doc, str) else yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return path


def run(folder: Path, doc: dict[str, Any] | str, **kw: Any) -> Conversion:
    """Convert ``doc`` to ``folder/specs/api.yaml`` (not written)."""
    return convert(write_doc(folder, doc), folder / "specs" / "api.yaml", **kw)


def tool(conv: Conversion, name: str) -> dict[str, Any]:
    assert conv.data is not None, [d.render() for d in conv.diagnostics]
    return next(t for t in conv.data["tools"] if t["name"] == name)


def codes(conv: Conversion) -> list[str]:
    return sorted(d.code for d in conv.diagnostics)


def spec_errors(folder: Path, text: str) -> list[str]:
    """The errors `validate` finds in a converted spec's text."""
    path = folder / "check" / "spec.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    doc, diags = load_spec_file(path)
    assert doc is not None, [d.render() for d in diags]
    _, _, more = validate(doc)
    return [d.render() for d in diags + more if d.is_error]


def v3(paths: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """A 3.0 document around ``paths``."""
    return {"openapi": "3.0.3", "info": {"title": "Test API", "version": "2.1.0"},
            "servers": [{"url": "https://api.example.com/v1"}], "paths": paths, **extra}
