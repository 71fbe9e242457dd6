"""The commands that look at cards without changing them: ``detect`` and ``validate``."""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Sequence
from typing import Any

import click

from a2a_migrate import __version__, discover
from a2a_migrate.cli.common import (EXIT_CHECK, EXIT_INPUT, EXIT_OK, Inputs, input_options, paths_argument, place,
                                    severity_word)


@click.command()
@paths_argument()
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text",
              help="text: one line per card on stdout; json: one document for machines.")
@input_options("detect")
def detect(paths: Sequence[str], output_format: str, include: Sequence[str], exclude: Sequence[str],
           max_file_size: int) -> None:
    """Print each card's protocol version, judged by its shape.

    One line per card: PATH: VERSION, where VERSION is 1.0, hybrid (1.0 with
    0.3 members), 0.3, 0.2, 0.1 or unknown. PATH is a card file, a folder
    (searched for cards, as upgrade does), - (stdin) or an https:// URL (a bare
    origin is read at its well-known card names). With --format json,
    one document instead: {"cards": [{"path": PATH, "version": VERSION}, ...]}.
    """
    from a2a_migrate.versions import detect_version

    inputs = Inputs(paths, include, exclude, max_file_size)
    versions: Counter[str] = Counter()
    cards = []
    for card in inputs:
        version = detect_version(card.document.original) if card.document else ""
        versions[version] += 1
        cards.append({"path": card.name, "version": version})
        if output_format == "text":
            click.echo(f"{card.name}: {version}")
    if output_format == "json":
        click.echo(json.dumps({"cards": cards}, indent=2, ensure_ascii=False))
    inputs.empty()
    detected = sum(versions.values())
    parts = [f"{detected} {'card' if detected == 1 else 'cards'} detected"]
    parts += [f"{count} {version}" for version, count in sorted(versions.items())]
    click.echo(inputs.summary(*parts), err=True)
    sys.exit(EXIT_INPUT if inputs.failed else EXIT_OK)


@click.command("validate")
@paths_argument()
@click.option("--version", "version", type=click.Choice(["0.3", "1.0"]), default=None,
              help="Validate against this version instead of the one the card has by shape.")
@click.option("--format", "output_format", type=click.Choice(["text", "json", "github", "sarif"]), default="text",
              help="text: one line per finding on stdout; json: one document for machines; github: GitHub Actions "
                   "annotations; sarif: a SARIF 2.1.0 log (code scanning).")
@click.option("--strict", is_flag=True, help="Warnings make a card invalid too.")
@input_options("validate")
def validate_command(paths: Sequence[str], version: str | None, output_format: str, strict: bool,
                     include: Sequence[str], exclude: Sequence[str], max_file_size: int) -> None:
    """Check cards against the 0.3 JSON Schema or the 1.0 proto's rules, plus lint.

    One line per finding: PATH: error|warning: /pointer: message [rule]. Exit 1
    when any card is invalid (has an error; with --strict, any finding), 123
    when a file cannot be read or a PATH holds no card (a check that checked
    nothing must not pass).
    """
    inputs = Inputs(paths, include, exclude, max_file_size)
    results = [_validate_card(card, version, strict, output_format) for card in inputs]
    invalid = sum(not result["valid"] for result in results)
    if output_format == "json":
        click.echo(json.dumps({"cards": results}, indent=2, ensure_ascii=False))
    elif output_format in ("github", "sarif"):  # issue 14: CI formats (cli/ci_formats.py)
        from a2a_migrate.cli import ci_formats

        findings = ci_formats.validation_findings(results)
        if output_format == "github":
            ci_formats.print_annotations(findings)
        else:
            ci_formats.print_sarif(findings, __version__)
    empty = inputs.empty()
    click.echo(inputs.summary(f"{len(results) - invalid} valid", f"{invalid} invalid"), err=True)
    sys.exit(EXIT_INPUT if inputs.failed or empty else EXIT_CHECK if invalid else EXIT_OK)


def _validate_card(card: discover.Loaded, version: str | None, strict: bool, output_format: str) -> dict[str, Any]:
    """Validate one card, print its findings (text format), and return its entry of the JSON document."""
    from a2a_migrate.locate import Locator
    from a2a_migrate.validation import validate
    from a2a_migrate.versions import detect_version

    assert card.document is not None  # Inputs yields only cards that parsed
    findings = validate(card.document.original, version)
    locator = Locator(card.document)  # issue 14: every finding's line and column, for every format
    entries = []
    for f in findings:
        line, column = locator.place(f.pointer)
        entries.append({"severity": f.severity, "pointer": f.pointer, "message": f.message, "rule": f.rule,
                        "line": line, "column": column})
        if output_format == "text":
            where = place(card.name, line, column)
            click.echo(f"{where} {severity_word(f.severity)}: {f.pointer or '/'}: {f.message} [{f.rule}]")
    return {"path": card.name, "version": version or detect_version(card.document.original),
            "valid": not any(f.severity == "error" or strict for f in findings), "findings": entries}
