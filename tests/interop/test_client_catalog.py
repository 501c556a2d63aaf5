"""The client's resources / prompts / completions API (every generated client inherits it):
against our generated ``everything`` server in one process, both eras, and against the real npm
``@modelcontextprotocol/server-everything`` over stdio."""

from __future__ import annotations

import asyncio
import base64
from dataclasses import replace

import pytest
from common_support import run_async
from everything import EverythingSyncClient
from everything_impl import EverythingService
from mcp_codegen_runtime.client import ClientBase
from mcp_codegen_runtime.wire import errors as E
from mcp_codegen_runtime.wire.content import BlobResourceContents, ImageContent, TextContent, TextResourceContents
from pull_support import npm_servers


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_catalog_api_against_the_generated_server(era: str) -> None:
    async def main() -> None:
        async with ClientBase.in_process(EverythingService(), era=era, audit=None) as c:  # type: ignore[arg-type]
            assert [r.uri for r in await c.list_resources()] == ["test://static-text", "test://watched-resource",
                                                                    "test://static-binary",  # then each SKILL.md
                                                                    "skill://pdf-processing/SKILL.md",
                                                                    "skill://release-notes/SKILL.md"]
            assert [t.uri_template for t in await c.list_resource_templates()] == ["test://template/{id}/data"]
            names = [p.name for p in await c.list_prompts()]
            assert names == ["test_simple_prompt", "test_prompt_with_arguments", "test_prompt_with_embedded_resource",
                             "test_prompt_with_image", "test_input_required_result_prompt"]
            [text] = await c.read_resource("test://static-text")
            assert isinstance(text, TextResourceContents) and text.text == "This is the content of the static text resource."
            [blob] = await c.read_resource("test://static-binary")
            assert isinstance(blob, BlobResourceContents) and base64.b64decode(blob.blob).startswith(b"\x89PNG")
            [data] = await c.read_resource("test://template/123/data")
            assert isinstance(data, TextResourceContents) and '"Data for ID: 123"' in data.text
            with pytest.raises(E.ResourceNotFoundError) as missing:  # -32002 (2025) or -32602 + data.uri (2026)
                await c.read_resource("test://nope")
            assert missing.value.data == {"uri": "test://nope"}
            prompt = await c.get_prompt("test_prompt_with_arguments", {"arg1": "hello", "arg2": "world"})
            assert isinstance(prompt.messages[0].content, TextContent)
            assert prompt.messages[0].content.text == "Prompt with arguments: arg1='hello', arg2='world'"
            image = await c.get_prompt("test_prompt_with_image")
            assert isinstance(image.messages[0].content, ImageContent)
            with pytest.raises(E.InvalidParamsError):
                await c.get_prompt("test_prompt_with_arguments", {"arg1": "only one"})
            done = await c.complete({"type": "ref/prompt", "name": "test_prompt_with_arguments"}, "arg1", "par")
            assert done.values == ["paris", "park", "party"] and done.total == 3 and done.hasMore is False

    run_async(main())


def test_sync_client_has_the_same_api() -> None:
    with EverythingSyncClient.in_process(EverythingService(), audit=None) as c:
        assert len(c.list_resources()) == 5 and len(c.list_prompts()) == 5  # 3 resources and 2 SKILL.md
        assert c.read_resource("test://static-text")[0].uri == "test://static-text"
        assert c.get_prompt("test_simple_prompt").messages[0].role == "user"
        assert c.complete({"type": "ref/resource", "uri": "test://template/{id}/data"}, "id", "12").values == ["12", "123"]


def test_catalog_api_against_the_npm_everything_server() -> None:
    command = npm_servers()["everything"]

    async def main() -> None:
        async with ClientBase.stdio(command[0], command[1:], stderr="capture", audit=None) as c:
            resources = await c.list_resources()
            assert resources and all(r.uri and r.name for r in resources)
            first = resources[0].uri
            contents = await c.read_resource(first)
            assert contents and contents[0].uri == first
            templates = await c.list_resource_templates()
            assert templates and all(t.uri_template for t in templates)
            prompts = await c.list_prompts()
            simple = next(p for p in prompts if not any(a.required for a in p.arguments or []))
            result = await c.get_prompt(simple.name)
            assert result.messages and result.messages[0].role in ("user", "assistant")

    asyncio.run(asyncio.wait_for(main(), 120))


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_a_prompt_that_asks_the_user_first(era: str) -> None:
    """2026: prompts/get answers input_required and the client retries with the answer
    (SEP-2322); legacy: the server sends elicitation/create during the request."""
    from everything import ElicitationRequest, ElicitationResponse

    asked: list[str] = []

    def elicit(request: ElicitationRequest) -> ElicitationResponse:
        asked.append(request.message)
        return ElicitationResponse(action="accept", content={"context": "the garden"})

    async def main() -> None:
        async with ClientBase.in_process(EverythingService(), era=era, audit=None, elicitation=elicit) as c:  # type: ignore[arg-type]
            result = await c.get_prompt("test_input_required_result_prompt")
            assert isinstance(result.messages[0].content, TextContent)
            assert result.messages[0].content.text == "Prompt with context: the garden"

    run_async(main())
    assert asked == ["What context should the prompt use?"]


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_subscriptions_over_http(era: str) -> None:
    """Legacy: resources/subscribe, the update comes on the GET stream (opened for it); 2026: a
    subscriptions/listen POST whose SSE stream carries the acknowledgement and the updates."""
    from http_support import serve_app

    server = EverythingService()
    with serve_app(server.asgi_app()) as url:
        async def main() -> None:
            async with ClientBase.http(url, era=era, audit=None) as c:
                async with c.subscribe("test://watched-resource", prompts=True) as changes:
                    server.resource_updated("test://watched-resource")  # from this thread: thread-safe
                    change = await asyncio.wait_for(changes.__anext__(), 10)
                    assert (change.kind, change.uri) == ("updated", "test://watched-resource")
                    server.disable_prompt("test_simple_prompt")
                    change = await asyncio.wait_for(changes.__anext__(), 10)
                    assert change.kind == "prompts"

        asyncio.run(asyncio.wait_for(main(), 60))


def test_subscription_against_the_npm_everything_server() -> None:
    """The reference server sends notifications/resources/updated for subscribed URIs once its
    toggle-subscriber-updates tool is on (at once, then every 5 s)."""
    command = npm_servers()["everything"]

    async def main() -> None:
        async with ClientBase.stdio(command[0], command[1:], stderr="capture", audit=None) as c:
            uri = (await c.list_resources())[0].uri
            async with c.subscribe(uri) as changes:
                await c.call_tool("toggle-subscriber-updates", {})
                change = await asyncio.wait_for(changes.__anext__(), 15)
                assert (change.kind, change.uri) == ("updated", uri)

    asyncio.run(asyncio.wait_for(main(), 120))


def test_check_compat_covers_resources_templates_and_prompts() -> None:
    from everything import CatalogChange, EverythingClient

    class Drifted(EverythingService):
        """The same server after a deploy: a prompt gained a required argument, one is gone."""

        prompt_defs = tuple(
            replace(d, wire={**d.wire, "arguments": [*d.wire.get("arguments", []), {"name": "tone", "required": True}]})
            if d.name == "test_prompt_with_arguments" else d
            for d in EverythingService.prompt_defs if d.name != "test_simple_prompt")

    async def main() -> None:
        async with EverythingClient.in_process(EverythingService(), audit=None) as c:
            report = await c.check_compat()
            assert report.compatible and report.catalog == ()
        server = Drifted()
        server.disable_resource("template_data")
        server.disable_resource("static_text")
        async with EverythingClient.in_process(server, audit=None) as c:
            report = await c.check_compat()
            assert not report.compatible
            assert set(report.catalog) == {
                CatalogChange("resource", "test://static-text", "removed"),
                CatalogChange("template", "template_data", "removed"),
                CatalogChange("prompt", "test_simple_prompt", "removed"),
                CatalogChange("prompt", "test_prompt_with_arguments", "changed", "argument 'tone' is now required"),
            }
            assert "- prompt test_simple_prompt (removed)" in str(report)

    run_async(main())
