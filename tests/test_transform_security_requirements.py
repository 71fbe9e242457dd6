from transform_helpers import brief, run

from a2a_migrate.transforms import security_requirements


def test_card_and_skill_requirements_are_reshaped_in_place() -> None:
    card = {"security": [{"oauth": ["read"]}, {"key": [], "mtls": []}], "skills": [{"id": "s", "security": [{"key": []}]}]}
    out, notes = run(security_requirements, card)
    assert out == {
        "securityRequirements": [{"schemes": {"oauth": {"list": ["read"]}}}, {"schemes": {"key": {}, "mtls": {}}}],
        "skills": [{"id": "s", "securityRequirements": [{"schemes": {"key": {}}}]}],
    }
    assert brief(notes) == [("info", "/security"), ("info", "/skills/0/security")]


def test_grpc_shaped_requirements_are_recognised() -> None:
    out, _ = run(security_requirements, {"security": [{"schemes": {"k": {"list": ["a"]}}}]})
    assert out == {"securityRequirements": [{"schemes": {"k": {"list": ["a"]}}}]}


def test_security_that_is_no_list_is_dropped_with_a_lossy_note() -> None:
    out, notes = run(security_requirements, {"name": "A", "security": {"endpoint_auth": "jwt"}})
    assert out == {"name": "A"}
    assert brief(notes) == [("lossy", "/security")] and '{"endpoint_auth": "jwt"}' in notes[0].message


def test_a_list_with_a_malformed_requirement_is_refused() -> None:
    assert brief(run(security_requirements, {"security": [{"k": "not scopes"}]})[1]) == [("error", "/security")]


def test_down_restores_the_0_3_shape() -> None:
    out, _ = run(security_requirements, {"securityRequirements": [{"schemes": {"o": {"list": ["r"]}}}, {}]}, "down")
    assert out == {"security": [{"o": ["r"]}, {}]}


def test_a_scope_that_is_no_string_is_refused_not_crashed_on() -> None:
    # found by the fuzz module: oauth_flows once joined such scopes into a message and crashed
    assert brief(run(security_requirements, {"security": [{"oauth": [None]}]})[1]) == [("error", "/security")]
