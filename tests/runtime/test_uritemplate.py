"""RFC 6570 templates in the runtime: parsing (what is refused and why), expansion and
matching (the inverse of expansion), with expected values written from the RFC's examples."""

from __future__ import annotations

import pytest
from mcp_codegen_runtime.wire.uritemplate import TemplateError, parse

VALUES = {"var": "value", "hello": "Hello World!", "path": "/foo/bar", "x": "1024", "y": "768"}


@pytest.mark.parametrize(("template", "expanded"), [
    ("{var}", "value"), ("{hello}", "Hello%20World%21"), ("{+hello}", "Hello%20World!"), ("{+path}/here", "/foo/bar/here"),
    ("{#path}", "#/foo/bar"), ("map?{x,y}", "map?1024,768"), ("{.var}", ".value"), ("{/var,x}", "/value/1024"),
    ("{;x,y}", ";x=1024;y=768"), ("{?x,y}", "?x=1024&y=768"), ("{var:3}", "val"),
])
def test_expansion_follows_rfc_6570(template: str, expanded: str) -> None:
    assert parse(template).expand(VALUES) == expanded


@pytest.mark.parametrize("template", ["test://template/{id}/data", "file:///{+path}{?rev,lang}", "x{.ext}", "/api{/a,b}",
                                      "mail/{user}@{host}", "s{;x,y}", "q{#frag}"])
@pytest.mark.parametrize("values", [{"id": "12", "path": "a/b c", "rev": "3", "lang": "en", "ext": "json", "a": "1",
                                     "b": "x y", "user": "ann", "host": "example.org", "x": "7", "y": "8", "frag": "top"}])
def test_match_inverts_expand(template: str, values: dict[str, str]) -> None:
    t = parse(template)
    mine = {k: v for k, v in values.items() if k in t.variables}
    assert t.match(t.expand(mine)) == mine


def test_match_refuses_other_uris() -> None:
    t = parse("test://template/{id}/data")
    assert t.match("test://template/123/data") == {"id": "123"}
    assert t.match("test://template/1/2/data") is None  # a simple variable cannot hold a '/'
    assert t.match("test://other/1/data") is None
    assert t.match("test://template/123/data/more") is None
    assert t.match("test://template/a%2Fb/data") == {"id": "a/b"}  # percent-escapes decoded
    q = parse("search{?q,page}")
    assert q.match("search?page=2&q=mcp") == {"q": "mcp", "page": "2"}
    assert q.match("search?q=1&other=2") is None  # an undeclared query variable
    assert q.match("search?q=1&q=2") is None  # given twice
    assert q.match("search?q=%FF") is None  # not UTF-8
    assert parse("x://{+p}").match("x://" + "a" * 9000) is None  # longer than MAX_URI


@pytest.mark.parametrize(("template", "why"), [
    ("x/{a*}", "explode"), ("x/{a", "unbalanced"), ("x/a}", "unbalanced"), ("{a}{a}", "twice"), ("{?q}/more", "follow"),
    ("{=a}", "reserved"), ("a b{x}", "spaces"), ("{}", "empty"), ("{a b}", "invalid variable"), ("{x:0}", "prefix"),
    ("x://{a}{b}", "no literal between"), ("x://{+a}/{+b}", "more than one reserved"), ("?fixed=yes{&x}", "literal '?'"),
])
def test_refused_templates_say_why(template: str, why: str) -> None:
    with pytest.raises(TemplateError, match=why):
        parse(template)
