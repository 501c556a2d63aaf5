"""Unit tests of codegen.ir.naming.core: safe identifiers and the collision registry."""

from __future__ import annotations

import keyword

import pytest

from codegen.ir.naming.core import ClassName, NameRegistry, Origin, PyIdent, pascal, snake


@pytest.mark.parametrize(("raw", "expected"), [
    ("getWeather", "get_weather"), ("get-weather", "get_weather"), ("get.weather", "get_weather"),
    ("HTTPServer", "http_server"), ("already_snake", "already_snake"), ("ünïcode", "unicode"),
])
def test_snake(raw: str, expected: str) -> None:
    assert snake(raw) == expected


@pytest.mark.parametrize(("raw", "expected"), [
    ("get_weather", "GetWeather"), ("notes-v2", "NotesV2"), ("getWeather", "GetWeather"),
])
def test_pascal(raw: str, expected: str) -> None:
    assert pascal(raw) == expected


@pytest.mark.parametrize(("raw", "expected"), [
    ("class", "class_"), ("list", "list_"), ("match", "match_"), ("1st", "n1st"), ("", "x"),
    ("__init__", "init"), ("call_raw", "call_raw_"),
])
def test_pyident_is_safe(raw: str, expected: str) -> None:
    ident = PyIdent(raw, frozenset({"call_raw"}))
    assert ident == expected
    assert ident.isidentifier() and not keyword.iskeyword(ident)


def test_classname_avoids_builtins_and_reserved() -> None:
    assert ClassName("exception") == "ExceptionModel"
    assert ClassName("any", reserved=frozenset({"Any"})) == "AnyModel"
    assert ClassName("get_weather", "Input") == "GetWeatherInput"
    assert ClassName("client", reserved=frozenset({"Client"})) == "ClientModel"


def test_registry_reports_both_origins() -> None:
    reg = NameRegistry(frozenset({"TOOLS"}))
    first = Origin("a.yaml", "/tools/0", "tool 'get-user'")
    reg.claim("get_user", first)
    reg.claim("get_user", Origin("a.yaml", "/tools/1", "tool 'get_user'"))
    reg.claim("TOOLS", Origin("a.yaml", "/$defs/TOOLS", "$defs entry"))
    assert [c.name for c in reg.collisions] == ["get_user", "TOOLS"]
    assert reg.collisions[0].first == first
    assert "a.yaml#/tools/0" in str(reg.collisions[0].first)
