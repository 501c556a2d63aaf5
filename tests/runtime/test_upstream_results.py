"""The upstream's answers become tool results as the contract says: JSON as structuredContent
(wrapped when not an object) checked against the outputSchema (a mismatch is a tool error naming
the paths, never an internal error), text, XML, image, audio, embedded blobs, empty answers,
declared errors by status (exact, range, default) with ``{"status", "body"}``, plain upstream
errors, retries of idempotent methods only, Retry-After, timeouts and refused connections."""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from common_support import free_port
from pydantic import BaseModel
from rest_upstream_app import PNG, WAV
from upstream_support import (
    DeclaredNotFound,
    DeclaredServerError,
    call,
    error_of,
    server_class,
    start_app,
    stats,
    tool,
)


class Pet(BaseModel):
    id: int
    name: str
    tags: list[str] = []


class Numbers(BaseModel):
    result: list[int]


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with start_app() as url:
        yield url


def _call(base: str, path: str, *, method: str = "GET", upstream: dict[str, Any] | None = None,
          **options: Any) -> dict[str, Any]:
    binding = {"method": method, "path": path, **options.pop("binding", {})}
    definition = tool("t", binding, **options)
    return call(server_class({"baseUrl": base, **(upstream or {})}, [definition])(), "t")


ERRORS = {"not_found": DeclaredNotFound, "server_error": DeclaredServerError}


# ------------------------------------------------------------------ success
def test_json_object_with_output_schema(base: str) -> None:
    result = _call(base, "/json/object", output=Pet)
    assert result["structuredContent"] == {"id": 7, "name": "Rex", "tags": ["good"]}
    assert json.loads(result["content"][0]["text"]) == {"id": 7, "name": "Rex", "tags": ["good"]}
    assert "isError" not in result


def test_json_array_wrapped(base: str) -> None:
    result = _call(base, "/json/array", output=Numbers, binding={"wrap": "result"})
    assert result["structuredContent"] == {"result": [1, 2, 3]}


def test_json_without_output_schema_is_text(base: str) -> None:
    result = _call(base, "/json/vendor")
    assert result["content"] == [{"type": "text", "text": '{"id": 8, "name": "Vendor"}'}]
    assert "structuredContent" not in result


def test_answer_breaking_the_schema_is_a_tool_error(base: str) -> None:
    result = _call(base, "/json/wrong", output=Pet)
    message, code, data = error_of(result)
    assert code == "mcp-codegen.upstream"
    assert message == ("the upstream's answer does not match the documented response schema: "
                       "id: Input should be a valid integer")
    assert data == {"status": 200, "errors": [
        {"path": "id", "message": "Input should be a valid integer"}]}
    assert "seven" not in json.dumps(result)


def test_textual_answers(base: str) -> None:
    assert _call(base, "/xml")["content"] == [{"type": "text", "text": "<pet><id>7</id></pet>"}]
    assert _call(base, "/text")["content"] == [{"type": "text", "text": "caf\u00e9 is open"}]


def test_image_audio_and_blob(base: str) -> None:
    assert _call(base, "/image.png")["content"] == [
        {"type": "image", "data": base64.b64encode(PNG).decode(), "mimeType": "image/png"}]
    assert _call(base, "/audio")["content"] == [
        {"type": "audio", "data": base64.b64encode(WAV).decode(), "mimeType": "audio/wav"}]
    result = _call(base.replace("http://", "http://user:pw@"), "/octet",
                   binding={"fixed": [{"in": "query", "name": "k", "value": "v"}]})
    assert result["content"] == [{"type": "resource", "resource": {
        "uri": f"{base}/octet", "mimeType": "application/octet-stream", "blob": base64.b64encode(b"\x00\x01\x02\xff").decode()}}]


def test_empty_answer(base: str) -> None:
    assert _call(base, "/empty", method="DELETE")["content"] == []
    message, code, data = error_of(_call(base, "/empty", method="DELETE", output=Pet))
    assert message == "the upstream answered HTTP 204 with no body, but the tool's result is documented to hold one"
    assert (code, data) == ("mcp-codegen.upstream", {"status": 204})


def test_non_json_answer_for_a_structured_tool(base: str) -> None:
    message, code, _ = error_of(_call(base, "/text", output=Pet))
    assert message == "the upstream answered text/plain, not the JSON the tool's result is documented to be"


# ------------------------------------------------------------------ errors
def test_declared_error_by_exact_status(base: str) -> None:
    result = _call(base, "/missing", binding={"errors": {"404": "not_found", "5XX": "server_error"}}, errors=ERRORS)
    message, code, data = error_of(result)
    assert (message, code) == ("Not Found (HTTP 404)", "not_found")
    assert data == {"status": 404, "body": {"type": "about:blank", "title": "Not Found", "status": 404,
                                            "detail": "no pet 9"}}


def test_declared_error_by_range_and_default(base: str) -> None:
    errors = {"404": "not_found", "5XX": "server_error"}
    message, code, data = error_of(_call(base, "/boom", binding={"errors": errors}, errors=ERRORS))
    assert (message, code, data) == ("Internal Server Error (HTTP 500)", "server_error",
                                     {"status": 500, "body": "internal trouble"})
    message, code, data = error_of(_call(base, "/teapot", binding={"errors": {"default": "server_error"}},
                                         errors=ERRORS))
    assert (code, data) == ("server_error", {"status": 418, "body": "short and stout"})
    assert message.endswith(" (HTTP 418)")


def test_undeclared_error_is_a_plain_upstream_error(base: str) -> None:
    message, code, data = error_of(_call(base, "/boom", binding={"errors": {"404": "not_found"}}, errors=ERRORS))
    assert (message, code, data) == ("the upstream answered HTTP 500 Internal Server Error", "mcp-codegen.upstream",
                                     {"status": 500, "body": "internal trouble"})


# ------------------------------------------------------------------ retries and failures
def test_503_is_retried_for_get_only(base: str) -> None:
    assert json.loads(_call(base, "/flaky/get")["content"][0]["text"]) == {"attempts": 2}
    message, code, data = error_of(_call(base, "/flaky/post", method="POST"))
    assert (message, data) == ("the upstream answered HTTP 503 Service Unavailable",
                               {"status": 503, "body": {"error": "busy"}})
    assert stats(base)["flaky/post"] == 1
    error_of(_call(base, "/flaky/none", upstream={"retries": 0}))
    assert stats(base)["flaky/none"] == 1


def test_429_waits_a_short_retry_after_only(base: str) -> None:
    start = time.monotonic()
    assert json.loads(_call(base, "/limited/a")["content"][0]["text"]) == {"attempts": 2}
    assert time.monotonic() - start >= 0.9
    _, _, data = error_of(_call(base, "/limited-long/a"))
    assert data["status"] == 429
    assert stats(base)["limited-long/a"] == 1


def test_timeout_after_retries(base: str) -> None:
    message, code, data = error_of(_call(base, "/slow", upstream={"timeout": 0.4, "retries": 1}))
    assert (message, code, data) == ("the upstream did not answer: timeout (ReadTimeout)", "mcp-codegen.upstream", None)
    assert stats(base)["slow"] == 2


def test_connection_refused() -> None:
    dead = f"http://127.0.0.1:{free_port()}"
    message, code, _ = error_of(_call(dead, "/x", upstream={"retries": 1}))
    assert (message, code) == ("the upstream did not answer: connection failed (ConnectError)", "mcp-codegen.upstream")


def test_a_result_changed_after_the_upstream_call_is_checked_again(base: str) -> None:
    """The upstream's answer is checked once and sent as made; a subclass handler that edits what
    ``super()`` returned gets its edit checked as any handler's result (an invalid one is -32603)."""
    definition = tool("t", {"method": "GET", "path": "/json/object"}, output=Pet)
    base_class = server_class({"baseUrl": base}, [definition])

    class Edited(base_class):  # type: ignore[valid-type, misc]
        async def t(self, args: Any, ctx: Any) -> Any:
            result = await super().t(args, ctx)
            result.structuredContent[self.field] = self.value
            return result

    Edited.field, Edited.value = "name", "Max"
    assert call(Edited(), "t")["structuredContent"] == {"id": 7, "name": "Max", "tags": ["good"]}
    Edited.field, Edited.value = "id", "seven"
    refused = call(Edited(), "t")["error"]
    assert refused["code"] == -32603, refused
    assert refused["data"]["errors"] == [{"path": "id", "message": "Input should be a valid integer"}]
