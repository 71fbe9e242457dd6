from transform_helpers import brief, run

from a2a_migrate.transforms import proto_field_names


def test_snake_case_names_become_camel_case_at_every_level() -> None:
    card = {"name": "A", "supported_interfaces": [{"url": "u", "protocol_binding": "JSONRPC"}],
            "capabilities": {"push_notifications": True}, "default_input_modes": ["text/plain"]}
    out, notes = run(proto_field_names, card)
    assert out == {"name": "A", "supportedInterfaces": [{"url": "u", "protocolBinding": "JSONRPC"}],
                   "capabilities": {"pushNotifications": True}, "defaultInputModes": ["text/plain"]}
    assert list(out) == ["name", "supportedInterfaces", "capabilities", "defaultInputModes"]
    assert ("info", "/supportedInterfaces/0/protocol_binding") in brief(notes)


def test_vendor_members_and_free_form_values_are_not_renamed() -> None:
    card = {"name": "A", "x_vendor_key": 1, "skills": [{"id": "s", "inputSchema": {"properties": {"input_modes": {}}}}]}
    out, notes = run(proto_field_names, card)
    assert out == card and notes == []


def test_both_spellings_keep_camel_case_and_report_a_conflict() -> None:
    out, notes = run(proto_field_names, {"iconUrl": "a", "icon_url": "b"})
    assert out == {"iconUrl": "a"}
    assert brief(notes) == [("lossy", "/icon_url")]
