"""The writer's own style is black's: black leaves every generated module unchanged (issue 32 point 3).

Black runs only on what the writer cannot emit in black's style itself
(:mod:`codegen.output.trust`): datamodel-code-generator's classes in ``models.py`` outside
the shape black leaves unchanged (:mod:`codegen.output.trust_dcg`) and the units the writer
flags (a line it could not keep within the limit).  Here black runs on every
generated module, whole (``black.format_str``, not unit by unit), for every golden case, every
example spec, the benchmark specs and a property-based corpus of hostile spec strings, and
must change nothing.  The build itself is made with the trusted path and no cache.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import black
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from codegen.driver.pipeline import generate_one
from codegen.output.format import black_mode
from codegen.output.verify import generated_module

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench"))
from make_specs import spec_document  # noqa: E402

SPECS = sorted((REPO / "specs").glob("*.yaml")) + sorted((REPO / "tests" / "generator" / "golden" / "cases").glob("*/spec.yaml")) \
    + [REPO / "bench" / "specs" / "bench.yaml"]


@pytest.fixture(autouse=True)
def _no_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_CODEGEN_NO_CACHE", "1")


def _changed_by_black(spec: Path) -> list[str]:
    result = generate_one(spec, spec.name)
    assert result.ok, "\n".join(d.render() for d in result.diagnostics)
    trusted = [f for f in result.files if generated_module(f.path) and not f.verbatim]
    assert trusted
    return [f.path for f in trusted if black.format_str(f.content, mode=black_mode()) != f.content]


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: p.parent.name if p.name == "spec.yaml" else p.stem)
def test_black_leaves_trusted_files_unchanged(spec: Path) -> None:
    assert _changed_by_black(spec) == []


def test_black_leaves_trusted_files_of_a_benchmark_spec_unchanged(tmp_path: Path) -> None:
    spec = tmp_path / "bench_000.json"
    spec.write_text(json.dumps(spec_document("bench_000", 0, 30, 7)), encoding="utf-8")
    assert _changed_by_black(spec) == []


#: Text that black or Python treat specially: quotes, backslashes, line ends and separators,
#: tabs, wide and combining characters, a lot of it.
_HOSTILE = st.lists(st.sampled_from(['"', "'", '"""', "\\", "\\\\", "\n", "\r\n", "\t", "  ", "\u2028", "\u2029",
                                     "\x0b", "\x0c", "\x85", "\x00", "\x7f", "é", "日本語", "\u0301", "🙂", "#", "{",
                                     "}", "%", "x" * 120, "word ", "fmt: off", "# type: int", "\\N{BULLET}",
                                     "\\x41", "\ufeff", "  indented\n    more"]), min_size=0, max_size=12).map("".join)
_NAME = st.text(st.sampled_from("abcdeXYZ_-./é9 "), min_size=1, max_size=60).filter(lambda s: s.strip(" ") != "")


def _spec(tool_name: str, description: str, prop: str, title: str, enum: list[str], error: str, message: str) -> dict[str, object]:
    return {
        "mcp-codegen": 1,
        "server": {"name": "hostile", "version": "1.0.0", "title": title or "T", "description": description or "d",
                   "instructions": description or "i"},
        "tools": [{
            "name": tool_name, "title": title, "description": description,
            "inputSchema": {"type": "object", "properties": {
                prop: {"type": "string", "description": description, "title": title or "x",
                       "default": message or "d"},
                "choice": {"type": "string", "enum": enum, "description": message},
                "n" * 70: {"type": "integer", "default": 1},
            }, "required": ["choice"]},
            "outputSchema": {"type": "object", "properties": {"ok": {"type": "boolean", "description": description}}},
            "errors": {"bad_thing": {"description": error or "e"}},
            "inputs": {"confirm": {"method": "elicitation/create", "message": message or "m",
                                   "requestedSchema": {"type": "object", "properties": {
                                       "yes": {"type": "boolean", "description": description or "y"}}}}},
        }],
    }


@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck),
          phases=[Phase.explicit, Phase.reuse, Phase.generate])  # no shrinking: each example is a whole build
@given(tool_name=_NAME, description=_HOSTILE, prop=_NAME, title=_HOSTILE, enum=st.lists(_HOSTILE, min_size=1, max_size=4, unique=True),
       error=_HOSTILE, message=_HOSTILE)
def test_black_leaves_trusted_files_of_hostile_specs_unchanged(tmp_path_factory: pytest.TempPathFactory, tool_name: str,
                                                               description: str, prop: str, title: str, enum: list[str],
                                                               error: str, message: str) -> None:
    spec = tmp_path_factory.mktemp("hostile") / "hostile.json"
    spec.write_text(json.dumps(_spec(tool_name, description, prop, title, enum, error, message)), encoding="utf-8")
    result = generate_one(spec, spec.name)
    if not result.ok:  # a spec the generator refuses (a clash of names, ...) has no output to check
        assert all(d.code != "E051" for d in result.diagnostics), [d.render() for d in result.diagnostics]
        return
    trusted = [f for f in result.files if generated_module(f.path) and not f.verbatim]
    changed = [f.path for f in trusted if black.format_str(f.content, mode=black_mode()) != f.content]
    assert changed == []


def test_verify_format_names_the_files_black_would_change() -> None:
    from codegen.output.verify import verify_format
    from codegen.render.files import GeneratedFile

    files = [GeneratedFile("pkg/client.py", "x = 'a'\n"), GeneratedFile("pkg/models.py", "x = 1\n"),
             GeneratedFile("pkg/tools.py", "def f( ):\n  pass\n"), GeneratedFile("pkg/_runtime/core.py", "x = 'a'\n"),
             GeneratedFile("pkg/server.py", "x = 'a'\n", verbatim=True), GeneratedFile("pkg/errors.py", "x =\n")]
    assert verify_format(files) == ["pkg/client.py", "pkg/errors.py", "pkg/tools.py"]


def test_build_verify_format_passes_on_the_examples(tmp_path: Path) -> None:
    import subprocess

    proc = subprocess.run([sys.executable, "-m", "codegen", "build", str(REPO / "specs" / "weather.yaml"),
                           str(REPO / "specs" / "notes.yaml"), "-o", str(tmp_path / "out"), "--verify-format", "-q"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "black would" not in proc.stderr


#: Values DCG writes into a class line: numbers black rewrites (``1e+16``, ``1E5``), patterns
#: with escapes black lowercases (``\xAB``), quotes, and long ones.
_NUMBER = st.one_of(st.integers(-10**20, 10**20), st.floats(allow_nan=False, allow_infinity=False),
                    st.sampled_from([1e16, 1e-7, 1e+300, -0.0, 0.5, 2**53 + 1, 10**25]))
_PATTERN = st.lists(st.sampled_from(["^", "$", "\\d", "\\xAB", "\\u00e9", "\\N{BULLET}", "'", '"', "[a-z]", "\\\\",
                                     "x" * 60, "é", "日本", "#", "(?i)"]), min_size=1, max_size=6).map("".join)


@settings(max_examples=30, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck),
          phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(low=_NUMBER, default=_NUMBER, pattern=_PATTERN, text=_HOSTILE, items=st.lists(_HOSTILE, min_size=1, max_size=3),
       name=_NAME)
def test_black_leaves_models_of_hostile_values_unchanged(tmp_path_factory: pytest.TempPathFactory, low: float,
                                                         default: float, pattern: str, text: str, items: list[str],
                                                         name: str) -> None:
    """DCG's classes black is not run on (:mod:`codegen.output.trust_dcg`) are black's style:
    numbers, patterns, string and list defaults, constants and long names in the class lines."""
    props = {
        "n": {"type": "number", "minimum": low, "default": default},
        "i": {"type": "integer", "maximum": int(default) if abs(default) < 1e18 else 5, "default": 3},
        "p": {"type": "string", "pattern": pattern, "default": text, "description": text},
        "l": {"type": "array", "items": {"type": "string"}, "default": items},
        "c": {"const": text},
        "o": {"type": "object", "properties": {"k": {"type": "string", "default": text}}, "default": {"k": text}},
        ("v" + name.replace(" ", "_"))[:40]: {"type": "string", "maxLength": 3},
    }
    spec = {"mcp-codegen": 1, "server": {"name": "values", "version": "1.0.0"},
            "tools": [{"name": "t" * 30, "description": "d", "inputSchema": {"type": "object", "properties": props}}]}
    path = tmp_path_factory.mktemp("values") / "values.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    result = generate_one(path, path.name)
    if not result.ok:
        assert all(d.code != "E051" for d in result.diagnostics), [d.render() for d in result.diagnostics]
        return
    models = [f for f in result.files if f.path.endswith("/models.py")]
    assert models
    assert [f.path for f in models if black.format_str(f.content, mode=black_mode()) != f.content] == []


def test_dcg_shape_rejects_what_black_would_change() -> None:
    from codegen.output.trust_dcg import dcg_fits

    def cls(*lines: str) -> str:
        return "class A(BaseModel):\n" + "".join(f"    {line}\n" if line else "\n" for line in lines)

    assert dcg_fits(cls('x: str | None = Field(default=None, max_length=200)', 'y: list[int] = [-1, 2]'))
    assert dcg_fits(cls('"""', 'Doc.', '"""', '', 'x: int'))
    for bad in [cls("x = (1)"), cls("x  = 1"), cls("x: list[int] = Field(..., min_length=1,)"), cls("x = 1e+16"),
                cls("x = 1E5"), cls("x = 1."), cls("x = r'a'"), cls("x = 'a'"), cls('x = "\\xAB"'), cls('x = "a" "b"'),
                cls("x = 1  # note"), cls("x = a - b"), cls("x: int", "", "y: int"), cls('"""', 'Doc.', '"""', 'x: int'),
                cls('"""', '  Doc.', '"""'), cls('"""', 'Doc. ', '"""'), cls("x: int" + " " * 100 + "= 1"),
                cls("x = [i for i in y]"), cls("x = lambda: 1"), cls("x: A[1:2]"), "class A():\n    x: int\n",
                cls("x: int", "X.model_rebuild()") + "\n\nA.model_rebuild()\n", cls("def f(self): pass")]:
        assert not dcg_fits(bad), bad
