"""The Python client of the agent rental and task execution API.

    from agent_rental import AgentRental
    client = AgentRental("http://127.0.0.1:8787", api_key="svc_test_...")
    run = client.execute("contract-reviewer-1a2b3c4d", "Review this contract", input={"contract": "..."})
    print(run["output"])
"""

__version__ = "0.1.0"

from .aio import AsyncAgentRental
from .analytics import CurrencyAnalytics, CurrencyPeriodFigures, analytics_by_currency, format_amount, format_units
from .client import WALLET_SIGNATURE_HEADER, AgentRental, DoneEvent, EventStream, OutputEvent, RetryInfo, StreamEvent, run_proof_message, run_wallet_signature
from .errors import (
    AccessError,
    AgentRentalError,
    AgentRunFailedError,
    AgentToolInputError,
    ApiError,
    AuthError,
    NotFoundError,
    OnChainError,
    RateLimitError,
    PaymentRequiredError,
    SpendLimitError,
)
from .receipts import keccak256, run_receipt_leaf, verify_run_receipt
from .tools import AgentTool, agent_tool, handle_anthropic_tool_uses, handle_openai_tool_calls, rented_agent_tools

__all__ = [
    "AccessError",
    "AgentRental",
    "AgentRentalError",
    "AgentRunFailedError",
    "AgentTool",
    "AgentToolInputError",
    "ApiError",
    "AsyncAgentRental",
    "AuthError",
    "CurrencyAnalytics",
    "CurrencyPeriodFigures",
    "DoneEvent",
    "EventStream",
    "NotFoundError",
    "OnChainError",
    "OutputEvent",
    "RateLimitError",
    "PaymentRequiredError",
    "SpendLimitError",
    "RetryInfo",
    "StreamEvent",
    "WALLET_SIGNATURE_HEADER",
    "agent_tool",
    "analytics_by_currency",
    "format_amount",
    "format_units",
    "handle_anthropic_tool_uses",
    "handle_openai_tool_calls",
    "keccak256",
    "rented_agent_tools",
    "run_proof_message",
    "run_receipt_leaf",
    "run_wallet_signature",
    "verify_run_receipt",
]
