"""Output for CI (issue 14): GitHub Actions annotations and SARIF 2.1.0.

``--format github`` prints workflow commands (``::error file=PATH,title=...::message``)
on stdout, which GitHub shows on the file in a pull request; ``--format sarif``
prints one SARIF 2.1.0 log on stdout, for code scanning. Findings carry a JSON
pointer and its line and column in the card (:mod:`a2a_migrate.locate`): the
pointer goes into the title and message of an annotation, and into a SARIF
result's logical location and properties; the line and column into the
annotation's ``line``/``col`` and the result's region (columns in code points).
The commands import this module inside themselves only (the CLI starts lazily).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import quote

import click

Level = Literal["error", "warning", "notice"]

#: A note's or a finding's severity as an annotation level.
LEVELS: dict[str, Level] = {"error": "error", "lossy": "warning", "warning": "warning", "assumed": "notice",
                            "info": "notice"}
#: An annotation level as a SARIF result level.
SARIF_LEVELS = {"error": "error", "warning": "warning", "notice": "note"}
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


@dataclass(frozen=True)
class Finding:
    """One thing a reviewer should see: in file ``path`` (``-``: stdin), at JSON ``pointer``
    (None: about the whole file, such as a card that would change), which is at ``line`` and
    ``column`` of the file when known."""

    level: Level
    path: str
    pointer: str | None
    message: str
    rule: str
    line: int | None = None
    column: int | None = None


def escape_data(text: str) -> str:
    """Escape an annotation's message as GitHub's workflow commands require (``%``, CR, LF)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape an annotation property (``file``, ``title``): the message's escapes plus ``:`` and ``,``."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(finding: Finding) -> str:
    """One workflow command: ``::error file=card.json,title=[rule] /url::/url: message``."""
    where = "" if finding.pointer is None else finding.pointer or "/"
    properties = [f"file={escape_property(finding.path)}"] if finding.path != "-" else []
    if properties and finding.line is not None:  # GitHub places a line only in a file
        properties += [f"line={finding.line}", f"col={finding.column}"]
    properties.append(f"title={escape_property(f'[{finding.rule}] {where}'.rstrip())}")
    message = f"{where}: {finding.message}" if where else finding.message
    return f"::{finding.level} {','.join(properties)}::{escape_data(message)}"


def print_annotations(findings: Iterable[Finding]) -> None:
    """Print each finding as a workflow command on stdout."""
    for finding in findings:
        click.echo(annotation(finding))


def sarif_log(findings: Sequence[Finding], version: str) -> dict[str, Any]:
    """A SARIF 2.1.0 log of one run of a2a-migrate holding ``findings``."""
    rules = sorted({finding.rule for finding in findings})
    driver = {"name": "a2a-migrate", "version": version, "rules": [{"id": rule} for rule in rules]}
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0",
            "runs": [{"tool": {"driver": driver}, "columnKind": "unicodeCodePoints",
                      "results": [_sarif_result(f, rules.index(f.rule)) for f in findings]}]}


def _sarif_result(finding: Finding, rule_index: int) -> dict[str, Any]:
    location: dict[str, Any] = {}
    if finding.path != "-":
        location["physicalLocation"] = {"artifactLocation": {"uri": quote(finding.path.replace("\\", "/"))}}
        if finding.line is not None:
            location["physicalLocation"]["region"] = {"startLine": finding.line, "startColumn": finding.column}
    result = {"ruleId": finding.rule, "ruleIndex": rule_index, "level": SARIF_LEVELS[finding.level],
              "message": {"text": finding.message}}
    if finding.pointer is not None:
        location["logicalLocations"] = [{"fullyQualifiedName": finding.pointer or "/", "kind": "member"}]
        result["properties"] = {"pointer": finding.pointer}
    result["locations"] = [location] if location else []
    return result


def print_sarif(findings: Sequence[Finding], version: str) -> None:
    """Print the SARIF log of ``findings`` on stdout."""
    click.echo(json.dumps(sarif_log(findings, version), indent=2, ensure_ascii=False))


def validation_findings(cards: Iterable[dict[str, Any]]) -> list[Finding]:
    """The findings of ``validate``'s JSON document entries (``path`` and ``findings`` each)."""
    return [Finding(LEVELS[f["severity"]], card["path"], f["pointer"], f["message"], f["rule"], f.get("line"),
                    f.get("column"))
            for card in cards for f in card["findings"]]


def signature_findings(cards: Iterable[dict[str, Any]]) -> list[Finding]:
    """What ``verify`` found wrong: each failed signature (an error unless another one of
    its card verified), and each card with no signature at all."""
    findings = []
    for card in cards:
        level: Level = "warning" if card["verified"] else "error"
        if not card["signatures"]:
            findings.append(Finding("error", card["path"], None, "no signatures", "no-signature"))
        findings += [Finding(level, card["path"], check["pointer"], check["message"], check["reason"] or "failed",
                             check.get("line"), check.get("column"))
                     for check in card["signatures"] if not check["valid"]]
    return findings


def outcome_findings(outcome: Any, shown: set[str], would_change: str | None) -> list[Finding]:
    """What a migration found in one card: its error, its notes of the ``shown`` severities,
    and, as an error, ``would_change`` (``--check``'s message) if the card would change."""
    findings = [Finding("error", outcome.name, None, outcome.error, "error")] if outcome.error else []
    findings += [Finding(LEVELS[note.severity], outcome.name, note.pointer, note.message, note.transform,
                         note.line, note.column)
                 for note in outcome.notes if note.severity in shown]
    if would_change and outcome.status == "changed":
        findings.append(Finding("error", outcome.name, None, would_change, "check"))
    return findings
