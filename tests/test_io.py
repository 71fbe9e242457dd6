"""Reading and writing card files: formats, errors, atomic writes."""

from __future__ import annotations

import os
import stat

import pytest

from a2a_migrate import io


def test_bom_is_kept_and_json_parsed() -> None:
    document = io.parse('\ufeff{"name": "A"}', "a.json")
    assert document.bom and document.data == {"name": "A"}
    document.data["name"] = "B"
    assert document.render() == '\ufeff{"name": "B"}'


@pytest.mark.parametrize(("text", "message"), [
    ("", "the file is empty"),
    ("[1, 2]", "the top level is a list, not an object"),
    ('{"a": 1, "a": 2}', "duplicate member 'a'"),
    ('{\n  "a": 1 /* c */\n}', "line 2 column 10: not valid JSON"),
    ("placeholder\n", "the top level is a string, not an object"),
])
def test_bad_input_gives_one_line_errors_with_the_place(text, message) -> None:
    with pytest.raises(io.CardError) as caught:
        io.parse(text, "card.json" if not text.startswith("placeholder") else "card.yaml")
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_yaml_comments_quotes_and_order_survive_a_change() -> None:
    src = ("# top comment\nname: A  # beside\nversion: \"1.0\"\ncapabilities:\n  streaming: true\n"
           "  stateTransitionHistory: false\nskills:\n  # above the item\n  - id: s\n    tags: [a, b]\n")
    document = io.parse(src, "agent.yaml")
    del document.data["capabilities"]["stateTransitionHistory"]
    assert document.render() == src.replace("  stateTransitionHistory: false\n", "")


def test_yaml_errors_name_line_and_column() -> None:
    with pytest.raises(io.CardError, match=r"line 2 column \d+: not valid YAML"):
        io.parse("name: A\n  bad: [\n", "a.yaml")


def test_write_atomic_keeps_permissions_and_leaves_no_temporary(tmp_path) -> None:
    target = tmp_path / "card.json"
    target.write_text("old")
    os.chmod(target, 0o640)
    io.write_atomic(target, "new")
    assert target.read_text() == "new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert os.listdir(tmp_path) == ["card.json"]


def test_failed_write_leaves_the_original_and_no_temporary(tmp_path, monkeypatch) -> None:
    target = tmp_path / "card.json"
    target.write_text("old")

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(io.os, "replace", broken_replace)
    with pytest.raises(io.CardError, match="No space left on device"):
        io.write_atomic(target, "new")
    assert target.read_text() == "old"
    assert os.listdir(tmp_path) == ["card.json"]


def test_read_only_file_and_folder_are_refused_even_for_root(tmp_path) -> None:
    target = tmp_path / "card.json"
    target.write_text("old")
    os.chmod(target, 0o444)
    with pytest.raises(io.CardError, match="the file is read-only"):
        io.write_atomic(target, "new")
    assert target.read_text() == "old"
    folder = tmp_path / "locked"
    folder.mkdir()
    os.chmod(folder, 0o555)
    try:
        with pytest.raises(io.CardError, match="the folder is read-only"):
            io.write_atomic(folder / "card.json", "new")
    finally:
        os.chmod(folder, 0o755)
