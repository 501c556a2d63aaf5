"""Unit tests of spec loading: positions, YAML quirks, JSON errors."""

from __future__ import annotations

from pathlib import Path

from codegen.spec.load import load_spec_file


def test_positions_point_at_values(tmp_path: Path) -> None:
    spec = tmp_path / "s.yaml"
    spec.write_text("a: 1\nb:\n  c: [x, {d: 2}]\n")
    doc, diags = load_spec_file(spec)
    assert doc is not None and diags == []
    assert doc.positions["/b/c/1/d"] == (3, 14)
    assert doc.locate("/b/c/1/missing/deeper") == (3, 10)


def test_yaml_timestamps_and_odd_scalars_stay_json(tmp_path: Path) -> None:
    spec = tmp_path / "s.yaml"
    spec.write_text("when: 2024-01-02\nnan: .nan\nnum: 1.5\nflag: yes\n")
    doc, diags = load_spec_file(spec, "s.yaml")
    assert doc is not None
    assert doc.data == {"when": "2024-01-02", "nan": "NaN", "num": 1.5, "flag": True}
    assert [(d.code, d.line, d.pointer, d.message) for d in diags] == [("E007", 2, "/nan", "NaN is not a JSON number")]


def test_numbers_json_cannot_carry_are_located_errors_not_tracebacks(tmp_path: Path) -> None:
    spec = tmp_path / "s.json"  # json.loads takes NaN and Infinity, and reads 1e400 as an infinity
    spec.write_text('{"a": NaN,\n "b": [1, -Infinity],\n "c": {"d": 1e400}}')
    doc, diags = load_spec_file(spec, "s.json")
    assert doc is not None and doc.data == {"a": "NaN", "b": [1, "-Infinity"], "c": {"d": "Infinity"}}
    assert [(d.code, d.line, d.pointer) for d in diags] == [("E007", 1, "/a"), ("E007", 2, "/b/1"), ("E007", 3, "/c/d")]
    yml = tmp_path / "s.yaml"
    yml.write_text("x: [.inf, -.Inf]\n")
    _, diags = load_spec_file(yml, "s.yaml")
    assert [(d.code, d.pointer, d.message) for d in diags] == [
        ("E007", "/x/0", "Infinity is not a JSON number"), ("E007", "/x/1", "-Infinity is not a JSON number")]


def test_yaml_words_for_true_false_and_null_as_keys_or_list_items_are_flagged(tmp_path: Path) -> None:
    spec = tmp_path / "s.yaml"
    spec.write_text('props:\n  on: 1\n  "no": 2\n  ~: 3\n  true: 4\nenum: [no, "yes", off, false, x]\nflag: yes\n')
    doc, diags = load_spec_file(spec, "s.yaml")
    assert doc is not None and doc.data == {"props": {"true": 4, "no": 2, "null": 3},
                                            "enum": [False, "yes", False, False, "x"], "flag": True}
    assert [(d.code, d.line, d.pointer, d.message) for d in diags] == [
        ("W115", 2, "/props/true", "key 'on' is read by YAML as the boolean true, so the key is 'true'"),
        ("W115", 4, "/props/null", "key '~' is read by YAML as null, so the key is 'null'"),
        ("E003", 5, "/props/true", "duplicate key 'true'"),
        ("W115", 6, "/enum/0", "list item 'no' is read by YAML as the boolean false"),
        ("W115", 6, "/enum/2", "list item 'off' is read by YAML as the boolean false"),
    ]
    assert all(d.hint.startswith("quote it if you meant the text") for d in diags if d.code == "W115")


def test_duplicate_keys_are_reported_with_position(tmp_path: Path) -> None:
    spec = tmp_path / "s.yaml"
    spec.write_text("a: 1\nb: 2\na: 3\n")
    doc, diags = load_spec_file(spec, "s.yaml")
    assert [(d.code, d.line, d.col) for d in diags] == [("E003", 3, 1)]


def test_json_syntax_error_has_line_and_column(tmp_path: Path) -> None:
    spec = tmp_path / "s.json"
    spec.write_text('{\n  "a": 1,\n  "b": }\n')
    doc, diags = load_spec_file(spec, "s.json")
    assert doc is None
    assert [(d.code, d.line, d.col) for d in diags] == [("E002", 3, 8)]


def test_unreadable_file(tmp_path: Path) -> None:
    spec = tmp_path / "s.yaml"
    spec.write_bytes(b"\xff\xfe\x00bad")
    doc, diags = load_spec_file(spec)
    assert doc is None and diags[0].code == "E001"


JSON_SPEC = """{
  "mcp-codegen": 1,
  "server": {"name": "demo", "version": "1.0.0"},
  "tools": [
    {"name": "a",
     "inputSchema": {"type": "object",
                     "properties": {"x": {"type": "strin"}}}}
  ]
}
"""


def test_json_positions_are_read_when_first_asked(tmp_path: Path) -> None:
    spec = tmp_path / "s.json"
    spec.write_text(JSON_SPEC)
    doc, diags = load_spec_file(spec, "s.json")
    assert doc is not None and diags == []
    assert doc._unread is not None  # nothing asked yet: the text was not read for positions
    assert doc.data["tools"][0]["inputSchema"]["properties"]["x"] == {"type": "strin"}
    assert doc.locate("/tools/0/inputSchema/properties/x/type") == (7, 51)
    assert doc.positions["/tools/0/name"] == (5, 14)
    assert doc._unread is None


def test_json_with_a_repeated_key_is_reported_where_it_repeats(tmp_path: Path) -> None:
    spec = tmp_path / "s.json"
    spec.write_text('{"a": 1,\n "b": {"c": 1,\n       "c": 2}}\n')
    doc, diags = load_spec_file(spec, "s.json")
    assert [(d.code, d.line, d.col) for d in diags] == [("E003", 3, 8)]
    assert doc is not None and doc.data == {"a": 1, "b": {"c": 2}}


def test_json_too_deep_is_refused_with_its_position(tmp_path: Path) -> None:
    spec = tmp_path / "s.json"
    spec.write_text('{"a":\n' + "[" * 300 + "]" * 300 + "}")
    doc, diags = load_spec_file(spec, "s.json")
    assert doc is None and [(d.code, d.line) for d in diags] == [("E028", 2)]


def test_a_json_spec_error_names_its_line(tmp_path: Path) -> None:
    from codegen.spec.validate import validate

    spec = tmp_path / "s.json"
    spec.write_text(JSON_SPEC)
    doc, _ = load_spec_file(spec, "s.json")
    assert doc is not None
    _, _, diags = validate(doc)
    assert [(d.code, d.line) for d in diags if d.is_error] == [("E023", 7)]


def test_json_nesting_limit_is_the_scans_on_both_sides_of_it(tmp_path: Path) -> None:
    from codegen.spec.load import MAX_DOCUMENT_DEPTH

    spec = tmp_path / "s.json"
    for nesting, refused in ((MAX_DOCUMENT_DEPTH - 1, False), (MAX_DOCUMENT_DEPTH, False), (MAX_DOCUMENT_DEPTH + 1, True)):
        spec.write_text("[" * nesting + "]" * nesting)
        doc, diags = load_spec_file(spec, "s.json")
        assert [d.code for d in diags] == (["E028"] if refused else []), nesting
        assert (doc is None) is refused


def test_yaml_syntax_errors_say_what_to_write(tmp_path: Path) -> None:
    cases = {
        "mcp-codegen: 1\nserver:\n\tname: x\n": ((3, 1), "indent with spaces"),
        "a:\n  b: Note: this breaks\n": ((2, 10), "quote the text"),
        "a: 1\n---\nb: 2\n": ((2, 1), "remove the second '---'"),
        'a: 1\nb: "x\x01y"\n': ((2, 6), "control character"),
    }
    for text, ((line, col), words) in cases.items():
        spec = tmp_path / "s.yaml"
        spec.write_text(text, "utf-8")
        doc, diags = load_spec_file(spec, "s.yaml")
        assert doc is None and [(d.code, d.line, d.col) for d in diags] == [("E002", line, col)], (text, diags)
        assert words in diags[0].hint, (text, diags[0].hint)
