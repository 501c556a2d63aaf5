"""models.py says exactly the schema (issue 28 point 4): a defaulted field that refuses null
is not ``X | None``, and the titles that only name classes are not written as ``Field(title=...)``."""

from __future__ import annotations

from codegen.models.generate import run_dcg

DOC = {"$defs": {"Order": {
    "title": "Order", "type": "object", "required": ["unit"],
    "properties": {
        "gift": {"type": "boolean", "default": False},
        "count": {"type": ["integer", "null"], "default": 3},
        "note": {"type": "string"},
        "unit": {"title": "OrderUnit", "enum": ["a", "b"]},
        "box": {"title": "OrderBox", "type": "object", "properties": {"n": {"type": "integer"}}},
    },
}}}


def test_defaulted_non_nullable_field_is_not_optional() -> None:
    source = run_dcg(DOC)
    assert "    gift: bool = False\n" in source
    assert "    count: int | None = 3\n" in source  # the schema allows null: still said
    assert "    note: str | None = None\n" in source  # absent allowed: None stands for "left out"


def test_no_field_titles_but_the_class_names_stay() -> None:
    source = run_dcg(DOC)
    assert "title=" not in source
    assert "class OrderUnit(" in source and "class OrderBox(BaseModel)" in source
    assert "    unit: OrderUnit\n" in source
    assert source.endswith("    box: OrderBox | None = None")
    assert "Field" not in source  # nothing left to import it for
