"""Issue 12, JSONL streams: one card per line in, one result per line out, in order, memory flat."""

from __future__ import annotations

import io as stdio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from a2a_migrate import cli
from a2a_migrate.batch import Job
from a2a_migrate.jsonl import Line, migrate_lines, read_lines
from transform_helpers import base_card


def card_line(name: str) -> str:
    return json.dumps(base_card(name=name))


def invoke(*args: str, stdin: str | None = None):
    return CliRunner().invoke(cli.main, list(args), input=stdin)


def stream(*lines: str) -> str:
    return "".join(line + "\n" for line in lines)


def test_each_line_gives_one_result_line_in_order(tmp_path: Path) -> None:
    path = tmp_path / "cards.jsonl"
    path.write_text(stream(card_line("A"), "", "{not json", card_line("B")))
    result = invoke("upgrade", "--jsonl", str(path))
    assert result.exit_code == 123, result.output
    out = result.stdout.splitlines()
    assert [json.loads(out[0])["name"], out[1], json.loads(out[2])["name"]] == ["A", "{not json", "B"]
    assert "supportedInterfaces" in json.loads(out[0]) and "url" not in json.loads(out[2])
    assert out[0] == json.dumps(json.loads(out[0]), ensure_ascii=False, separators=(",", ":"))  # compact
    assert f"{path}:3: error: column 2: not valid JSON" in result.stderr  # the blank line 2 still counts
    assert f"{path}:1" not in result.stderr and f"{path}:4" not in result.stderr  # only the bad line errs
    assert result.stderr.splitlines()[-1] == "2 cards upgraded, 0 already 1.0, 1 failed"


def test_stdin_is_dash_and_cards_already_migrated_are_written_unchanged() -> None:
    done = json.loads(invoke("upgrade", "--jsonl", "-", stdin=stream(card_line("A"))).stdout)
    already = json.dumps(done, indent=None)  # not compact: written back as it came
    result = invoke("upgrade", "--jsonl", "-", stdin=stream(already, "[1]"))
    assert result.stdout == stream(already, "[1]")
    assert "-:2: error: the top level is a list, not an object" in result.stderr


def test_order_is_kept_across_a_pool() -> None:
    names = [f"card {i}" for i in range(300)]
    lines = [card_line(name) if i % 7 else "oops" for i, name in enumerate(names)]
    result = invoke("upgrade", "--jsonl", "-j", "2", "-q", "-", stdin=stream(*lines))
    out = result.stdout.splitlines()
    assert len(out) == 300
    assert [line if line == "oops" else json.loads(line)["name"] for line in out] == [
        "oops" if i % 7 == 0 else name for i, name in enumerate(names)]


def test_report_has_one_object_per_line(tmp_path: Path) -> None:
    report = tmp_path / "report.jsonl"
    result = invoke("downgrade", "--jsonl", "--report", str(report), "-", stdin=stream("", card_line("A"), "{"))
    entries = [json.loads(line) for line in report.read_text().splitlines()]
    assert [entry["line"] for entry in entries] == [2, 3]
    assert set(entries[0]) == {"line", "sourceVersion", "targetVersion", "changed", "error", "notes", "patch"}
    assert entries[0]["sourceVersion"] == "0.3" and entries[0]["changed"] is False and entries[0]["error"] is None
    assert entries[1]["error"] and entries[1]["patch"] == []
    assert result.exit_code == 123


def test_report_lines_carry_the_patch(tmp_path: Path) -> None:
    report = tmp_path / "report.jsonl"
    invoke("upgrade", "--jsonl", "--report", str(report), "-", stdin=stream(card_line("A")))
    entry = json.loads(report.read_text())
    assert entry["changed"] is True and entry["targetVersion"] == "1.0"
    assert {"op": "remove", "path": "/url"} in entry["patch"]


def test_check_writes_nothing_and_exits_1_when_a_line_would_change() -> None:
    result = invoke("upgrade", "--jsonl", "--check", "-", stdin=stream(card_line("A")))
    assert (result.exit_code, result.stdout) == (1, "")
    assert "1 card would be upgraded" in result.stderr
    migrated = invoke("upgrade", "--jsonl", "-", stdin=stream(card_line("A"))).stdout
    assert invoke("upgrade", "--jsonl", "--check", "-", stdin=migrated).exit_code == 0


def test_check_may_send_the_report_to_stdout() -> None:
    result = invoke("upgrade", "--jsonl", "--check", "--report", "-", "-", stdin=stream(card_line("A")))
    assert json.loads(result.stdout)["line"] == 1


@pytest.mark.parametrize("option", [["--diff"], ["--patch"], ["-o", "out"], ["--report", "-"], ["--include", "*.x"]])
def test_options_that_make_no_sense_with_a_stream_are_usage_errors(option: list[str]) -> None:
    result = invoke("upgrade", "--jsonl", *option, "-", stdin=stream(card_line("A")))
    assert result.exit_code == 2
    assert "Traceback" not in result.output and result.stdout == ""


def test_a_line_over_the_size_limit_is_an_error_for_that_line_only() -> None:
    long = json.dumps(base_card(description="x" * 5000))
    result = invoke("upgrade", "--jsonl", "--max-file-size", "4000", "-", stdin=stream(long, card_line("B")))
    assert "-:1: error: line is more than 4000 bytes, over the limit (--max-file-size)" in result.stderr
    assert [json.loads(line)["name"] for line in result.stdout.splitlines()] == ["B"]


def test_a_line_that_is_not_utf8_is_written_back_as_it_came() -> None:
    lines = list(read_lines(stdio.BytesIO(b'{"name": "\xff"}\r\n\n  \n{}')))
    assert [(line.number, line.error) for line in lines] == [(1, "byte 10: not UTF-8 text"), (4, "")]
    assert lines[0].text.encode("utf-8", "surrogateescape") == b'{"name": "\xff"}'


def test_an_unreadable_file_is_a_failed_input(tmp_path: Path) -> None:
    result = invoke("upgrade", "--jsonl", str(tmp_path / "missing.jsonl"))
    assert result.exit_code == 123 and "missing.jsonl: error: cannot read" in result.stderr


@pytest.mark.parametrize("jobs", [1, 2])
def test_lines_are_consumed_lazily(jobs: int) -> None:
    """Memory stays flat: the reader is never more than a bounded number of lines ahead of the consumer."""
    produced = 0

    def lines() -> Iterator[Line]:
        nonlocal produced
        for number in range(1, 20_001):
            produced += 1
            yield Line(number, "{" if number % 2 else "[]")  # cheap lines: the stream, not migration, is tested

    chunk = 50
    bound = chunk * (2 * jobs + 1)
    consumed = 0
    for result in migrate_lines(lines(), Job("up"), jobs=jobs, chunk=chunk):
        consumed += 1
        assert result.number == consumed
        assert produced - consumed <= bound
    assert consumed == produced == 20_000


def test_a_stream_that_breaks_is_an_error_line_and_the_end() -> None:
    class Broken(stdio.BytesIO):
        def readline(self, size: int | None = -1) -> bytes:
            if self.tell():
                raise OSError(5, "Input/output error")
            return super().readline(size)

    lines = list(read_lines(Broken(b"{}\n{}\n")))
    assert [(line.number, line.error) for line in lines] == [(1, ""), (2, "cannot read: Input/output error")]
