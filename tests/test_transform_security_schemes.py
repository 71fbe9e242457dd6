import pytest
from transform_helpers import brief, run

from a2a_migrate.transforms import security_schemes

CASES = [
    ({"type": "apiKey", "in": "header", "name": "X-Key"}, {"apiKeySecurityScheme": {"location": "header", "name": "X-Key"}}),
    ({"type": "http", "scheme": "Bearer", "bearerFormat": "JWT"}, {"httpAuthSecurityScheme": {"scheme": "Bearer", "bearerFormat": "JWT"}}),
    ({"type": "oauth2", "flows": {"clientCredentials": {"tokenUrl": "t", "scopes": {}}}},
     {"oauth2SecurityScheme": {"flows": {"clientCredentials": {"tokenUrl": "t", "scopes": {}}}}}),
    ({"type": "openIdConnect", "openIdConnectUrl": "https://id"}, {"openIdConnectSecurityScheme": {"openIdConnectUrl": "https://id"}}),
    ({"type": "mutualTLS", "description": "client certs"}, {"mtlsSecurityScheme": {"description": "client certs"}}),
]


@pytest.mark.parametrize(("old", "new"), CASES)
def test_each_type_becomes_its_wrapper_and_back(old, new) -> None:
    out, notes = run(security_schemes, {"securitySchemes": {"s": old}})
    assert out == {"securitySchemes": {"s": new}}
    assert brief(notes) == [("info", "/securitySchemes/s/type")]
    assert run(security_schemes, out, "down")[0] == {"securitySchemes": {"s": old}}


def test_invented_bearer_type_is_read_as_http_bearer() -> None:
    out, notes = run(security_schemes, {"securitySchemes": {"b": {"type": "bearer"}}})
    assert out == {"securitySchemes": {"b": {"httpAuthSecurityScheme": {"scheme": "Bearer"}}}}
    assert ("assumed", "/securitySchemes/b/type") in brief(notes)


def test_none_type_is_removed_and_requirements_naming_it_need_nothing() -> None:
    card = {"securitySchemes": {"none": {"type": "none"}}, "securityRequirements": [{"schemes": {"none": {}}}]}
    out, notes = run(security_schemes, card)
    assert out == {"securitySchemes": {}, "securityRequirements": [{}]}
    assert brief(notes) == [("info", "/securitySchemes/none")]


def test_a_no_auth_schemes_description_is_reported_lost() -> None:
    card = {"securitySchemes": {"public": {"type": "public", "description": "Free to browse."}}}
    out, notes = run(security_schemes, card)
    assert out == {"securitySchemes": {}}
    assert brief(notes) == [("info", "/securitySchemes/public"), ("lossy", "/securitySchemes/public/description")]


def test_unknown_type_is_refused() -> None:
    assert brief(run(security_schemes, {"securitySchemes": {"x": {"type": "x402"}}})[1]) == [("error", "/securitySchemes/x/type")]


def test_hybrid_entry_keeps_only_the_wrapper() -> None:
    scheme = {"apiKeySecurityScheme": {"location": "header", "name": "k"}, "type": "apiKey", "in": "header", "name": "k"}
    out, _ = run(security_schemes, {"securitySchemes": {"s": scheme}})
    assert out == {"securitySchemes": {"s": {"apiKeySecurityScheme": {"location": "header", "name": "k"}}}}


def test_down_hybrid_writes_both_shapes() -> None:
    card = {"securitySchemes": {"s": {"apiKeySecurityScheme": {"location": "query", "name": "k"}}}}
    out, _ = run(security_schemes, card, "down", hybrid=True)
    assert out["securitySchemes"]["s"] == {"apiKeySecurityScheme": {"location": "query", "name": "k"},
                                          "type": "apiKey", "in": "query", "name": "k"}


def test_hybrid_leftovers_fold_into_the_wrapper_or_are_reported() -> None:
    scheme = {"httpAuthSecurityScheme": {"scheme": "Bearer"}, "type": "http", "scheme": "Bearer", "bearerFormat": "JWT"}
    out, notes = run(security_schemes, {"securitySchemes": {"s": scheme}})
    assert out == {"securitySchemes": {"s": {"httpAuthSecurityScheme": {"scheme": "Bearer", "bearerFormat": "JWT"}}}}
    assert brief(notes) == [("info", "/securitySchemes/s/type"), ("info", "/securitySchemes/s/scheme"),
                            ("assumed", "/securitySchemes/s/bearerFormat")]
    disagreeing = {"apiKeySecurityScheme": {"location": "header", "name": "X-New"}, "type": "apiKey", "in": "query", "name": "old"}
    out, notes = run(security_schemes, {"securitySchemes": {"k": disagreeing}})
    assert out == {"securitySchemes": {"k": {"apiKeySecurityScheme": {"location": "header", "name": "X-New"}}}}
    assert brief(notes) == [("info", "/securitySchemes/k/type"), ("lossy", "/securitySchemes/k/in"), ("lossy", "/securitySchemes/k/name")]


def test_scheme_type_words_are_one_table_for_0_3_and_v0_1_cards() -> None:
    # x-api-key is read as apiKey here as it is in a v0.1 authentication object (cardtree.SCHEME_TYPE_WORDS)
    out, notes = run(security_schemes, {"securitySchemes": {"k": {"type": "X-API-Key", "in": "header", "name": "K"}}})
    assert out == {"securitySchemes": {"k": {"apiKeySecurityScheme": {"location": "header", "name": "K"}}}}
    assert ("assumed", "/securitySchemes/k/type") in brief(notes)
