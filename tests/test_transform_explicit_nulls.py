from transform_helpers import brief, run

from a2a_migrate.transforms import explicit_nulls


def test_null_members_are_removed_with_info_notes() -> None:
    out, notes = run(explicit_nulls, {"name": "A", "iconUrl": None, "provider": {"url": None, "organization": "O"}})
    assert out == {"name": "A", "provider": {"organization": "O"}}
    assert brief(notes) == [("info", "/iconUrl"), ("info", "/provider/url")]


def test_nulls_inside_free_form_values_stay() -> None:
    card = {"name": "A", "capabilities": {"extensions": [{"uri": "u", "params": {"x": None}}]}}
    assert run(explicit_nulls, card) == (card, [])
