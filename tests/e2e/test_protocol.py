"""The MCP handshake and tools/list: what a client learns about the server before calling it.

Every listed tool (the core code tools and every tool added later) must carry what an LLM needs to use it
without guessing: a description, an input schema whose every parameter is described, an output
schema, and annotations.
"""

from __future__ import annotations

import pytest
from conftest import CORE_TOOLS
from jsonschema.validators import validator_for

pytestmark = pytest.mark.anyio


async def test_initialize_reports_server_and_tools_capability(open_client, fixture_root):
    async with open_client(fixture_root("python-service")) as client:
        # initialize() already ran in open_client; the SDK keeps its result.
        info = await client.session.initialize()
        assert info.server_info.name == "code-intel"
        assert info.server_info.version, "server version must be reported"
        assert info.capabilities.tools is not None, "tools capability not advertised"
        assert info.instructions and "find_definitions" in info.instructions


async def test_every_tool_is_fully_described(open_client, fixture_root):
    async with open_client(fixture_root("python-service")) as client:
        listed = await client.session.list_tools()
    names = [tool.name for tool in listed.tools]
    assert len(names) == len(set(names)), f"duplicate tool names: {names}"
    missing = set(CORE_TOOLS) - set(names)
    assert not missing, f"tools missing from tools/list: {missing}"

    problems = []
    for tool in listed.tools:
        where = tool.name
        if not (tool.description and len(tool.description) >= 40):
            problems.append(f"{where}: description missing or too short to act on")
        schema = tool.input_schema
        if schema.get("type") != "object":
            problems.append(f"{where}: inputSchema is not an object schema")
        validator_for(schema).check_schema(schema)  # raises on an invalid JSON Schema
        properties = schema.get("properties", {})
        for prop, spec in properties.items():
            if not (spec.get("description") or "").strip():
                problems.append(f"{where}.{prop}: parameter has no description")
        for required in schema.get("required", []):
            if required not in properties:
                problems.append(f"{where}: required parameter {required} is not a property")
        # Unknown arguments are rejected by the server; the schema must say so too.
        if schema.get("additionalProperties") is not False:
            problems.append(f"{where}: inputSchema allows unknown arguments")
        output = tool.output_schema
        if not output or output.get("type") != "object":
            problems.append(f"{where}: no object outputSchema")
        else:
            validator_for(output).check_schema(output)
            if not output.get("properties"):
                problems.append(f"{where}: outputSchema lists no properties")
        annotations = tool.annotations
        if annotations is None or annotations.read_only_hint is None:
            problems.append(f"{where}: no readOnlyHint annotation")
        elif tool.name in CORE_TOOLS and annotations.read_only_hint is not True:
            problems.append(f"{where}: a code tool must be readOnlyHint: true")
        if tool.name in CORE_TOOLS and annotations is not None:
            if annotations.destructive_hint is True:
                problems.append(f"{where}: a read-only tool claims to be destructive")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    ("tool", "required"),
    [
        ("search_text", {"pattern"}),
        ("search_files", {"pattern"}),
        ("find_definitions", {"symbol"}),
        ("find_references", {"symbol"}),
        ("get_symbols", {"path"}),
        ("analyze_structure", {"path"}),
        ("get_function_at_line", {"file_path", "line"}),
    ],
)
async def test_parameter_names_follow_the_seeds(open_client, fixture_root, tool, required):
    async with open_client(fixture_root("python-service")) as client:
        listed = {t.name: t for t in (await client.session.list_tools()).tools}
    schema = listed[tool].input_schema
    assert set(schema.get("required", [])) == required
    seed_params = {
        "search_text": {"pattern", "path", "file_type", "context_before", "context_after", "max_results"},
        "search_files": {"pattern", "path"},
        "find_definitions": {"symbol", "path", "language", "exact_match"},
        "find_references": {"symbol", "path"},
        "get_symbols": {"path", "kinds"},
        "analyze_structure": {"path"},
        "get_function_at_line": {"file_path", "line"},
    }[tool]
    assert seed_params <= set(schema["properties"]), (
        f"{tool} lacks seed parameters {seed_params - set(schema['properties'])}"
    )
