"""Where the examples find the service: AGENT_RENTAL_API_URL and AGENT_RENTAL_API_KEY, or else the local
stack's .local/stack.json (written by `npm start`) and its demo renter's key."""

from __future__ import annotations

import json
import os
import pathlib
from typing import Any


def stack() -> dict[str, Any]:
    path = pathlib.Path(os.environ.get("AGENT_RENTAL_STACK", pathlib.Path(__file__).resolve().parents[2] / ".local/stack.json"))
    return dict(json.loads(path.read_text())) if path.exists() else {}


def settings(agent_name: str, field: str = "agent_id") -> tuple[str, str, str]:
    """The API URL, an API key, and the agent to run (AGENT_ID, or the demo listing named agent_name's
    `field`: its agent_id, or its listing_id)."""
    local = stack()
    demo = local.get("demo", {})
    url = os.environ.get("AGENT_RENTAL_API_URL") or local["api_url"]
    key = os.environ.get("AGENT_RENTAL_API_KEY") or demo["api_key"]
    agent = os.environ.get("AGENT_ID") or next(l[field] for l in demo["listings"] if l["name"] == agent_name)
    return url, key, agent
