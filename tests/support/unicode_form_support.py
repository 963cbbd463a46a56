"""A lane normalising to NFC and records in NFD Greek and pointed Hebrew: the CLI's and the
language server's tests of `unicode_form` read the same files."""
# ruff: noqa: RUF001  (Greek and Hebrew letters are the subject)

from __future__ import annotations

from pathlib import Path

LANE = """[lane]
name = "nfc_lane"
unicode_form = "NFC"

[[predicates]]
name = "no_logos"
code = "NF1"
kind = "pattern_absent"
[predicates.params]
pattern = 'λόγ\\w*'

[[predicates]]
name = "no_davar"
code = "NF2"
kind = "pattern_absent"
[predicates.params]
pattern = "\\u05d3\\u05b8\\u05bc\\u05d1\\u05b8\\u05e8"

[[predicates]]
name = "no_davar_as_written"
code = "NF3"
kind = "pattern_absent"
[predicates.params]
pattern = "\\u05d3\\u05b8\\u05bc\\u05d1\\u05b8\\u05e8"
unicode_form = "none"

[[predicates]]
name = "no_dalet"
code = "NF4"
kind = "pattern_absent"
[predicates.params]
pattern = "\\u05d3"
"""

# 1: NFD Greek written as a JSON escape; 2: the same characters unescaped, after an emoji (two
# UTF-16 units, four UTF-8 bytes); 3: pointed Hebrew with
# dagesh before qamats (NFC puts qamats first); 4: the word in NFC order, escaped.
LINES = [
    '{"case_id": "g1", "surface": "Ο λο\\u0301γος μένει."}',
    '{"case_id": "g2", "surface": "😀 Ο λο\u0301γος μένει."}',
    '{"case_id": "h1", "surface": "זֶה \u05d3\u05bc\u05b8\u05d1\u05b8\u05e8"}',
    '{"case_id": "h2", "surface": "\\u05d3\\u05b8\\u05bc\\u05d1\\u05b8\\u05e8"}',
]



def write_files(folder: Path) -> tuple[Path, Path]:
    """The lane file and the records file, written into `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    lane = folder / "nfc.toml"
    lane.write_text(LANE, "utf-8")
    records = folder / "r.jsonl"
    records.write_text("\n".join(LINES) + "\n", "utf-8")
    return lane, records
