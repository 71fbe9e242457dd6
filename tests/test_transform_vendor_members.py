from transform_helpers import brief, run

from a2a_migrate.transforms import vendor_members


def test_unknown_members_are_kept_and_warned_with_pointers() -> None:
    card = {"name": "A", "x-team": "植物", "skills": [{"id": "s", "price": 1}],
            "securitySchemes": {"k": {"apiKeySecurityScheme": {"location": "header", "name": "k", "x-hint": 1}}}}
    out, notes = run(vendor_members, card)
    assert out == card
    assert brief(notes) == [("warning", "/x-team"), ("warning", "/skills/0/price"),
                            ("warning", "/securitySchemes/k/apiKeySecurityScheme/x-hint")]


def test_a_clean_card_has_nothing_to_report() -> None:
    card = {"name": "A", "supportedInterfaces": [{"url": "u", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"}],
            "capabilities": {"streaming": True}}
    assert run(vendor_members, card) == (card, [])
