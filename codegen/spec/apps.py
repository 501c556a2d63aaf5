"""MCP Apps UI resources a spec declares (``ui:``, SEP-1865): read, checked and inlined at build time.

Each entry of ``ui`` names a ``ui://`` URI and its HTML: a file relative to the spec (inside
its folder), or a folder holding ``index.html``.  A host fetches ONE document with
``resources/read``, so a folder's ``index.html`` has its local ``<script src>``,
``<link rel=stylesheet href>`` and ``<img src>`` inlined (scripts and styles as elements, images
as ``data:`` URIs); nothing outside the folder is read.  :func:`load_ui` reports, located
(codes E185-E190, W175-W179; every entry checked in one run):

* E185 a URI (of an entry, or a tool's link: :func:`ui_link_checks`) that is not ``ui://``;
  E186 a tool linking a URI no entry declares; E189 a URI declared twice or also as an ordinary
  resource, a tool with both ``ui`` and ``_meta.ui``; E190 a CSP entry holding whitespace, ``;``,
  ``,`` or quotes (it would add sources, directives or keywords to the policy a host builds);
* E187 a missing, unreadable or non-UTF-8 file, a path out of the spec's folder (absolute,
  ``../``, a symlink out), a document over :data:`MAX_UI_BYTES` once inlined;
* E188 no ``<!DOCTYPE html>`` or no ``<html>`` element, a local reference of a folder's
  ``index.html`` that is missing, absolute (``/app.js``) or leaves the folder;
* W175 a CSP domain that is not an origin; W176 an entry no tool links; W177 a tool's
  visibility naming nobody; W178 an external script, stylesheet or image from an origin
  ``csp.resourceDomains`` does not allow; W179 a single file referencing local files.

The HTML is read with the standard library's :class:`html.parser.HTMLParser` (tags, attributes
and their source positions); the result is deterministic (the bytes as read, files inlined in
document order).
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from html import escape
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from mcp_codegen_runtime.wire.apps import UI_SCHEME, UiResourceDef

from ..diagnostics import Diagnostic, Level
from ..ir.nodes import UiResourceIR
from .load import SourceDoc
from .pointer import join_pointer
from .skills import folder_sha
from .sources import beside, read_bytes

#: The largest document served (after inlining), in bytes.
MAX_UI_BYTES = 4 * 1024 * 1024
#: The keys of an entry that are its ``_meta.ui`` (McpUiResourceMeta), as the extension spells them.
META_KEYS = ("csp", "permissions", "domain", "prefersBorder")
_ORIGIN = re.compile(r"(?:https?|wss?)://(?:\*\.)?[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*(?::[0-9]{1,5})?")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_END_TAG = re.compile(r"</[A-Za-z]+\s*>")
#: The image types an ``<img>`` is inlined as (a fixed table: the system's MIME database varies).
IMAGE_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
               ".svg": "image/svg+xml", ".webp": "image/webp", ".avif": "image/avif", ".ico": "image/x-icon"}


@dataclass
class _Ref:
    """One reference of the document: ``<script src>``, ``<link rel=stylesheet href>`` or ``<img src>``."""

    tag: str
    attrs: list[tuple[str, str | None]]
    value: str
    start: int  # offset of the start tag
    end: int  # offset after the start tag (after ``</script>`` for a script, once seen)
    line: int


class _Document(HTMLParser):
    """The facts :func:`load_ui` needs of one HTML document."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.text = text
        self.doctype = False
        self.html_element = False
        self.refs: list[_Ref] = []
        self._lines = [0]
        for match in re.finditer("\n", self.text):
            self._lines.append(match.end())
        self._script: _Ref | None = None
        self.feed(self.text)
        self.close()

    def _offset(self) -> int:
        line, col = self.getpos()
        return self._lines[line - 1] + col

    def handle_decl(self, decl: str) -> None:
        if decl.split()[:2] and [w.lower() for w in decl.split()[:2]] == ["doctype", "html"]:
            self.doctype = True

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "html":
            self.html_element = True
        values = dict(attrs)
        rel = (values.get("rel") or "").lower().split()
        key = "src" if tag in ("script", "img") else "href" if tag == "link" and "stylesheet" in rel else None
        value = values.get(key) if key else None
        if value is None:
            return
        start = self._offset()
        ref = _Ref(tag, attrs, value, start, start + len(self.get_starttag_text() or ""), self.getpos()[0])
        self.refs.append(ref)
        if tag == "script":
            self._script = ref

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._script is not None:
            at = self._offset()
            match = _END_TAG.match(self.text, at)
            self._script.end = match.end() if match else at
            self._script = None


def _external_origin(value: str) -> str | None:
    """The origin of an absolute (or scheme-relative) http(s) reference; None for others."""
    if value.startswith("//"):
        value = "https:" + value
    parts = urlsplit(value)
    if parts.scheme in ("http", "https") and parts.netloc:
        return f"{parts.scheme}://{parts.netloc}"
    return None


def _allowed(origin: str, domains: list[str]) -> bool:
    for domain in domains:
        if domain == origin:
            return True
        scheme, _, host = domain.partition("://")
        if host.startswith("*.") and origin.startswith(scheme + "://") and origin.endswith(host[1:]):
            return True
    return False


class _Loader:
    def __init__(self, doc: SourceDoc) -> None:
        self.doc = doc
        self.base = doc.path.resolve().parent
        self.diags: list[Diagnostic] = []
        self.deps: dict[str, str] = {}

    def err(self, code: str, message: str, pointer: str, hint: str = "", level: Level = Level.ERROR) -> None:
        self.diags.append(self.doc.diag(code, message, pointer, hint=hint, level=level))

    def file_diag(self, path: Path, line: int, code: str, message: str, hint: str = "", level: Level = Level.ERROR) -> None:
        self.diags.append(Diagnostic(self.shown(path), line, 1 if line else 0, code, message, hint=hint, level=level))

    def shown(self, path: Path) -> str:
        """``path`` as diagnostics show it: beside the spec's displayed name when inside its folder."""
        resolved = path.resolve() if path.exists() else path
        if resolved.is_relative_to(self.base):
            return (Path(self.doc.display).parent / resolved.relative_to(self.base)).as_posix()
        return str(path)

    def read_text(self, path: Path, ptr: str, what: str) -> str | None:
        try:
            data = read_bytes(path)
        except OSError as exc:
            self.err("E187", f"cannot read {what} {path.name!r}: {exc}", ptr)
            return None
        self.deps[str(path.resolve())] = hashlib.sha256(data).hexdigest()
        if len(data) > MAX_UI_BYTES:
            self.err("E187", f"{what} {path.name!r} holds {len(data)} bytes; at most {MAX_UI_BYTES}", ptr)
            return None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            self.err("E187", f"{what} {path.name!r} is not UTF-8 text", ptr, hint="save it as UTF-8")
            return None

    def html(self, entry: dict[str, Any], ptr: str) -> str | None:
        """The document of one entry, inlined; None after an error (reported)."""
        raw = Path(str(entry["html"]))
        at = join_pointer(ptr, "html")
        target = beside(self.base, raw)
        if target is None:
            self.err("E187", f"UI HTML {str(raw)!r} is outside the spec's folder", at,
                     hint="keep the HTML beside the spec (no absolute path, no ../ out of its folder, no symlink out)")
            return None
        if not target.exists():
            self.err("E187", f"UI HTML {str(raw)!r} does not exist", at, hint=f"looked for {self.shown(target)}")
            return None
        folder = target if target.is_dir() else None
        index = target / "index.html" if folder is not None else target
        if folder is not None:
            if not index.is_file() or not index.resolve().is_relative_to(folder):
                self.err("E187", f"UI folder {str(raw)!r} has no index.html", at,
                         hint="a UI folder holds index.html (and the files it references)")
                return None
            self.deps[str(folder)] = folder_sha(folder)
        text = self.read_text(index, at, "UI HTML")
        if text is None:
            return None
        text = text.removeprefix("\ufeff")
        document = _Document(text)
        if not document.doctype or not document.html_element:
            missing = "<!DOCTYPE html>" if not document.doctype else "an <html> element"
            self.file_diag(index, 1, "E188", f"{index.name} is not an HTML5 document: it lacks {missing}",
                           hint="MCP Apps serve a whole HTML5 document: start with <!DOCTYPE html><html>...")
            return None
        self.external(entry, index, document.refs)
        locals_ = [r for r in document.refs if not _external(r.value)]
        if folder is None:
            for ref in locals_:
                self.file_diag(index, ref.line, "W179", f"<{ref.tag}> references the local file {ref.value!r}, which "
                               "the host cannot fetch (it reads one document)", level=Level.WARNING,
                               hint=f"make {str(raw)!r} a folder with index.html: its local files are inlined")
            return text
        return self.inline(text, index, folder, locals_, at)

    def external(self, entry: dict[str, Any], index: Path, refs: list[_Ref]) -> None:
        csp = entry.get("csp") or {}
        domains = [d for d in csp.get("resourceDomains") or [] if isinstance(d, str)]
        for ref in refs:
            origin = _external_origin(ref.value)
            if origin is not None and not _allowed(origin, domains):
                self.file_diag(index, ref.line, "W178", f"<{ref.tag}> loads {ref.value!r} from {origin}, which "
                               "csp.resourceDomains does not allow: the host blocks it", level=Level.WARNING,
                               hint=f"add {origin!r} to csp.resourceDomains, or ship the file in the UI folder")

    def inline(self, text: str, index: Path, folder: Path, refs: list[_Ref], at: str) -> str | None:
        out, ok, size = text, True, len(text.encode("utf-8"))
        for ref in sorted(refs, key=lambda r: r.start, reverse=True):
            path = unquote(urlsplit(ref.value).path)
            if path.startswith("/"):
                self.file_diag(index, ref.line, "E188", f"<{ref.tag}> references {ref.value!r}: an absolute path the "
                               "host cannot serve", hint="use a path relative to index.html")
                ok = False
                continue
            target = (index.parent / path).resolve()
            if not target.is_relative_to(folder):
                self.file_diag(index, ref.line, "E188", f"<{ref.tag}> references {ref.value!r}, outside the UI folder "
                               "(../ or a symlink out)", hint="keep every file the page uses inside its folder")
                ok = False
                continue
            if not target.is_file():
                self.file_diag(index, ref.line, "E188", f"<{ref.tag}> references {ref.value!r}, which does not exist",
                               hint=f"looked for {self.shown(target)}")
                ok = False
                continue
            replacement = self.element(ref, target, index, at)
            if replacement is None:
                ok = False
                continue
            size += len(replacement.encode("utf-8"))
            out = out[:ref.start] + replacement + out[ref.end:]
        if ok and size > MAX_UI_BYTES:
            self.err("E187", f"the UI document holds more than {MAX_UI_BYTES} bytes once its files are inlined", at,
                     hint="serve large assets from an origin listed in csp.resourceDomains")
            return None
        return out if ok else None

    def element(self, ref: _Ref, target: Path, index: Path, at: str) -> str | None:
        """What replaces a reference: an inline ``<script>`` / ``<style>``, an ``<img>`` with a data: URI."""
        kept = [(k, v) for k, v in ref.attrs if k not in ("src", "href", "rel")]
        if ref.tag == "img":
            try:
                data = read_bytes(target)
            except OSError as exc:
                self.err("E187", f"cannot read {target.name!r}: {exc}", at)
                return None
            self.deps[str(target)] = hashlib.sha256(data).hexdigest()
            mime = IMAGE_TYPES.get(target.suffix.lower())
            if mime is None:
                self.file_diag(index, ref.line, "E188", f"<img> file {ref.value!r} is not an image type the page can inline",
                               hint=f"inlined image types: {', '.join(sorted(IMAGE_TYPES))}")
                return None
            src = f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
            return f"<img{_attrs([('src', src), *kept])}>"
        body = self.read_text(target, at, "UI file")
        if body is None:
            return None
        if ref.tag == "script":
            return f"<script{_attrs(kept)}>{_guard(body, 'script')}</script>"
        return f"<style{_attrs([(k, v) for k, v in kept if k == 'media'])}>{_guard(body, 'style')}</style>"


def _external(value: str) -> bool:
    return value.startswith("//") or bool(_SCHEME.match(value))


def _attrs(attrs: list[tuple[str, str | None]]) -> str:
    return "".join(f" {k}" if v is None else f' {k}="{escape(v, quote=True)}"' for k, v in attrs)


def _guard(body: str, tag: str) -> str:
    """``body`` safe inside ``<tag>...</tag>``: no ``</tag`` closing the element early."""
    return re.sub(rf"</({tag})", r"<\\/\1", body, flags=re.IGNORECASE)


#: What a CSP source list entry cannot hold without changing the policy's syntax: whitespace or a
#: control character (a second source), ``;`` (a new directive), ``,`` (a second policy), quotes
#: (a keyword such as ``'unsafe-eval'``).
_CSP_BREAKING = re.compile(r"[\s;,'\"\x00-\x1f\x7f]")


def _domains(loader: _Loader, entry: dict[str, Any], ptr: str) -> None:
    csp = entry.get("csp") or {}
    for key in ("connectDomains", "resourceDomains", "frameDomains", "baseUriDomains"):
        for j, domain in enumerate(csp.get(key) or []):
            if isinstance(domain, str) and _CSP_BREAKING.search(domain):
                loader.err("E190", f"csp.{key} entry {domain!r} would change the policy a host builds from it",
                           join_pointer(ptr, "csp", key, j),
                           hint="one origin per entry (scheme://host[:port]): no spaces, ';', ',' or quotes")
            elif isinstance(domain, str) and not _ORIGIN.fullmatch(domain):
                loader.err("W175", f"csp.{key} entry {domain!r} is not an origin", join_pointer(ptr, "csp", key, j),
                           hint="write scheme://host[:port] (https://api.example.com, https://*.example.com), "
                                "no path or trailing slash", level=Level.WARNING)


def load_ui(doc: SourceDoc, resource_uris: dict[str, str]) -> tuple[tuple[UiResourceIR, ...], list[Diagnostic], dict[str, str]]:
    """The UI resources ``doc`` declares (spec order), their diagnostics, and what was read
    (resolved path -> sha256; a folder -> its listing digest).  ``resource_uris``: the
    ordinary resources' URIs -> their pointers (a ``ui://`` URI may not be both)."""
    entries = doc.data.get("ui") if isinstance(doc.data, dict) else None
    loader = _Loader(doc)
    found: list[UiResourceIR] = []
    first: dict[str, str] = {}
    for i, entry in enumerate(entries or []):
        if not isinstance(entry, dict):
            continue
        ptr = join_pointer("/ui", i)
        uri = str(entry["uri"])
        if not uri.startswith(UI_SCHEME) or len(uri) == len(UI_SCHEME):
            loader.err("E185", f"UI resource URI {uri!r} does not use the ui:// scheme", join_pointer(ptr, "uri"),
                       hint="MCP Apps UI resources are ui://<server>/<view> URIs")
        elif uri in first:
            loader.err("E189", f"UI resource {uri!r} is declared twice (first at {first[uri]})", join_pointer(ptr, "uri"))
        elif uri in resource_uris:
            loader.err("E189", f"{uri!r} is declared both in ui and as an ordinary resource, {resource_uris[uri]}",
                       join_pointer(ptr, "uri"), hint="declare a UI resource only in the ui list")
        first.setdefault(uri, ptr)
        _domains(loader, entry, ptr)
        html = loader.html(entry, ptr)
        if html is None:
            continue
        meta = {k: entry[k] for k in META_KEYS if k in entry}
        found.append(UiResourceIR(uri, str(entry["name"]), entry.get("title"), entry.get("description"), meta, html))
    return tuple(found), loader.diags, loader.deps


def ui_uris(data: Any) -> tuple[set[str], set[str]]:
    """(the URIs the spec's ``ui`` list declares, the URIs its tools link), read from the whole
    document: an entry set aside for a mistake of its own still declares or links its URI."""
    entries = data.get("ui") if isinstance(data, dict) else None
    tools = data.get("tools") if isinstance(data, dict) else None
    declared = {str(e["uri"]) for e in entries if isinstance(e, dict) and "uri" in e} if isinstance(entries, list) else set()
    linked: set[str] = set()
    for tool in tools if isinstance(tools, list) else []:
        ui = tool.get("ui") if isinstance(tool, dict) else None
        uri = ui.get("resourceUri") if isinstance(ui, dict) else ui
        if isinstance(uri, str):
            linked.add(uri)
    return declared, linked


def ui_link_checks(doc: SourceDoc, links: list[tuple[str, dict[str, Any], bool]], declared: set[str],
                   linked_anywhere: Iterable[str] = ()) -> list[Diagnostic]:
    """The tools' links (pointer of the tool, its ``_meta.ui`` from ``ui:``, whether it also
    wrote ``_meta.ui``) against the declared UI URIs (:func:`ui_uris`); W176 for a declared URI
    no tool links (``linked_anywhere``: links of tools set aside for another mistake count)."""
    out: list[Diagnostic] = []
    linked: set[str] = set(linked_anywhere)
    for ptr, ui, written in links:
        at = join_pointer(ptr, "ui")
        uri = ui["resourceUri"]
        linked.add(uri)
        if written:
            out.append(doc.diag("E189", "the tool has both `ui` and `_meta.ui`", at,
                                hint="keep `ui` (the generator writes _meta.ui from it)"))
        if not uri.startswith(UI_SCHEME):
            out.append(doc.diag("E185", f"the tool links {uri!r}, which is not a ui:// URI", at))
        elif uri not in declared:
            out.append(doc.diag("E186", f"the tool links the UI resource {uri!r}, which the spec's ui list does not "
                                "declare", at, hint=f"declared: {', '.join(sorted(declared)) or 'none'}"))
        if ui.get("visibility") == []:
            out.append(doc.diag("W177", "visibility is empty: no host shows the tool to the model nor lets its app "
                                "call it", join_pointer(at, "visibility"), hint="name model, app or both",
                                level=Level.WARNING))
    return out + [doc.diag("W176", f"no tool links the UI resource {uri!r}", join_pointer("/ui", i, "uri"),
                           hint="link it from a tool with `ui: <uri>`; it is still listed and readable",
                           level=Level.WARNING)
                  for i, uri in enumerate(_declared_order(doc))
                  if uri in declared and uri not in linked and uri.startswith(UI_SCHEME)]


def _declared_order(doc: SourceDoc) -> list[str]:
    entries = doc.data.get("ui") if isinstance(doc.data, dict) else None
    return [str(e.get("uri")) if isinstance(e, dict) else "" for e in entries or []]


def ui_listing(ui: UiResourceIR) -> dict[str, Any]:
    """The ``resources/list`` entry the generated server sends for ``ui`` (what ``diff`` compares)."""
    return UiResourceDef(ui.uri, ui.name, ui.html, ui.meta, ui.title, ui.description).listing()
