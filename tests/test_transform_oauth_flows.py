from transform_helpers import brief, run

from a2a_migrate.transforms import oauth_flows

CODE = {"authorizationUrl": "https://a/authorize", "tokenUrl": "https://a/token", "scopes": {"read": "Read"}}
CLIENT = {"tokenUrl": "https://a/token", "scopes": {}}
IMPLICIT = {"authorizationUrl": "https://a/authorize", "scopes": {}}


def oauth(flows):
    return {"oauth2SecurityScheme": {"description": "d", "flows": flows}}


def test_three_flows_split_and_every_requirement_becomes_alternatives() -> None:
    card = {
        "securitySchemes": {"key": {"apiKeySecurityScheme": {}}, "o": oauth({"authorizationCode": CODE, "clientCredentials": CLIENT, "implicit": IMPLICIT})},
        "securityRequirements": [{"schemes": {"o": {"list": ["read"]}, "key": {}}}],
        "skills": [{"id": "s", "securityRequirements": [{"schemes": {"o": {}}}]}],
    }
    out, notes = run(oauth_flows, card)
    assert list(out["securitySchemes"]) == ["key", "o", "o__clientCredentials", "o__implicit"]
    assert out["securitySchemes"]["o__implicit"] == oauth({"implicit": IMPLICIT})
    assert out["securityRequirements"] == [
        {"schemes": {"o": {"list": ["read"]}, "key": {}}},
        {"schemes": {"o__clientCredentials": {"list": ["read"]}, "key": {}}},
        {"schemes": {"o__implicit": {"list": ["read"]}, "key": {}}},
    ]
    assert [r["schemes"] for r in out["skills"][0]["securityRequirements"]] == [{"o": {}}, {"o__clientCredentials": {}}, {"o__implicit": {}}]
    assert brief(notes) == [("warning", "/securitySchemes/o/oauth2SecurityScheme/flows/implicit"),
                            ("assumed", "/securitySchemes/o/oauth2SecurityScheme/flows"),
                            ("warning", "/securitySchemes/o__clientCredentials"),  # "read" is the code flow's only
                            ("warning", "/securitySchemes/o__implicit")]


def test_split_names_never_collide() -> None:
    card = {"securitySchemes": {"o": oauth({"authorizationCode": CODE, "clientCredentials": CLIENT}),
                                "o__clientCredentials": {"mtlsSecurityScheme": {}}}}
    out, _ = run(oauth_flows, card)
    assert list(out["securitySchemes"]) == ["o", "o__clientCredentials2", "o__clientCredentials"]


def test_single_flow_is_untouched() -> None:
    card = {"securitySchemes": {"o": oauth({"clientCredentials": CLIENT})}}
    assert run(oauth_flows, card) == (card, [])
