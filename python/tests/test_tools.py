"""Rented agents as tools: the OpenAI and Anthropic shapes from the listing's real input schema, and a
tool loop against the model server's OpenAI chat-completions endpoint."""

from __future__ import annotations

import json
import urllib.request
import uuid
from typing import Any

from agent_rental import AgentRental, agent_tool, handle_anthropic_tool_uses, handle_openai_tool_calls, rented_agent_tools

from conftest import control


def test_an_agent_becomes_openai_and_anthropic_tools_from_its_input_schema(world: dict[str, Any], client: AgentRental) -> None:
    tool = agent_tool(client, world["listings"]["one_time"]["listing_id"])
    listing = client.listings.get(world["listings"]["one_time"]["listing_id"])
    parameters = tool.openai()["function"]["parameters"]
    # The agent's own field (topic) sits beside task; its schema stays closed.
    assert parameters["properties"]["topic"] == {"type": "string"}
    assert parameters["required"] == ["task"] and parameters["additionalProperties"] is False
    assert tool.openai() == {"type": "function", "function": {"name": tool.name, "description": f"{listing['title']}: {listing['description']}", "parameters": parameters}}
    assert tool.anthropic() == {"name": tool.name, "description": tool.openai()["function"]["description"], "input_schema": parameters}
    names = {t.name for t in rented_agent_tools(client)}
    assert tool.name in names and len(names) >= 4


def test_a_tool_call_runs_the_agent_and_bad_arguments_or_refusals_answer_error_content(world: dict[str, Any], client: AgentRental) -> None:
    tool = agent_tool(client, world["listings"]["one_time"]["listing_id"])
    assert json.loads(tool.run('{"task": "tool run", "topic": "tides"}')) == {"findings": ["done: tool run"]}
    bad = json.loads(tool.run('{"task": "x", "colour": "red"}'))
    assert bad["error"]["code"] == "invalid_tool_arguments"
    refused = agent_tool(client, world["listings"]["unrented"]["listing_id"]).run({"task": "x"})
    assert json.loads(refused)["error"]["code"] == "credential_not_found"
    blocks = handle_anthropic_tool_uses([tool], [{"type": "tool_use", "id": "toolu_1", "name": tool.name, "input": {"task": "anthropic run"}}])
    assert blocks == [{"type": "tool_result", "tool_use_id": "toolu_1", "content": json.dumps({"findings": ["done: anthropic run"]})}]


def test_an_openai_tool_loop_against_the_model_server(world: dict[str, Any], client: AgentRental) -> None:
    tool = agent_tool(client, world["listings"]["subscription"]["listing_id"])

    def chat(messages: list[dict[str, Any]]) -> dict[str, Any]:
        body = json.dumps({"model": "local-model", "messages": messages, "tools": [tool.openai()]}).encode()
        request = urllib.request.Request(world["model_server_url"] + "/v1/chat/completions", data=body, headers={"content-type": "application/json", "authorization": f"Bearer {world['model_api_key']}"})
        with urllib.request.urlopen(request, timeout=60) as response:
            return dict(json.loads(response.read())["choices"][0]["message"])

    conversation = uuid.uuid4()

    def key(call_id: str) -> str:
        return f"{conversation}:{call_id}"

    messages: list[dict[str, Any]] = [{"role": "user", "content": f'Look into tides. [[tool:{tool.name} {{"task": "loop run", "topic": "tides"}}]]'}]
    for _ in range(4):
        message = chat(messages)
        messages.append(message)
        if not message.get("tool_calls"):
            break
        messages.extend(handle_openai_tool_calls([tool], message, idempotency_key=key))
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "assistant"]
    assert messages[2]["content"] == json.dumps({"findings": ["done: loop run"]})
    assert f"Tool {tool.name} returned:" in messages[3]["content"]
    # Handling the same tool call again (a replayed conversation) answers the first run: the agent ran once.
    assert handle_openai_tool_calls([tool], messages[1], idempotency_key=key) == [messages[2]]
    assert control(world, "/deliveries", task="loop run")["count"] == 1


def test_an_anthropic_tool_use_loop_against_the_model_server(world: dict[str, Any], client: AgentRental) -> None:
    tool = agent_tool(client, world["listings"]["one_time"]["listing_id"])

    def create(messages: list[dict[str, Any]]) -> dict[str, Any]:
        body = json.dumps({"model": "local-model", "max_tokens": 512, "messages": messages, "tools": [tool.anthropic()]}).encode()
        headers = {"content-type": "application/json", "anthropic-version": "2023-06-01", "x-api-key": world["model_api_key"]}
        with urllib.request.urlopen(urllib.request.Request(world["model_server_url"] + "/v1/messages", data=body, headers=headers), timeout=60) as response:
            return dict(json.loads(response.read()))

    messages: list[dict[str, Any]] = [{"role": "user", "content": f'Look into waves. [[tool:{tool.name} {{"task": "anthropic loop", "topic": "waves"}}]]'}]
    for _ in range(4):
        response = create(messages)
        messages.append({"role": "assistant", "content": response["content"]})
        if response["stop_reason"] != "tool_use":
            break
        messages.append({"role": "user", "content": handle_anthropic_tool_uses([tool], response["content"])})
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant"]
    assert messages[2]["content"][0]["content"] == json.dumps({"findings": ["done: anthropic loop"]})
    assert f"Tool {tool.name} returned:" in messages[3]["content"][0]["text"]
