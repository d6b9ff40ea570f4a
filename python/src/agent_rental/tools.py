"""Rented agents as tools of a chat model: OpenAI function calling and Anthropic tool use.

Each rented agent becomes a tool named after it (``contract_reviewer`` for "Contract Reviewer"),
described by its listing, whose parameters are ``task`` plus the agent's own input schema (its fields
beside ``task`` when they can be merged, else under ``input``): the schema the listing's public
metadata declares. :meth:`AgentTool.run` runs a call with the client and answers the tool result text.
No dependency on the ``openai`` or ``anthropic`` packages: the shapes are plain dicts.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Optional, Union

from .client import AgentRental
from .errors import AgentRentalError, AgentRunFailedError, AgentToolInputError
from .models import Listing

TASK_PROPERTY: dict[str, Any] = {"type": "string", "minLength": 1, "maxLength": 32768, "description": "What the agent should do, in natural language."}

_NOT_MERGEABLE = ("allOf", "anyOf", "oneOf", "not", "if", "then", "else", "$ref", "$dynamicRef", "patternProperties", "propertyNames", "dependentSchemas", "dependentRequired", "unevaluatedProperties", "minProperties", "maxProperties")


def tool_name_of(title: str) -> str:
    """A tool name from a title: lower-case words joined by underscores (``^[a-z0-9_]{1,48}$``)."""
    slug = re.sub(r"[^a-z0-9]+", "_", unicodedata.normalize("NFKD", title).lower()).strip("_")[:48].rstrip("_")
    return slug or "agent"


def agent_tool_parameters(input_schema: Any) -> tuple[dict[str, Any], bool]:
    """The tool's parameters from the agent's input schema, and whether the input sits beside ``task`` (flat)."""
    if not isinstance(input_schema, Mapping):
        return {"type": "object", "properties": {"task": TASK_PROPERTY, "input": {"type": "object", "additionalProperties": True, "description": "Structured input for the agent, shaped by its input schema."}}, "required": ["task"], "additionalProperties": False}, False
    schema = {k: v for k, v in input_schema.items() if k not in ("$schema", "$id")}
    properties = schema.get("properties") if isinstance(schema.get("properties"), Mapping) else {}
    assert isinstance(properties, Mapping)
    if schema.get("type") == "object" and "task" not in properties and not any(k in schema for k in _NOT_MERGEABLE):
        required = [r for r in schema.get("required", []) if isinstance(r, str)] if isinstance(schema.get("required"), list) else []
        return {**schema, "type": "object", "properties": {"task": TASK_PROPERTY, **properties}, "required": ["task", *required]}, True
    rest = {k: v for k, v in schema.items() if k not in ("$defs", "definitions")}
    needs_input = bool(schema.get("required")) if schema.get("type") == "object" else "type" in schema
    parameters: dict[str, Any] = {"type": "object"}
    for key in ("$defs", "definitions"):
        if key in schema:
            parameters[key] = schema[key]
    parameters["properties"] = {"task": TASK_PROPERTY, "input": {**rest, "description": rest.get("description", "The agent's input, shaped by its input schema.")}}
    parameters["required"] = ["task", "input"] if needs_input else ["task"]
    parameters["additionalProperties"] = False
    return parameters, False


@dataclass
class AgentTool:
    """A rented agent as a tool: its name, description and parameters (JSON Schema), and how to run it."""

    client: AgentRental
    agent_id: str
    name: str
    description: str
    parameters: dict[str, Any]
    flat: bool
    listing: Optional[Listing] = None
    #: ``"content"`` (default): a failure becomes a JSON error text for the model; ``"raise"``: it is raised.
    on_error: str = "content"
    runs: list[str] = field(default_factory=list)

    def openai(self) -> dict[str, Any]:
        """The OpenAI chat-completions ``tools`` entry: ``{"type": "function", "function": {...}}``."""
        return {"type": "function", "function": {"name": self.name, "description": self.description, "parameters": self.parameters}}

    def anthropic(self) -> dict[str, Any]:
        """The Anthropic messages ``tools`` entry: ``{"name", "description", "input_schema"}``."""
        return {"name": self.name, "description": self.description, "input_schema": self.parameters}

    def arguments(self, raw: Union[str, Mapping[str, Any]]) -> tuple[str, Union[str, dict[str, Any], None]]:
        """The task and input of a call's arguments (a JSON string, as OpenAI sends them, or a dict, as
        Anthropic does); AgentToolInputError when they do not fit the parameters."""
        value: Any = raw
        if isinstance(raw, str):
            try:
                value = json.loads(raw) if raw.strip() else {}
            except ValueError as error:
                raise AgentToolInputError(f"The tool arguments are not JSON: {error}") from error
        if not isinstance(value, Mapping):
            raise AgentToolInputError("The tool arguments must be a JSON object.")
        args = dict(value)
        task = args.pop("task", None)
        if not isinstance(task, str) or not task.strip():
            raise AgentToolInputError("task is required: a non-empty string saying what the agent should do.")
        allowed = list(self.parameters.get("properties", {}))
        if not self.flat or self.parameters.get("additionalProperties") is False:
            unknown = [k for k in args if k not in allowed]
            if unknown:
                raise AgentToolInputError(f"Unknown argument{'s' if len(unknown) > 1 else ''}: {', '.join(unknown)}. Allowed: {', '.join(allowed)}.")
        if self.flat:
            return task, (args or None)
        given = args.get("input")
        if given is None or isinstance(given, (str, dict)):
            return task, given
        raise AgentToolInputError("input must be a JSON object (or text, when the agent takes text).")

    def run(self, arguments: Union[str, Mapping[str, Any]], *, idempotency_key: Optional[str] = None) -> str:
        """Runs the agent for one tool call; answers the tool result: a string output as it is,
        structured output as JSON text. Failures (bad arguments, a refusal, a failed run) answer
        ``{"error": {...}}`` text the model can read, or are raised with ``on_error="raise"``."""
        try:
            task, given = self.arguments(arguments)
            run = self.client.execute(self.agent_id, task, input=given, idempotency_key=idempotency_key)
            self.runs.append(run["run_id"])
            if run["status"] != "completed":
                raise AgentRunFailedError(run)
            output = run.get("output")
            return output if isinstance(output, str) else json.dumps(output)
        except (AgentRentalError, AgentToolInputError) as error:
            if self.on_error == "raise":
                raise
            return json.dumps({"error": _describe(error)})


def _describe(error: Union[AgentRentalError, AgentToolInputError]) -> dict[str, Any]:
    if isinstance(error, AgentToolInputError):
        return {"code": error.code, "message": str(error)}
    info: dict[str, Any] = {"code": error.code, "message": error.message}
    if error.status:
        info["status"] = error.status
    if error.request_id:
        info["request_id"] = error.request_id
    if isinstance(error, AgentRunFailedError) and error.run_id:
        info["run_id"] = error.run_id
    if error.on_chain_error:
        info["on_chain_error"] = error.on_chain_error
    return info


def agent_tool(client: AgentRental, listing_id: str, *, name: Optional[str] = None, on_error: str = "content") -> AgentTool:
    """One rented agent as a tool, from its listing (``listing_id``: ``lst_…`` or the 0x on-chain id) and
    the input schema of its public metadata."""
    listing = client.listings.get(listing_id)
    metadata = client.listings.metadata(listing["metadata_uri"])
    parameters, flat = agent_tool_parameters(metadata.get("input_schema"))
    description = f"{listing['title']}: {listing['description']}"[:1024]
    return AgentTool(client=client, agent_id=listing["id"], name=name or tool_name_of(listing["title"]), description=description, parameters=parameters, flat=flat, listing=listing, on_error=on_error)


def rented_agent_tools(client: AgentRental, *, on_error: str = "content") -> list[AgentTool]:
    """Every agent the caller holds an active credential for, whose listing is active, as a tool.
    Names are unique: a clash gets the start of the on-chain id appended."""
    credentials = []
    offset = 0
    while True:
        page = client.credentials.list(status="active", limit=100, offset=offset)
        credentials.extend(page["credentials"])
        offset += len(page["credentials"])
        if not page["credentials"] or offset >= page["total"]:
            break
    tools: list[AgentTool] = []
    for credential in credentials:
        tool = agent_tool(client, credential["listing_id"], on_error=on_error)
        if tool.listing is not None and tool.listing.get("status") == "active":
            tools.append(tool)
    taken = {"run_agent"}
    for tool in sorted(tools, key=lambda t: (t.name, t.agent_id)):
        base, suffix = tool.name, (tool.listing["on_chain_id"] if tool.listing else "0x")[2:10].lower()
        name = base if base not in taken else f"{base}_{suffix}"
        n = 2
        while name in taken:
            name, n = f"{base}_{suffix}_{n}", n + 1
        taken.add(name)
        tool.name = name
    return tools


def handle_openai_tool_calls(tools: list[AgentTool], message: Mapping[str, Any], *, idempotency_key: Optional[Callable[[str], str]] = None) -> list[dict[str, Any]]:
    """The ``{"role": "tool", "tool_call_id", "content"}`` messages answering an assistant message's
    ``tool_calls`` that name one of ``tools``.

    Each call gets a fresh Idempotency-Key (the client's retries reuse it). To make handling the same tool
    call twice (a replayed conversation) answer the first run without a second charge, derive the key
    from the call's id: ``idempotency_key=lambda call_id: f"{conversation_id}:{call_id}"``."""
    by_name = {tool.name: tool for tool in tools}
    answers: list[dict[str, Any]] = []
    for call in message.get("tool_calls") or []:
        function = call.get("function") or {}
        tool = by_name.get(str(function.get("name")))
        if tool is None:
            continue
        call_id = call.get("id")
        content = tool.run(function.get("arguments") or "{}", idempotency_key=idempotency_key(str(call_id)) if idempotency_key and call_id else None)
        answers.append({"role": "tool", "tool_call_id": call.get("id"), "content": content})
    return answers


def handle_anthropic_tool_uses(tools: list[AgentTool], content: list[Mapping[str, Any]], *, idempotency_key: Optional[Callable[[str], str]] = None) -> list[dict[str, Any]]:
    """The ``tool_result`` blocks (for the next user message) answering the ``tool_use`` blocks of an
    Anthropic response's ``content`` that name one of ``tools`` (``idempotency_key`` as for
    :func:`handle_openai_tool_calls`, from the block's id)."""
    by_name = {tool.name: tool for tool in tools}
    results: list[dict[str, Any]] = []
    for block in content:
        if block.get("type") != "tool_use" or block.get("name") not in by_name:
            continue
        tool = by_name[str(block["name"])]
        block_id = block.get("id")
        text = tool.run(block.get("input") or {}, idempotency_key=idempotency_key(str(block_id)) if idempotency_key and block_id else None)
        results.append({"type": "tool_result", "tool_use_id": block.get("id"), "content": text, **({"is_error": True} if text.startswith('{"error":') else {})})
    return results
