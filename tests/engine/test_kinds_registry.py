"""Kinds are registered explicitly: each family module holds a `name -> Kind` table, and
kinds.KIND_FAMILIES lists the families; importing a family module registers nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from surface_lint.rules.kinds import case as case_kinds
from surface_lint.rules.kinds import core as predicates
from surface_lint.rules.kinds import extra as kinds_extra
from surface_lint.rules.kinds.core import Kind
from surface_lint.rules.kinds.registry import KIND_FAMILIES, KINDS, register_kind

ROOT = Path(__file__).resolve().parents[2]


def test_the_registry_is_the_listed_families_and_nothing_else() -> None:
    assert [name for name, _ in KIND_FAMILIES] == ["predicates", "case_kinds", "kinds_extra"]
    listed = {**predicates.SURFACE_KINDS, **case_kinds.KINDS, **kinds_extra.KINDS}
    assert KINDS == listed
    assert sorted(case_kinds.KINDS) == ["condition", "count_between"]
    assert sorted(kinds_extra.KINDS) == ["first_letter_upper", "pattern_present", "surface_in_list", "terms_in_order",
                                         "terms_present"]
    assert len(KINDS) == len(predicates.SURFACE_KINDS) + 2 + 5


def test_importing_a_family_module_registers_nothing() -> None:
    probe = ("import surface_lint.rules.kinds.core, surface_lint.rules.kinds.case, surface_lint.rules.kinds.extra, sys\n"
             "print('surface_lint.rules.kinds.registry' in sys.modules, hasattr(surface_lint.rules.kinds.core, 'KINDS'))\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "server")}
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=False)
    assert (out.returncode, out.stdout, out.stderr) == (0, "False False\n", "")


def test_a_name_registers_once() -> None:
    with pytest.raises(ValueError) as info:
        register_kind("condition", Kind(lambda params: lambda ctx: None, {}))
    assert str(info.value) == "predicate kind 'condition' is already registered"
    with pytest.raises(ValueError) as info:
        register_kind("two words", Kind(lambda params: lambda ctx: None, {}))
    assert str(info.value) == "predicate kind name 'two words' must be letters, digits and underscores"
