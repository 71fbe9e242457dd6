from transform_helpers import brief, run

from a2a_migrate.transforms import legacy_authentication


def test_bearer_becomes_http_scheme_and_requirement() -> None:
    out, notes = run(legacy_authentication, {"name": "A", "authentication": {"schemes": ["Bearer"], "credentials": None}})
    assert out == {"name": "A", "securitySchemes": {"bearer": {"type": "http", "scheme": "Bearer"}},
                   "security": [{"bearer": []}]}
    assert brief(notes) == [("assumed", "/authentication")]


def test_none_beside_a_scheme_is_an_alternative_needing_nothing() -> None:
    out, _ = run(legacy_authentication, {"authentication": {"schemes": ["bearer", "none"]}})
    assert out["security"] == [{"bearer": []}, {}]


def test_only_none_means_no_security_at_all() -> None:
    out, notes = run(legacy_authentication, {"name": "A", "authentication": {"schemes": ["none"]}})
    assert out == {"name": "A"}
    assert brief(notes) == [("info", "/authentication/schemes/0")]


def test_unknown_scheme_word_is_refused() -> None:
    _, notes = run(legacy_authentication, {"authentication": {"schemes": ["x402"]}})
    assert brief(notes) == [("error", "/authentication/schemes/0")]


def test_existing_security_member_is_never_overwritten() -> None:
    card = {"authentication": {"schemes": ["bearer"]}, "security": {"vendor": True}}
    out, notes = run(legacy_authentication, card)
    assert out == card and brief(notes) == [("error", "/security")]


def test_credentials_are_reported_lost() -> None:
    _, notes = run(legacy_authentication, {"authentication": {"schemes": ["basic"], "credentials": "ask us"}})
    assert ("lossy", "/authentication/credentials") in brief(notes)
