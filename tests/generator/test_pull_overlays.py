"""``pull --force`` keeps a spec's overlays (codegen/commands/pull/overlays.py): with the ``$defs``
they use, without those whose tool is gone or now has its own ``outputSchema``."""

from __future__ import annotations

from pathlib import Path

from codegen.commands.pull.overlays import keep_overlays, read_overlays

NOTE = {"type": "object", "properties": {"tag": {"$ref": "#/$defs/Tag"}}}
TAG = {"type": "string"}


def test_kept_with_the_defs_they_use_and_dropped_with_a_note() -> None:
    overlays = {"a": {"outputSchema": {"$ref": "#/$defs/Note"}}, "gone": {"outputSchema": {"type": "object"}},
                "typed": {"outputSchema": {"type": "object"}}}
    tools = [{"name": "a", "inputSchema": {}}, {"name": "typed", "inputSchema": {}, "outputSchema": {"type": "object"}}]
    shared: dict = {"Other": {"type": "integer"}}
    kept, notes = keep_overlays(overlays, {"Note": NOTE, "Tag": TAG, "Unused": {}}, tools, shared)
    assert kept == {"a": {"outputSchema": {"$ref": "#/$defs/Note"}}}
    assert shared == {"Other": {"type": "integer"}, "Note": NOTE, "Tag": TAG}  # Tag through Note; Unused not
    messages = [n.message for n in notes]
    assert messages == ["overlay for 'gone' dropped: the server no longer lists it",
                        "overlay for 'typed' dropped: the server now publishes its outputSchema"]


def test_a_def_the_server_now_defines_differently_keeps_the_servers_with_a_note() -> None:
    shared: dict = {"Note": {"type": "object"}}
    kept, notes = keep_overlays({"a": {"outputSchema": {"$ref": "#/$defs/Note"}}}, {"Note": NOTE},
                                [{"name": "a", "inputSchema": {}}], shared)
    assert kept and shared == {"Note": {"type": "object"}}
    assert ["$defs entry 'Note'" in n.message for n in notes] == [True]


def test_read_overlays_of_a_spec_without_them_or_unreadable(tmp_path: Path) -> None:
    spec = tmp_path / "s.yaml"
    spec.write_text("mcp-codegen: 1\ntools: []\n", "utf-8")
    assert read_overlays(spec) == ({}, {})
    spec.write_text("a: [\n", "utf-8")
    assert read_overlays(spec) == ({}, {})
    assert read_overlays(tmp_path / "missing.yaml") == ({}, {})
    spec.write_text("$defs: {N: {type: object}}\noverlays: {t: {outputSchema: {$ref: '#/$defs/N'}}}\n", "utf-8")
    assert read_overlays(spec) == ({"t": {"outputSchema": {"$ref": "#/$defs/N"}}}, {"N": {"type": "object"}})
