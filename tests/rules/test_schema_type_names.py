"""One name per TOML type, in rules files and config files alike (the one `toml_type_name`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from surface_lint.engine.config import ConfigError, parse_config
from surface_lint.rules.loader import LaneError, parse_lane


def test_a_date_in_a_rules_file_is_named_as_toml_names_it() -> None:
    with pytest.raises(LaneError) as info:
        parse_lane('[lane]\nname = 1979-05-27\n', "tiny.toml", "contract")
    assert str(info.value) == "tiny.toml:2:1: [lane]: `name` must be string, not date-time"


@pytest.mark.parametrize(("value", "expected"), [
    ("1979-05-27T07:32:00Z", "a date-time"), ("07:32:00", "a date-time"), ("3", "an integer"), ("1.5", "a float"),
    ("true", "a boolean"), ("[1]", "an array"), ("{a = 1}", "a table"),
])
def test_config_messages_name_the_type_with_its_article(value: str, expected: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(f"profile = {value}\n", Path("surface-lint.toml"))
    assert info.value.message == f"`profile` must be a string (one of contract, reference), not {expected}"
