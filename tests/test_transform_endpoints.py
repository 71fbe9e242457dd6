from transform_helpers import base_card, brief, run

from a2a_migrate.transforms import endpoints


def test_url_transport_and_version_become_the_first_interface_in_place() -> None:
    card = base_card(preferredTransport="HTTP+JSON")
    out, notes = run(endpoints, card)
    assert out["supportedInterfaces"] == [
        {"url": "https://echo.example.com/a2a", "protocolBinding": "HTTP+JSON", "protocolVersion": "0.3.0"}]
    assert list(out)[:3] == ["name", "description", "supportedInterfaces"]
    assert not {"url", "preferredTransport", "protocolVersion"} & set(out)
    assert brief(notes) == [("info", "/url")]


def test_transport_defaults_to_jsonrpc() -> None:
    out, _ = run(endpoints, base_card())
    assert out["supportedInterfaces"][0]["protocolBinding"] == "JSONRPC"


def test_additional_interfaces_follow_and_the_repeated_primary_is_not_repeated() -> None:
    card = base_card(additionalInterfaces=[
        {"url": "https://echo.example.com/a2a", "transport": "JSONRPC"},
        {"url": "https://echo.example.com/rest", "transport": "HTTP+JSON"},
    ])
    out, notes = run(endpoints, card)
    assert [(i["url"], i["protocolBinding"]) for i in out["supportedInterfaces"]] == [
        ("https://echo.example.com/a2a", "JSONRPC"), ("https://echo.example.com/rest", "HTTP+JSON")]
    assert ("info", "/additionalInterfaces/0") in brief(notes)


def test_no_endpoint_is_refused_unless_default_url() -> None:
    card = base_card()
    del card["url"]
    assert brief(run(endpoints, card)[1]) == [("error", "/url")]
    out, _ = run(endpoints, card, default_url="https://x.example")
    assert out["supportedInterfaces"][0]["url"] == "https://x.example"


def test_odd_binding_spellings_in_1_0_interfaces() -> None:
    card = {"supportedInterfaces": [{"url": "u", "transport": "json-rpc"}, {"url": "v", "protocol": "rest"},
                                    {"url": "w", "protocolBinding": "TRANSPORT_PROTOCOL_REST"}]}
    out, notes = run(endpoints, card)
    assert [i["protocolBinding"] for i in out["supportedInterfaces"]] == ["JSONRPC", "HTTP+JSON", "HTTP+JSON"]
    assert "transport" not in out["supportedInterfaces"][0]


def test_hybrid_card_loses_its_0_3_copies() -> None:
    card = {"name": "A", "supportedInterfaces": [{"url": "u", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"}],
            "url": "u", "preferredTransport": "JSONRPC", "protocolVersion": "0.3.0"}
    out, notes = run(endpoints, card)
    assert out == {"name": "A", "supportedInterfaces": [{"url": "u", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"}]}
    assert brief(notes) == [("info", "/url")]


def test_clean_1_0_card_is_untouched() -> None:
    card = {"supportedInterfaces": [{"url": "u", "protocolBinding": "GRPC", "protocolVersion": "1.0"}]}
    assert run(endpoints, card) == (card, [])
