"""mcp-codegen docs: golden Markdown pages and llms.txt, Markdown escaping, the CLI command."""

from __future__ import annotations

import difflib
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from codegen.commands.cli.main import app
from codegen.commands.docs import build_docs
from codegen.render.docs import DOCS_MANIFEST
from codegen.render.markdown import md_cell, md_code, md_text

CASES = Path(__file__).parent / "docs"
UPDATE = "pytest tests/generator/golden/test_docs.py --update-goldens"


def _generated(case: Path) -> dict[str, str]:
    files, diags = build_docs([case / "specs"])
    assert files, "\n".join(d.render() for d in diags)
    return {f.path: f.content for f in files}


@pytest.mark.parametrize("case", sorted(p.name for p in CASES.iterdir() if p.is_dir()))
def test_docs_golden(case: str, update_goldens: bool) -> None:
    got = _generated(CASES / case)
    expected = CASES / case / "expected"
    if update_goldens:
        shutil.rmtree(expected, ignore_errors=True)
        expected.mkdir()
        for rel, text in got.items():
            (expected / rel).write_text(text, encoding="utf-8", newline="\n")
    want = {p.name: p.read_text("utf-8") for p in sorted(expected.iterdir()) if p.is_file()}
    assert sorted(got) == sorted(want), f"file set differs; review and run `{UPDATE}`"
    for rel in sorted(got):
        if got[rel] != want[rel]:
            diff = "".join(difflib.unified_diff(want[rel].splitlines(True), got[rel].splitlines(True), f"expected/{rel}", f"generated/{rel}"))
            pytest.fail(f"{case}: {rel} differs (review, then `{UPDATE}`):\n{diff}")


def _cells(line: str) -> int:
    """Cells of a GFM table row: split on pipes not escaped by a backslash."""
    return len(re.findall(r"(?<!\\)\|", line)) - 1


def test_tables_keep_their_shape_with_hostile_text() -> None:
    page = _generated(CASES / "escaping")["tricky.md"]
    tables = [block for block in re.split(r"\n\n", page) if block.startswith("| ")]
    assert len(tables) >= 3
    for block in tables:
        lines = block.splitlines()
        assert all(_cells(line) == _cells(lines[0]) for line in lines), block
    assert "<script>" not in page and "<img" not in page and "<b>" not in page
    assert "pipe \\| in<br>name and text" in page


def test_docs_are_inert() -> None:
    """No raw HTML and no script-bearing link destinations, in the pages or in llms.txt
    (code spans are literal text in Markdown, so HTML inside them is inert and kept)."""
    got = _generated(CASES / "inert")
    for rel, text in got.items():
        prose = re.sub(r"(`+).*?\1", "", text)  # code spans render literally
        assert "<img" not in prose and "<script" not in prose and "<iframe" not in prose, rel
        assert not re.search(r"\]\(\s*(javascript|data|vbscript):", prose, re.I), rel
        assert not re.search(r"(?im)^\s*\[[^\]]+\]:\s*(javascript|data|vbscript):", prose), rel
    assert "<img" not in got["llms.txt"] and "javascript:" not in got["llms.txt"].lower()
    assert "[ok](https://example.com)" in got["inert.md"]  # ordinary links stay links


def test_escaping_helpers() -> None:
    assert md_cell("a | b\nc") == "a \\| b<br>c"
    assert md_cell("<x> & y") == "&lt;x&gt; &amp; y"
    assert md_text("keep *this*\n<b>") == "keep *this*\n&lt;b&gt;"
    assert md_code("plain") == "`plain`"
    assert md_code("a`b") == "``a`b``"
    assert md_code("`edge`") == "`` `edge` ``"
    assert md_code("x|y") == "`x\\|y`" and md_code("x|y", cell=False) == "`x|y`"
    assert md_code("two\nlines") == "`two lines`"
    assert md_code("") == ""


def test_reference_content() -> None:
    got = _generated(CASES / "reference")
    page = got["shop.md"]
    assert "| `filter.max_price` | `Money` | no |" in page  # nested object flattened, $ref named
    assert "| `items[].sku` | `string` | yes |" in page  # array of inline objects flattened
    assert '"query": "red shoes"' in page and '"limit": 10' in page  # examples and defaults
    assert '"sku": "A-1",\n  "quantity": 2' in page  # the schema's own examples win
    assert "| `out_of_stock` | `OutOfStockError` | Not enough items in stock. |" in page
    assert "| `confirm` | `elicitation/create` | Place this order? |" in page
    assert '<a id="type-money"></a>' in page and "One of: `\"active\"`, `\"discontinued\"`." in page
    llms = got["llms.txt"]
    assert llms.startswith("# Shop\n\n> Browse and order products.\n")
    assert "- [order](shop.md#tool-order): Place an order: Order one product. Arguments: sku, quantity, note?." in llms


runner = CliRunner()


def test_cli_docs_write_check_and_ownership(tmp_path: Path) -> None:
    out = tmp_path / "docs"
    specs = str(CASES / "reference" / "specs")
    res = runner.invoke(app, ["docs", specs, "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert sorted(p.name for p in out.iterdir()) == sorted([DOCS_MANIFEST, "llms.txt", "shop.md"])
    assert runner.invoke(app, ["docs", specs, "-o", str(out), "--check"]).exit_code == 0
    (out / "shop.md").write_text((out / "shop.md").read_text() + "edit\n")
    drift = runner.invoke(app, ["docs", specs, "-o", str(out), "--check"])
    assert drift.exit_code == 1 and "-edit" in drift.output
    assert runner.invoke(app, ["docs", specs, "-o", str(out)]).exit_code == 0  # regenerates its own files
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "llms.txt").write_text("my own\n")
    refused = runner.invoke(app, ["docs", specs, "-o", str(mine)])
    assert refused.exit_code == 1 and "E041" in refused.output
    assert (mine / "llms.txt").read_text() == "my own\n"


def test_ui_views_are_listed_with_the_tools_shown_in_them() -> None:
    page = _generated(CASES / "apps")["board.md"]
    views = page.split("## UI views (MCP Apps)", 1)[1].split("\n\n<a id=", 1)[0]
    rows = [line for line in views.splitlines() if line.startswith("| `ui://")]
    assert len(rows) == 1 and _cells(rows[0]) == 4, views
    assert "`show_board`, `move_card`" in rows[0] and "plain_tool" not in rows[0]
    assert "<script>" not in page and "<b>" not in page
    assert "`ui://board/main` (visible to: app)." in page.split('<a id="tool-move_card">', 1)[1]
    assert "UI view" not in page.split('<a id="tool-plain_tool">', 1)[1]
