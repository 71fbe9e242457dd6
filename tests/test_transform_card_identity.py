from transform_helpers import base_card, brief, run

from a2a_migrate.transforms import card_identity


def test_complete_identity_is_untouched() -> None:
    assert run(card_identity, base_card()) == (base_card(), [])


def test_missing_members_are_errors_naming_the_option() -> None:
    card = base_card()
    del card["version"], card["description"]
    out, notes = run(card_identity, card)
    assert brief(notes) == [("error", "/description"), ("error", "/version")]
    assert "--default-version" in notes[1].message
    assert out == card


def test_defaults_fill_missing_members() -> None:
    card = base_card()
    del card["version"]
    out, notes = run(card_identity, card, default_version="2.0.0")
    assert out["version"] == "2.0.0"
    assert brief(notes) == [("assumed", "/version")]


def test_numeric_version_becomes_a_string() -> None:
    out, notes = run(card_identity, base_card(version=2))
    assert out["version"] == "2" and brief(notes) == [("assumed", "/version")]


def test_a_yaml_date_version_becomes_its_string() -> None:
    import datetime

    out, notes = run(card_identity, base_card(version=datetime.date(2024, 1, 1)))
    assert out["version"] == "2024-01-01" and brief(notes) == [("assumed", "/version")]
