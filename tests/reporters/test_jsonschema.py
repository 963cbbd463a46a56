"""The JSON Schemas of lane files and of the config: generated from the loader's declarative
schema, shipped in the package (equal to what is generated), and agreeing with the loader on what
is refused."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import tomllib

from surface_lint.cli.main import main
from surface_lint.reporters.jsonschema import SCHEMAS, config_schema, config_schema_text, lane_schema, lane_schema_text
from surface_lint.rules.loader import LaneError, parse_lane

ROOT = Path(__file__).resolve().parents[2]
LANE = jsonschema.Draft7Validator(lane_schema())
CONFIG = jsonschema.Draft7Validator(config_schema())


def problems(validator: jsonschema.Draft7Validator, text: str) -> list[tuple[list[str | int], str]]:
    return sorted((list(e.absolute_path), e.message) for e in validator.iter_errors(tomllib.loads(text)))


def test_the_shipped_schemas_are_what_the_loader_schema_generates() -> None:
    assert (SCHEMAS / "lane.schema.json").read_text("utf-8") == lane_schema_text(), (
        "run: python -m surface_lint.reporters.jsonschema --write")
    assert (SCHEMAS / "config.schema.json").read_text("utf-8") == config_schema_text()
    jsonschema.Draft7Validator.check_schema(lane_schema())
    jsonschema.Draft7Validator.check_schema(config_schema())


@pytest.mark.parametrize("path", sorted((ROOT / "rules").glob("*.toml")), ids=lambda p: p.stem)
def test_every_shipped_lane_is_valid(path: Path) -> None:
    assert problems(LANE, path.read_text("utf-8")) == []


HEAD = '[lane]\nname = "demo"\n\n[[predicates]]\nname = "ends"\ncode = "DM1"\nkind = "ends_with"\n'


def test_a_misspelt_parameter_is_refused_by_the_schema_and_the_loader() -> None:
    text = HEAD + '[predicates.params]\nendings = ["."]\nendngs = ["!"]\n'
    assert problems(LANE, text) == [(["predicates", 0, "params"], "Additional properties are not allowed ('endngs' was unexpected)")]
    with pytest.raises(LaneError) as caught:
        parse_lane(text, "demo.toml")
    assert str(caught.value) == "demo.toml:10:1: predicate 'ends' (ends_with): unknown parameter `endngs` (did you mean `endings`?)"


def test_a_wrong_type_and_a_missing_required_key_are_refused() -> None:
    assert problems(LANE, HEAD + "[predicates.params]\nendings = 5\n") == [
        (["predicates", 0, "params", "endings"], "5 is not of type 'array'")]
    assert problems(LANE, '[lane]\nname = "demo"\n[[predicates]]\nname = "p"\nkind = "ends_with"\n') == [
        (["predicates", 0], "'code' is a required property")]
    assert problems(LANE, '[lane]\nname = "demo"\nunit = "turns"\n') == [
        (["lane", "unit"], "'turns' is not one of ['surface']")]


def test_an_extending_file_names_only_what_it_changes() -> None:
    text = '[lane]\nname = "mine"\nextends = "deterministic_fluency"\n\n[[predicates]]\nname = "no_placeholder"\ndefault_severity = "error"\n'
    assert problems(LANE, text) == []
    assert problems(LANE, text + 'remove = true\n[[predicates]]\nname = "finite"\nrenames = "finite_predicate_shape"\n'
                          '[thresholds.v1]\nremove = true\n') == []
    assert problems(LANE, text + 'colour = "red"\n') == [
        (["predicates", 0], "Additional properties are not allowed ('colour' was unexpected)")]


def test_the_config_schema_knows_every_setting() -> None:
    good = 'profile = "reference"\nlane-files = ["lanes/mine.toml"]\nmax-line-bytes = 4096\n[severity]\nSL103 = "off"\n'
    assert problems(CONFIG, good) == []
    assert problems(CONFIG, 'profle = "reference"\n') == [([], "Additional properties are not allowed ('profle' was unexpected)")]
    assert problems(CONFIG, '[severity]\nSL103 = "loud"\n') == [
        (["severity", "SL103"], "'loud' is not one of ['err', 'error', 'hint', 'info', 'information', 'off', 'warn', "
                                "'warning']")]


def test_lane_schema_prints_the_shipped_files(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lane", "schema"]) == 0
    assert capsys.readouterr().out == (SCHEMAS / "lane.schema.json").read_text("utf-8")
    assert main(["lane", "schema", "--config"]) == 0
    assert json.loads(capsys.readouterr().out)["title"] == "surface-lint configuration"
