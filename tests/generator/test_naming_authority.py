"""One naming authority: every Python name of generated code is decided by the naming service
(codegen/ir/naming/core.py, codegen/ir/naming/models.py), the model generator is told those names,
and nothing else derives one.

* an ast scan: outside the service, no module of the generator builds a name type
  (``ClassName``/``PyIdent``/``MethodName``), calls a re-casing helper (``snake``/``pascal``/
  ``natural_*``) or defines a function that looks like one;
* for every golden case and every example spec: the class, field and enum member names in
  the committed ``models.py`` (what DCG wrote) are exactly the service's decisions, read from
  the model document *without running DCG*;
* DCG follows a field name it would never have chosen itself (it is told, not predicted).
"""

from __future__ import annotations

import ast
import re
import unicodedata
from pathlib import Path
from typing import Any

import pytest

from codegen.driver.pipeline import lower_one
from codegen.ir.naming.models import FIELD_NAMES, enum_member_names, field_names
from codegen.models.generate import decided_fields, run_dcg

ROOT = Path(__file__).resolve().parents[2]
CODEGEN = ROOT / "codegen"
SERVICE = {CODEGEN / "ir" / "naming" / "core.py", CODEGEN / "ir" / "naming" / "models.py"}
#: What only the naming service may call: the name types and the re-casing helpers.
NAME_MAKERS = {"ClassName", "PyIdent", "MethodName", "snake", "pascal", "natural_words", "natural_package",
               "natural_class_stem", "_words"}
_LOOKS_LIKE_NAMING = re.compile(r"(snake|pascal|camel|recase|sanitize_ident|valid_name)", re.IGNORECASE)


def _generator_modules() -> list[Path]:
    return [p for p in sorted(CODEGEN.rglob("*.py"))
            if p not in SERVICE and p.relative_to(CODEGEN).parts[0] != "runtime"]


def test_only_the_naming_service_derives_names() -> None:
    bad = []
    for path in _generator_modules():
        tree = ast.parse(path.read_text("utf-8"))
        rel = path.relative_to(ROOT)
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                func = node.func
                called = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
                if called in NAME_MAKERS:
                    bad.append(f"{rel}:{node.lineno} calls {called}()")
            elif isinstance(node, ast.FunctionDef) and _LOOKS_LIKE_NAMING.search(node.name):
                bad.append(f"{rel}:{node.lineno} defines {node.name}() (name derivation belongs in codegen/ir/naming/)")
            elif isinstance(node, ast.ImportFrom) and node.module and "naming" in node.module.split("."):
                recasers = {a.name for a in node.names} & (NAME_MAKERS - {"ClassName"})
                if recasers:
                    bad.append(f"{rel}:{node.lineno} imports {sorted(recasers)}")
    assert not bad, "\n".join(bad)


def test_the_scan_would_catch_a_re_derivation(tmp_path: Path) -> None:
    """The scan above is not vacuous: the pull code it replaced is flagged."""
    old = "from ..ir.naming.core import ClassName, MethodName, pascal\nstem = pascal(name)\nm = str(MethodName(name))\n"
    tree = ast.parse(old)
    called = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    assert called & NAME_MAKERS == {"pascal", "MethodName"}


def _specs() -> list[tuple[str, Path, Path]]:
    """(id, spec, folder of its committed package) for every golden case and example."""
    out = []
    for case in sorted((ROOT / "tests" / "generator" / "golden" / "cases").iterdir()):
        if (case / "spec.yaml").exists():
            packages = [p.parent for p in (case / "expected").glob("*/models.py")]
            out += [(f"golden/{case.name}", case / "spec.yaml", pkg) for pkg in packages]
    for spec in sorted((ROOT / "specs").glob("*.yaml")):
        low = lower_one(spec, spec.name, with_models=False)
        assert low.ir is not None, spec
        out.append((f"example/{spec.stem}", spec, ROOT / "generated_examples" / low.ir.server.package))
    return out


def _titled(schema: Any, out: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    if isinstance(schema, dict):
        if isinstance(schema.get("title"), str):
            out.setdefault(schema["title"], schema)
        for key, value in schema.items():
            if key not in ("enum", "const", "default", "examples", "x-enum-varnames", FIELD_NAMES):
                _titled(value, out)
    elif isinstance(schema, list):
        for value in schema:
            _titled(value, out)
    return out


def _written(models: str) -> tuple[dict[str, list[tuple[str, str]]], dict[str, list[str]]]:
    """models.py -> BaseModel class -> [(wire, python)] fields, and Enum class -> member names."""
    fields: dict[str, list[tuple[str, str]]] = {}
    enums: dict[str, list[str]] = {}
    for node in ast.parse(models).body:
        if not isinstance(node, ast.ClassDef):
            continue
        bases = {getattr(b, "id", "") for b in node.bases}
        if bases & {"Enum", "StrEnum"}:
            enums[node.name] = [t.id for s in node.body if isinstance(s, ast.Assign) for t in s.targets
                                if isinstance(t, ast.Name)]
        elif "BaseModel" in bases:
            pairs = []
            for stmt in node.body:
                if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                    wire = stmt.target.id
                    if isinstance(stmt.value, ast.Call):
                        for kw in stmt.value.keywords:
                            if kw.arg == "alias" and isinstance(kw.value, ast.Constant):
                                wire = kw.value.value
                    pairs.append((wire, stmt.target.id))
            fields[node.name] = pairs
    return fields, enums


@pytest.mark.parametrize(("spec", "package"), [pytest.param(s, p, id=i) for i, s, p in _specs()])
def test_models_use_exactly_the_services_names(spec: Path, package: Path) -> None:
    low = lower_one(spec, spec.name, with_models=False)  # decisions only: DCG does not run
    assert low.ir is not None
    document = low.ir.model_schema
    titled = _titled(document, {})
    decided = decided_fields(document)
    fields, enums = _written((package / "models.py").read_text("utf-8"))
    assert fields or enums
    invented = sorted((set(fields) | set(enums)) - set(titled))
    assert not invented, f"classes the service did not name: {invented}"
    for cls, pairs in fields.items():
        if pairs:
            assert cls in decided, f"{cls}: fields named by DCG, not told"
            assert pairs == [(w, _nfkc(p)) for w, p in decided[cls].items() if w in dict(pairs)], cls
    for cls, members in enums.items():
        assert members == [_nfkc(m) for m in titled[cls]["x-enum-varnames"]], cls


def _nfkc(name: str) -> str:
    return unicodedata.normalize("NFKC", name)  # how Python (and ast) reads an identifier


@pytest.mark.parametrize(("wires", "hidden", "own", "expected"), [
    (["a", "b-c", "class", "json", "_p", "1x", "", "x.y", "__x", "é"], set(), [set()] * 10,
     ["a", "b_c", "class_", "json_", "field_p", "field_1x", "field_", "x_y", "field__x", "é"]),
    (["a b", "a_b", "model_dump", "model_config", "copy", "Field", "Any"], set(), [set()] * 7,
     ["a_b", "a_b_1", "field_model_dump", "field_model_config", "copy_", "Field_", "Any_"]),  # model_*: pydantic warns
    (["Baz", "Qux", "list", "str"], {"Baz"}, [set(), set(), {"list"}, {"int"}], ["Baz_1", "Qux", "list_", "str"]),
])
def test_field_names(wires: list[str], hidden: set[str], own: list[set[str]], expected: list[str]) -> None:
    assert field_names(wires, hidden, own) == expected


def test_enum_member_names() -> None:
    assert enum_member_names(["count", "a-b", "mro", "x", "1", "title"]) == ["count_", "a_b", "mro_", "x", "field_1",
                                                                           "title_"]


def test_dcg_is_told_field_names_not_predicted() -> None:
    """A name DCG would never choose (``b_c`` is its own) shows up as written: it follows the
    document's decisions; a decision equal to the wire name adds no alias."""
    doc = {"$defs": {"Thing": {"title": "Thing", "type": "object", "required": ["b-c"],
                                "properties": {"b-c": {"type": "string"}, "plain": {"type": "integer"}},
                                FIELD_NAMES: [["b-c", "told_name"], ["plain", "plain"]]}}}
    source = run_dcg(doc)
    assert "told_name: str = Field(..., alias='b-c')" in source
    assert "plain: int | None = None" in source
    assert FIELD_NAMES not in source


def test_a_model_that_ignores_its_names_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """build_models compares DCG's output with the decisions: told, DCG writes the service's
    name; not told (the aliases dropped), its own choice differs and the build is E050."""
    import codegen.models.generate as generate
    from codegen.models.told import told_names

    low = lower_one(ROOT / "tests" / "generator" / "golden" / "cases" / "names" / "spec.yaml", "names.yaml", with_models=False)
    assert low.ir is not None
    cls, decided = next((c, pairs) for c, pairs in decided_fields(low.ir.model_schema).items() if pairs)
    wire = next(iter(decided))
    node = _titled(low.ir.model_schema, {})[cls]

    def rename(to: str) -> None:  # a new decision (and a new memo key for the unit)
        node[FIELD_NAMES] = [[w, to if w == wire else p] for w, p in node[FIELD_NAMES]]

    rename("renamed_by_the_service")
    models, diags = generate.build_models(low.ir)
    assert models is not None and not diags
    assert "renamed_by_the_service" in models.source
    monkeypatch.setattr(generate, "told_names", lambda schema: (told_names(schema)[0], {}))
    rename("renamed_again")
    models, diags = generate.build_models(low.ir)
    assert models is None
    assert [d.code for d in diags] == ["E050"] and f"{cls}.{wire}" in diags[0].message
