"""The asyncio client: the same operations as :class:`agent_rental.AgentRental`, awaitable.

Each call runs the standard-library client in a thread pool of the SDK's own (64 threads, shared by
every async client: asyncio's default pool has only a few threads on a small machine, which would cap
concurrent runs), so an event loop is never blocked, and the retry, idempotency and resume rules are
the sync client's own. A stream is an async iterator; each of its reads runs in the pool.
"""

from __future__ import annotations

import asyncio
import contextvars
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Any, AsyncIterator, Callable, Literal, Mapping, Optional, ParamSpec, Sequence, TypeVar, Union

from .client import MAX_STREAM_RESUMES, AgentRental, AnalyticsTable, EventStream, Granularity, Method, QueryValue, RetryInfo, Sign, StreamEvent
from .models import (
    Alert,
    AlertSettings,
    ApiKey,
    ApiKeyCreated,
    AuthToken,
    ConnectedApp,
    CreatorAnalytics,
    CredentialList,
    CredentialVerification,
    Health,
    InputStored,
    Listing,
    Currencies,
    ListingMetadata,
    ListingSearch,
    RatingList,
    RatingResult,
    Reputation,
    RevokedApp,
    Run,
    RunDetail,
    RunFeedback,
    RunList,
    SpendLimitInput,
)

_P = ParamSpec("_P")
_T = TypeVar("_T")
#: Blocking HTTP calls of every async client; threads start on demand.
_POOL = ThreadPoolExecutor(max_workers=64, thread_name_prefix="agent-rental")


async def _to_thread(fn: Callable[_P, _T], /, *args: _P.args, **kwargs: _P.kwargs) -> _T:
    context = contextvars.copy_context()

    def call() -> _T:
        return context.run(fn, *args, **kwargs)

    return await asyncio.get_running_loop().run_in_executor(_POOL, call)


def _next(stream: EventStream) -> Optional[StreamEvent]:
    return next(stream, None)


async def _aiter(stream: EventStream) -> AsyncIterator[StreamEvent]:
    """The stream's events, each read in the pool. Leaving early (``break``, an exception, the task
    cancelled) closes the stream: a read still waiting in its thread ends on the shut connection, and the
    stream is closed once it has."""
    pending: Optional[asyncio.Future[Optional[StreamEvent]]] = None
    try:
        while True:
            pending = asyncio.get_running_loop().run_in_executor(_POOL, contextvars.copy_context().run, _next, stream)
            item = await pending
            pending = None
            if item is None:
                return
            yield item
    finally:
        stream.close()
        if pending is not None and not pending.done():
            # Wait for the read to end (it does: its connection is shut), then close the stream for good.
            await asyncio.wait([pending])
            if not pending.cancelled():
                pending.exception()
            stream.close()


class AsyncAgentRental:
    """The asyncio client; takes the same options as :class:`agent_rental.AgentRental`.

    Example:
        >>> client = AsyncAgentRental("http://127.0.0.1:8787", api_key="svc_test_...")
        >>> run = await client.execute("contract-reviewer-1a2b3c4d", "Review this contract")
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
        self.sync = AgentRental(base_url, api_key=api_key, token=token, retries=retries, retry_on_429=retry_on_429, max_retry_wait=max_retry_wait, retry_base_delay=retry_base_delay, timeout=timeout, on_retry=on_retry, token_refresh_margin=token_refresh_margin)
        self.listings = AsyncListings(self.sync)
        self.credentials = AsyncCredentials(self.sync)
        self.runs = AsyncRuns(self.sync)
        self.keys = AsyncKeys(self.sync)
        self.apps = AsyncApps(self.sync)
        self.alerts = AsyncAlerts(self.sync)
        self.inputs = AsyncInputs(self.sync)
        self.creators = AsyncCreators(self.sync)

    @property
    def base_url(self) -> str:
        return self.sync.base_url

    async def sign_in(self, wallet: str, sign: Sign) -> AuthToken:
        return await _to_thread(self.sync.sign_in, wallet, sign)

    def sign_out(self) -> None:
        self.sync.sign_out()

    async def execute(
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
        """Runs a task and answers the Run (see :meth:`AgentRental.execute`)."""
        return await _to_thread(self.sync.execute, agent_id, task, input=input, input_uri=input_uri, priority=priority, timeout_seconds=timeout_seconds, idempotency_key=idempotency_key)

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
    ) -> AsyncIterator[StreamEvent]:
        """Runs a task and yields its events (see :meth:`AgentRental.execute_stream`): ``async for event in ...``.
        Leaving the loop early, or cancelling the task, closes the stream; the run goes on server side."""
        return _aiter(self.sync.execute_stream(agent_id, task, input=input, input_uri=input_uri, priority=priority, timeout_seconds=timeout_seconds, idempotency_key=idempotency_key, resumes=resumes, on_run_id=on_run_id))

    async def health(self) -> Health:
        return await _to_thread(self.sync.health)

    async def request(self, method: Method, path: str, *, query: Optional[Mapping[str, QueryValue]] = None, body: Any = None, idempotent: Optional[bool] = None) -> Any:
        return await _to_thread(lambda: self.sync.request(method, path, query=query, body=body, idempotent=idempotent))


class AsyncListings:
    def __init__(self, client: AgentRental) -> None:
        self._sync = client.listings

    async def search(
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
        """Searches published listings (see :meth:`Listings.search`)."""
        return await _to_thread(lambda: self._sync.search(q=q, category=category, rental_model=rental_model, min_price=min_price, max_price=max_price, min_rating=min_rating, sort=sort, limit=limit, offset=offset))

    async def get(self, listing_id: str) -> Listing:
        return await _to_thread(self._sync.get, listing_id)

    async def currencies(self) -> Currencies:
        return await _to_thread(self._sync.currencies)

    async def metadata(self, metadata_uri: str) -> ListingMetadata:
        return await _to_thread(self._sync.metadata, metadata_uri)

    async def reputation(self, listing_id: str, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> Reputation:
        return await _to_thread(lambda: self._sync.reputation(listing_id, limit=limit, cursor=cursor))

    async def ratings(self, listing_id: str, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> RatingList:
        return await _to_thread(lambda: self._sync.ratings(listing_id, limit=limit, cursor=cursor))

    async def rate(self, listing_id: str, rating: int, comment: Optional[str] = None) -> RatingResult:
        return await _to_thread(self._sync.rate, listing_id, rating, comment)


class AsyncCredentials:
    def __init__(self, client: AgentRental) -> None:
        self._sync = client.credentials

    async def list(self, *, status: Optional[Literal["active", "expired", "low_balance"]] = None, limit: Optional[int] = None, offset: Optional[int] = None) -> CredentialList:
        return await _to_thread(lambda: self._sync.list(status=status, limit=limit, offset=offset))

    async def verify(self, listing_id: str) -> CredentialVerification:
        return await _to_thread(self._sync.verify, listing_id)


class AsyncRuns:
    def __init__(self, client: AgentRental) -> None:
        self._sync = client.runs

    async def list(self, listing_id: str, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> RunList:
        return await _to_thread(lambda: self._sync.list(listing_id, limit=limit, cursor=cursor))

    async def get(self, run_id: str, *, sign: Optional[Sign] = None) -> RunDetail:
        return await _to_thread(lambda: self._sync.get(run_id, sign=sign))

    def events(self, run_id: str, *, last_event_id: Optional[str] = None, resumes: int = MAX_STREAM_RESUMES) -> AsyncIterator[StreamEvent]:
        return _aiter(self._sync.events(run_id, last_event_id=last_event_id, resumes=resumes))

    async def feedback(self, run_id: str, value: float, *, tag1: Optional[str] = None, text: Optional[str] = None, sign: Optional[Sign] = None) -> RunFeedback:
        return await _to_thread(lambda: self._sync.feedback(run_id, value, tag1=tag1, text=text, sign=sign))

    async def verify_receipt(self, run: Union[str, RunDetail], *, rpc_url: str, renter: str, marketplace: Optional[str] = None) -> bool:
        return await _to_thread(lambda: self._sync.verify_receipt(run, rpc_url=rpc_url, renter=renter, marketplace=marketplace))


class AsyncKeys:
    def __init__(self, client: AgentRental) -> None:
        self._sync = client.keys

    async def list(self) -> list[ApiKey]:
        return await _to_thread(self._sync.list)

    async def create(self, label: str, sign: Sign, *, spend_limits: Optional[Sequence[SpendLimitInput]] = None) -> ApiKeyCreated:
        return await _to_thread(lambda: self._sync.create(label, sign, spend_limits=spend_limits))

    async def set_spend_limits(self, key_id: str, spend_limits: Sequence[SpendLimitInput]) -> ApiKey:
        return await _to_thread(self._sync.set_spend_limits, key_id, spend_limits)

    async def revoke(self, key_id: str) -> ApiKey:
        return await _to_thread(self._sync.revoke, key_id)


class AsyncApps:
    def __init__(self, client: AgentRental) -> None:
        self._sync = client.apps

    async def list(self) -> list[ConnectedApp]:
        return await _to_thread(self._sync.list)

    async def revoke(self, app_id: str) -> RevokedApp:
        return await _to_thread(self._sync.revoke, app_id)

    async def set_spend_limits(self, app_id: str, spend_limits: Sequence[SpendLimitInput]) -> ConnectedApp:
        return await _to_thread(self._sync.set_spend_limits, app_id, spend_limits)


class AsyncAlerts:
    def __init__(self, client: AgentRental) -> None:
        self._sync = client.alerts

    async def get_settings(self) -> AlertSettings:
        return await _to_thread(self._sync.get_settings)

    async def set_settings(self, *, webhook_url: Optional[str], low_balance_runs: Optional[int] = None, rotate_secret: bool = False) -> AlertSettings:
        return await _to_thread(lambda: self._sync.set_settings(webhook_url=webhook_url, low_balance_runs=low_balance_runs, rotate_secret=rotate_secret))

    async def list(self, *, limit: Optional[int] = None) -> list[Alert]:
        return await _to_thread(lambda: self._sync.list(limit=limit))


class AsyncInputs:
    def __init__(self, client: AgentRental) -> None:
        self._sync = client.inputs

    async def upload(self, content: Union[str, bytes], *, encoding: Optional[Literal["utf8", "base64"]] = None) -> InputStored:
        return await _to_thread(lambda: self._sync.upload(content, encoding=encoding))


class AsyncCreators:
    def __init__(self, client: AgentRental) -> None:
        self._sync = client.creators

    async def analytics(self, *, from_: Union[str, datetime, None] = None, to: Union[str, datetime, None] = None, granularity: Optional[Granularity] = None) -> CreatorAnalytics:
        """The wallet's analytics (see :meth:`Creators.analytics`)."""
        return await _to_thread(lambda: self._sync.analytics(from_=from_, to=to, granularity=granularity))

    async def listing_analytics(self, listing_id: str, *, from_: Union[str, datetime, None] = None, to: Union[str, datetime, None] = None, granularity: Optional[Granularity] = None) -> CreatorAnalytics:
        return await _to_thread(lambda: self._sync.listing_analytics(listing_id, from_=from_, to=to, granularity=granularity))

    async def analytics_csv(self, *, table: AnalyticsTable = "series", listing_id: Optional[str] = None, from_: Union[str, datetime, None] = None, to: Union[str, datetime, None] = None, granularity: Optional[Granularity] = None) -> str:
        return await _to_thread(lambda: self._sync.analytics_csv(table=table, listing_id=listing_id, from_=from_, to=to, granularity=granularity))
