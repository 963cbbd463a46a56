"""An open lane file that extends another: an error the merge puts in the base file is shown
in the open file at its `extends` key, naming the base file's position."""

from __future__ import annotations

from pathlib import Path

from lsp_support import RecordingClient, change, no_server_errors, open_file, published, rng, start

BASE = '''[lane]
name = "base_lane"

[[predicates]]
name = "ends"
code = "XB1"
kind = "ends_with"
[predicates.params]
endings = ["."]
'''

CHILD = '''[lane]
extends = "base_lane"
name = "child_lane"

[[predicates]]
name = "ends"
code = "XC1"
'''


async def test_an_error_in_the_base_is_shown_at_the_extends_key(client: RecordingClient, workspace: Path) -> None:
    rules = workspace / "rules"
    rules.mkdir()
    (rules / "base_lane.toml").write_text(BASE)
    (rules / "child_lane.toml").write_text(CHILD)
    (workspace / "surface-lint.toml").write_text('lane-files = ["rules/base_lane.toml", "rules/child_lane.toml"]\n')
    await start(client, workspace)
    doc = open_file(client, rules / "child_lane.toml", language="toml")
    assert await published(client, doc, 1) == []
    # The open file makes the inherited predicate a terms_present: the base's `endings` is unknown to it.
    change(client, doc, [(rng(6, 13, 6, 13), '\nkind = "terms_present"\n[predicates.params]\nterms = ["x"]')])
    (problem,) = await published(client, doc)
    assert (problem.code, problem.range) == ("SL014", rng(1, 0, 1, 21))
    assert problem.message == (f"{rules / 'base_lane.toml'}:9:1: predicate 'ends' (terms_present): unknown parameter "
                               f"`endings` (inherited by {rules / 'child_lane.toml'}, which extends this file)")
    change(client, doc, [(rng(7, 0, 9, 13), "")])
    assert await published(client, doc) == []
    no_server_errors(client)
