"""Client driver for the official MCP conformance suite, built on the generated client runtime.

The harness runs ``python client_driver.py <mock server URL>`` once per client scenario,
with ``MCP_CONFORMANCE_SCENARIO`` (the scenario), ``MCP_CONFORMANCE_PROTOCOL_VERSION``
(``2025-11-25`` or ``2026-07-28``) and, for some scenarios, ``MCP_CONFORMANCE_CONTEXT``
(JSON) in the environment.  The driver connects with ``ClientBase.http`` (the runtime
copied into every generated package: era negotiation, ``_meta``, HTTP headers, MRTR
rounds, SSE resumption) at that protocol version, does what the scenario asks, and exits
0; any exception exits 1.  An unknown scenario exits 2, so a new scenario cannot pass by
accident.

Run by ``scripts/conformance`` (see docs/conformance.md); by hand::

    MCP_CONFORMANCE_SCENARIO=tools_call MCP_CONFORMANCE_PROTOCOL_VERSION=2026-07-28 \\
        .venv/bin/python tests/conformance/client_driver.py http://localhost:PORT/mcp
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "generated_examples"))

# The generic client of the runtime copy in the generated conformance package (any
# generated package carries the same runtime; ClientBase is its untyped client).
from everything import (  # noqa: E402
    ElicitationRequest,
    ElicitationResponse,
    Root,
    SamplingRequest,
    SamplingResponse,
    SkillVerificationError,
)
from mcp_codegen_runtime.client import (  # noqa: E402  (a script: after its sys.path line)
    ClientBase,
    ClientCredentials,
    EnterpriseManaged,
    JwtBearer,
    OAuthSettings,
)

#: The client ID metadata document URL the auth/basic-cimd scenario expects as client id.
CIMD_URL = "https://conformance-test.local/client-metadata.json"

logger = logging.getLogger("conformance-driver")
Scenario = Callable[[ClientBase, dict[str, Any]], Awaitable[None]]


# --------------------------------------------------------------------------- client input
def default_for(schema: dict[str, Any]) -> Any:
    """A value for one elicitation form field: its default, else something valid."""
    if "default" in schema:
        return schema["default"]
    if schema.get("enum"):
        return schema["enum"][0]
    for key in ("oneOf", "anyOf"):
        options = schema.get(key)
        if isinstance(options, list) and options and isinstance(options[0], dict) and "const" in options[0]:
            return options[0]["const"]
    kind = schema.get("type")
    return {"boolean": True, "integer": 0, "number": 0, "array": [], "object": {}}.get(str(kind), "conformance")


def on_elicitation(request: ElicitationRequest) -> ElicitationResponse:
    """Accept every form, filling each field with its default (SEP-1034) or a valid value."""
    if request.mode == "url":
        return ElicitationResponse(action="decline")
    properties = (request.requestedSchema or {}).get("properties") or {}
    content = {name: default_for(field) for name, field in properties.items() if isinstance(field, dict)}
    return ElicitationResponse(action="accept", content=content)


def on_sampling(request: SamplingRequest) -> SamplingResponse:
    return SamplingResponse(
        content={"type": "text", "text": "A reply from the conformance driver."},
        model="conformance-driver",
        stopReason="endTurn",
    )


ROOTS = [Root(uri="file:///tmp/conformance-root", name="Conformance root")]


# --------------------------------------------------------------------------- scenarios
async def list_only(client: ClientBase, context: dict[str, Any]) -> None:
    await client.list_tools()


async def tools_call(client: ClientBase, context: dict[str, Any]) -> None:
    tools = {t.name for t in await client.list_tools()}
    if "add_numbers" not in tools:
        raise SystemExit(f"add_numbers not listed: {sorted(tools)}")
    result = await client.call_raw("add_numbers", {"a": 5, "b": 3})
    print(result.text())


async def elicitation_defaults(client: ClientBase, context: dict[str, Any]) -> None:
    await client.list_tools()
    result = await client.call_raw("test_client_elicitation_defaults", {})
    print(result.text())


async def sse_retry(client: ClientBase, context: dict[str, Any]) -> None:
    await client.list_tools()
    result = await client.call_raw("test_reconnection", {})
    print(result.text())


async def request_state(client: ClientBase, context: dict[str, Any]) -> None:
    tools = {t.name for t in await client.list_tools()}
    for name in ("test_mrtr_echo_state", "test_mrtr_no_state", "test_mrtr_unrelated", "test_mrtr_no_result_type"):
        if name in tools:
            print(name, (await client.call_raw(name, {})).text())
    # Two MRTR flows and an unrelated call at once: input state must not leak across them.
    calls = [client.call_raw(n, {}) for n in ("test_mrtr_echo_state", "test_mrtr_unrelated") if n in tools]
    await asyncio.gather(*calls)


async def standard_headers(client: ClientBase, context: dict[str, Any]) -> None:
    for tool in await client.list_tools():
        await client.call_raw(tool.name, {})
    # Also exercise Mcp-Method / Mcp-Name on the other methods the scenario checks.
    resources = await client.request("resources/list")
    for resource in (resources or {}).get("resources") or []:
        await client.request("resources/read", {"uri": resource["uri"]})
    prompts = await client.request("prompts/list")
    for prompt in (prompts or {}).get("prompts") or []:
        await client.request("prompts/get", {"name": prompt["name"]})


async def context_tool_calls(client: ClientBase, context: dict[str, Any]) -> None:
    """Call the tools the scenario's context names, with its arguments (x-mcp-header tests)."""
    await client.list_tools()
    calls = context.get("toolCalls") or []
    if not calls:
        raise SystemExit(f"no toolCalls in MCP_CONFORMANCE_CONTEXT: {context}")
    for call in calls:
        print(call["name"], (await client.call_raw(call["name"], call.get("arguments") or {})).text())


async def invalid_tool_headers(client: ClientBase, context: dict[str, Any]) -> None:
    """Call every tool the client kept (the transport drops invalid x-mcp-header tools)."""
    for tool in await client.list_tools():
        properties = tool.input_schema.get("properties") or {}
        arguments = {name: default_for(schema) for name, schema in properties.items() if isinstance(schema, dict)}
        await client.call_raw(tool.name, arguments)


async def schema_preservation(client: ClientBase, context: dict[str, Any]) -> None:
    tools = {t.name: t for t in await client.list_tools()}
    focal = tools["json_schema_2020_12_tool"]
    await client.call_raw("json_schema_echo", {"schema": focal.raw["inputSchema"]})


async def auth_flow(client: ClientBase, context: dict[str, Any]) -> None:
    """Log in (the transport runs the OAuth flow on the first 401), list the tools, call one."""
    tools = [t.name for t in await client.list_tools()]
    if tools:
        print(tools[0], (await client.call_raw(tools[0], {})).text())


async def skills_list_only(client: ClientBase, context: dict[str, Any]) -> None:
    """Skills (SEP-2640): list them and load none, so no file may be read (no prefetch)."""
    for skill in await client.list_skills():
        print(skill.uri, skill.description)


async def skills_load(client: ClientBase, context: dict[str, Any]) -> None:
    """Skills (SEP-2640): load each skill (SKILL.md, verified), then read its other files
    (each verified); a skill failing verification is refused and none of its files read."""
    for skill in await client.list_skills():
        try:
            loaded = await client.load_skill(skill)
        except SkillVerificationError as exc:
            print(f"refused {skill.uri}: {type(exc).__name__}: {exc}")
            continue
        for resource in loaded.entry.resources if loaded.entry.resources != "dynamic" else []:
            if resource.uri != skill.uri:
                file = await client.read_skill_file(skill, resource.uri)
                print(file.uri, len(file.data), "bytes, verified")


#: Every non-extension auth/* scenario: one flow, the scenario checks what it sent.
AUTH_SCENARIOS = [
    "auth/metadata-default", "auth/metadata-var1", "auth/metadata-var2", "auth/metadata-var3",
    "auth/basic-cimd", "auth/scope-from-www-authenticate", "auth/scope-from-scopes-supported",
    "auth/scope-omitted-when-undefined", "auth/scope-step-up", "auth/scope-retry-limit",
    "auth/token-endpoint-auth-basic", "auth/token-endpoint-auth-post", "auth/token-endpoint-auth-none",
    "auth/pre-registration", "auth/2025-03-26-oauth-metadata-backcompat", "auth/2025-03-26-oauth-endpoint-fallback",
    "auth/resource-mismatch", "auth/offline-access-scope", "auth/offline-access-not-supported",
    "auth/authorization-server-migration", "auth/iss-supported", "auth/iss-not-advertised",
    "auth/iss-supported-missing", "auth/iss-wrong-issuer", "auth/iss-unexpected", "auth/iss-normalized",
    "auth/metadata-issuer-mismatch",
    # extensions: grants without a user (settings below), DPoP (detected from both servers)
    "auth/client-credentials-jwt", "auth/client-credentials-basic", "auth/enterprise-managed-authorization",
    "auth/wif-jwt-bearer", "auth/dpop", "auth/dpop-nonce",
]  # fmt: skip

SCENARIOS: dict[str, Scenario] = {
    "initialize": list_only,
    "tools_call": tools_call,
    "elicitation-sep1034-client-defaults": elicitation_defaults,
    "sse-retry": sse_retry,
    "request-metadata": list_only,
    "sep-2322-client-request-state": request_state,
    "http-standard-headers": standard_headers,
    "http-custom-headers": context_tool_calls,
    "http-invalid-tool-headers": invalid_tool_headers,
    "json-schema-ref-no-deref": list_only,
    "json-schema-2020-12-preservation": schema_preservation,
    **dict.fromkeys(AUTH_SCENARIOS, auth_flow),
    "sep-2640-client-no-prefetch": skills_list_only,
    **dict.fromkeys(["sep-2640-client-verify-digest", "sep-2640-client-verify-size",
                     "sep-2640-client-verify-frontmatter"], skills_load),
}


def oauth_settings(scenario: str, context: dict[str, Any]) -> OAuthSettings | None:
    """Headless OAuth (the mock authorization servers approve at once) for auth/* scenarios;
    pre-registered credentials when the context has them, the CIMD URL always."""
    if not scenario.startswith("auth/"):
        return None
    grants = grant_settings(scenario, context)
    if grants is not None:
        return grants
    return OAuthSettings.headless(
        client_id=context.get("client_id"),
        client_secret=context.get("client_secret"),
        client_metadata_url=CIMD_URL,
        client_name="mcp-codegen-conformance-driver",
    )


def grant_settings(scenario: str, context: dict[str, Any]) -> OAuthSettings | None:
    """The auth extension scenarios without a user: the context holds the client's credentials."""
    if scenario == "auth/client-credentials-jwt":
        return OAuthSettings(client_id=context["client_id"], private_key=context["private_key_pem"],
                             signing_algorithm=context.get("signing_algorithm"), grant=ClientCredentials())
    if scenario == "auth/client-credentials-basic":
        return OAuthSettings(client_id=context["client_id"], client_secret=context["client_secret"],
                             grant=ClientCredentials())
    if scenario == "auth/wif-jwt-bearer":
        return OAuthSettings(client_id=context.get("client_id"), grant=JwtBearer(assertion=context["valid_jwt"]))
    if scenario == "auth/enterprise-managed-authorization":
        grant = EnterpriseManaged(id_token=context["idp_id_token"], idp_token_endpoint=context["idp_token_endpoint"],
                                  idp_client_id=context.get("idp_client_id"))
        return OAuthSettings(client_id=context["client_id"], client_secret=context["client_secret"], grant=grant)
    return None


async def run(scenario: str, version: str, url: str, context: dict[str, Any]) -> None:
    client = ClientBase.http(
        url,
        protocol_version=version,
        client_info={"name": "mcp-codegen-conformance-driver", "version": "1.0.0"},
        elicitation=on_elicitation,
        sampling=on_sampling,
        roots=ROOTS,
        # sse-retry times the reconnection of the tools/call stream; an eager standalone GET
        # stream (opened by default when input handlers are given) would race with it
        listen=False if scenario == "sse-retry" else None,
        audit=None,
        auth=oauth_settings(scenario, context),
        timeout=30.0,
        max_timeout=60.0,
    )
    async with client:
        await SCENARIOS[scenario](client, context)


def main(argv: list[str]) -> int:
    logging.basicConfig(stream=sys.stderr, level=os.environ.get("CONFORMANCE_DRIVER_LOG", "WARNING"))
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    version = os.environ.get("MCP_CONFORMANCE_PROTOCOL_VERSION", "2025-11-25")
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    if len(argv) < 2:
        print("usage: client_driver.py <server URL> (scenario from MCP_CONFORMANCE_SCENARIO)", file=sys.stderr)
        return 2
    if scenario not in SCENARIOS:
        print(f"client_driver: unsupported scenario {scenario!r}", file=sys.stderr)
        return 2
    asyncio.run(run(scenario, version, argv[-1], context))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
