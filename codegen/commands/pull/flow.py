"""The flow of ``mcp-codegen pull``: a spec file from a live MCP server (typed clients for any server).

Three steps, each usable on its own:

1. :func:`read_server` connects with the runtime client (``mcp_codegen_runtime``; both eras,
   every ``tools/list`` page) and returns a :class:`ServerSnapshot`: ``serverInfo``,
   instructions and the wire ``Tool`` objects.
2. :func:`spec_from_snapshot` turns a snapshot into spec text (pure): tool entries copied
   as written, except what :mod:`codegen.commands.pull.normalize` must change, each change written
   as a ``# pull:`` comment above its tool, written by :mod:`.emit`.  Output is
   deterministic: tools sorted by name, fixed key order, no timestamps and no command line (it
   may hold secrets).  Its modules (YAML, the normalizer and the spec schema behind it) are
   imported on first use: a pull runs this step while the server exits.
3. :func:`check_spec` locates the notes in the text and, when asked (``pull --check``), runs
   the whole build pipeline on it (in a temporary folder) and adds the build diagnostics; :func:`write_spec`
   writes the file, refusing to replace an existing one unless ``force``.
"""

from __future__ import annotations

import os
import tempfile
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from mcp_codegen_runtime.client import ClientBase
from mcp_codegen_runtime.client.transports import StdioTransport
from mcp_codegen_runtime.wire.apps import UI_EXTENSION, UI_MIME_TYPE
from mcp_codegen_runtime.wire.errors import TransportClosedError, UnsupportedProtocolVersionError

from ...diagnostics import Diagnostic, Level
from .notes import INFO, Note
from .read import PullError, ServerSnapshot, fetch, fetch_then, read_server

__all__ = ["PullError", "PullResult", "ServerSnapshot", "check_spec", "fetch", "fetch_then", "pull", "read_server",
           "spec_from_snapshot", "write_spec"]

EraChoice = Literal["auto", "modern", "legacy"]


@dataclass
class PullResult:
    """A pulled spec: its text, its data and the changes pull made to the wire."""

    text: str
    data: dict[str, Any]
    notes: list[Note] = field(default_factory=list)
    #: What the server left unanswered, as notes for the user (not failures).
    listing_notes: list[str] = field(default_factory=list)


# -- 1. connect and read -------------------------------------------------------------------


#: Seconds a pulled stdio server is given to exit once its stdin is closed, before SIGTERM
#: (then the transport's usual 2 s before SIGKILL).  Everything has been read by then, so a
#: server that lingers (the npm servers arm a 350 ms exit timer) is not waited for.
EXIT_GRACE = 0.1


class PullClient(ClientBase):
    """The untyped client ``pull`` (and ``diff``) use: it declares MCP Apps (``io.modelcontextprotocol/ui``), so
    the tools it records are those a UI host sees, ``_meta.ui`` included (a server may hide the links and its
    app-only tools from other clients, as generated servers do: docs/apps.md)."""

    @property
    def client_capabilities(self) -> dict[str, Any]:
        caps = super().client_capabilities
        return {**caps, "extensions": {**caps.get("extensions", {}), UI_EXTENSION: {"mimeTypes": [UI_MIME_TYPE]}}}


def stdio_client(command: Sequence[str], *, era: EraChoice = "auto", cwd: str | os.PathLike[str] | None = None,
                 env: Mapping[str, str] | None = None, timeout: float = 30.0) -> ClientBase:
    """An untyped client that spawns ``command`` (program and arguments); stderr is captured;
    closing it gives the server :data:`EXIT_GRACE` seconds to exit before SIGTERM."""
    if not command:
        raise PullError("empty server command")
    from .spawn import adopt

    popen = adopt(command, cwd, env or {})  # started at CLI entry (spawn.py), when it was
    if popen is not None:
        from .adopt import AdoptedStdioTransport

        transport: StdioTransport = AdoptedStdioTransport(popen, command[0], list(command[1:]), env=env, cwd=cwd,
                                                          exit_grace=EXIT_GRACE)
    else:
        transport = StdioTransport(command[0], list(command[1:]), cwd=cwd, env=env, stderr="capture",
                                   exit_grace=EXIT_GRACE)
    return PullClient(transport, era=None if era == "auto" else era, timeout=timeout, max_timeout=max(timeout, 1.0),
                      audit=None)


def http_client(url: str, *, era: EraChoice = "auto", headers: Mapping[str, str] | None = None,
                timeout: float = 30.0, auth: Any = None) -> ClientBase:
    """An untyped client of a Streamable HTTP endpoint (needs ``httpx``; ``auth``: an
    :class:`~mcp_codegen_runtime.client.OAuthSettings`, which needs authlib too)."""
    return PullClient.http(url, headers=headers, http_timeout=timeout, era=None if era == "auto" else era,
                           timeout=timeout, max_timeout=max(timeout, 1.0), audit=None, auth=auth)


def oauth_settings(*, client_id: str | None = None, client_secret: str | None = None,
                   token_file: str | os.PathLike[str] | None = None, open_browser: bool = True) -> Any:
    """OAuth for ``pull --http --oauth``: the loopback browser flow (``127.0.0.1``, a free
    port), tokens in ``token_file`` (mode 0600) or in memory."""
    from mcp_codegen_runtime.client import FileTokenStorage, LoopbackBrowserRedirect, MemoryTokenStorage, OAuthSettings

    storage = FileTokenStorage(token_file) if token_file is not None else MemoryTokenStorage()
    return OAuthSettings(client_id=client_id, client_secret=client_secret, client_name="mcp-codegen pull",
                         redirect_handler=LoopbackBrowserRedirect(open_browser=open_browser), storage=storage)


def _pull_hint(exc: PullError) -> str:
    """What to try, by what actually went wrong."""
    cause = exc.__cause__
    text = str(exc)
    if isinstance(cause, UnsupportedProtocolVersionError) or "protocol version" in text:
        return "the server speaks a protocol version this client does not; --era or --protocol-version will not help"
    if text.startswith("no complete answer"):
        return "the server did not answer in time: raise --timeout; --era legacy helps servers that hang on server/discover"
    if isinstance(cause, TransportClosedError) or "TransportClosed" in text:
        return "the server process exited or closed the connection: run the command by hand and read its stderr"
    return "check the command (or URL) and the server's stderr above"


# -- 2. spec text --------------------------------------------------------------------------


def _header(snapshot: ServerSnapshot) -> str:
    info = snapshot.server_info
    who = f"{info.get('name', '?')!s} {info.get('version', '?')!s}"
    era = f", protocol {snapshot.protocol_version}" if snapshot.protocol_version else ""
    return (f"Pulled by `mcp-codegen pull` from the live MCP server {who}{era}.\n"
            "Tool entries are the server's tools/list, copied as written, except where a `pull:`\n"
            "comment says otherwise. Pull again to refresh; build with `mcp-codegen build`.\n")


def spec_from_snapshot(snapshot: ServerSnapshot, name: str | None = None,
                       previous: tuple[Mapping[str, Any], Mapping[str, Any]] | None = None,
                       layout: str | None = None) -> PullResult:
    """The spec text (YAML) for a snapshot; pure and deterministic.

    Args:
        snapshot: what the server said.
        name: the Python package / class-name stem (default: derived from ``serverInfo.name``, which is kept verbatim).
        previous: the ``overlays`` and ``$defs`` of the spec being replaced: its overlays are kept
            (:mod:`codegen.commands.pull.overlays`).
        layout: ``server.layout`` to record (``agent``: a later ``build``/``check`` of the spec
            keeps the ``servers/`` tree); None records nothing (the default package layout).
    """
    # imported here, not with the module: a pull runs this while the server exits (read.py)
    from .catalog import normalize_catalog
    from .emit import Block, comment, dump, loads_back
    from .normalize import normalize_server, normalize_tools
    from .overlays import keep_overlays

    server, notes = normalize_server(snapshot.server_info, snapshot.instructions, name)
    if layout is not None:
        server["layout"] = layout
    tools, shared, more = normalize_tools(snapshot.tools)
    notes += more
    overlays: dict[str, Any] = {}
    if previous is not None:
        overlays, more = keep_overlays(previous[0], previous[1], tools, shared)
        notes += more
    catalog, more = normalize_catalog(snapshot.resources, snapshot.templates, snapshot.prompts, tools)
    notes += more
    data: dict[str, Any] = {"mcp-codegen": 1, "server": server}
    if shared:
        data["$defs"] = shared
    data["tools"] = tools
    data.update(catalog)
    if overlays:
        data["overlays"] = overlays

    parts = [comment(_header(snapshot), 0)]
    if snapshot.notes:
        parts.append(comment("\n".join(f"pull: {n}" for n in snapshot.notes), 0))
    parts.append("mcp-codegen: 1\n")
    live = snapshot.server_info.get("name")
    server_notes = [n for n in notes if not n.tool and n.pointer.startswith("/server")]
    if isinstance(live, str) and live != server["name"]:
        parts.append(comment(f"serverInfo.name: {live}", 0))
    if server_notes:
        parts.append(comment("\n".join(f"pull: {n.message}" for n in server_notes), 0))
    parts.append(dump({"server": Block(server)}, 0))
    if shared:
        parts.append(comment("\n".join(f"pull: {n.message}" for n in notes if n.pointer == "/$defs"), 0))
        parts.append(dump({"$defs": shared}, 0))
    dropped = [n for n in notes if n.pointer.startswith("/tools/") or (n.tool and not n.pointer)]
    parts.append("tools:" + (" []\n" if not tools else "\n"))
    if dropped:
        parts.append(comment("\n".join(f"pull: {n.message}" for n in dropped), 2))
    for tool in tools:
        mine = sorted((n for n in notes if n.tool == tool["name"] and n.pointer), key=lambda n: n.pointer)
        if mine:
            parts.append(comment("\n".join(f"pull: {n.code} {n.pointer.lstrip('/')}: {n.message}" for n in mine), 2))
        parts.append(dump([tool], 2))
    for key in ("resources", "resourceTemplates", "prompts"):
        if key in catalog:
            mine = [n for n in notes if n.pointer.startswith(f"/{key}")]
            if mine:
                parts.append(comment("\n".join(f"pull: {n.message}" for n in mine), 0))
            parts.append(dump({key: catalog[key]}, 0))
    overlay_notes = [n.message for n in notes if n.pointer == "/overlays"]
    if overlays or overlay_notes:
        parts.append(comment("\n".join(["Kept from the spec this pull replaced (client-side types, never sent):",
                                          *(f"pull: {m}" for m in overlay_notes)]), 0))
    if overlays:
        parts.append(dump({"overlays": overlays}, 0))
    text = "".join(parts)
    if not loads_back(text, data):  # the emitter must round-trip; a mismatch is our bug
        raise AssertionError("pulled spec text does not load back to its data")
    return PullResult(text=text, data=data, notes=notes, listing_notes=[*snapshot.notes, *overlay_notes])


# -- 3. check and write --------------------------------------------------------------------


def _note_pointer(note: Note, data: dict[str, Any]) -> str:
    if not note.tool:
        return note.pointer if not note.pointer.startswith("/tools/") else "/tools"
    names = [t["name"] for t in data["tools"]]
    if note.tool not in names:
        return "/tools"
    return f"/tools/{names.index(note.tool)}{note.pointer}"


def check_spec(result: PullResult, display: str, build: bool = True) -> list[Diagnostic]:
    """Pull notes as warnings, plus (``build=True``) what building the spec reports.

    Every diagnostic is located in the spec text (``display`` is its file name).
    """
    from ...driver.pipeline import generate_one
    from ...spec.load import load_spec_file

    located = [n for n in result.notes if n.code != INFO]
    if not build and not located:
        return []  # nothing to locate in the text: it is not even parsed again
    with tempfile.TemporaryDirectory(prefix="mcp-codegen-pull-") as tmp:
        path = Path(tmp) / (Path(display).stem + ".yaml")
        path.write_text(result.text, encoding="utf-8")
        doc, diags = load_spec_file(path, display)
        out: list[Diagnostic] = list(diags)
        if doc is not None:
            for note in located:
                who = f"tool {note.tool!r}: " if note.tool else ""
                out.append(doc.diag(note.code, who + note.message, _note_pointer(note, result.data), level=Level.WARNING))
        if build and doc is not None:
            out += generate_one(path, display).diagnostics
    return out


def write_spec(text: str, path: Path, force: bool = False) -> None:
    """Write ``text`` to ``path`` (atomically); an existing file is replaced only with ``force``.

    Raises:
        FileExistsError: ``path`` exists and ``force`` is false.
    """
    from ...output.emit import write_text_file

    write_text_file(path, text, replace=force)


# -- all together ----------------------------------------------------------------------------


def _prepare_spec_step() -> None:
    """Import what :func:`spec_from_snapshot` needs (YAML, the normalizer, the spec schema) and
    compute the runtime member names, while the connection waits for the server's answers.
    Only a head start: the spec step imports and computes them itself when it gets there."""
    try:
        from . import catalog, emit, overlays  # noqa: F401
        from .normalize import runtime_member_names

        runtime_member_names()
    except Exception:  # (the spec step meets the same error and reports it)
        pass


def pull(client: ClientBase, output: Path | None, *, name: str | None = None, force: bool = False,
         build: bool = False, timeout: float = 60.0) -> tuple[PullResult | None, list[Diagnostic]]:
    """Read the server behind ``client``, write its spec to ``output`` (``None``: don't write).

    Replacing an existing ``output`` (``force``) keeps its ``overlays`` (see :mod:`.overlays`).

    Returns:
        The pulled spec (``None`` when nothing could be pulled) and every diagnostic: E070
        (server unreadable), E071 (``output`` exists and not ``force``), the pull notes
        (W102/W104) and, with ``build`` (``pull --check``), what building the spec reports.  A spec that
        does not build is still written, so it can be fixed by hand.
    """
    shown = str(output) if output is not None else "<stdout>"
    exists = Diagnostic(shown, 0, 0, "E071", f"{shown} already exists; not overwriting it",
                        hint="pass --force to replace it, or choose another output file")
    if output is not None and output.exists() and not force:
        return None, [exists]

    def write(snapshot: ServerSnapshot) -> tuple[PullResult, list[Diagnostic]]:
        from .overlays import read_overlays

        previous = read_overlays(output) if output is not None and output.exists() else None
        result = spec_from_snapshot(snapshot, name, previous)
        diags = check_spec(result, shown, build=False)
        if output is not None:
            try:
                write_spec(result.text, output, force)
            except FileExistsError:
                return result, [exists]
        return result, diags

    prepare = threading.Thread(target=_prepare_spec_step, name="pull-prepare", daemon=True)
    prepare.start()
    try:
        _, done = fetch_then(client, write, timeout)  # the spec is written while the server exits
    except PullError as exc:
        # never leave the thread importing while the interpreter shuts down (a crash, seen once
        # under load as SIGSEGV): a failed pull waits for its head start to finish
        prepare.join(30)
        return None, [Diagnostic(shown, 0, 0, "E070", f"cannot read the server's tools: {exc}", hint=_pull_hint(exc))]
    prepare.join(30)
    assert done is not None
    result, diags = done
    if build and diags != [exists]:  # the check build runs here, where it may use worker processes
        diags = check_spec(result, shown, build=True)
    return result, diags
