"""docs/publishing.md, executed: its blocks run in order in one bash session, in a fresh folder outside
the repository with a fresh venv, the way a new user runs them; then every file the walk-through made is
checked by the format's official judge: ``server.json`` against the registry's schema (2025-12-11), the
card against the server card schema (v1), the bundle's manifest against the MCPB schema of its
``manifest_version`` and by ``mcpb validate`` (the document runs it; the official CLI is on PATH here).
And the three launch descriptions (``--print-config``, ``server.json``'s package, the bundle's
``mcp_config``) agree on arguments and environment variables (issue 43 point 5)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from tests.support.doc_runner import blocks, run_document
from tests.support.ecosystem_schemas import card_validator, registry_validator
from tests.support.mcpb_support import mcpb_cli

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "publishing.md"
SCHEMAS = REPO / "tests" / "schemas" / "ecosystem"


def test_the_blocks_are_there_and_only_publishing_is_left_out() -> None:
    doc = blocks(DOC.read_text("utf-8"))
    assert [b.file for b in doc if b.file] == ["specs/greeter.yaml", "specs/ui/card.html", "specs/greeter_impl.py",
                                               "run_bundle.py", "call.py"]
    assert [b.not_run for b in doc if b.not_run] == ["needs PyPI and registry credentials"]


def test_the_document_runs_and_every_file_passes_its_official_judge(tmp_path: Path) -> None:
    proc = run_document(DOC, tmp_path, REPO, pid_file="server.pid", extra_path=(str(Path(mcpb_cli()).parent),))
    assert proc.returncode == 0, f"{proc.stdout[-4000:]}\n--- stderr ---\n{proc.stderr[-4000:]}"
    out = proc.stdout
    # the bundle, unpacked and run by a bare interpreter, got the user's salutation
    assert "\nHi, Ada!\n" in out
    assert "Manifest schema validation passes!" in out  # mcpb validate
    # over HTTP: the card's headers, then the typed client's call and the tool's view
    assert "content-type: application/mcp-server-card+json" in out.lower()
    assert "access-control-allow-origin: *" in out.lower()
    assert ("Welcome, Ada!\nui://greeter/card text/html;profile=mcp-app True ['https://fonts.example.com']\n"
            "view holds the greeting: True\n") in out

    package = tmp_path / "out" / "greeter"
    server_json = json.loads((package / "server.json").read_text("utf-8"))
    registry_validator().validate(server_json)
    assert server_json["name"] == "io.github.example/greeter" and server_json["version"] == "0.3.1"
    card = json.loads((package / "server-card.json").read_text("utf-8"))
    card_validator().validate(card)
    assert (card["name"], card["version"]) == ("io.github.example/greeter", "0.3.1")
    assert card["remotes"][0]["url"] == "https://greeter.example.com/mcp"
    assert "<!-- mcp-name: io.github.example/greeter -->\n" in (package / "README.md").read_text("utf-8")

    manifest = json.loads((tmp_path / "unpacked" / "manifest.json").read_text("utf-8"))
    schema = json.loads((SCHEMAS / "mcpb" / f"mcpb-manifest-v{manifest['manifest_version']}.schema.json").read_text())
    jsonschema.validators.validator_for(schema)(schema).validate(manifest)
    assert manifest["user_config"]["greeter_audit_token"]["sensitive"] is True

    # one launch: the same arguments after the launcher and the same variables, in the same order
    package_entry, = server_json["packages"]
    registry_args = [a["value"] for a in package_entry["packageArguments"]]
    registry_env = [v["name"] for v in package_entry["environmentVariables"]]
    entry = json.loads((tmp_path / "claude-entry.json").read_text("utf-8"))["mcpServers"]["greeter"]
    host_args = entry["args"][2:]  # after `-m greeter`
    host_env = [k for k in entry["env"] if k != "PYTHONPATH"]
    config = manifest["server"]["mcp_config"]
    bundle_args = config["args"][1:]  # after the entry point
    bundle_env = [k for k in config["env"] if k != "PYTHONPATH"]
    assert registry_args == host_args == bundle_args == ["--stdio"]
    assert registry_env == host_env == bundle_env == ["GREETER_SALUTATION", "GREETER_AUDIT_TOKEN"]
    assert all(entry["env"][k] == "" for k in host_env)  # placeholders, never values
    assert [config["env"][k] for k in bundle_env] == ["${user_config.greeter_salutation}",
                                                      "${user_config.greeter_audit_token}"]


def test_the_judges_refuse_what_they_should() -> None:
    """The validators above are not vacuous: a registry entry without its name and a card with a
    date-versioned $schema are refused."""
    bad_entry = {"$schema": "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
                 "description": "x", "version": "1.0.0"}
    assert not registry_validator().is_valid(bad_entry)
    bad_card = {"$schema": "https://static.modelcontextprotocol.io/schemas/2025-12-11/server-card.schema.json",
                "name": "io.github.example/greeter", "version": "1", "description": "x"}
    assert not card_validator().is_valid(bad_card)
