"""Resources, resource templates, prompts and completions declared in a spec: the generated
server (tables, typed handler stubs, typed variables and arguments models) serves them in both
eras; the spec is validated with located diagnostics."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

import pytest
from common_support import run_async
from mcp_codegen_runtime.client import ClientBase
from mcp_codegen_runtime.wire import errors as E

from codegen import build, generate

SPEC = """\
mcp-codegen: 1
server: {name: shelf, version: "1.0"}
tools:
  - name: ping_tool
    inputSchema: {type: object}
resources:
  - uri: test://static-text
    name: static_text
    mimeType: text/plain
    description: A fixed text.
resourceTemplates:
  - uriTemplate: "test://items/{id}{?fields}"
    name: item
    mimeType: application/json
    variables:
      id: {type: integer, minimum: 1}
    complete:
      id: ["1", "12", "123"]
prompts:
  - name: greet
    description: Say hello.
    arguments:
      - {name: who, required: true, complete: handler}
      - {name: tone, enum: [warm, dry]}
"""

IMPL = '''
from shelf import Context
from shelf.models import GreetArguments, ItemVariables
from shelf.server import ShelfServerBase


class Shelf(ShelfServerBase):
    async def read_static_text(self, ctx: Context) -> str:
        return "fixed"

    async def read_item(self, variables: ItemVariables, ctx: Context) -> str:
        return f'{{"id": {variables.id}, "fields": {variables.fields!r}}}'

    async def prompt_greet(self, args: GreetArguments, ctx: Context) -> str:
        tone = args.tone.value if args.tone else "plain"
        return f"Hello {args.who} ({tone})"

    def complete_greet_who(self, value: str, context: dict[str, str], ctx: Context) -> list[str]:
        return [n for n in ("Ada", "Alan", "Grace") if n.startswith(value)]
'''


@pytest.fixture(scope="module")
def shelf(tmp_path_factory: pytest.TempPathFactory) -> Any:
    root = tmp_path_factory.mktemp("shelf")
    (root / "spec.yaml").write_text(SPEC, "utf-8")
    result, report = build([root / "spec.yaml"], root / "out")
    assert report is not None, [d.render() for d in result.diagnostics]
    (root / "out" / "shelf_impl.py").write_text(IMPL, "utf-8")
    sys.path.insert(0, str(root / "out"))
    try:
        yield importlib.import_module("shelf_impl").Shelf
    finally:
        sys.path.remove(str(root / "out"))
        for name in [n for n in sys.modules if n.split(".")[0] in ("shelf", "shelf_impl")]:
            del sys.modules[name]


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_generated_server_serves_the_catalog(shelf: Any, era: str) -> None:
    async def main() -> None:
        async with ClientBase.in_process(shelf(), era=era, audit=None) as c:  # type: ignore[arg-type]
            assert {"resources", "prompts", "completions"} <= set(c.server_capabilities)
            assert [r["uri"] for r in (await c.request("resources/list", {}))["resources"]] == ["test://static-text"]
            templates = (await c.request("resources/templates/list", {}))["resourceTemplates"]
            assert templates == [{"uriTemplate": "test://items/{id}{?fields}", "name": "item", "mimeType": "application/json"}]
            text = await c.request("resources/read", {"uri": "test://static-text"})
            assert text["contents"] == [{"uri": "test://static-text", "mimeType": "text/plain", "text": "fixed"}]
            item = await c.request("resources/read", {"uri": "test://items/12?fields=name"})
            assert item["contents"][0]["text"] == "{\"id\": 12, \"fields\": 'name'}"
            with pytest.raises(E.InvalidParamsError):  # minimum: 1
                await c.request("resources/read", {"uri": "test://items/0"})
            prompts = (await c.request("prompts/list", {}))["prompts"]
            assert prompts == [{"name": "greet", "description": "Say hello.",
                                "arguments": [{"name": "who", "required": True}, {"name": "tone"}]}]
            hello = await c.request("prompts/get", {"name": "greet", "arguments": {"who": "Ada", "tone": "warm"}})
            assert hello["messages"] == [{"role": "user", "content": {"type": "text", "text": "Hello Ada (warm)"}}]
            with pytest.raises(E.InvalidParamsError):  # not one of the enum's values
                await c.request("prompts/get", {"name": "greet", "arguments": {"who": "Ada", "tone": "loud"}})
            who = await c.request("completion/complete", {"ref": {"type": "ref/prompt", "name": "greet"},
                                                          "argument": {"name": "who", "value": "A"}})
            assert who["completion"]["values"] == ["Ada", "Alan"]
            ids = await c.request("completion/complete", {"ref": {"type": "ref/resource", "uri": "test://items/{id}{?fields}"},
                                                          "argument": {"name": "id", "value": "12"}})
            assert ids["completion"]["values"] == ["12", "123"]

    run_async(main())


@pytest.mark.parametrize(("extra", "code", "pointer"), [
    ("resources:\n  - {uri: 'x://a', name: a}\n  - {uri: 'x://a', name: b}\n", "E080", "/resources/1/uri"),
    ("resourceTemplates:\n  - {uriTemplate: 'x://{a*}', name: t}\n", "E081", "/resourceTemplates/0/uriTemplate"),
    ("resourceTemplates:\n  - {uriTemplate: 'x://{a}', name: t, variables: {b: {type: string}}}\n", "E082",
     "/resourceTemplates/0/variables/b"),
    ("resourceTemplates:\n  - {uriTemplate: 'x://{a}', name: t, variables: {a: {type: object}}}\n", "E082",
     "/resourceTemplates/0/variables/a/type"),
    ("prompts:\n  - {name: p}\n  - {name: p}\n", "E080", "/prompts/1/name"),
    ("prompts:\n  - {name: p, arguments: [{name: a, kind: x}]}\n", "E011", "/prompts/0/arguments/0/kind"),
])
def test_catalog_mistakes_are_located(tmp_path: Path, extra: str, code: str, pointer: str) -> None:
    (tmp_path / "s.yaml").write_text("mcp-codegen: 1\nserver: {name: s, version: '1'}\ntools: []\n" + extra, "utf-8")
    result = generate([tmp_path / "s.yaml"])
    found = [(d.code, d.pointer) for d in result.diagnostics if d.is_error]
    assert (code, pointer) in found, found
    assert all(d.line > 0 for d in result.diagnostics if d.is_error)


def test_a_server_without_tools_builds_and_serves_its_resources(tmp_path: Path) -> None:
    """A spec with ``tools: []`` (e.g. pulled from a resources-only server) has no schemas:
    an empty models module, no model imports, and a server that lists its resource."""
    (tmp_path / "spec.yaml").write_text("mcp-codegen: 1\nserver: {name: bare, version: '1'}\ntools: []\n"
                                        "resources:\n  - {uri: 'x://only', name: only}\n", "utf-8")
    result, report = build([tmp_path / "spec.yaml"], tmp_path / "out")
    assert report is not None, [d.render() for d in result.diagnostics]
    sys.path.insert(0, str(tmp_path / "out"))
    try:
        server_mod = importlib.import_module("bare.server")

        class Bare(server_mod.BareServerBase):  # type: ignore[misc, name-defined]
            async def read_only(self, ctx: Any) -> str:
                return "only"

        async def main() -> None:
            async with ClientBase.in_process(Bare(), era="modern", audit=None) as c:  # type: ignore[arg-type]
                assert (await c.request("tools/list", {}))["tools"] == []
                read = await c.request("resources/read", {"uri": "x://only"})
                assert read["contents"] == [{"uri": "x://only", "text": "only"}]

        run_async(main())
    finally:
        sys.path.remove(str(tmp_path / "out"))
        for name in [n for n in sys.modules if n.split(".")[0] == "bare"]:
            del sys.modules[name]


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_typed_client_methods(shelf: Any, era: str) -> None:
    client_mod = importlib.import_module("shelf.client")
    errors = importlib.import_module("shelf.errors")  # the package's own runtime copy has its own classes

    async def main() -> None:
        async with client_mod.ShelfClient.in_process(shelf(), era=era, audit=None) as c:
            [text] = await c.read_static_text()
            assert text.text == "fixed"
            [item] = await c.read_item(id=7, fields="name")  # the template is expanded from typed variables
            assert item.uri == "test://items/7?fields=name" and item.text == "{\"id\": 7, \"fields\": 'name'}"
            [bare] = await c.read_item(id=8)  # an optional query variable left out
            assert bare.uri == "test://items/8"
            with pytest.raises(errors.InvalidArgumentsError):  # minimum: 1, checked before sending
                await c.read_item(id=0)
            hello = await c.prompt_greet(who="Grace", tone="dry")  # an enum's value is accepted
            assert hello.messages[0].content.text == "Hello Grace (dry)"
            with pytest.raises(errors.InvalidArgumentsError):
                await c.prompt_greet(who="Grace", tone="loud")  # type: ignore[arg-type]

    run_async(main())
    with client_mod.ShelfSyncClient.in_process(shelf(), audit=None) as sync:
        assert sync.read_item(id=3)[0].uri == "test://items/3"
        assert sync.prompt_greet(who="Ada").messages[0].content.text == "Hello Ada (plain)"
