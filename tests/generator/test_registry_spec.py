"""``server.env`` and ``server.registry`` (issue 43): the spec format, the located diagnostics that
stop a spec which could not produce a valid ``server.json`` (E170-E178, W170-W173), and the IR with
its defaults (the upstream's variables joined, each once)."""

from __future__ import annotations

from pathlib import Path

from codegen import generate
from codegen.api import lower_one

HEAD = "mcp-codegen: 1\n"
TOOLS = """tools:
  - name: ping
    inputSchema: {type: object}
"""


def _spec(tmp_path: Path, server: str, extra: str = "") -> Path:
    spec = tmp_path / "shop.yaml"
    spec.write_text(HEAD + "server:\n" + server + TOOLS + extra, "utf-8")
    return spec


def _codes(tmp_path: Path, server: str, extra: str = "") -> list[tuple[str, str]]:
    result = generate([_spec(tmp_path, server, extra)])
    located = [d for d in result.diagnostics if d.code.startswith(("E17", "W17"))]
    assert all(d.line > 0 for d in located), [d.render() for d in located]
    return sorted((d.code, d.pointer) for d in result.diagnostics)


GOOD = """  name: shop
  version: 1.0.0
  description: Items of the shop.
  env:
    SHOP_REGION: {description: Where the shop is, default: eu, choices: [eu, us]}
    SHOP_TOKEN: {description: API token, required: true, secret: true}
  registry:
    name: io.github.acme/shop
    repository: https://github.com/acme/shop
    remotes: [{url: "https://shop.example.com/mcp"}]
"""


def test_a_good_registry_spec_has_no_diagnostics(tmp_path: Path) -> None:
    assert _codes(tmp_path, GOOD) == []


def test_the_ir_applies_the_defaults(tmp_path: Path) -> None:
    low = lower_one(_spec(tmp_path, GOOD), "shop.yaml")
    assert low.ir is not None
    server = low.ir.server
    assert [(v.name, v.required, v.secret, v.default) for v in server.env] == [
        ("SHOP_REGION", False, False, "eu"), ("SHOP_TOKEN", True, True, None)]
    assert server.env[0].choices == ("eu", "us")
    reg = server.registry
    assert reg is not None
    assert (reg.name, reg.description, reg.pypi) == ("io.github.acme/shop", "Items of the shop.", "shop")
    assert reg.repository == {"url": "https://github.com/acme/shop", "source": "github"}
    assert reg.remotes == ({"type": "streamable-http", "url": "https://shop.example.com/mcp"},)
    assert server.project  # a registry entry is a PyPI package: pyproject.toml


def test_environment_is_an_alias_and_a_list_is_accepted(tmp_path: Path) -> None:
    server = """  name: shop
  version: '1'
  environment:
    - {name: A_B, description: one, format: number, default: "3"}
"""
    low = lower_one(_spec(tmp_path, server), "shop.yaml")
    assert low.ir is not None
    assert [(v.name, v.format, v.default) for v in low.ir.server.env] == [("A_B", "number", "3")]


def test_upstream_variables_join_once_and_a_declaration_wins(tmp_path: Path) -> None:
    server = """  name: shop
  version: '1'
  env:
    SHOP_KEY: {description: the key from the dashboard, required: true, secret: true}
"""
    upstream = """upstream:
  baseUrl: https://api.example.com/v1
  security:
    key: {type: apiKey, in: header, name: X-Key, env: SHOP_KEY}
    tok: {type: bearer, env: SHOP_TOKEN}
  defaultSecurity: [[tok]]
"""
    low = lower_one(_spec(tmp_path, server, upstream), "shop.yaml")
    assert low.ir is not None
    env = {v.name: v for v in low.ir.server.env}
    assert list(env) == ["SHOP_KEY", "SHOP_BASE_URL", "SHOP_TOKEN"]
    assert env["SHOP_KEY"].description == "the key from the dashboard"
    assert (env["SHOP_BASE_URL"].required, env["SHOP_BASE_URL"].secret) == (False, False)
    assert env["SHOP_BASE_URL"].default == "https://api.example.com/v1"
    assert (env["SHOP_TOKEN"].required, env["SHOP_TOKEN"].secret) == (True, True)


def test_every_registry_mistake_is_reported_at_once(tmp_path: Path) -> None:
    server = """  name: shop
  version: latest
  description: "%s"
  target: client
  icons: [{src: "http://x.example.com/i.png", mimeType: image/gif, sizes: [big]}]
  env:
    K: {description: k, secret: true, default: x}
    L: {description: l, default: c, choices: [a, b]}
    N: {description: n, format: number, default: three}
  environment:
    K: {description: again}
  registry:
    name: shop
    websiteUrl: ftp://example.com
    repository: {url: "https://git.example.com/shop", subfolder: ../up}
    pypi: -shop-
    remotes: [{url: "ws://shop.example.com/mcp"}]
""" % ("x" * 101)
    assert _codes(tmp_path, server) == sorted([
        ("E170", "/server/registry/name"),
        ("E171", "/server/description"),
        ("E172", "/server/environment"),
        ("E172", "/server/environment/K"),
        ("E173", "/server/env/K/default"),
        ("E173", "/server/env/L/default"),
        ("E173", "/server/env/N/default"),
        ("E174", "/server/registry"),
        ("E175", "/server/version"),
        ("E176", "/server/registry/remotes/0/url"),
        ("E176", "/server/registry/repository"),
        ("E176", "/server/registry/repository/subfolder"),
        ("E176", "/server/registry/websiteUrl"),
        ("E177", "/server/icons/0/mimeType"),
        ("E177", "/server/icons/0/sizes/0"),
        ("E177", "/server/icons/0/src"),
        ("E178", "/server/registry/pypi"),
    ])


def test_version_ranges_and_missing_description(tmp_path: Path) -> None:
    for version in ("^1.2.3", "~1.2.3", ">=1.2.3", "1.x", "1.*"):
        server = f"  name: shop\n  version: '{version}'\n  registry: {{name: io.github.acme/shop}}\n"
        assert _codes(tmp_path, server) == [("E171", "/server/registry"), ("E175", "/server/version")], version


def test_warnings(tmp_path: Path) -> None:
    server = """  name: shop
  version: 1.0.0
  title: Shop
  description: Items.
  env:
    R: {description: r, required: true, default: x}
  registry:
    name: io.github.acme/store
    title: The Shop
    remotes: [{url: "http://shop.example.com/mcp"}, {type: sse, url: "http://127.0.0.1:8000/sse"}]
"""
    assert _codes(tmp_path, server) == [("W170", "/server/env/R/required"), ("W171", "/server/registry/remotes/0/url"),
                                        ("W172", "/server/registry/title"), ("W173", "/server/registry/name")]


def test_unknown_keys_are_refused_by_the_spec_format(tmp_path: Path) -> None:
    server = """  name: shop
  version: 1.0.0
  description: Items.
  env: {"1BAD": {description: x}, OK: {description: y, hidden: true}}
  registry: {name: io.github.acme/shop, remotes: [{url: "https://a.example.com/mcp", type: websocket}]}
"""
    codes = _codes(tmp_path, server)
    assert codes and all(code.startswith("E01") for code, _ in codes), codes



def test_an_iri_is_no_uri(tmp_path: Path) -> None:
    server = """  name: shop
  version: 1.0.0
  description: Items.
  registry: {name: io.github.acme/shop, websiteUrl: "https://bücher.example/shop"}
"""
    assert _codes(tmp_path, server) == [("E176", "/server/registry/websiteUrl")]


def test_published_urls_with_credentials_are_refused_without_echoing_them(tmp_path: Path) -> None:
    server = """  name: shop
  version: 1.0.0
  description: Items.
  registry:
    name: io.github.acme/shop
    websiteUrl: "https://admin:hunter2@shop.example.com"
    repository: {url: "https://bot:ghp_token@github.com/acme/shop", source: github}
    remotes: [{url: "https://user:s3cret@shop.example.com/mcp"}, {url: "https://shop.example.com/mcp"}]
"""
    assert _codes(tmp_path, server) == [("E176", "/server/registry/remotes/0/url"),
                                        ("E176", "/server/registry/repository/url"),
                                        ("E176", "/server/registry/websiteUrl")]
    rendered = "\n".join(d.render() for d in generate([_spec(tmp_path, server)]).diagnostics)
    assert not any(secret in rendered for secret in ("hunter2", "ghp_token", "s3cret"))
    unknown_host = server.replace('{url: "https://bot:ghp_token@github.com/acme/shop", source: github}',
                                  '"https://bot:ghp_token@git.example.org/acme/shop"')
    rendered = "\n".join(d.render() for d in generate([_spec(tmp_path, unknown_host)]).diagnostics)
    assert "ghp_token" not in rendered and "/server/registry/repository" in rendered
