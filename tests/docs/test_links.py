"""Every relative link in the README and docs/ leads somewhere: the file exists in the repository
and, for a `#fragment`, the target Markdown file has a heading with that GitHub anchor."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])

FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
EXPLICIT_ANCHOR = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"")


def prose(text: str) -> str:
    """The text without fenced blocks and code spans, where `[x](y)` is not a link."""
    return CODE_SPAN.sub("", FENCE.sub("", text))


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped (not `-` or `_`), spaces to `-`."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link in a heading keeps its text
    text = text.replace("`", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    seen: dict[str, int] = {}
    found = set(EXPLICIT_ANCHOR.findall(text))
    for heading in HEADING.findall(text):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def relative_links(path: Path) -> list[str]:
    return [target for target in LINK.findall(prose(path.read_text(encoding="utf-8")))
            if not re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE)]  # http:, mailto:, file:


def broken(path: Path, root: Path = ROOT) -> list[str]:
    problems = []
    for target in relative_links(path):
        file_part, _, fragment = target.partition("#")
        dest = (path.parent / file_part).resolve() if file_part else path
        if not dest.exists():
            problems.append(f"{target}: no such file")
        elif root not in dest.parents and dest != root:
            problems.append(f"{target}: outside the repository")
        elif fragment and dest.suffix == ".md" and fragment not in anchors(dest):
            problems.append(f"{target}: no heading #{fragment} in {dest.relative_to(root)}")
    return problems


@pytest.mark.parametrize("path", DOCUMENTS, ids=[str(p.relative_to(ROOT)) for p in DOCUMENTS])
def test_every_relative_link_resolves(path: Path) -> None:
    assert broken(path) == []


def test_the_new_docs_are_checked() -> None:
    names = {str(p.relative_to(ROOT)) for p in DOCUMENTS}
    assert {"README.md", "docs/cli.md", "docs/checks.md", "docs/editor.md", "docs/performance.md",
            "docs/decisions.md", "docs/ci.md", "docs/lanes/README.md"} <= names


def test_the_checker_finds_a_broken_link_and_a_missing_anchor(tmp_path: Path) -> None:
    """The checker itself, on a document made to fail."""
    doc = tmp_path / "doc.md"
    (tmp_path / "there.md").write_text("# A heading, with `code`\n\n## Parallel runs (`--jobs`)\n", encoding="utf-8")
    doc.write_text("[ok](there.md#a-heading-with-code) [ok](there.md#parallel-runs---jobs) [self](#top)\n"
                   "[gone](missing.md) [bad](there.md#nowhere) `[code](not-a-link.md)`\n"
                   "```\n[fenced](not-a-link-either.md)\n```\n# Top\n", encoding="utf-8")
    assert relative_links(doc) == ["there.md#a-heading-with-code", "there.md#parallel-runs---jobs", "#top",
                                   "missing.md", "there.md#nowhere"]
    assert anchors(tmp_path / "there.md") == {"a-heading-with-code", "parallel-runs---jobs"}
    assert broken(doc, tmp_path) == ["missing.md: no such file", "there.md#nowhere: no heading #nowhere in there.md"]
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "inside.md").write_text("[up](../there.md) [here](#inside)\n# Inside\n", encoding="utf-8")
    assert broken(repo / "inside.md", repo) == ["../there.md: outside the repository"]
    assert slug("`--lane` memory as the input doubles") == "--lane-memory-as-the-input-doubles"
    assert slug("Profiles: the runner's literal code or the contract's intent") == \
        "profiles-the-runners-literal-code-or-the-contracts-intent"
