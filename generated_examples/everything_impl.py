"""Hand-written implementation of the generated ``everything`` server (conformance fixtures).

Each handler does what the matching scenario of the official MCP conformance suite
(``@modelcontextprotocol/conformance``) asks of its fixture tool; ``scripts/conformance``
serves this class over Streamable HTTP (``python -m everything --http``) and runs the suite
against it.  Written from the scenario descriptions, using only the generated package and
its runtime.

The same handlers serve both protocol eras: client input (elicitation, sampling, roots)
is a real server->client request in the 2025 era and an ``input_required`` round in the
2026 era, decided by the runtime (see ``Context`` and ``InputUnavailableError``).
"""

from __future__ import annotations

import asyncio
import base64
import io
import json
import struct
import wave
import zlib
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from everything import (
    AudioContent,
    BlobResourceContents,
    Context,
    EmbeddedResource,
    ImageContent,
    InputUnavailableError,
    PromptMessage,
    TextContent,
    TextResourceContents,
    ToolResult,
)
from everything.asgi import close_sse_stream
from everything.errors import IntentionalError, InternalError, JobFailedError
from everything.models import (
    ConfirmDeleteInput,
    FailingJobInput,
    GreetInput,
    JsonSchema202012ToolInput,
    MultiInputInput,
    ProtocolErrorJobInput,
    SlowComputeInput,
    SlowComputeOutput,
    TemplateDataVariables,
    TestAudioContentInput,
    TestChangingToolInput,
    TestElicitationInput,
    TestElicitationSep1034DefaultsInput,
    TestElicitationSep1330EnumsInput,
    TestEmbeddedResourceInput,
    TestErrorHandlingInput,
    TestImageContentInput,
    TestInputRequiredResultCapabilitiesInput,
    TestInputRequiredResultElicitationInput,
    TestInputRequiredResultListRootsInput,
    TestInputRequiredResultMultipleInputsInput,
    TestInputRequiredResultMultiRoundInput,
    TestInputRequiredResultPromptArguments,
    TestInputRequiredResultRequestStateInput,
    TestInputRequiredResultSamplingInput,
    TestInputRequiredResultTamperedStateInput,
    TestLoggingToolInput,
    TestMissingCapabilityInput,
    TestMultipleContentTypesInput,
    TestPromptWithArgumentsArguments,
    TestPromptWithEmbeddedResourceArguments,
    TestPromptWithImageArguments,
    TestReconnectionInput,
    TestSamplingInput,
    TestSimplePromptArguments,
    TestSimpleTextInput,
    TestStreamingElicitationInput,
    TestToolWithLoggingInput,
    TestToolWithProgressInput,
    TestToolWithTaskInput,
    TestTriggerToolChangeInput,
    TestXMcpHeaderInput,
)
from everything.server import (
    EverythingServerBase,
    TestElicitationSep1034DefaultsInputs,
    TestInputRequiredResultElicitationInputs,
    TestInputRequiredResultListRootsInputs,
    TestInputRequiredResultMultipleInputsInputs,
    TestInputRequiredResultMultiRoundInputs,
    TestInputRequiredResultRequestStateInputs,
    TestInputRequiredResultSamplingInputs,
    TestInputRequiredResultTamperedStateInputs,
    TestToolWithTaskInputs,
)

T = TypeVar("T")

#: Pause between the notifications of the logging and progress tools (the scenarios ask ~50 ms).
STEP_SECONDS = 0.05


def _png_1x1_red() -> str:
    """A 1x1 red RGB PNG, built from its chunks (base64)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)  # 1x1, 8-bit RGB
    pixels = zlib.compress(b"\x00\xff\x00\x00")  # filter byte 0, then one red pixel
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    return base64.b64encode(png).decode("ascii")


def _wav_silence() -> str:
    """0.1 s of 8 kHz 16-bit mono silence as a WAV file (base64)."""
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(8000)
        out.writeframes(b"\x00\x00" * 800)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


RED_PIXEL_PNG = _png_1x1_red()
SILENT_WAV = _wav_silence()

#: The five enum shapes of SEP-1330, as an elicitation form.
SEP1330_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "untitledSingle": {
            "type": "string",
            "title": "Untitled single-select",
            "enum": ["option1", "option2", "option3"],
        },
        "titledSingle": {
            "type": "string",
            "title": "Titled single-select",
            "oneOf": [
                {"const": "value1", "title": "First Option"},
                {"const": "value2", "title": "Second Option"},
                {"const": "value3", "title": "Third Option"},
            ],
        },
        "legacyEnum": {
            "type": "string",
            "title": "Legacy titled enum (deprecated enumNames)",
            "enum": ["opt1", "opt2", "opt3"],
            "enumNames": ["Option One", "Option Two", "Option Three"],
        },
        "untitledMulti": {
            "type": "array",
            "title": "Untitled multi-select",
            "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
        },
        "titledMulti": {
            "type": "array",
            "title": "Titled multi-select",
            "items": {
                "anyOf": [
                    {"const": "value1", "title": "First Choice"},
                    {"const": "value2", "title": "Second Choice"},
                    {"const": "value3", "title": "Third Choice"},
                ]
            },
        },
    },
}

#: The form of test_elicitation.
CONTACT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "username": {"type": "string", "description": "User's response"},
        "email": {"type": "string", "description": "User's email address"},
    },
    "required": ["username", "email"],
}


def _text(text: str) -> ToolResult:
    return ToolResult(content=[TextContent(text=text)])


def _sampled_text(result: dict[str, Any]) -> str:
    """The text of a ``sampling/createMessage`` result (content may be one block or a list)."""
    content = result.get("content")
    blocks = content if isinstance(content, list) else [content]
    texts = [b.get("text") for b in blocks if isinstance(b, dict) and isinstance(b.get("text"), str)]
    return " ".join(t for t in texts if t) or json.dumps(content)


def _roots_of(result: dict[str, Any]) -> list[dict[str, Any]]:
    """The root objects of a ``roots/list`` result."""
    roots = result.get("roots")
    return [r for r in roots if isinstance(r, dict)] if isinstance(roots, list) else []


async def _unless_unavailable(ask: Callable[[], Awaitable[T]]) -> T | None:
    """Ask for client input, or None when the client lacks the capability."""
    try:
        return await ask()
    except InputUnavailableError:
        return None


class EverythingService(EverythingServerBase):
    """The conformance fixture tools (see ``specs/everything.yaml``)."""

    # ------------------------------------------------------------ content types
    def test_simple_text(self, args: TestSimpleTextInput, ctx: Context) -> ToolResult:
        return _text("This is a simple text response for testing.")

    def test_image_content(self, args: TestImageContentInput, ctx: Context) -> ToolResult:
        return ToolResult(content=[ImageContent(data=RED_PIXEL_PNG, mimeType="image/png")])

    def test_audio_content(self, args: TestAudioContentInput, ctx: Context) -> ToolResult:
        return ToolResult(content=[AudioContent(data=SILENT_WAV, mimeType="audio/wav")])

    def test_embedded_resource(self, args: TestEmbeddedResourceInput, ctx: Context) -> ToolResult:
        resource = TextResourceContents(
            uri="test://embedded-resource", mimeType="text/plain", text="This is an embedded resource content."
        )
        return ToolResult(content=[EmbeddedResource(resource=resource)])

    def test_multiple_content_types(self, args: TestMultipleContentTypesInput, ctx: Context) -> ToolResult:
        resource = TextResourceContents(
            uri="test://mixed-content-resource",
            mimeType="application/json",
            text=json.dumps({"test": "data", "value": 123}),
        )
        return ToolResult(
            content=[
                TextContent(text="Multiple content types test:"),
                ImageContent(data=RED_PIXEL_PNG, mimeType="image/png"),
                EmbeddedResource(resource=resource),
            ]
        )

    # ------------------------------------------------------------ errors
    def test_error_handling(self, args: TestErrorHandlingInput, ctx: Context) -> ToolResult:
        raise IntentionalError("This tool intentionally returns an error for testing")

    # ------------------------------------------------------------ notifications
    async def test_tool_with_logging(self, args: TestToolWithLoggingInput, ctx: Context) -> ToolResult:
        await ctx.log("info", "Tool execution started")
        await asyncio.sleep(STEP_SECONDS)
        await ctx.log("info", "Tool processing data")
        await asyncio.sleep(STEP_SECONDS)
        await ctx.log("info", "Tool execution completed")
        return _text("Tool with logging executed successfully")

    async def test_logging_tool(self, args: TestLoggingToolInput, ctx: Context) -> ToolResult:
        # Sent only when the client asked for logs (legacy: logging/setLevel; 2026: _meta logLevel).
        await ctx.log("info", "test_logging_tool ran")
        return _text("Logging tool executed")

    async def test_tool_with_progress(self, args: TestToolWithProgressInput, ctx: Context) -> ToolResult:
        await ctx.progress(0, 100)
        await asyncio.sleep(STEP_SECONDS)
        await ctx.progress(50, 100)
        await asyncio.sleep(STEP_SECONDS)
        await ctx.progress(100, 100)
        return _text("Tool with progress executed successfully")

    # ------------------------------------------------------------ client input
    async def test_sampling(self, args: TestSamplingInput, ctx: Context) -> ToolResult:
        messages = [{"role": "user", "content": {"type": "text", "text": args.prompt}}]
        answer = await ctx.sample(messages, 100)
        return _text(f"LLM response: {_sampled_text(answer)}")

    async def test_elicitation(self, args: TestElicitationInput, ctx: Context) -> ToolResult:
        answer = await ctx.elicit(args.message, CONTACT_SCHEMA)
        return _text(f"User response: action={answer.action}, content={json.dumps(answer.content)}")

    async def test_elicitation_sep1034_defaults(
        self, args: TestElicitationSep1034DefaultsInput, ctx: Context
    ) -> ToolResult:
        answer = await TestElicitationSep1034DefaultsInputs(ctx).profile()
        content = answer.content.model_dump(mode="json") if answer.content is not None else None
        return _text(f"Elicitation completed: action={answer.action}, content={json.dumps(content)}")

    async def test_elicitation_sep1330_enums(self, args: TestElicitationSep1330EnumsInput, ctx: Context) -> ToolResult:
        answer = await ctx.elicit("Please pick from each enum variant (SEP-1330).", SEP1330_SCHEMA)
        return _text(f"Elicitation completed: action={answer.action}, content={json.dumps(answer.content)}")

    async def test_missing_capability(self, args: TestMissingCapabilityInput, ctx: Context) -> ToolResult:
        # Without the sampling capability this raises InputUnavailableError, which the
        # runtime turns into -32021 (2026) or an isError result (legacy).
        messages = [{"role": "user", "content": {"type": "text", "text": "Say hello."}}]
        answer = await ctx.sample(messages, 20)
        return _text(f"LLM response: {_sampled_text(answer)}")

    async def test_streaming_elicitation(self, args: TestStreamingElicitationInput, ctx: Context) -> ToolResult:
        answer = await ctx.elicit("Continue?", {"type": "object", "properties": {"ok": {"type": "boolean"}}})
        return _text(f"Streaming elicitation completed: action={answer.action}")

    # ------------------------------------------------------------ 2026 input_required (MRTR)
    async def test_input_required_result_elicitation(
        self, args: TestInputRequiredResultElicitationInput, ctx: Context
    ) -> ToolResult:
        answer = await TestInputRequiredResultElicitationInputs(ctx).user_name()
        if answer.content is None:
            return _text(f"No name given (action={answer.action}).")
        return _text(f"Hello, {answer.content.name}!")

    async def test_input_required_result_sampling(
        self, args: TestInputRequiredResultSamplingInput, ctx: Context
    ) -> ToolResult:
        answer = await TestInputRequiredResultSamplingInputs(ctx).capital_question()
        return _text(f"The model answered: {_sampled_text(answer)}")

    async def test_input_required_result_list_roots(
        self, args: TestInputRequiredResultListRootsInput, ctx: Context
    ) -> ToolResult:
        answer = await TestInputRequiredResultListRootsInputs(ctx).client_roots()
        uris = [r.get("uri") for r in _roots_of(answer)]
        return _text(f"Client roots: {', '.join(str(u) for u in uris) or '(none)'}")

    async def test_input_required_result_request_state(
        self, args: TestInputRequiredResultRequestStateInput, ctx: Context
    ) -> ToolResult:
        # The runtime verified the signed requestState before this second run got here.
        answer = await TestInputRequiredResultRequestStateInputs(ctx).confirm()
        confirmed = answer.content is not None and answer.content.ok
        return _text(f"state-ok: requestState verified, confirmed={confirmed}")

    async def test_input_required_result_multiple_inputs(
        self, args: TestInputRequiredResultMultipleInputsInput, ctx: Context
    ) -> ToolResult:
        inputs = TestInputRequiredResultMultipleInputsInputs(ctx)
        # Asked together, so a 2026 client gets all three requests in one round.
        name, greeting, roots = await asyncio.gather(inputs.user_name(), inputs.greeting(), inputs.client_roots())
        who = name.content.name if name.content is not None else "(declined)"
        return _text(f"name={who}; greeting={_sampled_text(greeting)}; roots={len(_roots_of(roots))}")

    async def test_input_required_result_multi_round(
        self, args: TestInputRequiredResultMultiRoundInput, ctx: Context
    ) -> ToolResult:
        inputs = TestInputRequiredResultMultiRoundInputs(ctx)
        step1 = await inputs.step1()
        step2 = await inputs.step2()
        name = step1.content.name if step1.content is not None else "(declined)"
        color = step2.content.color if step2.content is not None else "(declined)"
        return _text(f"{name} likes {color}.")

    async def test_input_required_result_tampered_state(
        self, args: TestInputRequiredResultTamperedStateInput, ctx: Context
    ) -> ToolResult:
        answer = await TestInputRequiredResultTamperedStateInputs(ctx).confirm()
        return _text(f"Confirmed: {answer.content is not None and answer.content.ok}")

    async def test_input_required_result_capabilities(
        self, args: TestInputRequiredResultCapabilitiesInput, ctx: Context
    ) -> ToolResult:
        # Ask only what the client can answer: each request the client lacks the
        # capability for is skipped instead of failing the call.
        name, sample, roots = await asyncio.gather(
            _unless_unavailable(lambda: ctx.elicit("What is your name?", CONTACT_SCHEMA)),
            _unless_unavailable(
                lambda: ctx.sample([{"role": "user", "content": {"type": "text", "text": "Say hi."}}], 20)
            ),
            _unless_unavailable(ctx.list_roots),
        )
        got = [kind for kind, value in (("elicitation", name), ("sampling", sample), ("roots", roots)) if value]
        return _text(f"Inputs received: {', '.join(got) or 'none (no input capability declared)'}")

    # ------------------------------------------------------------ schemas and headers
    def json_schema_2020_12_tool(self, args: JsonSchema202012ToolInput, ctx: Context) -> ToolResult:
        return _text(f"Received: {args.model_dump_json(exclude_none=True)}")

    def test_x_mcp_header(self, args: TestXMcpHeaderInput, ctx: Context) -> ToolResult:
        return _text(f"Region: {args.region}")

    # ------------------------------------------------------------ transport hooks
    async def test_reconnection(self, args: TestReconnectionInput, ctx: Context) -> ToolResult:
        # Legacy Streamable HTTP with SSE: end this request's stream now (SEP-1699); the
        # client reconnects with GET + Last-Event-ID after the retry interval and gets the
        # result there.  Elsewhere (stdio, 2026, JSON answers) this is a no-op.
        if close_sse_stream():
            await asyncio.sleep(0.2)
        return _text("Reconnection test completed successfully")

    def test_trigger_tool_change(self, args: TestTriggerToolChangeInput, ctx: Context) -> ToolResult:
        # Hide and restore a tool: two list_changed notifications, same list afterwards.
        self.disable_tool("test_changing_tool")
        self.enable_tool("test_changing_tool")
        return _text("Tool list changed (test_changing_tool hidden and restored)")

    def test_changing_tool(self, args: TestChangingToolInput, ctx: Context) -> ToolResult:
        return _text("test_changing_tool is available")

    # ------------------------------------------------------------ tasks extension (SEP-2663)
    # Tools marked `task:` in the spec run as tasks for clients declaring io.modelcontextprotocol/tasks.
    def greet(self, args: GreetInput, ctx: Context) -> ToolResult:
        return _text(f"Hello, {args.name}!")

    async def slow_compute(self, args: SlowComputeInput, ctx: Context) -> SlowComputeOutput:
        await ctx.progress(0, args.seconds, f"working for {args.seconds:g}s")
        await asyncio.sleep(args.seconds)  # cancelled by tasks/cancel
        return SlowComputeOutput(label=args.label or "", seconds=args.seconds)

    async def failing_job(self, args: FailingJobInput, ctx: Context) -> ToolResult:
        await asyncio.sleep(1)
        raise JobFailedError("The job failed, as it always does")

    async def protocol_error_job(self, args: ProtocolErrorJobInput, ctx: Context) -> ToolResult:
        raise InternalError("protocol_error_job: an internal failure (a protocol-level error)")

    async def confirm_delete(self, args: ConfirmDeleteInput, ctx: Context) -> ToolResult:
        schema = {"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]}
        answer = await ctx.elicit(f"Delete {args.filename}?", schema, key="confirm")
        confirmed = answer.accepted and bool((answer.content or {}).get("confirm"))
        return _text(f"{args.filename} {'deleted' if confirmed else 'kept'}")

    async def multi_input(self, args: MultiInputInput, ctx: Context) -> ToolResult:
        name_schema = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
        ok_schema = {"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]}
        name, ok = await asyncio.gather(ctx.elicit("Your name?", name_schema, key="name"),
                                        ctx.elicit("Proceed?", ok_schema, key="confirm"))
        return _text(f"name={(name.content or {}).get('name')} confirm={(ok.content or {}).get('confirm')}")

    async def test_tool_with_task(self, args: TestToolWithTaskInput, ctx: Context) -> ToolResult:
        # a declared input: asked by an input_required round before the task is created
        answer = await TestToolWithTaskInputs(ctx).user_name()
        await asyncio.sleep(0.2)
        who = answer.content.name if answer.content is not None else "stranger"
        return _text(f"Hello from the task, {who}!")

    # ------------------------------------------------------------------ resources and prompts
    async def read_static_text(self, ctx: Context) -> str:
        return "This is the content of the static text resource."

    async def read_watched_resource(self, ctx: Context) -> str:
        return "Watched resource content."

    async def read_static_binary(self, ctx: Context) -> BlobResourceContents:
        return BlobResourceContents(uri="test://static-binary", mimeType="image/png", blob=RED_PIXEL_PNG)

    async def read_template_data(self, variables: TemplateDataVariables, ctx: Context) -> str:
        return json.dumps({"id": variables.id, "templateTest": True, "data": f"Data for ID: {variables.id}"},
                          separators=(",", ":"))

    async def prompt_test_simple_prompt(self, args: TestSimplePromptArguments, ctx: Context) -> str:
        return "This is a simple prompt for testing."

    async def prompt_test_prompt_with_arguments(self, args: TestPromptWithArgumentsArguments, ctx: Context) -> str:
        return f"Prompt with arguments: arg1='{args.arg1}', arg2='{args.arg2}'"

    async def complete_test_prompt_with_arguments_arg1(self, value: str, context: dict[str, str],
                                                       ctx: Context) -> list[str]:
        return [w for w in ("paris", "park", "party", "plain") if w.startswith(value)]

    async def prompt_test_prompt_with_embedded_resource(self, args: TestPromptWithEmbeddedResourceArguments,
                                                        ctx: Context) -> list[PromptMessage]:
        embedded = TextResourceContents(uri=args.resourceUri, mimeType="text/plain",
                                        text="Embedded resource content for testing.")
        return [PromptMessage(role="user", content=EmbeddedResource(resource=embedded)),
                PromptMessage(role="user", content=TextContent(text="Please process the embedded resource above."))]

    async def prompt_test_prompt_with_image(self, args: TestPromptWithImageArguments, ctx: Context) -> list[PromptMessage]:
        return [PromptMessage(role="user", content=ImageContent(data=RED_PIXEL_PNG, mimeType="image/png")),
                PromptMessage(role="user", content=TextContent(text="Please analyze the image above."))]

    async def prompt_test_input_required_result_prompt(self, args: TestInputRequiredResultPromptArguments,
                                                       ctx: Context) -> str:
        schema = {"type": "object", "properties": {"context": {"type": "string"}}, "required": ["context"]}
        answer = await ctx.elicit("What context should the prompt use?", schema, key="user_context")
        context = (answer.content or {}).get("context", "") if answer.accepted else ""
        return f"Prompt with context: {context}"
