"""A migration plan as a Markdown review, for a pull request.

At the top a summary: how many cards and operations, and the lossy, assumed
and warning notes of each transform. Then one section per card: its versions,
a table of the planned changes (pointer, operation, transform, note), the
notes no operation carries, and the unified diff in a fenced block. Every
note of the plan appears once. Text from cards is escaped, so a description
holding ``|`` or backticks cannot break the tables or the fences.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

from a2a_migrate.context import Note
from a2a_migrate.plans import CardPlan, Plan, related

_VALUE_WIDTH = 60
_ACTIVE = re.compile(r"([\\`*_\[\]<>|#!~&])")
_WORDS = {"up": "Upgrade", "down": "Downgrade"}


def render(plan: Plan) -> str:
    """The whole review."""
    done = _WORDS[plan.direction]
    parts = [f"# a2a-migrate review: {done.lower()} to {plan.target_version}\n", _summary(plan)]
    parts.extend(_card(card, plan.target_version) for card in plan.cards)
    return "\n".join(parts)


def _summary(plan: Plan) -> str:
    cards = plan.cards
    changed = sum(card.status == "changed" for card in cards)
    failed = sum(card.status == "failed" for card in cards)
    operations = sum(len(card.planned) for card in cards)
    notes = [note for card in cards for note in card.notes]
    lines = [
        f"- **{len(cards)} card{_s(len(cards))}**: {changed} to change, {len(cards) - changed - failed} already "
        f"{plan.target_version}, {failed} refused",
        f"- **{operations} operation{_s(operations)}**",
        f"- notes: {_severities(notes)}",
    ]
    if plan.options:
        lines.append("- options: " + ", ".join(f"{_code(k)} = {_code(json.dumps(v))}" for k, v in plan.options.items()))
    rows = _by_transform(cards)
    if rows:
        lines += ["", "| transform | operations | lossy | assumed | warning |", "|---|---:|---:|---:|---:|"]
        lines += [f"| {_text(name)} | {ops} | {lossy} | {assumed} | {warning} |" for name, ops, lossy, assumed, warning in rows]
    return "## Summary\n\n" + "\n".join(lines) + "\n"


def _by_transform(cards: Sequence[CardPlan]) -> list[tuple[str, int, int, int, int]]:
    names: dict[str, list[int]] = {}
    for card in cards:
        for planned in card.planned:
            names.setdefault(planned.transform, [0, 0, 0, 0])[0] += 1
        for note in card.notes:
            column = {"lossy": 1, "assumed": 2, "warning": 3}.get(note.severity)
            if column is not None:
                names.setdefault(note.transform, [0, 0, 0, 0])[column] += 1
    return [(name, *counts) for name, counts in names.items()]  # type: ignore[misc]


def _card(card: CardPlan, target: str) -> str:
    lines = [f"## {_code(card.path)}", ""]
    versions = f"{card.source_version or '?'} → {card.target_version or target}"
    if card.status == "failed":
        lines.append(f"**Refused** ({versions}): {_text(card.error or 'see the error notes')}")
    elif not card.planned:
        lines.append(f"Nothing to change ({versions}).")
    else:
        lines.append(f"{versions} · {len(card.planned)} operation{_s(len(card.planned))} · notes: {_severities(card.notes)}")
    homes = _homes(card)
    shown = set(homes)
    if card.planned:
        lines += ["", "| pointer | operation | transform | note |", "|---|---|---|---|"]
        for row, planned in enumerate(card.planned):
            own = [_note(card.notes[i]) for i in planned.notes if homes.get(i) == row]
            elsewhere = sorted({homes[i] for i in planned.notes if i in homes and homes[i] != row})
            if not own and elsewhere:
                own = ["see " + ", ".join(_code(card.planned[r].op.get("path", "")) for r in elsewhere)]
            lines.append(f"| {_code(planned.op.get('path', ''))} | {_operation(planned.op)} | {_text(planned.transform)} "
                         f"| {'<br>'.join(own)} |")
    rest = [note for i, note in enumerate(card.notes) if i not in shown]
    if rest:
        heading = "Notes" if not card.planned else "Other notes"
        lines += ["", f"{heading}:", ""] + [f"- {_note(note, pointer=True)}" for note in rest]
    diff = _diff(card)
    if diff:
        lines += ["", _fence(diff, "diff")]
    return "\n".join(lines) + "\n"


def _homes(card: CardPlan) -> dict[int, int]:
    """The row each note is shown in: the first operation at its pointer, else the first it explains."""
    homes: dict[int, int] = {}
    for row, planned in enumerate(card.planned):
        places = [planned.op.get("path"), planned.op.get("from")]
        for i in planned.notes:
            if 0 <= i < len(card.notes) and i not in homes and any(
                    isinstance(p, str) and related(card.notes[i].pointer, p) for p in places):
                homes[i] = row
    for row, planned in enumerate(card.planned):
        for i in planned.notes:
            if 0 <= i < len(card.notes):
                homes.setdefault(i, row)
    return homes


def _diff(card: CardPlan) -> str:
    if card.outcome is None or card.outcome.status != "changed":
        return ""
    from a2a_migrate.batch import unified_diff

    return unified_diff(card.outcome)


def _operation(op: dict[str, Any]) -> str:
    name = str(op.get("op", "?"))
    if name in ("move", "copy"):
        return f"{name} from {_code(op.get('from', ''))}"
    if "value" in op and name != "remove":
        value = json.dumps(op["value"], ensure_ascii=False)
        if len(value) > _VALUE_WIDTH:
            value = value[: _VALUE_WIDTH - 1] + "…"
        return f"{name} {_code(value)}"
    return name


def _note(note: Note, pointer: bool = False) -> str:
    where = f"{_code(note.pointer)} " if pointer and note.pointer else ""
    tag = f"[{_text(note.transform)}] " if pointer else ""
    return f"**{note.severity}** {tag}{where}{_text(note.message)}"


def _severities(notes: Iterable[Note]) -> str:
    counts: dict[str, int] = {}
    for note in notes:
        counts[note.severity] = counts.get(note.severity, 0) + 1
    order = ("error", "lossy", "assumed", "warning", "info")
    return ", ".join(f"{counts[s]} {s}" for s in order if s in counts) or "none"


def _text(text: str) -> str:
    """Plain text for a paragraph or a table cell: Markdown punctuation escaped, on one line."""
    return _ACTIVE.sub(r"\\\1", " ".join(str(text).split()))


def _code(text: str) -> str:
    """A code span that holds any text (backticks included) inside a table cell."""
    text = " ".join(str(text).split()) or " "
    run = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * (run + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or run else ""
    return f"{fence}{pad}{text.replace('|', chr(92) + '|')}{pad}{fence}"


def _fence(text: str, info: str) -> str:
    """A fenced code block longer than any backtick run in ``text``."""
    run = max((len(m) for m in re.findall(r"`{3,}", text)), default=0)
    fence = "`" * max(3, run + 1)
    return f"{fence}{info}\n{text if text.endswith(chr(10)) else text + chr(10)}{fence}"


def _s(count: int) -> str:
    return "" if count == 1 else "s"
