from transform_helpers import brief, run

from a2a_migrate.transforms import state_transition_history


def test_flag_is_dropped_with_a_lossy_note() -> None:
    out, notes = run(state_transition_history, {"capabilities": {"streaming": True, "stateTransitionHistory": True}})
    assert out == {"capabilities": {"streaming": True}}
    assert brief(notes) == [("lossy", "/capabilities/stateTransitionHistory")]
    assert "true" in notes[0].message


def test_false_flag_is_dropped_with_an_info_note() -> None:
    out, notes = run(state_transition_history, {"capabilities": {"stateTransitionHistory": False}})
    assert out == {"capabilities": {}}
    assert brief(notes) == [("info", "/capabilities/stateTransitionHistory")]


def test_a_flag_that_says_something_else_is_lossy() -> None:
    assert brief(run(state_transition_history, {"capabilities": {"stateTransitionHistory": "yes"}})[1]) == [
        ("lossy", "/capabilities/stateTransitionHistory")]


def test_no_flag_no_change() -> None:
    assert run(state_transition_history, {"capabilities": {}}) == ({"capabilities": {}}, [])
