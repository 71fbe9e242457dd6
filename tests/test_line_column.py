"""Issue 14: line and column of every note and finding, in JSON and YAML cards (a2a_migrate.locate)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from a2a_migrate import io
from a2a_migrate.batch import Job, migrate_text
from a2a_migrate.context import Note
from a2a_migrate.locate import Locator, located
from a2a_migrate.pointer import join
from shared_support import corpus_params

JSON_CARD = (
    '{\n'
    '  "name": "Météo 😀", "a/b~c": 1,\n'
    '  "skills": [\n'
    '    {"id": "x"},\n'
    '    {\n'
    '      "id": "y", "tags": ["t", "u"]\n'
    '    }\n'
    '  ],\n'
    '  "capabilities": {"stateTransitionHistory": true}\n'
    '}\n'
)


def place_of(text: str, name: str, where: str) -> tuple[int, int]:
    return Locator(io.parse(text, name)).place(where)


@pytest.mark.parametrize(("where", "expected"), [
    ("", (1, 1)),  # the root: where the document's value starts
    ("/name", (2, 3)),  # a member: where its key starts
    ("/a~1b~0c", (2, 22)),  # "~1" is "/" and "~0" is "~"; "é" and "😀" are one column each
    ("/skills", (3, 3)),
    ("/skills/0", (4, 5)),  # an array item: where the item starts
    ("/skills/1", (5, 5)),
    ("/skills/1/tags", (6, 18)),
    ("/skills/1/tags/1", (6, 32)),
    ("/capabilities/stateTransitionHistory", (9, 20)),
])
def test_json_places(where: str, expected: tuple[int, int]) -> None:
    assert place_of(JSON_CARD, "card.json", where) == expected


@pytest.mark.parametrize(("where", "expected"), [
    ("/defaultInputModes", (1, 1)),  # added by the migration: the nearest ancestor the input has
    ("/skills/1/tags/7", (6, 18)),  # past the end of an array
    ("/skills/0/id/deeper", (4, 6)),  # below a scalar: the scalar's member
    ("/skills/x", (3, 3)),  # an array has no member x
    ("not a pointer", (1, 1)),
])
def test_json_pointer_not_in_the_input_is_its_nearest_ancestor(where: str, expected: tuple[int, int]) -> None:
    assert place_of(JSON_CARD, "card.json", where) == expected


def test_crlf_bom_and_lone_cr_end_lines_alike() -> None:
    crlf = "\ufeff" + JSON_CARD.replace("\n", "\r\n")
    lone_cr = JSON_CARD.replace("\n", "\r")
    for text in (crlf, lone_cr):
        assert place_of(text, "card.json", "/skills/1/tags/1") == (6, 32)
        assert place_of(text, "card.json", "/name") == (2, 3)  # the BOM is no column


def test_a_one_line_card_has_columns_only() -> None:
    text = '{"name": "n", "skills": [{"id": "s"}, {"id": "t"}]}'
    assert place_of(text, "-", "/skills/1/id") == (1, text.index('"id": "t"') + 1)


YAML_CARD = (
    "# weather agent\r\n"
    "name: Météo 😀\r\n"
    "a/b~c: 1\r\n"
    "skills:\r\n"
    "  - id: x\r\n"
    "  - {id: y, tags: [t, u]}\r\n"
    "capabilities:\r\n"
    "  stateTransitionHistory: true\r\n"
    "200: a number key\r\n"
)


@pytest.mark.parametrize(("where", "expected"), [
    ("", (2, 1)),  # the root mapping starts at its first key, after the comment
    ("/name", (2, 1)),
    ("/a~1b~0c", (3, 1)),
    ("/skills/0", (5, 5)),
    ("/skills/0/id", (5, 5)),
    ("/skills/1", (6, 5)),  # a flow-style mapping
    ("/skills/1/tags", (6, 13)),
    ("/skills/1/tags/1", (6, 23)),
    ("/capabilities/stateTransitionHistory", (8, 3)),
    ("/200", (9, 1)),  # a YAML number key is the string "200" in the card's value
    ("/defaultInputModes", (2, 1)),  # not in the input: the root
    ("/skills/1/examples", (6, 5)),
])
def test_yaml_places(where: str, expected: tuple[int, int]) -> None:
    assert place_of(YAML_CARD, "card.yaml", where) == expected


def test_yaml_unicode_before_the_place_counts_characters() -> None:
    text = "name: é😀\nskills: [{id: é😀, tags: [a]}]\n"
    assert place_of(text, "card.yaml", "/skills/0/tags") == (2, text.splitlines()[1].index("tags") + 1)


def test_yaml_places_are_the_input_s_after_a_migration_moved_values() -> None:
    """The working copy is changed in place; the places stay those of the text that was read."""
    text = ("name: n\ndescription: d\nversion: '1'\nurl: https://a.example/a2a\n"
            "capabilities:\n  stateTransitionHistory: true\n"
            "skills:\n  - id: s\n    name: S\n    description: D\n    tags: [t]\n")
    document = io.parse(text, "card.yaml")
    outcome_notes = migrate_text(text, "card.yaml", Job("up", locate=("info", "assumed", "warning", "lossy"))).notes
    places = {(note.pointer, note.line, note.column) for note in outcome_notes}
    assert ("/capabilities/stateTransitionHistory", 6, 3) in places
    assert ("/defaultInputModes", 1, 1) in places  # assumed: added, at the root
    assert Locator(document).place("/skills/0/tags") == (11, 5)


def test_located_fills_only_the_severities_asked_for() -> None:
    document = io.parse(JSON_CARD, "card.json")
    notes = [Note("info", "t", "/name", "m"), Note("lossy", "t", "/skills/1", "m")]
    info, lossy = located(document, notes, ("lossy",))
    assert (info.line, info.column) == (None, None)
    assert (lossy.line, lossy.column) == (5, 5)
    assert lossy.as_dict() == {"severity": "lossy", "transform": "t", "pointer": "/skills/1", "message": "m",
                               "line": 5, "column": 5}
    assert "line" not in info.as_dict()


def test_a_batch_locates_nothing_unless_asked() -> None:
    """The quiet path pays nothing: no note gets a place when nothing will show it."""
    card = json.dumps({"name": "n", "description": "d", "version": "1", "url": "https://a.example/a2a",
                       "capabilities": {"stateTransitionHistory": True}, "skills": []}, indent=2)
    quiet = migrate_text(card, "card.json", Job("up"))
    loud = migrate_text(card, "card.json", Job("up", locate=("lossy",)))
    assert quiet.notes and all(note.line is None for note in quiet.notes)
    lossy = [note for note in loud.notes if note.severity == "lossy"]
    assert [(note.line, note.column) for note in lossy] == [(7, 5)]


# -- every place in the corpus: the text there is the key or the item ---------------------------------

def _places(value: Any, where: str = "") -> Iterator[tuple[str, Any, bool]]:
    """Every (pointer, key or item, is_member) below a plain value."""
    if isinstance(value, dict):
        for key, child in value.items():
            yield join(where, key), key, True
            yield from _places(child, join(where, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield join(where, index), child, False
            yield from _places(child, join(where, index))


def _line_starts(text: str) -> list[int]:
    return [0, *(match.end() for match in re.finditer(r"\r\n|\r|\n", text))]


def _parsed(text: str, path: Path) -> io.Document | None:
    """The card, or None for one the reader refuses (in one line: such a card has no notes to place)."""
    try:
        return io.parse(text, str(path))
    except io.CardError as error:
        assert "\n" not in str(error)
        return None


@pytest.mark.parametrize("path", corpus_params(suffixes=(".json",)))
def test_every_json_place_of_the_corpus_starts_its_key_or_item(path: Path) -> None:
    text = io.read_text(path)
    document = _parsed(text, path)
    if document is None:
        return
    body = text[1:] if document.bom else text
    locator = Locator(document)
    decoder = json.JSONDecoder()
    starts = _line_starts(body)
    for where, expected, _ in _places(document.original):
        line, column = locator.place(where)
        found, _ = decoder.raw_decode(body, starts[line - 1] + column - 1)
        assert found == expected, where


GOLDEN_YAML = [pytest.param(path, id=path.name) for path in sorted((Path(__file__).parents[1] / "golden").glob("*.yaml"))]


@pytest.mark.parametrize("path", [*corpus_params(suffixes=(".yaml", ".yml")), *GOLDEN_YAML])
def test_every_yaml_place_of_the_corpus_starts_its_key_or_item(path: Path) -> None:
    text = io.read_text(path)
    document = _parsed(text, path)
    if document is None:
        return
    lines = re.split(r"\r\n|\r|\n", text[1:] if document.bom else text)
    locator = Locator(document)
    for where, expected, member in _places(document.original):
        if io.TIMESTAMP in where:  # the plain value's stand-in for a YAML date has no text of its own
            continue
        line, column = locator.place(where)
        there = lines[line - 1][column - 1:]
        if member or isinstance(expected, str):  # a key, or a string item: its text, quoted or plain
            assert there.lstrip("\"'").startswith(str(expected)[:20]), where
        elif isinstance(expected, dict) and expected:  # a mapping item: "{" or its first key
            assert there[:1] == "{" or there.lstrip("\"'").startswith(next(iter(expected))[:20]), where


# -- the outputs: human lines, reports, validate JSON, SARIF regions, GitHub annotations ---------------

LOSSY_YAML = (
    "# the weather agent\n"
    "name: Weather\n"
    "description: Forecasts\n"
    "version: '1.0'\n"
    "url: https://weather.example.com/a2a\n"
    "capabilities: {streaming: true, stateTransitionHistory: true}\n"
    "skills:\n"
    "  - id: forecast\n"
    "    name: Forecast\n"
    "    description: Tomorrow's weather\n"
    "    tags: [weather]\n"
    "    x-internal: yes\n"
)
LOSSY_JSON = json.dumps(io.parse(LOSSY_YAML, "c.yaml").original, indent=2) + "\n"


def invoke(*args: Any, stdin: str | None = None) -> Any:
    from click.testing import CliRunner

    from a2a_migrate import cli

    return CliRunner().invoke(cli.main, [str(arg) for arg in args], input=stdin)


@pytest.mark.parametrize(("name", "text", "history", "vendor"), [
    ("agent-card.yaml", LOSSY_YAML, "6:33", "12:5"),  # in a flow-style mapping; in a skill
    ("agent-card.json", LOSSY_JSON, "8:5", "18:7"),
])
def test_note_lines_name_path_line_and_column(tmp_path: Path, name: str, text: str, history: str, vendor: str) -> None:
    card = tmp_path / name
    card.write_text(text, "utf-8")
    lines = invoke("upgrade", "--check", card).stderr.splitlines()
    assert f"{card}:{history}: lossy: [state_transition_history] /capabilities/stateTransitionHistory: " \
           "stateTransitionHistory true dropped: 1.0 removed it (it had no API) and cannot declare it" in lines
    assert any(line.startswith(f"{card}:{vendor}: warning: [vendor_members] /skills/0/x-internal: ") for line in lines)
    # assumed notes name what the migration added: the input's nearest place, the top-level mapping
    root = "2:1" if name.endswith(".yaml") else "1:1"
    assert any(line.startswith(f"{card}:{root}: assumed: [media_types] /defaultInputModes: ") for line in lines)


def test_stdin_lines_are_dash_line_column() -> None:
    result = invoke("upgrade", "--check", "-", stdin=LOSSY_JSON)
    assert "-:8:5: lossy: [state_transition_history] /capabilities/stateTransitionHistory: " in result.stderr


def test_report_notes_carry_line_and_column(tmp_path: Path) -> None:
    card = tmp_path / "agent-card.yaml"
    card.write_text(LOSSY_YAML, "utf-8")
    report = json.loads(invoke("upgrade", "--check", "-q", "--report", "-", card).stdout)
    notes = report["cards"][0]["notes"]
    assert notes and all(isinstance(note["line"], int) and isinstance(note["column"], int) for note in notes)
    history = next(note for note in notes if note["transform"] == "state_transition_history")
    assert (history["line"], history["column"]) == (6, 33)


def invalid_yaml(tmp_path: Path) -> Path:
    card = tmp_path / "bad card.yaml"
    card.write_text("name: Weather\n"
                    "description: Forecasts\n"
                    "version: '1.0'\n"
                    "supportedInterfaces:\n"
                    "  - url: http://weather.example.com/a2a\n"
                    "    protocolBinding: JSONRPC\n"
                    "capabilities: {}\n"
                    "defaultInputModes: [text/plain]\n"
                    "defaultOutputModes: [text/plain]\n"
                    "skills:\n"
                    "  - {id: '', name: F, description: D, tags: [w]}\n", "utf-8")
    return card


def test_validate_text_and_json_findings_have_places(tmp_path: Path) -> None:
    card = invalid_yaml(tmp_path)
    text = invoke("validate", card).stdout.splitlines()
    document = json.loads(invoke("validate", "--format", "json", card).stdout)
    findings = document["cards"][0]["findings"]
    assert findings and len(text) == len(findings)
    for line, finding in zip(text, findings):
        assert line.startswith(f"{card}:{finding['line']}:{finding['column']}: {finding['severity']}: ")
    places = {finding["pointer"]: (finding["line"], finding["column"]) for finding in findings}
    assert places["/skills/0/id"] == (11, 6)  # in a flow-style mapping
    assert places["/supportedInterfaces/0/url"] == (5, 5)


def test_sarif_regions_are_schema_valid(tmp_path: Path) -> None:
    from jsonschema import Draft4Validator

    card = invalid_yaml(tmp_path)
    findings = json.loads(invoke("validate", "--format", "json", card).stdout)["cards"][0]["findings"]
    log = json.loads(invoke("validate", "--format", "sarif", card).stdout)
    schema = json.loads((Path(__file__).parent / "sarif" / "sarif-schema-2.1.0.json").read_text("utf-8"))
    assert not list(Draft4Validator(schema).iter_errors(log))
    regions = [result["locations"][0]["physicalLocation"]["region"] for result in log["runs"][0]["results"]]
    assert regions == [{"startLine": f["line"], "startColumn": f["column"]} for f in findings]
    assert log["runs"][0]["columnKind"] == "unicodeCodePoints"


def test_sarif_of_stdin_has_no_region() -> None:
    """A region belongs to a file: a card read from stdin has none (its pointer still says where)."""
    log = json.loads(invoke("validate", "--format", "sarif", "-", stdin=json.dumps({"name": "x"})).stdout)
    results = log["runs"][0]["results"]
    assert results and all("physicalLocation" not in location for r in results for location in r["locations"])


def test_github_annotations_carry_line_and_col(tmp_path: Path) -> None:
    card = invalid_yaml(tmp_path)
    lines = invoke("validate", "--format", "github", card).stdout.splitlines()
    assert "::error file=bad card.yaml,line=11,col=6,title=" in "\n".join(lines).replace(str(tmp_path) + "/", "")
    copied = tmp_path / "agent-card.yaml"
    copied.write_text(LOSSY_YAML, "utf-8")
    check = invoke("upgrade", "--check", "--format", "github", copied).stdout.splitlines()
    assert any(line.startswith(f"::warning file={copied},line=6,col=33,title=[state_transition_history] ")
               for line in check)
    stdin = invoke("validate", "--format", "github", "-", stdin=json.dumps({"name": "x"})).stdout
    assert stdin and "line=" not in stdin  # GitHub places a line only in a file


def test_what_a_run_locates_follows_what_it_shows() -> None:
    from a2a_migrate.cli.migrate import Run, located_severities

    def run(verbosity: int, report: bool = False, output_format: str = "text") -> Run:
        return Run("up", [], None, True, False, False, Path("r.json") if report else None, None,
                   Job("up").options, [], [], 1, verbosity, output_format=output_format)

    assert located_severities(run(-1), batch=False) == ("error",)  # -q: errors only
    assert located_severities(run(0), batch=False) == ("assumed", "warning", "lossy", "error")
    assert located_severities(run(0), batch=True) == ("warning", "lossy", "error")  # one line per card
    assert located_severities(run(1), batch=True) == ("info", "assumed", "warning", "lossy", "error")
    assert located_severities(run(-1, report=True), batch=True) == ("info", "assumed", "warning", "lossy", "error")


def test_plan_notes_carry_places_and_read_back(tmp_path: Path) -> None:
    from a2a_migrate import plans

    card = tmp_path / "agent-card.yaml"
    card.write_text(LOSSY_YAML, "utf-8")
    plan_file = tmp_path / "plan.json"
    result = invoke("plan", card, "-o", plan_file)
    assert f"{card}:6:33: lossy: [state_transition_history] " in result.stderr
    notes = json.loads(plan_file.read_text("utf-8"))["cards"][0]["notes"]
    assert all("line" in note and "column" in note for note in notes)
    read = plans.read(plan_file).cards[0].notes
    assert [(note.line, note.column) for note in read] == [(note["line"], note["column"]) for note in notes]


def test_a_plan_note_without_a_place_reads_as_none() -> None:
    """Plans made before issue 14 (or edited by hand) have notes without line and column."""
    from a2a_migrate.plans import _note

    note = _note({"severity": "info", "transform": "t", "pointer": "/x", "message": "m", "line": "7"}, "/cards/0/notes/0")
    assert (note.line, note.column) == (None, None)


def test_apply_names_the_place_of_what_the_reviewer_left_out(tmp_path: Path) -> None:
    card = tmp_path / "agent-card.yaml"
    card.write_text(LOSSY_YAML, "utf-8")
    plan_file = tmp_path / "plan.json"
    invoke("plan", card, "-o", plan_file)
    data = json.loads(plan_file.read_text("utf-8"))
    entry = data["cards"][0]
    entry["patch"] = [op for op in entry["patch"] if op["path"] != "/capabilities/stateTransitionHistory"]
    plan_file.write_text(json.dumps(data), "utf-8")
    result = invoke("apply", plan_file)
    assert result.exit_code == 0, result.output
    assert f"{card}:6:33: warning: [state_transition_history] /capabilities/stateTransitionHistory: left out " \
           "by the reviewer" in result.stderr


def test_jsonl_notes_are_placed_in_the_stream(tmp_path: Path) -> None:
    card = json.dumps(io.parse(LOSSY_YAML, "c.yaml").original)
    stream = tmp_path / "cards.jsonl"
    stream.write_text(f"{card}\n\n{{nope\n{card}\n", "utf-8")
    column = card.index('"stateTransitionHistory"') + 1
    report = tmp_path / "report.jsonl"
    result = invoke("upgrade", "--jsonl", "--check", "--report", report, stream)
    assert f"{stream}:3: error: column 2: " in result.stderr  # a line that is no JSON: its line, as before
    lines = result.stderr.splitlines()
    for number in (1, 4):  # blank lines count: the places are the stream's
        assert any(line.startswith(f"{stream}:{number}:{column}: lossy: [state_transition_history] ")
                   for line in lines), lines
    entries = [json.loads(line) for line in report.read_text("utf-8").splitlines()]
    history = [(entry["line"], note["line"], note["column"]) for entry in entries for note in entry["notes"]
               if note["transform"] == "state_transition_history"]
    assert history == [(1, 1, column), (4, 4, column)]


def test_the_api_s_migrate_text_places_its_notes() -> None:
    from a2a_migrate import migrate_text as migrate_card_text

    _, result = migrate_card_text(LOSSY_YAML, "up", name="agent.yaml")
    history = next(note for note in result.notes if note.transform == "state_transition_history")
    assert (history.line, history.column) == (6, 33)
    assert all(note.line is not None for note in result.notes)


def test_yaml_places_after_directives_a_bom_and_through_an_alias() -> None:
    """A YAML prologue and end marker are lines of the file; an alias is placed at its anchor."""
    text = ("\ufeff%YAML 1.2\n"
            "--- # the card\n"
            "name: n\n"
            "base: &base\n"
            "  tags: [a]\n"
            "skills:\n"
            "  - *base\n"
            "...\n")
    assert place_of(text, "card.yaml", "/name") == (3, 1)  # the BOM is no column, the prologue has its lines
    # An alias is the anchored value itself (ruamel composes it so): placed where that value is written.
    assert place_of(text, "card.yaml", "/skills/0") == (4, 7)
    assert place_of(text, "card.yaml", "/skills/0/tags") == (5, 3)
