"""Typed listings (issue 28 point 2): ``list_tools``, ``list_resources``, ``list_resource_templates``
and ``list_prompts`` return typed objects named as the official Python SDK names their fields,
follow every page, keep the wire dict in ``.raw``, and type-check for user code under
``mypy --strict`` (a misuse is a mypy error).  Against the generated ``everything`` server over
stdio (``--page-size 1``: every page followed) and in process, async and sync.
"""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import mcp.types
import pytest
from client_fakes import GENERATED
from common_support import run_async
from everything import EverythingClient, EverythingSyncClient, Prompt, Resource, ResourceTemplate, Tool
from everything_impl import EverythingService
from mcp_codegen_runtime.client.listing import Tool as RuntimeTool


def stdio() -> EverythingClient:
    return EverythingClient.stdio(sys.executable, ["-m", "everything", "--stdio", "--page-size", "1"], cwd=GENERATED,
                                  stderr="capture")


def test_typed_listings_over_stdio_follow_every_page() -> None:
    async def main() -> tuple[list[Tool], list[Resource], list[ResourceTemplate], list[Prompt]]:
        async with stdio() as c:
            return (await c.list_tools(), await c.list_resources(), await c.list_resource_templates(),
                    await c.list_prompts())

    tools, resources, templates, prompts = run_async(main())
    assert len(tools) == len(EverythingClient.tool_defs) > 1  # one per page, all of them
    by_name = {t.name: t for t in tools}
    for td in EverythingClient.tool_defs:
        t = by_name[td.name]
        assert isinstance(t, Tool)
        assert t.raw == dict(td.wire)  # the wire dict as sent (newest protocol: the spec's Tool)
        assert t.input_schema == td.wire["inputSchema"]
        assert t.output_schema == td.wire.get("outputSchema")
        assert t.description == td.wire.get("description")
    assert [r.uri for r in resources] == ["test://static-text", "test://watched-resource", "test://static-binary",
                                          "skill://pdf-processing/SKILL.md", "skill://release-notes/SKILL.md"]  # skills
    text = resources[0]
    assert (text.name, text.title, text.mime_type, text.size) == ("static_text", "Static text", "text/plain", None)
    assert text.raw == {"uri": "test://static-text", "name": "static_text", "title": "Static text",
                        "description": "A fixed text resource (conformance resources-read-text).",
                        "mimeType": "text/plain"}
    [tpl] = templates
    assert (tpl.uri_template, tpl.name, tpl.mime_type) == ("test://template/{id}/data", "template_data", "application/json")
    assert len(prompts) == 5
    args = {p.name: p.arguments for p in prompts}
    assert args["test_simple_prompt"] is None
    assert [(a.name, a.required, a.description) for a in args["test_prompt_with_arguments"] or []] == [
        ("arg1", True, "First test argument"), ("arg2", True, "Second test argument")]


def test_attribute_names_are_the_official_sdks() -> None:
    """Every field of the SDK's Tool / Resource / ResourceTemplate / Prompt exists here by the same name."""
    from mcp_codegen_runtime.client import listing

    pairs = [(listing.Tool, mcp.types.Tool), (listing.Resource, mcp.types.Resource),
             (listing.ResourceTemplate, mcp.types.ResourceTemplate), (listing.Prompt, mcp.types.Prompt),
             (listing.PromptArgument, mcp.types.PromptArgument), (listing.ToolAnnotations, mcp.types.ToolAnnotations),
             (listing.Icon, mcp.types.Icon)]
    for ours, sdk in pairs:
        for name, f in sdk.model_fields.items():
            assert name in ours.model_fields, (ours.__name__, name)
            assert (ours.model_fields[name].alias or name) == (f.alias or name), (ours.__name__, name)


def test_model_dump_by_alias_and_raw_and_the_deprecated_dict_access() -> None:
    wire = {"name": "t", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": True},
            "icons": [{"src": "https://x.invalid/i.png", "sizes": ["16x16"]}], "_meta": {"k": 1}, "x-vendor": [1]}
    t = RuntimeTool.from_wire(wire)
    assert t.annotations is not None and t.annotations.read_only_hint is True
    assert t.icons is not None and t.icons[0].sizes == ["16x16"] and t.meta == {"k": 1}
    assert t.model_dump(by_alias=True, exclude_unset=True) == wire
    assert t.raw == wire and t.raw is not t.raw  # a copy each time
    with pytest.warns(DeprecationWarning, match="dict access is deprecated"):
        assert t["name"] == "t"
    with pytest.warns(DeprecationWarning):
        assert t.get("x-vendor") == [1] and t.get("nope", 5) == 5
    with pytest.warns(DeprecationWarning):
        assert "annotations" in t


def test_a_malformed_field_keeps_the_rest_and_a_nameless_entry_is_left_out() -> None:
    from mcp_codegen_runtime.client.listing import typed

    sloppy = {"name": "s", "description": 5, "inputSchema": True, "annotations": {"readOnlyHint": "yes"}}
    [t] = typed(RuntimeTool, [sloppy, {"description": "no name"}])
    assert (t.name, t.description, t.input_schema, t.annotations) == ("s", None, {}, None)
    assert t.raw == sloppy


def test_sync_and_in_process_clients_return_the_same_types() -> None:
    with EverythingSyncClient.in_process(EverythingService()) as c:
        tools = c.list_tools()
        assert tools and all(isinstance(t, Tool) for t in tools)
        assert [type(x).__name__ for x in (c.list_resources()[0], c.list_resource_templates()[0], c.list_prompts()[0])] == [
            "Resource", "ResourceTemplate", "Prompt"]
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert c.check_compat().compatible  # internal users read the typed lists without dict access


USER_PROGRAM = '''
from everything import EverythingSyncClient, Tool


def describe(c: EverythingSyncClient) -> list[str]:
    tools: list[Tool] = c.list_tools()
    out = [t.name.upper() + (t.title or "") + str(len(t.input_schema)) for t in tools]
    out += [r.uri + (r.mime_type or "") for r in c.list_resources()]
    out += [t.uri_template for t in c.list_resource_templates()]
    for p in c.list_prompts():
        out += [a.name for a in p.arguments or [] if a.required]
    ro = [t.name for t in tools if t.annotations is not None and t.annotations.read_only_hint]
    return out + ro
'''


def _mypy(tmp_path: Path, name: str, text: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / name).write_text(text, "utf-8")
    return subprocess.run([sys.executable, "-m", "mypy", "--strict", name], cwd=tmp_path,
                          capture_output=True, text=True, timeout=600, env={**os.environ, "MYPYPATH": str(GENERATED)})


def test_user_code_on_the_typed_listings_passes_mypy_strict_and_misuse_fails(tmp_path: Path) -> None:
    proc = _mypy(tmp_path, "user_listing.py", USER_PROGRAM)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    wrong = USER_PROGRAM.replace('(t.title or "")', "t.title").replace("r.uri +", "r.url +")
    proc = _mypy(tmp_path, "wrong_listing.py", wrong)
    out: Any = proc.stdout
    assert proc.returncode == 1, out
    assert 'Unsupported operand types for + ("str" and "None")' in out, out  # title is str | None
    assert '"Resource" has no attribute "url"' in out, out
