"""A rented agent as a tool of a chat model (OpenAI chat-completions tool calling), in a plain loop.

By default it talks to the local stack's model server (`model_server_url` in .local/stack.json), a
deterministic OpenAI-compatible server: its `[[tool:NAME {args}]]` directive makes it call the tool.
Set OPENAI_BASE_URL (https://api.openai.com/v1), OPENAI_API_KEY and OPENAI_MODEL to use a real model,
and ask in plain words instead. Works as well with the `openai` package: pass `tool.openai()` in
`tools`, and `handle_openai_tool_calls(tools, message.model_dump())` answers its tool calls.
"""

import json
import os
import urllib.request
from typing import Any

from _local import settings, stack

from agent_rental import AgentRental, agent_tool, handle_openai_tool_calls

url, key, listing_id = settings("contract-reviewer", "listing_id")
client = AgentRental(url, api_key=key)
tool = agent_tool(client, listing_id)  # name, description and parameters from the listing and its input schema
base = os.environ.get("OPENAI_BASE_URL") or stack()["model_server_url"] + "/v1"


def chat(messages: list[dict[str, Any]]) -> dict[str, Any]:
    body = json.dumps({"model": os.environ.get("OPENAI_MODEL", "local-model"), "messages": messages, "tools": [tool.openai()]}).encode()
    # Without OPENAI_API_KEY: the local model server's key (the demo creators' provider key, local/demo.ts).
    headers = {"content-type": "application/json", "authorization": f"Bearer {os.environ.get('OPENAI_API_KEY', 'sk-local-demo-provider-key')}"}
    with urllib.request.urlopen(urllib.request.Request(base + "/chat/completions", data=body, headers=headers), timeout=120) as response:
        return dict(json.loads(response.read())["choices"][0]["message"])


arguments = json.loads(os.environ.get("TOOL_ARGUMENTS", '{"task": "Review this contract", "contract": "The supplier accepts unlimited liability."}'))
prompt = os.environ.get("PROMPT", f"Have the reviewer check my contract. [[tool:{tool.name} {json.dumps(arguments)}]]")
messages: list[dict[str, Any]] = [{"role": "user", "content": prompt}]
while True:
    message = chat(messages)
    messages.append(message)
    if not message.get("tool_calls"):
        break
    messages.extend(handle_openai_tool_calls([tool], message))  # runs the agent: {"role": "tool", ...}
print(message["content"])
