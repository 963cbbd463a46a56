"""Predicate kinds, one module per family."""
