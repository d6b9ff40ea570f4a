"""The types: the package type-checks under ``mypy --strict`` (Debian's python3-mypy, or any mypy beside
pytest), and its models are what the served API's OpenAPI document generates."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys
from typing import Any

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


def mypy_python() -> str | None:
    for python in (sys.executable, "/usr/bin/python3", shutil.which("python3")):
        if python and subprocess.run([python, "-c", "import mypy"], capture_output=True).returncode == 0:
            return python
    return None


def test_mypy_strict_passes_on_the_package() -> None:
    python = mypy_python()
    if python is None:
        if os.environ.get("CI") == "true":
            pytest.fail("mypy is not installed (apt-get install python3-mypy)")
        pytest.skip("mypy is not installed (apt-get install python3-mypy)")
    checked = subprocess.run([python, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir=/dev/null", "src/agent_rental"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "Success: no issues found" in checked.stdout


def test_the_models_are_what_the_served_openapi_document_generates(world: dict[str, Any]) -> None:
    # scripts/test-python.ts generated them from GET /v1/openapi.json of the API it serves.
    served = pathlib.Path(world["served_models"]).read_text(encoding="utf-8")
    committed = (ROOT / "src/agent_rental/models.py").read_text(encoding="utf-8")
    assert committed == served, f"python/src/agent_rental/models.py differs from what GET /v1/openapi.json generates: run `{world['models_command']}`"
    assert "class Listing(ListingSummary):" in served and "    price_units: str" in served and "    currency: Currency" in served
