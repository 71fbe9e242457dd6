from transform_helpers import brief, run

from a2a_migrate.transforms import state_transition_history


def test_flag_is_dropped_with_a_lossy_note() -> None:
    out, notes = run(state_transition_history, {"capabilities": {"streaming": True, "stateTransitionHistory": True}})
    assert out == {"capabilities": {"streaming": True}}
    assert brief(notes) == [("lossy", "/capabilities/stateTransitionHistory")]
    assert "True" in notes[0].message


def test_no_flag_no_change() -> None:
    assert run(state_transition_history, {"capabilities": {}}) == ({"capabilities": {}}, [])
