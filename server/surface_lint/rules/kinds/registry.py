"""The one registry of predicate kinds. Every family of kinds is a module exposing a `name ->
Kind` table, listed below in KIND_FAMILIES: nothing registers itself by being imported. A kind
written outside the package is added with an explicit `register_kind` call before lanes load
(docs/rules.md, "Adding a kind")."""

from __future__ import annotations

from collections.abc import Mapping

from .case import KINDS as CASE_KINDS
from .core import SURFACE_KINDS, Kind
from .extra import KINDS as TERM_KINDS

# (family module, its kinds): the surface and chain kinds, the kinds that read the case, the
# term / list / pattern kinds.
KIND_FAMILIES: tuple[tuple[str, Mapping[str, Kind]], ...] = (
    ("predicates", SURFACE_KINDS),
    ("case_kinds", CASE_KINDS),
    ("kinds_extra", TERM_KINDS),
)

KINDS: dict[str, Kind] = {}


def register_kind(name: str, kind: Kind) -> Kind:
    """Add a kind to the registry. A name is registered once."""
    if name in KINDS:
        raise ValueError(f"predicate kind {name!r} is already registered")
    if not name or not name.replace("_", "").isalnum():
        raise ValueError(f"predicate kind name {name!r} must be letters, digits and underscores")
    KINDS[name] = kind
    return kind


for _family, _kinds in KIND_FAMILIES:
    for _name, _kind in _kinds.items():
        register_kind(_name, _kind)
