"""Parallel batches: output in a stable order whatever -j is; a progress bar only at a terminal."""

from __future__ import annotations

import io
import json
from pathlib import Path

from click.testing import CliRunner

from a2a_migrate import cli
from a2a_migrate.progress import MIN_FILES, Progress
from transform_helpers import base_card


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def make_tree(root: Path, count: int) -> None:
    for index in range(count):
        card = base_card(name=f"Agent {index}", capabilities={"stateTransitionHistory": index % 2 == 0})
        if index % 7 == 0:
            del card["version"]  # refused: error lines interleave with the others
        folder = root / f"{index:03d}"
        folder.mkdir(parents=True)
        (folder / "agent-card.json").write_text(json.dumps(card, indent=2))


def run(*args: str):
    return CliRunner().invoke(cli.main, list(args))


def test_messages_diff_patch_and_report_do_not_depend_on_jobs(tmp_path: Path) -> None:
    make_tree(tmp_path / "cards", 40)
    outputs = []
    for jobs in ("1", "2"):
        report = tmp_path / f"report-{jobs}.json"
        result = run("upgrade", "--check", "--diff", "--report", str(report), "-j", jobs, str(tmp_path / "cards"))
        patch = run("upgrade", "--patch", "-j", jobs, str(tmp_path / "cards"))
        assert result.exit_code == 123
        outputs.append((result.stdout, result.stderr, json.loads(report.read_text()), patch.stdout))
    assert outputs[0] == outputs[1]
    names = [card["path"] for card in outputs[0][2]["cards"]]
    assert names == sorted(names)


def test_parallel_in_place_writes_every_card(tmp_path: Path) -> None:
    make_tree(tmp_path, 30)
    result = run("upgrade", "-j", "2", str(tmp_path))
    assert result.stderr.splitlines()[-1] == "25 cards upgraded, 0 already 1.0, 5 failed"
    upgraded = json.loads((tmp_path / "001" / "agent-card.json").read_text())
    assert "supportedInterfaces" in upgraded
    assert "url" in json.loads((tmp_path / "000" / "agent-card.json").read_text())  # refused: untouched


def test_progress_bar_draws_at_a_terminal_for_large_batches_only() -> None:
    stream = Terminal()
    bar = Progress.for_terminal(MIN_FILES, stream, quiet=False)
    for _ in range(MIN_FILES):
        bar.tick()
    bar.clear()
    text = stream.getvalue()
    assert text.count("\r[") == 101  # once per percent, 0 to 100
    assert f"] {MIN_FILES}/{MIN_FILES}" in text and text.endswith("\r\x1b[K")
    small, pipe, quiet = Terminal(), io.StringIO(), Terminal()
    for stream_, total, is_quiet in ((small, MIN_FILES - 1, False), (pipe, MIN_FILES, False), (quiet, MIN_FILES, True)):
        bar = Progress.for_terminal(total, stream_, quiet=is_quiet)
        for _ in range(total):
            bar.tick()
        bar.clear()
    assert small.getvalue() == pipe.getvalue() == quiet.getvalue() == ""


def test_no_progress_bar_when_stderr_is_not_a_terminal(tmp_path: Path) -> None:
    make_tree(tmp_path, MIN_FILES)
    result = run("upgrade", "--check", "-q", "-j", "1", str(tmp_path))
    assert "\r" not in result.stderr
