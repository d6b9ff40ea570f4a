"""A LangChain adapter: rented agents as LangChain tools.

LangChain is imported only when :func:`langchain_tools` is called, so the core package never depends
on it; install ``langchain-core`` to use this module.
"""

from __future__ import annotations

import importlib
from typing import Any

from .tools import AgentTool


def langchain_tools(tools: list[AgentTool]) -> list[Any]:
    """LangChain ``StructuredTool``s running the given agent tools (their JSON Schema as ``args_schema``)."""
    try:
        module = importlib.import_module("langchain_core.tools")
    except ImportError as error:
        raise ImportError("agent_rental.langchain needs LangChain: pip install langchain-core") from error
    structured = getattr(module, "StructuredTool")

    def make(tool: AgentTool) -> Any:
        def call(**kwargs: Any) -> str:
            return tool.run(kwargs)

        return structured.from_function(func=call, name=tool.name, description=tool.description, args_schema=tool.parameters)

    return [make(tool) for tool in tools]
