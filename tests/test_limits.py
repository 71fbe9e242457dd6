"""Limits against hostile input (issue 11): each one refuses its card with one line naming
the place, exit 123, the batch going on; and what stays under a limit works everywhere."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from a2a_migrate import cli, io
from a2a_migrate.limits import MAX_ALIAS_NODES, MAX_DEPTH, MAX_YAML_NODES
from hostile_support import problems, run_all
from transform_helpers import base_card

CARD = json.dumps(base_card(), indent=2) + "\n"
PREFIX = '  "x": '  # where a vendor value starts on line 2 of json_card()


def json_card(vendor: str) -> str:
    """A valid 0.3 card whose vendor member ``x`` is the JSON text ``vendor``."""
    return CARD.replace("{\n", '{\n  "x": ' + vendor + ",\n", 1)


def yaml_card(vendor: str) -> str:
    """The same card in YAML, its vendor member ``x`` the YAML text ``vendor``."""
    lines = [f"{key}: {json.dumps(value)}" for key, value in base_card().items()]
    return "\n".join([f"x: {vendor}", *lines]) + "\n"


def nested(levels: int) -> str:
    return "[" * levels + "]" * levels


def refusal(text: str, name: str) -> str:
    with pytest.raises(io.CardError) as caught:
        io.parse(text, name)
    return str(caught.value)


# -- nesting depth --------------------------------------------------------------------------


def test_json_nested_to_the_limit_is_read_and_one_level_more_is_refused() -> None:
    assert io.parse(json_card(nested(MAX_DEPTH - 1)), "a.json").original["x"]  # the card is level 1
    message = refusal(json_card(nested(MAX_DEPTH)), "a.json")
    assert message == f"line 2 column {len(PREFIX) + MAX_DEPTH}: nesting deeper than {MAX_DEPTH} levels"


@pytest.mark.parametrize("levels", [990, 100_000])
def test_json_nested_far_deeper_than_json_goes_is_refused_with_the_place(levels: int) -> None:
    assert refusal(json_card(nested(levels)), "a.json").startswith("line 2 column ")


def test_json_brackets_inside_strings_do_not_count() -> None:
    text = json_card(json.dumps(["]" * 400, "[" * 400, "\\\"[[[" * 100]))
    assert io.parse(text, "a.json").original["x"][0] == "]" * 400


@pytest.mark.parametrize("style", ["flow", "block"])
def test_yaml_nested_to_the_limit_is_read_and_one_level_more_is_refused(style: str) -> None:
    def card(levels: int) -> str:  # the vendor member holds levels - 1 sequences
        if style == "flow":
            return yaml_card(nested(levels - 1))
        body = "".join("  " * depth + "-\n" for depth in range(levels - 2)) + "  " * (levels - 2) + "- leaf\n"
        return "x:\n" + body + "\n".join(f"{k}: {json.dumps(v)}" for k, v in base_card().items()) + "\n"

    assert io.parse(card(MAX_DEPTH), "a.yaml").original["x"]
    assert refusal(card(MAX_DEPTH + 1), "a.yaml").endswith(f": nesting deeper than {MAX_DEPTH} levels")
    assert refusal(card(MAX_DEPTH + 1), "a.yaml").startswith("line ")


def test_a_megabyte_of_yaml_brackets_is_refused_before_ruamel_reads_it() -> None:
    # ruamel's scanner looks ahead through "[[[[..." at a cost growing with the square of the run.
    assert refusal("x: " + "[" * 1_000_000, "a.yaml") == f"line 1 column {4 + MAX_DEPTH}: nesting deeper than {MAX_DEPTH} levels"


def test_a_yaml_alias_that_would_nest_too_deep_is_refused() -> None:
    deep = nested(MAX_DEPTH - 2)
    text = f"a: &deep {deep}\nb: [[[*deep]]]\n"
    assert refusal(text, "a.yaml") == f"line 2 column 7: nesting deeper than {MAX_DEPTH} levels"


# -- YAML aliases ---------------------------------------------------------------------------


def billion_laughs(levels: int = 9) -> str:
    lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 9)}]" for n in range(1, levels + 1)]
    return "\n".join(lines) + "\n" + "\n".join(f"{k}: {json.dumps(v)}" for k, v in base_card().items()) + "\n"


def test_a_billion_laughs_card_is_refused_at_the_alias_that_blows_the_budget() -> None:
    assert refusal(billion_laughs(), "a.yaml") == f"line 5 column 10: YAML aliases expand to more than {MAX_ALIAS_NODES} nodes"


def test_aliases_within_the_budget_are_read() -> None:
    assert io.parse(billion_laughs(levels=2), "a.yaml").original["a2"][8][8] == ["lol"] * 9


def test_an_alias_inside_its_own_anchor_is_refused() -> None:
    assert refusal("a: &loop [x, *loop]\n", "a.yaml") == (
        "line 1 column 14: a YAML alias inside its own anchor (the card would be infinite)")


def test_aliases_the_input_had_are_written_back_as_they_were() -> None:
    text = yaml_card("&note {kept: true}") + "y: *note\n"
    document = io.parse(text, "a.yaml")
    document.data["name"] = "Renamed"
    rendered = document.render()
    assert "x: &note {kept: true}\n" in rendered and "y: *note\n" in rendered


def test_a_yaml_card_of_too_many_nodes_is_refused_where_the_budget_runs_out() -> None:
    def card(members: int) -> str:  # each member is two nodes
        return yaml_card("1") + "".join(f"k{n}: v\n" for n in range(members))

    assert refusal(card(MAX_YAML_NODES // 2 + 10), "a.yaml").endswith(f": more than {MAX_YAML_NODES} YAML nodes: too large a card")
    assert io.parse(card(MAX_YAML_NODES // 2 - 100), "a.yaml").original["k10"] == "v"


# -- numbers JSON does not have ------------------------------------------------------------


@pytest.mark.parametrize(("spelling", "problem"), [
    ("NaN", "NaN is not a JSON number"),
    ("Infinity", "Infinity is not a JSON number"),
    ("-Infinity", "-Infinity is not a JSON number"),
    ("1e400", "the number 1e400 is out of range (it would be read as infinity)"),
    ("-2.5E+999", "the number -2.5E+999 is out of range (it would be read as infinity)"),
])
def test_non_standard_json_numbers_are_refused_with_the_place(spelling: str, problem: str) -> None:
    text = json_card(f'["NaN", "1e400", 1.5, {spelling}]')
    column = len(PREFIX + '["NaN", "1e400", 1.5, ') + 1
    assert refusal(text, "a.json") == f"line 2 column {column}: {problem}"


@pytest.mark.parametrize(("spelling", "problem"), [
    (".nan", ".nan is not a JSON number"),
    (".NaN", ".NaN is not a JSON number"),
    ("-.inf", "-.inf is not a JSON number"),
    ("1e400", "the number 1e400 is out of range (it would be read as infinity)"),
])
def test_non_standard_yaml_numbers_are_refused_with_the_place(spelling: str, problem: str) -> None:
    assert refusal(yaml_card(f"['.nan', 1.5, {spelling}]"), "a.yaml") == f"line 1 column 18: {problem}"


def test_a_number_too_long_to_convert_is_refused_with_the_place() -> None:
    assert refusal(json_card("1" * 5000), "a.json").startswith("line 2 column 8: a number of more than ")


def test_validate_does_not_call_a_nan_card_valid(tmp_path: Path) -> None:
    card = tmp_path / "agent-card.json"
    card.write_text(json_card("NaN"))
    result = CliRunner().invoke(cli.main, ["validate", str(card)])
    assert result.exit_code == 123
    assert f"{card}: error: line 2 column 8: NaN is not a JSON number" in result.stderr


# -- a folder run goes on -------------------------------------------------------------------

HOSTILE = {
    "deep.agent-card.json": json_card(nested(990)),
    "deep.agent-card.yaml": yaml_card(nested(990)),
    "laughs.agent-card.yaml": billion_laughs(),
    "nan.agent-card.json": json_card("NaN"),
    "huge.agent-card.json": json_card("1e400"),
}


@pytest.mark.parametrize("flag", [[], ["--check"]])
def test_a_folder_run_reports_each_hostile_card_and_upgrades_the_rest(tmp_path: Path, flag: list[str]) -> None:
    for name, text in HOSTILE.items():
        (tmp_path / name).write_text(text)
    good = tmp_path / "good.agent-card.json"
    good.write_text(CARD)

    result = CliRunner().invoke(cli.main, ["upgrade", *flag, str(tmp_path)])

    assert result.exit_code == 123
    errors = [line for line in result.stderr.splitlines() if ": error: " in line]
    assert len(errors) == len(HOSTILE), result.stderr
    assert all(line.startswith(str(tmp_path)) and "Traceback" not in line for line in errors)
    summary = "1 card would be upgraded" if flag else "1 card upgraded"
    assert result.stderr.splitlines()[-1] == f"{summary}, 0 already 1.0, {len(HOSTILE)} failed"
    for name, text in HOSTILE.items():
        assert (tmp_path / name).read_text() == text
    assert (good.read_text() != CARD) is not bool(flag)


# -- what is under the limits works everywhere ----------------------------------------------


@pytest.mark.parametrize(("name", "text"), [
    ("agent-card.json", json_card(nested(MAX_DEPTH - 1))),
    ("agent-card.yaml", yaml_card(nested(MAX_DEPTH - 1))),
    ("agent-card.json", json_card(json.dumps({"skills": [{"a": None}] * 2000}))),
])
def test_a_card_at_the_limits_goes_through_every_command(tmp_path: Path, name: str, text: str) -> None:
    card = tmp_path / name
    card.write_text(text)
    runs = run_all(card, tmp_path, stdin=text)
    assert problems(runs) == []
    assert {tuple(run.args[:2]): run.exit_code for run in runs}[("upgrade", "--check")] == 1


@pytest.mark.parametrize(("name", "text"), sorted(HOSTILE.items()))
def test_a_hostile_card_is_refused_by_every_command_and_left_alone(tmp_path: Path, name: str, text: str) -> None:
    card = tmp_path / name
    card.write_text(text)
    runs = run_all(card, tmp_path, stdin=text)
    assert problems(runs) == []
    assert card.read_text() == text
    assert all(run.exit_code == 123 for run in runs if run.args[0] not in ("apply", "plan")), [
        (run.args, run.exit_code) for run in runs]


# -- stdin is JSON or YAML, like a file ----------------------------------------------------


def test_flow_style_yaml_on_stdin_is_read_as_yaml() -> None:
    flow = "{" + ", ".join(f"{key}: {json.dumps(value)}" for key, value in base_card().items()) + "}\n"
    result = CliRunner().invoke(cli.main, ["upgrade", "-"], input=flow.replace('"name"', "name"))
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("{") and "supportedInterfaces: [" in result.stdout


def test_stdin_that_is_neither_json_nor_yaml_gets_both_errors_on_one_line() -> None:
    result = CliRunner().invoke(cli.main, ["detect", "-"], input='{name: x, skills: [}\n')
    assert result.exit_code == 123
    assert result.stderr.splitlines()[0] == (
        "-: error: line 1 column 2: not valid JSON: Expecting property name enclosed in double quotes; "
        "nor YAML: line 1 column 20: not valid YAML: expected the node content, but found '}'")


def test_a_json_named_file_is_never_read_as_yaml() -> None:
    assert refusal("{name: x}", "a.json") == "line 1 column 2: not valid JSON: Expecting property name enclosed in double quotes"


def test_a_url_is_not_taken_for_a_comment() -> None:
    assert "comments" not in refusal('{"url": "https://a.example.com" "name": 1}', "a.json")
    assert refusal('{"a": 1 // no\n}', "a.json").endswith("(JSON allows no comments)")


def test_json_with_a_mistake_on_stdin_is_a_json_error_not_yaml() -> None:
    # a trailing comma is valid flow YAML, but every key is quoted: the author wrote JSON
    text = json.dumps(base_card())[:-1] + ", }\n"
    for command in (["validate", "-"], ["upgrade", "-"]):
        result = CliRunner().invoke(cli.main, command, input=text)
        assert result.exit_code == 123, result.output
        assert "not valid JSON: Expecting property name enclosed in double quotes" in result.stderr
        assert "nor YAML" not in result.stderr and result.stdout == ""


def test_a_key_like_text_inside_a_json_string_does_not_make_it_yaml() -> None:
    card = base_card(description="first, second: third")
    result = CliRunner().invoke(cli.main, ["detect", "-"], input=json.dumps(card)[:-1] + ",}")
    assert result.exit_code == 123 and "nor YAML" not in result.stderr
