"""`[lane] extends`: a lane file inherits another's tables (merged key by key, named arrays by
name), errors keep the file, line and column they were written at, unknown bases and cycles
are errors at the `extends` key."""

from __future__ import annotations

from pathlib import Path

import pytest
from engine_support import write

from surface_lint.rules.extends import merge
from surface_lint.rules.kinds.core import Context, Subject
from surface_lint.rules.loader import LaneError, builtin_rules_dir, load_lane, load_lanes

BASE = '''[lane]
name = "base"
title = "The base"

[[predicates]]
name = "ends"
code = "EB1"
kind = "ends_with"
message = "ends badly"
[predicates.params]
endings = ["."]

[[predicates]]
name = "no_marker"
code = "EB2"
kind = "substring_absent"
[predicates.params]
markers = ["<pending>"]

[[metrics]]
name = "ends_rate"
passing = ["ends"]

[thresholds.v1]
checks = [{ metric = "ends_rate", op = ">=", value = 0.5 }]
'''

CHILD = '''# inherits base.toml
[lane]
extends = "base"
name = "child"

[[predicates]]
name = "ends"
code = "EC1"
[predicates.params]
endings = ["!"]

[[predicates]]
name = "no_marker"
code = "EC2"

[[predicates]]
name = "no_todo"
code = "EC3"
kind = "substring_absent"
[predicates.params]
markers = ["TODO"]

[thresholds.v1]
checks = [{ metric = "ends_rate", op = ">=", value = 1.0 }]
'''


def lanes_in(tmp_path: Path, **files: str) -> dict[str, Path]:
    return {name: write(tmp_path / f"{name}.toml", text) for name, text in files.items()}


def test_a_lane_inherits_tables_and_overrides_by_key_and_by_name(tmp_path: Path) -> None:
    paths = lanes_in(tmp_path, base=BASE, child=CHILD)
    lane = load_lane(paths["child"])
    assert (lane.name, lane.title, lane.path) == ("child", "The base", str(paths["child"]))
    assert [(p.name, p.code, p.kind, p.params, p.message) for p in lane.predicates] == [
        ("ends", "EC1", "ends_with", {"endings": ["!"]}, "ends badly"),
        ("no_marker", "EC2", "substring_absent", {"markers": ["<pending>"]}, None),
        ("no_todo", "EC3", "substring_absent", {"markers": ["TODO"]}, None),
    ]
    assert [m.name for m in lane.metrics] == ["ends_rate"]
    assert [(c.metric, c.op, c.value) for c in lane.thresholds["v1"].checks] == [("ends_rate", ">=", 1.0)]  # replaced
    ends = lane.predicate("ends")
    assert ends is not None
    verdict = ends.evaluate(Context(Subject("Done."), lane.analysis))
    assert verdict is not None and (verdict.passed, verdict.message) == (False, "ends badly")
    # Each predicate points at its own entry in the extending file.
    assert [(p.line, p.code_at) for p in lane.predicates] == [(6, (8, 1)), (12, (14, 1)), (16, (18, 1))]


def test_an_error_is_reported_where_it_was_written(tmp_path: Path) -> None:
    child = CHILD.replace('endings = ["!"]', 'endings = "!"')
    paths = lanes_in(tmp_path, base=BASE, child=child)
    with pytest.raises(LaneError) as info:
        load_lane(paths["child"])
    assert (info.value.path, info.value.line, info.value.column, info.value.message) == (
        str(paths["child"]), 10, 1, "predicate 'ends': parameter `endings` must be list[string], not string")
    # The extending file changes the kind: the inherited parameter is now unknown, in the base file.
    child = CHILD.replace('code = "EC1"\n', 'code = "EC1"\nkind = "terms_present"\n').replace(
        'endings = ["!"]', 'terms = ["x"]')
    paths = lanes_in(tmp_path, base=BASE, child=child)
    with pytest.raises(LaneError) as info:
        load_lane(paths["child"])
    assert (info.value.path, info.value.line, info.value.column, info.value.message) == (
        str(paths["base"]), 11, 1, f"predicate 'ends' (terms_present): unknown parameter `endings` (inherited by "
                                   f"{paths['child']}, which extends this file)")


def test_three_levels_and_an_error_in_the_first_base(tmp_path: Path) -> None:
    grandchild = '[lane]\nextends = "child"\nname = "grandchild"\n\n[[predicates]]\nname = "no_todo"\ncode = "EG3"\n'
    paths = lanes_in(tmp_path, base=BASE, child=CHILD, grandchild=grandchild)
    lane = load_lane(paths["grandchild"])
    assert [(p.name, p.code) for p in lane.predicates] == [("ends", "EC1"), ("no_marker", "EC2"), ("no_todo", "EG3")]
    paths = lanes_in(tmp_path, base=BASE.replace("value = 0.5", 'value = "x"'), child=CHILD.replace(
        "[thresholds.v1]\nchecks = [{ metric = \"ends_rate\", op = \">=\", value = 1.0 }]\n", ""),
        grandchild=grandchild)
    with pytest.raises(LaneError) as info:
        load_lane(paths["grandchild"])
    assert (info.value.path, info.value.line, info.value.column, info.value.message) == (
        str(paths["base"]), 25, 46, f"threshold set 'v1', check 1: `value` must be number, not string (inherited by "
                                    f"{paths['grandchild']}, which extends this file)")


@pytest.mark.parametrize(("extends", "message"), [
    ('"nope"', "[lane] `extends` names lane 'nope': there is no nope.toml beside this file and no shipped lane "
               "of that name"),
    ('"../base"', '[lane] `extends` must name a lane (letters, digits and underscores), not "../base"'),
    ("3", "[lane] `extends` must name a lane (letters, digits and underscores), not integer"),
    ('"child"', "[lane] `extends` names lane 'child': there is no child.toml beside this file and no shipped "
                "lane of that name"),  # itself: a file is not its own base
])
def test_an_unknown_base_is_an_error_at_the_extends_key(tmp_path: Path, extends: str, message: str) -> None:
    paths = lanes_in(tmp_path, base=BASE, child=CHILD.replace('extends = "base"', f"extends = {extends}"))
    with pytest.raises(LaneError) as info:
        load_lane(paths["child"])
    assert (info.value.path, info.value.line, info.value.column, info.value.message) == (
        str(paths["child"]), 3, 1, message)


def test_a_cycle_is_an_error_at_the_extends_key_that_closes_it(tmp_path: Path) -> None:
    one = '[lane]\nname = "one"\nextends = "two"\n[[predicates]]\nname = "p"\ncode = "CY1"\nkind = "not_only_tail"\n'
    two = '[lane]\nname = "two"\n\nextends = "three"\n'
    three = '[lane]\n  extends = "one"\nname = "three"\n'
    paths = lanes_in(tmp_path, one=one, two=two, three=three)
    with pytest.raises(LaneError) as info:
        load_lane(paths["one"])
    assert (info.value.path, info.value.line, info.value.column, info.value.message) == (
        str(paths["three"]), 2, 3, "[lane] `extends` makes a cycle: one.toml -> two.toml -> three.toml -> one.toml")


def test_merge_by_key_and_by_name() -> None:
    base = {"lane": {"name": "b", "title": "T"}, "predicates": [{"name": "x", "code": "1", "params": {"a": 1, "b": 2}},
                                                                  {"name": "y", "code": "2"}],
            "list": [1, 2], "checks": [{"metric": "m"}]}
    child = {"lane": {"name": "c"}, "predicates": [{"name": "z"}, {"name": "x", "params": {"b": 3}}],
             "list": [3], "checks": [{"metric": "n"}, {"metric": "o"}]}
    merged, base_maps, child_maps = merge(base, child)
    assert merged == {"lane": {"name": "c", "title": "T"},
                      "predicates": [{"name": "x", "code": "1", "params": {"a": 1, "b": 3}}, {"name": "y", "code": "2"},
                                     {"name": "z"}],
                      "list": [3], "checks": [{"metric": "n"}, {"metric": "o"}]}
    assert (base_maps, child_maps) == ({("predicates",): {0: 0, 1: 1}}, {("predicates",): {2: 0, 0: 1}})


def test_the_shipped_grammar_lanes_are_grammatical_coverage_with_their_own_name_title_and_codes() -> None:
    base = load_lane(builtin_rules_dir() / "grammatical_coverage.toml", "reference")
    for name, title, first in (("english_fluency_ood", "English fluency (out of domain)", 411),
                               ("classical_literature_ood", "Classical literature (out of domain)", 421),
                               ("elementary_mathematics_ood", "Elementary mathematics (out of domain)", 431),
                               ("foundational_physics_ood", "Foundational physics (out of domain)", 441)):
        path = builtin_rules_dir() / f"{name}.toml"
        assert 'extends = "grammatical_coverage"' in path.read_text("utf-8")
        lane = load_lane(path, "reference")
        assert (lane.name, lane.title) == (name, title)
        assert [p.code for p in lane.predicates] == [f"SLC{first + i}" for i in range(5)]
        assert [(p.name, p.kind, p.params, p.message) for p in lane.predicates] == [
            (p.name, p.kind, p.params, p.message) for p in base.predicates]
        assert lane.casework is not None and base.casework is not None
        assert [v.name for v in lane.casework.values] == [v.name for v in base.casework.values]
    assert load_lanes().errors == []


def test_a_user_lane_that_extends_a_shipped_one(tmp_path: Path) -> None:
    own = write(tmp_path / "mine.toml", '[lane]\nextends = "grammatical_coverage"\nname = "mine"\n')
    lanes = load_lanes(extra_files=[own])
    # Inherited with their names, the predicates keep the base's codes (they are its checks).
    assert lanes.errors == []
    assert lanes.lanes["mine"].predicate("accepted_surface").code == "SLC401"  # type: ignore[union-attr]
    # The same name replaces the shipped lane: its codes are its own.
    own = write(tmp_path / "grammatical_coverage.toml", '[lane]\nextends = "grammatical_coverage"\n'
                'name = "grammatical_coverage"\n\n[[predicates]]\nname = "required_words"\nmessage = "lacks {term}"\n')
    lanes = load_lanes(extra_files=[own])
    assert lanes.errors == []
    spec = lanes.lanes["grammatical_coverage"].predicate("required_words")
    assert spec is not None and (spec.code, spec.message) == ("SLC402", "lacks {term}")


def test_a_broken_base_is_reported_in_the_base_and_chains_are_bounded(tmp_path: Path) -> None:
    paths = lanes_in(tmp_path, base='[lane]\nname = "base"\ntitle = \n', child=CHILD)
    with pytest.raises(LaneError) as info:
        load_lane(paths["child"])
    assert (info.value.path, info.value.line, info.value.column) == (str(paths["base"]), 3, 9)
    assert info.value.message.startswith("invalid TOML: ")
    chain = {f"l{i}": f'[lane]\nextends = "l{i + 1}"\nname = "l{i}"\n' for i in range(20)}
    paths = lanes_in(tmp_path, **chain, l20=BASE.replace('name = "base"', 'name = "l20"'))
    assert [p.code for p in load_lane(paths["l5"]).predicates] == ["EB1", "EB2"]  # 15 bases
    with pytest.raises(LaneError) as info:
        load_lane(paths["l0"])
    assert (info.value.path, info.value.line, info.value.column, info.value.message) == (
        str(paths["l16"]), 2, 1, "[lane] `extends`: more than 16 lanes extend one another here")
