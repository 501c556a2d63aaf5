"""The files ``build`` writes for a spec with ``server.registry`` (issue 43): ``server.json`` valid
against the MCP Registry's schema (2025-12-11), ``server-card.json`` valid against the server card
schema (v1, ``#/$defs/ServerCard``), the package README with its ``mcp-name:`` line, the pyproject
that makes ``uvx <identifier>`` start the server; ``check`` keeps them in sync.

The validators are the official schemas (tests/schemas/ecosystem/, provenance in SOURCES.md); the
first tests prove the validator setup accepts the upstream valid examples and refuses the invalid
ones.  Expected values come from the spec text and the pyproject as Python's tomllib reads them,
never from the generator's own functions."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest
import yaml
from ecosystem_schemas import card_validator, errors, examples, registry_validator

from codegen import build, check

REPO = Path(__file__).resolve().parents[2]
WEATHER = REPO / "specs" / "weather.yaml"


@pytest.mark.parametrize("kind", ["registry", "server-card"])
@pytest.mark.parametrize(("verdict", "least"), [("valid", 2), ("invalid", 5)])
def test_the_validators_accept_the_upstream_valid_examples_and_refuse_the_invalid(kind: str, verdict: str,
                                                                                   least: int) -> None:
    validator = registry_validator() if kind == "registry" else card_validator()
    cases = examples(kind, verdict)
    assert len(cases) >= least
    for path in cases:
        found = errors(validator, json.loads(path.read_text("utf-8")))
        assert (found == []) == (verdict == "valid"), (path.name, found)


@pytest.fixture(scope="module")
def weather(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("out")
    result, _ = build([WEATHER], out)
    assert result.ok, [d.render() for d in result.diagnostics]
    return out / "weather"


def _spec_server() -> dict:
    return yaml.safe_load(WEATHER.read_text("utf-8"))["server"]


def test_server_json_is_valid_and_says_what_the_spec_and_pyproject_say(weather: Path) -> None:
    doc = json.loads((weather / "server.json").read_text("utf-8"))
    assert errors(registry_validator(), doc) == []
    spec = _spec_server()
    project = tomllib.loads((weather / "pyproject.toml").read_text("utf-8"))["project"]
    assert doc["$schema"] == "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
    assert (doc["name"], doc["version"], doc["description"]) == (
        spec["registry"]["name"], spec["version"], spec["description"])
    (package,) = doc["packages"]
    assert package["registryType"] == "pypi" and package["runtimeHint"] == "uvx"
    assert package["transport"] == {"type": "stdio"}
    # uvx <identifier> installs the PyPI project of that name and runs its console script of that name
    assert package["identifier"] == project["name"] == spec["registry"]["pypi"]
    assert package["version"] == project["version"]
    assert project["scripts"][package["identifier"]] == "weather.__main__:cli"
    assert package["packageArguments"] == [{"type": "positional", "value": "--stdio"}]
    declared = spec["env"]
    assert [v["name"] for v in package["environmentVariables"]] == list(declared)
    key = package["environmentVariables"][0]
    assert (key["isRequired"], key["isSecret"]) == (True, True) and "default" not in key
    units = package["environmentVariables"][1]
    assert (units["default"], units["choices"]) == (declared["WEATHER_UNITS"]["default"],
                                                    declared["WEATHER_UNITS"]["choices"])
    assert doc["remotes"] == [{"type": "streamable-http", "url": spec["registry"]["remotes"][0]["url"]}]
    assert doc["repository"] == {"url": spec["registry"]["repository"], "source": "github"}


def test_the_card_is_valid_and_agrees_with_server_json(weather: Path) -> None:
    card = json.loads((weather / "server-card.json").read_text("utf-8"))
    assert errors(card_validator(), card) == []
    doc = json.loads((weather / "server.json").read_text("utf-8"))
    assert card["$schema"] == "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json"
    for key in ("name", "title", "description", "version", "websiteUrl", "repository"):
        assert card[key] == doc[key], key
    assert [(r["type"], r["url"]) for r in card["remotes"]] == [(r["type"], r["url"]) for r in doc["remotes"]]


def test_json_files_are_two_space_indented_with_a_final_newline(weather: Path) -> None:
    for name in ("server.json", "server-card.json"):
        text = (weather / name).read_text("utf-8")
        assert text == json.dumps(json.loads(text), indent=2, ensure_ascii=False) + "\n", name


def test_the_readme_carries_the_mcp_name_line_and_the_pyproject_reads_it(weather: Path) -> None:
    text = (weather / "README.md").read_text("utf-8")
    name = _spec_server()["registry"]["name"]
    # the registry's check: "mcp-name: NAME" followed by a boundary (whitespace, a tag or -->)
    assert re.search(r"^<!-- mcp-name: " + re.escape(name) + r" -->$", text, re.MULTILINE)
    assert re.search(r"mcp-name: " + re.escape(name) + r"(?=\s|<|-->)", text)
    assert text.count("mcp-name:") == 1
    assert tomllib.loads((weather / "pyproject.toml").read_text("utf-8"))["project"]["readme"] == "README.md"
    assert "uvx example-weather-mcp --stdio" in text and "WEATHER_API_KEY" in text


def test_check_sees_a_changed_server_json_and_card(weather: Path) -> None:
    out = weather.parent
    result, diffs = check([WEATHER], out)
    assert result.ok and diffs == []
    for name in ("server.json", "server-card.json", "README.md"):
        path = weather / name
        before = path.read_text("utf-8")
        path.write_text(before.replace("1.2.0", "9.9.9"), "utf-8")
        try:
            _, diffs = check([WEATHER], out)
            assert any(name in d for d in diffs), name
        finally:
            path.write_text(before, "utf-8")


VARIANTS = {
    "icons and an sse remote": """  registry:
    name: io.github.acme/shop
    icons: [{src: "https://acme.example.com/i.png", mimeType: image/png, sizes: [48x48, any]}]
    remotes: [{type: sse, url: "https://acme.example.com/sse"}, {url: "https://acme.example.com/mcp"}]
""",
    "a repository object and listed env": """  environment:
    - {name: SHOP_DIR, description: Where the files are, format: filepath}
    - {name: SHOP_DEBUG, description: Log more, format: boolean, default: "false"}
  registry:
    name: com.acme/shop
    title: Shop
    websiteUrl: https://acme.example.com/shop
    repository: {url: "https://git.acme.example.com/shop", source: gitea, subfolder: servers/shop, id: "42"}
""",
    "an upstream": """  registry: {name: io.github.acme/shop, pypi: acme.shop}
upstream:
  baseUrl: https://api.example.com/v1
  security:
    tok: {type: bearer, env: SHOP_TOKEN}
  defaultSecurity: [[tok]]
""",
}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_every_variant_that_validates_gives_valid_files(tmp_path: Path, variant: str) -> None:
    spec = tmp_path / "shop.yaml"
    head = "mcp-codegen: 1\nserver:\n  name: shop\n  version: 0.3.1\n  title: Shop\n  description: Items of a shop.\n"
    body = VARIANTS[variant]
    tools = "tools:\n  - name: ping\n    inputSchema: {type: object}\n"
    rest = body[body.index("upstream:"):] if "upstream:" in body else ""
    spec.write_text(head + body.replace(rest, "") + tools + rest, "utf-8")
    result, _ = build([spec], tmp_path / "out")
    assert result.ok, [d.render() for d in result.diagnostics]
    pkg = tmp_path / "out" / "shop"
    doc = json.loads((pkg / "server.json").read_text("utf-8"))
    card = json.loads((pkg / "server-card.json").read_text("utf-8"))
    assert errors(registry_validator(), doc) == []
    assert errors(card_validator(), card) == []
    project = tomllib.loads((pkg / "pyproject.toml").read_text("utf-8"))["project"]
    assert doc["packages"][0]["identifier"] == project["name"] and project["name"] in project["scripts"]


def test_without_registry_no_server_json_and_a_plain_readme(tmp_path: Path) -> None:
    spec = tmp_path / "plain.yaml"
    spec.write_text("mcp-codegen: 1\nserver: {name: plain, version: '1', project: true}\n"
                    "tools:\n  - name: ping\n    inputSchema: {type: object}\n", "utf-8")
    result, _ = build([spec], tmp_path / "out")
    assert result.ok
    pkg = tmp_path / "out" / "plain"
    assert not (pkg / "server.json").exists() and not (pkg / "server-card.json").exists()
    readme = (pkg / "README.md").read_text("utf-8")
    assert "mcp-name" not in readme and "python -m plain --stdio" in readme


def test_spec_text_in_the_readme_cannot_add_an_mcp_name_or_html(tmp_path: Path) -> None:
    """The README is the PyPI page and the registry's proof of ownership: a title, description or
    variable description holding an HTML comment, a script or a table pipe stays text."""
    spec = tmp_path / "h.yaml"
    spec.write_text(yaml.safe_dump({
        "mcp-codegen": 1,
        "server": {"name": "h", "version": "1.0.0", "title": "H <!-- mcp-name: io.github.evil/x -->",
                   "description": "Says <script>alert(1)</script> hello",
                   "env": {"H_KEY": {"description": "a | b\n<!-- mcp-name: io.github.evil/y -->"}},
                   "registry": {"name": "io.github.good/h", "repository": "https://github.com/good/h"}},
        "tools": [{"name": "t", "inputSchema": {"type": "object"}}]}), "utf-8")
    result, _ = build([spec], tmp_path / "out")
    assert result.ok, [d.render() for d in result.diagnostics]
    text = (tmp_path / "out" / "h" / "README.md").read_text("utf-8")
    assert re.findall(r"<!-- mcp-name: ([^ ]+) -->", text) == ["io.github.good/h"]
    assert "<script>" not in text and "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    row = next(line for line in text.splitlines() if line.startswith("| `H_KEY`"))
    assert row.count(" | ") == 3 and "a \\| b" in row  # four cells: the pipe is escaped
