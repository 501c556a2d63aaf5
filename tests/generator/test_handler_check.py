"""Every handler kind is scaffolded and checked: ``build --scaffold`` writes typed stubs for
tools, resources, resource templates, prompts and completion handlers (``mypy --strict``
clean as written), and ``python -m <pkg> --check``, ``mcp-codegen validate --impl`` and the
start-up warning count and name each missing or still-stub handler by kind (real processes)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

SPEC = """\
mcp-codegen: 1
server: {name: shop, version: "1.0"}
tools:
  - name: get_price
    inputSchema: {type: object, properties: {item: {type: string}}, required: [item]}
    outputSchema: {type: object, properties: {price: {type: number}}, required: [price]}
  - name: restock
    inputSchema: {type: object, properties: {item: {type: string}}, required: [item]}
resources:
  - uri: shop://catalog
    name: catalog
    description: The catalog.
resourceTemplates:
  - uriTemplate: "shop://items/{id}"
    name: item
    variables:
      id: {type: integer, minimum: 1}
    complete:
      id: handler
prompts:
  - name: greet
    description: Say hello.
    arguments:
      - {name: who, required: true, complete: handler}
"""

#: The scaffold's stub bodies -> working ones (each stub raises NotImplementedError("<method>")).
BODIES = {
    "get_price": "return GetPriceOutput(price=2.5)",
    "restock": 'return ToolResult(content=[TextContent(text="restocked " + args.item)])',
    "read_catalog": 'return "apples, pears"',
    "read_item": 'return f"item {variables.id}"',
    "complete_item_id": 'return [v for v in ("1", "12", "2") if v.startswith(value)]',
    "prompt_greet": 'return f"Hello {args.who}"',
    "complete_greet_who": 'return [v for v in ("ann", "bob") if v.startswith(value)]',
}

#: A client script using each implemented handler through the runtime (in process).
CLIENT = """\
from shop import ShopSyncClient
from shop_impl import ShopService
with ShopSyncClient.in_process(ShopService()) as c:
    print(c.get_price(item="x").price, c.restock(item="figs").content[0].text)
    print(c.read_catalog()[0].text, c.read_item(id=12)[0].text)
    print(c.prompt_greet(who="ann").messages[0].content.text)
    print(c.complete({"type": "ref/prompt", "name": "greet"}, "who", "a").values,
          c.complete({"type": "ref/resource", "uri": "shop://items/{id}"}, "id", "1").values)
"""


def _py(*args: str, cwd: Path, stdin: str | None = None, timeout: int = 120) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, input=stdin if stdin is not None else "",
                          capture_output=True, text=True, timeout=timeout)


def _fill(text: str, *methods: str) -> str:
    for method in methods:
        text = text.replace(f'raise NotImplementedError("{method}")', BODIES[method])
    return text


def test_scaffold_stubs_every_handler_kind_and_every_check_names_what_is_missing(tmp_path: Path) -> None:
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "shop.yaml").write_text(SPEC, "utf-8")
    built = _py("-m", "codegen", "build", "specs", "-o", "out", "--scaffold", cwd=tmp_path)
    assert built.returncode == 0 and "wrote    out/shop_impl.py" in built.stdout, built.stderr
    out = tmp_path / "out"
    stub = out / "shop_impl.py"
    text = stub.read_text("utf-8")
    assert "class ShopService(ShopServerBase):" in text and "_runtime" not in text
    for signature in ("async def get_price(self, args: GetPriceInput, ctx: Context) -> GetPriceOutput:",
                      "async def restock(self, args: RestockInput, ctx: Context) -> ToolResult:",
                      "async def read_catalog(", "async def read_item(", "self, variables: ItemVariables, ctx: Context",
                      "async def complete_item_id(", "async def prompt_greet(",
                      "self, args: GreetArguments, ctx: Context", "-> PromptResult | list[PromptMessage] | str:",
                      "async def complete_greet_who(", "self, value: str, context: dict[str, str], ctx: Context"):
        assert signature in text, signature
    assert set(re.findall(r'raise NotImplementedError\("(\w+)"\)', text)) == set(BODIES)
    mypy = _py("-m", "mypy", "--strict", "shop_impl.py", "shop", cwd=out, timeout=900)
    assert mypy.returncode == 0, mypy.stdout  # the stubs type-check against the generated base as written

    check = _py("-m", "shop", "--check", "--impl", "shop_impl:ShopService", cwd=out)
    assert check.returncode == 1, check.stderr
    assert ("shop_impl:ShopService: 0 of 2 tools, 0 of 1 resources, 0 of 1 resource templates, 0 of 1 prompts, "
            "0 of 2 completions implemented; still stubs (only raise NotImplementedError): "
            "tool get_price (specs/shop.yaml tool 'get_price'), tool restock (specs/shop.yaml tool 'restock'), "
            "resource read_catalog (specs/shop.yaml resource 'catalog'), "
            "resource template read_item (specs/shop.yaml resource template 'item'), "
            "completion complete_item_id (specs/shop.yaml resource template 'item' variable 'id'), "
            "prompt prompt_greet (specs/shop.yaml prompt 'greet'), "
            "completion complete_greet_who (specs/shop.yaml prompt 'greet' argument 'who')") in check.stderr

    # everything but the resource implemented, and its stub deleted: missing, not a stub
    partial = _fill(text, *(m for m in BODIES if m != "read_catalog"))
    partial = partial.replace("from shop import (", "from shop import (\n    TextContent,")
    partial = re.sub(r"\n    async def read_catalog\(.*?raise NotImplementedError\(\"read_catalog\"\)\n", "\n",
                     partial, flags=re.S)
    assert "read_catalog" not in partial
    stub.write_text(partial, "utf-8")
    missing = ("2 of 2 tools, 0 of 1 resources, 1 of 1 resource templates, 1 of 1 prompts, 2 of 2 completions "
               "implemented; missing: resource read_catalog (specs/shop.yaml resource 'catalog')")
    check = _py("-m", "shop", "--check", "--impl", "shop_impl:ShopService", cwd=out)
    assert check.returncode == 1 and f"shop_impl:ShopService: {missing}\n" in check.stderr, check.stderr
    served = _py("-m", "shop", "--stdio", "--impl", "shop_impl:ShopService", cwd=out)  # stdin closed: serves, ends
    assert served.returncode == 0, served.stderr
    warnings = [line for line in served.stderr.splitlines() if "WARNING" in line]
    assert warnings == [f"WARNING:mcp_codegen.server:ShopService: {missing}; calling these is an error"], served.stderr
    validate = _py("-m", "codegen", "validate", "specs/shop.yaml", "-o", "out", "--impl", "shop_impl:ShopService",
                   cwd=tmp_path, timeout=300)
    assert validate.returncode == 1 and f"shop_impl:ShopService: {missing}" in validate.stderr, validate.stderr

    # a handler with the wrong signature is named with why
    stub.write_text(partial + "\n    def read_catalog(self) -> str:\n        return 'x'\n", "utf-8")
    check = _py("-m", "shop", "--check", "--impl", "shop_impl:ShopService", cwd=out)
    assert check.returncode == 1, check.stderr
    assert "resource read_catalog: ShopService.read_catalog() cannot be called as (self, ctx)" in check.stderr
    assert "; wrong signature: resource read_catalog (specs/shop.yaml resource 'catalog')" in check.stderr

    # complete: exit 0, no warning, and every handler answers through the runtime
    stub.write_text(_fill(text, *BODIES).replace("from shop import (", "from shop import (\n    TextContent,"), "utf-8")
    check = _py("-m", "shop", "--check", "--impl", "shop_impl:ShopService", cwd=out)
    assert check.returncode == 0, check.stderr
    assert check.stderr.strip() == ("shop_impl:ShopService: 2 of 2 tools, 1 of 1 resources, 1 of 1 resource templates, "
                                    "1 of 1 prompts, 2 of 2 completions implemented")
    served = _py("-m", "shop", "--stdio", "--impl", "shop_impl:ShopService", cwd=out)
    assert served.returncode == 0 and "WARNING" not in served.stderr, served.stderr
    validate = _py("-m", "codegen", "validate", "specs/shop.yaml", "-o", "out", "--impl", "shop_impl:ShopService",
                   cwd=tmp_path, timeout=300)
    assert validate.returncode == 0, validate.stderr
    called = _py("-c", CLIENT, cwd=out)
    assert called.returncode == 0, called.stderr
    assert called.stdout.splitlines() == ["2.5 restocked figs", "apples, pears item 12", "Hello ann",
                                          "['ann'] ['1', '12']"]
