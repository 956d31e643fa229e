"""examples/python/client.py runs against a real daemon (in every format)."""

from __future__ import annotations

import subprocess
import sys
import uuid

import pytest

from layoutd_testkit import REPO, Server

EXAMPLE = REPO / "examples" / "python" / "client.py"


@pytest.mark.parametrize("fmt", ["objects", "columns", "binary"])
def test_example_demo(single_server: Server, fmt: str) -> None:
    key = f"example-{uuid.uuid4().hex[:8]}"
    done = subprocess.run(
        [
            sys.executable,
            str(EXAMPLE),
            "--front",
            single_server.front,
            "--events",
            single_server.events,
            "--timeout",
            "5",
            "demo",
            "--key",
            key,
            "--format",
            fmt,
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[1].startswith(f"prepared {key} v1: 14 items")
    assert any(line.startswith("query 0,0,375,400: ") for line in lines)
    assert f"updated {key} v2: -2 +1 moves 1 reloads 1" in lines
    # The same elements whatever the format.
    elements = [line for line in lines if line.startswith("  ")]
    assert elements and elements[0].split()[0] == "header"
