from transform_helpers import brief, run

from a2a_migrate.transforms import provider_organization


def test_provider_name_becomes_organization_in_place() -> None:
    out, notes = run(provider_organization, {"provider": {"name": "Acme", "url": "https://acme.example"}})
    assert list(out["provider"].items()) == [("organization", "Acme"), ("url", "https://acme.example")]
    assert brief(notes) == [("assumed", "/provider/name")]


def test_provider_without_url_is_refused() -> None:
    _, notes = run(provider_organization, {"provider": {"organization": "Acme"}})
    assert brief(notes) == [("error", "/provider/url")]


def test_complete_provider_and_no_provider_are_untouched() -> None:
    card = {"provider": {"organization": "Acme", "url": "https://acme.example"}}
    assert run(provider_organization, card) == (card, [])
    assert run(provider_organization, {"name": "A"}) == ({"name": "A"}, [])
