"""Review features over stdio with pytest-lsp: case lenses, references, surfaceLint/review, runDiff."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from lsp_support import FIXTURES, RecordingClient, change, no_server_errors, open_file, published, rng, start
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

REVIEW_FIXTURES = FIXTURES.parent / "review" / "workspace"
CASES = "evals/deterministic_fluency/public/v1/cases.jsonl"
RUN_A = "transcripts/run_a.jsonl"
RUN_B = "transcripts/run_b.jsonl"
RUN_C = "runs/run_c.jsonl"
PACKAGE_JSON = Path(__file__).resolve().parents[2] / "vscode-extension" / "package.json"


@pytest.fixture
def review_ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    shutil.copytree(REVIEW_FIXTURES, root)
    # Oldest to newest: run_c, run_a, run_b (modification times set here, not read from a clock).
    for i, name in enumerate((RUN_C, RUN_A, RUN_B)):
        stamp = 1_700_000_000_000_000_000 + i * 100_000_000_000
        os.utime(root / name, ns=(stamp, stamp))
    return root.resolve()


def _doc(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri)


def _lenses(lenses: list[types.CodeLens] | None) -> list[tuple[int, int, str, str, Any]]:
    out = []
    for lens in lenses or []:
        assert lens.command is not None
        args = list(lens.command.arguments) if lens.command.arguments is not None else None
        out.append((lens.range.start.line, lens.range.start.character, lens.command.title, lens.command.command,
                    args))
    return out


async def test_case_file_lenses_show_each_case_in_its_newest_run(client: RecordingClient, review_ws: Path) -> None:
    await start(client, review_ws)
    uri = open_file(client, review_ws / CASES)
    await published(client, uri, 1)
    got = _lenses(await client.text_document_code_lens_async(types.CodeLensParams(_doc(uri))))
    b = (review_ws / RUN_B).as_uri()
    assert got == [
        (0, 7, "✓ pass in run_b.jsonl:1 (newest of 2 runs) · ✓ SL101 SL102 SL103 SL104 SL105 SL106", "surfaceLint.openTurn", [b, 0]),
        (0, 7, "surface: “A river is water that moves toward the sea.”", "surfaceLint.openTurn", [b, 0]),
        (1, 7, "✗ fail in run_b.jsonl:2 (newest of 3 runs) · ✗ no_placeholder · ✓ SL102 SL103 SL104 SL105 SL106", "surfaceLint.openTurn",
         [b, 1]),
        (1, 7, "surface: “💡 A lamp is <pending> light...”", "surfaceLint.openTurn", [b, 1]),
        (2, 7, "✗ fail in run_b.jsonl:3 (newest of 2 runs) · ✗ complete_punctuation · ✗ finite_predicate_shape "
               "· ✓ SL101 SL102 SL105 SL106", "surfaceLint.openTurn", [b, 2]),
        (2, 7, "surface: “zephyr <b>wind</b> & \"breeze\"”", "surfaceLint.openTurn", [b, 2]),
        (3, 7, "surface-lint: no run of this case found (3 run file(s) of deterministic_fluency searched)", "",
         None),
    ]
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(_doc(uri)))
    assert lenses is not None and lenses[4].command is not None and lenses[5].command is not None
    # Every predicate's verdict is in the tooltip; the surface lens's tooltip is the whole surface.
    assert lenses[4].command.tooltip == (
        "✓ no_placeholder\n✓ no_provenance_only\n"
        "✗ complete_punctuation (SL103, error): the surface ends with `\"`, not terminal punctuation (`.` `?` `!` `;`)\n"
        "✗ finite_predicate_shape (SL104, warning): no finite verb or inflected verb form in the surface\n"
        "✓ no_dotted_inventory\n✓ surface_provenance_match")
    assert lenses[5].command.tooltip == 'zephyr <b>wind</b> & "breeze"'
    no_server_errors(client)


async def test_lenses_follow_the_transcript_globs_and_unsaved_runs(client: RecordingClient, review_ws: Path) -> None:
    await start(client, review_ws)
    uri = open_file(client, review_ws / CASES)
    await published(client, uri, 1)
    client.protocol.notify("surfaceLint/reviewSettings", {"transcripts": ["transcripts/run_a.jsonl"]})
    got = _lenses(await client.text_document_code_lens_async(types.CodeLensParams(_doc(uri))))
    a = (review_ws / RUN_A).as_uri()
    assert got[0] == (0, 7, "✗ fail in run_a.jsonl:1 · ✗ complete_punctuation · ✓ SL101 SL102 SL104 SL105 SL106", "surfaceLint.openTurn",
                      [a, 0])
    assert got[1] == (0, 7, "surface: “A river is water that moves toward the sea”", "surfaceLint.openTurn", [a, 0])
    # An edit to the run, not saved: the lens shows the buffer.
    run = open_file(client, review_ws / RUN_A)
    await published(client, run, 1)
    text = (review_ws / RUN_A).read_text(encoding="utf-8")
    col = text.split("\n")[0].index("toward the sea") + len("toward the sea")
    change(client, run, [(rng(0, col, 0, col), "!")])
    await published(client, run, 2)
    got = _lenses(await client.text_document_code_lens_async(types.CodeLensParams(_doc(uri))))
    assert got[0][2] == "✓ pass in run_a.jsonl:1 · ✓ SL101 SL102 SL103 SL104 SL105 SL106"
    assert got[1][2] == "surface: “A river is water that moves toward the sea!”"
    # Globs that match nothing: every case says so.
    client.protocol.notify("surfaceLint/reviewSettings", {"transcripts": ["nowhere/*.jsonl"]})
    got = _lenses(await client.text_document_code_lens_async(types.CodeLensParams(_doc(uri))))
    assert [g[2] for g in got] == ["surface-lint: no run of this case found (0 run file(s) of deterministic_fluency "
                                   "searched)"] * 4
    # A bad value is refused with an error naming the field (the wire checks the params) and the previous globs stay.
    client.protocol.notify("surfaceLint/reviewSettings", {"transcripts": "runs"})
    got = _lenses(await client.text_document_code_lens_async(types.CodeLensParams(_doc(uri))))
    assert [g[2] for g in got] == ["surface-lint: no run of this case found (0 run file(s) of deterministic_fluency "
                                   "searched)"] * 4
    errors = [m.message for m in client.log_messages if m.type == types.MessageType.Error]
    assert errors == ['surface-lint: invalid params for surfaceLint/reviewSettings (ignored): '
                      'expected an array of strings, got "runs" @ $.params.transcripts']


@pytest.mark.parametrize(("encoding", "c_start", "c_end"), [("utf-16", (31, 26), (44, 39)), ("utf-8", (33, 28), (46, 41))])
async def test_references_from_a_case_list_its_turns_in_every_run(
        client: RecordingClient, review_ws: Path, encoding: str, c_start: tuple[int, int], c_end: tuple[int, int]) -> None:
    await start(client, review_ws, encodings=[encoding])
    uri = open_file(client, review_ws / CASES)
    await published(client, uri, 1)

    async def refs(at: str, line: int, declaration: bool) -> list[tuple[str, int, int, int, int]]:
        found = await client.text_document_references_async(types.ReferenceParams(
            text_document=_doc(at), position=types.Position(line, 2),
            context=types.ReferenceContext(include_declaration=declaration)))
        return [(Path(loc.uri.removeprefix("file://")).relative_to(review_ws).as_posix(), loc.range.start.line,
                 loc.range.start.character, loc.range.end.line, loc.range.end.character) for loc in found or []]

    # Runs in path order; the priming turn of run_c is one of the case's turns too.
    turns = [(RUN_C, 0, c_start[0], 0, c_end[0]), (RUN_C, 1, c_start[1], 1, c_end[1]),
             (RUN_A, 1, 12, 1, 25), (RUN_B, 1, 12, 1, 25)]
    assert await refs(uri, 1, True) == [(CASES, 1, 7, 1, 20), *turns]
    assert await refs(uri, 1, False) == turns
    # From a turn of a transcript: the same list, the case first.
    run = open_file(client, review_ws / RUN_B)
    await published(client, run, 1)
    assert await refs(run, 1, True) == [(CASES, 1, 7, 1, 20), *turns]
    # A case no run has: no turn.
    assert await refs(uri, 3, True) == [(CASES, 3, 7, 3, 21)]
    no_server_errors(client)


def _turns(payload: Any) -> list[tuple[str, int, str, str | None, str, list[str]]]:
    return [(t.caseId, t.line, t.role, t.category, t.status, list(t.failed)) for t in payload.turns]


async def test_review_of_a_transcript_with_filters_live_as_it_changes(client: RecordingClient, review_ws: Path) -> None:
    await start(client, review_ws)
    uri = open_file(client, review_ws / RUN_C)
    await published(client, uri, 1)
    review = await client.protocol.send_request_async("surfaceLint/review", {"uri": uri})
    assert (review.lane, review.profile, review.categories) == ("deterministic_fluency", "contract", ["pack_definition"])
    assert (review.counts.turns, review.counts.scored, review.counts.shown) == (2, 1, 2)
    assert _turns(review) == [("rv_lamp_002", 0, "priming", "pack_definition", "context", []),
                              ("rv_lamp_002", 1, "prompt", "pack_definition", "pass", [])]
    run = open_file(client, review_ws / RUN_B)
    await published(client, run, 1)
    review = await client.protocol.send_request_async("surfaceLint/review", {"uri": run})
    assert _turns(review) == [
        ("rv_river_001", 0, "prompt", "pack_definition", "pass", []),
        ("rv_lamp_002", 1, "prompt", "pack_definition", "fail", ["no_placeholder"]),
        ("rv_zephyr_003", 2, "prompt", "oov_invitation", "fail", ["complete_punctuation", "finite_predicate_shape"]),
    ]
    assert [(p.name, p.code, p.failing) for p in review.predicates] == [
        ("no_placeholder", "SL101", 1), ("no_provenance_only", "SL102", 0), ("complete_punctuation", "SL103", 1),
        ("finite_predicate_shape", "SL104", 1), ("no_dotted_inventory", "SL105", 0),
        ("surface_provenance_match", "SL106", 0)]
    html = review.html
    # The failing characters are marked, the data escaped (a surface holding `<b>` stays text).
    assert ('<div class="surface">💡 A lamp is <mark data-predicates="no_placeholder" title="no_placeholder">'
            '&lt;pending&gt;</mark> light<mark data-predicates="no_placeholder" title="no_placeholder">...</mark>'
            "</div>") in html
    assert ('<div class="surface"><mark data-predicates="finite_predicate_shape" title="finite_predicate_shape">'
            'zephyr &lt;b&gt;wind&lt;/b&gt; &amp; &quot;breeze</mark><mark data-predicates="complete_punctuation '
            'finite_predicate_shape" title="complete_punctuation, finite_predicate_shape">&quot;</mark></div>') in html
    assert "<b>wind" not in html and "<script" not in html.lower()
    go_to = "command:surfaceLint.openTurn?" + _quote([run, 1])
    assert f'<h3><a href="{go_to}" title="Go to this turn">run_b.jsonl:2</a> <code>rv_lamp_002</code>' in html
    assert ("<li><b>no_placeholder</b> <code>SL101</code> · error — placeholder marker `...`, `&lt;pending&gt;` "
            "in the surface</li>") in html
    filter_link = "command:surfaceLint.reviewFilter?" + _quote(
        [{"uri": run, "predicate": "complete_punctuation", "category": None, "failingOnly": False}])
    assert f'<a class="chip" href="{filter_link}">SL103 complete_punctuation (1)</a>' in html
    # Filters: by predicate, by category, failing only.
    by_pred = await client.protocol.send_request_async("surfaceLint/review",
                                                       {"uri": run, "predicate": "complete_punctuation"})
    assert [t[0] for t in _turns(by_pred)] == ["rv_zephyr_003"]
    assert f'<a class="chip on" href="{filter_link}">SL103 complete_punctuation (1)</a>' in by_pred.html
    by_cat = await client.protocol.send_request_async("surfaceLint/review", {"uri": run, "category": "pack_definition"})
    assert [t[0] for t in _turns(by_cat)] == ["rv_river_001", "rv_lamp_002"]
    failing = await client.protocol.send_request_async("surfaceLint/review",
                                                       {"uri": run, "category": "pack_definition", "failingOnly": True})
    assert [t[0] for t in _turns(failing)] == ["rv_lamp_002"]
    assert (failing.filters.category, failing.filters.failingOnly, failing.counts.shown) == ("pack_definition", True, 1)
    # Live: the unsaved buffer is what the review shows.
    line = (review_ws / RUN_B).read_text(encoding="utf-8").split("\n")[1]
    start_at = len(line[:line.index("<pending>")].encode("utf-16-le")) // 2  # the 💡 is two UTF-16 units
    change(client, run, [(rng(1, start_at, 1, start_at + len("<pending> light...")), "bright light.")])
    await published(client, run, 2)
    review = await client.protocol.send_request_async("surfaceLint/review", {"uri": run})
    assert _turns(review)[1] == ("rv_lamp_002", 1, "prompt", "pack_definition", "pass", [])
    assert review.turns[1].surface == "💡 A lamp is bright light."
    # A file the client does not sync: it sends its buffer along.
    unsynced = (review_ws / RUN_A).as_uri()
    text = (review_ws / RUN_A).read_text(encoding="utf-8").replace("toward the sea", "toward the sea.", 1)
    review = await client.protocol.send_request_async("surfaceLint/review", {"uri": unsynced, "text": text})
    assert _turns(review)[0] == ("rv_river_001", 0, "prompt", "pack_definition", "pass", [])
    review = await client.protocol.send_request_async("surfaceLint/review", {"uri": unsynced})
    assert _turns(review)[0] == ("rv_river_001", 0, "prompt", "pack_definition", "fail", ["complete_punctuation"])
    nothing = await client.protocol.send_request_async("surfaceLint/review", {"uri": run, "predicate": "no_such"})
    assert nothing.turns == [] and '<p class="empty">No turn matches these filters.</p>' in nothing.html
    no_server_errors(client)


def _quote(args: list[Any]) -> str:
    from urllib.parse import quote

    return quote(json.dumps(args, ensure_ascii=False), safe="").replace("&", "&amp;")


async def test_run_list_and_diff_of_two_runs(client: RecordingClient, review_ws: Path) -> None:
    # The newest file of all: runtime telemetry, whose lines name no case (nothing to compare).
    telemetry = review_ws / "telemetry" / "session.jsonl"
    telemetry.parent.mkdir()
    telemetry.write_text('{"turn": 0, "surface": "Truth is real. pack-grounded (p).", "vault_hits": 0}\n',
                         encoding="utf-8")
    os.utime(telemetry, ns=(1_800_000_000_000_000_000, 1_800_000_000_000_000_000))
    await start(client, review_ws)
    run = open_file(client, review_ws / RUN_B)
    await published(client, run, 1)
    # Runs of the lane, newest first, named by their workspace-relative path.
    for params in ({"uri": run}, {}, {"uri": telemetry.as_uri()}):
        runs = await client.protocol.send_request_async("surfaceLint/runs", params)
        assert [(r["name"], r["lane"], r["kind"], r["turns"]) for r in runs] == [
            ("transcripts/run_b.jsonl", "deterministic_fluency", "turns", 3),
            ("transcripts/run_a.jsonl", "deterministic_fluency", "turns", 3),
            ("runs/run_c.jsonl", "deterministic_fluency", "turns", 2)], params
    assert [r["modified"] for r in runs] == [1_700_000_000_000_000_000 + i * 100_000_000_000 for i in (2, 1, 0)]
    old = (review_ws / RUN_A).as_uri()
    diff = await client.protocol.send_request_async("surfaceLint/runDiff", {"old": old, "new": run})
    assert (diff.lane, diff.regressed, diff.title) == ("deterministic_fluency", True, "run_a.jsonl → run_b.jsonl")
    report = diff.report
    assert (report.regressions, report.unchanged) == (6, 0)
    assert [(m.name, m.old, m.new, m.delta, m.regressed) for m in report.metrics if m.delta] == [
        ("expected_predicates_pass_rate", 0.6667, 0.3333, -0.3334, True),
        ("finite_predicate_shape_rate", 1.0, 0.6667, -0.3333, True),
        ("no_placeholder_rate", 1.0, 0.6667, -0.3333, True)]
    assert [(c.case_id, [(f.predicate, f.old, f.new) for f in c.flips], c.old_surface, c.new_surface)
            for c in report.changed] == [
        ("rv_river_001", [("complete_punctuation", False, True)], "A river is water that moves toward the sea",
         "A river is water that moves toward the sea."),
        ("rv_lamp_002", [("no_placeholder", True, False)], "A lamp is a light you carry.",
         "💡 A lamp is <pending> light..."),
        ("rv_zephyr_003", [("complete_punctuation", True, False), ("finite_predicate_shape", True, False)],
         "I do not know zephyr yet; teach me.", 'zephyr <b>wind</b> & "breeze"')]
    # The HTML is the report's diff page: both surfaces side by side, the data escaped.
    assert '<div><h4>old</h4><div class="surface">A lamp is a light you carry.</div></div>' in diff.html
    assert "zephyr &lt;b&gt;wind&lt;/b&gt; &amp; &quot;breeze" in diff.html and "<b>wind" not in diff.html
    # The client's buffers of files it does not sync.
    diff = await client.protocol.send_request_async("surfaceLint/runDiff", {
        "old": old, "new": run, "oldText": (review_ws / RUN_B).read_text(encoding="utf-8")})
    assert (diff.regressed, diff.report.changed, diff.report.unchanged) == (False, [], 3)
    # Without both runs: a warning, no answer.
    # Params without `new`: -32602 (the wire checks custom params; this was a null result before).
    with pytest.raises(JsonRpcInvalidParams) as rejected:
        await client.protocol.send_request_async("surfaceLint/runDiff", {"old": old})
    assert (rejected.value.code, rejected.value.message) == (
        -32602, "invalid params for surfaceLint/runDiff: required field missing @ $.params.new")
    no_server_errors(client)


async def test_hostile_and_broken_inputs(client: RecordingClient, review_ws: Path) -> None:
    # A case with markup in its id and category, a broken line, a run in CRLF with a U+2028 in a surface.
    cases = review_ws / CASES
    hostile = '{"id": "rv_<img src=x onerror=alert(1)>", "prompt": "Hi?", "category": "<script>alert(1)</script>", ' \
              '"expected_predicates": ["no_placeholder"]}'
    cases.write_text(cases.read_text(encoding="utf-8") + "{not json\n" + hostile + "\n", encoding="utf-8")
    run = review_ws / "runs" / "crlf.jsonl"
    turn = '{"case_id": "rv_<img src=x onerror=alert(1)>", "turn_index": 0, "role": "prompt", "prompt": "Hi?", ' \
           '"surface": "Hello\u2028<pending> there.", "grounding_source": "none"}'
    run.write_bytes(b"\r\n" + turn.encode("utf-8") + b"\r\n")
    os.utime(run, ns=(1_600_000_000_000_000_000, 1_600_000_000_000_000_000))  # the oldest run
    await start(client, review_ws)
    uri = open_file(client, cases)
    await published(client, uri, 1)
    got = _lenses(await client.text_document_code_lens_async(types.CodeLensParams(_doc(uri))))
    r = run.as_uri()
    assert got[-2:] == [
        (5, 7, "✗ fail in crlf.jsonl:2 · ✗ no_placeholder · ✓ SL102 SL103 SL104 SL105 SL106", "surfaceLint.openTurn", [r, 1]),
        (5, 7, "surface: “Hello <pending> there.”", "surfaceLint.openTurn", [r, 1]),
    ]
    assert [g[0] for g in got] == [0, 0, 1, 1, 2, 2, 3, 5, 5], "the broken line 5 has no lens, the rest do"
    found = await client.text_document_references_async(types.ReferenceParams(
        text_document=_doc(uri), position=types.Position(5, 0), context=types.ReferenceContext(include_declaration=False)))
    assert [(loc.uri, loc.range) for loc in found or []] == [(r, rng(1, 12, 1, 45))]
    # On the broken line and past the end: no case, no references.
    for line in (4, 40):
        assert await client.text_document_references_async(types.ReferenceParams(
            text_document=_doc(uri), position=types.Position(line, 0),
            context=types.ReferenceContext(include_declaration=True))) is None
    review = await client.protocol.send_request_async("surfaceLint/review", {"uri": r})
    assert [(t.caseId, t.category, t.status) for t in review.turns] == [
        ("rv_<img src=x onerror=alert(1)>", "<script>alert(1)</script>", "fail")]
    html = review.html
    assert "<script" not in html and "<img" not in html
    assert "<code>rv_&lt;img src=x onerror=alert(1)&gt;</code>" in html
    assert ">&lt;script&gt;alert(1)&lt;/script&gt; (1)</a>" in html
    assert ('<div class="surface">Hello\u2028<mark data-predicates="no_placeholder" title="no_placeholder">'
            "&lt;pending&gt;</mark> there.</div>") in html
    # Not a run, or not there: no review.
    assert await client.protocol.send_request_async("surfaceLint/review", {"uri": uri}) is None
    assert await client.protocol.send_request_async("surfaceLint/review",
                                                    {"uri": (review_ws / "nowhere.jsonl").as_uri()}) is None
    # Runs of two lanes: refused with a message.
    symbolic = review_ws / "runs" / "symbolic_logic_run.jsonl"
    shutil.copy(REVIEW_FIXTURES.parent / "symbolic" / "runs" / "symbolic_logic_run.jsonl", symbolic)
    assert await client.protocol.send_request_async("surfaceLint/runDiff", {"old": symbolic.as_uri(), "new": r}) is None
    warnings = [m.message for m in client.log_messages if m.type == types.MessageType.Warning]
    assert warnings == [f"surface-lint: {symbolic} is a run of symbolic_logic but {run} one of deterministic_fluency"]
    no_server_errors(client)


async def test_a_long_run_draws_its_first_turns_and_says_how_many_more(client: RecordingClient, review_ws: Path) -> None:
    line = (review_ws / RUN_B).read_text(encoding="utf-8").split("\n")[1]
    run = review_ws / "runs" / "long.jsonl"
    run.write_text("\n".join([line] * 503) + "\n", encoding="utf-8")
    await start(client, review_ws)
    review = await client.protocol.send_request_async("surfaceLint/review", {"uri": run.as_uri()})
    assert (review.counts.turns, review.counts.scored, review.counts.shown, len(review.turns)) == (503, 1, 503, 500)
    # The scored turn is drawn open; the 499 context turns before it are folded.
    assert (review.html.count("<article "), review.html.count("<details ")) == (0, 500)
    assert '<p class="empty">3 more turn(s) not shown: narrow them with the filters.</p>' in review.html
    # The case's scored turn is its last (a repeat replaces the first): the others are context.
    assert [t.status for t in review.turns[:2]] == ["context", "context"]


def test_default_transcript_globs_are_the_extension_default() -> None:
    from surface_lint.engine.review import DEFAULT_TRANSCRIPT_GLOBS

    props = json.loads(PACKAGE_JSON.read_text(encoding="utf-8"))["contributes"]["configuration"]["properties"]
    assert props["surfaceLint.review.transcripts"]["default"] == list(DEFAULT_TRANSCRIPT_GLOBS)


async def test_a_request_overtaken_before_it_starts_is_dropped() -> None:
    import asyncio
    import threading

    from surface_lint.lsp.features.review import ReviewFeatures
    from surface_lint.lsp.server import SurfaceLintServer

    features = ReviewFeatures(SurfaceLintServer())
    ran: list[str] = []

    def review(params: dict[str, Any]) -> str:
        ran.append(params["tag"])
        return params["tag"]

    handler = features.worker(review, superseded="dropped")
    gate = threading.Event()
    features.pool.submit(gate.wait)  # the one review thread is busy: both requests queue
    first = asyncio.ensure_future(handler({"uri": "file:///run.jsonl", "tag": "first"}))
    second = asyncio.ensure_future(handler({"uri": "file:///run.jsonl", "tag": "second"}))
    other = asyncio.ensure_future(handler({"uri": "file:///other.jsonl", "tag": "other"}))
    await asyncio.sleep(0.05)
    gate.set()
    assert await asyncio.gather(first, second, other) == ["dropped", "second", "other"]
    assert ran == ["second", "other"]
    features.pool.shutdown()


PRIMED_RUN = "\n".join([
    # A priming turn the runner does not score, failing two predicates: context, no diagnostic.
    '{"case_id": "rv_lamp_002", "turn_index": 0, "role": "priming", "prompt": "Say hi.", "surface": "hello there", '
    '"grounding_source": "none"}',
    '{"case_id": "rv_lamp_002", "turn_index": 1, "role": "prompt", "prompt": "What is a lamp?", '
    '"surface": "A lamp gives light", "grounding_source": "none"}',
    '{"case_id": "rv_river_001", "turn_index": 0, "role": "prompt", "scored": false, "prompt": "Warm up.", '
    '"surface": "water ...", "grounding_source": "none"}',
    '{"case_id": "rv_river_001", "turn_index": 1, "role": "prompt", "prompt": "What is a river?", '
    '"surface": "A river is water that moves toward the sea.", "grounding_source": "none"}',
]) + "\n"


async def test_problems_and_the_review_count_the_same_turns(client: RecordingClient, review_ws: Path) -> None:
    path = review_ws / "runs" / "primed.jsonl"
    path.write_text(PRIMED_RUN, encoding="utf-8")
    await start(client, review_ws)
    uri = open_file(client, path)
    diags = await published(client, uri, 1)
    # Only the scored turn of rv_lamp_002 (line 1) fails; the context turns (lines 0 and 2) give nothing.
    assert [(d.range.start.line, d.range.start.character, d.range.end.character, d.code, d.message) for d in diags] == [
        (1, 120, 121, "SL103", "complete_punctuation: the surface ends with `t`, not terminal punctuation "
                               "(`.` `?` `!` `;`)"),
    ]
    review = await client.protocol.send_request_async("surfaceLint/review", {"uri": uri})
    assert _turns(review) == [
        ("rv_lamp_002", 0, "priming", "pack_definition", "context", []),
        ("rv_lamp_002", 1, "prompt", "pack_definition", "fail", ["complete_punctuation"]),
        ("rv_river_001", 2, "prompt", "pack_definition", "context", []),
        ("rv_river_001", 3, "prompt", "pack_definition", "pass", []),
    ]
    failing_lines = sorted({d.range.start.line for d in diags})
    assert failing_lines == [t.line for t in review.turns if t.status == "fail"]
    assert "4 turn(s), 2 scored, 1 failing" in review.html
    # Context turns are folded, their surface decoded; scored ones open.
    assert review.html.count('<details class="case context"') == 2
    assert ('<details class="case context" data-case="rv_river_001" data-line="3"><summary><h3><a href="'
            in review.html)
    assert '<div class="surface">water ...</div></details>' in review.html
    no_server_errors(client)


async def test_telemetry_lines_get_no_finding_about_grounding_source(client: RecordingClient, tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "telemetry").mkdir(parents=True)
    path = root / "telemetry" / "session.jsonl"
    # Runtime telemetry carries no grounding_source: SL106 (which reads it) has nothing to judge;
    # a line that does carry one is judged.
    path.write_text('{"turn": 0, "surface": "Truth is what is true. pack-grounded (en_core_cognition_v1).", '
                    '"vault_hits": 0}\n'
                    '{"turn": 1, "surface": "Truth is what is true. pack-grounded (p).", '
                    '"grounding_source": "vault"}\n', encoding="utf-8")
    await start(client, root)
    uri = open_file(client, path)
    diags = await published(client, uri, 1)
    assert [(d.range.start.line, d.range.start.character, d.code, d.message) for d in diags] == [
        (1, 47, "SL106", "surface_provenance_match: the surface says `pack-grounded` but grounding_source is `vault`"),
    ]
    no_server_errors(client)
