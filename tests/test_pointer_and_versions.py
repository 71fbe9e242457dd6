import pytest

from a2a_migrate.pointer import escape, join, split
from a2a_migrate.versions import detect_version, is_legacy, major_minor


def test_pointers_escape_and_split_per_rfc_6901() -> None:
    assert escape("a/b~c") == "a~1b~0c" and escape(3) == "3" and escape("plain") == "plain"
    assert join("/securitySchemes", "oauth/2", 0) == "/securitySchemes/oauth~12/0"
    assert join("", "a/b~") == "/a~1b~0" and join("/skills", 0) == "/skills/0" and join("/x") == "/x"
    assert split("/securitySchemes/oauth~12/0") == ["securitySchemes", "oauth/2", "0"]
    assert split("") == []
    with pytest.raises(ValueError):
        split("no-slash")


@pytest.mark.parametrize(("value", "expected"), [
    ("0.3.0", "0.3"), ("1", "1.0"), ("v1.0.1", "1.0"), (0.3, "0.3"), ("1.0.0-rc", "1.0"),
    ("latest", None), (None, None), (True, None),
])
def test_major_minor(value, expected) -> None:
    assert major_minor(value) == expected


def test_empty_version_is_legacy() -> None:
    assert is_legacy(None) and is_legacy("0.3") and not is_legacy("1.0")


@pytest.mark.parametrize(("card", "version"), [
    ({"name": "A", "supportedInterfaces": []}, "1.0"),
    ({"name": "A", "supported_interfaces": [], "url": "u"}, "hybrid"),
    ({"name": "A", "url": "u", "protocolVersion": "0.3.0"}, "0.3"),
    ({"name": "A", "url": "u", "protocolVersion": "1.0"}, "0.3"),
    ({"name": "A", "url": "u", "protocolVersion": "0.2.9", "preferredTransport": "JSONRPC"}, "0.3"),
    ({"name": "A", "url": "u", "protocolVersion": "0.2.5"}, "0.2"),
    ({"name": "A", "url": "u", "skills": []}, "0.2"),
    ({"name": "A", "url": "u", "authentication": {"schemes": ["bearer"]}}, "0.1"),
    ({"description": "no name"}, "unknown"),
    (["not", "an", "object"], "unknown"),
])
def test_detect_version_by_shape(card, version) -> None:
    assert detect_version(card) == version


def test_resolve_follows_pointers_and_tokens() -> None:
    from a2a_migrate.pointer import MISSING, resolve

    card = {"skills": [{"id": "a/b"}], "x~y": 1}
    assert resolve(card, "/skills/0/id") == "a/b"
    assert resolve(card, ("skills", "0", "id")) == "a/b"
    assert resolve(card, "/x~0y") == 1
    assert resolve(card, "/skills/1") is MISSING and resolve(card, "/nope", None) is None
