"""A migration plan as a Markdown review, sized for a pull request.

The review opens with a summary: a table of totals (cards, operations, notes
by severity), the source and target versions, the operations and notes of
each transform, the refused cards with their reason, and the few cards that
most need a look. Then one folded ``<details>`` section per card: its notes,
most severe first, and its unified diff. Every note of the plan appears once.

A pull request's description or comment holds 65,536 characters. When the
whole review is longer than a budget (:func:`review`'s ``max_chars``), the
main document keeps the summary and the sections of the first cards that fit;
the summary says so and links each other card's section, written to its own
file in a folder beside the main document (``review.md`` -> ``review.md.d/``).

Text from cards (paths, names, messages, diffs) is escaped for where it
lands: Markdown punctuation in paragraphs and table cells, HTML in the
``<summary>`` line, and fences longer than any backtick run in the diff, so a
card holding ``|``, backticks, ``<`` or ``</details>`` cannot break the
structure.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from a2a_migrate.context import SEVERITIES, Note
from a2a_migrate.plans import CardPlan, Plan

#: A pull request description or comment holds 65,536 characters; this leaves room for a reply's text.
DEFAULT_MAX_CHARS = 60_000
#: The first line of every section file: how a later run knows which files in the folder are its own.
MARKER = "<!-- a2a-migrate review section -->"
_SECTION_FILE = re.compile(r"^\d{3,}-[A-Za-z0-9._-]*\.md$")
_ACTIVE = re.compile(r"([\\`*_\[\]<>|#!~&])")
_CARDS = "\n## Cards\n"
_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._]+")  # "-" too, so runs of separators become one
_WORDS = {"up": "upgrade", "down": "downgrade"}
_MOST_SEVERE_FIRST = tuple(reversed(SEVERITIES))
#: Rows of the summary's lists of cards: a summary must stay small whatever the number of cards.
_LISTED = 20
_LOOK = 10
_REASON_WIDTH = 200
_NAME_WIDTH = 80


class BudgetError(Exception):
    """The summary alone is longer than the budget; the message says by how much."""


class WriteError(Exception):
    """A file of the review that could not be written: ``PATH: error: reason``."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path}: error: {reason}")
        self.path = path
        self.reason = reason


@dataclass(frozen=True)
class Review:
    """A rendered review: the main document and, when it was split, the section files.

    ``sections`` maps a file name inside ``folder`` (the folder's name beside
    the main document, as the links spell it) to its text; empty when the
    whole review fits. ``whole`` is the length of the whole review unsplit.
    """

    text: str
    whole: int
    folder: str = ""
    sections: dict[str, str] = field(default_factory=dict)


def render(plan: Plan) -> str:
    """The whole review as one document, whatever its length."""
    return review(plan, 0, "").text


def review(plan: Plan, max_chars: int, name: str) -> Review:
    """The review within ``max_chars`` characters (0: no limit); when longer, split into section files.

    ``name`` is the main document's file name: the sections go to the folder
    beside it named ``NAME.d`` (:func:`sections_folder`), which the links name.

    Split, the main document holds the summary, which says so and links
    each card whose section is a file, then the sections of the first cards
    (in plan order) up to the first that does not fit. When even the links do
    not fit, they go to ``index.md`` in the folder and the summary links it.
    Raises :class:`BudgetError` when the summary alone is over the budget.
    """
    target, count, folder = plan.target_version, len(plan.cards), name + ".d"
    bodies = [_body(card) for card in plan.cards]  # once each: a body holds the card's diff
    inline = [_folded(card, target, body) for card, body in zip(plan.cards, bodies)]
    whole = _head(plan) + _CARDS + "".join(inline)
    if not max_chars or len(whole) <= max_chars:
        return Review(whole, len(whole))
    names = section_names(plan.cards)
    hrefs = [_href(folder, file) for file in names]
    links = [_link(card, target, href) for card, href in zip(plan.cards, hrefs)]

    def top(kept: int | None) -> str:
        """The summary, its lists linking the cards that are files, and the notice of the split."""
        return (_head(plan, {index: hrefs[index] for index in range(kept or 0, count)})
                + _split_notice(len(whole), max_chars, kept, count, folder))

    kept = _most_inline(top, inline, links, max_chars)
    back = _href("..", name)
    files = {file: _section_file(card, target, bodies[index], f"Card {index + 1} of {count} of [the review]({back})")
             for index, (card, file) in enumerate(zip(plan.cards, names)) if index >= (kept or 0)}
    if kept is not None:
        return Review("".join(_split_parts(top, inline, links, kept)), len(whole), folder, files)
    files["index.md"] = f"{MARKER}\n\nThe {count} cards of [the review]({back}).\n\n" + "".join(
        _link(card, target, _href("", file)) for card, file in zip(plan.cards, names))
    text = top(None)
    if len(text) > max_chars:
        raise BudgetError(f"the summary alone is {len(text):,} characters, over the budget of {max_chars:,}")
    return Review(text, len(whole), folder, files)


def _split_parts(top: Callable[[int], str], inline: Sequence[str], links: Sequence[str], kept: int) -> list[str]:
    """A split main document, in parts: the summary and the notice, the links to the files, the first cards."""
    parts = [top(kept)]
    if kept < len(links):
        parts += ["\n", *links[kept:]]
    if kept:
        parts += [_CARDS, *inline[:kept]]
    return parts


def _most_inline(top: Callable[[int], str], inline: Sequence[str], links: Sequence[str], max_chars: int) -> int | None:
    """How many sections stay in the main document (the rest linked), or None when not even the links fit.

    The first cards in plan order stay, up to the first that does not fit:
    the reader gets the cards in order, and knows where the files begin.
    The parts are measured, not joined: only a few cards fit, so this is
    a few passes over the list of links, whatever the number of cards.
    """
    best = None
    for kept in range(len(inline) + 1):
        if sum(len(part) for part in _split_parts(top, inline, links, kept)) > max_chars:
            break
        best = kept
    return best


def _split_notice(whole: int, max_chars: int, kept: int | None, count: int, folder: str) -> str:
    """The paragraph saying the review was split, and where the rest is (``kept`` None: in an index file)."""
    where = _code(folder + "/", table=False)
    said = (f"\n> **Split review.** The whole review is {whole:,} characters, over the budget of {max_chars:,} "
            f"(`--max-chars`). ")
    if kept is None:
        return said + f"Each card's section is a file in {where}, listed in [the index]({_href(folder, 'index.md')}).\n"
    if kept:
        return said + (f"The first {kept} of the {count} cards are folded under Cards below; the other "
                       f"{count - kept} are files in {where}, linked here:\n")
    return said + f"Each of the {count} cards is a file in {where}, linked below.\n"


# -- summary ------------------------------------------------------------------------------


def _head(plan: Plan, hrefs: Mapping[int, str] | None = None) -> str:
    """The title and the summary; its lists of cards link those that ``hrefs`` (by index in the plan) gives."""
    hrefs = hrefs or {}
    title = f"# a2a-migrate review: {_WORDS[plan.direction]} to {_text(plan.target_version)}\n\n"
    parts = [_totals(plan), _versions(plan), _options(plan), _by_transform(plan.cards), _refused(plan.cards, hrefs),
             _needing_a_look(plan.cards, hrefs)]
    return title + "## Summary\n\n" + "\n".join(part for part in parts if part)


def _totals(plan: Plan) -> str:
    cards = plan.cards
    changed = sum(card.status == "changed" for card in cards)
    failed = sum(card.status == "failed" for card in cards)
    operations = sum(len(card.planned) for card in cards)
    counts = _counts(note for card in cards for note in card.notes)
    head = ["cards", "to change", f"already {_text(plan.target_version)}", "refused", "operations",
            *_MOST_SEVERE_FIRST]
    row = [len(cards), changed, len(cards) - changed - failed, failed, operations,
           *(counts.get(severity, 0) for severity in _MOST_SEVERE_FIRST)]
    return _table(head, [[str(value) for value in row]], numeric=True)


def _versions(plan: Plan) -> str:
    pairs: dict[tuple[str, str], int] = {}
    for card in plan.cards:
        pair = (card.source_version or "?", card.target_version or plan.target_version)
        pairs[pair] = pairs.get(pair, 0) + 1
    rows = sorted(pairs.items(), key=lambda item: (-item[1], item[0]))
    return _table(["from", "to", "cards"], [[_text(a), _text(b), str(n)] for (a, b), n in rows], numeric=True)


def _options(plan: Plan) -> str:
    if not plan.options:
        return ""
    return "Options: " + ", ".join(f"{_code(k, table=False)} = {_code(json.dumps(v), table=False)}"
                                   for k, v in plan.options.items()) + "\n"


def _by_transform(cards: Sequence[CardPlan]) -> str:
    columns = ("lossy", "warning", "assumed")
    names: dict[str, list[int]] = {}
    for card in cards:
        for planned in card.planned:
            names.setdefault(planned.transform, [0] * (1 + len(columns)))[0] += 1
        for note in card.notes:
            if note.severity in columns:
                names.setdefault(note.transform, [0] * (1 + len(columns)))[1 + columns.index(note.severity)] += 1
    rows = [[_text(name), *(str(n) for n in counts)] for name, counts in names.items()]
    return _table(["transform", "operations", *columns], rows, numeric=True) if rows else ""


def _refused(cards: Sequence[CardPlan], hrefs: Mapping[int, str]) -> str:
    refused = [(index, card) for index, card in enumerate(cards) if card.status == "failed"]
    if not refused:
        return ""
    rows = [[_named(card, hrefs.get(index)), _text(_shortened(_reason(card)))] for index, card in refused[:_LISTED]]
    return _table(["refused card", "reason"], rows) + _more(len(refused) - _LISTED, "refused card",
                                                            "the section of each gives the reason")


def _needing_a_look(cards: Sequence[CardPlan], hrefs: Mapping[int, str]) -> str:
    """The cards (not refused) with the most lossy notes, then warnings: where a reviewer starts."""
    ranked = []
    for index, card in enumerate(cards):
        counts = _counts(card.notes)
        if card.status != "failed" and (counts.get("lossy") or counts.get("warning")):
            ranked.append((-counts.get("lossy", 0), -counts.get("warning", 0), index, card))
    if not ranked:
        return ""
    ranked.sort(key=lambda item: item[:3])
    lines = [f"- {_named(card, hrefs.get(index), table=False)}: {_severities(card.notes, ('lossy', 'warning'))}"
             for _, _, index, card in ranked[:_LOOK]]
    return ("Cards needing a look (most lossy notes first):\n\n" + "\n".join(lines) + "\n"
            + _more(len(ranked) - _LOOK, "card", "with lossy notes or warnings"))


def _named(card: CardPlan, href: str | None, table: bool = True) -> str:
    """A card's path, linked to its section file when it has one."""
    name = _code(card.path, table=table)
    return f"[{name}]({href})" if href else name


def _reason(card: CardPlan) -> str:
    """Why a card was refused, on one line: its error, else its first error note (and how many more)."""
    if card.error:
        return card.error
    errors = [note for note in card.notes if note.severity == "error"]
    if not errors:
        return "refused"
    first = errors[0]
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"[{first.transform}] {first.pointer + ': ' if first.pointer else ''}{first.message}{more}"


def _more(extra: int, what: str, said: str) -> str:
    return f"\nand {extra} more {what}{_s(extra)} ({said}).\n" if extra > 0 else ""


# -- card sections ------------------------------------------------------------------------


def _folded(card: CardPlan, target: str, body: str) -> str:
    """One card as a folded ``<details>`` block: the summary line is HTML, the body Markdown."""
    summary = f"<code>{_html(card.path)}</code> — {_html(_about(card, target))}"
    return f"\n<details>\n<summary>{summary}</summary>\n\n{body}\n</details>\n"


def _section_file(card: CardPlan, target: str, body: str, where: str) -> str:
    """A card's section as a file of its own; ``where`` places it in the review and links back to it.

    The versions follow ``where`` on its line: text from a plan never starts
    a line, where a version such as ``- x`` would make a list.
    """
    return f"{MARKER}\n\n## {_code(card.path, table=False)}\n\n{where} · {_text(_about(card, target))}\n\n{body}"


def _link(card: CardPlan, target: str, href: str) -> str:
    return f"- [{_code(card.path, table=False)}]({href}) — {_text(_about(card, target))}\n"


def _about(card: CardPlan, target: str) -> str:
    """Versions, operations and note counts: the line that stands for the card when it is folded."""
    versions = f"{card.source_version or '?'} → {card.target_version or target}"
    if card.status == "failed":
        said = f"refused ({versions})"
    elif not card.planned:
        said = f"{versions} · nothing to change"
    else:
        said = f"{versions} · {len(card.planned)} operation{_s(len(card.planned))}"
    return f"{said} · notes: {_severities(card.notes)}"


def _body(card: CardPlan) -> str:
    lines = []
    if card.status == "failed":
        lines += [f"**Refused**: {_text(card.error or 'see the error notes below')}", ""]
    notes = sorted(card.notes, key=lambda note: _MOST_SEVERE_FIRST.index(note.severity))
    if notes:
        lines += [f"- {_note(note)}" for note in notes] + [""]
    if card.outcome is not None and card.outcome.status == "changed":
        from a2a_migrate.batch import unified_diff

        lines += [_fence(unified_diff(card.outcome), "diff"), ""]
    elif card.patch:  # a plan read back from its file has no texts to diff: its operations stand in
        lines += [_fence("".join(json.dumps(op, ensure_ascii=False) + "\n" for op in card.patch), "json"), ""]
    return "\n".join(lines)


def section_names(cards: Sequence[CardPlan]) -> list[str]:
    """Each card's section file name: its number in the plan, then its last two path parts made safe."""
    width = max(3, len(str(len(cards))))
    names = []
    for index, card in enumerate(cards, 1):
        tail = "-".join(Path(card.path).parts[-2:])
        safe = _UNSAFE_NAME.sub("-", tail)
        if len(safe) > _NAME_WIDTH:  # cut at a separator, so no word is left half
            safe = re.sub(r"^[^-_.]*[-_.]", "", safe[-_NAME_WIDTH:])
        names.append(f"{index:0{width}d}-{safe.strip('-.')}.md")
    return names


# -- writing ------------------------------------------------------------------------------


def sections_folder(output: Path) -> Path:
    """Where the section files of the review written to ``output`` go: ``review.md`` -> ``review.md.d``."""
    return output.with_name(output.name + ".d")


def write(rendered: Review, output: Path) -> list[Path]:
    """Write the review: its section files first, then the main document, each atomically.

    The sections are written before the document that links them, so its
    links never point at missing files. Section files an earlier run left in
    the folder (named and marked as sections) that this review does not have
    are removed. Returns the removed files; raises :class:`WriteError`
    naming the first file that could not be written, and ``ValueError`` for
    a split review rendered for another file name (its links would not resolve).
    """
    from a2a_migrate import io

    folder = sections_folder(output)
    if rendered.sections and rendered.folder != folder.name:  # its links would name another folder
        raise ValueError(f"this review links {rendered.folder}/, not {folder.name}/: render it for {output.name}")
    group = io.WriteGroup()
    failed: dict[Path, str] = {}
    for name, text in rendered.sections.items():
        try:
            group.add(folder / name, text)
        except io.CardError as error:
            failed[folder / name] = str(error)
    failed.update(group.commit())  # committed even after a failure: no temporary file stays behind
    for path, reason in failed.items():
        raise WriteError(path, reason)
    removed = _remove_stale(folder, set(rendered.sections))
    try:
        io.write_atomic(output, rendered.text)
    except io.CardError as error:
        raise WriteError(output, str(error)) from None
    return removed


def _remove_stale(folder: Path, keep: set[str]) -> list[Path]:
    removed: list[Path] = []
    if not folder.is_dir():
        return removed
    for path in sorted(folder.iterdir()):
        if path.name in keep or not (_SECTION_FILE.match(path.name) or path.name == "index.md"):
            continue
        try:
            with path.open(encoding="utf-8", errors="replace") as handle:
                ours = handle.readline().rstrip("\n") == MARKER
            if ours:
                path.unlink()
                removed.append(path)
        except OSError:
            continue  # not ours to fight over: a file we cannot read or remove stays
    return removed


# -- escaping -----------------------------------------------------------------------------


def _table(head: Sequence[str], rows: Iterable[Sequence[str]], numeric: bool = False) -> str:
    """A GFM table; ``numeric`` right-aligns every column but the first."""
    align = ["---"] + [("---:" if numeric else "---")] * (len(head) - 1)
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(align) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _note(note: Note) -> str:
    where = f" {_code(note.pointer, table=False)}" if note.pointer else ""
    return f"**{note.severity}** \\[{_text(note.transform)}\\]{where}: {_text(note.message)}"


def _counts(notes: Iterable[Note]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for note in notes:
        counts[note.severity] = counts.get(note.severity, 0) + 1
    return counts


def _severities(notes: Iterable[Note], only: Sequence[str] = _MOST_SEVERE_FIRST) -> str:
    counts = _counts(notes)
    return ", ".join(f"{counts[s]} {s}" for s in only if s in counts) or "none"


def _shortened(text: str) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= _REASON_WIDTH else text[: _REASON_WIDTH - 1] + "…"


def _text(text: str) -> str:
    """Plain text for a paragraph or a table cell: Markdown punctuation escaped, on one line."""
    return _ACTIVE.sub(r"\\\1", " ".join(str(text).split()))


def _html(text: str) -> str:
    """Plain text inside an HTML block (the ``<summary>`` line): entities escaped, on one line.

    A blank line would end the HTML block, so whitespace runs become one space.
    """
    return html.escape(" ".join(str(text).split()), quote=False)


def _code(text: str, table: bool = True) -> str:
    """A code span that holds any text, backticks included; in a table cell ``|`` is escaped too."""
    text = " ".join(str(text).split()) or " "
    run = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * (run + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or run else ""
    if table:
        text = text.replace("|", "\\|")
    return f"{fence}{pad}{text}{pad}{fence}"


def _href(folder: str, name: str) -> str:
    """A relative link to a file in the sections folder; percent-encoded, so no name can end the link."""
    return quote(f"{folder}/{name}" if folder else name)


def _fence(text: str, info: str) -> str:
    """A fenced code block longer than any backtick run in ``text``."""
    run = max((len(m) for m in re.findall(r"`{3,}", text)), default=0)
    fence = "`" * max(3, run + 1)
    return f"{fence}{info}\n{text if text.endswith(chr(10)) else text + chr(10)}{fence}"


def _s(count: int) -> str:
    return "" if count == 1 else "s"
