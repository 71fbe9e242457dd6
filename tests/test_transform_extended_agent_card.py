from transform_helpers import brief, run

from a2a_migrate.transforms import extended_agent_card


def test_flag_moves_into_capabilities() -> None:
    out, notes = run(extended_agent_card, {"capabilities": {}, "supportsAuthenticatedExtendedCard": True})
    assert out == {"capabilities": {"extendedAgentCard": True}}
    assert brief(notes) == [("info", "/supportsAuthenticatedExtendedCard")]


def test_draft_name_is_read_too() -> None:
    out, _ = run(extended_agent_card, {"capabilities": {}, "supportsExtendedAgentCard": False})
    assert out == {"capabilities": {"extendedAgentCard": False}}


def test_conflicting_values_keep_the_1_0_one_and_say_so() -> None:
    out, notes = run(extended_agent_card, {"capabilities": {"extendedAgentCard": True}, "supportsAuthenticatedExtendedCard": False})
    assert out == {"capabilities": {"extendedAgentCard": True}}
    assert brief(notes) == [("lossy", "/supportsAuthenticatedExtendedCard")]


def test_down_moves_it_back_after_capabilities() -> None:
    out, _ = run(extended_agent_card, {"capabilities": {"extendedAgentCard": True}, "skills": []}, "down")
    assert list(out) == ["capabilities", "supportsAuthenticatedExtendedCard", "skills"]
    assert out["capabilities"] == {}
