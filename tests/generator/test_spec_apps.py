"""The spec's MCP Apps section (``ui``, ``tools[].ui``): what the loader refuses beyond the error golden
(symlinks, sizes, missing elements), that the spec format spells the extension's keys as its published schema
does, and that the files read are build inputs."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import yaml
from mcp_codegen_runtime.wire.apps import UI_MIME_TYPE

from codegen import generate
from codegen.diagnostics import Diagnostic
from codegen.driver.pipeline import lower_one
from codegen.spec.apps import MAX_UI_BYTES, META_KEYS
from codegen.spec.validate import spec_format_schema

ROOT = Path(__file__).resolve().parents[2]
APPS = json.loads((ROOT / "tests" / "schemas" / "ecosystem" / "ext-apps" / "schema.json").read_text("utf-8"))["$defs"]
PAGE = "<!DOCTYPE html>\n<html><body>hi</body></html>\n"


def _spec(root: Path, ui: list[dict[str, Any]], tool_ui: Any = "ui://t/view") -> Path:
    tool: dict[str, Any] = {"name": "t", "inputSchema": {"type": "object"}}
    if tool_ui is not None:
        tool["ui"] = tool_ui
    spec = root / "spec.yaml"
    spec.write_text(yaml.safe_dump({"mcp-codegen": 1, "server": {"name": "t", "version": "1"}, "tools": [tool],
                                    "ui": ui}), "utf-8")
    return spec


def _diags(spec: Path) -> list[Diagnostic]:
    return generate([spec]).diagnostics


def _codes(diags: list[Diagnostic]) -> list[str]:
    return [d.code for d in diags]


def test_the_spec_format_spells_the_extension_keys() -> None:
    defs = spec_format_schema()["$defs"]
    assert set(defs["UiCsp"]["properties"]) == set(APPS["McpUiResourceCsp"]["properties"])
    assert set(defs["UiPermissions"]["properties"]) == set(APPS["McpUiResourcePermissions"]["properties"])
    assert set(META_KEYS) == set(APPS["McpUiResourceMeta"]["properties"])
    assert set(META_KEYS) <= set(defs["UiResource"]["properties"])
    tool_keys = {k for k, v in APPS["McpUiToolMeta"]["properties"].items() if v != {"not": {}}}  # csp, permissions: absent
    assert set(defs["ToolUi"]["properties"]) == tool_keys
    visibility = {v["const"] for v in APPS["McpUiToolVisibility"]["anyOf"]}
    assert set(defs["ToolUi"]["properties"]["visibility"]["items"]["enum"]) == visibility


def test_a_good_spec_builds_with_the_page_inlined(tmp_path: Path) -> None:
    (tmp_path / "view").mkdir()
    (tmp_path / "view" / "index.html").write_text('<!DOCTYPE html>\n<html><head><link rel="stylesheet" href="a.css">'
                                                  '</head><body><script src="a.js"></script></body></html>\n', "utf-8")
    (tmp_path / "view" / "a.css").write_text("p { color: red } </STYLE> trap", "utf-8")
    (tmp_path / "view" / "a.js").write_text("let s = '</Script>';", "utf-8")
    spec = _spec(tmp_path, [{"uri": "ui://t/view", "name": "View", "html": "view"}])
    low = lower_one(spec, "spec.yaml")
    assert low.ir is not None, low.diagnostics
    html = low.ir.ui_resources[0].html
    assert html == ("<!DOCTYPE html>\n<html><head><style>p { color: red } <\\/STYLE> trap</style></head>"
                    "<body><script>let s = '<\\/Script>';</script></body></html>\n")
    assert {p.name for p in low.deps} >= {"index.html", "a.css", "a.js", "view", "spec.yaml"}  # watch and check see them
    assert low.ir.tools[0].wire["_meta"] == {"ui": {"resourceUri": "ui://t/view"}}
    assert UI_MIME_TYPE == "text/html;profile=mcp-app"


def test_symlinks_out_are_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.js").write_text("secret", "utf-8")
    (outside / "page.html").write_text(PAGE, "utf-8")
    root = tmp_path / "spec"
    (root / "view").mkdir(parents=True)
    (root / "view" / "index.html").write_text('<!DOCTYPE html><html><script src="s.js"></script></html>', "utf-8")
    os.symlink(outside / "secret.js", root / "view" / "s.js")
    os.symlink(outside / "page.html", root / "linked.html")
    spec = _spec(root, [{"uri": "ui://t/view", "name": "View", "html": "view"},
                        {"uri": "ui://t/linked", "name": "Linked", "html": "linked.html"}])
    diags = _diags(spec)
    assert _codes(diags) == ["E187", "W176", "E188"], diags
    assert diags[0].pointer == "/ui/1/html" and "outside the spec's folder" in diags[0].message
    assert diags[2].file.endswith("view/index.html") and "outside the UI folder" in diags[2].message


def test_limits_and_documents(tmp_path: Path) -> None:
    (tmp_path / "big.html").write_text(PAGE + "x" * MAX_UI_BYTES, "utf-8")
    (tmp_path / "bare.html").write_text("<!DOCTYPE html><p>no html element</p>", "utf-8")
    (tmp_path / "latin.html").write_bytes(b"<!DOCTYPE html><html>\xe9</html>")
    (tmp_path / "dir").mkdir()
    spec = _spec(tmp_path, [{"uri": f"ui://t/{n}", "name": n, "html": h} for n, h in
                            (("view", "big.html"), ("bare", "bare.html"), ("latin", "latin.html"), ("dir", "dir"))],
                 tool_ui={"resourceUri": "ui://t/view", "visibility": ["model", "bogus"]})
    diags = [d for d in _diags(spec) if d.code != "W176"]  # sorted by file: bare.html first
    assert [(d.code, d.pointer) for d in diags] == [("E188", ""), ("E010", "/tools/0/ui/visibility/1"),
                                                    ("E187", "/ui/0/html"), ("E187", "/ui/2/html"),
                                                    ("E187", "/ui/3/html")], diags
    assert diags[0].file.endswith("bare.html") and "<html>" in diags[0].message
    assert "'bogus' is not one of" in diags[1].message
    assert "at most" in diags[2].message and "UTF-8" in diags[3].message and "index.html" in diags[4].message


def test_a_csp_entry_that_would_change_the_policy_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "p.html").write_text(PAGE, "utf-8")
    csp = {"connectDomains": ["https://api.example.com", "https://a.example.com; script-src *"],
           "resourceDomains": ["https://cdn.example.com 'unsafe-eval'", "https://x.example.com,https://y.example.com"],
           "frameDomains": ["https://example.com/path"]}  # not an origin, but harmless: W175
    diags = _diags(_spec(tmp_path, [{"uri": "ui://t/view", "name": "V", "html": "p.html", "csp": csp}]))
    located = sorted((d.code, d.pointer) for d in diags if d.code in ("E190", "W175"))
    assert located == [("E190", "/ui/0/csp/connectDomains/1"), ("E190", "/ui/0/csp/resourceDomains/0"),
                       ("E190", "/ui/0/csp/resourceDomains/1"), ("W175", "/ui/0/csp/frameDomains/0")]
