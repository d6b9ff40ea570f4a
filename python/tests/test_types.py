"""The package type-checks under ``mypy --strict`` (Debian's python3-mypy, or any mypy beside pytest)."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys

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
