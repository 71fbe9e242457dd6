"""The signing commands (``sign``, ``verify``) and the re-signing options of migrations.

:func:`sign_options` adds ``--sign-key/--kid/--jku/--alg`` to ``upgrade`` and
``downgrade``; :func:`pop_signing_request` turns them into a
:class:`~a2a_migrate.signing.SigningRequest`, which
:func:`a2a_migrate.batch.migrate_text` hands to :func:`a2a_migrate.signing.sign_migrated`
before a migrated card is rendered. The cryptography lives in
:mod:`a2a_migrate.signing` and is imported only when a key is used.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from a2a_migrate import discover, io
from a2a_migrate.cli.common import (EXIT_CHECK, EXIT_INPUT, EXIT_OK, Inputs, UsageExit, input_options, paths_argument,
                                    refuse_shared_stdout)
from a2a_migrate.signing_choices import ALGORITHMS, JKU_MAX_BYTES, JKU_TIMEOUT, SDK_FORM, SIGNED_FORMS, SPEC_FORM

if TYPE_CHECKING:  # the signing service is imported only when a command signs or verifies
    from a2a_migrate import signing
    from a2a_migrate.context import Options

__all__ = ["check_signed_form", "pop_signing_request", "sign_command", "sign_options", "verify_command",
           "with_signing"]

F = TypeVar("F", bound=Callable[..., Any])



_ALG = click.Choice(list(ALGORITHMS))
_FORM = click.Choice(list(SIGNED_FORMS))
_SIGNED_FORM_HELP = ("What the signature covers: spec (default) the card as published, which verifiers that follow "
                     "spec 8.4 check; sdk the form the official a2a-sdk's verifier checks (empty values, defaults "
                     "and members 1.0 does not define left out). Where the two differ, each verifier refuses the "
                     "other's signature. sdk needs a 1.0 card.")


def sign_options(command: F) -> F:
    """Add ``--sign-key``, ``--kid``, ``--jku``, ``--alg`` and ``--signed-form`` to a migration command."""
    decorators = [
        click.option("--sign-key", "sign_key", metavar="FILE", type=click.Path(dir_okay=False),
                     help="Sign each card written with this private key (PEM or JWK file); old signatures are "
                          "dropped unless --keep-signatures. Needs the 'sign' extra."),
        click.option("--kid", "sign_kid", metavar="ID",
                     help="Key id for the signature's header (default: the JWK's kid)."),
        click.option("--jku", "sign_jku", metavar="URL", help="URL of the JWK Set that holds the public key (https)."),
        click.option("--alg", "sign_alg", type=_ALG, default=None,
                     help="JWS algorithm (default: from the key: ES256/ES384/ES512 by curve, RS256, EdDSA)."),
        click.option("--signed-form", "sign_form", type=_FORM, default=None, help=_SIGNED_FORM_HELP),
    ]
    for decorator in reversed(decorators):
        command = decorator(command)
    return command


def with_signing(options: Options, request: signing.SigningRequest | None) -> Options:
    """``options`` carrying ``request``: :func:`a2a_migrate.signing.with_signing`, imported only to sign."""
    if request is None:
        return options
    from a2a_migrate import signing

    return signing.with_signing(options, request)


def pop_signing_request(options: dict[str, Any]) -> signing.SigningRequest | None:
    """Take the :func:`sign_options` values out of a command's keyword arguments."""
    key_file = options.pop("sign_key", None)
    kid, jku, alg = options.pop("sign_kid", None), options.pop("sign_jku", None), options.pop("sign_alg", None)
    form = options.pop("sign_form", None)
    if key_file is None:
        given = [name for name, value in (("--kid", kid), ("--jku", jku), ("--alg", alg), ("--signed-form", form))
                 if value is not None]
        if given:
            raise UsageExit(f"{', '.join(given)} only make sense with --sign-key")
        return None
    return _request(key_file, kid, alg, jku, form or SPEC_FORM)


def check_signed_form(request: signing.SigningRequest | None, target: str) -> None:
    """Refuse ``--signed-form sdk`` for a migration that writes no 1.0 card (``target``: what it writes)."""
    if request is not None and request.signed_form == SDK_FORM and target != "1.0":
        raise UsageExit(f"--signed-form sdk signs 1.0 cards, and this run writes {target} cards: "
                                "the a2a-sdk reads those through a 0.3 mapping that is not modelled")


def _request(key_file: str, kid: str | None, alg: str | None, jku: str | None,
             signed_form: str) -> signing.SigningRequest:
    from a2a_migrate import signing

    try:
        return signing.signing_request(key_file, kid, alg, jku, signed_form)
    except signing.SigningError as error:
        raise UsageExit(str(error)) from None


@click.command("sign")
@paths_argument("CARD...")
@click.option("--key", "key_file", required=True, metavar="FILE", type=click.Path(dir_okay=False),
              help="The private key: PEM (PKCS#8, SEC1 or PKCS#1, unencrypted) or a JWK file.")
@click.option("--kid", metavar="ID", help="Key id for the signature's header (default: the JWK's kid).")
@click.option("--jku", metavar="URL", help="URL of the JWK Set that holds the public key (https).")
@click.option("--alg", type=_ALG, default=None,
              help="JWS algorithm (default: from the key: ES256/ES384/ES512 by curve, RS256, EdDSA).")
@click.option("--signed-form", type=_FORM, default=SPEC_FORM, help=_SIGNED_FORM_HELP)
@click.option("--replace", is_flag=True, help="Remove the card's existing signatures first.")
@input_options("sign")
def sign_command(paths: Sequence[str], key_file: str, kid: str | None, jku: str | None, alg: str | None,
                 signed_form: str, replace: bool, include: Sequence[str], exclude: Sequence[str],
                 max_file_size: int) -> None:
    """Sign Agent Cards (spec 8.4): a detached JWS over the RFC 8785 form of the card.

    The signature is added to the card's signatures (one of the same kid is
    replaced), in place and atomically, keeping the file's layout. CARD is a
    card file, a folder (its card files), - (stdin to stdout) or an https://
    URL (to stdout). With --signed-form sdk it signs the form the official
    a2a-sdk's verifier checks.
    """
    from a2a_migrate import signing

    refuse_shared_stdout(paths, "sign them one at a time")  # a card read from stdin or a URL goes to stdout
    request = _request(key_file, kid, alg, jku, signed_form)
    inputs = Inputs(paths, include, exclude, max_file_size, remove_stale=True)  # sign writes cards, as upgrade does
    signed = 0
    for card in inputs:
        assert card.document is not None  # Inputs yields only cards that parsed
        document, name = card.document, card.name
        try:
            pointer, _ = signing.add_signature(document.data, signing.sign(document.data, request), replace=replace)
            text = document.render()
            if name == "-" or discover.is_url(name):  # never "in place": there is no place to write to
                sys.stdout.write(text)
            else:
                io.write_atomic(Path(name), text)
        except signing.MissingExtra as error:
            raise UsageExit(str(error)) from None
        except (io.CardError, signing.SigningError) as error:
            inputs.fail(name, str(error))
            continue
        signed += 1
        click.echo(f"{name}: signed ({request.describe()}) at {pointer}", err=True)
        for text in signing.interop_warnings(document.data, signed_form):
            click.echo(f"{name}: warning: {text}", err=True)
    inputs.empty()
    click.echo(inputs.summary(f"{signed} {'card' if signed == 1 else 'cards'} signed"), err=True)
    sys.exit(EXIT_INPUT if inputs.failed else EXIT_OK)


@click.command("verify")
@paths_argument("CARD...")
@click.option("--key", "key_files", multiple=True, metavar="FILE", type=click.Path(dir_okay=False),
              help="A public key: PEM (key or certificate; a private key works too) or JWK / JWK Set. Repeatable.")
@click.option("--jwks", "jwks_files", multiple=True, metavar="FILE", type=click.Path(dir_okay=False),
              help="A file holding a JWK Set; keys are matched by kid. Repeatable.")
@click.option("--fetch-jku", is_flag=True,
              help="Fetch the JWK Set at each signature's jku (https; never followed through redirects). Its keys "
                   "prove only that whoever serves that URL signed: trust only jku URLs you recognise.")
@click.option("--jku-timeout", type=click.FloatRange(min=0.01), default=JKU_TIMEOUT, show_default=True,
              metavar="SECONDS", help="Time limit for fetching one jku, all of it.")
@click.option("--jku-max-bytes", type=click.IntRange(min=1), default=JKU_MAX_BYTES, show_default=True,
              metavar="N", help="Size limit of a fetched JWK Set.")
@click.option("--signed-form", type=_FORM, default=SPEC_FORM,
              help="What a valid signature covers: spec (default) the card as published, as verifiers that follow "
                   "spec 8.4 check; sdk the form the official a2a-sdk's verifier checks.")
@click.option("--format", "output_format", type=click.Choice(["text", "json", "github"]), default="text",
              help="text: one line per signature on stdout; json: one document for machines; github: GitHub Actions "
                   "annotations of what failed.")
@input_options("verify")
def verify_command(paths: Sequence[str], key_files: Sequence[str], jwks_files: Sequence[str], fetch_jku: bool,
                   jku_timeout: float, jku_max_bytes: int, signed_form: str, output_format: str,
                   include: Sequence[str], exclude: Sequence[str], max_file_size: int) -> None:
    """Check the signatures of Agent Cards (spec 8.4.3).

    One line per signature: verified, or failed with a reason: not-a-jws,
    unsupported (alg), wrong-key, content-changed, or other-form (it signs a
    canonical form other than the spec's, such as the a2a-sdk's). Exit 1 when
    any card has no valid signature, 123 when a card cannot be read or a PATH
    holds no card (a signature check that checked nothing must not pass).
    """
    from a2a_migrate import signing

    if not (key_files or jwks_files or fetch_jku):
        raise UsageExit("give the keys to check with: --key FILE, --jwks FILE or --fetch-jku")
    try:
        keys = [key for path in (*key_files, *jwks_files) for key in signing.load_keys(signing.read_key_file(path), path)]
    except signing.SigningError as error:
        raise UsageExit(str(error)) from None
    fetch = signing.key_fetcher(jku_timeout, jku_max_bytes) if fetch_jku else None
    cards: list[dict[str, Any]] = []
    unverified = 0
    inputs = Inputs(paths, include, exclude, max_file_size)
    for loaded in inputs:
        assert loaded.document is not None  # Inputs yields only cards that parsed
        name, card = loaded.name, io.to_plain(loaded.document.data)
        try:
            checks = signing.verify(card, keys, fetch, signed_form)
        except signing.MissingExtra as error:
            raise UsageExit(str(error)) from None
        verified = any(check.valid for check in checks)
        unverified += not verified
        entries = _located_checks(loaded.document, checks)
        cards.append({"path": name, "verified": verified, "signatures": entries})
        if output_format == "text":
            _print_checks(name, card, checks)
    if output_format == "json":
        click.echo(json.dumps({"cards": cards}, indent=2, ensure_ascii=False))
    elif output_format == "github":  # issue 14: CI formats (cli/ci_formats.py)
        from a2a_migrate.cli import ci_formats

        ci_formats.print_annotations(ci_formats.signature_findings(cards))
    empty = inputs.empty()
    click.echo(inputs.summary(f"{len(cards) - unverified} verified", f"{unverified} not verified"), err=True)
    sys.exit(EXIT_INPUT if inputs.failed or empty else EXIT_CHECK if unverified else EXIT_OK)


def _located_checks(document: io.Document, checks: Sequence[signing.Check]) -> list[dict[str, Any]]:
    """Each check as JSON, with the line and column of its signature (issue 14)."""
    from a2a_migrate.locate import Locator

    locator = Locator(document)
    entries = []
    for check in checks:
        line, column = locator.place(check.pointer)
        entries.append({**check.as_dict(), "line": line, "column": column})
    return entries


def _print_checks(name: str, card: Any, checks: Sequence[signing.Check]) -> None:
    if not checks:
        singular = " (its 'signature' member is not the spec's 'signatures')" if card.get("signature") else ""
        click.echo(f"{name}: no signatures{singular}")
    for check in checks:
        verdict = check.message if check.valid else f"failed [{check.reason}]: {check.message}"
        click.echo(f"{name}: {check.pointer}: {verdict}")
