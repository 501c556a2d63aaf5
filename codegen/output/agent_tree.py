"""The agent layout's shared files for an output folder: the servers of this build plus the
servers already in the folder's ``servers/`` tree (so pulling or building one server after
another extends the tree; rebuilding one server keeps the others).

A server folder counts when it holds a readable ``_index.json`` written by mcp-codegen; to drop
a server, delete its ``servers/<server>/`` folder (its package too) and build again.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..diagnostics import Diagnostic
from ..render.files import GeneratedFile

_AGENT_TREE = "servers"
_INDEX = "_index.json"
_INDEX_KEY = "mcp-codegen-agent-index"


def _new_indexes(files: list[GeneratedFile]) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for f in files:
        parts = f.path.split("/")
        if len(parts) == 3 and parts[0] == _AGENT_TREE and parts[2] == _INDEX:
            found[parts[1]] = json.loads(f.content)
    return found


def existing_indexes(out: Path) -> dict[str, dict[str, Any]]:
    """The indexes of the server folders already in ``out/servers/`` (unreadable ones skipped)."""
    found: dict[str, dict[str, Any]] = {}
    tree = out / _AGENT_TREE
    if not tree.is_dir():
        return found
    for folder in sorted(tree.iterdir()):
        path = folder / _INDEX
        if folder.is_symlink() or not path.is_file() or path.is_symlink():
            continue
        try:
            data = json.loads(path.read_text("utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and data.get(_INDEX_KEY) and data.get("server") == folder.name:
            found[folder.name] = data
    return found


def _name(index: dict[str, Any]) -> str:
    info = index.get("serverInfo")
    return str(info.get("name")) if isinstance(info, dict) else ""


def _replaced_servers(existing: dict[str, dict[str, Any]], new: dict[str, dict[str, Any]]) -> list[Diagnostic]:
    """E032 for each server folder this build would take over from another server."""
    out = []
    for folder in sorted(set(existing) & set(new)):
        before, after = existing[folder], new[folder]
        if _name(before) != _name(after):
            out.append(Diagnostic(str(after.get("spec", "")), 0, 0, "E032",
                                  f"servers/{folder}/ holds the tools of server {_name(before)!r} (from "
                                  f"{before.get('spec', '?')}); this build would replace them with server {_name(after)!r}'s",
                                  pointer="/server/package",
                                  hint="give this server another package name (server.package, or pull --name), "
                                       f"or delete servers/{folder}/ first to replace it"))
    return out


def with_tree_files(files: list[GeneratedFile], out: Path, tree_skill: bool) -> tuple[list[GeneratedFile], list[Diagnostic]]:
    """``files`` plus the tree's shared files (formatted, with their manifest) when any of
    them belongs to the agent layout; ``files`` unchanged otherwise."""
    new = _new_indexes(files)
    if not new:
        return files, []
    from ..render.agent_tree import render_tree
    from ..render.package import shared_environment
    from .emit import finalize

    existing = existing_indexes(out)
    clashes = _replaced_servers(existing, new)
    if clashes:
        return files, clashes
    indexes = {**existing, **new}
    tree, diags = finalize(render_tree(list(indexes.values()), tree_skill, shared_environment()),
                           "(the agent tree of this folder)")
    return sorted([*files, *tree], key=lambda f: f.path), diags
