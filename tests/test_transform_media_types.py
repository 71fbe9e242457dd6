from transform_helpers import brief, run

from a2a_migrate.transforms import media_types


def test_missing_default_modes_become_text_plain_after_capabilities() -> None:
    out, notes = run(media_types, {"capabilities": {}, "skills": []})
    assert list(out) == ["capabilities", "defaultInputModes", "defaultOutputModes", "skills"]
    assert out["defaultInputModes"] == out["defaultOutputModes"] == ["text/plain"]
    assert brief(notes) == [("assumed", "/defaultInputModes"), ("assumed", "/defaultOutputModes")]


def test_mode_words_become_media_types_once() -> None:
    card = {"defaultInputModes": ["text", "text/plain", "json"], "defaultOutputModes": ["image"],
            "skills": [{"id": "s", "inputModes": ["file"]}]}
    out, notes = run(media_types, card)
    assert out["defaultInputModes"] == ["text/plain", "application/json"]
    assert out["defaultOutputModes"] == ["image/*"]
    assert out["skills"][0]["inputModes"] == ["application/octet-stream"]
    assert ("info", "/defaultInputModes/1") in brief(notes)


def test_media_types_are_untouched() -> None:
    card = {"defaultInputModes": ["text/plain"], "defaultOutputModes": ["application/json"]}
    assert run(media_types, card) == (card, [])
