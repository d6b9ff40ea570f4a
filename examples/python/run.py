"""Run a rented agent and print its output: `python examples/python/run.py` (with `npm start` running)."""

import json
import os

from _local import settings

from agent_rental import AgentRental

url, key, agent_id = settings("contract-reviewer")
client = AgentRental(url, api_key=key)
task_input = json.loads(os.environ.get("AGENT_INPUT", '{"contract": "The supplier accepts unlimited liability."}'))
run = client.execute(agent_id, "Review this contract", input=task_input)
print(run["status"], run["run_id"], f"cost_wei={run['cost_wei']}")
print(json.dumps(run["output"], indent=2))
