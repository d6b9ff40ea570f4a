"""Stream a rented agent's output as it is produced: `python examples/python/stream.py`.

A dropped connection is resumed from the last event (Last-Event-ID) by the client itself."""

import json
import os

from _local import settings

from agent_rental import AgentRental, DoneEvent, OutputEvent

url, key, agent_id = settings("unit-test-writer")
client = AgentRental(url, api_key=key)
task_input = json.loads(os.environ.get("AGENT_INPUT", '{"source": "export const sum = (xs) => xs.reduce((a, b) => a + b, 0);"}'))
for event in client.execute_stream(agent_id, os.environ.get("AGENT_TASK", "Write tests for sum"), input=task_input):
    if isinstance(event, OutputEvent):
        print(event.delta, end="", flush=True)
    elif isinstance(event, DoneEvent):
        print(f"\n[{event.run['status']}] run {event.run['run_id']}, cost_wei={event.run['cost_wei']}")
