"""The Markdown review (plan --format md): it renders, and it carries every note.

The review is parsed with markdown-it-py (CommonMark plus GFM tables), as a
pull-request page would render it; the test reads the rendered text, not the
source, so an escape that went wrong shows.
"""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from a2a_migrate import cli, plans as plan, review_markdown
from a2a_migrate.batch import Job, migrate_file
from a2a_migrate.batch import unified_diff

import markdown_it  # noqa: E402  (a test dependency: setup.cfg, extra "test")
from shared_support import CORPUS, needs  # noqa: E402

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli.main, list(args))


def parse(text: str) -> list[Any]:
    return markdown_it.MarkdownIt("commonmark").enable("table").parse(text)


def rendered_text(text: str) -> str:
    """The visible text of the rendered HTML, whitespace collapsed."""
    page = markdown_it.MarkdownIt("commonmark").enable("table").render(text)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def tables(tokens: list[Any]) -> list[list[list[str]]]:
    """Each table as rows of cell texts (inline content, still in Markdown)."""
    found: list[list[list[str]]] = []
    row: list[str] | None = None
    for token in tokens:
        if token.type == "table_open":
            found.append([])
        elif token.type == "tr_open":
            row = []
        elif token.type == "inline" and row is not None:
            row.append(token.content)
        elif token.type == "tr_close" and row is not None:
            found[-1].append(row)
            row = None
    return found


@pytest.fixture
def review(tmp_path: Path) -> tuple[str, Path]:
    for source, name in (("oauth-three-flows-split.0.3.json", "a/agent-card.json"),
                         ("yaml-comments.0.3.yaml", "b/agent-card.yaml"),
                         ("already-1-0.1.0.json", "c/agent-card.json"),
                         ("refused/several-problems.json", "d/agent-card.json")):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(GOLDEN / source, tmp_path / name)
    result = invoke("plan", "--format", "md", "-j", "1", str(tmp_path))
    assert result.exit_code == 123  # the refused card
    return result.stdout, tmp_path


def test_review_renders_summary_tables_and_diffs(review: tuple[str, Path]) -> None:
    text, root = review
    tokens = parse(text)
    headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    assert headings[0] == "a2a-migrate review: upgrade to 1.0" and headings[1] == "Summary"
    assert {f"{root}/{name}" for name in ("a/agent-card.json", "b/agent-card.yaml", "c/agent-card.json",
                                          "d/agent-card.json")} <= {h.strip("`") for h in headings}
    visible = rendered_text(text)
    assert "4 cards : 2 to change, 1 already 1.0, 1 refused" in visible
    summary, *cards = tables(tokens)
    assert summary[0] == ["transform", "operations", "lossy", "assumed", "warning"]
    assert any(row[0] == "oauth\\_flows" for row in summary[1:])
    assert all(table[0] == ["pointer", "operation", "transform", "note"] for table in cards)
    assert len(cards) == 2
    fences = [t for t in tokens if t.type == "fence"]
    assert [f.info for f in fences] == ["diff", "diff"]
    outcome = migrate_file(str(root / "a" / "agent-card.json"), Job("up"))
    assert fences[0].content == unified_diff(outcome)


def test_review_counts_operations_and_notes_by_transform(review: tuple[str, Path]) -> None:
    text, root = review
    summary = tables(parse(text))[0]
    rows = {row[0].replace("\\_", "_"): [int(cell) for cell in row[1:]] for row in summary[1:]}
    outcomes = [migrate_file(str(root / d / n), Job("up", record=True))
                for d, n in (("a", "agent-card.json"), ("b", "agent-card.yaml"))]
    for transform, (ops, lossy, assumed, warning) in rows.items():
        assert ops == sum(c.transform == transform for o in outcomes for c in o.changes)
        assert lossy == sum(n.transform == transform and n.severity == "lossy" for o in outcomes for n in o.notes)
        # the refused card's notes count too
        assert assumed >= sum(n.transform == transform and n.severity == "assumed" for o in outcomes for n in o.notes)
        assert warning >= sum(n.transform == transform and n.severity == "warning" for o in outcomes for n in o.notes)


def test_review_carries_every_note(review: tuple[str, Path]) -> None:
    text, root = review
    visible = rendered_text(text)
    the_plan = plan.loads(invoke("plan", "-j", "1", str(root)).stdout)
    notes = [note for card in the_plan.cards for note in card.notes]
    assert any(n.severity == "error" for n in notes) and any(n.severity == "lossy" for n in notes)
    for note in notes:
        assert " ".join(note.message.split()) in visible, note


def test_card_text_cannot_break_tables_or_fences(tmp_path: Path) -> None:
    card = json.loads((GOLDEN / "scheme-apikey.0.3.json").read_text("utf-8"))
    card["securitySchemes"]["apiKey"]["description"] = "a | b `tick` ``` fence *star* <b>tag</b>"
    card["x-vendor|odd`name"] = {"a": "```"}
    (tmp_path / "agent-card.json").write_text(json.dumps(card, indent=2), "utf-8")
    text = invoke("plan", "--format", "md", str(tmp_path / "agent-card.json")).stdout
    tokens = parse(text)
    [fence] = [t for t in tokens if t.type == "fence"]
    assert "a | b `tick` ``` fence" in fence.content and fence.info == "diff"
    [_, changes] = tables(tokens)
    assert all(len(row) == 4 for row in changes)
    visible = rendered_text(text)
    assert "vendor member x-vendor|odd`name kept" in visible
    assert "<b>" not in markdown_it.MarkdownIt("commonmark").enable("table").render(text).replace("&lt;b&gt;", "")


def test_render_from_a_read_plan_has_no_diff() -> None:
    outcome = migrate_file(str(GOLDEN / "scheme-apikey.0.3.json"), Job("up", record=True))
    read_back = plan.loads(plan.dumps(plan.build([outcome], "up", Job("up").options)))
    text = review_markdown.render(read_back)
    assert not [t for t in parse(text) if t.type == "fence"]
    assert "`/supportedInterfaces`" in text


@needs(CORPUS)
def test_corpus_review_renders_every_note(tmp_path: Path) -> None:
    for index, source in enumerate(sorted(CORPUS.iterdir())):
        target = tmp_path / f"{index:03d}" / source.name
        target.parent.mkdir()
        shutil.copyfile(source, target)
    result = invoke("plan", "--format", "md", "-j", "1", str(tmp_path))
    assert result.exit_code in (0, 123)
    visible = rendered_text(result.stdout)
    data = json.loads(invoke("plan", "-j", "1", str(tmp_path)).stdout)
    for card in data["cards"]:
        for note in card["notes"]:
            assert " ".join(note["message"].split()) in visible, (card["path"], note)
