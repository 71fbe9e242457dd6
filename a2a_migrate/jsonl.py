"""JSONL streams (issue 12): one card per line in, one result per line out, in order.

Lines are read lazily (:func:`read_lines`) and migrated in chunks
(:func:`migrate_lines`), in worker processes when asked for, with a bounded
number of chunks in flight: memory stays flat whatever the number of lines,
and results come back in input order. A line that cannot be read or parsed is
an error for that line only.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future
from dataclasses import dataclass, replace
from itertools import islice
from typing import Any, BinaryIO

from a2a_migrate.batch import GROUP, Job, Outcome, migrate_text, worker_pool

#: The name each line is parsed under: its format is JSON, whatever the stream is called.
LINE_NAME = "line.json"


@dataclass(frozen=True)
class Line:
    """One non-blank input line: its 1-based number, its text, and why it could not be read ("" if it could)."""

    number: int
    text: str
    error: str = ""


@dataclass
class LineResult:
    """What became of one line: its outcome (named ``SOURCE:LINE``) and the line to write (None: nothing)."""

    number: int
    outcome: Outcome
    output: str | None

    def output_bytes(self) -> bytes | None:
        """The line to write, with its newline, as bytes (bytes as read for a line that was not UTF-8)."""
        return None if self.output is None else (self.output + "\n").encode("utf-8", "surrogateescape")

    def report_line(self) -> str:
        """The line's object of a ``--report`` stream, as one line of JSON with its newline."""
        return json.dumps(self.report_entry(), ensure_ascii=False) + "\n"

    def report_entry(self) -> dict[str, Any]:
        """The line's object of a ``--report`` stream."""
        outcome = self.outcome
        return {"line": self.number, "sourceVersion": outcome.source_version or None,
                "targetVersion": outcome.target_version or None, "changed": outcome.status == "changed",
                "error": outcome.error or None, "notes": [note.as_dict() for note in outcome.notes],
                "patch": outcome.patch}


def read_lines(stream: BinaryIO, max_bytes: int | None = None, first: int = 1) -> Iterator[Line]:
    """The non-blank lines of a binary stream, read one at a time (blank lines still count for numbers).

    ``first`` is the number of the stream's first line (a block of a larger file
    starts further on: :mod:`a2a_migrate.dask`).

    A line longer than ``max_bytes`` is not held: the rest of it is skipped and
    it is an error line; so is a line that is not UTF-8 (its text kept with
    surrogate escapes, to be written back unchanged), and a read that fails
    (which ends the lines).
    """
    number = first - 1
    while True:
        try:
            raw = stream.readline() if max_bytes is None else stream.readline(max_bytes + 1)
        except OSError as error:  # the stream broke: an error for the line that could not be read, and the end
            yield Line(number + 1, "", f"cannot read: {error.strerror or error}")
            return
        if not raw:
            return
        number += 1
        if max_bytes is not None and len(raw) > max_bytes and not raw.endswith(b"\n"):
            _skip_rest_of_line(stream)
            yield Line(number, "", f"line is more than {max_bytes} bytes, over the limit (--max-file-size)")
            continue
        body = raw[:-1] if raw.endswith(b"\n") else raw
        body = body[:-1] if body.endswith(b"\r") else body
        if body.strip():
            yield _decoded(number, body)


def _decoded(number: int, body: bytes) -> Line:
    try:
        return Line(number, body.decode("utf-8"))
    except UnicodeDecodeError as error:
        return Line(number, body.decode("utf-8", "surrogateescape"), f"byte {error.start}: not UTF-8 text")


def _skip_rest_of_line(stream: BinaryIO) -> None:
    while True:
        chunk = stream.readline(65536)
        if not chunk or chunk.endswith(b"\n"):
            return


def migrate_line(line: Line, job: Job, source: str = "-") -> LineResult:
    """Migrate one line: the output is the migrated card as compact JSON, else the line unchanged.

    With ``job.keep_text`` false (``--check``) nothing is to be written and the
    output is None.
    """
    name = f"{source}:{line.number}"
    if line.error:
        return LineResult(line.number, Outcome(name, "failed", error=line.error), line.text or None)
    outcome = migrate_text(line.text, LINE_NAME, job)
    outcome.name = name
    if job.locate:  # issue 14: a note's place counts in the stream, lines and all
        outcome.source = source
        outcome.notes = [note if note.line is None or note.column is None else
                         note.at(line.number + note.line - 1, note.column) for note in outcome.notes]
    outcome.error = outcome.error.removeprefix("line 1 ")  # "column 7: ...": the line is in the name already
    output = None
    if job.keep_text:
        output = compact(json.loads(outcome.new_text)) if outcome.status == "changed" else line.text
    outcome.old_text = outcome.new_text = ""
    return LineResult(line.number, outcome, output)


def compact(card: Any) -> str:
    """A card as one line of JSON."""
    return json.dumps(card, ensure_ascii=False, separators=(",", ":"))


def migrate_lines(lines: Iterable[Line], job: Job, jobs: int = 1, source: str = "-",
                  chunk: int = GROUP) -> Iterator[LineResult]:
    """Migrate lines, yielding results in input order; ``lines`` is consumed lazily.

    With ``jobs`` > 1, chunks of ``chunk`` lines go to worker processes, at
    most two per worker in flight, so the reader is never more than a bounded
    number of lines ahead of the consumer. Input that fits in one chunk is
    migrated here (no pool is started for it).
    """
    job = replace(job, write="no", sniff=False)
    chunks = _chunks(iter(lines), chunk)
    first = next(chunks, [])
    if jobs <= 1 or len(first) < chunk:
        for group in _chained(first, chunks):  # input of one chunk: the rest is empty
            yield from migrate_chunk(group, job, source)
        return
    with worker_pool(jobs) as pool:
        pending: deque[Future[list[LineResult]]] = deque()
        for group in _chained(first, chunks):
            pending.append(pool.submit(migrate_chunk, group, job, source))
            if len(pending) >= 2 * jobs:
                yield from pending.popleft().result()
        while pending:
            yield from pending.popleft().result()


def migrate_chunk(lines: list[Line], job: Job, source: str) -> list[LineResult]:
    """Migrate a chunk of lines (a worker's unit of work)."""
    return [migrate_line(line, job, source) for line in lines]


def _chunks(lines: Iterator[Line], size: int) -> Iterator[list[Line]]:
    while group := list(islice(lines, size)):
        yield group


def _chained(first: list[Line], rest: Iterator[list[Line]]) -> Iterator[list[Line]]:
    yield first
    yield from rest
