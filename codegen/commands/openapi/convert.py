"""The flow of ``mcp-codegen openapi``: document -> IR -> curated tools -> spec text -> file.

:func:`convert` is pure apart from reading files (the document, the spec it would replace, an
overlay); :func:`write` writes the text, refusing to replace a spec that no conversion wrote.
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ...diagnostics import Diagnostic, Level
from ...spec.load import load_spec_file
from .curation import Curation, apply, read
from .ir import Api, Tool
from .load import Document, Ref, load_document
from .naming import assign
from .operations import read_operations
from .schemas import Schemas
from .security import read_schemes, requirements
from .swagger2 import server_url
from .writer import MARKER, spec_data, spec_text

_VARIABLE = re.compile(r"\{([^{}]+)\}")
_SECTION_AFTER = re.compile(r"^(upstream|\$defs|tools):", re.MULTILINE)


@dataclass
class Conversion:
    """What a conversion gave: the spec text and data (None when it failed) and the diagnostics."""

    text: str | None = None
    data: dict[str, Any] | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    api: Api | None = None
    tools: list[Tool] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.text is not None and not any(d.is_error for d in self.diagnostics)


def convert(source: Path, output: Path | None = None, *, name: str | None = None, base_url: str | None = None,
            overlay: Path | None = None, force: bool = False, display: str | None = None,
            base_url_fallback: str | None = None) -> Conversion:
    """Convert the document at ``source`` into spec text.

    Args:
        source: the OpenAPI (3.0, 3.1) or Swagger 2.0 document.
        output: the spec it becomes (its ``openapi`` section is kept; None: nothing is kept and
            paths are relative to the working directory).
        name: ``server.name`` (default: the output's file stem; without an output, the document's
            title in lower case with ``-`` between words, else the document's file stem).
        base_url: replaces the document's server URL (needed when that is relative).
        overlay: a YAML/JSON file with an ``openapi`` curation section (it wins key by key).
        force: replace an output file that is not a converted spec.
        display: the document's name in diagnostics (default: ``source`` as given).
        base_url_fallback: the base URL when the document's is relative (``diff`` needs none).
    """
    result = Conversion()
    doc, diags = load_document(source, display)
    result.diagnostics += diags
    if doc is None:
        return result
    cur = Curation()
    if output is not None and output.is_file():
        result.diagnostics += _previous(output, force, cur)
    if overlay is not None:
        result.diagnostics += _overlay(overlay, cur)
    if any(d.is_error for d in result.diagnostics):
        return result
    server = name or (output.stem if output is not None else _slug(doc.data.get("info")) or source.stem)
    folder = (output.parent if output is not None else Path.cwd()).resolve()
    rel = Path(os.path.relpath(source.resolve(), folder)).as_posix()
    schemas = Schemas(doc)
    schemes = read_schemes(doc, server)
    known = {s.name for s in schemes}
    default = requirements(doc, doc.data.get("security"), Ref(doc.root, "/security"), known)
    operations = read_operations(doc, schemas, known)
    if not operations:
        hooks = "its webhooks and callbacks are requests the API makes, not tools" if doc.data.get("webhooks") else ""
        doc.warn(doc.root, "W120", "the document has no operation under `paths`: the spec has no tools"
                 + (f" ({hooks})" if hooks else ""), "/paths")
    tools, more = apply(operations, cur)
    result.diagnostics += more
    assign(doc, tools)
    info = doc.data.get("info") if isinstance(doc.data.get("info"), dict) else {}
    if "info" not in doc.data or not isinstance(doc.data.get("info"), dict):
        doc.error(doc.root, "E141", "the document needs an `info` mapping (title, version)", "/info" if "info" in doc.data else "")
    url = _base_url(doc, base_url, base_url_fallback)
    api = Api(title=_str(info.get("title")), version=_str(info.get("version")), description=_str(info.get("description")),
              base_url=url, schemes=schemes, default_security=default, operations=operations, defs=schemas.finish(),
              openapi_version=str(doc.data.get("openapi", doc.data.get("swagger"))), source_sha256=doc.root.sha)
    result.diagnostics += doc.diagnostics
    result.api, result.tools = api, tools
    if any(d.is_error for d in result.diagnostics):
        return result
    data = spec_data(api, tools, server, cur.data, rel)
    result.data = data
    result.text = spec_text(data, rel, api.openapi_version)
    return result


def _slug(info: Any) -> str:
    """A server name from the document's title (``Swagger Petstore`` -> ``swagger-petstore``)."""
    title = info.get("title") if isinstance(info, dict) else None
    return "-".join(re.findall(r"[a-z0-9]+", title.lower()))[:64] if isinstance(title, str) else ""


def _str(value: Any) -> str:
    return "" if value is None or isinstance(value, (dict, list)) else str(value)


def _base_url(doc: Document, given: str | None, fallback: str | None = None) -> str | None:
    """The upstream's base URL: ``given``, else the first server's URL with its variables set to
    their defaults; an error (E148) when that is not an absolute http(s) URL."""
    if given is not None:
        if not _absolute(given):
            doc.error(doc.root, "E148", f"--base-url {given!r} is not an absolute http(s) URL", "")
            return None
        return given.rstrip("/") or given
    if doc.version == "2.0":
        url, ptr = server_url(doc.data), "/host" if "host" in doc.data else ""
    else:
        servers = doc.data.get("servers")
        first: dict[str, Any] = servers[0] if isinstance(servers, list) and servers and isinstance(servers[0], dict) else {}
        url, ptr = first.get("url", "/"), "/servers/0/url" if first else ""
        if not isinstance(url, str):
            doc.error(doc.root, "E141", "a server `url` must be a string", ptr)
            return None
        variables: dict[str, Any] = first["variables"] if isinstance(first.get("variables"), dict) else {}

        def default(match: re.Match[str]) -> str:
            var = variables.get(match.group(1))
            if isinstance(var, dict) and isinstance(var.get("default"), (str, int, float)):
                return str(var["default"])
            doc.warn(doc.root, "W120", f"server variable {match.group(1)!r} has no default", ptr)
            return match.group(0)
        url = _VARIABLE.sub(default, url)
    if not _absolute(url) and fallback is not None:
        return fallback
    if not _absolute(url):
        doc.error(doc.root, "E148", f"the server URL {url!r} is relative: the document does not say which host serves "
                  "the API", ptr, "give the upstream's address with --base-url https://HOST/PATH")
        return None
    return url.rstrip("/") if urlsplit(url).path not in ("", "/") else url


def _absolute(url: str) -> bool:
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.netloc)


def _previous(output: Path, force: bool, cur: Curation) -> list[Diagnostic]:
    """Read the curation of the spec being replaced; refuse a file no conversion wrote."""
    try:
        text = output.read_text("utf-8", errors="replace")
    except OSError as exc:
        return [Diagnostic(str(output), 0, 0, "E147", f"cannot read the output file: {exc}")]
    if not text.startswith(MARKER):
        if force:
            return []
        return [Diagnostic(str(output), 1, 1, "E147", "the output file is not a spec converted by `mcp-codegen openapi`; "
                           "not replaced", hint="choose another -o, or replace it with --force")]
    # the converter writes `openapi:` before `upstream:`, `$defs:` and `tools:`: only that head is
    # read (a large API's spec takes seconds to load whole); its lines are the file's lines
    end = _SECTION_AFTER.search(text)
    with tempfile.TemporaryDirectory(prefix="mcp-codegen-openapi-") as tmp:
        head = Path(tmp) / "head.yaml"
        head.write_text(text[:end.start()] if end else text, encoding="utf-8")
        spec, diags = load_spec_file(head, str(output))
    if spec is None:
        return diags
    section = spec.data.get("openapi") if isinstance(spec.data, dict) else None
    if section is None:
        return []
    return read(spec, "/openapi", section, cur)


def _overlay(path: Path, cur: Curation) -> list[Diagnostic]:
    doc, diags = load_spec_file(path)
    if doc is None:
        return diags
    data = doc.data
    if isinstance(data, dict) and "openapi" in data and isinstance(data["openapi"], dict):
        return read(doc, "/openapi", data["openapi"], cur)
    return read(doc, "", data, cur)


def write(conversion: Conversion, output: Path) -> list[Diagnostic]:
    """Write the converted text to ``output`` (its folder created)."""
    assert conversion.text is not None
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        tmp = output.with_name(output.name + ".tmp")
        tmp.write_text(conversion.text, encoding="utf-8")
        os.replace(tmp, output)
    except OSError as exc:
        return [Diagnostic(str(output), 0, 0, "E147", f"cannot write the spec: {exc}")]
    return []


def counts(diags: list[Diagnostic]) -> tuple[int, int]:
    """(errors, warnings)."""
    errors = sum(1 for d in diags if d.level is Level.ERROR)
    return errors, len(diags) - errors


__all__ = ["MARKER", "Conversion", "convert", "counts", "write"]
