"""surface-lint: deterministic, structural predicates over a chat runtime's surfaces."""

__version__ = "0.1.0"
