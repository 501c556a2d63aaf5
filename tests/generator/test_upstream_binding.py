"""Specs with ``upstream`` and per-tool ``http`` (issue 41): the spec format and its located
diagnostics (E129-E139), what the generator emits (``upstream.py``, the server base), what it
leaves alone (the wire Tool, its fingerprint, the client side) and what a package needs
(runtime extras, the private runtime copy, ``--scaffold``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from codegen import build, generate
from codegen.api import lower_one, scaffold
from codegen.options import Options
from codegen.render.package import runtime_extras

REPO = Path(__file__).resolve().parents[2]
PETSTORE = REPO / "specs" / "petstore.yaml"

HEAD = "mcp-codegen: 1\nserver: {name: shop, version: '1'}\n"
UPSTREAM = """upstream:
  baseUrl: https://api.example.com/v1
  security:
    key: {type: apiKey, in: header, name: X-Key, env: SHOP_KEY}
"""
#: One bound tool; the cases below replace parts of it.
TOOL = """tools:
  - name: get_item
    inputSchema:
      type: object
      properties:
        id: {type: integer}
        q: {type: string}
      required: [id]
    outputSchema:
      type: object
      properties:
        result: {type: array}
    errors:
      missing: {description: no such item}
    http:
      method: GET
      path: /items/{id}
      args:
        id: {in: path, name: id}
        q: {in: query, name: q}
"""


def _diags(tmp_path: Path, text: str) -> list[tuple[str, str]]:
    spec = tmp_path / "shop.yaml"
    spec.write_text(text, "utf-8")
    result = generate([spec])
    assert all(d.line > 0 for d in result.diagnostics if d.is_error), [d.render() for d in result.diagnostics]
    return [(d.code, d.pointer) for d in result.diagnostics if d.is_error]


def test_the_base_spec_of_the_cases_is_valid(tmp_path: Path) -> None:
    assert _diags(tmp_path, HEAD + UPSTREAM + TOOL) == []


@pytest.mark.parametrize(("old", "new", "code", "pointer"), [
    # E130: the base URL
    ("baseUrl: https://api.example.com/v1", "baseUrl: api.example.com/v1", "E130", "/upstream/baseUrl"),
    ("baseUrl: https://api.example.com/v1", "baseUrl: 'https://api.example.com/v1?key=1'", "E130", "/upstream/baseUrl"),
    ("baseUrl: https://api.example.com/v1", "baseUrl: 'https://api.example.com/v1#top'", "E130", "/upstream/baseUrl"),
    ("baseUrl: https://api.example.com/v1", "baseUrl: ftp://api.example.com", "E130", "/upstream/baseUrl"),
    # E132: an argument that is no property, a property with no binding
    ("        q: {in: query, name: q}\n", "        q: {in: query, name: q}\n        r: {in: query, name: r}\n",
     "E132", "/tools/0/http/args/r"),
    ("        q: {in: query, name: q}\n", "", "E132", "/tools/0/inputSchema/properties/q"),
    # E133: the path template
    ("path: /items/{id}", "path: /items/{id}/{part}", "E133", "/tools/0/http/path"),
    ("path: /items/{id}", "path: /items", "E133", "/tools/0/http/args/id/name"),
    ("path: /items/{id}", "path: /items/{id", "E133", "/tools/0/http/path"),
    ("path: /items/{id}", "path: /items/{}/{id}", "E133", "/tools/0/http/path"),
    ("path: /items/{id}", "path: '/items/{id}#form'", "E133", "/tools/0/http/path"),
    ("path: /items/{id}", "path: '/items/{id}?action=x'", "E133", "/tools/0/http/path"),
    # E134: two arguments, one place (header names without case)
    ("q: {in: query, name: q}", "q: {in: path, name: id}", "E134", "/tools/0/http/args/q"),
    ("id: {in: path, name: id}\n        q: {in: query, name: q}",
     "id: {in: path, name: id}\n        q: {in: header, name: X-A}\n        z: {in: header, name: x-a}",
     "E134", "/tools/0/http/args/z"),
    # E135: a style its place does not allow; allowReserved outside the query
    ("q: {in: query, name: q}", "q: {in: query, name: q, style: matrix}", "E135", "/tools/0/http/args/q/style"),
    ("id: {in: path, name: id}", "id: {in: path, name: id, style: form}", "E135", "/tools/0/http/args/id/style"),
    ("q: {in: query, name: q}", "q: {in: header, name: q, style: form}", "E135", "/tools/0/http/args/q/style"),
    ("q: {in: query, name: q}", "q: {in: cookie, name: q, style: simple}", "E135", "/tools/0/http/args/q/style"),
    ("id: {in: path, name: id}", "id: {in: path, name: id, allowReserved: true}", "E135",
     "/tools/0/http/args/id/allowReserved"),
    # E136: an undeclared scheme, in the tool or the default
    ("      path: /items/{id}\n", "      path: /items/{id}\n      security: [[key], [nope]]\n", "E136",
     "/tools/0/http/security/1/0"),
    ("    key: {type: apiKey, in: header, name: X-Key, env: SHOP_KEY}\n",
     "    key: {type: apiKey, in: header, name: X-Key, env: SHOP_KEY}\n  defaultSecurity: [[key, other]]\n", "E136",
     "/upstream/defaultSecurity/0/1"),
    # E137: a status mapped to an error the tool does not declare
    ("      path: /items/{id}\n", "      path: /items/{id}\n      errors: {'404': missing, 5XX: broken}\n", "E137",
     "/tools/0/http/errors/5XX"),
    # E138: wrap names a property the outputSchema lacks
    ("      path: /items/{id}\n", "      path: /items/{id}\n      wrap: items\n", "E138", "/tools/0/http/wrap"),
    # E139: a fixed value where an argument goes
    ("      path: /items/{id}\n", "      path: /items/{id}\n      fixed: [{in: query, name: q, value: x}]\n", "E139",
     "/tools/0/http/fixed/0"),
    ("      path: /items/{id}\n",
     "      path: /items/{id}\n      fixed: [{in: header, name: V, value: 1}, {in: header, name: v, value: 2}]\n",
     "E139", "/tools/0/http/fixed/1"),
    # E129: the body
    ("q: {in: query, name: q}", "q: {in: body, name: q}", "E129", "/tools/0/http/args/q"),
    ("q: {in: query, name: q}", "q: {in: body}\n        r: {in: body, name: r}", "E129", "/tools/0/http/args/q"),
    ("      path: /items/{id}\n",
     "      path: /items/{id}\n      body: {contentType: multipart/form-data, files: {photo: {}}}\n", "E129",
     "/tools/0/http/body/files/photo"),
    # structural (the schema): a method, an environment variable name, a key, a missing name
    ("method: GET", "method: get", "E010", "/tools/0/http/method"),
    ("env: SHOP_KEY", "env: 1SHOP-KEY", "E010", "/upstream/security/key/env"),
    ("q: {in: query, name: q}", "q: {in: query, name: q, explod: true}", "E011", "/tools/0/http/args/q/explod"),
    ("q: {in: query, name: q}", "q: {in: query}", "E010", "/tools/0/http/args/q"),
    ("key: {type: apiKey, in: header, name: X-Key, env: SHOP_KEY}", "key: {type: apiKey, in: body, name: X, env: K}",
     "E010", "/upstream/security/key/in"),
    ("key: {type: apiKey, in: header, name: X-Key, env: SHOP_KEY}", "key: {type: basic, env: SHOP_KEY}",
     "E010", "/upstream/security/key/env"),
    ("      path: /items/{id}\n", "      path: /items/{id}\n      errors: {'4xx': missing}\n", "E010",
     "/tools/0/http/errors/4xx"),
])
def test_binding_mistakes_are_located(tmp_path: Path, old: str, new: str, code: str, pointer: str) -> None:
    text = HEAD + UPSTREAM + TOOL
    assert old in text, old
    found = _diags(tmp_path, text.replace(old, new, 1))
    assert (code, pointer) in found, found


def test_http_without_upstream_is_e131(tmp_path: Path) -> None:
    assert _diags(tmp_path, HEAD + TOOL) == [("E131", "/tools/0/http")]


def test_every_mistake_shows_in_one_run(tmp_path: Path) -> None:
    text = (HEAD + UPSTREAM + TOOL).replace("https://api.example.com/v1", "/v1").replace(
        "path: /items/{id}", "path: /items/{id}/{x}\n      security: [[nope]]\n      wrap: w\n"
        "      errors: {'500': gone}\n      fixed: [{in: query, name: q, value: 1}]").replace(
        "q: {in: query, name: q}", "q: {in: query, name: q, style: label}")
    assert sorted(_diags(tmp_path, text)) == [
        ("E130", "/upstream/baseUrl"),
        ("E133", "/tools/0/http/path"),
        ("E135", "/tools/0/http/args/q/style"),
        ("E136", "/tools/0/http/security/0/0"),
        ("E137", "/tools/0/http/errors/500"),
        ("E138", "/tools/0/http/wrap"),
        ("E139", "/tools/0/http/fixed/0"),
    ]


def test_wrap_looks_behind_a_root_ref(tmp_path: Path) -> None:
    text = HEAD + UPSTREAM + "$defs:\n  Out: {type: object, properties: {items: {type: array}}}\n" + TOOL.replace(
        """    outputSchema:
      type: object
      properties:
        result: {type: array}
""", "    outputSchema: {$ref: '#/$defs/Out'}\n").replace("      path: /items/{id}\n", "      path: /items/{id}\n      wrap: result\n")
    assert _diags(tmp_path, text) == [("E138", "/tools/0/http/wrap")]
    assert _diags(tmp_path, text.replace("wrap: result", "wrap: items")) == []


# -- what the generator writes ----------------------------------------------------------------
def _files(spec: Path, options: Options | None = None) -> dict[str, str]:
    result = generate([spec], options=options or Options())
    assert result.ok, [d.render() for d in result.diagnostics]
    return {f.path: f.content for f in result.files}


def _without_binding(text: str) -> str:
    """The petstore spec with no ``upstream`` and no ``http`` (an ordinary spec of the same tools)."""
    lines, out, skipping = text.splitlines(keepends=True), [], None
    for line in lines:
        indent = len(line) - len(line.lstrip())
        if skipping is not None and (not line.strip() or indent > skipping):
            continue
        skipping = None
        if line.strip() in ("upstream:", "http:"):
            skipping = indent
            continue
        out.append(line)
    return "".join(out)


def test_the_wire_tool_and_its_fingerprint_do_not_change_with_http(tmp_path: Path) -> None:
    plain = tmp_path / "specs" / "petstore.yaml"  # shown as specs/petstore.yaml, as the example
    plain.parent.mkdir()
    plain.write_text(_without_binding(PETSTORE.read_text("utf-8")), "utf-8")
    bound, unbound = lower_one(PETSTORE, "petstore.yaml").ir, lower_one(plain, "petstore.yaml").ir
    assert bound is not None and unbound is not None
    assert bound.upstream is not None and unbound.upstream is None and all(t.http is None for t in unbound.tools)
    assert [(t.name, t.wire, t.fingerprint) for t in bound.tools] == [(t.name, t.wire, t.fingerprint) for t in unbound.tools]
    assert all("http" not in t.wire for t in bound.tools)
    # the client side is the same text, and needs nothing of the binding
    with_http, without = _files(PETSTORE), _files(plain)
    for name in ("petstore/client.py", "petstore/tools.py", "petstore/models.py"):
        assert with_http[name] == without[name], name
    assert "petstore/upstream.py" in with_http and "petstore/upstream.py" not in without


def test_upstream_py_holds_the_sections_as_written_and_loads_them(tmp_path: Path) -> None:
    """A description, fixed value or operationId with three quotes and backslashes survives the
    raw string (the golden case ``upstream``): what the module builds is the spec's data."""
    import yaml

    case = REPO / "tests" / "generator" / "golden" / "cases" / "upstream" / "spec.yaml"
    result, report = build([case], tmp_path)
    assert report is not None, [d.render() for d in result.diagnostics]
    spec = yaml.safe_load(case.read_text("utf-8"))
    code = ("import json, sys\nimport files_api.upstream as u\n"
            "json.dump({'base': u.UPSTREAM.base_url, 'env': u.UPSTREAM.env, 'schemes': sorted(u.UPSTREAM.security),"
            " 'op': u.UPLOAD_HTTP.operation_id, 'fixed': [[f.location, f.name, f.value] for f in u.UPLOAD_HTTP.fixed],"
            " 'paths': [u.UPLOAD_HTTP.path, u.LIST_FILES_HTTP.path]}, sys.stdout)")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    import json

    loaded = json.loads(done.stdout)
    upstream, upload = spec["upstream"], spec["tools"][0]["http"]
    assert loaded["base"] == upstream["baseUrl"] and loaded["env"] == upstream.get("env")
    assert loaded["schemes"] == sorted(upstream["security"])
    assert loaded["op"] == 'upload"""\\' == upload["operationId"]
    assert loaded["fixed"] == [[f["in"], f["name"], f["value"]] for f in upload["fixed"]]
    assert loaded["fixed"][0][2] == 'raw """ and \\ and \\\\ end\\'
    assert loaded["paths"] == [upload["path"], spec["tools"][1]["http"]["path"]]
    assert "SUMMARIZE_HTTP" not in (tmp_path / "files_api" / "upstream.py").read_text("utf-8")


def test_the_server_base_calls_the_upstream_per_bound_tool() -> None:
    server = _files(PETSTORE)["petstore/server.py"]
    assert "class PetstoreServerBase(UpstreamServer, ServerBase):" in server
    assert "    upstream: ClassVar[UpstreamDef] = UPSTREAM\n" in server
    assert "    base_complete: ClassVar[bool] = True\n" in server
    for const in ("LIST_PETS", "GET_PET", "CREATE_PET", "DELETE_PET"):
        assert f"        return self.call_upstream({const}_TOOL, {const}_HTTP, args, ctx)\n" in server
    assert "NotImplementedError" not in server
    assert "Tools that call the upstream: list_pets, get_pet, create_pet, delete_pet." in server


def test_a_spec_without_upstream_generates_as_before() -> None:
    files = _files(REPO / "specs" / "weather.yaml")
    assert "weather/upstream.py" not in files
    assert "Upstream" not in files["weather/server.py"] and "base_complete" not in files["weather/server.py"]


def test_client_target_has_no_upstream_module(tmp_path: Path) -> None:
    files = _files(PETSTORE, Options(target="client"))
    assert "petstore/upstream.py" not in files and "petstore/server.py" not in files


def test_method_names_keep_clear_of_the_upstream_mixin(tmp_path: Path) -> None:
    tool = TOOL.replace("name: get_item", "name: call_upstream")
    spec = tmp_path / "shop.yaml"
    spec.write_text(HEAD + UPSTREAM + tool, "utf-8")
    ir = lower_one(spec, "shop.yaml").ir
    assert ir is not None and ir.tools[0].method == "call_upstream_" and ir.tools[0].http_const == "CALL_UPSTREAM_HTTP"
    plain = tool[:tool.index("    http:")]
    spec.write_text(HEAD + plain, "utf-8")
    ir = lower_one(spec, "shop.yaml").ir
    assert ir is not None and ir.tools[0].method == "call_upstream"


# -- what the package needs --------------------------------------------------------------------
def test_runtime_extras(tmp_path: Path) -> None:
    petstore = lower_one(PETSTORE, "petstore.yaml").ir
    assert petstore is not None
    assert runtime_extras(petstore) == ["http"]
    assert runtime_extras(Options(target="client").apply(petstore)) == []
    spec = tmp_path / "shop.yaml"
    spec.write_text(HEAD + UPSTREAM.replace(
        "    key: {type: apiKey, in: header, name: X-Key, env: SHOP_KEY}\n",
        "    key: {type: oauth2, tokenUrl: 'https://a.example/token', env: {clientId: C, clientSecret: S}}\n") + TOOL,
        "utf-8")
    oauth = lower_one(spec, "shop.yaml").ir
    assert oauth is not None and runtime_extras(oauth) == ["http", "oauth"]


def test_private_pyproject_asks_for_httpx() -> None:
    case = REPO / "tests" / "generator" / "golden" / "cases" / "upstream" / "spec.yaml"
    pyproject = _files(case, Options(runtime="private"))["files_api/pyproject.toml"]
    assert '    "httpx>=0.27",\n' in pyproject


def test_the_private_copy_holds_the_upstream_feature_only_when_needed() -> None:
    def copied(spec: Path, **kw: str) -> set[str]:
        files = _files(spec, Options(runtime="private", **kw))
        return {p for p in files if "/_runtime/server/upstream/" in p}

    assert copied(PETSTORE) == {f"petstore/_runtime/server/upstream/{m}.py" for m in (
        "__init__", "binding", "body", "client", "credentials", "request", "results", "serialize", "server")}
    assert copied(PETSTORE, target="client") == set()
    assert copied(REPO / "specs" / "weather.yaml") == set()


def test_a_private_upstream_package_passes_mypy_strict_and_serves(tmp_path: Path) -> None:
    result, report = build([PETSTORE], tmp_path, options=Options(runtime="private"))
    assert report is not None, [d.render() for d in result.diagnostics]
    proc = subprocess.run([sys.executable, "-m", "mypy", "--strict", "petstore"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    check = subprocess.run([sys.executable, "-m", "petstore", "--check"], cwd=tmp_path, capture_output=True,
                           text=True, timeout=60)
    assert check.returncode == 0 and "4 of 4 tools implemented" in check.stderr, check.stderr


def test_scaffold_writes_no_stub_for_a_complete_base(tmp_path: Path) -> None:
    written, kept, diags = scaffold([PETSTORE], tmp_path)
    assert written == [] and kept == []
    assert [(d.code, d.level.value) for d in diags] == [("W112", "warning")]
    assert not (tmp_path / "petstore_impl.py").exists()
