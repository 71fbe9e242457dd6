import base64
import json

from transform_helpers import base_card, brief, run

from a2a_migrate.transforms import signatures


def jws(header):
    protected = base64.urlsafe_b64encode(json.dumps(header).encode()).decode().rstrip("=")
    return {"protected": protected, "signature": "c2ln"}


def test_signatures_of_a_changed_card_are_dropped_naming_the_key() -> None:
    card = base_card(signatures=[jws({"alg": "ES256", "kid": "key-1"}), {"protected": "EIP-191", "signature": "0x1"}])
    changed = dict(card, name="Renamed")  # stands for what the chain changed before this transform
    out, notes = _run_after_change(card, changed)
    assert "signatures" not in out
    assert brief(notes) == [("lossy", "/signatures/0"), ("lossy", "/signatures/1")]
    assert '"key-1"' in notes[0].message and "not a JWS" in notes[1].message


def test_keep_signatures_warns_instead() -> None:
    card = base_card(signatures=[jws({"alg": "ES256"})])
    out, notes = _run_after_change(card, dict(card, name="Renamed"), keep_signatures=True)
    assert out["signatures"] == card["signatures"]
    assert brief(notes) == [("warning", "/signatures/0")]


def test_an_unchanged_card_keeps_its_signatures() -> None:
    card = base_card(signatures=[jws({"alg": "ES256", "kid": "k"})])
    assert run(signatures, card) == (card, [])


def _run_after_change(original, changed, **options):
    import copy

    from a2a_migrate.context import Context, Options

    working = copy.deepcopy(changed)
    ctx = Context(Options(**options), original=original)
    signatures.up(working, ctx)
    return working, ctx.notes
