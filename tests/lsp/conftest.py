"""A real LSP client (pytest-lsp) talking to `python -m surface_lint server` over stdio.

Each test gets its own server process and a copy of tests/fixtures/lsp/workspace.
"""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from lsp_support import FIXTURES, SERVER, RecordingClient, make_client
from pytest_lsp import ClientServerConfig


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, client_factory=make_client))
async def client(lsp_client: RecordingClient) -> AsyncIterator[RecordingClient]:
    yield lsp_client
    await lsp_client.shutdown_session()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    shutil.copytree(FIXTURES / "workspace", root)
    return root


