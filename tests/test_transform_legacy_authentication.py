from typing import Any

from transform_helpers import brief, run

from a2a_migrate.transforms import legacy_authentication
from a2a_migrate.transforms.legacy_authentication import X402_URI


def _auth(auth: Any, **card: Any) -> tuple[dict[str, Any], list[Any]]:
    return run(legacy_authentication, {"name": "A", "capabilities": {}, "authentication": auth, **card})


def test_bearer_becomes_http_scheme_and_requirement() -> None:
    out, notes = run(legacy_authentication, {"name": "A", "authentication": {"schemes": ["Bearer"], "credentials": None}})
    assert out == {"name": "A", "securitySchemes": {"bearer": {"type": "http", "scheme": "Bearer"}},
                   "security": [{"bearer": []}]}
    assert brief(notes) == [("info", "/authentication")]


def test_none_beside_a_scheme_is_an_alternative_needing_nothing() -> None:
    out, _ = run(legacy_authentication, {"authentication": {"schemes": ["bearer", "none"]}})
    assert out["security"] == [{"bearer": []}, {}]


def test_only_none_means_no_security_at_all() -> None:
    out, notes = run(legacy_authentication, {"name": "A", "authentication": {"schemes": ["none"]}})
    assert out == {"name": "A"}
    assert brief(notes) == [("info", "/authentication/schemes/0")]


def test_the_api_key_header_the_card_names_is_kept_with_its_description() -> None:
    out, notes = _auth({"type": "apiKey", "in": "header", "name": "X-Atelier-API-Key", "description": "One per client."})
    assert out["securitySchemes"] == {"apiKey": {"type": "apiKey", "in": "header", "name": "X-Atelier-API-Key",
                                                 "description": "One per client."}}
    assert [n for n in notes if n.severity in ("assumed", "lossy")] == []


def test_an_api_key_with_no_name_gets_the_usual_header_as_an_assumption() -> None:
    out, notes = _auth({"schemes": ["ApiKey"]})
    assert out["securitySchemes"]["apiKey"]["name"] == "X-API-Key"
    assert ("assumed", "/authentication/schemes/0") in brief(notes)


def test_jwt_keeps_its_format_and_description_and_reports_what_has_no_place() -> None:
    out, notes = _auth({"schemes": [{"type": "jwt", "in": "header", "name": "Authorization", "format": "Bearer {token}",
                                     "description": "Short-lived."}]})
    assert out["securitySchemes"] == {"bearer": {"type": "http", "scheme": "Bearer", "bearerFormat": "JWT",
                                                 "description": "Short-lived."}}
    assert [p for s, p in brief(notes) if s == "lossy"] == [
        "/authentication/schemes/0/in", "/authentication/schemes/0/name", "/authentication/schemes/0/format"]


def test_the_objects_own_description_goes_on_its_only_scheme() -> None:
    out, notes = _auth({"schemes": ["bearer"], "description": "Mint a key first."})
    assert out["securitySchemes"]["bearer"]["description"] == "Mint a key first."


def test_token_urls_of_a_bearer_scheme_are_reported_lost() -> None:
    _, notes = _auth({"schemes": ["bearer"], "tokenEndpoint": "https://t", "obtainTokenUrl": "https://o"})
    assert [p for s, p in brief(notes) if s == "lossy"] == ["/authentication/tokenEndpoint", "/authentication/obtainTokenUrl"]


def test_an_oauth2_scheme_with_a_token_url_becomes_a_client_credentials_flow() -> None:
    out, notes = _auth({"schemes": [{"type": "oauth2", "tokenEndpoint": "https://t", "requiredScopes": ["read"]}]})
    assert out["securitySchemes"] == {"oauth2": {"type": "oauth2", "flows": {"clientCredentials": {
        "tokenUrl": "https://t", "scopes": {"read": ""}}}}}
    assert out["security"] == [{"oauth2": ["read"]}]
    assert ("assumed", "/authentication/schemes/0/tokenEndpoint") in brief(notes)


def test_required_false_means_no_authentication() -> None:
    out, notes = _auth({"required": False})
    assert "authentication" not in out and "securitySchemes" not in out and "security" not in out
    assert brief(notes) == [("info", "/authentication/required")]


def test_methods_and_required_false_make_the_schemes_optional() -> None:
    out, _ = _auth({"methods": ["api_key", "bearer_token"], "required": False})
    assert list(out["securitySchemes"]) == ["apiKey", "bearer"]
    assert out["security"] == [{"apiKey": []}, {"bearer": []}, {}]


def test_x402_becomes_the_required_payments_extension() -> None:
    out, notes = _auth({"schemes": ["x402"], "credentials": None})
    assert out == {"name": "A", "capabilities": {"extensions": [{"uri": X402_URI, "required": True}]}}
    assert brief(notes) == [("assumed", "/authentication/schemes/0")] and X402_URI in notes[0].message


def test_an_already_declared_x402_extension_is_not_repeated() -> None:
    declared = {"extensions": [{"uri": "https://example.com/x402/v1"}]}
    out, notes = run(legacy_authentication, {"capabilities": declared, "authentication": {"schemes": ["x402"]}})
    assert out["capabilities"] == declared and brief(notes) == [("info", "/authentication/schemes/0")]


def test_a_scheme_with_no_form_is_dropped_with_a_lossy_note() -> None:
    out, notes = _auth({"schemes": ["writeKey"]})
    assert "authentication" not in out and "securitySchemes" not in out
    assert brief(notes) == [("lossy", "/authentication/schemes/0")]


def test_vendor_members_of_the_object_are_reported_lost() -> None:
    _, notes = _auth({"schemes": ["ApiKey"], "apiKeyFormat": "a2a_live_x", "getApiKey": "POST /register"})
    assert ("lossy", "/authentication/apiKeyFormat") in brief(notes)
    assert ("lossy", "/authentication/getApiKey") in brief(notes)


def test_existing_security_member_is_never_overwritten() -> None:
    card = {"authentication": {"schemes": ["bearer"]}, "security": {"vendor": True}}
    out, notes = run(legacy_authentication, card)
    assert out == {"security": {"vendor": True}}
    assert brief(notes) == [("lossy", "/authentication")]


def test_credentials_are_reported_lost() -> None:
    _, notes = run(legacy_authentication, {"authentication": {"schemes": ["basic"], "credentials": "ask us"}})
    assert ("lossy", "/authentication/credentials") in brief(notes)


def test_an_object_with_no_schemes_at_all_is_dropped_with_a_lossy_note() -> None:
    out, notes = _auth({"vendor": "thing"})
    assert "authentication" not in out and brief(notes) == [("lossy", "/authentication")]


def test_scopes_that_are_no_names_are_reported_lost_not_crashed_on() -> None:
    # found by the fuzz module: a float scope list and a number among scopes
    out, notes = _auth({"schemes": [{"type": "oauth2", "tokenEndpoint": "https://t", "scopes": 1.5,
                                     "requiredScopes": ["a", 3]}]})
    assert out["securitySchemes"]["oauth2"]["flows"]["clientCredentials"]["scopes"] == {"a": ""}
    assert out["security"] == [{"oauth2": ["a"]}]
    assert [p for s, p in brief(notes) if s == "lossy"] == ["/authentication/schemes/0/scopes",
                                                          "/authentication/schemes/0/requiredScopes/1"]


def test_required_scopes_of_a_bearer_scheme_go_into_the_requirement() -> None:
    out, notes = _auth({"schemes": [{"type": "bearer", "requiredScopes": ["admin"]}]})
    assert out["security"] == [{"bearer": ["admin"]}]
    assert [n for n in notes if n.severity == "lossy"] == []
