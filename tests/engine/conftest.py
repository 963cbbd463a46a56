"""Engine tests: register the `slow` marker (a real 50 MB line; still a few seconds)."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: a large-input test that still runs in a few seconds")
