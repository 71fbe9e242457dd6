"""Issue 14: output for CI: GitHub Actions annotations, SARIF 2.1.0, detect --format json."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from a2a_migrate import cli
from a2a_migrate.cli.ci_formats import Finding, annotation, escape_data, escape_property

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "golden"
SIGNED = GOLDEN / "signed"
SARIF_SCHEMA = Path(__file__).resolve().parent / "sarif" / "sarif-schema-2.1.0.json"


def invoke(*args: Any) -> Result:
    return CliRunner().invoke(cli.main, [str(arg) for arg in args])


def copy(tmp_path: Path, name: str, target: str | None = None) -> Path:
    path = tmp_path / (target or name)
    shutil.copyfile(GOLDEN / name, path)
    return path


def invalid_card(tmp_path: Path, name: str = "bad card, v1.json") -> Path:
    """A 1.0 card without its name and with an empty skill id: findings with pointers."""
    card = json.loads((GOLDEN / "endpoints-additional-repeats-primary.1.0.json").read_text("utf-8"))
    del card["name"]
    card["skills"][0]["id"] = ""
    path = tmp_path / name
    path.write_text(json.dumps(card), "utf-8")
    return path


def test_annotation_escapes_messages_and_properties_as_github_documents() -> None:
    assert escape_data("50% done\r\nnext: a, b") == "50%25 done%0D%0Anext: a, b"
    assert escape_property("dir:a,b%\n") == "dir%3Aa%2Cb%25%0A"
    line = annotation(Finding("warning", "cards/a,b.json", "/skills/0/id", "two\nlines", "rule:x"))
    assert line == "::warning file=cards/a%2Cb.json,title=[rule%3Ax] /skills/0/id::/skills/0/id: two%0Alines"
    assert annotation(Finding("notice", "-", None, "from stdin", "check")) == "::notice title=[check]::from stdin"


def test_upgrade_check_annotates_each_card_that_would_change(tmp_path: Path) -> None:
    old = copy(tmp_path, "endpoints-additional-repeats-primary.0.3.json", "old.json")
    new = copy(tmp_path, "endpoints-additional-repeats-primary.1.0.json", "new.json")
    before = old.read_bytes()
    result = invoke("upgrade", "--check", "--format", "github", old, new)
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert f"::error file={old},title=[check]::would be upgraded to 1.0" in lines
    assert all(line.startswith("::") and f"file={old}," in line for line in lines)  # nothing about new.json
    assert result.stderr.endswith("1 card would be upgraded, 1 already 1.0\n")
    assert old.read_bytes() == before
    text = invoke("upgrade", "--check", old, new)  # the text format is unchanged: messages on stderr only
    assert (text.exit_code, text.stdout) == (1, "")


def test_upgrade_check_annotates_notes_with_their_pointer(tmp_path: Path) -> None:
    card = copy(tmp_path, "oauth-three-flows-split.0.3.json", "card.json")
    report = json.loads(invoke("upgrade", "--check", "--report", "-", card).stdout)
    notes = [n for n in report["cards"][0]["notes"] if n["severity"] in ("assumed", "warning", "lossy")]
    lines = invoke("upgrade", "--check", "--format", "github", card).stdout.splitlines()
    assert notes and len(lines) == len(notes) + 1
    for note in notes:
        level = {"assumed": "notice", "warning": "warning", "lossy": "warning"}[note["severity"]]
        title = escape_property(f"[{note['transform']}] {note['pointer'] or '/'}")
        place = f"line={note['line']},col={note['column']}"  # issue 14: where the report places the note
        assert f"::{level} file={card},{place},title={title}::{escape_data((note['pointer'] or '/') + ': ' + note['message'])}" in lines


def test_downgrade_check_annotates_and_github_needs_check(tmp_path: Path) -> None:
    card = copy(tmp_path, "endpoints-additional-repeats-primary.1.0.json", "card.json")
    result = invoke("downgrade", "--check", "--format", "github", card)
    assert result.exit_code == 1
    assert f"::error file={card},title=[check]::would be downgraded to 0.3" in result.stdout.splitlines()
    for args in (["upgrade", "--format", "github", card], ["downgrade", "--format", "github", "--diff", card]):
        refused = invoke(*args)
        assert refused.exit_code == 2 and "--format github goes with --check" in refused.stderr
        assert "Traceback" not in refused.output


def test_validate_github_annotates_every_finding(tmp_path: Path) -> None:
    bad = invalid_card(tmp_path)
    findings = json.loads(invoke("validate", "--format", "json", bad).stdout)["cards"][0]["findings"]
    assert findings and all(f["pointer"] for f in findings)
    result = invoke("validate", "--format", "github", bad)
    assert result.exit_code == 1
    expected = [annotation(Finding(f["severity"], str(bad), f["pointer"], f["message"], f["rule"], f["line"], f["column"]))
                for f in findings]
    assert ",line=1,col=1,title=[required] /name::" in expected[0]
    assert result.stdout.splitlines() == expected
    assert "%2C" in result.stdout  # the comma in the file name is escaped
    assert result.stderr.endswith("0 valid, 1 invalid\n")


def test_validate_sarif_is_valid_sarif_2_1_0(tmp_path: Path) -> None:
    from jsonschema import Draft4Validator

    bad, good = invalid_card(tmp_path), copy(tmp_path, "endpoints-additional-repeats-primary.1.0.json", "good.json")
    cards = json.loads(invoke("validate", "--format", "json", bad, good).stdout)["cards"]
    findings = [finding for card in cards for finding in card["findings"]]
    result = invoke("validate", "--format", "sarif", bad, good)
    assert result.exit_code == 1
    log = json.loads(result.stdout)
    schema = json.loads(SARIF_SCHEMA.read_text("utf-8"))
    errors = sorted(Draft4Validator(schema).iter_errors(log), key=str)
    assert not errors, errors[0].message if errors else ""
    run = log["runs"][0]
    assert log["version"] == "2.1.0" and run["tool"]["driver"]["name"] == "a2a-migrate"
    results = run["results"]
    assert [(r["ruleId"], r["level"], r["message"]["text"], r["properties"]["pointer"]) for r in results] == [
        (f["rule"], f["severity"], f["message"], f["pointer"]) for f in findings]
    rules = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    assert all(rules[r["ruleIndex"]] == r["ruleId"] for r in results)
    location = results[0]["locations"][0]
    assert location["physicalLocation"]["artifactLocation"]["uri"].endswith("bad%20card%2C%20v1.json")
    assert location["logicalLocations"][0]["fullyQualifiedName"] == findings[0]["pointer"]
    assert location["physicalLocation"]["region"] == {"startLine": findings[0]["line"],
                                                      "startColumn": findings[0]["column"]}
    assert run["columnKind"] == "unicodeCodePoints"


def test_verify_github_annotates_what_failed(tmp_path: Path) -> None:
    good, unsigned = SIGNED / "invoice.1.0.json", SIGNED / "weather.1.0.json"
    tampered = tmp_path / "tampered.json"
    tampered.write_text(good.read_text().replace("1.2.0", "1.2.1"))
    result = invoke("verify", "--format", "github", "--jwks", SIGNED / "test-key.jwks.json", good, unsigned, tampered)
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0] == f"::error file={escape_property(str(unsigned))},title=[no-signature]::no signatures"
    assert lines[1].startswith(f"::error file={tampered},line=26,col=5,title=[content-changed] /signatures/0::/signatures/0: ")
    assert len(lines) == 2  # nothing about the card that verified


def test_detect_json_lists_each_card_and_its_version(tmp_path: Path) -> None:
    old = copy(tmp_path, "endpoints-additional-repeats-primary.0.3.json", "old.json")
    new = copy(tmp_path, "endpoints-additional-repeats-primary.1.0.json", "new.json")
    text = invoke("detect", old, new)
    result = invoke("detect", "--format", "json", old, new)
    assert result.exit_code == 0 and result.stderr == text.stderr
    assert json.loads(result.stdout) == {"cards": [{"path": str(old), "version": "0.3"},
                                                   {"path": str(new), "version": "1.0"}]}
    assert text.stdout == f"{old}: 0.3\n{new}: 1.0\n"


@pytest.mark.parametrize("command", ["validate", "detect"])
def test_unreadable_input_is_one_line_with_any_format(tmp_path: Path, command: str) -> None:
    fmt = "sarif" if command == "validate" else "json"
    result = invoke(command, "--format", fmt, tmp_path / "missing.json")
    assert result.exit_code == 123 and "Traceback" not in result.output
    assert any("missing.json" in line and "error" in line for line in result.stderr.splitlines())


def test_stdin_annotations_name_no_file() -> None:
    card = (GOLDEN / "endpoints-additional-repeats-primary.0.3.json").read_text("utf-8")
    result = CliRunner().invoke(cli.main, ["upgrade", "--check", "--format", "github", "-"], input=card)
    assert result.exit_code == 1
    assert result.stdout.splitlines() == ["::error title=[check]::would be upgraded to 1.0"]
