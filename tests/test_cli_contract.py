"""The command-line contract shared by every command: stdin and stdout, the
file-size limit, -q, exit codes of checks that checked nothing, values in
messages written as JSON."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from a2a_migrate import cli
from a2a_migrate.cli.common import ByteSize
from transform_helpers import base_card

SIGNED = Path(__file__).resolve().parents[1] / "golden" / "signed"
JWKS = str(SIGNED / "test-key.jwks.json")
CARD = json.dumps(base_card(), indent=2) + "\n"
LOSSY = json.dumps({**base_card(), "capabilities": {"stateTransitionHistory": True}}, indent=2) + "\n"


def invoke(*args: Any, stdin: str | None = None) -> Result:
    return CliRunner().invoke(cli.main, [str(arg) for arg in args], input=stdin)


def write(path: Path, text: str = CARD) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


# -- stdin and stdout ------------------------------------------------------------------------------


@pytest.mark.parametrize("args, clash", [
    (["--report", "-", "-"], "the card read from stdin (-)"),
    (["--report", "-", "--diff", "{card}"], "--diff"),
    (["--report", "-", "--patch", "{card}"], "--patch"),
    (["--report", "-", "--diff", "-"], "--diff"),
], ids=["stdin-card", "diff", "patch", "stdin-diff"])
@pytest.mark.parametrize("command", ["upgrade", "downgrade"])
def test_report_to_stdout_refuses_a_second_output_there(tmp_path: Path, command: str, args: list[str],
                                                        clash: str) -> None:
    card = write(tmp_path / "agent-card.json")
    result = invoke(command, *[arg.replace("{card}", str(card)) for arg in args], stdin=CARD)
    assert result.exit_code == 2
    assert f"Error: --report - and {clash} would both go to stdout; give --report a FILE" in result.stderr
    assert result.stdout == ""
    assert card.read_text() == CARD, "a usage error writes nothing"


@pytest.mark.parametrize("inputs", [["-"], ["{card}"]], ids=["stdin", "file"])
def test_report_to_stdout_with_check_is_the_only_thing_there(tmp_path: Path, inputs: list[str]) -> None:
    card = write(tmp_path / "agent-card.json")
    result = invoke("upgrade", "--check", "--report", "-", *[arg.replace("{card}", str(card)) for arg in inputs],
                    stdin=CARD)
    assert result.exit_code == 1, result.stderr
    report = json.loads(result.stdout)
    assert [entry["status"] for entry in report["cards"]] == ["changed"]
    assert not (Path.cwd() / "-").exists(), "no file named - is created"


def test_report_to_stdout_beside_cards_written_in_place(tmp_path: Path) -> None:
    card = write(tmp_path / "agent-card.json")
    result = invoke("upgrade", "--report", "-", card)
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["cards"][0]["path"] == str(card)
    assert "supportedInterfaces" in json.loads(card.read_text())


def test_output_folder_with_stdin_is_a_usage_error(tmp_path: Path) -> None:
    result = invoke("upgrade", "-o", tmp_path / "out", "-", stdin=CARD)
    assert result.exit_code == 2
    assert "Error: -o writes files: the card read from stdin (-) is written to stdout" in result.stderr
    assert result.stdout == "" and not (tmp_path / "out").exists()


def test_stdin_card_goes_to_stdout_and_messages_to_stderr() -> None:
    result = invoke("upgrade", "-", stdin=CARD)
    assert result.exit_code == 0
    assert json.loads(result.stdout)["supportedInterfaces"][0]["protocolVersion"] == "0.3"
    assert result.stderr.endswith("1 card upgraded, 0 already 1.0\n")


@pytest.mark.parametrize("command", [["validate"], ["detect"], ["verify", "--jwks", JWKS]])
def test_checking_commands_read_stdin(command: list[str]) -> None:
    result = invoke(*command, "-", stdin=(SIGNED / "invoice.1.0.json").read_text())
    assert result.exit_code == 0, result.stderr
    # validate's finding has a place (issue 14): the /signatures member on line 25 of the card read from stdin
    assert result.stdout.startswith("-:25:3: warning: /signatures: " if command == ["validate"] else "-: ")


# -- -q --------------------------------------------------------------------------------------------


def test_quiet_prints_no_lossy_notes_and_no_summary(tmp_path: Path) -> None:
    card = write(tmp_path / "agent-card.json", LOSSY)
    loud = invoke("upgrade", "--check", card)
    assert f"{card}:8:5: lossy: [state_transition_history]" in loud.stderr
    quiet = invoke("upgrade", "--check", "-q", card)
    assert quiet.exit_code == 1
    assert quiet.stderr == ""


def test_quiet_still_prints_errors(tmp_path: Path) -> None:
    broken = write(tmp_path / "agent-card.json", '{"name": ')
    result = invoke("upgrade", "-q", broken)
    assert result.exit_code == 123
    assert result.stderr.startswith(f"{broken}: error: line 1 column")
    assert len(result.stderr.splitlines()) == 1


# -- the file-size limit ---------------------------------------------------------------------------

#: Each command that reads cards, and the start of its summary when one card of two is over the limit.
READERS = {
    "upgrade": (["upgrade", "--check", "-j", "2"], "1 card would be upgraded, 0 already 1.0, 1 failed"),
    "downgrade": (["downgrade", "--check", "-j", "1"], "0 cards would be downgraded, 1 already 0.3, 1 failed"),
    "plan": (["plan", "-j", "2"], "1 card to change ("),
    "validate": (["validate"], "1 valid, 0 invalid, 1 failed"),
    "detect": (["detect"], "1 card detected, 1 0.3, 1 failed"),
    "sign": (["sign", "--key", str(SIGNED / "TEST-ONLY-private-key.jwk.json")], "1 card signed, 1 failed"),
    "verify": (["verify", "--jwks", JWKS], "0 verified, 1 not verified, 1 failed"),
}


@pytest.mark.parametrize("command", READERS)
def test_a_file_over_the_limit_is_refused_in_one_line_and_the_batch_goes_on(tmp_path: Path, command: str) -> None:
    small = write(tmp_path / "a" / "agent-card.json", json.dumps(base_card()))
    big = write(tmp_path / "b" / "agent-card.json", CARD + " " * 600)
    limit = len(json.dumps(base_card())) + 100
    args, summary = READERS[command]
    result = invoke(*args, "--max-file-size", limit, tmp_path)
    size = big.stat().st_size
    assert f"{big}: error: file is {size} bytes, over the limit of {limit} (--max-file-size)\n" in result.stderr
    assert result.exit_code == 123
    assert result.stderr.splitlines()[-1].startswith(summary), "the other card is still processed"
    assert f"{small}: error" not in result.stderr


def test_the_limit_reaches_worker_processes(tmp_path: Path) -> None:
    bigs = [write(tmp_path / f"{n}" / "agent-card.json", CARD + " " * 2000) for n in range(3)]
    small = write(tmp_path / "small" / "agent-card.json")
    result = invoke("upgrade", "--check", "-j", "3", "--max-file-size", "2k", tmp_path)
    assert result.exit_code == 123
    for big in bigs:
        assert f"{big}: error: file is {big.stat().st_size} bytes, over the limit of 2048" in result.stderr
    assert f"{small}: error" not in result.stderr
    assert result.stderr.splitlines()[-1] == "1 card would be upgraded, 0 already 1.0, 3 failed"


def test_stdin_over_the_limit_is_refused_without_reading_it_all() -> None:
    result = invoke("upgrade", "--max-file-size", "100", "-", stdin=CARD + " " * 10_000)
    assert result.exit_code == 123
    assert result.stderr.startswith("-: error: input is more than 100 bytes, over the limit (--max-file-size)\n")
    assert result.stdout == ""


def test_a_large_file_found_only_by_its_suffix_is_skipped(tmp_path: Path) -> None:
    # A lock file of megabytes beside the cards is not a card: it must not fail CI.
    write(tmp_path / "package-lock.json", '{"name": "web", "lockfileVersion": 3, "packages": {}}' + " " * 4000)
    write(tmp_path / "agent-card.json")
    result = invoke("validate", "--max-file-size", "1k", tmp_path)
    assert result.exit_code == 0, result.stderr
    assert result.stderr.splitlines()[-1] == "1 valid, 0 invalid, 1 skipped"


@pytest.mark.parametrize("text, size", [("1048576", 1048576), ("512k", 512 * 1024), ("10M", 10 * 1024 ** 2),
                                        ("10MiB", 10 * 1024 ** 2), ("1GB", 1024 ** 3), (" 2 kb ", 2048)])
def test_sizes_are_read_in_powers_of_1024(text: str, size: int) -> None:
    assert ByteSize().convert(text, None, None) == size


@pytest.mark.parametrize("text", ["ten", "0", "-5", "1.5M", "3T"])
def test_a_size_that_is_not_one_is_a_usage_error(text: str) -> None:
    result = invoke("validate", "--max-file-size", text, "-", stdin=CARD)
    assert result.exit_code == 2
    assert f"{json.dumps(text)} is not a size such as 1048576, 512k or 10M" in result.stderr


# -- checks that checked nothing, and verify's exit codes -----------------------------------------


@pytest.mark.parametrize("command, code", [(["validate"], 123), (["verify", "--jwks", JWKS], 123), (["detect"], 0),
                                           (["upgrade"], 0), (["downgrade"], 0), (["plan"], 0),
                                           (["sign", "--key", str(SIGNED / "TEST-ONLY-private-key.jwk.json")], 0)])
def test_an_empty_folder_is_said_and_fails_only_the_checks(tmp_path: Path, command: list[str], code: int) -> None:
    result = invoke(*command, tmp_path)
    assert result.exit_code == code
    assert result.stderr.splitlines()[0] == f"no cards found in {tmp_path}"
    assert len(result.stderr.splitlines()) == 2, "then the summary line"


def test_verify_finds_signed_cards_by_content_whatever_their_name(tmp_path: Path) -> None:
    for name in ("mycard.json", "registry/other.json"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        shutil.copyfile(SIGNED / "invoice.1.0.json", tmp_path / name)
    result = invoke("verify", "--jwks", JWKS, tmp_path)
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines()[-1] == "2 verified, 0 not verified"


def test_verify_fails_when_any_card_has_no_verifying_signature(tmp_path: Path) -> None:
    shutil.copyfile(SIGNED / "invoice.1.0.json", tmp_path / "signed.json")
    write(tmp_path / "agent-card.json")  # unsigned
    result = invoke("verify", "--jwks", JWKS, tmp_path)
    assert result.exit_code == 1
    assert result.stderr.splitlines()[-1] == "1 verified, 1 not verified"


def test_validate_checks_cards_found_by_content(tmp_path: Path) -> None:
    write(tmp_path / "registry" / "echo.json")
    result = invoke("validate", tmp_path)
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines()[-1] == "1 valid, 0 invalid"


def test_detect_ends_with_a_summary(tmp_path: Path) -> None:
    write(tmp_path / "a" / "agent-card.json")
    shutil.copyfile(SIGNED / "invoice.1.0.json", tmp_path / "b.agent-card.json")
    write(tmp_path / "c" / "agent.json", "[]")
    result = invoke("detect", tmp_path)
    assert result.exit_code == 123
    assert sorted(result.stdout.splitlines()) == [f"{tmp_path / 'a' / 'agent-card.json'}: 0.3",
                                                  f"{tmp_path / 'b.agent-card.json'}: 1.0"]
    assert result.stderr.splitlines()[-1] == "2 cards detected, 1 0.3, 1 1.0, 1 failed"


# -- values in messages are JSON -------------------------------------------------------------------


def test_validate_findings_write_values_as_json(tmp_path: Path) -> None:
    card = {**base_card(), "defaultInputModes": ["text"], "protocolVersion": "0.3.0"}
    path = write(tmp_path / "agent-card.json", json.dumps(card))
    result = invoke("validate", path)
    assert '"text" is not a media type' in result.stdout
    assert "'text'" not in result.stdout
