"""The package as a user installs it: the wheel built, installed into a fresh virtual environment with
no index, and the examples run from there against the world."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
from typing import Any

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def venv_python(world: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    out = tmp_path_factory.mktemp("wheel")
    built = subprocess.run([sys.executable, str(ROOT / "python/build_wheel.py"), str(out / "dist")], check=True, capture_output=True, text=True)
    wheel = pathlib.Path(built.stdout.strip())
    assert wheel.name == "agent_rental-0.1.0-py3-none-any.whl"
    subprocess.run([sys.executable, "-m", "venv", str(out / "venv")], check=True)
    python = out / "venv/bin/python"
    subprocess.run([str(python), "-m", "pip", "install", "--no-index", "--no-deps", "--disable-pip-version-check", "-q", str(wheel)], check=True)
    return python


def run_example(python: pathlib.Path, name: str, env: dict[str, str]) -> str:
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH" and not k.startswith(("AGENT_", "OPENAI_"))}
    done = subprocess.run([str(python), str(ROOT / "examples/python" / name)], env={**clean, **env}, capture_output=True, text=True, timeout=120, cwd=str(python.parent))
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_wheel_installs_with_py_typed_and_no_dependencies(venv_python: pathlib.Path) -> None:
    probe = subprocess.run([str(venv_python), "-c", "import agent_rental, pathlib, importlib.metadata as m; p = pathlib.Path(agent_rental.__file__).parent; print(p, (p / 'py.typed').exists(), m.requires('agent-rental'))"], capture_output=True, text=True, check=True, env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    where, typed, requires = probe.stdout.split(" ", 2)
    assert "site-packages" in where and str(venv_python.parents[1]) in where
    assert typed == "True"
    assert requires.strip() == "['langchain-core; extra == \"langchain\"']"


def test_the_examples_run_from_the_installed_wheel(world: dict[str, Any], venv_python: pathlib.Path) -> None:
    env = {"AGENT_RENTAL_API_URL": world["api_url"], "AGENT_RENTAL_API_KEY": world["renter"]["api_key"], "AGENT_RENTAL_STACK": "/nonexistent"}
    one_time = world["listings"]["one_time"]["agent_id"]
    ran = run_example(venv_python, "run.py", {**env, "AGENT_ID": one_time, "AGENT_INPUT": '{"topic": "tides"}'})
    assert ran.startswith("completed run_") and '"done: Review this contract"' in ran
    streamed = run_example(venv_python, "stream.py", {**env, "AGENT_ID": one_time, "AGENT_INPUT": "{}", "AGENT_TASK": "stream from the wheel"})
    assert streamed.startswith("alpha beta gamma\n[completed] run run_")
    # With no settings but the stack file: what `npm start` writes to .local/stack.json, as the examples read it.
    stack = venv_python.parents[1] / "stack.json"
    demo_listing = {"name": "contract-reviewer", "agent_id": one_time, "listing_id": world["listings"]["one_time"]["listing_id"]}
    stack.write_text(json.dumps({"api_url": world["api_url"], "model_server_url": world["model_server_url"], "demo": {"api_key": world["renter"]["api_key"], "listings": [demo_listing]}}))
    looped = run_example(venv_python, "openai_tool_loop.py", {"AGENT_RENTAL_STACK": str(stack), "TOOL_ARGUMENTS": json.dumps({"task": "loop from the wheel", "topic": "tides"})})
    assert "returned:" in looped and "done: loop from the wheel" in looped
