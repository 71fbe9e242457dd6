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


def _offset(text: str, line: int, column: int) -> int:
    starts = [0, *(match.end() for match in re.finditer(r"\r\n|\r|\n", text))]
    return starts[line - 1] + column - 1


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
    for where, expected, _ in _places(document.original):
        found, _ = decoder.raw_decode(body, _offset(body, *locator.place(where)))
        assert found == expected, where


@pytest.mark.parametrize("path", corpus_params(suffixes=(".yaml", ".yml")))
def test_every_yaml_place_of_the_corpus_starts_its_key(path: Path) -> None:
    text = io.read_text(path)
    document = _parsed(text, path)
    if document is None:
        return
    locator = Locator(document)
    for where, expected, member in _places(document.original):
        if member:
            line, column = locator.place(where)
            assert text.splitlines()[line - 1][column - 1:].lstrip("\"'").startswith(str(expected)), where
