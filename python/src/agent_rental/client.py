"""The synchronous client: authentication (API key or JWT), retries, typed errors, idempotency keys,
and resumable event streams. Standard library only (urllib, json).
"""

from __future__ import annotations

import http.client
import json
import base64
import random
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass
from datetime import datetime
from types import TracebackType
from typing import Any, Callable, Generator, Iterator, Literal, Mapping, Optional, Sequence, Union, cast

from . import __version__ as _version
from .errors import AgentRentalError, AuthError, error_from_response, parse_retry_after
from .models import (
    Alert,
    AlertSettings,
    ApiKey,
    ApiKeyCreated,
    ConnectedApp,
    FeedbackInput,
    InputStored,
    RatingResult,
    RevokedApp,
    RunFeedback,
    SpendLimitInput,
    AuthToken,
    CreatorAnalytics,
    CredentialList,
    CredentialVerification,
    Health,
    Listing,
    Currencies,
    ListingMetadata,
    ListingSearch,
    RatingList,
    Reputation,
    Run,
    RunDetail,
    RunList,
)
from .receipts import verify_run_receipt
from .sse import read_sse

Method = Literal["GET", "POST", "PUT", "PATCH", "DELETE"]
QueryValue = Union[str, int, float, None]
#: Signs a message with the wallet (EIP-191 personal_sign) and answers the 0x signature.
Sign = Callable[[str], str]

MAX_DELAY_SECONDS = 30.0
MAX_STREAM_RESUMES = 5

#: The header by which a run's wallet proves itself instead of a bearer credential.
WALLET_SIGNATURE_HEADER = "X-Wallet-Signature"
#: What a run's wallet signs for: ``read`` (``runs.get``, A2A GetTask) or ``feedback`` (``runs.feedback``).
RunProofPurpose = Literal["read", "feedback"]


def run_proof_message(purpose: RunProofPurpose, run_id: str, timestamp: int) -> str:
    """The message a run's wallet signs for ``purpose`` at ``timestamp`` (unix seconds)."""
    return f"run-{purpose}:{run_id}:{timestamp}"


def run_wallet_signature(run_id: str, sign: Sign, purpose: RunProofPurpose = "read", *, timestamp: Optional[int] = None) -> str:
    """The ``X-Wallet-Signature`` value by which the run's wallet (the payer of an x402 run, which holds no
    API key) proves itself for ``purpose``: ``<unix_timestamp>:<signature>`` of
    ``run-<purpose>:<run_id>:<unix_timestamp>``, signed by ``sign`` (EIP-191). The service accepts it for
    five minutes, for that run and that purpose only."""
    moment = int(time.time()) if timestamp is None else timestamp
    return f"{moment}:{sign(run_proof_message(purpose, run_id, moment))}"


@dataclass(frozen=True)
class OutputEvent:
    """An ``output`` event of a streamed run: a piece of the output. ``id`` is the output offset after it."""

    delta: str
    id: str
    type: Literal["output"] = "output"


@dataclass(frozen=True)
class DoneEvent:
    """The terminal ``done`` event: the run, as ``execute`` answers it."""

    run: Run
    type: Literal["done"] = "done"


StreamEvent = Union[OutputEvent, DoneEvent]


class EventStream(Iterator[StreamEvent]):
    """The events of a run, as ``execute_stream`` and ``runs.events`` answer them: an iterator of
    :class:`OutputEvent` then one :class:`DoneEvent`, and a context manager.

    :meth:`close` stops the iteration (from any thread, even while a read is waiting): the connection is
    shut and nothing is resumed. The run itself goes on server side and stays readable with ``runs.get``.
    ``run_id`` is the run's id once the service has started it (the X-Run-Id header).
    """

    def __init__(self, start: Callable[["EventStream"], Generator[StreamEvent, None, None]], run_id: Optional[str] = None) -> None:
        self.run_id = run_id
        self._closed = False
        self._lock = threading.Lock()
        self._response: Optional[http.client.HTTPResponse] = None
        self._events = start(self)

    @property
    def closed(self) -> bool:
        return self._closed

    def __iter__(self) -> "EventStream":
        return self

    def __next__(self) -> StreamEvent:
        if self._closed:
            raise StopIteration
        return next(self._events)

    def __enter__(self) -> "EventStream":
        return self

    def __exit__(self, kind: Optional[type[BaseException]], value: Optional[BaseException], traceback: Optional[TracebackType]) -> None:
        self.close()

    def close(self) -> None:
        """Stops the stream: shuts its connection (a read waiting in another thread ends) and resumes nothing."""
        with self._lock:
            self._closed = True
            response, self._response = self._response, None
        if response is not None:
            _shut(response)
        try:
            self._events.close()
        except ValueError:
            pass  # being read in another thread: that read ends on the shut connection and sees closed

    def _attach(self, response: http.client.HTTPResponse) -> bool:
        """Holds the response being read; False (and the response closed) when the stream is closed."""
        with self._lock:
            if not self._closed:
                self._response = response
                return True
        response.close()
        return False

    def _detach(self, response: http.client.HTTPResponse) -> None:
        with self._lock:
            if self._response is response:
                self._response = None
        response.close()


def _shut(response: http.client.HTTPResponse) -> None:
    """Shuts the socket under a response, so a read blocked on it in another thread returns."""
    sock = getattr(getattr(getattr(response, "fp", None), "raw", None), "_sock", None)
    if isinstance(sock, socket.socket):
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


@dataclass(frozen=True)
class RetryInfo:
    """What ``on_retry`` is told before the client waits and sends a request again."""

    method: str
    path: str
    attempt: int
    status: int
    code: str
    delay: float


@dataclass
class _Answer:
    status: int
    headers: dict[str, str]
    response: Optional[http.client.HTTPResponse]
    body: bytes


def _headers_of(message: Any) -> dict[str, str]:
    return {str(k).lower(): str(v) for k, v in message.items()} if message is not None else {}


class AgentRental:
    """A client of the agent rental API.

    Example:
        >>> client = AgentRental("http://127.0.0.1:8787", api_key="svc_test_...")
        >>> run = client.execute("contract-reviewer-1a2b3c4d", "Review this contract", input={"contract": "..."})
        >>> run["output"]

    Args:
        base_url: the API host (a trailing ``/v1`` is accepted).
        api_key: an API key (``svc_test_…``); keep it server side.
        token: a JWT obtained elsewhere (``sign_in`` replaces it with one the client renews).
        retries: retries after a 500 or 503, and after a 429 (default 2), with exponential backoff and jitter.
        retry_on_429: wait out a 429's Retry-After and send again (default True).
        max_retry_wait: the longest Retry-After, in seconds, the client waits out (default 30); a longer one
            raises RateLimitError at once.
        retry_base_delay: the first backoff step in seconds (doubled per retry). Default 0.25.
        timeout: seconds a request may wait for the service to answer or to send more of a stream.
        on_retry: called with a :class:`RetryInfo` before each wait for a retry (for logging).
        token_refresh_margin: how long before its expiry, in seconds, a signed-in JWT is renewed (default 60).
    """

    def __init__(
        self,
        base_url: str,
        *,
        api_key: Optional[str] = None,
        token: Optional[str] = None,
        retries: int = 2,
        retry_on_429: bool = True,
        max_retry_wait: float = 30.0,
        retry_base_delay: float = 0.25,
        timeout: float = 300.0,
        on_retry: Optional[Callable[[RetryInfo], None]] = None,
        token_refresh_margin: float = 60.0,
    ) -> None:
        if not base_url:
            raise ValueError("base_url is required")
        base = base_url.rstrip("/")
        self.base_url = base[: -len("/v1")] if base.endswith("/v1") else base
        self.api_key = api_key
        self._token = token
        self._token_expires_at = float("inf")
        self._signer: Optional[tuple[str, Sign]] = None
        self.retries = max(0, int(retries))
        self.retry_on_429 = retry_on_429
        self.max_retry_wait = max(0.0, max_retry_wait)
        self.retry_base_delay = max(0.0, retry_base_delay)
        self.timeout = timeout
        self.on_retry = on_retry
        self.token_refresh_margin = max(0.0, token_refresh_margin)
        self._refresh_lock = threading.Lock()
        self._token_generation = 0
        self._opener = urllib.request.build_opener(_NoRedirect())
        self.listings = Listings(self)
        self.credentials = Credentials(self)
        self.runs = Runs(self)
        self.keys = Keys(self)
        self.apps = Apps(self)
        self.alerts = Alerts(self)
        self.inputs = Inputs(self)
        self.creators = Creators(self)

    # -- authentication ------------------------------------------------------------------------------

    def sign_in(self, wallet: str, sign: Sign) -> AuthToken:
        """Signs in with a wallet: fetches a challenge, has ``sign`` sign it (EIP-191), exchanges it for a
        JWT. The client then authenticates with the JWT and signs again before it expires."""
        self._signer = (wallet, sign)
        return self._exchange()

    def sign_out(self) -> None:
        """Forgets the JWT; the API key, if any, is used again."""
        self._token, self._signer, self._token_expires_at = None, None, float("inf")

    def _exchange(self) -> AuthToken:
        assert self._signer is not None
        wallet, sign = self._signer
        challenge = self._json("GET", "/v1/auth/challenge", query={"wallet": wallet}, auth=False)["challenge"]
        token = cast(AuthToken, self._json("POST", "/v1/auth/token", body={"wallet": wallet, "challenge": challenge, "signature": sign(challenge)}, auth=False))
        self._token, self._token_expires_at = str(token["token"]), float(token["expires_at"])
        self._token_generation += 1
        return token

    def _bearer(self) -> Optional[str]:
        if self._signer is not None and self._token_expires_at - self.token_refresh_margin <= time.time():
            # Concurrent callers (the async client's threads) share one renewal.
            generation = self._token_generation
            with self._refresh_lock:
                if self._signer is not None and self._token_generation == generation:
                    self._exchange()
        return self._token or self.api_key

    # -- the operations ------------------------------------------------------------------------------

    def execute(
        self,
        agent_id: str,
        task: str,
        *,
        input: Union[str, Mapping[str, Any], None] = None,
        input_uri: Optional[str] = None,
        priority: Optional[Literal["standard", "priority"]] = None,
        timeout_seconds: Optional[int] = None,
        idempotency_key: Optional[str] = None,
    ) -> Run:
        """Runs a task and answers the Run (``status`` completed or failed; a failed run is not an error).

        Every call carries an Idempotency-Key (a fresh UUID unless given), so retries after a 500, 503 or
        429 never run or charge twice; the same key with the same request answers the first run.
        """
        body = _execute_body(agent_id, task, input, input_uri, priority, timeout_seconds)
        key = idempotency_key or str(uuid.uuid4())
        return cast(Run, self._json("POST", "/v1/execute", body=body, headers={"idempotency-key": key}))

    def execute_stream(
        self,
        agent_id: str,
        task: str,
        *,
        input: Union[str, Mapping[str, Any], None] = None,
        input_uri: Optional[str] = None,
        priority: Optional[Literal["standard", "priority"]] = None,
        timeout_seconds: Optional[int] = None,
        idempotency_key: Optional[str] = None,
        resumes: int = MAX_STREAM_RESUMES,
        on_run_id: Optional[Callable[[str], None]] = None,
    ) -> EventStream:
        """Runs a task and yields its events: :class:`OutputEvent` deltas, then one :class:`DoneEvent`.

        A dropped connection is resumed from the last event received (``GET /v1/runs/{run_id}/events``
        with ``Last-Event-ID``), so every delta is yielded exactly once. After ``resumes`` drops in a row
        without a new event the iteration raises ``stream_interrupted``. A refusal (403, 429, ...) raises
        its typed error before any event. ``close()`` (or leaving a ``with`` block) stops it; the run goes
        on server side.
        """
        body = _execute_body(agent_id, task, input, input_uri, priority, timeout_seconds)
        key = idempotency_key or str(uuid.uuid4())
        return EventStream(lambda handle: self._stream(handle, body=body, idempotency_key=key, run_id=None, last_event_id=None, resumes=resumes, on_run_id=on_run_id))

    def health(self) -> Health:
        """The service's health, with the chain id and the marketplace contract's address."""
        return cast(Health, self._json("GET", "/v1/health", auth=False))

    def request(self, method: Method, path: str, *, query: Optional[Mapping[str, QueryValue]] = None, body: Any = None, idempotent: Optional[bool] = None) -> Any:
        """Calls any route (``path`` starts with ``/v1/``) with the client's authentication, retry rules
        and typed errors; answers the parsed JSON."""
        if not path.startswith("/v1/"):
            raise ValueError('path must start with "/v1/"')
        return self._json(method, path, query=query, body=body, idempotent=idempotent)

    # -- plumbing ------------------------------------------------------------------------------------

    def _stream(self, handle: EventStream, *, body: Optional[Mapping[str, Any]], idempotency_key: Optional[str], run_id: Optional[str], last_event_id: Optional[str], resumes: int, on_run_id: Optional[Callable[[str], None]]) -> Generator[StreamEvent, None, None]:
        max_resumes = max(0, int(resumes))
        interruptions = 0
        last_id = last_event_id
        while True:
            headers = {"accept": "text/event-stream"}
            if last_id is not None:
                headers["last-event-id"] = last_id
            if run_id is None:
                assert body is not None and idempotency_key is not None
                headers["idempotency-key"] = idempotency_key
                answer = self._send("POST", "/v1/execute/stream", body=body, headers=headers, stream=True)
                run_id = answer.headers.get("x-run-id")
                handle.run_id = run_id
                if run_id is not None and on_run_id is not None:
                    on_run_id(run_id)
            else:
                answer = self._send("GET", f"/v1/runs/{_quote(run_id)}/events", headers=headers, stream=True)
            response = answer.response
            assert response is not None
            if not handle._attach(response):
                return
            cause: BaseException
            try:
                for message in read_sse(response.readline):
                    if message.event == "output":
                        delta = json.loads(message.data)["delta"]
                        if message.id is not None:
                            last_id = message.id
                        interruptions = 0
                        yield OutputEvent(delta=delta, id=message.id or "")
                    elif message.event == "done":
                        yield DoneEvent(run=cast(Run, json.loads(message.data)))
                        return
                cause = ConnectionError("the stream ended before its done event")
            except (OSError, http.client.HTTPException, ValueError) as error:
                cause = error
            finally:
                handle._detach(response)
            if handle.closed:
                return
            interruptions += 1
            if interruptions > max_resumes:
                of_run = f" of run {run_id}" if run_id else ""
                raise AgentRentalError(code="stream_interrupted", status=0, message=f"The event stream{of_run} was interrupted {interruptions} times without progress.") from cause
            time.sleep(self._backoff(interruptions - 1))
            if handle.closed:
                return

    def _json(self, method: Method, path: str, *, query: Optional[Mapping[str, QueryValue]] = None, body: Any = None, headers: Optional[Mapping[str, str]] = None, auth: bool = True, idempotent: Optional[bool] = None) -> Any:
        answer = self._send(method, path, query=query, body=body, headers=headers, auth=auth, idempotent=idempotent)
        return json.loads(answer.body) if answer.body else None

    def _url(self, path: str, query: Optional[Mapping[str, QueryValue]]) -> str:
        pairs = [(k, str(v).lower() if isinstance(v, bool) else str(v)) for k, v in (query or {}).items() if v is not None]
        return self.base_url + path + (("?" + urllib.parse.urlencode(pairs)) if pairs else "")

    def _backoff(self, attempt: int) -> float:
        ceiling: float = min(MAX_DELAY_SECONDS, self.retry_base_delay * float(2**attempt))
        return ceiling / 2 + random.random() * (ceiling / 2)

    def _retry_delay(self, status: int, headers: Mapping[str, str], attempt: int, retriable: bool) -> Optional[float]:
        if not retriable or attempt >= self.retries:
            return None
        retry_after = parse_retry_after(headers.get("retry-after"))
        if status in (500, 503):
            return min(MAX_DELAY_SECONDS, max(self._backoff(attempt), retry_after or 0.0))
        if status == 429 and self.retry_on_429:
            wait = 1.0 if retry_after is None else retry_after
            return wait if wait <= self.max_retry_wait else None
        return None

    def _send(self, method: Method, path: str, *, query: Optional[Mapping[str, QueryValue]] = None, body: Any = None, headers: Optional[Mapping[str, str]] = None, auth: bool = True, idempotent: Optional[bool] = None, stream: bool = False) -> _Answer:
        base_headers = {"accept": "application/json", "user-agent": f"agent-rental-python/{_version}", **(headers or {})}
        retriable = idempotent if idempotent is not None else (method != "POST" or "idempotency-key" in {k.lower() for k in base_headers})
        data = None
        if body is not None:
            data = (body if isinstance(body, str) else json.dumps(body)).encode("utf-8")
            base_headers["content-type"] = "application/json"
        url = self._url(path, query)
        reauthenticated = False
        attempt = 0
        while True:
            sent = dict(base_headers)
            if auth:
                bearer = self._bearer()
                if bearer is not None:
                    sent["authorization"] = f"Bearer {bearer}"
            request = urllib.request.Request(url, data=data, headers=sent, method=method)
            try:
                response = cast(http.client.HTTPResponse, self._opener.open(request, timeout=self.timeout))
            except urllib.error.HTTPError as failed:
                status, answer_headers = failed.code, _headers_of(failed.headers)
                try:
                    text = failed.read().decode("utf-8", "replace")
                except (OSError, http.client.HTTPException):
                    text = ""
                finally:
                    failed.close()
                error = error_from_response(status, answer_headers, text)
                # A JWT that expired early (clock skew) was refused before anything ran: renew it once.
                if isinstance(error, AuthError) and error.code == "jwt_expired" and self._signer is not None and not reauthenticated:
                    reauthenticated = True
                    self._exchange()
                    continue
                delay = self._retry_delay(status, answer_headers, attempt, retriable)
                if delay is None:
                    raise error from None
                if self.on_retry is not None:
                    self.on_retry(RetryInfo(method=method, path=path, attempt=attempt + 1, status=status, code=error.code, delay=delay))
                time.sleep(delay)
                attempt += 1
                continue
            except (urllib.error.URLError, OSError, http.client.HTTPException) as failed:
                if retriable and attempt < self.retries:
                    delay = self._backoff(attempt)
                    if self.on_retry is not None:
                        self.on_retry(RetryInfo(method=method, path=path, attempt=attempt + 1, status=0, code="connection_failed", delay=delay))
                    time.sleep(delay)
                    attempt += 1
                    continue
                reason = getattr(failed, "reason", failed)
                raise AgentRentalError(code="connection_failed", status=0, message=f"{method} {path} failed: {reason}") from failed
            answer_headers = _headers_of(response.headers)
            if stream:
                return _Answer(status=response.status, headers=answer_headers, response=response, body=b"")
            try:
                payload = response.read()
            except (OSError, http.client.HTTPException) as failed:
                raise AgentRentalError(code="connection_failed", status=0, message=f"{method} {path} failed while reading the answer: {failed}") from failed
            finally:
                response.close()
            return _Answer(status=response.status, headers=answer_headers, response=None, body=payload)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Redirects are answered as they are: the API never redirects, and a bearer must not follow one."""

    def redirect_request(self, req: urllib.request.Request, fp: Any, code: int, msg: str, headers: Any, newurl: str) -> None:
        return None


def _quote(segment: str) -> str:
    return urllib.parse.quote(segment, safe="")


def _execute_body(agent_id: str, task: str, input: Union[str, Mapping[str, Any], None], input_uri: Optional[str], priority: Optional[str], timeout_seconds: Optional[int]) -> dict[str, Any]:
    body: dict[str, Any] = {"agent_id": agent_id, "task": task}
    if input is not None:
        body["input"] = input if isinstance(input, str) else dict(input)
    if input_uri is not None:
        body["input_uri"] = input_uri
    if priority is not None:
        body["priority"] = priority
    if timeout_seconds is not None:
        body["timeout_seconds"] = timeout_seconds
    return body


class Listings:
    """The public catalogue."""

    def __init__(self, client: AgentRental) -> None:
        self._client = client

    def search(
        self,
        *,
        q: Optional[str] = None,
        category: Optional[str] = None,
        rental_model: Optional[str] = None,
        min_price: Optional[float] = None,
        max_price: Optional[float] = None,
        min_rating: Optional[float] = None,
        sort: Optional[Literal["relevance", "rating", "price_asc", "price_desc", "newest"]] = None,
        limit: Optional[int] = None,
        offset: Optional[int] = None,
    ) -> ListingSearch:
        """Searches published listings (``GET /v1/listings``)."""
        query: dict[str, QueryValue] = {"q": q, "category": category, "rental_model": rental_model, "min_price": min_price, "max_price": max_price, "min_rating": min_rating, "sort": sort, "limit": limit, "offset": offset}
        return cast(ListingSearch, self._client._json("GET", "/v1/listings", query=query))

    def get(self, listing_id: str) -> Listing:
        """A listing with every field; NotFoundError ``listing_not_found`` when unknown or unpublished."""
        return cast(Listing, self._client._json("GET", f"/v1/listings/{_quote(listing_id)}"))

    def currencies(self) -> Currencies:
        """What listings may be priced and paid in here (``GET /v1/currencies``): ETH, then each token of the
        allowlist with its address, decimals, contract, EIP-712 domain and whether x402 pays it. Public."""
        return cast(Currencies, self._client._json("GET", "/v1/currencies", auth=False))

    def metadata(self, metadata_uri: str) -> ListingMetadata:
        """A listing's public metadata (its ``metadata_uri``, ``ipfs://<cid>``): name, input and output schemas."""
        cid = metadata_uri[len("ipfs://") :] if metadata_uri.startswith("ipfs://") else metadata_uri
        if not cid or not all(c in "abcdefghijklmnopqrstuvwxyz234567" for c in cid):
            raise ValueError("metadata_uri must be ipfs://<CIDv1>")
        return cast(ListingMetadata, self._client._json("GET", f"/v1/metadata/{cid}", auth=False))

    def reputation(self, listing_id: str, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> Reputation:
        """The listing's ERC-8004 reputation: its verified rating and every feedback with its verdict."""
        return cast(Reputation, self._client._json("GET", f"/v1/listings/{_quote(listing_id)}/reputation", query={"limit": limit, "cursor": cursor}))

    def ratings(self, listing_id: str, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> RatingList:
        """Renters' off-chain ratings of the listing."""
        return cast(RatingList, self._client._json("GET", f"/v1/listings/{_quote(listing_id)}/ratings", query={"limit": limit, "cursor": cursor}))

    def rate(self, listing_id: str, rating: int, comment: Optional[str] = None) -> RatingResult:
        """Rates a listing, 1 to 5 (a wallet with a completed run of it); rating again replaces."""
        body: dict[str, Any] = {"rating": rating} if comment is None else {"rating": rating, "comment": comment}
        return cast(RatingResult, self._client._json("PUT", f"/v1/listings/{_quote(listing_id)}/rating", body=body))


class Credentials:
    """The authenticated wallet's rental credentials."""

    def __init__(self, client: AgentRental) -> None:
        self._client = client

    def list(self, *, status: Optional[Literal["active", "expired", "low_balance"]] = None, limit: Optional[int] = None, offset: Optional[int] = None) -> CredentialList:
        return cast(CredentialList, self._client._json("GET", "/v1/credentials", query={"status": status, "limit": limit, "offset": offset}))

    def verify(self, listing_id: str) -> CredentialVerification:
        """The caller's credential for a listing, checked against the contract (``valid``, ``status``)."""
        return cast(CredentialVerification, self._client._json("GET", f"/v1/credentials/{_quote(listing_id)}"))


class Runs:
    """The caller's runs: list those of a listing, read one, follow its events, verify its receipt."""

    def __init__(self, client: AgentRental) -> None:
        self._client = client

    def list(self, listing_id: str, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> RunList:
        return cast(RunList, self._client._json("GET", "/v1/runs", query={"listing_id": listing_id, "limit": limit, "cursor": cursor}))

    def get(self, run_id: str, *, sign: Optional[Sign] = None) -> RunDetail:
        """The run, with its output and, once its batch is logged on-chain, its ``receipt``. With ``sign``
        (the run's wallet: the payer of an x402 run), the wallet signs for it instead of the client's
        credential (``X-Wallet-Signature``; see :func:`run_wallet_signature`)."""
        if sign is not None:
            return cast(RunDetail, self._client._json("GET", f"/v1/runs/{_quote(run_id)}", headers={WALLET_SIGNATURE_HEADER: run_wallet_signature(run_id, sign, "read")}, auth=False))
        return cast(RunDetail, self._client._json("GET", f"/v1/runs/{_quote(run_id)}"))

    def events(self, run_id: str, *, last_event_id: Optional[str] = None, resumes: int = MAX_STREAM_RESUMES) -> EventStream:
        """The run's events after ``last_event_id`` (an output offset; omit it for all), then ``done``."""
        return EventStream(lambda handle: self._client._stream(handle, body=None, idempotency_key=None, run_id=run_id, last_event_id=last_event_id, resumes=resumes, on_run_id=None), run_id=run_id)

    def feedback(self, run_id: str, value: float, *, tag1: Optional[str] = None, text: Optional[str] = None, sign: Optional[Sign] = None) -> RunFeedback:
        """On-chain feedback for a completed run of the caller's (``value`` 0 to 100): the feedback file,
        with the run's receipt as proof, and the unsigned ``giveFeedback`` transaction for the wallet to send.
        With ``sign``, the run's wallet signs for it instead of the client's credential."""
        body: FeedbackInput = {"value": value}
        if tag1 is not None:
            body["tag1"] = tag1
        if text is not None:
            body["text"] = text
        if sign is not None:
            return cast(RunFeedback, self._client._json("POST", f"/v1/runs/{_quote(run_id)}/feedback", body=body, headers={WALLET_SIGNATURE_HEADER: run_wallet_signature(run_id, sign, "feedback")}, auth=False))
        return cast(RunFeedback, self._client._json("POST", f"/v1/runs/{_quote(run_id)}/feedback", body=body))

    def verify_receipt(self, run: Union[str, RunDetail], *, rpc_url: str, renter: str, marketplace: Optional[str] = None) -> bool:
        """Whether the run's receipt is in the run log on-chain (see :func:`agent_rental.verify_run_receipt`).

        ``run`` is a run id or the run itself; ``marketplace`` defaults to the address ``/v1/health`` names.
        """
        detail = self.get(run) if isinstance(run, str) else run
        address = marketplace or self._client.health()["marketplace"]
        return verify_run_receipt(detail, rpc_url=rpc_url, marketplace=address, renter=renter)


class Keys:
    """API keys of the authenticated wallet."""

    def __init__(self, client: AgentRental) -> None:
        self._client = client

    def list(self) -> list[ApiKey]:
        return cast("list[ApiKey]", self._client._json("GET", "/v1/keys")["keys"])

    def create(self, label: str, sign: Sign, *, spend_limits: Optional[Sequence[SpendLimitInput]] = None) -> ApiKeyCreated:
        """Creates a key: the wallet signs the service's challenge (``sign``); ``key`` is shown only here.
        ``spend_limits`` bound what it may spend on per-task runs (``{"period": "day", "amount": "<wei>"}``)."""
        challenge = self._client._json("POST", "/v1/keys/challenge", body={"label": label})
        body: dict[str, Any] = {"nonce": challenge["nonce"], "signature": sign(challenge["message"])}
        if spend_limits is not None:
            body["spend_limits"] = list(spend_limits)
        return cast(ApiKeyCreated, self._client._json("POST", "/v1/keys", body=body))

    def set_spend_limits(self, key_id: str, spend_limits: Sequence[SpendLimitInput]) -> ApiKey:
        """Replaces a key's spending limits (``[]`` removes them). Needs a wallet sign-in, not an API key."""
        return cast(ApiKey, self._client._json("PATCH", f"/v1/keys/{_quote(key_id)}", body={"spend_limits": list(spend_limits)}))

    def revoke(self, key_id: str) -> ApiKey:
        return cast(ApiKey, self._client._json("DELETE", f"/v1/keys/{_quote(key_id)}"))


class Apps:
    """Apps the wallet approved (Connected apps)."""

    def __init__(self, client: AgentRental) -> None:
        self._client = client

    def list(self) -> list[ConnectedApp]:
        return cast("list[ConnectedApp]", self._client._json("GET", "/v1/oauth/apps")["apps"])

    def revoke(self, app_id: str) -> RevokedApp:
        return cast(RevokedApp, self._client._json("DELETE", f"/v1/oauth/apps/{_quote(app_id)}"))

    def set_spend_limits(self, app_id: str, spend_limits: Sequence[SpendLimitInput]) -> ConnectedApp:
        """Replaces an app's spending limits (``[]`` removes them). Needs a wallet sign-in, not an API key."""
        return cast(ConnectedApp, self._client._json("PATCH", f"/v1/oauth/apps/{_quote(app_id)}", body={"spend_limits": list(spend_limits)}))


class Alerts:
    """Alerts on spending: the wallet's webhook and low-balance threshold, and what crossed (80% and 100%
    of a key's or app's spending limit or of an on-chain charge cap; a per-task balance below the
    threshold)."""

    def __init__(self, client: AgentRental) -> None:
        self._client = client

    def get_settings(self) -> AlertSettings:
        """The settings (before any are set: no webhook, no threshold, null times)."""
        return cast(AlertSettings, self._client._json("GET", "/v1/alerts/settings"))

    def set_settings(self, *, webhook_url: Optional[str], low_balance_runs: Optional[int] = None, rotate_secret: bool = False) -> AlertSettings:
        """Sets the webhook (https, or None for dashboard notices only) and the low-balance threshold in
        runs. The first call and ``rotate_secret`` return ``webhook_secret``, once. Needs a wallet sign-in."""
        body: dict[str, Any] = {"webhook_url": webhook_url, "low_balance_runs": low_balance_runs}
        if rotate_secret:
            body["rotate_secret"] = True
        return cast(AlertSettings, self._client._json("PUT", "/v1/alerts/settings", body=body))

    def list(self, *, limit: Optional[int] = None) -> list[Alert]:
        """The newest alerts (``limit``, default 20, up to 100), newest first."""
        query: dict[str, QueryValue] = {} if limit is None else {"limit": limit}
        return cast("list[Alert]", self._client._json("GET", "/v1/alerts", query=query)["alerts"])


class Inputs:
    """Content-addressed task inputs, for ``execute(..., input_uri=)``."""

    def __init__(self, client: AgentRental) -> None:
        self._client = client

    def upload(self, content: Union[str, bytes], *, encoding: Optional[Literal["utf8", "base64"]] = None) -> InputStored:
        """Stores an input and answers its ``input_uri`` (``ipfs://…``). A string is sent as text (or, with
        ``encoding="base64"``, as base64 already); bytes are sent as base64. The same content is stored once,
        so the upload is retried like a GET."""
        if isinstance(content, bytes):
            body: dict[str, str] = {"content": base64.b64encode(content).decode("ascii"), "encoding": "base64"}
        else:
            body = {"content": content} if encoding is None else {"content": content, "encoding": encoding}
        return cast(InputStored, self._client._json("POST", "/v1/inputs", body=body, idempotent=True))


#: The tables an analytics CSV holds: ``series`` and ``top_renters`` in wei (the ETH listings'), or
#: ``series_by_currency`` and ``top_renters_by_currency``, a row per currency in its smallest unit.
AnalyticsTable = Literal["series", "top_renters", "series_by_currency", "top_renters_by_currency"]
Granularity = Literal["hour", "day", "month"]


def _iso(value: Union[str, datetime, None]) -> Optional[str]:
    return value.isoformat() if isinstance(value, datetime) else value


def _analytics_query(from_: Union[str, datetime, None], to: Union[str, datetime, None], granularity: Optional[Granularity]) -> dict[str, QueryValue]:
    return {"from": _iso(from_), "to": _iso(to), "granularity": granularity}


class Creators:
    """The signed-in wallet as a creator: its analytics.

    Counts (runs, rentals, renters, latency) cover every listing. Amounts are never added across
    currencies: the ``_wei`` fields are the ETH listings' (exact ints), and the ``by_currency`` fields give
    every currency's in its smallest unit as decimal strings (:func:`agent_rental.analytics_by_currency`
    gathers them per currency, :func:`agent_rental.format_amount` writes one).
    """

    def __init__(self, client: AgentRental) -> None:
        self._client = client

    def analytics(self, *, from_: Union[str, datetime, None] = None, to: Union[str, datetime, None] = None, granularity: Optional[Granularity] = None) -> CreatorAnalytics:
        """What the wallet's listings earned, from whom, and how their runs went, over a range (``from_``,
        ``to``: ISO 8601 strings or aware datetimes; default the last 30 days) by hour, day (default) or month."""
        return cast(CreatorAnalytics, self._client._json("GET", "/v1/creators/me/analytics", query=_analytics_query(from_, to, granularity)))

    def listing_analytics(self, listing_id: str, *, from_: Union[str, datetime, None] = None, to: Union[str, datetime, None] = None, granularity: Optional[Granularity] = None) -> CreatorAnalytics:
        """The same for one of the wallet's listings (another creator's: NotFoundError ``listing_not_found``)."""
        return cast(CreatorAnalytics, self._client._json("GET", f"/v1/creators/me/listings/{_quote(listing_id)}/analytics", query=_analytics_query(from_, to, granularity)))

    def analytics_csv(self, *, table: AnalyticsTable = "series", listing_id: Optional[str] = None, from_: Union[str, datetime, None] = None, to: Union[str, datetime, None] = None, granularity: Optional[Granularity] = None) -> str:
        """One table of the analytics (all listings, or ``listing_id``'s) as CSV text (RFC 4180, CRLF lines)."""
        path = "/v1/creators/me/analytics" if listing_id is None else f"/v1/creators/me/listings/{_quote(listing_id)}/analytics"
        query: dict[str, QueryValue] = {**_analytics_query(from_, to, granularity), "format": "csv", "table": table}
        return self._client._send("GET", path, query=query, headers={"accept": "text/csv"}).body.decode("utf-8")
