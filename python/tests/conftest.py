"""The world the suite runs against: started by scripts/test-python.ts, described in the JSON file named
by AGENT_RENTAL_TEST_WORLD (the API's URL, the chain, the renter's keys, the rented listings)."""

from __future__ import annotations

import json
import os
import time
import urllib.parse
import urllib.request
from typing import Any, Callable

import pytest

from agent_rental import AgentRental


@pytest.fixture(scope="session")
def world() -> dict[str, Any]:
    path = os.environ.get("AGENT_RENTAL_TEST_WORLD")
    if not path:
        pytest.skip("run through scripts/test-python.ts, which starts the world (AGENT_RENTAL_TEST_WORLD is unset)")
    with open(path, encoding="utf-8") as file:
        return dict(json.load(file))


@pytest.fixture()
def client(world: dict[str, Any]) -> AgentRental:
    # The renter's key serves most of the suite: a 429 of its 100 requests a minute is waited out.
    return AgentRental(world["api_url"], api_key=world["renter"]["api_key"], retry_base_delay=0.01, max_retry_wait=65.0)


def control(world: dict[str, Any], path: str, *, task: str = "", body: Any = None) -> Any:
    """Calls the world's control server (gates, deliveries, the renter's signature)."""
    url = f"{world['control_url']}{path}?task={urllib.parse.quote(task)}"
    data = None if body is None else json.dumps(body).encode()
    with urllib.request.urlopen(urllib.request.Request(url, data=data, method="POST" if data is not None else "GET"), timeout=30) as response:
        return json.loads(response.read())


def until(condition: Callable[[], Any], *, timeout: float = 30.0, interval: float = 0.1, what: str = "the condition") -> Any:
    """Polls ``condition`` until it answers something truthy; fails after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(interval)

