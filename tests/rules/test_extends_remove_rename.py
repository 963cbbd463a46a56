"""`[lane] extends`, the rest of what an author needs: a lane extending any lane with nothing but
its name (inherited predicates keep the base's codes), and removing (`remove = true`) or renaming
(`renames = "old"`) an inherited entry, each refusal at the file, line and column written."""

from __future__ import annotations

from pathlib import Path

import pytest
from engine_support import write

from surface_lint.rules.loader import LaneError, load_lane, load_lanes

BASE = '''[lane]
name = "base"

[[predicates]]
name = "ends"
code = "EB1"
kind = "ends_with"
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

[thresholds.strict]
checks = [{ metric = "ends_rate", op = ">=", value = 1.0 }]
'''


def lane_files(tmp_path: Path, **files: str) -> dict[str, Path]:
    return {name: write(tmp_path / f"{name}.toml", text) for name, text in files.items()}


def load_error(path: Path) -> str:
    with pytest.raises(LaneError) as caught:
        load_lane(path)
    return str(caught.value)


def test_a_lane_extending_a_shipped_lane_with_nothing_but_its_name_keeps_the_base_codes(tmp_path: Path) -> None:
    mine = write(tmp_path / "mine.toml", '[lane]\nextends = "compositionality"\nname = "my_compositionality"\n')
    lanes = load_lanes(extra_files=[mine])
    assert lanes.errors == []
    mine_lane, shipped = lanes.lanes["my_compositionality"], lanes.lanes["compositionality"]
    assert mine_lane.bases == ("compositionality",)
    assert [(p.name, p.code) for p in mine_lane.predicates] == [(p.name, p.code) for p in shipped.predicates]
    assert [p.code for p in shipped.predicates if not p.hidden] == ["SLC901"]


def test_the_base_may_load_after_the_lane_that_extends_it(tmp_path: Path) -> None:
    paths = lane_files(tmp_path, base=BASE, child='[lane]\nextends = "base"\nname = "child"\n')
    lanes = load_lanes(extra_files=[paths["child"], paths["base"]])
    assert lanes.errors == []
    assert [p.code for p in lanes.lanes["child"].predicates] == ["EB1", "EB2"]
    assert lanes.lanes["child"].bases == ("base",) and lanes.lanes["base"].bases == ()


def test_a_code_taken_by_an_unrelated_lane_is_still_an_error(tmp_path: Path) -> None:
    paths = lane_files(tmp_path, base=BASE, other=BASE.replace('name = "base"', 'name = "other"', 1))
    lanes = load_lanes(extra_files=[paths["base"], paths["other"]])
    assert [str(e) for e in lanes.errors] == [
        f"{paths['other']}:6:1: predicate 'ends': code EB1 is already used by predicate 'ends' of lane 'base'"]


def test_remove_deletes_an_inherited_entry_and_a_threshold_set(tmp_path: Path) -> None:
    paths = lane_files(tmp_path, base=BASE, child='''[lane]
extends = "base"
name = "child"

[[predicates]]
name = "no_marker"
remove = true

[thresholds.strict]
remove = true
''')
    lane = load_lane(paths["child"])
    assert [p.name for p in lane.predicates] == ["ends"]
    assert sorted(lane.thresholds) == ["v1"]


def test_renames_keeps_the_inherited_entry_under_its_new_name(tmp_path: Path) -> None:
    paths = lane_files(tmp_path, base=BASE, child='''[lane]
extends = "base"
name = "child"

[[predicates]]
name = "terminal_punctuation"
renames = "ends"
code = "CH1"

[[metrics]]
name = "ends_rate"
passing = ["terminal_punctuation"]
''')
    lane = load_lane(paths["child"])
    assert [(p.name, p.code, p.kind, dict(p.params)) for p in lane.predicates] == [
        ("terminal_punctuation", "CH1", "ends_with", {"endings": ["."]}),
        ("no_marker", "EB2", "substring_absent", {"markers": ["<pending>"]}),
    ]


def test_a_reference_to_a_removed_entry_is_an_error_where_it_is_written(tmp_path: Path) -> None:
    paths = lane_files(tmp_path, base=BASE, child='[lane]\nextends = "base"\nname = "child"\n\n'
                                                  '[[predicates]]\nname = "ends"\nremove = true\n')
    assert load_error(paths["child"]) == (
        f"{paths['base']}:20:12: metric 'ends_rate': 'ends' is neither a predicate nor a case field (inherited by "
        f"{paths['child']}, which extends this file)")


@pytest.mark.parametrize(("entry", "message"), [
    ('[[predicates]]\nname = "no_markr"\nremove = true\n',
     "7:1: `remove`: entry 'no_markr' is not inherited (did you mean 'no_marker'?)"),
    ('[[predicates]]\nname = "ends"\nremove = true\ncode = "X1"\n',
     "8:1: `remove = true` takes no other key (`code` given)"),
    ('[[predicates]]\nname = "ends"\nremove = false\n',
     "7:1: `remove` must be true (leave the key out to keep the entry)"),
    ('[[predicates]]\nname = "finishes"\nrenames = "endz"\n',
     "7:1: `renames`: no inherited entry is named 'endz' (did you mean 'ends'?)"),
    ('[[predicates]]\nname = "no_marker"\nrenames = "ends"\n',
     "6:1: `renames`: an inherited entry is already named 'no_marker'"),
    ('[thresholds.lenient]\nremove = true\n',
     "6:1: `remove`: `lenient` is not inherited"),
], ids=["unknown", "other-keys", "false", "renames-unknown", "renames-onto-a-name", "table"])
def test_a_remove_or_renames_that_cannot_apply_is_an_error_at_its_key(tmp_path: Path, entry: str, message: str) -> None:
    paths = lane_files(tmp_path, base=BASE, child=f'[lane]\nextends = "base"\nname = "child"\n\n{entry}')
    assert load_error(paths["child"]) == f"{paths['child']}:{message}"


def test_remove_in_a_file_that_extends_nothing_is_an_unknown_key(tmp_path: Path) -> None:
    path = write(tmp_path / "alone.toml", BASE + '\n[[predicates]]\nname = "gone"\nremove = true\n')
    assert load_error(path) == f"{path}:30:1: predicate 'gone': unknown key `remove`"
