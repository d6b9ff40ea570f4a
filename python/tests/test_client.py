"""The Python SDK against the real service: the same cases as the TypeScript SDK's suite
(test/sdk/client.test.ts), through a world started by scripts/test-python.ts."""

from __future__ import annotations

import asyncio
import socket
import threading
import uuid
from typing import Any

import pytest

from agent_rental import (
    AccessError,
    AgentRental,
    AgentRentalError,
    ApiError,
    AsyncAgentRental,
    AuthError,
    DoneEvent,
    NotFoundError,
    OutputEvent,
    RateLimitError,
    RetryInfo,
    run_receipt_leaf,
    verify_run_receipt,
)

from conftest import control, until
from gateway import CuttingProxy


def sign_with(world: dict[str, Any]) -> Any:
    return lambda message: control(world, "/sign", body={"message": message})["signature"]


# -- authentication and keys ------------------------------------------------------------------------


def test_sign_in_with_a_wallet_signature_and_use_the_jwt(world: dict[str, Any]) -> None:
    fresh = AgentRental(world["api_url"])
    token = fresh.sign_in(world["renter"]["address"], sign_with(world))
    assert len(token["token"].split(".")) == 3
    assert {c["listing_id"] for c in fresh.credentials.list()["credentials"]} >= {world["listings"]["one_time"]["listing_id"]}


def test_create_list_and_revoke_a_key_and_the_revoked_key_gets_auth_error(world: dict[str, Any], client: AgentRental) -> None:
    created = client.keys.create("python suite", sign_with(world))
    assert created["key"].startswith("svc_test_")
    assert created["key_id"] in {k["key_id"] for k in client.keys.list()}
    client.keys.revoke(world["renter"]["spare_key_id"])
    with pytest.raises(AuthError) as refused:
        AgentRental(world["api_url"], api_key=world["renter"]["spare_key"]).credentials.list()
    assert (refused.value.code, refused.value.status) == ("invalid_api_key", 401)
    assert AgentRental(world["api_url"], api_key=created["key"]).credentials.list()["total"] >= 3


def test_no_credentials_raise_auth_error_unauthorized_with_the_request_id(world: dict[str, Any]) -> None:
    with pytest.raises(AuthError) as refused:
        AgentRental(world["api_url"]).credentials.list()
    error = refused.value
    assert (error.code, error.status, error.retry_after) == ("unauthorized", 401, None)
    assert error.request_id and error.request_id.startswith("req_")
    assert isinstance(error, ApiError) and isinstance(error, AgentRentalError)


# -- listings and credentials -----------------------------------------------------------------------


def test_search_and_get_listings(world: dict[str, Any], client: AgentRental) -> None:
    found = client.listings.search(q="py-one-time", limit=100)
    ids = [listing["id"] for listing in found["listings"]]
    assert world["listings"]["one_time"]["listing_id"] in ids
    assert found["limit"] == 100 and found["offset"] == 0
    listing = client.listings.get(world["listings"]["per_query"]["listing_id"])
    assert listing["rental_model"] == "per_query" and listing["status"] == "active"
    metadata = client.listings.metadata(listing["metadata_uri"])
    assert metadata["input_schema"]["properties"] == {"topic": {"type": "string"}}
    reputation = client.listings.reputation(listing["id"])
    assert (reputation["listing_id"], reputation["feedback"], reputation["review_count"]) == (listing["id"], [], 0)


def test_list_and_verify_credentials_of_all_three_models(world: dict[str, Any], client: AgentRental) -> None:
    listed = {c["listing_id"]: c for c in client.credentials.list(limit=100)["credentials"]}
    for model in ("one_time", "subscription", "per_query"):
        credential = listed[world["listings"][model]["listing_id"]]
        assert (credential["rental_model"], credential["status"]) == (model, "active")
        verified = client.credentials.verify(world["listings"][model]["listing_id"])
        assert verified["valid"] is True and verified["on_chain_verified"] is True
    absent = client.credentials.verify(world["listings"]["unrented"]["listing_id"])
    assert (absent["valid"], absent["status"]) == (False, "not_found")


def test_unknown_listing_and_run_raise_not_found_error(client: AgentRental) -> None:
    with pytest.raises(NotFoundError) as listing:
        client.listings.get("lst_" + "ab" * 32)
    assert (listing.value.code, listing.value.status) == ("listing_not_found", 404)
    with pytest.raises(NotFoundError) as run:
        client.runs.get("run_doesnotexist")
    assert run.value.status == 404


# -- execute ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("model", ["one_time", "subscription"])
def test_execute_a_one_time_and_a_subscription_rental(world: dict[str, Any], client: AgentRental, model: str) -> None:
    run = client.execute(world["listings"][model]["agent_id"], f"run {model}", input={"topic": "tides"})
    assert run["status"] == "completed"
    assert run["output"] == {"findings": [f"done: run {model}"]}
    assert run["cost_wei"] == 0
    again = client.runs.get(run["run_id"])
    assert (again["run_id"], again["rental_model"], again["output"]) == (run["run_id"], model, run["output"])


def test_execute_a_per_query_rental_with_the_exact_cost(world: dict[str, Any], client: AgentRental) -> None:
    run = client.execute(world["listings"]["per_query"]["agent_id"], "run per query")
    assert run["status"] == "completed"
    assert run["cost_wei"] == int(world["listings"]["per_query"]["price_wei"]) == 12345678901234567
    assert isinstance(run["cost_wei"], int)


def test_the_same_idempotency_key_answers_the_first_run_once(world: dict[str, Any], client: AgentRental) -> None:
    key = f"py-{uuid.uuid4()}"
    agent = world["listings"]["one_time"]["agent_id"]
    first = client.execute(agent, "run once by key", idempotency_key=key)
    second = client.execute(agent, "run once by key", idempotency_key=key)
    assert second["run_id"] == first["run_id"]
    assert control(world, "/deliveries", task="run once by key")["count"] == 1
    with pytest.raises(ApiError) as reused:
        client.execute(agent, "another task under the same key", idempotency_key=key)
    assert (reused.value.code, reused.value.status) == ("idempotency_key_reused", 409)
    assert type(reused.value) is ApiError


def test_a_listing_not_rented_raises_access_error_with_the_contract_error(world: dict[str, Any], client: AgentRental) -> None:
    with pytest.raises(AccessError) as refused:
        client.execute(world["listings"]["unrented"]["agent_id"], "x")
    assert (refused.value.code, refused.value.status) == ("credential_not_found", 403)
    assert refused.value.on_chain_error == {"contract": "Marketplace", "error": "CredentialNotFound"}


def test_a_malformed_request_raises_api_error_invalid_request(world: dict[str, Any], client: AgentRental) -> None:
    with pytest.raises(ApiError) as refused:
        client.execute(world["listings"]["one_time"]["agent_id"], "")
    assert (refused.value.code, refused.value.status) == ("invalid_request", 400)


def test_an_unreachable_api_raises_connection_failed(world: dict[str, Any]) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(AgentRentalError) as failed:
        AgentRental(f"http://127.0.0.1:{port}", api_key="svc_test_x", retries=0).listings.search()
    assert (failed.value.code, failed.value.status) == ("connection_failed", 0)


# -- streaming --------------------------------------------------------------------------------------


def test_execute_stream_yields_output_events_then_done(world: dict[str, Any], client: AgentRental) -> None:
    events = list(client.execute_stream(world["listings"]["one_time"]["agent_id"], "stream please"))
    outputs = [e for e in events if isinstance(e, OutputEvent)]
    assert [(e.delta, e.id) for e in outputs] == [("alpha ", "6"), ("beta ", "11"), ("gamma", "16")]
    done = events[-1]
    assert isinstance(done, DoneEvent) and done.run["status"] == "completed" and done.run["cost_wei"] == 0


def test_a_per_query_stream_carries_the_exact_cost_in_done(world: dict[str, Any], client: AgentRental) -> None:
    done = list(client.execute_stream(world["listings"]["per_query"]["agent_id"], "stream per query"))[-1]
    assert isinstance(done, DoneEvent) and done.run["cost_wei"] == 12345678901234567


def test_a_dropped_stream_is_resumed_with_last_event_id_and_yields_each_delta_once(world: dict[str, Any]) -> None:
    proxy = CuttingProxy(world["api_url"])
    try:
        resuming = AgentRental(proxy.url, api_key=world["renter"]["api_key"], retry_base_delay=0.01)
        events = list(resuming.execute_stream(world["listings"]["one_time"]["agent_id"], "stream once more"))
    finally:
        proxy.close()
    assert proxy.cut
    outputs = [e for e in events if isinstance(e, OutputEvent)]
    assert outputs[0] == OutputEvent(delta="alpha ", id="6")
    assert "".join(e.delta for e in outputs) == "alpha beta gamma"
    done = events[-1]
    assert isinstance(done, DoneEvent) and done.run["status"] == "completed"
    assert (f"GET /v1/runs/{done.run['run_id']}/events HTTP/1.1", "6") in proxy.paths
    assert control(world, "/deliveries", task="stream once more")["count"] == 1


def test_with_no_resumes_a_drop_raises_stream_interrupted_and_the_caller_resumes_with_runs_events(world: dict[str, Any], client: AgentRental) -> None:
    proxy = CuttingProxy(world["api_url"])
    run_ids: list[str] = []
    seen: list[Any] = []
    try:
        own = AgentRental(proxy.url, api_key=world["renter"]["api_key"])
        with pytest.raises(AgentRentalError) as interrupted:
            for event in own.execute_stream(world["listings"]["one_time"]["agent_id"], "stream resumed by the caller", resumes=0, on_run_id=run_ids.append):
                seen.append(event)
    finally:
        proxy.close()
    assert (interrupted.value.code, interrupted.value.status) == ("stream_interrupted", 0)
    assert seen == [OutputEvent(delta="alpha ", id="6")]
    rest = list(client.runs.events(run_ids[0], last_event_id="6"))
    assert "".join(e.delta for e in rest if isinstance(e, OutputEvent)) == "beta gamma"
    assert isinstance(rest[-1], DoneEvent) and rest[-1].run["run_id"] == run_ids[0]


def test_a_refused_stream_raises_its_typed_error_before_any_event(world: dict[str, Any], client: AgentRental) -> None:
    stream = client.execute_stream(world["listings"]["unrented"]["agent_id"], "x")
    with pytest.raises(AccessError) as refused:
        next(iter(stream))
    assert refused.value.code == "credential_not_found"


def test_execute_is_retried_after_503_under_one_idempotency_key_and_runs_once(world: dict[str, Any]) -> None:
    proxy = CuttingProxy(world["api_url"], fail=("/v1/execute", 2))
    try:
        flaky = AgentRental(proxy.url, api_key=world["renter"]["api_key"], retry_base_delay=0.01)
        run = flaky.execute(world["listings"]["one_time"]["agent_id"], "after two failures")
    finally:
        proxy.close()
    assert run["status"] == "completed"
    assert len(proxy.keys) == 3 and len(set(proxy.keys)) == 1
    assert control(world, "/deliveries", task="after two failures")["count"] == 1


def test_after_its_retries_a_503_is_raised_as_api_error(world: dict[str, Any]) -> None:
    proxy = CuttingProxy(world["api_url"], fail=("/v1/execute", 5))
    try:
        with pytest.raises(ApiError) as unavailable:
            AgentRental(proxy.url, api_key=world["renter"]["api_key"], retry_base_delay=0.01, retries=2).execute(world["listings"]["one_time"]["agent_id"], "never reached")
    finally:
        proxy.close()
    assert (unavailable.value.code, unavailable.value.status, unavailable.value.request_id, unavailable.value.retry_after) == ("service_unavailable", 503, "req_gateway", 0.0)
    assert len(proxy.keys) == 3
    assert control(world, "/deliveries", task="never reached")["count"] == 0


# -- 429 and Retry-After ----------------------------------------------------------------------------


def test_the_21st_concurrent_run_gets_rate_limit_error_and_the_default_client_waits_it_out(world: dict[str, Any]) -> None:
    agent = world["listings"]["crowded"]["agent_id"]
    control(world, "/hold", task="hold the slot")

    async def crowd() -> list[Any]:
        crowd_client = AsyncAgentRental(world["api_url"], api_key=world["renter"]["api_key"])
        return list(await asyncio.gather(*(crowd_client.execute(agent, "hold the slot") for _ in range(20))))

    results: list[Any] = []
    crowd_thread = threading.Thread(target=lambda: results.extend(asyncio.run(crowd())))
    crowd_thread.start()
    try:
        until(lambda: control(world, "/arrived", task="hold the slot")["arrived"] == 20, timeout=60, what="20 runs at the gate")
        strict = AgentRental(world["api_url"], api_key=world["renter"]["api_key"], retry_on_429=False)
        with pytest.raises(RateLimitError) as limited:
            strict.execute(agent, "one too many")
        assert (limited.value.code, limited.value.status, limited.value.retry_after) == ("rate_limit_exceeded", 429, 1.0)
        # The wait is bounded: a Retry-After above max_retry_wait is raised at once.
        with pytest.raises(RateLimitError):
            AgentRental(world["api_url"], api_key=world["renter"]["api_key"], max_retry_wait=0.5).execute(agent, "too patient")
        retries: list[RetryInfo] = []
        patient = AgentRental(world["api_url"], api_key=world["renter"]["api_key"], retries=5, on_retry=retries.append)
        answer: list[Any] = []
        patient_thread = threading.Thread(target=lambda: answer.append(patient.execute(agent, "patient")))
        patient_thread.start()
        until(lambda: any(r.status == 429 for r in retries), what="the patient client to be refused")
    finally:
        control(world, "/open", task="hold the slot")
        crowd_thread.join(60)
    patient_thread.join(60)
    assert len(results) == 20 and all(r["status"] == "completed" for r in results)
    assert answer and answer[0]["output"] == {"findings": ["done: patient"]}
    assert retries[0].delay == 1.0 and retries[0].code == "rate_limit_exceeded"
    # Every attempt carried the same Idempotency-Key: the agent ran once.
    assert control(world, "/deliveries", task="patient")["count"] == 1


# -- the receipt on-chain ---------------------------------------------------------------------------


def test_a_runs_receipt_verifies_against_the_chain(world: dict[str, Any], client: AgentRental) -> None:
    run = client.execute(world["listings"]["per_query"]["agent_id"], "run with a receipt")
    detail = until(lambda: (lambda d: d if d["receipt"] else None)(client.runs.get(run["run_id"])), timeout=60, what="the run's receipt")
    renter = world["renter"]["address"]
    assert run["run_id"] in [r["run_id"] for r in client.runs.list(world["listings"]["per_query"]["listing_id"], limit=100)["runs"]]
    assert run_receipt_leaf(detail, renter) == detail["receipt"]["leaf"]
    assert client.runs.verify_receipt(detail, rpc_url=world["rpc_url"], renter=renter) is True
    assert verify_run_receipt(detail, rpc_url=world["rpc_url"], marketplace=world["marketplace"], renter=renter) is True
    misstated = {**detail, "cost_wei": detail["cost_wei"] + 1}
    assert verify_run_receipt(misstated, rpc_url=world["rpc_url"], marketplace=world["marketplace"], renter=renter) is False
    other = "0x" + "11" * 20
    assert verify_run_receipt(detail, rpc_url=world["rpc_url"], marketplace=world["marketplace"], renter=other) is False


# -- the asyncio client -----------------------------------------------------------------------------


def test_the_async_client_executes_and_streams(world: dict[str, Any]) -> None:
    async def main() -> tuple[Any, list[Any], Any]:
        client = AsyncAgentRental(world["api_url"], api_key=world["renter"]["api_key"])
        run = await client.execute(world["listings"]["subscription"]["agent_id"], "async run")
        events = [event async for event in client.execute_stream(world["listings"]["subscription"]["agent_id"], "stream async")]
        try:
            await client.listings.get("lst_" + "cd" * 32)
        except NotFoundError as error:
            return run, events, error
        return run, events, None

    run, events, error = asyncio.run(main())
    assert run["output"] == {"findings": ["done: async run"]}
    assert "".join(e.delta for e in events if isinstance(e, OutputEvent)) == "alpha beta gamma"
    assert isinstance(events[-1], DoneEvent)
    assert error is not None and error.code == "listing_not_found"
