"""The Markdown review (plan --format md): summary first, folded cards, within a budget.

The review is parsed with markdown-it-py (CommonMark plus GFM tables), as a
pull-request page would render it, and the rendered HTML is read back with
Python's HTML parser: the tests check the structure a reader gets (tables,
one ``<details>`` per card, links that resolve), not the source text, so an
escape that went wrong shows.
"""

from __future__ import annotations

import html
import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
from click.testing import CliRunner, Result

from a2a_migrate import cli, plans as plan, review_markdown
from a2a_migrate.batch import Job, migrate_file, unified_diff

import markdown_it  # noqa: E402  (a test dependency: setup.cfg, extra "test")
from shared_support import CORPUS, needs  # noqa: E402

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
FOUR = (("oauth-three-flows-split.0.3.json", "a/agent-card.json"), ("yaml-comments.0.3.yaml", "b/agent-card.yaml"),
        ("already-1-0.1.0.json", "c/agent-card.json"), ("refused/several-problems.json", "d/agent-card.json"))
#: Cards that all upgrade, for the budget tests: enough of them that a small budget splits the review.
MANY = ("oauth-three-flows-split.0.3.json", "hybrid-card.0.3.json", "state-transition-history-dropped.0.3.json",
        "skill-output-schema.0.3.json", "security-free-text-dropped.0.3.json", "signed-card.0.3.json",
        "skill-input-schema-nested-enum.0.3.json", "v01-authentication-unknown-word-dropped.0.3.json")


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli.main, list(args))


def markdown() -> markdown_it.MarkdownIt:
    return markdown_it.MarkdownIt("commonmark").enable("table")


def parse(text: str) -> list[Any]:
    return markdown().parse(text)


def rendered_text(text: str) -> str:
    """The visible text of the rendered HTML, whitespace collapsed."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", markdown().render(text))).split())


class Structure(HTMLParser):
    """The rendered page's elements: every start tag in order, and the deepest nesting of ``<details>``."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.starts: list[str] = []
        self.ends: list[str] = []
        self.depth = self.deepest = 0
        self.summaries: list[str] = []
        self._in_summary = False
        self.feed(markdown().render(text))

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        self.starts.append(tag)
        if tag == "details":
            self.depth += 1
            self.deepest = max(self.deepest, self.depth)
        if tag == "summary":
            self._in_summary = True
            self.summaries.append("")

    def handle_endtag(self, tag: str) -> None:
        self.ends.append(tag)
        if tag == "details":
            self.depth -= 1
        if tag == "summary":
            self._in_summary = False

    def handle_data(self, data: str) -> None:
        if self._in_summary:
            self.summaries[-1] += data


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


def links(tokens: list[Any]) -> list[str]:
    """Every link target of the document, in order."""
    return [child.attrs["href"] for token in tokens if token.type == "inline" for child in token.children or []
            if child.type == "link_open"]


def copy_cards(root: Path, pairs: Any) -> None:
    for source, name in pairs:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(GOLDEN / source, root / name)


@pytest.fixture
def review(tmp_path: Path) -> tuple[str, Path]:
    copy_cards(tmp_path, FOUR)
    result = invoke("plan", "--format", "md", "-j", "1", str(tmp_path))
    assert result.exit_code == 123  # the refused card
    return result.stdout, tmp_path


def test_review_opens_with_the_summary_then_one_folded_section_per_card(review: tuple[str, Path]) -> None:
    text, root = review
    tokens = parse(text)
    headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    assert headings == ["a2a-migrate review: upgrade to 1.0", "Summary", "Cards"]
    totals, versions, transforms, refused = tables(tokens)
    assert totals == [["cards", "to change", "already 1.0", "refused", "operations", "error", "lossy", "warning",
                       "assumed", "info"], ["4", "2", "1", "1", *totals[1][4:]]]
    assert int(totals[1][5]) >= 1 and int(totals[1][6]) >= 1
    assert versions[0] == ["from", "to", "cards"] and sum(int(row[2]) for row in versions[1:]) == 4
    assert ["1.0", "1.0", "1"] in versions[1:]
    assert transforms[0] == ["transform", "operations", "lossy", "warning", "assumed"]
    assert any(row[0] == "oauth\\_flows" for row in transforms[1:])
    assert refused[0] == ["refused card", "reason"]
    assert [row[0].strip("`") for row in refused[1:]] == [str(root / "d/agent-card.json")]
    assert refused[1][1] and "\n" not in refused[1][1]
    page = Structure(text)
    assert page.starts.count("details") == page.ends.count("details") == 4 and page.deepest == 1
    paths = [str(root / name) for _, name in FOUR]
    assert [summary.split(" — ")[0] for summary in page.summaries] == paths
    assert "refused" in page.summaries[3] and "nothing to change" in page.summaries[2]
    # the summary comes first: no card section before the "Cards" heading
    assert text.index("<details>") > text.index("## Cards") > text.index("| refused card |")
    fences = [t for t in tokens if t.type == "fence"]
    assert [f.info for f in fences] == ["diff", "diff"]
    assert fences[0].content == unified_diff(migrate_file(paths[0], Job("up")))


def test_review_counts_operations_and_notes_by_transform(review: tuple[str, Path]) -> None:
    text, root = review
    summary = tables(parse(text))[2]
    rows = {row[0].replace("\\_", "_"): [int(cell) for cell in row[1:]] for row in summary[1:]}
    outcomes = [migrate_file(str(root / name), Job("up", record=True)) for _, name in FOUR]
    for transform, (ops, lossy, warning, assumed) in rows.items():
        # a refused card has no operations in the plan, but its notes count
        assert ops == sum(c.transform == transform for o in outcomes if o.status != "failed" for c in o.changes)
        for severity, count in (("lossy", lossy), ("warning", warning), ("assumed", assumed)):
            assert count == sum(n.transform == transform and n.severity == severity for o in outcomes for n in o.notes)


def test_review_carries_every_note(review: tuple[str, Path]) -> None:
    text, root = review
    visible = rendered_text(text)
    the_plan = plan.loads(invoke("plan", "-j", "1", str(root)).stdout)
    notes = [note for card in the_plan.cards for note in card.notes]
    assert any(n.severity == "error" for n in notes) and any(n.severity == "lossy" for n in notes)
    for note in notes:
        assert " ".join(note.message.split()) in visible, note


def test_cards_needing_a_look_are_listed_most_lossy_first(tmp_path: Path) -> None:
    copy_cards(tmp_path, [(name, f"{i}/agent-card.json") for i, name in enumerate(MANY)])
    text = invoke("plan", "--format", "md", "-j", "1", str(tmp_path)).stdout
    listed = re.findall(r"^- `([^`]*)`: (\d+) lossy", text, re.M)
    assert len(listed) >= 3 and [int(n) for _, n in listed] == sorted((int(n) for _, n in listed), reverse=True)


def test_the_summary_stays_short_whatever_the_number_of_cards() -> None:
    from a2a_migrate.context import Note

    def card(index: int, status: str, *notes: str) -> plan.CardPlan:
        return plan.CardPlan(f"c{index:02d}/agent-card.json", None, status, "0.3", "1.0",
                             notes=[Note(severity, "t", f"/p{i}", "m") for i, severity in enumerate(notes)])

    cards = [card(i, "failed", "error") for i in range(25)]
    cards += [card(25 + i, "changed", *["lossy"] * (1 + i % 3), "warning") for i in range(12)]
    text = review_markdown.render(plan.Plan("up", {"keep_signatures": True}, cards))
    refused = tables(parse(text))[-1]
    assert len(refused) == 1 + 20 and refused[1] == ["`c00/agent-card.json`", "\\[t\\] /p0: m"]
    visible = rendered_text(text)
    assert "and 5 more refused cards (the section of each gives the reason)" in visible
    look = re.findall(r"^- `(c\d+)/agent-card.json`: (\d) lossy, 1 warning$", text, re.M)
    assert len(look) == 10 and [n for _, n in look] == ["3"] * 4 + ["2"] * 4 + ["1"] * 2
    assert [c for c, _ in look[:4]] == ["c27", "c30", "c33", "c36"]  # ties keep the plan's order
    assert "and 2 more cards (with lossy notes or warnings)" in visible
    assert "Options: keep_signatures = true" in visible


HOSTILE = "</summary></details><b>bold</b> | pipe `tick` ``` fence ```` <!-- -->"
#: A YAML block scalar puts card text at the start of a diff line, where a short fence would end.
HOSTILE_YAML = """protocolVersion: 0.3.0
name: hostile
description: |
  ```
  </details>
  # injected heading
url: https://example.com/a2a
version: 1.0.0
capabilities: {}
defaultInputModes: [text/plain]
defaultOutputModes: [text/plain]
skills: [{id: s, name: s, description: s, tags: [t]}]
"""


def test_hostile_card_text_cannot_break_the_structure(tmp_path: Path) -> None:
    card = json.loads((GOLDEN / "scheme-apikey.0.3.json").read_text("utf-8"))
    card["name"] = HOSTILE
    card["description"] = "line\n```\n</details>\n\n# injected heading\n" + HOSTILE
    card["securitySchemes"]["apiKey"]["description"] = HOSTILE
    card["x-</details>|odd`name"] = {"a": "````"}
    card["capabilities"]["stateTransitionHistory"] = True  # a lossy note: the card is in the summary's lists
    folder = tmp_path / "x</summary></details>|`y`\n\n# h"  # a path holding the closing tags and a blank line
    for name, text in (("a/agent-card.json", json.dumps(card, indent=2)), ("b/agent-card.yaml", HOSTILE_YAML),
                       ("c/agent-card.json", json.dumps({**card, "version": None}, indent=2))):  # c is refused
        (folder / name).parent.mkdir(parents=True)
        (folder / name).write_text(text, "utf-8")
    result = invoke("plan", "--format", "md", "-j", "1", str(tmp_path))
    assert result.exit_code == 123, result.output
    text = result.stdout
    page = Structure(text)
    assert page.starts.count("details") == page.ends.count("details") == 3 and page.deepest == 1
    assert page.starts.count("summary") == 3 and "b" not in page.starts and "h1" not in page.starts[1:]
    # shown on one line: a blank line would end the <summary>'s HTML block
    paths = [" ".join(str(folder / name).split())
             for name in ("a/agent-card.json", "b/agent-card.yaml", "c/agent-card.json")]
    assert [summary.split(" — ")[0] for summary in page.summaries] == paths
    tokens = parse(text)
    assert [t.tag for t in tokens if t.type == "heading_open"] == ["h1", "h2", "h2"]
    fences = [t for t in tokens if t.type == "fence"]
    assert [fence.info for fence in fences] == ["diff", "diff"]
    assert HOSTILE in fences[0].content and "# injected heading" in fences[0].content
    assert "   ```\n   </details>\n   # injected heading\n" in fences[1].content
    for table in tables(tokens):
        assert len({len(row) for row in table}) == 1
    refused = tables(tokens)[-1]
    assert refused[0] == ["refused card", "reason"] and len(refused) == 2
    visible = rendered_text(text)
    assert "vendor member x-</details>|odd`name kept" in visible
    assert f"{paths[0]} : 1 lossy" in visible  # the path's code span, then its counts
    assert f"refused card reason {paths[2]} [card_identity] /version:" in visible


def test_a_plan_read_back_shows_its_operations_instead_of_a_diff() -> None:
    outcome = migrate_file(str(GOLDEN / "scheme-apikey.0.3.json"), Job("up", record=True))
    read_back = plan.loads(plan.dumps(plan.build([outcome], "up", Job("up").options)))
    [fence] = [t for t in parse(review_markdown.render(read_back)) if t.type == "fence"]
    assert fence.info == "json"
    assert [json.loads(line) for line in fence.content.splitlines()] == read_back.cards[0].patch


# -- the budget ---------------------------------------------------------------------------


def split_review(tmp_path: Path, budget: int) -> tuple[Path, Result]:
    copy_cards(tmp_path / "cards", [(name, f"{i}/agent-card.json") for i, name in enumerate(MANY)])
    output = tmp_path / "out" / "review.md"
    result = invoke("plan", "--format", "md", "-j", "1", "--max-chars", str(budget), str(tmp_path / "cards"),
                    "-o", str(output))
    assert result.exit_code == 0, result.output
    return output, result


def test_a_review_over_the_budget_keeps_the_first_cards_and_links_the_rest(tmp_path: Path) -> None:
    output, result = split_review(tmp_path, 9000)
    text = output.read_text("utf-8")
    assert len(text) <= 9000
    whole = invoke("plan", "--format", "md", "-j", "1", "--max-chars", "0", str(tmp_path / "cards")).stdout
    assert f"The whole review is {len(whole):,} characters, over the budget of 9,000" in rendered_text(text)
    page = Structure(text)
    tokens = parse(text)
    targets = re.findall(r"^- \[`[^`]*`\]\(([^)]*)\) — ", text, re.M)  # the list of the cards that are files
    assert set(links(tokens)) == set(targets)  # the summary's lists link the same files
    inline = [summary.split(" — ")[0] for summary in page.summaries]
    cards = sorted(str(path) for path in (tmp_path / "cards").rglob("agent-card.json"))
    assert 0 < len(inline) < len(cards) and len(inline) + len(targets) == len(cards)
    assert inline == cards[:len(inline)]  # the first cards in order
    assert text.index(targets[0]) < text.index("## Cards") < text.index("<details>")  # linked from the summary
    looked_at = re.findall(r"^- \[`([^`]*)`\]\(([^)]*)\): \d+ lossy", text, re.M)
    assert looked_at and all(href == targets[cards.index(card) - len(inline)] for card, href in looked_at)
    folder = output.parent / "review.md.d"
    assert sorted(folder.iterdir()) == sorted(output.parent / unquote(target) for target in targets)
    assert result.output.splitlines()[-1].endswith(f"{len(targets)} cards in {folder}/")
    for number, target in enumerate(targets, len(inline) + 1):
        section = (output.parent / unquote(target)).read_text("utf-8")
        assert section.startswith(review_markdown.MARKER + "\n")
        [back] = links(parse(section))
        assert (folder / unquote(back)).resolve() == output.resolve()
        card = cards[number - 1]
        assert f"## `{card}`\n\nCard {number} of {len(cards)} of [the review](../review.md) · " in section
        [fence] = [t for t in parse(section) if t.type == "fence"]
        assert fence.content == unified_diff(migrate_file(card, Job("up")))
    # nothing lost between the main document and its files
    visible = rendered_text(text) + " ".join(rendered_text(path.read_text("utf-8")) for path in folder.iterdir())
    for card in plan.loads(invoke("plan", "-j", "1", str(tmp_path / "cards")).stdout).cards:
        for note in card.notes:
            assert " ".join(note.message.split()) in visible, note


def test_the_python_api_writes_the_review_the_command_writes(tmp_path: Path) -> None:
    output, _ = split_review(tmp_path, 9000)
    from a2a_migrate import plan as make_plan

    rendered = review_markdown.review(make_plan([tmp_path / "cards"]).plan, 9000, "review.md")
    again = tmp_path / "api" / "review.md"
    assert review_markdown.write(rendered, again) == []
    for name in ("review.md", *rendered.sections):
        mine = again.parent / (name if name == "review.md" else f"review.md.d/{name}")
        theirs = output.parent / (name if name == "review.md" else f"review.md.d/{name}")
        assert mine.read_bytes() == theirs.read_bytes(), name
    assert len(list((output.parent / "review.md.d").iterdir())) == len(rendered.sections)


def test_the_split_keeps_as_many_cards_as_fit() -> None:
    def most(max_chars: int) -> int | None:
        return review_markdown._most_inline(lambda kept: "h" * 20, ["s" * 30] * 3, ["l" * 5] * 3, max_chars)

    cards = len(review_markdown._CARDS)
    assert most(20 + 1 + 15) == 0  # the summary and notice, and the three links after a blank line
    assert most(20 + 1 + 10 + cards + 30) == 1
    assert most(20 + 1 + 10 + cards + 30 - 1) == 0
    assert most(20 + cards + 90) == 3
    assert most(20 + 1 + 15 - 1) is None


def test_links_that_do_not_fit_go_to_an_index_and_a_summary_that_does_not_fit_is_refused() -> None:
    outcomes = [migrate_file(str(GOLDEN / name), Job("up", record=True)) for name in MANY]
    the_plan = plan.build(outcomes, "up", Job("up").options)
    names = review_markdown.section_names(the_plan.cards)
    hrefs = {index: review_markdown._href("r v.md.d", name) for index, name in enumerate(names)}
    head = len(review_markdown._head(the_plan, hrefs))  # every card a file: the summary's lists link them all
    rendered = review_markdown.review(the_plan, head + 400, "r v.md")
    assert len(rendered.text) <= head + 400 and rendered.folder == "r v.md.d"
    assert links(parse(rendered.text))[-1] == "r%20v.md.d/index.md"
    index = rendered.sections["index.md"]
    assert [unquote(link) for link in links(parse(index))] == ["../r v.md", *names]
    assert set(rendered.sections) == {"index.md", *review_markdown.section_names(the_plan.cards)}
    with pytest.raises(ValueError, match=r"this review links r v.md.d/, not other.md.d/"):
        review_markdown.write(rendered, Path("other.md"))
    with pytest.raises(review_markdown.BudgetError, match="the summary alone is"):
        review_markdown.review(the_plan, head, "r.md")


def test_section_names_are_numbered_safe_and_short() -> None:
    cards = [plan.CardPlan(path, None, "changed", "0.3", "1.0") for path in
             ("a b/agent-card.json", "../<x>/agent.yaml", "p/" + "-".join(f"w{i}" for i in range(40)) + ".json")]
    names = review_markdown.section_names(cards)
    assert names[:2] == ["001-a-b-agent-card.json.md", "002-x-agent.yaml.md"]
    # a long name keeps its end, cut where a word begins
    assert re.match(r"^003-w\d+-", names[2]) and names[2].endswith("-w39.json.md") and len(names[2]) <= 4 + 80 + 3


def test_a_review_is_the_same_bytes_each_run_and_stale_sections_go(tmp_path: Path) -> None:
    output, _ = split_review(tmp_path, 6000)
    folder = output.parent / "review.md.d"
    first = {path.name: path.read_bytes() for path in [output, *folder.iterdir()]}
    foreign = [folder / "001-mine.md", folder / "notes.txt"]  # not marked as ours: they stay
    for path in foreign:
        path.write_text("my own notes\n", "utf-8")
    shutil.rmtree(tmp_path / "cards")
    output, _ = split_review(tmp_path, 6000)
    assert {path.name: path.read_bytes() for path in [output, *folder.iterdir()] if path not in foreign} == first
    before = len(list(folder.iterdir()))
    output, result = split_review(tmp_path, 9000)
    gone = before - len(list(folder.iterdir()))
    said = f"; {gone} section {'file' if gone == 1 else 'files'} of an earlier review removed"
    assert gone > 0 and result.output.splitlines()[-1].endswith(said)
    linked = {unquote(target) for target in links(parse(output.read_text("utf-8")))}
    assert {f"review.md.d/{path.name}" for path in folder.iterdir() if path not in foreign} == linked
    output, _ = split_review(tmp_path, 60_000)  # it fits now: every section file of ours goes
    assert sorted(folder.iterdir()) == sorted(foreign) and not links(parse(output.read_text("utf-8")))


def test_a_review_that_fits_is_one_document(tmp_path: Path) -> None:
    output, result = split_review(tmp_path, 60_000)
    assert not (output.parent / "review.md.d").exists() and not links(parse(output.read_text("utf-8")))
    assert Structure(output.read_text("utf-8")).starts.count("details") == len(MANY)
    assert result.output.strip().endswith(f"review written to {output}")


def test_budget_mistakes_are_one_line_usage_errors(tmp_path: Path) -> None:
    copy_cards(tmp_path, [(name, f"{i}/agent-card.json") for i, name in enumerate(MANY)])
    on_stdout = invoke("plan", "--format", "md", "-j", "1", "--max-chars", "5000", str(tmp_path))
    assert on_stdout.exit_code == 2 and not on_stdout.stdout
    whole = len(invoke("plan", "--format", "md", "-j", "1", "--max-chars", "0", str(tmp_path)).stdout)
    assert f"the review is {whole:,} characters, over --max-chars 5000: write it with -o FILE" in on_stdout.output
    assert invoke("plan", "--format", "md", "-j", "1", "--max-chars", "0", str(tmp_path)).exit_code == 0
    with_json = invoke("plan", "--max-chars", "5000", str(tmp_path))
    assert with_json.exit_code == 2 and "--max-chars sizes a Markdown review" in with_json.output
    tiny = invoke("plan", "--format", "md", "-j", "1", "--max-chars", "100", str(tmp_path), "-o",
                  str(tmp_path / "r.md"))
    assert tiny.exit_code == 2 and "the summary alone is" in tiny.output and "Traceback" not in tiny.output
    assert not (tmp_path / "r.md").exists()


def test_a_sections_folder_that_cannot_be_made_fails_before_the_review_is_written(tmp_path: Path) -> None:
    copy_cards(tmp_path / "cards", [(name, f"{i}/agent-card.json") for i, name in enumerate(MANY)])
    (tmp_path / "review.md.d").write_text("a file in the way\n", "utf-8")
    result = invoke("plan", "--format", "md", "-j", "1", "-q", "--max-chars", "6000", str(tmp_path / "cards"),
                    "-o", str(tmp_path / "review.md"))
    assert result.exit_code == 123 and not (tmp_path / "review.md").exists()
    [line] = result.output.splitlines()
    assert line.startswith(f"{tmp_path / 'review.md.d'}/") and ": error: cannot write" in line


@needs(CORPUS)
def test_corpus_review_fits_a_pull_request_and_carries_every_note(tmp_path: Path) -> None:
    for index, source in enumerate(sorted(CORPUS.iterdir())):
        target = tmp_path / "cards" / f"{index:03d}" / source.name
        target.parent.mkdir(parents=True)
        shutil.copyfile(source, target)
    output = tmp_path / "review.md"
    result = invoke("plan", "--format", "md", "-j", "1", str(tmp_path / "cards"), "-o", str(output))
    assert result.exit_code in (0, 123)
    text = output.read_text("utf-8")
    assert len(text) <= review_markdown.DEFAULT_MAX_CHARS
    folder = tmp_path / "review.md.d"
    files = sorted(folder.iterdir()) if folder.exists() else []
    assert sorted({output.parent / unquote(target) for target in links(parse(text))}) == files
    visible = rendered_text(text) + " ".join(rendered_text(path.read_text("utf-8")) for path in files)
    data = json.loads(invoke("plan", "-j", "1", str(tmp_path / "cards")).stdout)
    assert Structure(text).starts.count("details") + len(files) == len(data["cards"])
    for card in data["cards"]:
        for note in card["notes"]:
            assert " ".join(note["message"].split()) in visible, (card["path"], note)
