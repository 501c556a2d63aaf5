"""``mcp-codegen pull --layout agent -o DIR``: pull a live server into an agent tree in one step.

1. read the server and make its spec (:mod:`codegen.commands.pull.flow`), written to
   ``DIR/specs/<package>.yaml`` (kept under DIR: pull again with ``--force`` to refresh it;
   its ``overlays`` are kept);
2. build it into DIR with the agent layout: the typed package plus ``DIR/servers/<server>/``;
   the tree's shared files list every server already there too, so pulling three servers one
   after another leaves one tree with three servers;
3. write the server's entry into ``DIR/servers/mcp.json`` (the hosts' format,
   ``{"mcpServers": {...}}``), other entries kept, atomically: the command and arguments (or
   the URL), and environment variable **names** only, as ``${NAME}`` references, never values.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp_codegen_runtime.client import ClientBase

from ...diagnostics import Diagnostic
from ...ir.naming.agent import AGENT_TREE, env_reference, server_folder
from ...options import Options
from .flow import PullError, PullResult, _pull_hint, fetch, spec_from_snapshot, write_spec
from .overlays import read_overlays

#: The connections file of a tree, in the hosts' own format.
MCP_JSON = "mcp.json"
SPECS_FOLDER = "specs"


@dataclass
class AgentPull:
    """What ``pull --layout agent`` did."""

    result: PullResult | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    spec: Path | None = None
    server: str = ""
    files: int = 0
    #: environment variables the mcp.json entry reads (the user sets them)
    env_names: list[str] = field(default_factory=list)


def stdio_entry(command: Sequence[str], env: Mapping[str, str],
                cwd: Path | None = None) -> tuple[dict[str, Any], list[str]]:
    """The ``mcpServers`` entry of a stdio server: ``env`` names as ``${NAME}`` (values dropped);
    ``cwd`` (``pull --cwd``) as an absolute path."""
    entry: dict[str, Any] = {"command": command[0], "args": list(command[1:])}
    if cwd is not None:
        entry["cwd"] = str(cwd.resolve())
    if env:
        entry["env"] = {name: "${" + name + "}" for name in sorted(env)}
    return entry, sorted(env)


def http_entry(url: str, headers: Mapping[str, str], server: str) -> tuple[dict[str, Any], list[str]]:
    """The entry of an HTTP server: each header's value becomes ``${SERVER_HEADER}``."""
    entry: dict[str, Any] = {"url": url}
    names = []
    if headers:
        entry["headers"] = {}
        for header in sorted(headers):
            ref = env_reference(server, header)
            names.append(ref)
            entry["headers"][header] = "${" + ref + "}"
    return entry, names


def write_entry(tree: Path, server: str, entry: dict[str, Any]) -> Path:
    """Put ``entry`` under ``mcpServers.<server>`` in ``tree/mcp.json``, other keys and entries
    kept; written atomically.

    Raises:
        ValueError: the existing file is not a JSON object with an ``mcpServers`` object.
    """
    from ...output.atomic import replace_file

    path = tree / MCP_JSON
    data: dict[str, Any] = {"mcpServers": {}}
    if path.exists():
        try:
            data = json.loads(path.read_text("utf-8"))
        except ValueError as exc:
            raise ValueError(f"{path} is not JSON ({exc}); fix or remove it") from None
        if not isinstance(data, dict) or not isinstance(data.setdefault("mcpServers", {}), dict):
            raise ValueError(f"{path}: expected an object with an \"mcpServers\" object")
    data["mcpServers"][server] = entry
    replace_file(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    return path


def _package_of(text: str) -> str | None:
    """The package the pulled spec builds (decided by lowering, as ``build`` will)."""
    from ...driver.pipeline import lower_one

    with tempfile.TemporaryDirectory(prefix="mcp-codegen-pull-") as tmp:
        path = Path(tmp) / "pulled.yaml"
        path.write_text(text, encoding="utf-8")
        low = lower_one(path, "pulled.yaml", with_models=False)
        return low.ir.server.package if low.ir is not None else None


def pull_into(client: ClientBase, out: Path, entry: Callable[[str], tuple[dict[str, Any], list[str]]] | None, *,
              name: str | None = None, force: bool = False, skill: str | None = None,
              timeout: float = 60.0) -> AgentPull:
    """Pull the server behind ``client`` into the agent tree of ``out`` (see the module docstring).

    Args:
        client: an unconnected client of the server (:func:`~codegen.commands.pull.flow.stdio_client`, ...).
        out: the output folder (DIR).
        entry: makes its ``mcp.json`` entry and the variables it reads from the server's folder
            name (:func:`stdio_entry` / :func:`http_entry`); None writes none.
        name: ``--name`` (package and class names).
        force: replace an existing ``DIR/specs/<package>.yaml``.
        skill: ``--skill`` (``server`` or ``tree``).
        timeout: seconds for the whole read.
    """
    from ...api import build

    done = AgentPull()
    try:
        snapshot = fetch(client, timeout)
    except PullError as exc:
        done.diagnostics.append(Diagnostic(str(out), 0, 0, "E070", f"cannot read the server's tools: {exc}",
                                           hint=_pull_hint(exc)))
        return done
    result = spec_from_snapshot(snapshot, name, layout="agent")
    package = _package_of(result.text)
    if package is None:  # the spec does not lower: still kept, under its server's name
        package = str(result.data["server"].get("package") or "pulled")
    spec = out / SPECS_FOLDER / f"{package}.yaml"
    if spec.exists() and not force:
        done.diagnostics.append(Diagnostic(str(spec), 0, 0, "E071", f"{spec} already exists; not overwriting it",
                                           hint="pass --force to pull this server again (its overlays are kept)"))
        return done
    if spec.exists():
        result = spec_from_snapshot(snapshot, name, read_overlays(spec), layout="agent")
    write_spec(result.text, spec, force)
    done.result, done.spec, done.server = result, spec, server_folder(package)
    built, report = build([spec], out, options=Options(layout="agent", skill=skill))
    done.diagnostics += built.diagnostics
    if report is None:
        return done
    done.files = len(report.created) + len(report.updated)
    if entry is not None:
        made, done.env_names = entry(done.server)
        try:
            write_entry(out / AGENT_TREE, done.server, made)
        except (OSError, ValueError) as exc:
            done.diagnostics.append(Diagnostic(str(out / AGENT_TREE / MCP_JSON), 0, 0, "E072",
                                               f"cannot write the connection entry: {exc}"))
    return done
