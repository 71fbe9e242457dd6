from transform_helpers import brief, run

from a2a_migrate.transforms import capabilities_shape


def test_missing_capabilities_become_an_empty_object() -> None:
    out, notes = run(capabilities_shape, {"name": "A"})
    assert out == {"name": "A", "capabilities": {}}
    assert brief(notes) == [("assumed", "/capabilities")]


def test_flag_list_becomes_object_with_camel_case_names() -> None:
    out, notes = run(capabilities_shape, {"capabilities": ["streaming", "push_notifications", {"id": "x"}]})
    assert out == {"capabilities": {"streaming": True, "pushNotifications": True}}
    assert brief(notes) == [("lossy", "/capabilities/2"), ("assumed", "/capabilities")]


def test_top_level_extensions_move_into_capabilities() -> None:
    card = {"capabilities": {"extensions": [{"uri": "a"}]}, "extensions": [{"uri": "b", "required": True}]}
    out, notes = run(capabilities_shape, card)
    assert out == {"capabilities": {"extensions": [{"uri": "a"}, {"uri": "b", "required": True}]}}
    assert brief(notes) == [("assumed", "/extensions")]


def test_top_level_extensions_that_are_not_a2a_extensions_stay() -> None:
    card = {"capabilities": {}, "extensions": ["mcp"]}
    assert run(capabilities_shape, card) == (card, [])
