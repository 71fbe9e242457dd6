"""The sign and verify commands, and re-signing on upgrade and downgrade.

``golden/signed/`` holds cards signed with a test-only Ed25519 key
(``TEST-ONLY-private-key.jwk.json``; Ed25519 signatures are deterministic, so
re-signing reproduces them), the public JWK Set, and the expected migrations.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import jsonpatch
import pytest
from click.testing import CliRunner
from test_signing import JwksServer, private_key, private_pem, public_pem, server, unb64  # noqa: F401 (fixture)
from transform_helpers import base_card

from a2a_migrate import cli, signing

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "signed"
TEST_KEY = GOLDEN / "TEST-ONLY-private-key.jwk.json"
TEST_JWKS = GOLDEN / "test-key.jwks.json"
TEST_KID = "golden-test-2026"


def invoke(*args: str, stdin: str | None = None) -> Any:
    return CliRunner().invoke(cli.main, [str(arg) for arg in args], input=stdin)


def keys(tmp_path: Path, kind: str = "P-256") -> tuple[Path, Path]:
    """``(private PEM, public PEM)`` files of a generated key."""
    private, public = tmp_path / f"{kind}.key.pem", tmp_path / f"{kind}.pub.pem"
    private.write_bytes(private_pem(private_key(kind)))
    public.write_bytes(public_pem(private_key(kind)))
    return private, public


#: Where the first signature of each signed golden input is (issue 14: notes name their line and column).
SIGNATURE_0 = {"weather.0.3.json": "25:5", "invoice.1.0.json": "26:5"}


def copy(tmp_path: Path, name: str) -> Path:
    target = tmp_path / name
    shutil.copyfile(GOLDEN / name, target)
    return target


def kids(path: Path) -> list[str]:
    return [json.loads(unb64(item["protected"]))["kid"] for item in json.loads(path.read_text())["signatures"]]


# -- the golden fixtures ---------------------------------------------------------------

@pytest.mark.parametrize("name", ["weather.0.3.json", "invoice.1.0.json"])
def test_golden_inputs_verify_and_re_signing_reproduces_them(name: str) -> None:
    result = invoke("verify", "--jwks", TEST_JWKS, GOLDEN / name)
    assert result.exit_code == 0, result.output
    assert result.stdout == f"{GOLDEN / name}: /signatures/0: verified (EdDSA, key \"{TEST_KID}\" from {TEST_JWKS})\n"
    card = json.loads((GOLDEN / name).read_text())
    request = signing.signing_request(str(TEST_KEY))
    assert signing.sign(card, request) == card["signatures"][0]  # Ed25519 is deterministic


@pytest.mark.parametrize(("command", "source", "expected"), [
    ("upgrade", "weather.0.3.json", "weather.1.0.json"),
    ("downgrade", "invoice.1.0.json", "invoice.0.3.json"),
])
def test_migration_drops_the_signature_with_a_note(tmp_path: Path, command: str, source: str, expected: str) -> None:
    card = copy(tmp_path, source)
    result = invoke(command, card)
    assert result.exit_code == 0, result.output
    assert card.read_text() == (GOLDEN / expected).read_text()
    assert (f"lossy: [signatures] /signatures/0: the signature of key \"{TEST_KID}\" dropped: the migrated card is "
            "different content and would not verify") in result.stderr
    unsigned = invoke("verify", "--jwks", TEST_JWKS, card)
    assert unsigned.exit_code == 1 and unsigned.stdout == f"{card}: no signatures\n"


@pytest.mark.parametrize(("command", "source"), [("upgrade", "weather.0.3.json"), ("downgrade", "invoice.1.0.json")])
def test_kept_signatures_no_longer_verify(tmp_path: Path, command: str, source: str) -> None:
    card = copy(tmp_path, source)
    assert invoke(command, "--keep-signatures", card).exit_code == 0
    result = invoke("verify", "--jwks", TEST_JWKS, card)
    assert result.exit_code == 1
    assert f"{card}: /signatures/0: failed [content-changed]: the card is not what key \"{TEST_KID}\" signed" in result.stdout


@pytest.mark.parametrize(("command", "source", "expected"), [
    ("upgrade", "weather.0.3.json", "weather.1.0.json"),
    ("downgrade", "invoice.1.0.json", "invoice.0.3.json"),
])
def test_migration_with_sign_key_writes_a_card_that_verifies(tmp_path: Path, command: str, source: str,
                                                              expected: str) -> None:
    private, public = keys(tmp_path)
    card = copy(tmp_path, source)
    result = invoke(command, "--sign-key", private, "--kid", "new-key", "-v", card)
    assert result.exit_code == 0, result.output
    # issue 14: the new signature's note is placed at the input's first signature, the place it takes
    assert f"{card}:{SIGNATURE_0[source]}: info: [sign] /signatures/0: signed (ES256, key \"new-key\")" in result.stderr
    assert kids(card) == ["new-key"]  # the old signature is dropped, the new one added
    signed = json.loads(card.read_text())
    assert {k: v for k, v in signed.items() if k != "signatures"} == json.loads((GOLDEN / expected).read_text())
    text = card.read_text()
    assert text.startswith((GOLDEN / expected).read_text().rstrip()[:-1].rstrip())  # the layout is kept
    verified = invoke("verify", "--key", public, card)
    assert verified.exit_code == 0, verified.output
    assert verified.stdout == f"{card}: /signatures/0: verified (ES256, key \"new-key\" from {public})\n"


def test_sign_key_with_keep_signatures_appends(tmp_path: Path) -> None:
    private, public = keys(tmp_path, "Ed25519")
    card = copy(tmp_path, "weather.0.3.json")
    assert invoke("upgrade", "--keep-signatures", "--sign-key", private, "--kid", "new", card).exit_code == 0
    assert kids(card) == [TEST_KID, "new"]
    result = invoke("verify", "--key", public, "--jwks", TEST_JWKS, card)
    assert result.exit_code == 0  # one good signature verifies the card
    assert "/signatures/0: failed [content-changed]" in result.stdout
    assert "/signatures/1: verified (EdDSA, key \"new\"" in result.stdout


def test_wild_signatures_are_dropped_as_not_jws(tmp_path: Path) -> None:
    card = copy(tmp_path, "wild.0.3.json")
    before = invoke("verify", "--jwks", TEST_JWKS, card)
    assert before.exit_code == 1
    assert [line.split(": ", 3)[2] for line in before.stdout.splitlines()] == ["failed [not-a-jws]"] * 3
    assert "an EIP-191 signature" in before.stdout and "{algorithm, keyId, jws} kind" in before.stdout
    assert "a hex string" in before.stdout
    result = invoke("upgrade", card)
    assert result.exit_code == 0
    assert card.read_text() == (GOLDEN / "wild.1.0.json").read_text()
    lossy = [line for line in result.stderr.splitlines() if "[signatures]" in line]
    assert lossy == [f"{card}:{(14, 20, 25)[i]}:5: lossy: [signatures] /signatures/{i}: a signature that is not a JWS dropped: the "
                     "migrated card is different content and would not verify" for i in range(3)]


# -- re-signing inside migrations ---------------------------------------------------------

def test_worker_processes_sign_too(tmp_path: Path) -> None:
    private, public = keys(tmp_path, "RSA")
    for index in range(4):
        (tmp_path / f"c{index}.agent-card.json").write_text(json.dumps(base_card(name=f"Card {index}"), indent=2))
    result = invoke("upgrade", "-j", "2", "--sign-key", private, "--kid", "rsa", tmp_path)
    assert result.exit_code == 0, result.output
    verified = invoke("verify", "--key", public, tmp_path)
    assert verified.exit_code == 0 and verified.stderr.endswith("4 verified, 0 not verified\n")


def test_the_patch_and_report_include_the_signature(tmp_path: Path) -> None:
    private, _ = keys(tmp_path, "Ed25519")
    source = GOLDEN / "weather.0.3.json"
    result = invoke("upgrade", "--patch", "--sign-key", private, "--kid", "p", source)
    assert result.exit_code == 0, result.output
    patch = json.loads(result.stdout)
    assert patch[-1]["path"] == "/signatures" and patch[-1]["op"] == "add"
    output = jsonpatch.apply_patch(json.loads(source.read_text()), patch)
    assert signing.verify(output, signing.load_keys(public_pem(private_key("Ed25519")).decode(), "x"))[0].valid
    report = tmp_path / "report.json"
    assert invoke("upgrade", "--report", report, "-o", tmp_path / "out", "--sign-key", private, "--kid", "p",
                  source).exit_code == 0
    (entry,) = json.loads(report.read_text())["cards"]
    assert entry["transforms"][-1] == "sign"
    assert {"severity": "info", "transform": "sign", "pointer": "/signatures/0",
            "message": "signed (EdDSA, key \"p\")", "line": 25, "column": 5} in entry["notes"]


def test_unchanged_and_refused_cards_are_not_signed(tmp_path: Path) -> None:
    private, _ = keys(tmp_path)
    current = copy(tmp_path, "weather.1.0.json")
    refused = tmp_path / "refused.agent-card.json"
    refused.write_text(json.dumps({k: v for k, v in base_card().items() if k != "name"}))
    before = (current.read_text(), refused.read_text())
    result = invoke("upgrade", "--sign-key", private, "--kid", "k", current, refused)
    assert result.exit_code == 123
    assert (current.read_text(), refused.read_text()) == before
    assert "[sign]" not in result.stderr


def test_sign_warns_about_verifiers_that_drop_empty_values(tmp_path: Path) -> None:
    private, _ = keys(tmp_path)
    card = tmp_path / "agent-card.json"
    card.write_text(json.dumps(base_card(securitySchemes={"key": {"type": "apiKey", "in": "header", "name": "K"}},
                                         security=[{"key": []}]), indent=2))
    result = invoke("upgrade", "--sign-key", private, "--kid", "k", card)
    assert result.exit_code == 0
    assert (f"{card}:1:1: warning: [sign] /signatures/0: it has empty or default values (/capabilities, "
            "/securityRequirements/0/schemes/key), which verifiers built on the official a2a-sdk drop before "
            "canonicalizing: they will not accept this signature\n") in result.stderr


@pytest.mark.parametrize(("args", "message"), [
    (["--kid", "k"], "Error: --kid only make sense with --sign-key\n"),
    (["--sign-key", "{pem}"], "Error: {pem}: the key has no 'kid': name it with --kid (spec 8.4.2: the header must "
                              "have one)\n"),
    (["--sign-key", "{pub}", "--kid", "k"], "Error: {pub}: no private key: signing needs exactly one private key in "
                                            "the file\n"),
    (["--sign-key", "{pem}", "--kid", "k", "--alg", "RS256"], "Error: {pem}: RS256 needs an RSA key, this is an EC "
                                                              "key on P-256\n"),
    (["--sign-key", "{pem}", "--kid", "k", "--jku", "http://example.com/k"],
     "Error: jku \"http://example.com/k\": a jku must be an https URL (RFC 7515 4.1.2; plain http only for localhost)\n"),
    (["--sign-key", "{missing}", "--kid", "k"], "Error: {missing}: cannot read the key: No such file or directory\n"),
])
def test_signing_usage_errors_are_one_line_and_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    private, public = keys(tmp_path)
    names = {"pem": str(private), "pub": str(public), "missing": str(tmp_path / "nope.pem")}
    card = copy(tmp_path, "weather.0.3.json")
    before = card.read_text()
    result = invoke("upgrade", *[arg.format(**names) for arg in args], card)
    assert (result.exit_code, result.stderr) == (2, message.format(**names))
    assert card.read_text() == before


def test_without_the_sign_extra_the_error_says_what_to_install(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    private, public = keys(tmp_path)
    monkeypatch.setitem(sys.modules, "joserfc", None)
    card = copy(tmp_path, "weather.0.3.json")
    expected = "Error: signing needs joserfc, which is not installed: pip install 'a2a-migrate[sign]'\n"
    for args in (["upgrade", "--sign-key", private, "--kid", "k", card], ["sign", "--key", private, "--kid", "k", card],
                 ["verify", "--key", public, card]):
        result = invoke(*args)
        assert (result.exit_code, result.stderr) == (2, expected), args
    assert card.read_text() == (GOLDEN / "weather.0.3.json").read_text()
    assert invoke("upgrade", card).exit_code == 0  # migrating without signing needs none of it


# -- the sign command ------------------------------------------------------------------

def test_sign_keeps_the_layout_and_writes_atomically(tmp_path: Path) -> None:
    private, public = keys(tmp_path)
    text = ('{\r\n    "name": "Météo",\r\n    "description": "Prévisions \\u2014 forecasts",\r\n'
            '    "version": "1.0.0",\r\n    "capabilities": {"streaming": true},\r\n'
            '    "skills": [{"id": "f", "name": "F", "description": "d", "tags": ["a", "b"]}]\r\n}\r\n')
    card = tmp_path / "agent-card.json"
    card.write_text(text, newline="")
    os.chmod(card, 0o640)
    result = invoke("sign", "--key", private, "--kid", "k", card)
    assert result.exit_code == 0, result.output
    assert result.stderr == f"{card}: signed (ES256, key \"k\") at /signatures/0\n1 card signed\n"
    new = card.read_bytes().decode()
    head = text[: text.rindex("]") + 1]
    assert new.startswith(head + ',\r\n    "signatures": [')  # members, escapes and CRLF as they were
    assert "\n" not in new.replace("\r\n", "")
    assert os.stat(card).st_mode & 0o777 == 0o640
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted(["agent-card.json", private.name, public.name])
    assert invoke("verify", "--key", public, card).exit_code == 0


def test_sign_again_replaces_the_same_kid_and_replace_drops_the_others(tmp_path: Path) -> None:
    (p256, _), (ed, _) = keys(tmp_path), keys(tmp_path, "Ed25519")
    card = copy(tmp_path, "invoice.1.0.json")
    assert invoke("sign", "--key", p256, "--kid", "a", card).exit_code == 0
    assert invoke("sign", "--key", p256, "--kid", "a", card).exit_code == 0
    assert kids(card) == [TEST_KID, "a"]
    assert invoke("sign", "--key", ed, "--kid", "b", "--replace", card).exit_code == 0
    assert kids(card) == ["b"]


def test_sign_yaml_keeps_comments(tmp_path: Path) -> None:
    private, public = keys(tmp_path)
    card = tmp_path / "agent-card.yaml"
    card.write_text("# Weather\nname: Weather  # shown to users\ndescription: Forecasts\nversion: 1.0.0\n")
    assert invoke("sign", "--key", private, "--kid", "y", card).exit_code == 0
    text = card.read_text()
    assert text.startswith("# Weather\nname: Weather  # shown to users\n") and "signatures:" in text
    assert invoke("verify", "--key", public, card).exit_code == 0


def test_sign_stdin_folders_and_failures(tmp_path: Path) -> None:
    private, public = keys(tmp_path)
    result = invoke("sign", "--key", private, "--kid", "s", "-", stdin=(GOLDEN / "weather.1.0.json").read_text())
    assert result.exit_code == 0
    assert signing.verify(json.loads(result.stdout), signing.load_keys(public.read_text(), "p"))[0].valid
    folder = tmp_path / "cards"
    (folder / "a").mkdir(parents=True)
    shutil.copyfile(GOLDEN / "weather.1.0.json", folder / "a" / "agent-card.json")
    (folder / "b.agent-card.json").write_text('{"name": "x", "signatures": "not an array"}')
    (folder / "c.agent-card.json").write_text("{broken")
    result = invoke("sign", "--key", private, "--kid", "s", folder)
    assert result.exit_code == 123
    assert f"{folder / 'b.agent-card.json'}: error: 'signatures' is not an array: fix it, or sign with --replace" in result.stderr
    assert f"{folder / 'c.agent-card.json'}: error: line 1 column 2: not valid JSON" in result.stderr
    assert result.stderr.endswith("1 card signed, 2 failed\n")
    assert kids(folder / "a" / "agent-card.json") == ["s"]


# -- the verify command ----------------------------------------------------------------

def test_verify_exit_codes_and_json(tmp_path: Path) -> None:
    good, unsigned = GOLDEN / "invoice.1.0.json", GOLDEN / "weather.1.0.json"
    tampered = tmp_path / "tampered.json"
    tampered.write_text((GOLDEN / "invoice.1.0.json").read_text().replace("1.2.0", "1.2.1"))
    assert invoke("verify", "--jwks", TEST_JWKS, good).exit_code == 0
    result = invoke("verify", "--jwks", TEST_JWKS, good, unsigned, tampered, tmp_path / "missing.json")
    assert result.exit_code == 123
    assert result.stderr.endswith("1 verified, 2 not verified, 1 failed\n")
    result = invoke("verify", "--format", "json", "--key", TEST_JWKS, good, tampered)
    assert result.exit_code == 1
    cards = json.loads(result.stdout)["cards"]
    assert [(card["verified"], [s["reason"] for s in card["signatures"]]) for card in cards] == [
        (True, [None]), (False, ["content-changed"])]
    assert cards[0]["signatures"][0] == {"pointer": "/signatures/0", "valid": True, "reason": None, "kid": TEST_KID,
                                         "alg": "EdDSA", "message": f"verified (EdDSA, key \"{TEST_KID}\" from {TEST_JWKS})",
                                         "line": 26, "column": 5}  # the JSON findings have places


def test_verify_needs_keys_and_names_a_singular_signature(tmp_path: Path) -> None:
    result = invoke("verify", GOLDEN / "invoice.1.0.json")
    assert (result.exit_code, result.stderr) == (2, "Error: give the keys to check with: --key FILE, --jwks FILE or "
                                                    "--fetch-jku\n")
    card = tmp_path / "card.json"
    card.write_text(json.dumps(base_card(signature="0x99e3")))
    result = invoke("verify", "--jwks", TEST_JWKS, card)
    assert result.stdout == f"{card}: no signatures (its 'signature' member is not the spec's 'signatures')\n"


def test_verify_fetches_a_jku_only_when_asked(tmp_path: Path, server: JwksServer) -> None:
    private, _ = keys(tmp_path)
    (key,) = signing.load_keys(public_pem(private_key("P-256")).decode(), "x")
    url = server.json("/jwks.json", {"keys": [dict(key.jwk.as_dict(), kid="j")]})
    card = copy(tmp_path, "invoice.1.0.json")
    assert invoke("sign", "--key", private, "--kid", "j", "--jku", url, "--replace", card).exit_code == 0
    offline = invoke("verify", "--jwks", TEST_JWKS, card)
    assert offline.exit_code == 1 and server.hits["/jwks.json"] == 0
    assert f"failed [wrong-key]: no key given has kid \"j\" (given: \"{TEST_KID}\"); its jku is {url} (--fetch-jku " \
           "fetches it)" in offline.stdout
    online = invoke("verify", "--fetch-jku", card)
    assert online.exit_code == 0, online.output
    assert online.stdout == f"{card}: /signatures/0: verified (ES256, key \"j\" from jku {url})\n"
    small = invoke("verify", "--fetch-jku", "--jku-max-bytes", "10", card)
    assert small.exit_code == 1 and "fetching its jku failed: " in small.stdout and "limit of 10" in small.stdout


def test_verify_jku_time_limit(tmp_path: Path, server: JwksServer) -> None:
    from test_signing import slow

    private, _ = keys(tmp_path)
    server.routes["/slow.json"] = slow(10, server.stop)
    card = copy(tmp_path, "invoice.1.0.json")
    url = server.url("/slow.json")
    assert invoke("sign", "--key", private, "--kid", "j", "--jku", url, "--replace", card).exit_code == 0
    started = time.monotonic()
    result = invoke("verify", "--fetch-jku", "--jku-timeout", "0.3", card)
    assert time.monotonic() - started < 2.0
    assert result.exit_code == 1
    assert f"fetching its jku failed: {url}: no complete answer within 0.3 s (--jku-timeout)" in result.stdout


def test_verify_writes_nothing(tmp_path: Path) -> None:
    card = copy(tmp_path, "invoice.1.0.json")
    before = card.stat().st_mtime_ns, card.read_bytes()
    assert invoke("verify", "--jwks", TEST_JWKS, card).exit_code == 0
    assert (card.stat().st_mtime_ns, card.read_bytes()) == before
