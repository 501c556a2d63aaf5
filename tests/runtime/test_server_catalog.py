"""Resources, resource templates, prompts and completions in the server runtime, both eras,
through the runtime's own client in one process (a server class written directly on the
runtime, the way generated code will fill it)."""

from __future__ import annotations

import asyncio
import base64
from typing import Any

import pytest
from common_support import run_async
from mcp_codegen_runtime.client import ClientBase
from mcp_codegen_runtime.client.subscriptions import Change
from mcp_codegen_runtime.server.base import ServerBase
from mcp_codegen_runtime.server.context import Context
from mcp_codegen_runtime.server.settings import ServerSettings
from mcp_codegen_runtime.wire import errors as E
from mcp_codegen_runtime.wire import protocol as p
from mcp_codegen_runtime.wire.content import ImageContent, TextContent
from mcp_codegen_runtime.wire.resources import (
    CompletionDef,
    PromptDef,
    PromptMessage,
    PromptResult,
    ResourceDef,
    ResourceTemplateDef,
)
from mcp_codegen_runtime.wire.tools import ServerInfo
from pydantic import BaseModel, Field

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")


class Vars(BaseModel):
    id: int


class NoArgs(BaseModel):
    pass


class Args(BaseModel):
    arg1: str
    arg2: str = "two"


class Catalog(ServerBase):
    server_info = ServerInfo(name="catalog-demo", version="1.0")
    resource_defs = (
        ResourceDef("test://static-text", "static_text", "read_text",
                    {"uri": "test://static-text", "name": "static_text", "mimeType": "text/plain"}),
        ResourceDef("test://static-binary", "static_binary", "read_binary",
                    {"uri": "test://static-binary", "name": "static_binary", "mimeType": "image/png"}),
    )
    resource_template_defs = (
        ResourceTemplateDef("test://template/{id}/data", "template_data", "read_template",
                            {"uriTemplate": "test://template/{id}/data", "name": "template_data",
                             "mimeType": "application/json"}, Vars, {"id": CompletionDef(values=("1", "12", "123", "2"))}),
    )
    prompt_defs = (
        PromptDef("simple", "get_simple", {"name": "simple", "description": "A simple prompt"}, NoArgs),
        PromptDef("with_args", "get_with_args",
                  {"name": "with_args", "arguments": [{"name": "arg1", "required": True}, {"name": "arg2"}]}, Args,
                  {"arg1": CompletionDef(method="complete_arg1")}),
        PromptDef("with_image", "get_with_image", {"name": "with_image"}, NoArgs),
    )

    async def read_text(self, ctx: Context) -> str:
        return "This is the content of the static text resource."

    def read_binary(self, ctx: Context) -> bytes:  # plain functions run in a worker thread
        return PNG

    async def read_template(self, variables: Vars, ctx: Context) -> str:
        return f'{{"id": {variables.id}}}'

    async def get_simple(self, args: NoArgs, ctx: Context) -> str:
        return "This is a simple prompt for testing."

    async def get_with_args(self, args: Args, ctx: Context) -> list[PromptMessage]:
        return [PromptMessage(role="user", content=TextContent(text=f"{args.arg1} and {args.arg2}"))]

    async def get_with_image(self, args: NoArgs, ctx: Context) -> PromptResult:
        image = ImageContent(data=base64.b64encode(PNG).decode(), mimeType="image/png")
        return PromptResult(messages=[PromptMessage(role="user", content=image)])

    async def complete_arg1(self, value: str, context: dict[str, str], ctx: Context) -> list[str]:
        return [w for w in ("apple", "apricot", "banana") if w.startswith(value)]


ERAS = ["modern", "legacy"]


def _with(era: str, body: Any, **settings: Any) -> None:
    async def main() -> None:
        server = Catalog(ServerSettings(**settings))
        async with ClientBase.in_process(server, era=era, audit=None) as client:  # type: ignore[arg-type]
            await body(client)

    run_async(main())


@pytest.mark.parametrize("era", ERAS)
def test_capabilities_and_lists(era: str) -> None:
    async def body(c: ClientBase) -> None:
        caps = c.server_capabilities
        assert caps["resources"] == {"listChanged": True} and caps["prompts"] == {"listChanged": True}  # no subscribe
        assert caps["completions"] == {} and "tools" in caps
        listed = await c.request("resources/list", {})
        assert [r["uri"] for r in listed["resources"]] == ["test://static-text", "test://static-binary"]
        assert ("ttlMs" in listed) == (era == "modern")
        templates = await c.request("resources/templates/list", {})
        assert templates["resourceTemplates"] == [{"uriTemplate": "test://template/{id}/data", "name": "template_data",
                                                   "mimeType": "application/json"}]
        prompts = await c.request("prompts/list", {})
        assert [pr["name"] for pr in prompts["prompts"]] == ["simple", "with_args", "with_image"]

    _with(era, body)


def test_lists_are_paginated() -> None:
    async def body(c: ClientBase) -> None:
        first = await c.request("resources/list", {})
        assert len(first["resources"]) == 1 and "nextCursor" in first
        second = await c.request("resources/list", {"cursor": first["nextCursor"]})
        assert [r["uri"] for r in second["resources"]] == ["test://static-binary"] and "nextCursor" not in second
        with pytest.raises(E.InvalidParamsError):
            await c.request("prompts/list", {"cursor": "forged"})
        with pytest.raises(E.InvalidParamsError):  # a cursor of one list is no good for another
            await c.request("resources/templates/list", {"cursor": first["nextCursor"]})

    _with("modern", body, page_size=1)


@pytest.mark.parametrize("era", ERAS)
def test_read_text_binary_and_template(era: str) -> None:
    async def body(c: ClientBase) -> None:
        text = await c.request("resources/read", {"uri": "test://static-text"})
        assert text["contents"] == [{"uri": "test://static-text", "mimeType": "text/plain",
                                     "text": "This is the content of the static text resource."}]
        assert ("ttlMs" in text and "cacheScope" in text) == (era == "modern")
        blob = await c.request("resources/read", {"uri": "test://static-binary"})
        assert base64.b64decode(blob["contents"][0]["blob"]) == PNG and blob["contents"][0]["mimeType"] == "image/png"
        templated = await c.request("resources/read", {"uri": "test://template/123/data"})
        assert templated["contents"] == [{"uri": "test://template/123/data", "mimeType": "application/json",
                                          "text": '{"id": 123}'}]
        with pytest.raises(E.InvalidParamsError) as bad:  # the variable does not fit its type
            await c.request("resources/read", {"uri": "test://template/abc/data"})
        assert bad.value.data == {"uri": "test://template/abc/data"}

    _with(era, body)


@pytest.mark.parametrize(("version", "code"), [(p.V2025_11_25, p.RESOURCE_NOT_FOUND), (p.V2026_07_28, p.INVALID_PARAMS)])
def test_resource_not_found_as_each_revision_says(version: str, code: int) -> None:
    async def main() -> None:
        async with ClientBase.in_process(Catalog(), protocol_version=version, audit=None) as c:  # type: ignore[arg-type]
            with pytest.raises(E.McpError) as info:
                await c.request("resources/read", {"uri": "test://nonexistent"})
            assert info.value.code == code and info.value.data == {"uri": "test://nonexistent"}

    run_async(main())


@pytest.mark.parametrize("era", ERAS)
def test_prompts(era: str) -> None:
    async def body(c: ClientBase) -> None:
        simple = await c.request("prompts/get", {"name": "simple"})
        assert {k: v for k, v in simple.items() if k not in ("resultType", "_meta")} == {  # 2026 adds those two
            "description": "A simple prompt",
            "messages": [{"role": "user", "content": {"type": "text", "text": "This is a simple prompt for testing."}}]}
        with_args = await c.request("prompts/get", {"name": "with_args", "arguments": {"arg1": "a"}})
        assert with_args["messages"][0]["content"]["text"] == "a and two"
        image = await c.request("prompts/get", {"name": "with_image"})
        assert image["messages"][0]["content"]["type"] == "image"
        with pytest.raises(E.InvalidParamsError):  # a required argument missing
            await c.request("prompts/get", {"name": "with_args", "arguments": {}})
        with pytest.raises(E.InvalidParamsError):  # arguments are strings on the wire
            await c.request("prompts/get", {"name": "with_args", "arguments": {"arg1": 5}})
        with pytest.raises(E.InvalidParamsError):
            await c.request("prompts/get", {"name": "nope"})

    _with(era, body)


@pytest.mark.parametrize("era", ERAS)
def test_completions(era: str) -> None:
    async def body(c: ClientBase) -> None:
        fixed = await c.request("completion/complete", {"ref": {"type": "ref/resource", "uri": "test://template/{id}/data"},
                                                        "argument": {"name": "id", "value": "1"}})
        assert fixed["completion"] == {"values": ["1", "12", "123"], "total": 3, "hasMore": False}
        computed = await c.request("completion/complete", {"ref": {"type": "ref/prompt", "name": "with_args"},
                                                           "argument": {"name": "arg1", "value": "ap"}})
        assert computed["completion"]["values"] == ["apple", "apricot"]
        none = await c.request("completion/complete", {"ref": {"type": "ref/prompt", "name": "with_args"},
                                                       "argument": {"name": "arg2", "value": ""}})
        assert none["completion"]["values"] == []
        with pytest.raises(E.InvalidParamsError):
            await c.request("completion/complete", {"ref": {"type": "ref/prompt", "name": "nope"},
                                                    "argument": {"name": "x", "value": ""}})

    _with(era, body)


def test_a_server_without_resources_does_not_offer_them() -> None:
    class Bare(ServerBase):
        server_info = ServerInfo(name="bare", version="1")

    async def main() -> None:
        async with ClientBase.in_process(Bare(), era="modern", audit=None) as c:  # type: ignore[arg-type]
            assert "resources" not in c.server_capabilities and "prompts" not in c.server_capabilities
            with pytest.raises(E.MethodNotFoundError):
                await c.request("resources/list", {})

    run_async(main())


def test_legacy_resource_subscriptions_notify_subscribers() -> None:
    class Watched(Catalog):
        resource_subscribe = True

    async def main() -> None:
        server = Watched()
        async with server.connect_in_process() as peer:
            async def call(rid: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
                await peer.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
                while True:
                    message = await peer.receive()
                    if message.get("id") == rid:
                        return message  # type: ignore[no-any-return]

            init = await call(1, "initialize", {"protocolVersion": p.V2025_11_25, "capabilities": {},
                                                "clientInfo": {"name": "t", "version": "1"}})
            assert init["result"]["capabilities"]["resources"] == {"subscribe": True, "listChanged": True}
            await peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
            assert (await call(2, "resources/subscribe", {"uri": "test://static-text"}))["result"] == {}
            assert (await call(3, "resources/subscribe", {"uri": "test://template/5/data"}))["result"] == {}
            unknown = await call(4, "resources/subscribe", {"uri": "test://nowhere"})
            assert unknown["error"]["code"] == p.RESOURCE_NOT_FOUND and unknown["error"]["data"] == {"uri": "test://nowhere"}
            server.resource_updated("test://static-text")
            note = await peer.receive()
            assert note == {"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "test://static-text"}}
            assert (await call(5, "resources/unsubscribe", {"uri": "test://static-text"}))["result"] == {}
            server.resource_updated("test://static-text")  # nobody listens any more
            server.resource_updated("test://template/5/data")
            note = await peer.receive()
            assert note["params"] == {"uri": "test://template/5/data"}

    run_async(main())


def test_subscribe_is_advertised_in_both_eras_when_declared() -> None:
    class Watched(Catalog):
        resource_subscribe = True

    async def main() -> None:
        for era in ERAS:
            async with ClientBase.in_process(Watched(), era=era, audit=None) as c:  # type: ignore[arg-type]
                assert c.server_capabilities["resources"] == {"subscribe": True, "listChanged": True}

    run_async(main())


def test_subscriptions_need_the_flag() -> None:
    async def main() -> None:
        async with ClientBase.in_process(Catalog(), era="legacy", audit=None) as c:  # type: ignore[arg-type]
            with pytest.raises(E.MethodNotFoundError):
                await c.request("resources/subscribe", {"uri": "test://static-text"})

    run_async(main())


class Watched(Catalog):
    resource_subscribe = True


async def _next(changes: Any) -> Any:
    return await asyncio.wait_for(changes.__anext__(), 5)


@pytest.mark.parametrize("era", ERAS)
def test_client_subscription_gets_updates_of_its_uris_only(era: str) -> None:
    async def main() -> None:
        server = Watched()
        async with ClientBase.in_process(server, era=era, audit=None) as c:  # type: ignore[arg-type]
            async with c.subscribe("test://static-text", "test://template/5/data") as changes:
                assert changes.honoured["resourceSubscriptions"] == ["test://static-text", "test://template/5/data"]
                server.resource_updated("test://static-binary")  # not followed
                server.resource_updated("test://template/5/data")
                assert await _next(changes) == Change("updated", "test://template/5/data")
                server.resource_updated("test://static-text")
                assert await _next(changes) == Change("updated", "test://static-text")
                server.disable_prompt("simple")  # a list change this subscription did not ask for
                server.resource_updated("test://static-text")
                assert await _next(changes) == Change("updated", "test://static-text")
            # after the block: unsubscribed (legacy) / the listen stream cancelled (2026)
            await asyncio.sleep(0.05)
            assert not any(conn.resource_subscriptions for conn in server._connections)
            assert not server._listeners

    run_async(main())


@pytest.mark.parametrize("era", ERAS)
def test_list_changes_of_prompts_and_resources(era: str) -> None:
    async def main() -> None:
        server = Catalog()
        async with ClientBase.in_process(server, era=era, audit=None) as c:  # type: ignore[arg-type]
            async with c.subscribe(prompts=True, resources=True) as changes:
                server.disable_prompt("simple")
                assert await _next(changes) == Change("prompts")
                assert [pr.name for pr in await c.list_prompts()] == ["with_args", "with_image"]
                with pytest.raises(E.InvalidParamsError):
                    await c.get_prompt("simple")
                server.disable_resource("template_data")
                assert await _next(changes) == Change("resources")
                assert await c.list_resource_templates() == []
                with pytest.raises(E.ResourceNotFoundError):
                    await c.read_resource("test://template/1/data")
                server.disable_resource("template_data")  # no change, no notification
                server.enable_prompt("simple")
                assert await _next(changes) == Change("prompts")
                assert "simple" in [pr.name for pr in await c.list_prompts()]
            with pytest.raises(KeyError):
                server.disable_prompt("nope")

    run_async(main())


def test_2026_listen_honours_what_the_server_has() -> None:
    async def main() -> None:
        server = Watched()
        async with ClientBase.in_process(server, era="modern", audit=None) as c:  # type: ignore[arg-type]
            async with c.subscribe("test://static-text", "test://nowhere", tools=True, prompts=True) as changes:
                assert changes.honoured == {"toolsListChanged": True, "promptsListChanged": True,
                                            "resourceSubscriptions": ["test://static-text"]}
                server.close_subscriptions()  # a graceful server close ends the iteration
                assert [x async for x in changes] == []
        async with ClientBase.in_process(Catalog(), era="modern", audit=None) as c:  # type: ignore[arg-type]
            async with c.subscribe("test://static-text") as changes:  # no server.subscribe: not honoured
                assert changes.honoured == {}

    run_async(main())


def test_legacy_subscribe_to_an_unknown_uri_fails_on_entry() -> None:
    async def main() -> None:
        server = Watched()
        async with ClientBase.in_process(server, era="legacy", audit=None) as c:  # type: ignore[arg-type]
            with pytest.raises(E.ResourceNotFoundError):
                async with c.subscribe("test://static-text", "test://nowhere"):
                    pass
            await asyncio.sleep(0.05)
            assert not any(conn.resource_subscriptions for conn in server._connections)  # the first was undone

    run_async(main())


class Strict(Catalog):
    """Handlers that fail in the ways the protocol maps, and a refusing authorizer."""

    async def read_template(self, variables: Vars, ctx: Context) -> Any:
        if variables.id == 404:
            raise E.ResourceNotFoundError("no such record")
        return [] if variables.id == 0 else f"{variables.id}"

    def authorize_catalog(self, principal: Any, method: str, target: str, args: BaseModel | None) -> bool:
        return not (method == "resources/read" and target.endswith("/7/data"))


@pytest.mark.parametrize(("version", "code"), [(p.V2025_11_25, p.RESOURCE_NOT_FOUND), (p.V2026_07_28, p.INVALID_PARAMS)])
def test_not_found_from_a_handler_and_empty_contents_use_each_eras_code(version: str, code: int) -> None:
    async def main() -> None:
        async with ClientBase.in_process(Strict(), protocol_version=version, audit=None) as c:  # type: ignore[arg-type]
            for uri in ("test://template/404/data", "test://template/0/data"):
                with pytest.raises(E.McpError) as info:
                    await c.request("resources/read", {"uri": uri})
                assert info.value.code == code and info.value.data == {"uri": uri}

    run_async(main())


@pytest.mark.parametrize("era", ERAS)
def test_catalog_requests_pass_authorization_and_the_rate_limit(era: str) -> None:
    async def main() -> None:
        async with ClientBase.in_process(Strict(), era=era, audit=None) as c:  # type: ignore[arg-type]
            with pytest.raises(E.InvalidRequestError) as refused:
                await c.request("resources/read", {"uri": "test://template/7/data"})
            assert refused.value.data == {"code": "mcp-codegen.forbidden"}
        limited = Strict(ServerSettings(rate_limit_per_second=0.001, rate_limit_burst=2))
        async with ClientBase.in_process(limited, era=era, audit=None) as c:  # type: ignore[arg-type]
            await c.request("resources/read", {"uri": "test://static-text"})
            await c.request("prompts/get", {"name": "simple"})
            with pytest.raises(E.InvalidRequestError) as over:
                await c.request("completion/complete", {"ref": {"type": "ref/prompt", "name": "with_args"},
                                                        "argument": {"name": "arg1", "value": "a"}})
            assert over.value.data == {"code": "mcp-codegen.rate_limited"}

    run_async(main())


class AliasArgs(BaseModel):
    user_id: str = Field(alias="userId")


class Aliased(Catalog):
    prompt_defs = (PromptDef("greet", "get_greet", {"name": "greet", "arguments": [{"name": "userId"}]}, AliasArgs),)

    async def get_greet(self, args: AliasArgs, ctx: Context) -> str:
        return f"hello {args.user_id}"


def test_prompt_arguments_are_matched_by_wire_name_and_extras_refused() -> None:
    async def main() -> None:
        async with ClientBase.in_process(Aliased(), era="modern", audit=None) as c:  # type: ignore[arg-type]
            ok = await c.request("prompts/get", {"name": "greet", "arguments": {"userId": "ann"}})
            assert ok["messages"][0]["content"]["text"] == "hello ann"
            for bad in ({"user_id": "ann"}, {"userId": "ann", "extra": "x"}):
                with pytest.raises(E.InvalidParamsError):
                    await c.request("prompts/get", {"name": "greet", "arguments": bad})

    run_async(main())
