"""Typed errors, with the same names and codes as the TypeScript SDK's.

Every error the API answers with is an :class:`ApiError` (or one of its subclasses, chosen by the HTTP
status); failures that never reached an answer (the network, a stream that could not be resumed) are
:class:`AgentRentalError` with ``status`` 0 and code ``connection_failed`` or ``stream_interrupted``.
"""

from __future__ import annotations

import base64
import binascii
import email.utils
import json
import time
from typing import Any, Mapping, Optional, TypedDict


class OnChainError(TypedDict):
    """The contract custom error behind a refusal, decoded by the service from the revert data."""

    contract: str
    error: str


class AgentRentalError(Exception):
    """The base of every error the SDK raises.

    Attributes:
        code: the API's error code (for example ``credential_not_found``), or an SDK code when no answer came.
        status: the HTTP status; 0 when the API did not answer.
        message: what went wrong, in words.
        request_id: the failed request's id (quote it to support), when the API answered.
        retry_after: seconds the API asked to wait (its Retry-After header), else None.
        on_chain_error: the contract error behind the refusal, when there is one.
    """

    def __init__(
        self,
        *,
        code: str,
        status: int,
        message: str,
        request_id: Optional[str] = None,
        retry_after: Optional[float] = None,
        on_chain_error: Optional[OnChainError] = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.status = status
        self.message = message
        self.request_id = request_id
        self.retry_after = retry_after
        self.on_chain_error = on_chain_error

    def __str__(self) -> str:
        where = f" (HTTP {self.status}, request id {self.request_id})" if self.request_id else (f" (HTTP {self.status})" if self.status else "")
        return f"{self.code}{where}: {self.message}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code!r}, status={self.status!r}, request_id={self.request_id!r}, retry_after={self.retry_after!r})"


class ApiError(AgentRentalError):
    """An error answered by the API. The subclasses below narrow it by status."""


class AuthError(ApiError):
    """401: no, an invalid, a revoked or an expired credential; or a signature that cannot be verified."""


class AccessError(ApiError):
    """403: access refused (no credential, expired, empty balance, paused or closed listing, ...)."""


class NotFoundError(ApiError):
    """404: no such listing, run, key or endpoint."""


class RateLimitError(ApiError):
    """429: a rate or concurrency limit; ``retry_after`` says how long to wait."""


class SpendLimitError(ApiError):
    """402 ``spend_limit_reached``: the API key's or app's spending limit is reached; nothing ran, nothing
    was charged. ``limit`` is the limit hit (``scope``, ``id``, ``currency``, ``period``, ``amount``,
    ``spent``, ``reserved``, ``remaining``, ``resets_at``); ``resets_at`` is when it resets (an ISO 8601
    string, None for a limit in total) and ``retry_after`` the seconds until then."""

    limit: Optional[Mapping[str, Any]] = None
    resets_at: Optional[str] = None


class PaymentRequiredError(ApiError):
    """402 ``payment_required`` (x402): the listing is paid per run by x402 and the request carried no
    payment, or a payment that was refused; nothing ran, nothing was charged. ``payment_required`` is the
    decoded PAYMENT-REQUIRED header (``x402Version``, ``error``, ``resource``, ``accepts``), None when it
    was absent or unreadable; ``reason`` is its ``error`` (``payment_required``, or the refusal's x402
    reason) and ``accepts`` the ways to pay, with the first one's ``amount``, ``asset``, ``pay_to`` and
    ``network`` as attributes."""

    payment_required: Optional[Mapping[str, Any]] = None

    @property
    def accepts(self) -> list[Mapping[str, Any]]:
        accepts = (self.payment_required or {}).get("accepts")
        return [a for a in accepts if isinstance(a, Mapping)] if isinstance(accepts, list) else []

    @property
    def reason(self) -> Optional[str]:
        reason = (self.payment_required or {}).get("error")
        return reason if isinstance(reason, str) else None

    def _first(self, key: str) -> Optional[str]:
        value = self.accepts[0].get(key) if self.accepts else None
        return value if isinstance(value, str) else None

    @property
    def amount(self) -> Optional[str]:
        return self._first("amount")

    @property
    def asset(self) -> Optional[str]:
        return self._first("asset")

    @property
    def pay_to(self) -> Optional[str]:
        return self._first("payTo")

    @property
    def network(self) -> Optional[str]:
        return self._first("network")


def decode_payment_required(header: Optional[str]) -> Optional[Mapping[str, Any]]:
    """The PAYMENT-REQUIRED header (base64 of UTF-8 JSON) decoded, or None when absent or unreadable."""
    if header is None or header.strip() == "":
        return None
    try:
        parsed = json.loads(base64.b64decode(header.strip(), validate=True).decode("utf-8"))
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return None
    return parsed if isinstance(parsed, dict) and isinstance(parsed.get("accepts"), list) else None


class AgentRunFailedError(AgentRentalError):
    """A tool call whose run finished with status ``failed`` (raised by the tool adapters only)."""

    def __init__(self, run: Mapping[str, Any]) -> None:
        error = run.get("error") or {}
        code = error.get("code") if isinstance(error, Mapping) else None
        message = error.get("message") if isinstance(error, Mapping) else None
        super().__init__(code=str(code or "run_failed"), status=200, message=str(message or f"Run {run.get('run_id')} failed."))
        self.run = run
        self.run_id = run.get("run_id")


class AgentToolInputError(ValueError):
    """Tool-call arguments that do not match the tool's parameters (or are not JSON)."""

    code = "invalid_tool_arguments"


def parse_retry_after(header: Optional[str], now: Optional[float] = None) -> Optional[float]:
    """Seconds from a Retry-After header (delta seconds or an HTTP date); None when absent or unreadable."""
    if header is None or header.strip() == "":
        return None
    text = header.strip()
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    else:
        if seconds >= 0 and seconds == seconds and seconds != float("inf"):
            return seconds
        return None
    try:
        date = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    return max(0.0, float(int(date.timestamp() - (time.time() if now is None else now) + 0.999)))


_BY_STATUS: dict[int, type[ApiError]] = {401: AuthError, 402: SpendLimitError, 403: AccessError, 404: NotFoundError, 429: RateLimitError}


def error_from_response(status: int, headers: Mapping[str, str], body_text: str) -> ApiError:
    """Builds the typed error of a non-2xx answer from its body text and headers (lower-case names)."""
    envelope: Any = None
    try:
        envelope = json.loads(body_text)
    except ValueError:
        envelope = None
    body: Mapping[str, Any] = {}
    if isinstance(envelope, dict) and isinstance(envelope.get("error"), dict):
        body = envelope["error"]
    chain = body.get("on_chain_error")
    on_chain: Optional[OnChainError] = None
    if isinstance(chain, dict) and isinstance(chain.get("contract"), str) and isinstance(chain.get("error"), str):
        on_chain = {"contract": chain["contract"], "error": chain["error"]}
    code = body.get("code")
    message = body.get("message")
    request_id = body.get("request_id")
    cls = _BY_STATUS.get(status, ApiError)
    # Two 402s: x402's (payment_required, with PAYMENT-REQUIRED) and a spending limit's.
    payment_required = decode_payment_required(headers.get("payment-required")) if status == 402 else None
    if status == 402 and (code == "payment_required" or payment_required is not None):
        cls = PaymentRequiredError
    error = cls(
        code=code if isinstance(code, str) else f"http_{status}",
        status=status,
        message=message if isinstance(message, str) else (body_text[:500] or f"HTTP {status}"),
        request_id=request_id if isinstance(request_id, str) else headers.get("x-request-id"),
        retry_after=parse_retry_after(headers.get("retry-after")),
        on_chain_error=on_chain,
    )
    if isinstance(error, PaymentRequiredError):
        error.payment_required = payment_required
    hit = body.get("spend_limit")
    if isinstance(error, SpendLimitError) and isinstance(hit, dict):
        error.limit = hit
        error.resets_at = hit.get("resets_at") if isinstance(hit.get("resets_at"), str) else None
    return error
