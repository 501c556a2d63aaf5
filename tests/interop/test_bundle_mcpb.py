"""``mcp-codegen bundle`` against the official peers: the ``mcpb`` CLI (npm ``@anthropic-ai/mcpb``
2.1.2: validate, info, unpack), the copied manifest schema of the bundle's ``manifest_version``,
the host-side configuration of the official library (``getMcpConfigForManifest``: what a desktop
host substitutes into ``mcp_config``), and the official ``mcp`` SDK client talking to the
unpacked bundle's entry point started with a bare interpreter (a fresh venv without packages).

Two specs: ``greeter`` (an implementation beside the spec, environment variables of every kind,
a prompt, a PNG icon given with --icon, a registry section) and ``shop`` (every tool bound to an upstream REST
API: the generated base serves, no implementation)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from common_support import run_sdk_client
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcpb_support import bare_python, host_config, mcpb, png

REPO = Path(__file__).resolve().parents[2]
SCHEMAS = REPO / "tests" / "schemas" / "ecosystem" / "mcpb"
PIP_CACHE = REPO / ".tools" / "pip-cache"

GREETER = """\
mcp-codegen: 1
server:
  name: greeter
  version: 0.3.1
  title: Greeter
  description: Greets people by name.
  implementation: greeter_impl:GreeterService
  env:
    GREETER_TOKEN: {description: Token of the greeting service, required: true, secret: true}
    GREETER_SALUTATION: {description: Word to greet with, default: Hello}
    GREETER_REPEAT: {description: Times to say it, format: number}
    GREETER_LOUD: {description: Shout, format: boolean, default: "false"}
    GREETER_STYLE: {description: Style of the greeting, choices: [plain, fancy]}
  registry:
    name: io.github.acme/greeter
    websiteUrl: https://acme.example/greeter
    repository: {url: https://github.com/acme/greeter, source: github}
tools:
  - name: greet
    description: Greet someone.
    inputSchema: {type: object, properties: {name: {type: string}}, required: [name]}
    outputSchema: {type: object, properties: {text: {type: string}}, required: [text]}
prompts:
  - name: welcome
    description: A welcome message.
    arguments: [{name: guest, required: true}]
"""

GREETER_IMPL = '''\
import os

from greeter import Context, GreeterServerBase
from greeter.models import GreetInput, GreetOutput, WelcomeArguments


class GreeterService(GreeterServerBase):
    def greet(self, args: GreetInput, ctx: Context) -> GreetOutput:
        times = int(os.environ.get("GREETER_REPEAT") or "1")
        word = os.environ["GREETER_SALUTATION"]
        return GreetOutput(text=" ".join([f"{word}, {args.name}"] * times) + f" [{os.environ['GREETER_TOKEN'][:3]}]")

    def prompt_welcome(self, args: WelcomeArguments, ctx: Context) -> str:
        return f"Welcome {args.guest}"
'''

SHOP = """\
mcp-codegen: 1
server:
  name: shop
  version: 2.0.0
  description: The shop's REST API as tools.
upstream:
  baseUrl: https://shop.example/api
  security:
    key: {type: apiKey, in: header, name: X-Key, env: SHOP_API_KEY}
  defaultSecurity: [[key]]
tools:
  - name: get_item
    description: One item.
    inputSchema: {type: object, properties: {id: {type: string}}, required: [id]}
    http: {method: GET, path: "/items/{id}", args: {id: {in: path, name: id}}}
"""


def _bundle(spec: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "codegen", "bundle", str(spec), "-o", str(out), "--pip-cache",
                           str(PIP_CACHE), *extra], capture_output=True, text=True, timeout=900, cwd=spec.parent)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The greeter built twice (two output folders) and the shop once."""
    src = tmp_path_factory.mktemp("specs")
    (src / "greeter.yaml").write_text(GREETER, "utf-8")
    (src / "greeter_impl.py").write_text(GREETER_IMPL, "utf-8")
    (src / "greeter.png").write_bytes(png())
    (src / "shop.yaml").write_text(SHOP, "utf-8")
    out = tmp_path_factory.mktemp("dist")
    found = {}
    for name, spec, folder, extra in (("greeter", "greeter.yaml", "a", ("--icon", "greeter.png")),
                                      ("again", "greeter.yaml", "b", ("--icon", "greeter.png")),
                                      ("shop", "shop.yaml", "a", ("--author", "Shop Team <team@shop.example>"))):
        proc = _bundle(src / spec, out / folder, *extra)
        assert proc.returncode == 0, proc.stderr
        found[name] = Path(proc.stdout.split("wrote ", 1)[1].split(" (", 1)[0])
    return found


def _manifest(bundle: Path) -> dict[str, Any]:
    with zipfile.ZipFile(bundle) as archive:
        data: dict[str, Any] = json.loads(archive.read("manifest.json"))
    return data


def _unpack(bundle: Path, into: Path) -> Path:
    """``mcpb unpack`` into an empty folder."""
    into.mkdir()
    proc = mcpb("unpack", bundle, into)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return into


def test_same_spec_same_bytes_and_the_file_name(built: dict[str, Path]) -> None:
    assert built["greeter"].name == "greeter-0.3.1.mcpb" and built["shop"].name == "shop-2.0.0.mcpb"
    assert built["greeter"].read_bytes() == built["again"].read_bytes()


@pytest.mark.parametrize("which", ["greeter", "shop"])
def test_mcpb_validate_passes(built: dict[str, Path], which: str, tmp_path: Path) -> None:
    folder = _unpack(built[which], tmp_path / "x")
    proc = mcpb("validate", folder / "manifest.json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Manifest schema validation passes!" in proc.stdout
    assert "ERROR" not in proc.stdout


@pytest.mark.parametrize("which", ["greeter", "shop"])
def test_manifest_valid_against_the_schema_of_its_version(built: dict[str, Path], which: str) -> None:
    manifest = _manifest(built[which])
    schema = json.loads((SCHEMAS / f"mcpb-manifest-v{manifest['manifest_version']}.schema.json").read_text("utf-8"))
    jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER).validate(manifest)


def test_mcpb_info_reads_the_bundle(built: dict[str, Path]) -> None:
    proc = mcpb("info", built["greeter"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "greeter-0.3.1.mcpb" in proc.stdout


def test_greeter_manifest_says_what_the_spec_says(built: dict[str, Path]) -> None:
    m = _manifest(built["greeter"])
    assert m["manifest_version"] == "0.3"
    assert (m["name"], m["display_name"], m["version"], m["description"]) == ("greeter", "Greeter", "0.3.1",
                                                                             "Greets people by name.")
    assert m["author"] == {"name": "acme", "url": "https://github.com/acme"}
    assert m["repository"] == {"type": "git", "url": "https://github.com/acme/greeter"}
    assert m["homepage"] == "https://acme.example/greeter"
    assert m["icon"] == "icon.png"
    assert m["server"] == {"type": "python", "entry_point": "server/main.py", "mcp_config": {
        "command": "python", "args": ["${__dirname}/server/main.py", "--stdio"],
        "env": {"PYTHONPATH": "${__dirname}/server/lib", "GREETER_TOKEN": "${user_config.greeter_token}",
                "GREETER_SALUTATION": "${user_config.greeter_salutation}", "GREETER_REPEAT": "${user_config.greeter_repeat}",
                "GREETER_LOUD": "${user_config.greeter_loud}", "GREETER_STYLE": "${user_config.greeter_style}"}}}
    assert m["user_config"] == {
        "greeter_token": {"type": "string", "title": "GREETER_TOKEN", "description": "Token of the greeting service",
                          "required": True, "sensitive": True},
        "greeter_salutation": {"type": "string", "title": "GREETER_SALUTATION", "description": "Word to greet with",
                               "required": False, "default": "Hello"},
        "greeter_repeat": {"type": "number", "title": "GREETER_REPEAT", "description": "Times to say it",
                           "required": False, "default": ""},
        "greeter_loud": {"type": "boolean", "title": "GREETER_LOUD", "description": "Shout", "required": False,
                         "default": False},
        "greeter_style": {"type": "string", "title": "GREETER_STYLE",
                          "description": "Style of the greeting (one of: plain, fancy)", "required": False, "default": ""},
    }
    assert m["tools"] == [{"name": "greet", "description": "Greet someone."}]
    assert m["prompts"] == [{"name": "welcome", "description": "A welcome message.", "arguments": ["guest"], "text": ""}]
    v = sys.version_info
    assert m["compatibility"] == {"platforms": [sys.platform],
                                  "runtimes": {"python": f">={v.major}.{v.minor},<{v.major}.{v.minor + 1}"}}
    with zipfile.ZipFile(built["greeter"]) as archive:
        assert archive.read("icon.png") == png()
        names = archive.namelist()
    assert "server/main.py" in names and "server/greeter_impl.py" in names and "server/lib/greeter/server.py" in names
    assert any(n.startswith("server/lib/pydantic_core/") for n in names)
    assert not any("__pycache__" in n or n.startswith("server/lib/bin/") for n in names)


def _serve(folder: Path, user_config: dict[str, Any], bare_bin: Path) -> StdioServerParameters:
    """The server's launch as the official host library computes it from the unpacked manifest,
    with ``python`` found first in ``bare_bin``."""
    manifest = json.loads((folder / "manifest.json").read_text("utf-8"))
    config = host_config(manifest, folder, user_config)["config"]
    assert config is not None
    path = os.pathsep.join([str(bare_bin), os.environ.get("PATH", "")])
    command = shutil.which(config["command"], path=path)
    assert command is not None and Path(command).parent == bare_bin
    return StdioServerParameters(command=command, args=config["args"], env={**config["env"], "PATH": path},
                                 cwd=str(folder.parent))


def test_unpacked_bundle_serves_with_a_bare_interpreter(built: dict[str, Path], tmp_path: Path) -> None:
    folder = _unpack(built["greeter"], tmp_path / "installed")
    bare = bare_python(tmp_path / "bare")
    assert subprocess.run([bare / "python", "-c", "import pydantic"], capture_output=True).returncode != 0
    params = _serve(folder, {"greeter_token": "tok-123", "greeter_repeat": 2}, bare)
    assert params.env is not None
    assert params.env["GREETER_SALUTATION"] == "Hello" and params.env["GREETER_REPEAT"] == "2"
    assert params.env["GREETER_STYLE"] == ""  # unset optional: empty, not the literal ${user_config.greeter_style}

    async def body(client: Client) -> None:
        tools = await client.list_tools()
        assert [t.name for t in tools.tools] == ["greet"]
        result = await client.call_tool("greet", {"name": "Ada"})
        assert not result.is_error
        assert result.structured_content == {"text": "Hello, Ada Hello, Ada [tok]"}
        prompts = await client.list_prompts()
        assert [p.name for p in prompts.prompts] == ["welcome"]

    run_sdk_client(params, "legacy", body, read_timeout=30, timeout=90)


def test_host_does_not_start_without_a_required_value(built: dict[str, Path], tmp_path: Path) -> None:
    folder = _unpack(built["greeter"], tmp_path / "installed")
    manifest = json.loads((folder / "manifest.json").read_text("utf-8"))
    answer = host_config(manifest, folder, {"greeter_salutation": "Hi"})
    assert answer == {"config": None, "missing": True}
    assert host_config(manifest, folder, {"greeter_token": "t"})["missing"] is False


def test_upstream_bound_spec_serves_the_base(built: dict[str, Path], tmp_path: Path) -> None:
    m = _manifest(built["shop"])
    assert m["author"] == {"name": "Shop Team", "email": "team@shop.example"}
    assert "user_config" in m and "shop_api_key" in m["user_config"]
    assert m["user_config"]["shop_api_key"]["sensitive"] is True
    with zipfile.ZipFile(built["shop"]) as archive:
        assert not [n for n in archive.namelist() if n.startswith("server/") and n.count("/") == 1
                    and n != "server/main.py"]
        assert any(n.startswith("server/lib/httpx/") for n in archive.namelist())
    folder = _unpack(built["shop"], tmp_path / "installed")
    user = {key: "secret-key" if key == "shop_api_key" else "" for key in m["user_config"]}
    params = _serve(folder, user, bare_python(tmp_path / "bare"))

    async def body(client: Client) -> None:
        tools = await client.list_tools()
        assert [t.name for t in tools.tools] == ["get_item"]

    run_sdk_client(params, "legacy", body, read_timeout=30, timeout=90)
