"""The names of the output formats: the reporters register one writer under each
(reporters/__init__.py refuses to load if its registry names others), and the command line
lists them without importing a reporter (`surface-lint --help` imports no engine)."""

from __future__ import annotations

# `--lane` and `check`: text, its two styles (`concise` is `text`; `full` adds the source line),
# and the machine formats.
OUTPUT_FORMATS = ("text", "json", "json-lines", "sarif", "junit", "github", "markdown", "html", "concise", "full")
TEXT_FORMATS = ("text", "concise", "full")  # the human text output, one line or a snippet per finding
# `diff`: every format but the two text styles.
DIFF_OUTPUT_FORMATS = ("text", "json", "junit", "github", "markdown", "html", "json-lines", "sarif")
