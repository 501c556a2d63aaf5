"""Generated OpenAPI servers against Prism, a validating mock of each document (npm
``@stoplight/prism-cli`` on Node 24, behind a recording front: ``tests/support/prism_support.py``).

Real public documents (npm ``@readme/oas-examples``: Swagger 2.0, OpenAPI 3.0 and 3.1, one feature
each plus whole APIs) are converted, built and served over stdio; the official SDK client calls every
tool once with valid arguments made from its input schema.  Every request that reached Prism is
judged against the document (``openapi_e2e.judge``): Prism's violations, query parameters the
operation does not declare (Prism does not flag those), ``readOnly`` properties sent.  A call Prism
answered with a success status must be a successful tool result (its output checked against the
tool's output schema by the server).  One document is also driven through the generated typed client.

Left out, each for a stated reason (:data:`PRISM_CANNOT`): what Prism itself cannot check.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from openapi_e2e import REPO, convert_and_build, credentials, load_document, our_side, summary
from prism_support import prism

#: The documents (under the package's folder) and the protocol era each is driven in.
DOCS = [
    ("2.0/yaml/petstore-expanded.yaml", "legacy"),
    ("3.0/yaml/petstore.yaml", "2026-07-28"),
    ("3.0/yaml/form-data.yaml", "2026-07-28"),
    ("3.0/yaml/file-uploads.yaml", "2026-07-28"),
    ("3.0/yaml/security.yaml", "legacy"),
    ("3.0/yaml/response-multiple-mediatypes.yaml", "2026-07-28"),
    ("3.0/yaml/parameters-cookies.yaml", "2026-07-28"),
    # not 3.0/yaml/discriminators.yaml: Prism checks a oneOf as plain JSON Schema does, without the
    # discriminator, so the document's overlapping branches refuse every value there; the branches'
    # conversion is tested in tests/generator/test_openapi_convert.py
    ("3.0/yaml/circular.yaml", "legacy"),
    ("3.1/yaml/train-travel.yaml", "2026-07-28"),
]
#: Tools whose requests Prism cannot judge, and why (the wire format each sends is checked against a
#: real FastAPI app in tests/runtime/test_upstream_wire.py instead).
PRISM_CANNOT = {
    "put_anything_multipart_formdata": "Prism 5 reads repeated multipart file parts (an array of files) as one value",
    "post_anything_oauth2": "the document's OAuth 2 token URL is on the internet (client credentials are tested "
                            "against a local token endpoint in tests/runtime/test_upstream_security.py)",
    "put_anything_oauth2": "likewise",
}


def _examples() -> Path:
    out = subprocess.run([str(REPO / "scripts" / "npm-oas-examples")], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    return Path(out.stdout.strip()) / "node_modules" / "@readme" / "oas-examples"


@pytest.mark.parametrize(("doc", "mode"), DOCS, ids=[d for d, _ in DOCS])
def test_every_tool_call_reaches_prism_as_the_document_says(doc: str, mode: str, tmp_path: Path) -> None:
    path = _examples() / doc
    name = "api_" + Path(doc).stem.replace("-", "_")
    out, package, _ = convert_and_build(path, tmp_path, name)
    with prism(path, tmp_path) as upstream:
        run = our_side(out, package, upstream.url, upstream.log, mode=mode,
                       env=credentials(tmp_path / "specs" / f"{name}.yaml"))
    calls = [c for c in run["calls"] if c["tool"] not in PRISM_CANNOT]
    assert run["tools"] >= 1 and calls
    assert [c["tool"] for c in calls if "skipped" in c] == [], "every tool got valid arguments"
    judged = summary(load_document(path), {**run, "calls": calls})
    assert judged["reasons"] == [], judged["reasons"]
    for call in calls:
        assert len(call["exchanges"]) == 1, (call["tool"], call["exchanges"])  # one request per call, no retry
        status = call["exchanges"][0]["status"]
        if 200 <= status < 300:
            assert not call["isError"], (call["tool"], call["text"])
        else:  # the document's error answer, as a tool error naming its status
            assert call["isError"] and f"HTTP {status}" in call["text"], (call["tool"], status, call["text"])


def test_the_typed_client_through_prism(tmp_path: Path) -> None:
    """The generated typed client (not the SDK's) against the converted pet store: typed models
    back, a declared error raised as its class, the API key sent as the document's header."""
    path = _examples() / "3.0/yaml/petstore.yaml"
    out, package, _ = convert_and_build(path, tmp_path, "petstore3")
    env = credentials(tmp_path / "specs" / "petstore3.yaml")
    assert sorted(env) == ["PETSTORE3_API_KEY", "PETSTORE3_PETSTORE_AUTH"]
    code = """
import os, sys
from petstore3 import Petstore3SyncClient
from petstore3.models import Pet
from petstore3.errors import DeclaredToolError

with Petstore3SyncClient.stdio(sys.executable, ["-m", "petstore3", "--stdio", "--upstream", sys.argv[1]]) as client:
    pet = client.get_pet_by_id(petId=7)
    print("pet", type(pet).__name__, isinstance(pet.name, str))
    found = client.find_pets_by_status(status=["available", "sold"])
    print("found", type(found.result).__name__, all(isinstance(p, Pet) for p in found.result))
    try:
        client.delete_pet(petId=7)
    except DeclaredToolError as exc:
        print("declared", exc.code, exc.data["status"])
"""
    with prism(path, tmp_path) as upstream:
        proc = subprocess.run([sys.executable, "-c", code, upstream.url], cwd=out, capture_output=True, text=True,
                              timeout=120, env={**os.environ, **env, "PYTHONPATH": os.pathsep.join([str(out), str(REPO)])})
        exchanges = upstream.exchanges()
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "pet GetPetByIdOutput True" in proc.stdout  # the success response's schema, inlined at the root
    assert "found list True" in proc.stdout
    assert "declared bad_request 400" in proc.stdout
    sent = {(e.method, e.path): e for e in exchanges}
    assert sent["GET", "/pet/7"].header("api_key") == env["PETSTORE3_API_KEY"]  # the operation's apiKey scheme
    assert sent["DELETE", "/pet/7"].header("authorization") == f"Bearer {env['PETSTORE3_PETSTORE_AUTH']}"
    assert sent["GET", "/pet/findByStatus"].query == "status=available&status=sold"  # form, exploded
    assert all(not e.violations for e in exchanges)
