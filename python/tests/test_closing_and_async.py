"""Stopping a stream early (the TypeScript SDK's abort signal: here ``close()``, a ``with`` block, a
cancelled asyncio task), and the asyncio client: the sync client's surface, awaitable, with its errors."""

from __future__ import annotations

import asyncio
import inspect
import uuid
from typing import Any

import pytest

from agent_rental import AccessError, AgentRental, AsyncAgentRental, DoneEvent, OutputEvent
from agent_rental import aio, client as sync_module

from conftest import control, until


def finished(client: AgentRental, run_id: str) -> Any:
    return until(lambda: (lambda run: run if run["status"] == "completed" else None)(client.runs.get(run_id)), timeout=30, what=f"run {run_id} to complete")


def test_closing_a_stream_stops_it_and_the_run_goes_on_server_side(world: dict[str, Any], client: AgentRental) -> None:
    task = f"drip closed {uuid.uuid4()}"
    control(world, "/hold", task=task)
    seen: list[Any] = []
    try:
        with client.execute_stream(world["listings"]["one_time"]["agent_id"], task) as stream:
            for event in stream:
                seen.append(event)
                break
        assert stream.closed and next(stream, None) is None
    finally:
        control(world, "/open", task=task)
    assert seen == [OutputEvent(delta="one ", id="4")]
    assert stream.run_id is not None
    assert finished(client, stream.run_id)["output"] == {"findings": ["one", "two"]}


def test_a_stream_closed_from_another_thread_while_it_waits_ends_at_once(world: dict[str, Any], client: AgentRental) -> None:
    import threading

    task = f"drip interrupted {uuid.uuid4()}"
    control(world, "/hold", task=task)
    seen: list[Any] = []
    stream = client.execute_stream(world["listings"]["one_time"]["agent_id"], task)
    reader = threading.Thread(target=lambda: seen.extend(stream))
    try:
        reader.start()
        until(lambda: len(seen) == 1, what="the first event")
        stream.close()  # the reader is blocked on the next event: it ends, nothing is resumed
        reader.join(10)
        assert not reader.is_alive()
    finally:
        control(world, "/open", task=task)
    assert seen == [OutputEvent(delta="one ", id="4")]
    assert stream.run_id is not None and finished(client, stream.run_id)["status"] == "completed"


def test_cancelling_the_task_of_an_async_stream_closes_it_cleanly(world: dict[str, Any], client: AgentRental) -> None:
    task = f"drip cancelled {uuid.uuid4()}"
    control(world, "/hold", task=task)
    run_ids: list[str] = []
    seen: list[Any] = []

    async def main() -> BaseException | None:
        async_client = AsyncAgentRental(world["api_url"], api_key=world["renter"]["api_key"])

        async def consume() -> None:
            async for event in async_client.execute_stream(world["listings"]["one_time"]["agent_id"], task, on_run_id=run_ids.append):
                seen.append(event)

        consuming = asyncio.ensure_future(consume())
        while not seen:
            await asyncio.sleep(0.02)
        consuming.cancel()
        try:
            await asyncio.wait_for(consuming, 10)
        except BaseException as error:  # the task's outcome: CancelledError, nothing else
            return error
        return None

    try:
        outcome = asyncio.run(main())
    finally:
        control(world, "/open", task=task)
    assert isinstance(outcome, asyncio.CancelledError)
    assert seen == [OutputEvent(delta="one ", id="4")]
    assert finished(client, run_ids[0])["output"] == {"findings": ["one", "two"]}


def test_the_async_client_raises_the_same_typed_errors(world: dict[str, Any]) -> None:
    async def main() -> tuple[BaseException, BaseException]:
        async_client = AsyncAgentRental(world["api_url"], api_key=world["renter"]["api_key"])
        with pytest.raises(AccessError) as refused:
            await async_client.execute(world["listings"]["unrented"]["agent_id"], "x")
        with pytest.raises(AccessError) as refused_stream:
            async for _ in async_client.execute_stream(world["listings"]["unrented"]["agent_id"], "x"):
                pass
        return refused.value, refused_stream.value

    refused, refused_stream = asyncio.run(main())
    assert getattr(refused, "code") == getattr(refused_stream, "code") == "credential_not_found"
    assert getattr(refused, "status") == 403 and getattr(refused, "request_id", "").startswith("req_")


def test_the_async_client_reads_listings_credentials_runs_and_keys(world: dict[str, Any]) -> None:
    async def main() -> dict[str, Any]:
        c = AsyncAgentRental(world["api_url"], api_key=world["renter"]["api_key"])
        listing_id = world["listings"]["per_query"]["listing_id"]
        found, listing, credentials, verified, ratings, reputation, keys = await asyncio.gather(
            c.listings.search(q="py-per-query", limit=100), c.listings.get(listing_id), c.credentials.list(limit=100), c.credentials.verify(listing_id), c.listings.ratings(listing_id), c.listings.reputation(listing_id), c.keys.list()
        )
        run = await c.execute(world["listings"]["per_query"]["agent_id"], "async per query")
        events = [e async for e in c.runs.events(run["run_id"])]
        listed = await c.runs.list(listing_id, limit=100)
        return {"found": found, "listing": listing, "credentials": credentials, "verified": verified, "ratings": ratings, "reputation": reputation, "keys": keys, "run": run, "events": events, "listed": listed}

    got = asyncio.run(main())
    listing_id = world["listings"]["per_query"]["listing_id"]
    assert listing_id in [l["id"] for l in got["found"]["listings"]]
    assert (got["listing"]["currency"]["symbol"], got["listing"]["price_units"]) == ("ETH", world["listings"]["per_query"]["price_wei"])
    assert got["verified"]["valid"] is True and listing_id in [c["listing_id"] for c in got["credentials"]["credentials"]]
    assert got["ratings"]["listing_id"] == got["reputation"]["listing_id"] == listing_id
    assert world["renter"]["address"] and isinstance(got["keys"], list) and got["keys"]
    assert got["run"]["cost_wei"] == int(world["listings"]["per_query"]["price_wei"])
    assert isinstance(got["events"][-1], DoneEvent) and got["events"][-1].run["run_id"] == got["run"]["run_id"]
    assert got["run"]["run_id"] in [r["run_id"] for r in got["listed"]["runs"]]


def public(cls: type) -> dict[str, list[str]]:
    """The public operations of a class, with their parameters (and the constructor's options)."""
    names = [name for name, fn in vars(cls).items() if callable(fn) and (name == "__init__" or not name.startswith("_"))]
    return {name: [p for p in inspect.signature(getattr(cls, name)).parameters if p != "self"] for name in names}


@pytest.mark.parametrize(
    ("sync_cls", "async_cls"),
    [
        (sync_module.AgentRental, aio.AsyncAgentRental),
        (sync_module.Listings, aio.AsyncListings),
        (sync_module.Credentials, aio.AsyncCredentials),
        (sync_module.Runs, aio.AsyncRuns),
        (sync_module.Keys, aio.AsyncKeys),
        (sync_module.Apps, aio.AsyncApps),
        (sync_module.Alerts, aio.AsyncAlerts),
        (sync_module.Inputs, aio.AsyncInputs),
        (sync_module.Creators, aio.AsyncCreators),
    ],
)
def test_the_async_client_has_the_sync_clients_operations_with_the_same_parameters(sync_cls: type, async_cls: type) -> None:
    if sync_cls is sync_module.AgentRental:
        assert public(async_cls) == public(sync_cls)
    else:  # a namespace is made from its client
        assert {k: v for k, v in public(async_cls).items() if k != "__init__"} == {k: v for k, v in public(sync_cls).items() if k != "__init__"}
    for name in public(sync_cls):
        if name in ("__init__", "sign_out"):
            continue
        # Streams are async iterators; every other operation is a coroutine.
        assert inspect.iscoroutinefunction(getattr(async_cls, name)) is (name not in ("execute_stream", "events")), name


def test_the_async_client_has_the_sync_clients_namespaces() -> None:
    namespaces = {name for name, value in vars(AgentRental("http://127.0.0.1:1")).items() if type(value).__module__ == sync_module.__name__}
    assert namespaces == {"listings", "credentials", "runs", "keys", "apps", "alerts", "inputs", "creators"}
    assert {name for name, value in vars(AsyncAgentRental("http://127.0.0.1:1")).items() if type(value).__module__ == aio.__name__} == namespaces
