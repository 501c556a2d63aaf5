"""YAML specs read by libyaml (``spec/load.py``, ``_quick_yaml``): the same data, diagnostics and
positions as the pure-Python parser alone gives, on the repository's specs, on a differential
corpus of hostile texts, and on each kind of text the two parsers read differently (which is
why ``_YAML_UNSURE`` sends it to the pure-Python parser)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codegen.spec import load
from codegen.spec.load import load_spec_file

REPO = Path(__file__).resolve().parents[2]

TOKENS = [" ", "  ", "\n", ":", ": ", "-", "- ", "?", "? ", "[", "]", "{", "}", ",", "#", " #", "&a ", "*a", "!",
          "!!str ", "|", ">", "|-", ">+", "|2", "'", '"', "'it''s'", '"\\u00e9"', '"\\ud83d\\ude00"', '"\\ud800"',
          '"\\U0001F600"', '"\\x41"', '"\\N\\_\\L\\P"', '"\\e\\0\\a"', "\\", "a", "b: c", "key", "1", "0x1F", "1e5",
          ".inf", "~", "null", "yes", "No", "2001-12-14", "é", "😀", "中", "---", "...", "--- ", "... ", "%", "@", "`",
          "=", "<<: *a", "\n  ", "\n    ", "\n- ", "\n  - ", "x\n  y", '"a\n  b"', "'a\n\n b'", "\t", "\r\n", "\ufeff",
          "\u2028", "\x85", "\x07", "a?b", "why?", "x ?", "[a?b]", "{q: why?}"]
JSON_VALUES = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
                           lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=8), c, max_size=4),
                           max_leaves=25)


def _read(text: str, loader: Any) -> tuple[str, Any]:
    try:
        if any(isinstance(t, yaml.TagToken) for t in yaml.scan(text, Loader=loader)):
            return ("tag", None)
        return ("ok", yaml.load(text, Loader=loader))
    except yaml.YAMLError:
        return ("error", None)


def _libyaml_agrees(text: str) -> None:
    """Where the quick path would take libyaml's reading, it is the pure-Python parser's."""
    if load._libyaml_may_differ(text):
        return
    fast = _read(text, yaml.CSafeLoader)
    if fast[0] != "ok":
        return  # not taken: the pure-Python parser decides
    assert _read(text, yaml.SafeLoader) == fast, repr(text)


@settings(max_examples=6000, suppress_health_check=list(HealthCheck), deadline=None, database=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=40))
def test_libyaml_reads_what_it_is_given_as_the_pure_parser_does(parts: list[str]) -> None:
    _libyaml_agrees("".join(parts))


@settings(max_examples=1500, suppress_health_check=list(HealthCheck), deadline=None, database=None)
@given(JSON_VALUES, st.sampled_from([None, '"', "'", "|", ">"]), st.booleans(), st.integers(10, 100),
       st.sampled_from([None, True, False]), st.integers(2, 6))
def test_libyaml_reads_dumped_values_as_the_pure_parser_does(value: Any, style: str | None, uni: bool, width: int,
                                                            flow: bool | None, indent: int) -> None:
    _libyaml_agrees(yaml.safe_dump(value, default_style=style, allow_unicode=uni, width=width,
                                   default_flow_style=flow, indent=indent))


@pytest.mark.parametrize("text", [
    "|#\n",  # a comment right after a block scalar's header: libyaml reads '', the pure parser refuses it
    ">-#x\n",
    "\ufeff\ufeff1",  # a second byte order mark: libyaml drops it, the pure parser keeps it
    "\u2028\ufeff*a }c",
    "[a?b]\n",  # a `?` in a plain scalar of a flow collection: the pure parser ends the scalar there
    "{q: why?}\n",
    "a: [is it?, yes]\n",
    "[a?\n b]\n",
])
def test_each_kind_of_text_the_parsers_read_differently_is_left_to_the_pure_parser(text: str) -> None:
    assert _read(text, yaml.CSafeLoader) != _read(text, yaml.SafeLoader)  # why the guard exists
    assert load._libyaml_may_differ(text)


@pytest.mark.parametrize("text", ["a: why?\n", "[? x]\n", 'd: "why?"\n', "a: [x, 'y?']\n", "t: {type: string}\n"])
def test_a_question_mark_elsewhere_is_read_by_libyaml(text: str) -> None:
    assert _read(text, yaml.CSafeLoader) == _read(text, yaml.SafeLoader)
    assert not load._libyaml_may_differ(text)


def _both(path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    """``load_spec_file`` as it is, and with the pure-Python parser alone: data, findings, positions."""
    def summary() -> Any:
        doc, diags = load_spec_file(path)
        found = [(d.code, d.line, d.col, d.message) for d in diags]
        return (None, found) if doc is None else (repr(doc.data), found, doc.positions)

    quick = summary()
    with monkeypatch.context() as m:
        m.setattr(load, "_LIBYAML", False)
        full = summary()
    return quick, full


@settings(max_examples=400, suppress_health_check=list(HealthCheck), deadline=None, database=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=30))
def test_a_hostile_spec_file_loads_as_with_the_pure_parser_alone(tmp_path_factory: pytest.TempPathFactory,
                                                                  parts: list[str]) -> None:
    path = tmp_path_factory.mktemp("spec") / "s.yaml"
    path.write_bytes("".join(parts).encode("utf-8", "surrogatepass"))
    with pytest.MonkeyPatch.context() as mp:
        quick, full = _both(path, mp)
    assert quick == full


def test_the_repositorys_yaml_specs_load_as_with_the_pure_parser_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    paths = sorted(p for top in ("specs", "tests", "bench", "docs") for p in (REPO / top).rglob("*.y*ml"))
    assert len(paths) > 20
    for path in paths:
        quick, full = _both(path, monkeypatch)
        assert quick == full, path


SPEC = """mcp-codegen: 1
server:
  name: shop
  version: 1.0.0
  description: "Caf\\u00e9 orders, 100% typed!"
tools:
  - name: order
    description: |
      Place an order.
    inputSchema:
      type: object
      properties:
        sku: {type: strng}
"""


def test_an_ordinary_spec_is_read_by_libyaml_and_located_by_the_pure_parser(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from codegen.spec.validate import validate

    path = tmp_path / "shop.yaml"
    path.write_text(SPEC)
    pure: list[str] = []
    compose = yaml.compose

    def spy(text: str, Loader: Any = yaml.SafeLoader) -> Any:
        if Loader is yaml.SafeLoader:
            pure.append(text)
        return compose(text, Loader=Loader)

    monkeypatch.setattr(yaml, "compose", spy)
    doc, diags = load_spec_file(path)
    assert doc is not None and not diags
    assert doc.data["server"]["description"] == "Café orders, 100% typed!"
    assert not pure  # loading alone never ran the pure-Python parser
    found = [d for d in validate(doc)[2] if d.code == "E023"]
    assert len(pure) == 1  # the first diagnostic asked for positions
    assert [(d.line, d.col) for d in found] == [(13, 21)]  # `strng`, where the pure parser places it
    assert SPEC.splitlines()[12].index("strng") + 1 == 21


@pytest.mark.parametrize("value", ["=", "<<", "2001-02-30", "2001-12-14t21:59:43.10-99:00"])
def test_a_value_yaml_resolves_but_cannot_construct_is_its_source_text(tmp_path: Path, value: str,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """``=`` (YAML 1.1's value key), ``<<`` as a value and dates that do not exist: PyYAML
    raises for each (this once crashed ``validate`` with a traceback); a spec keeps the text."""
    path = tmp_path / "s.yaml"
    path.write_text(f"mcp-codegen: 1\nserver:\n  name: s\n  version: 1.0.0\n  description: {value}\ntools: []\n")
    quick, full = _both(path, monkeypatch)
    assert quick == full
    doc, diags = load_spec_file(path)
    assert doc is not None and not diags
    assert doc.data["server"]["description"] == value


@pytest.mark.parametrize("key", ["? [a, b]\n: v\n", "? {a: b}\n: v\n",
                                 "x0: &x0 [x, x, x, x, x, x, x, x]\nx1: &x1 [*x0, *x0, *x0, *x0, *x0, *x0, *x0, *x0]\n"
                                 "x2: &x2 [*x1, *x1, *x1, *x1, *x1, *x1, *x1, *x1]\n? *x2\n: v\n"])
def test_a_mapping_or_list_as_a_key_is_refused(tmp_path: Path, key: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A key's text once came from the node itself, aliases expanded without limit (an alias bomb
    through a key: 285 bytes made a 5.7-million-character key); a spec's keys are strings."""
    path = tmp_path / "s.yaml"
    path.write_text(key)
    quick, full = _both(path, monkeypatch)
    assert quick == full
    doc, diags = load_spec_file(path)
    assert doc is None and [d.code for d in diags] == ["E005"] and "as a key" in diags[0].message
