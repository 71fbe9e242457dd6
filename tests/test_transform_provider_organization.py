from transform_helpers import brief, run

from a2a_migrate.transforms import provider_organization


def test_provider_name_becomes_organization_in_place() -> None:
    out, notes = run(provider_organization, {"provider": {"name": "Acme", "url": "https://acme.example"}})
    assert list(out["provider"].items()) == [("organization", "Acme"), ("url", "https://acme.example")]
    assert brief(notes) == [("assumed", "/provider/name")]


def test_provider_without_url_is_dropped_with_a_lossy_note() -> None:
    out, notes = run(provider_organization, {"name": "A", "provider": {"organization": "Acme"}})
    assert out == {"name": "A"}
    assert brief(notes) == [("lossy", "/provider")] and '"Acme"' in notes[0].message


def test_default_provider_url_completes_it() -> None:
    out, notes = run(provider_organization, {"provider": {"organization": "Acme"}},
                     default_provider_url="https://acme.example")
    assert out == {"provider": {"organization": "Acme", "url": "https://acme.example"}}
    assert brief(notes) == [("assumed", "/provider/url")]


def test_a_stated_but_unusable_url_replaced_by_the_option_is_lossy() -> None:
    out, notes = run(provider_organization, {"provider": {"organization": "Acme", "url": 7}},
                     default_provider_url="https://acme.example")
    assert out["provider"]["url"] == "https://acme.example"
    assert brief(notes) == [("lossy", "/provider/url")] and "7" in notes[0].message


def test_complete_provider_and_no_provider_are_untouched() -> None:
    card = {"provider": {"organization": "Acme", "url": "https://acme.example"}}
    assert run(provider_organization, card) == (card, [])
    assert run(provider_organization, {"name": "A"}) == ({"name": "A"}, [])
