"""``ClientBase``: the async MCP client, with the tool API on :class:`~client.connection.ClientConnection`.

``list_tools`` and ``check_compat`` (see ``client/tools.py``), and ``tools/call``:
:meth:`ClientBase.call_raw`, :meth:`ClientBase.call_tool`, and the typed-call helpers
the generated client uses.  Every call is confirmed, sent with its ``input_required``
rounds answered, mapped to a result or an exception, and audited (see
``client/hooks.py``, ``client/inputs.py``, ``client/results.py``).

Tasks (``start_<tool>``, a call the server runs as a task) and Skills (``list_skills``...) are
optional features (``client/features.py``): their modules are imported where used, so a private
runtime copy of a package that does not use them works without them.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel

from ..wire import protocol as p
from ..wire.content import ToolResult
from ..wire.errors import InternalError, InvalidParamsError, OutputValidationError
from ..wire.skills import SKILLS_EXTENSION
from ..wire.tools import ToolDef
from .apps import AppCalls
from .compat import catalog_changes
from .features import missing
from .hooks import arguments_digest, audit_wanted, confirm_call, error_code, outcome_of, progress_handler, run_audit
from .inputs import run_input_rounds
from .listing import Tool, typed
from .results import classify_invalid_params, parse_call_result, parse_output, tool_error
from .retry_policy import is_repeatable
from .tools import check_tools_page, collect_tools, compat_report
from .types import AuditRecord, CompatReport, ProgressCallback

if TYPE_CHECKING:  # the optional features (client/features.py): mypy of a copy without them sees Any
    from .skills.calls import LoadedSkill, SkillEntry, SkillFile  # type: ignore[import-not-found, unused-ignore]  # runtime-copy: optional
    from .tasks.handle import TaskHandle  # type: ignore[import-not-found, unused-ignore]  # runtime-copy: optional

M = TypeVar("M", bound=BaseModel)


class ClientBase(AppCalls):
    """Async MCP client bound to one server connection (see the ``client`` package docstring).

    ``ClientBase`` itself is usable as an untyped client of any server; the generated
    subclass sets ``server_info`` and ``tool_defs`` and adds one typed method per tool.
    """

    # -- tools/list --------------------------------------------------------------------------

    async def list_tools(self, *, refresh: bool = False, max_pages: int = 1000) -> list[Tool]:
        """Every tool of the server, as typed :class:`~client.listing.Tool` objects (``.raw``:
        the wire dict), following every ``nextCursor``.

        2026-07-28: pages are cached for their ``ttlMs`` (``refresh=True`` bypasses the
        cache); any ``notifications/tools/list_changed`` empties the cache.
        """
        return typed(Tool, await self._wire_tools(refresh, max_pages))

    async def _wire_tools(self, refresh: bool, max_pages: int = 1000) -> list[dict[str, Any]]:
        """Every tool of the server as the wire dicts (see :meth:`list_tools`)."""
        await self._with_retry("connecting", _nothing, True)

        async def fetch_page(cursor: str | None) -> dict[str, Any]:
            return await self._list_page(cursor, refresh)

        tools = await collect_tools(fetch_page, modern=self._era == "modern", max_pages=max_pages)
        self._live_tools = {t["name"]: t for t in tools}
        return tools

    async def _list_page(self, cursor: str | None, refresh: bool) -> dict[str, Any]:
        modern = self._era == "modern"
        if modern and not refresh:
            hit = self._tools_cache.get(cursor)
            if hit is not None:
                return hit
        params = {"cursor": cursor} if cursor is not None else None

        async def fetch() -> Any:
            return await self._session.request("tools/list", self._params(params), timeouts=self._timeouts())

        result = await self._with_retry("tools/list", fetch, True)
        page = check_tools_page(result)
        if modern:
            self._tools_cache.put(cursor, page)
        return page

    async def check_compat(self) -> CompatReport:
        """Compare the generated tables with the live lists: tools by fingerprint, resources,
        templates and prompts by what the typed methods rely on (``client/compat.py``)."""
        report = compat_report(self.tool_defs, await self._wire_tools(True), self._version)
        lists, notes = await self.wire_catalog()
        changes = catalog_changes(self.resource_defs, self.resource_template_defs, self.prompt_defs, *lists)
        return replace(report, catalog=changes, notes=notes)

    # -- tools/call ----------------------------------------------------------------------------

    async def call_raw(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
        progress: ProgressCallback | None = None,
    ) -> ToolResult:
        """Call a tool and return the full result; ``isError`` results are returned, not raised.

        The result is a :class:`ToolResult` (``content``, ``structuredContent``,
        ``isError``, ``meta`` = ``_meta``; unknown fields such as ``resultType`` are kept
        as extras; ``result.model_dump(by_alias=True)`` gives the wire dict back).
        Protocol errors, timeouts, transport loss and a confirm refusal still raise.
        """
        result, _ = await self._invoke(name, dict(arguments or {}), self._by_name.get(name), False, timeout, progress)
        return result

    async def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
        progress: ProgressCallback | None = None,
    ) -> ToolResult:
        """Like :meth:`call_raw` but an ``isError`` result raises its mapped :class:`ToolError`."""
        result, _ = await self._invoke(name, dict(arguments or {}), self._by_name.get(name), True, timeout, progress)
        return result

    async def _call_content(self, tool: ToolDef, args: dict[str, Any]) -> ToolResult:
        """Typed call of a tool without ``outputSchema``: the result (errors raised).

        ``args`` come from :func:`~client.results.wire_arguments` (already checked).
        """
        result, _ = await self._invoke(tool.name, args, tool, True, None, None)
        return result

    async def _call_structured(self, tool: ToolDef, args: dict[str, Any], output_model: type[M]) -> M:
        """Typed call of a tool with ``outputSchema``: ``structuredContent`` parsed into ``output_model``.

        Accepts the ``{"result": value}`` wrapping some SDKs use for non-object outputs;
        without ``structuredContent`` the JSON text block is parsed instead.  A value
        that breaks the model raises :class:`OutputValidationError`.  A tool typed by the
        spec's ``overlays`` (``ToolDef.client_output_schema``) is always checked against it.
        """
        result, raw = await self._invoke(tool.name, args, tool, True, None, None)
        return self._typed_output(tool, result, raw, output_model)

    def _typed_output(self, tool: ToolDef, result: ToolResult, raw: dict[str, Any], output_model: type[M]) -> M:
        if tool.client_output_schema is not None:  # the spec's overlay: the server promised nothing
            judge = replace(tool, wire={**tool.wire, "outputSchema": tool.client_output_schema},
                            schema_checked=tool.client_output_checked)
            return parse_output(judge, result, raw, output_model, validate_output=True)
        return parse_output(tool, result, raw, output_model, validate_output=self.validate_output)

    async def _invoke(
        self,
        name: str,
        arguments: dict[str, Any],
        tool_def: ToolDef | None,
        raise_on_error: bool,
        timeout: float | None,
        progress: ProgressCallback | None,
    ) -> tuple[ToolResult, dict[str, Any]]:
        """One audited tool call: confirm, call (with input rounds), map an ``isError`` result."""
        started = time.perf_counter()
        outcome, error, code, rounds = "ok", None, None, 0
        confirmed = False

        async def attempt() -> tuple[dict[str, Any], int]:
            nonlocal confirmed
            if not confirmed:  # asked once, however many attempts follow
                await confirm_call(self.confirm_hook, name, arguments, tool_def, self._live_tools.get(name, {}))
                confirmed = True
            return await self._call_rounds(name, arguments, tool_def, timeout, progress)

        try:
            wire = tool_def.wire if tool_def is not None else self._live_tools.get(name)
            repeat = self.retry is not None and is_repeatable(name, wire, self.retry)
            raw, rounds = await self._with_retry(f"tools/call {name!r}", attempt, repeat)
            result = parse_call_result(name, raw)
            if result.isError:
                outcome = "tool_error"
                exc_ = tool_error(name, tool_def, result, raw, self.tool_defs)
                error, code = type(exc_).__name__, error_code(exc_)
                if raise_on_error:
                    raise exc_
            return result, raw
        except BaseException as exc:
            if outcome != "tool_error":
                outcome = outcome_of(exc)
                error, code = type(exc).__name__, error_code(exc)
            raise
        finally:
            if audit_wanted(self.audit_hook, outcome):
                await run_audit(
                    self.audit_hook,
                    AuditRecord(
                        tool=name,
                        arguments_sha256=arguments_digest(arguments),
                        outcome=outcome,
                        duration_s=time.perf_counter() - started,
                        era=self._era,
                        protocol_version=self._version,
                        error=error,
                        error_code=code,
                        rounds=rounds,
                        server=self._server_identity.get("name") if self._server_identity else None,
                    ),
                )

    async def _call_rounds(
        self,
        name: str,
        arguments: dict[str, Any],
        tool_def: ToolDef | None,
        timeout: float | None,
        progress: ProgressCallback | None,
        *,
        wait: bool = True,
    ) -> tuple[dict[str, Any], int]:
        """``tools/call`` until the result is complete (see :func:`~client.inputs.run_input_rounds`);
        a task is waited for unless ``wait`` is False (then its ``CreateTaskResult`` is returned)."""
        on_progress = progress_handler(progress or self.progress_callback)

        async def send(params: dict[str, Any]) -> Any:
            self._tokens += 1
            token = f"mcp-codegen-{self._tokens}"
            self._inflight.append(name)
            try:
                return await self._session.request(
                    "tools/call",
                    self._params(params, token),
                    timeouts=self._timeouts(timeout),
                    progress_token=token,
                    on_progress=on_progress,
                )
            except InvalidParamsError as exc:
                raise classify_invalid_params(exc, name, arguments, tool_def) from None
            except InternalError as exc:
                if isinstance(exc.data, dict) and exc.data.get("code") == p.ERROR_INVALID_OUTPUT:
                    raise OutputValidationError(exc.message, data=exc.data) from None
                raise
            finally:
                self._inflight.remove(name)

        async def answer(method: str, params: Any, key: str) -> dict[str, Any]:
            return await self._fulfil(method, params, name, key, tool_def)

        raw, rounds = await run_input_rounds(name, arguments, send, answer, self.max_input_rounds)
        if wait and raw.get("resultType") == "task":  # the tasks extension: poll it to its end
            try:
                from .tasks import handle  # type: ignore[import-not-found, unused-ignore]  # runtime-copy: optional
            except ImportError as exc:
                missing("tasks", f"{name}: the server ran the call as a task, which", exc)
            raw = await handle.wait_for_task(self, name, tool_def, raw)
        return raw, rounds

    # -- tasks (client/tasks/handle.py) -----------------------------------------------------------------

    async def _start(self, tool: ToolDef, args: dict[str, Any]) -> dict[str, Any]:
        await self.connect()
        await confirm_call(self.confirm_hook, tool.name, args, tool, self._live_tools.get(tool.name, {}))
        raw, _ = await self._call_rounds(tool.name, args, tool, None, None, wait=False)
        return raw

    def _checked(self, tool: ToolDef, raw: dict[str, Any]) -> ToolResult:
        result = parse_call_result(tool.name, raw)
        if result.isError:
            raise tool_error(tool.name, tool, result, raw, self.tool_defs)
        return result

    async def _start_structured(self, tool: ToolDef, args: dict[str, Any], output_model: type[M]) -> TaskHandle[M]:
        """``start_<tool>`` of a tool with ``outputSchema``: a handle whose result is ``output_model``."""
        def finish(raw: dict[str, Any]) -> M:
            return self._typed_output(tool, self._checked(tool, raw), raw, output_model)

        try:
            from .tasks import handle  # type: ignore[import-not-found, unused-ignore]  # runtime-copy: optional
        except ImportError as exc:
            missing("tasks", f"start_{tool.name}", exc)
        return handle.TaskHandle(self, tool.name, tool, await self._start(tool, args), finish)

    async def _start_content(self, tool: ToolDef, args: dict[str, Any]) -> TaskHandle[ToolResult]:
        """``start_<tool>`` of a tool without ``outputSchema``: a handle whose result is the ToolResult."""
        try:
            from .tasks import handle  # type: ignore[import-not-found, unused-ignore]  # runtime-copy: optional
        except ImportError as exc:
            missing("tasks", f"start_{tool.name}", exc)
        return handle.TaskHandle(self, tool.name, tool, await self._start(tool, args), lambda raw: self._checked(tool, raw))

    # -- skills (client/skills/calls.py) ---------------------------------------------------------

    @property
    def supports_skills(self) -> bool:
        """True when the server declared the Skills extension (connect first)."""
        extensions = self.server_capabilities.get("extensions")
        return isinstance(extensions, dict) and isinstance(extensions.get(SKILLS_EXTENSION), dict)

    async def list_skills(self, *, max_pages: int = 1000, timeout: float | None = None) -> list[SkillEntry]:
        """Every skill the server lists (``skills/list``, following ``nextCursor``); reads no file
        (:func:`~client.skills.calls.list_skills`).

        Raises:
            MethodNotFoundError: the server does not serve the extension.
            ProtocolError: an entry or a page that is not what the extension defines.
        """
        try:
            from .skills import calls  # type: ignore[import-not-found, unused-ignore]  # runtime-copy: optional
        except ImportError as exc:
            missing("skills", "list_skills", exc)
        entries: list[SkillEntry] = await calls.list_skills(self, max_pages=max_pages, timeout=timeout)
        return entries

    async def get_skill(self, uri: str, *, timeout: float | None = None) -> SkillEntry:
        """The entry of one skill (``skills/get``; ``uri`` is its ``SKILL.md``); reads no file.

        Raises:
            InvalidParamsError: the server serves no such skill (-32602).
        """
        try:
            from .skills import calls  # type: ignore[import-not-found, unused-ignore]  # runtime-copy: optional
        except ImportError as exc:
            missing("skills", "get_skill", exc)
        return await calls.get_skill(self, uri, timeout=timeout)

    async def load_skill(self, skill: SkillEntry | str, *, timeout: float | None = None) -> LoadedSkill:
        """Read the skill's ``SKILL.md`` and verify it (size, digest, frontmatter) before use
        (:func:`~client.skills.calls.load_skill`).

        ``skill`` is an entry of :meth:`list_skills`, a ``SKILL.md`` URI (then fetched with
        :meth:`get_skill` first), or a skill's name (then looked up in :meth:`list_skills`).

        Raises:
            SkillVerificationError: the file differs from the entry (a subclass says how).
            InvalidParamsError: no skill has that URI or name.
        """
        try:
            from .skills import calls  # type: ignore[import-not-found, unused-ignore]  # runtime-copy: optional
        except ImportError as exc:
            missing("skills", "load_skill", exc)
        return await calls.load_skill(self, skill, timeout=timeout)

    async def read_skill_file(self, skill: SkillEntry, path_or_uri: str, *, timeout: float | None = None) -> SkillFile:
        """Read one file of ``skill`` (a URI, or a path inside the skill's folder) and verify it
        against the manifest (size and digest; the frontmatter too for the skill's ``SKILL.md``).

        Raises:
            SkillVerificationError: the file differs from its manifest entry, or is not listed.
        """
        try:
            from .skills import calls  # type: ignore[import-not-found, unused-ignore]  # runtime-copy: optional
        except ImportError as exc:
            missing("skills", "read_skill_file", exc)
        return await calls.read_skill_file(self, skill, path_or_uri, timeout=timeout)


async def _nothing() -> None:
    """No call: :meth:`ClientConnection._with_retry` only connects (with retries)."""
