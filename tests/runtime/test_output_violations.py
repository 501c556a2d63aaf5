"""What a client learns about a result that breaks its output schema: field paths and why,
never a value of the result, whichever check refused it (the output model, the original
schema through jsonschema, a pattern beside the model), capped in number and length."""

from __future__ import annotations

from typing import Any

import pytest
from mcp_codegen_runtime.schema.validation import OutputInvalid, dump_output
from mcp_codegen_runtime.schema.violations import MAX_TEXT, MAX_VIOLATIONS, redacted, scrub
from mcp_codegen_runtime.wire.errors import OutputValidationError, SchemaViolation
from mcp_codegen_runtime.wire.tools import ToolDef
from pydantic import BaseModel, RootModel

SECRET = "sk-live-51Hq8ZtR2xT9vQ"


class Reading(BaseModel):
    temperature: float
    station: str


class Readings(RootModel[list[Reading]]):
    pass


def _tool(schema: dict[str, Any], model: type[BaseModel], *, checked: bool = False) -> ToolDef:
    wire = {"name": "t", "inputSchema": {"type": "object"}, "outputSchema": schema}
    return ToolDef(name="t", method="t", wire=wire, input_model=BaseModel, output_model=model, schema_checked=checked)


def _refusal(tool: ToolDef, value: Any) -> OutputInvalid:
    with pytest.raises(OutputInvalid) as info:
        dump_output(tool, value)
    return info.value


READING = {"type": "object", "properties": {"temperature": {"type": "number"}, "station": {"type": "string"}},
           "required": ["temperature", "station"]}


def test_the_model_names_the_field_without_the_value() -> None:
    refusal = _refusal(_tool(READING, Reading), {"temperature": SECRET, "station": "x"})
    assert refusal.errors == [{"path": "temperature", "message": "Input should be a valid number"}]
    assert SECRET in str(refusal)  # the server log's view keeps the details


def test_nested_paths_and_missing_fields() -> None:
    schema = {"type": "array", "items": READING}
    refusal = _refusal(_tool(schema, Readings), [{"temperature": 1, "station": "a"}, {"temperature": SECRET}])
    assert refusal.errors == [{"path": "[1].temperature", "message": "Input should be a valid number"},
                              {"path": "[1].station", "message": "Field required"}]


def test_jsonschema_messages_lose_the_instance() -> None:
    schema = {**READING, "properties": {**READING["properties"], "station": {"type": "string", "maxLength": 3}},
              "oneOf": [{"required": ["temperature"]}, {"required": ["station"]}]}
    refusal = _refusal(_tool(schema, Reading, checked=True), {"temperature": SECRET, "station": SECRET + "!"})
    assert SECRET in str(refusal)
    paths = [e["path"] for e in refusal.errors]
    assert "temperature" in paths and "station" in paths, refusal.errors
    assert {"path": "temperature", "message": "value is not of type 'number'"} in refusal.errors
    assert {"path": "station", "message": "value is too long"} in refusal.errors
    for error in refusal.errors:
        assert SECRET not in error["message"] and "sk-live" not in error["message"], error


def test_a_pattern_beside_the_model_does_not_quote_the_string() -> None:
    schema = {"type": "object", "properties": {"temperature": {"type": "number"},
                                               "station": {"type": "string", "pattern": "^[A-Z]{4}$"}},
              "required": ["temperature", "station"]}
    refusal = _refusal(_tool(schema, Reading), {"temperature": 1.5, "station": SECRET})
    assert refusal.errors == [{"path": "station", "message": "value does not match '^[A-Z]{4}$'"}]


def test_wrong_kinds_of_result() -> None:
    class Other(BaseModel):
        x: int = 1

    assert _refusal(_tool(READING, Reading), Other()).errors == [
        {"path": "", "message": "not an instance of the output model Reading"}]
    refusal = _refusal(_tool(READING, Reading), {"temperature": float("nan"), "station": SECRET})
    assert [e["path"] for e in refusal.errors] == [""] and SECRET not in refusal.errors[0]["message"]


def test_scrub_cuts_every_string_of_the_value_and_caps() -> None:
    assert scrub(f"{SECRET!r} is bad, and so is {SECRET}", [SECRET]) == "value is bad, and so is …"
    assert scrub('got "hunter22" here', ["hunter22"]) == "got value here"
    assert scrub("Input should be a valid number", ["a", "valid"]) == "Input should be a valid number"  # bare: 8+ chars
    many = [{"path": "p" * 500, "message": "m" * 500} for _ in range(50)]
    out = redacted(many, {})
    assert len(out) == MAX_VIOLATIONS and all(len(e["path"]) == len(e["message"]) == MAX_TEXT for e in out)


def test_the_client_exception_exposes_typed_records() -> None:
    exc = OutputValidationError("Internal error: tool t produced an invalid result",
                                data={"code": "mcp-codegen.invalid_output",
                                      "errors": [{"path": "temperature", "message": "Input should be a valid number"},
                                                 {"path": "", "message": "whole"}, {"bogus": 1}, "nope"]})
    assert exc.errors == [SchemaViolation("temperature", "Input should be a valid number"), SchemaViolation("", "whole")]
    assert str(exc) == ("Internal error: tool t produced an invalid result "
                        "(temperature: Input should be a valid number; whole)")
    assert str(OutputValidationError("plain")) == "plain" and OutputValidationError("plain").errors == []
