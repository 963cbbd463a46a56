"""The error every layer raises for bad arguments or unreadable input (exit code 2)."""

from __future__ import annotations


class UsageError(Exception):
    """Bad arguments or unreadable input: exit code 2."""
