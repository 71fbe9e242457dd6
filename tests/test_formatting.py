"""An upgraded card keeps the layout of its file: golden text in ``golden/format/``.

Each case is ``<case>.in.json`` / ``<case>.out.json`` (or ``.yaml``), compared as
text, byte for byte. The expected outputs were produced by the tool and then
reviewed by hand; where the tool's layout is not what a careful person would
write, the expected file says what it should be and the case is listed in
``EXPECTED_FAILURES`` with the reason.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from a2a_migrate import applying as apply, cli, io, plans as plan
from a2a_migrate.batch import Job, migrate_file, migrate_text
from a2a_migrate.context import Options

FORMAT = Path(__file__).resolve().parent.parent / "golden" / "format"
INPUTS = sorted(FORMAT.glob("*.in.*"))

#: case id (``<case>.<format>``) -> why the tool's layout differs from the reviewed expectation.
EXPECTED_FAILURES: dict[str, str] = {}

#: What each case is about, checked on both the input and the expected output, so that an
#: editor normalizing the golden files cannot make a case test nothing.
QUIRKS: dict[str, Callable[[str], bool]] = {
    "indent-2.json": lambda text: '\n  "name"' in text and "\t" not in text,
    "indent-4.json": lambda text: '\n    "name"' in text,
    "indent-tab.json": lambda text: '\n\t"name"' in text and "  " not in text,
    "minified.json": lambda text: "\n" not in text and ": " not in text and ", " not in text,
    "crlf.json": lambda text: text.count("\r\n") == text.count("\n") > 10,
    "no-final-newline.json": lambda text: text.endswith("}") and "\n" in text,
    "bom.json": lambda text: text.startswith("\ufeff{"),
    "non-ascii-raw.json": lambda text: "Météo" in text and "東京" in text and "\\u" not in text,
    "unicode-escapes.json": lambda text: "\\u00e9" in text and "\\/" in text and text.isascii(),
    "blank-lines.json": lambda text: "\n\n" in text,
    "inline-arrays.json": lambda text: '"defaultOutputModes": ["text/plain", "application/json"]' in text,
    "comments.yaml": lambda text: text.count("#") >= 8,
    "quoting.yaml": lambda text: "'" in text and '"' in text,
    "flow-lists.yaml": lambda text: "tags: [translation, language]" in text,
    # issue 11: YAML output holds the anchors and aliases the input had, and only those.
    "anchors-shared-by-migration.yaml": lambda text: "&" not in text and "*" not in text,
    "input-anchors.yaml": lambda text: text.count("&") == 2 and "Modes: *modes" in text and "tags: *tags" in text,
    "directives-and-markers.yaml": lambda text: "%YAML 1.2\n--- # the document starts here\n" in text
    and text.startswith("# Agent card") and text.endswith("...\n# end of the card\n"),
    "flow-mappings.yaml": lambda text: "  key: {" in text and "provider: {" in text,
}

#: Top-level members that take the place of the one they replace.
REPLACES = {"url": "supportedInterfaces", "security": "securityRequirements"}


def case_id(path: Path) -> str:
    return path.name.replace(".in.", ".").replace(".out.", ".")


def expected_path(path: Path) -> Path:
    return path.with_name(path.name.replace(".in.", ".out."))


def read(path: Path) -> str:
    return path.read_bytes().decode("utf-8")  # CRLF and BOM as they are


def upgraded(path: Path) -> Any:
    outcome = migrate_text(read(path), path.name, Job("up"))
    assert outcome.status == "changed", outcome.error or outcome.notes
    return outcome


def parsed(text: str, name: str) -> Any:
    return io.parse(text, name).original


def cases(*, expect_failures: bool) -> list[Any]:
    params = []
    for path in INPUTS:
        reason = EXPECTED_FAILURES.get(case_id(path)) if expect_failures else None
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        params.append(pytest.param(path, id=case_id(path), marks=marks))
    return params


def test_the_cases_are_there() -> None:
    ids = {case_id(path) for path in INPUTS}
    assert len(ids) >= 20
    assert {"indent-2.json", "indent-4.json", "indent-tab.json", "minified.json", "key-order.json",
            "non-ascii-raw.json", "unicode-escapes.json", "crlf.json", "no-final-newline.json", "bom.json",
            "inline-arrays.json", "blank-lines.json", "comments.yaml", "quoting.yaml", "flow-lists.yaml",
            "key-order.yaml"} <= ids
    assert set(EXPECTED_FAILURES) <= ids, "an expected failure names no case"
    assert set(QUIRKS) <= ids
    for path in INPUTS:
        assert expected_path(path).is_file(), f"{path.name} has no expected output"
    assert not list(FORMAT.glob("*.gen.*")), "scratch files left in golden/format"


@pytest.mark.parametrize("path", cases(expect_failures=True))
def test_upgrade_keeps_the_layout(path: Path) -> None:
    assert upgraded(path).new_text == read(expected_path(path))


@pytest.mark.parametrize("path", cases(expect_failures=False))
def test_expected_output_holds_what_the_tool_produces(path: Path) -> None:
    # Hand-written expectations differ from the tool in layout only, never in content.
    expected = expected_path(path)
    assert parsed(read(expected), expected.name) == parsed(upgraded(path).new_text, expected.name)


@pytest.mark.parametrize("path", cases(expect_failures=False))
def test_expected_output_is_left_alone(path: Path) -> None:
    expected = expected_path(path)
    outcome = migrate_text(read(expected), expected.name, Job("up"))
    assert (outcome.status, outcome.new_text) == ("unchanged", read(expected))


@pytest.mark.parametrize("path", cases(expect_failures=False))
def test_new_members_stand_where_the_members_they_replace_stood(path: Path) -> None:
    before = list(parsed(read(path), path.name))
    after = list(parsed(read(expected_path(path)), expected_path(path).name))
    assert after == [REPLACES.get(key, key) for key in before if key in after or key in REPLACES]
    assert after == list(parsed(upgraded(path).new_text, path.name))


@pytest.mark.parametrize("path", [path for path in cases(expect_failures=False) if path.values[0].suffix == ".yaml"])
def test_applying_the_plan_writes_what_upgrade_writes(path: Path, tmp_path: Path) -> None:
    """apply keeps flow style, quoting and anchors as upgrade does (a patch's values are plain)."""
    card = tmp_path / f"agent-card{path.suffix}"
    shutil.copyfile(path, card)
    outcome = migrate_file(str(card), Job("up", record=True))
    (planned,) = plan.loads(plan.dumps(plan.build([outcome], "up", Options()))).cards  # as read from the plan file
    outcome = apply.apply_card(planned)
    assert outcome.status == "changed", (outcome.error, outcome.notes)
    assert outcome.new_text == upgraded(path).new_text


@pytest.mark.parametrize("case", sorted(QUIRKS))
def test_inputs_and_outputs_have_the_quirk_of_their_case(case: str) -> None:
    stem, fmt = case.rsplit(".", 1)
    for path in (FORMAT / f"{stem}.in.{fmt}", FORMAT / f"{stem}.out.{fmt}"):
        assert QUIRKS[case](read(path)), f"{path.name} lost what the case is about"


def test_a_card_that_does_not_change_is_not_rewritten(tmp_path: Path) -> None:
    """Upgraded cards, run again through the CLI in place: not one file is touched."""
    old = 1_000_000_000  # 2001: a rewrite could not keep this time by accident
    files = []
    for expected in sorted(FORMAT.glob("*.out.*")):
        target = tmp_path / case_id(expected) / f"agent-card{expected.suffix}"
        target.parent.mkdir()
        shutil.copyfile(expected, target)
        os.utime(target, ns=(old * 10**9, old * 10**9))
        files.append((target, target.stat(), expected.read_bytes()))

    result = CliRunner().invoke(cli.main, ["upgrade", "-j", "1", str(tmp_path)])

    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines()[-1] == f"0 cards upgraded, {len(files)} already 1.0"
    for target, before, data in files:
        after = target.stat()
        assert (after.st_mtime_ns, after.st_ino) == (before.st_mtime_ns, before.st_ino), target
        assert target.read_bytes() == data
