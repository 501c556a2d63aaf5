"""Diagnostics as data: every problem the generator finds, with a stable code and a location.

Nothing in the generator raises on bad input; it returns :class:`Diagnostic` values which the
CLI prints together.  :class:`CodegenError` carries a list of them across the API boundary.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path


class Level(enum.Enum):
    ERROR = "error"
    WARNING = "warning"


#: Stable diagnostic codes.  Tests and users may rely on them; never renumber.
CODES: dict[str, str] = {
    "E001": "spec file cannot be read",
    "E002": "YAML/JSON syntax error",
    "E003": "duplicate key in a mapping",
    "E004": "string is not valid Unicode (lone surrogate)",
    "E005": "YAML tag, merge key or non-text key (not plain data)",
    "E006": "YAML alias cycle or alias bomb",
    "E007": "a number JSON cannot carry (NaN, an infinity, beyond the float range)",
    "E010": "spec does not match the spec format",
    "E011": "unknown key",
    "E012": "unsupported spec format version",
    "E020": "invalid tool name",
    "E021": "duplicate tool name",
    "E022": "inputSchema root is not type: object",
    "E023": "invalid JSON Schema",
    "E024": "unresolvable $ref",
    "E025": "network $ref refused",
    "E026": "$ref escapes the spec folder",
    "E027": "$ref cycle without an object in between",
    "E028": "schema nested too deeply (or a chain of more than 64 schemas that are only a $ref)",
    "E029": "unknown schema keyword, probably a typo of a JSON Schema keyword",
    "E030": "Python name collision",
    "E031": "invalid Python name override",
    "E032": "two specs generate the same package",
    "E033": "package name reserved by mcp-codegen",
    "E034": "agent layout without the client side (target server)",
    "E080": "duplicate resource URI, template, prompt or argument name",
    "E081": "invalid URI template",
    "E082": "template variable or completion that the template does not have",
    "E120": "skill folder or its SKILL.md missing or unreadable",
    "E121": "skill path leaves the spec folder, or a symlink leads out of the skill folder",
    "E122": "skill over the extension's limits (512 files, 16 MiB)",
    "E123": "bad SKILL.md frontmatter",
    "E124": "skill name breaks the naming rules, differs from its folder, or is declared twice",
    "E125": "skill file is not UTF-8 text",
    "E126": "skill file name not usable in a skill:// URI",
    "E130": "upstream.baseUrl that is not an absolute http(s) URL (or has a query or fragment)",
    "E131": "tool with an http binding in a spec without upstream",
    "E132": "http.args and the inputSchema properties differ (every argument bound, once)",
    "E133": "path template and its in: path arguments differ, or a malformed path template",
    "E134": "two arguments sent to the same place of the request",
    "E135": "style or allowReserved not allowed where the argument goes",
    "E136": "security requirement naming a scheme upstream.security does not declare",
    "E137": "http.errors naming an error code the tool does not declare",
    "E138": "http.wrap naming a property the outputSchema does not have",
    "E139": "http.fixed value sent where an argument or another fixed value goes",
    "E129": "request body binding: body values without http.body, the whole body beside fields, or files that are no field",
    "E170": "registry name not reverse-DNS with exactly one '/' (3-200 characters)",
    "E171": "registry description missing or over 100 characters, or title empty or over 100",
    "E172": "environment variable declared twice (env and environment both, or a name twice)",
    "E173": "environment variable declaration that contradicts itself (secret with a default, default outside choices or format)",
    "E174": "registry on a spec without the server side (target client)",
    "E175": "server.version the registry refuses (latest, a range)",
    "E176": "registry URL that is not absolute http(s) or holds credentials (remote, websiteUrl, repository), or a repository without source or clean subfolder",
    "E177": "icon the registry refuses (src not https or over 255 characters, mimeType, sizes)",
    "E178": "registry.pypi that is not a PyPI project name",
    "E090": "server.auth URL that is not an absolute http(s) URL (or has a query or fragment)",
    "E040": "output path escapes the output folder",
    "E041": "would overwrite a hand-written file",
    "E042": "output path is a file",
    "E043": "output folder not writable",
    "E050": "model generation failed",
    "E051": "generated code does not compile",
    "E052": "no spec files found",
    "E060": "diff side cannot be read (git revision or path)",
    "E180": "bundle: the spec has no server side (server.target: client)",
    "E181": "bundle: implementation missing (the module is not beside the spec, and the base is not complete)",
    "E182": "bundle: the dependencies cannot be vendored (pip failed, or the interpreter cannot run)",
    "E183": "bundle: the manifest cannot be written as the spec stands (no author, an environment variable it cannot carry)",
    "E184": "bundle: the output folder cannot be written",
    "W100": "JSON Schema keyword the models cannot express; the original schema is checked at run time (jsonschema)",
    "W101": "name changed to a safe Python identifier",
    "W102": "schema loosened",
    "W103": "tool name outside the recommended pattern",
    "W104": "pull changed or dropped a tool field",
    "W105": "unknown key in a Tool object, kept on the wire",
    "W106": "pattern with no Python equivalent, not enforced",
    "W107": "server.auth URL over plain http to a host that is not loopback",
    "W108": "tool scopes without server.auth: enforced only when OAuth is configured at run time",
    "W109": "unknown schema keyword close to a JSON Schema keyword, in a pulled spec (kept as an annotation)",
    "W110": "no implementation stub: the build has no server side",
    "W112": "no implementation stub: the server base class is complete (every tool calls the upstream)",
    "W111": "host may refuse the tool: a limit of a common MCP host or model API (validate --host; docs/hosts.md)",
    "W115": "YAML 1.1 word read as a boolean or null (on, no, yes, off, ~) as a key or list item: quote it for the text",
    "W114": "YAML flow mapping: a key without a value that looks like the rest of a plain text cut at a comma",
    "W113": "required names a property the schema does not declare: a near miss of a declared one, or extra properties forbidden",
    "W170": "required environment variable with a default",
    "W171": "registry remote over plain http to a host that is not loopback",
    "W172": "registry title or description differing from the server's (the card contradicts server/discover)",
    "W173": "registry name's server part differing from server.name (the card's and serverInfo's names)",
    "E070": "pull: cannot read the server's tools",
    "E071": "pull: output file exists",
    "E072": "pull --layout agent: servers/mcp.json cannot be written",
    "E140": "openapi: the document cannot be read, or is no OpenAPI 3.0/3.1 or Swagger 2.0 document",
    "E141": "openapi: a part of the document has the wrong shape (type or required field)",
    "E142": "openapi: unresolvable $ref (missing file or pointer)",
    "E143": "openapi: network $ref refused",
    "E144": "openapi: $ref leaves the document's folder",
    "E145": "openapi: $ref cycle (a reference that resolves to itself)",
    "E146": "openapi: bad curation (the spec's `openapi` section or --overlay)",
    "E147": "openapi: output file is not a converted spec (use --force), or cannot be written",
    "E148": "openapi: no absolute server URL (give --base-url)",
    "W120": "openapi: part of an operation the spec cannot express (dropped or loosened; names the operation)",
    "W121": "openapi: tool name collision after sanitising or shortening, resolved with a hash suffix",
    "W122": "openapi: security scheme or requirement the upstream binding cannot express (dropped)",
    "W123": "openapi: curation names an operation or argument the document does not have",
    "W124": "openapi: schema value of the wrong type dropped (the document breaks the OpenAPI schema object)",
    "E185": "MCP Apps: a UI resource URI or a tool's ui link that is not a ui:// URI",
    "E186": "MCP Apps: a tool links a UI resource the spec's `ui` list does not declare",
    "E187": "MCP Apps: UI HTML file or folder missing, unreadable, not UTF-8, outside the spec's folder (../, absolute, a symlink out) or over the size limit",
    "E188": "MCP Apps: not an HTML5 document (no <!DOCTYPE html> or <html>), or a local reference of a folder's index.html that cannot be inlined",
    "E189": "MCP Apps: a ui:// URI declared twice (or also as an ordinary resource), or a tool with both `ui` and `_meta.ui`",
    "E190": "MCP Apps: a CSP entry holding whitespace, ';', ',' or quotes (it would change the policy a host builds)",
    "W175": "MCP Apps: a CSP domain that is not an origin (scheme://host[:port], *. subdomains allowed)",
    "W176": "MCP Apps: a UI resource no tool links (listed and readable, but no host renders it for a tool)",
    "E179": "icon src with a scheme clients must not meet (not https, http or data:image): javascript:, file: ...",
    "W174": "icon src of a tool, resource, template or prompt that is a local path (clients cannot fetch it)",
    "W177": "MCP Apps: a tool's ui visibility names neither model nor app (no host shows or calls it)",
    "W178": "MCP Apps: the HTML loads a script, stylesheet or image from an origin csp.resourceDomains does not allow (the host blocks it)",
    "W179": "MCP Apps: a single HTML file references a local file, which the host cannot fetch (use a folder with index.html: it is inlined)",
}


@dataclass(frozen=True, order=True)
class Diagnostic:
    """One finding.  ``file``/``line``/``col`` are 1-based; ``pointer`` is a JSON pointer."""

    file: str
    line: int
    col: int
    code: str
    message: str
    pointer: str = ""
    hint: str = ""
    level: Level = Level.ERROR

    @property
    def is_error(self) -> bool:
        return self.level is Level.ERROR

    def render(self) -> str:
        """``file:line:col: error[E020]: message (at /pointer)`` plus an indented hint."""
        loc = self.file
        if self.line:
            loc += f":{self.line}:{self.col}"
        text = f"{loc}: {self.level.value}[{self.code}]: {self.message}"
        if self.pointer:
            text += f" (at {self.pointer})"
        if self.hint:
            text += f"\n    hint: {self.hint}"
        return text


def clipped(text: str, limit: int = 60) -> str:
    """``text`` cut to ``limit`` characters (``...`` at the end) for a message quoting a value."""
    return text if len(text) <= limit else text[:limit - 3] + "..."


def sort_key(d: Diagnostic) -> tuple[str, int, int, str, str]:
    return (d.file, d.line, d.col, d.code, d.message)


def has_errors(diags: Iterable[Diagnostic], *, strict: bool = False) -> bool:
    """True when any diagnostic is an error (or any at all, with ``strict``)."""
    return any(d.is_error or strict for d in diags)


class CodegenError(Exception):
    """Raised by the public API when a build cannot proceed; carries every diagnostic."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        self.diagnostics = sorted(diagnostics, key=sort_key)
        super().__init__("\n".join(d.render() for d in self.diagnostics))


def relocate(diags: Iterable[Diagnostic], specs: Iterable[tuple[Path, str]], cwd: Path) -> list[Diagnostic]:
    """``diags`` with file names the terminal can open: relative to ``cwd`` (absolute when that is
    shorter to get to), instead of the stable ``<spec folder>/<file>`` names headers use.

    ``specs`` are the (path, display name) pairs of discovery; a display name whose folder part
    names two different folders is left as it is.
    """
    folders: dict[str, Path | None] = {}
    for path, display in specs:
        head = display.split("/", 1)[0]
        folder = path.resolve().parent
        folders[head] = folder if folders.get(head, folder) == folder else None
    out = []
    for d in diags:
        head, sep, rest = d.file.partition("/")
        folder = folders.get(head) if sep else None
        if folder is not None:
            target = folder / rest
            try:
                shown = os.path.relpath(target, cwd)
            except ValueError:  # another drive (Windows)
                shown = str(target)
            if shown.startswith(".." + os.sep + ".." + os.sep + ".."):
                shown = str(target)
            d = replace(d, file=shown)
        out.append(d)
    return out
