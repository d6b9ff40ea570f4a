"""Builds the package's wheel with the standard library alone (no pip, setuptools or build needed):
`python3 python/build_wheel.py [out_dir]` writes dist/agent_rental-<version>-py3-none-any.whl.

The wheel holds src/agent_rental (with py.typed) and the metadata pyproject.toml declares; pip and
any PEP 517 front end build the same package from pyproject.toml with setuptools.
"""

from __future__ import annotations

import base64
import hashlib
import pathlib
import re
import sys
import zipfile

HERE = pathlib.Path(__file__).resolve().parent
NAME = "agent_rental"


def version() -> str:
    match = re.search(r'^__version__ = "([^"]+)"', (HERE / "src" / NAME / "__init__.py").read_text(), re.M)
    assert match, "no __version__"
    return match.group(1)


def metadata(ver: str) -> str:
    readme = (HERE / "README.md").read_text(encoding="utf-8")
    return "\n".join([
        "Metadata-Version: 2.1",
        "Name: agent-rental",
        f"Version: {ver}",
        "Summary: Python client of the agent rental and task execution API: runs, streams, credentials, receipts, agents as tools",
        "License: MIT",
        "Requires-Python: >=3.10",
        "Provides-Extra: langchain",
        "Requires-Dist: langchain-core; extra == \"langchain\"",
        "Description-Content-Type: text/markdown",
        "",
        readme,
    ])


def build(out_dir: pathlib.Path) -> pathlib.Path:
    ver = version()
    dist_info = f"{NAME}-{ver}.dist-info"
    files: list[tuple[str, bytes]] = []
    for path in sorted((HERE / "src" / NAME).rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix in (".py", ".typed"):
            files.append((path.relative_to(HERE / "src").as_posix(), path.read_bytes()))
    files.append((f"{dist_info}/METADATA", metadata(ver).encode("utf-8")))
    files.append((f"{dist_info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: agent-rental build_wheel.py\nRoot-Is-Purelib: true\nTag: py3-none-any\n"))
    record = []
    for name, data in files:
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(data)}")
    record.append(f"{dist_info}/RECORD,,")
    files.append((f"{dist_info}/RECORD", ("\n".join(record) + "\n").encode()))
    out_dir.mkdir(parents=True, exist_ok=True)
    wheel = out_dir / f"{NAME}-{ver}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in files:
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    return wheel


if __name__ == "__main__":
    print(build(pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "dist"))
