"""Diagnostics that say what to do in one round: the spec format's patterns in words, a
``required`` name that is a typo of a property (W113), the YAML flow-mapping comma trap
(W114), and every mistake of a spec in one run even when one entry is structurally broken."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from codegen import generate
from codegen.diagnostics import Diagnostic
from codegen.spec.patternwords import PATTERN_WORDS, pattern_words
from codegen.spec.validate import spec_format_schema


def _patterns(node: Any) -> set[str]:
    if isinstance(node, dict):
        found = {node["pattern"]} if isinstance(node.get("pattern"), str) else set()
        return found.union(*(_patterns(v) for k, v in node.items() if k != "pattern"))
    if isinstance(node, list):
        return set().union(*(_patterns(v) for v in node))
    return set()


def _diags(tmp_path: Path, text: str) -> list[Diagnostic]:
    spec = tmp_path / "spec.yaml"
    spec.write_text("mcp-codegen: 1\nserver: {name: hints, version: '1'}\n" + text, "utf-8")
    return generate([spec]).diagnostics


def test_every_pattern_of_the_spec_format_has_words() -> None:
    patterns = _patterns(spec_format_schema())
    assert patterns, "the spec format has patterns"
    assert sorted(patterns - PATTERN_WORDS.keys()) == []
    for pattern in patterns:  # words, not the regex again
        assert pattern not in pattern_words(pattern) and not re.search(r"[\^$\\]\W|\(\?", pattern_words(pattern))


@pytest.mark.parametrize(("entry", "pointer", "words"), [
    ("server: {name: hints, version: '1', package: Bad-Pkg}", "/server/package",
     "package 'Bad-Pkg' must start with a lowercase letter or _ and hold only lowercase letters, digits and _"),
    ("server: {name: hints, version: '1', class_name: lower}", "/server/class_name",
     "class_name 'lower' must start with an uppercase letter and hold only letters and digits"),
    ("tools: [{name: a, inputSchema: {type: object}, errors: {Bad-Code: {}}}]", "/tools/0/errors/Bad-Code",
     "a key of errors: 'Bad-Code' must start with a lowercase letter and hold only lowercase letters, digits and _"),
])
def test_a_pattern_mismatch_is_told_in_words(tmp_path: Path, entry: str, pointer: str, words: str) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text("mcp-codegen: 1\nserver: {name: hints, version: '1'}\ntools: []\n", "utf-8")
    text = spec.read_text("utf-8")
    key = entry.split(":", 1)[0]
    spec.write_text("\n".join(line for line in text.splitlines() if not line.startswith(key + ":")) + "\n" + entry + "\n")
    found = [d for d in generate([spec]).diagnostics if d.code == "E010"]
    assert [(d.pointer, d.message) for d in found] == [(pointer, words)]
    assert "^" not in found[0].render()


def test_a_required_name_that_is_a_typo_of_a_property_is_w113(tmp_path: Path) -> None:
    found = _diags(tmp_path, """tools:
  - name: file_issue
    description: File an issue.
    inputSchema:
      type: object
      properties:
        title: {type: string}
        reporter: {type: string}
        closed: {type: object, properties: {a: {type: string}}, required: [b], additionalProperties: false}
        open: {type: object, properties: {a: {type: string}}, required: [tenant]}
        patterned: {type: object, properties: {a: {type: string}}, patternProperties: {"^x-": {}}, required: [x-a]}
      required: [title, reportr]
""")
    w113 = {d.pointer: d for d in found if d.code == "W113"}
    assert sorted(w113) == ["/tools/0/inputSchema/properties/closed/required/0", "/tools/0/inputSchema/required/1"]
    assert w113["/tools/0/inputSchema/required/1"].hint == "did you mean 'reporter'?"
    assert "no call can pass" in w113["/tools/0/inputSchema/properties/closed/required/0"].message


def test_the_flow_mapping_comma_trap_is_w114_with_the_fix(tmp_path: Path) -> None:
    found = _diags(tmp_path, """tools:
  - name: who
    description: Who is it.
    inputSchema:
      type: object
      properties:
        user: {type: [string, "null"], description: Username, or null}
        quoted: {type: string, description: "Name, or none"}
        bounds: {type: integer, minimum: 1, maximum: 3}
        block:
          type: string
          description: Username, or null
""")
    w114 = [d for d in found if d.code == "W114"]
    assert [(d.pointer, d.line) for d in w114] == [("/tools/0/inputSchema/properties/user/or null", 9)]
    assert w114[0].hint == 'quote the text: description: "Username, or null"'


def test_a_broken_entry_does_not_hide_the_mistakes_of_the_others(tmp_path: Path) -> None:
    found = _diags(tmp_path, """tools:
  - name: broken
    task: sometimes
    inputSchema: {type: object, properties: {n: {type: integer, minimun: 1}}}
  - name: fine
    inputSchema: {type: object, properties: {n: {type: intger}}}
  - {inputSchema: {type: object}}
  - name: fine
    inputSchema: {type: object}
resourceTemplates:
  - {uriTemplate: "x://{id}", name: x, variables: {nope: {type: string}}}
""")
    codes = sorted((d.code, d.pointer) for d in found if d.is_error)
    assert codes == [
        ("E010", "/tools/0/task"),
        ("E010", "/tools/2"),  # no name
        ("E021", "/tools/3/name"),
        ("E023", "/tools/1/inputSchema/properties/n/type"),
        ("E029", "/tools/0/inputSchema/properties/n/minimun"),
        ("E082", "/resourceTemplates/0/variables/nope"),
    ]


def test_a_one_of_reports_the_error_of_the_branch_the_value_takes(tmp_path: Path) -> None:
    # server.env is a mapping or a list (oneOf): a mapping with a bad name used to give only
    # "... is not valid under any of the given schemas" for the whole mapping
    text = ('  env:\n    "A B": {description: space}\n    GOOD_ONE: {description: fine}\n    "1X": {description: digit}\n'
            'tools:\n  - {name: t, description: d, inputSchema: {type: object}}\n')
    spec = tmp_path / "spec.yaml"
    spec.write_text("mcp-codegen: 1\nserver:\n  name: hints\n  version: '1'\n" + text, "utf-8")
    diags = [d for d in generate([spec]).diagnostics if d.is_error]
    assert [(d.code, d.line, d.message) for d in diags] == [
        ("E010", 6, "a key of env: 'A B' must start with a letter or _ and hold only letters, digits and _"),
        ("E010", 8, "a key of env: '1X' must start with a letter or _ and hold only letters, digits and _"),
    ], [d.render() for d in diags]
    listed = tmp_path / "listed.yaml"  # the list form: the entry's own missing key
    listed.write_text("mcp-codegen: 1\nserver:\n  name: hints\n  version: '1'\n  env:\n    - {name: TOKEN}\n"
                      "tools:\n  - {name: t, description: d, inputSchema: {type: object}}\n", "utf-8")
    diags = [d for d in generate([listed]).diagnostics if d.is_error]
    assert [(d.code, d.message) for d in diags] == [("E010", "'description' is a required property")], \
        [d.render() for d in diags]


def test_a_value_of_no_accepted_type_names_the_forms_once(tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text("mcp-codegen: 1\nserver:\n  name: hints\n  version: '1'\n  env: 5\n"
                    "tools:\n  - {name: t, description: d, ui: 12, inputSchema: {type: object}}\n", "utf-8")
    diags = [d for d in generate([spec]).diagnostics if d.is_error]
    assert [(d.code, d.pointer, d.message) for d in diags] == [
        ("E010", "/server/env", "5 is not a mapping or a list"),
        ("E010", "/tools/0/ui", "12 is not a string or a mapping"),  # not also "is not of type 'object'"
    ], [d.render() for d in diags]


def test_icon_sources_clients_must_not_meet_are_refused(tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text("mcp-codegen: 1\nserver:\n  name: hints\n  version: '1'\n  icons: [{src: local.png}]\ntools:\n"
                    "  - name: t\n    description: d\n    inputSchema: {type: object}\n    icons:\n"
                    "      - {src: 'javascript:alert(1)'}\n      - {src: 'https://cdn.example/i.png'}\n"
                    "      - {src: 'data:image/png;base64,AAAA'}\n      - {src: 'data:text/html,<b>x</b>'}\n"
                    "      - {src: ../up/i.png}\n      - {src: 'file:///etc/passwd'}\n", "utf-8")
    found = [(d.code, d.pointer) for d in generate([spec]).diagnostics if d.code in ("E179", "W174")]
    assert found == [("E179", "/tools/0/icons/0/src"), ("E179", "/tools/0/icons/3/src"),
                     ("W174", "/tools/0/icons/4/src"), ("E179", "/tools/0/icons/5/src")]  # server.icons: a local PNG is fine


def test_a_ref_cycle_between_two_other_files_is_found(tmp_path: Path) -> None:
    # a.yaml X -> b.yaml Y -> a.yaml X: nothing of the spec's own $defs is in the cycle, and the
    # models generated from it used to fail only at run time (RootModel recursion)
    (tmp_path / "a.yaml").write_text('$defs:\n  X: {$ref: "b.yaml#/$defs/Y"}\n', "utf-8")
    (tmp_path / "b.yaml").write_text('$defs:\n  Y: {$ref: "a.yaml#/$defs/X"}\n', "utf-8")
    spec = tmp_path / "spec.yaml"
    spec.write_text("mcp-codegen: 1\nserver: {name: hints, version: '1'}\ntools:\n  - name: t\n    description: d\n"
                    "    inputSchema: {type: object, properties: {a: {$ref: 'a.yaml#/$defs/X'}}}\n", "utf-8")
    found = [d for d in generate([spec]).diagnostics if d.is_error]
    assert [(d.code, d.file.rsplit("/", 1)[-1], d.line, d.pointer) for d in found] == [("E027", "a.yaml", 2, "/$defs/X")], \
        [d.render() for d in found]
    chain = found[0].message.split("$ref cycle: ", 1)[1].split(" -> ")
    assert [link.rsplit("/", 3)[-3:] for link in chain] == [["a.yaml#", "$defs", "X"], ["b.yaml#", "$defs", "Y"],
                                                            ["a.yaml#", "$defs", "X"]], chain


def test_a_long_chain_of_ref_aliases_is_refused_once_and_fast(tmp_path: Path) -> None:
    # 3,000 schemas that are each only a $ref to the next: validation took minutes (each link walked
    # the rest of the chain) and the models recursed through all of them
    links = "".join(f"  A{i}: {{$ref: '#/$defs/A{i + 1}'}}\n" for i in range(3000))
    spec = tmp_path / "spec.yaml"
    spec.write_text("mcp-codegen: 1\nserver: {name: hints, version: '1'}\n$defs:\n" + links + "  A3000: {type: string}\n"
                    "tools:\n  - name: t\n    description: d\n"
                    "    inputSchema: {type: object, properties: {a: {$ref: '#/$defs/A0'}}}\n", "utf-8")
    found = [d for d in generate([spec]).diagnostics if d.is_error]
    assert [(d.code, d.pointer) for d in found] == [("E028", "/$defs/A0")], [d.render() for d in found[:3]]
    short = tmp_path / "short.yaml"  # a few aliases are fine
    short.write_text("mcp-codegen: 1\nserver: {name: short, version: '1'}\n$defs:\n  A: {$ref: '#/$defs/B'}\n"
                     "  B: {$ref: '#/$defs/C'}\n  C: {type: string}\ntools:\n  - name: t\n    description: d\n"
                     "    inputSchema: {type: object, properties: {a: {$ref: '#/$defs/A'}}}\n", "utf-8")
    assert not [d for d in generate([short]).diagnostics if d.is_error]


def test_a_list_where_a_mapping_goes_is_said_in_yaml_words(tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text("mcp-codegen: 1\nserver: {name: hints, version: '1'}\ntools:\n  echo: {description: x}\n"
                    "resources:\nprompts:\n  - {name: p, arguments: {a: 1}}\n", "utf-8")
    found = [(d.pointer, d.message, d.hint) for d in generate([spec]).diagnostics if d.code == "E010"]
    assert found == [
        ("/tools", "`tools` is a mapping, not a list", "write each entry as a list item starting with '- '"),
        ("/resources", "`resources` is empty (null), not a list",
         "write each entry as a list item starting with '- ' (or [] for none)"),
        ("/prompts/0/arguments", "`arguments` is a mapping, not a list", "write each entry as a list item starting with '- '"),
    ]


def test_yaml_true_false_and_null_are_named_as_written(tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text("mcp-codegen: 1\nserver: {name: hints, version: '1'}\ntools:\n"
                    "  - {name: t, description: d, inputSchema: {type: object}, task: true, title: ~}\n", "utf-8")
    found = sorted(d.message for d in generate([spec]).diagnostics if d.code == "E010")
    assert found == ["null is not of type 'string'", "true is not one of ['forbidden', 'optional', 'required']"]


def test_a_view_or_tool_set_aside_for_its_own_mistake_still_declares_or_links(tmp_path: Path) -> None:
    (tmp_path / "v.html").write_text("<!doctype html><html><body>v</body></html>\n", "utf-8")
    spec = tmp_path / "spec.yaml"
    spec.write_text("mcp-codegen: 1\nserver: {name: hints, version: '1'}\ntools:\n"
                    "  - {name: t, description: d, inputSchema: {type: object}, ui: 'ui://hints/a'}\n"
                    "  - {name: u, description: d, inputSchema: {type: object}, ui: {resourceUri: 'ui://hints/b', visibility: [user]}}\n"
                    "ui:\n  - {uri: 'ui://hints/a', name: a, html: v.html, permissions: [camera]}\n"
                    "  - {uri: 'ui://hints/b', name: b, html: v.html}\n", "utf-8")
    codes = sorted((d.code, d.pointer) for d in generate([spec]).diagnostics)
    assert codes == [("E010", "/tools/1/ui/visibility/0"), ("E010", "/ui/0/permissions")], codes  # no E186, no W176
