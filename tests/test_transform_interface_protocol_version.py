import pytest
from transform_helpers import brief, run

from a2a_migrate.transforms import interface_protocol_version


def card(version=None):
    interface = {"url": "u", "protocolBinding": "JSONRPC"}
    if version is not None:
        interface["protocolVersion"] = version
    return {"supportedInterfaces": [interface]}


@pytest.mark.parametrize(("given", "written"), [("0.3.0", "0.3"), ("0.2.9", "0.2"), ("1.0.0", "1.0")])
def test_patch_numbers_are_dropped(given, written) -> None:
    out, notes = run(interface_protocol_version, card(given))
    assert out["supportedInterfaces"][0]["protocolVersion"] == written
    assert brief(notes) == [("info", "/supportedInterfaces/0/protocolVersion")]


def test_missing_version_is_0_3_after_the_binding() -> None:
    out, notes = run(interface_protocol_version, card())
    assert list(out["supportedInterfaces"][0].items())[-1] == ("protocolVersion", "0.3")
    assert brief(notes) == [("assumed", "/supportedInterfaces/0/protocolVersion")]


def test_never_raised_to_1_0_unless_declared() -> None:
    assert run(interface_protocol_version, card("0.3"))[0] == card("0.3")
    out, notes = run(interface_protocol_version, card("0.3"), interface_version="1.0")
    assert out == card("1.0") and brief(notes) == [("assumed", "/supportedInterfaces/0/protocolVersion")]


def test_a_version_that_is_no_version_is_refused() -> None:
    assert brief(run(interface_protocol_version, card("latest"))[1]) == [("error", "/supportedInterfaces/0/protocolVersion")]


def test_a_0_3_card_claiming_1_0_is_warned() -> None:
    from a2a_migrate.context import Context, Options

    upgraded = card("1.0.0")
    ctx = Context(Options(), original={"url": "u", "protocolVersion": "1.0.0"})
    ctx.transform = "interface_protocol_version"
    interface_protocol_version.up(upgraded, ctx)
    assert upgraded == card("1.0")
    assert brief(ctx.notes) == [("info", "/supportedInterfaces/0/protocolVersion"),
                                ("warning", "/supportedInterfaces/0/protocolVersion")]
    assert "--interface-version 0.3" in ctx.notes[1].message
