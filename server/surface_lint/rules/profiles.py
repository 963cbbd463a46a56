"""The verdict profiles a lane is loaded in (names only: the command line lists them before any lane loads)."""

from __future__ import annotations

PROFILES = ("contract", "reference")
DEFAULT_PROFILE = "contract"
