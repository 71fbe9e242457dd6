"""What the commands share: exit codes, the options that choose the cards
(``--include``, ``--exclude``, ``--max-file-size``), reading them, how notes are
printed, and the end of the run (``no cards found in DIR``, the counts of
skipped and failed inputs in the summary line).

The finding itself is :func:`a2a_migrate.discover.expand` (library); this
module only prints. It imports no other module of the command line, so every
command module can import it.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import click

from a2a_migrate import discover, io
from a2a_migrate.context import SEVERITIES, Note, Severity

if TYPE_CHECKING:
    from a2a_migrate import fetch
    from a2a_migrate.batch import Outcome

#: Exit codes: 0 success; 1 ``--check`` found work, a card is invalid or unverified; 2 usage error;
#: 123 at least one input could not be processed (the others still were).
EXIT_OK, EXIT_CHECK, EXIT_USAGE, EXIT_INPUT = 0, 1, 2, 123
F = TypeVar("F", bound=Callable[..., Any])


class UsageExit(click.ClickException):
    """A one-line error (``Error: ...``) with the usage exit code 2: the run cannot start as asked."""

    exit_code = EXIT_USAGE
_UNITS = {"": 1, "k": 1024, "m": 1024 ** 2, "g": 1024 ** 3}


def verbosity(quiet: bool, verbose: bool) -> int:
    """-1 for ``-q`` (errors only), 1 for ``-v`` (every note), 0 otherwise."""
    return -1 if quiet else (1 if verbose else 0)


def is_stdout(path: Any) -> bool:
    """Whether a file option names stdout (``-``)."""
    return path is not None and str(path) == "-"


class ByteSize(click.ParamType):
    """A size in bytes: ``1048576``, ``512k``, ``10M``, ``10MiB``, ``1GB`` (units are powers of 1024)."""

    name = "bytes"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, int):
            return value
        match = re.fullmatch(r"\s*(\d+)\s*([kmg]?)(?:i?b)?\s*", str(value), re.IGNORECASE)
        if match is None or int(match.group(1)) == 0:
            self.fail(f"{json.dumps(str(value))} is not a size such as 1048576, 512k or 10M", param, ctx)
        return int(match.group(1)) * _UNITS[match.group(2).lower()]


def input_options(what: str) -> Callable[[F], F]:
    """Add ``--include``, ``--exclude``, ``--max-file-size``, ``--urls`` and the :func:`fetch_options` to a
    command; ``what`` is its verb."""
    def decorate(command: F) -> F:
        decorators = [
            click.option("--include", "include", multiple=True, metavar="GLOB",
                         help=f"In folders, also {what} files matching GLOB (repeatable)."),
            click.option("--exclude", "exclude", multiple=True, metavar="GLOB",
                         help="In folders, skip files and folders matching GLOB (repeatable)."),
            click.option("--max-file-size", "max_file_size", type=ByteSize(), default=io.MAX_CARD_BYTES,
                         metavar="SIZE", show_default="10MiB",
                         help="Refuse card files larger than this (bytes, or with k, M, G: powers of 1024)."),
            click.option("--urls", "url_list", type=click.Path(dir_okay=False, allow_dash=True), metavar="FILE",
                         is_eager=True, expose_value=False, callback=_read_url_list,
                         help=f"Also {what} the cards at the URLs in FILE, one per line (# comments), fetched "
                              f"{FETCH_DEFAULTS_SHOWN['workers']} at a time."),
            fetch_options,
        ]
        for decorator in reversed(decorators):
            command = decorator(command)
        return command
    return decorate


# -- URL sources (issue 12) ----------------------------------------------------------------------

_FETCH = "a2a_migrate.fetch"  # where the fetch options wait in ctx.meta until a URL is fetched
#: What --help says of the fetcher's defaults (a2a_migrate.fetch is imported only to fetch; a test
#: holds these to FetchLimits and WORKERS).
FETCH_DEFAULTS_SHOWN = {"fetch_timeout": "10", "max_fetch_size": "1MiB", "workers": "8"}


def fetch_options(command: F) -> F:
    """Add ``--allow-http``, ``--allow-private``, ``--fetch-timeout`` and ``--max-fetch-size``.

    They are kept in the click context (:func:`fetch_limits` reads them) rather
    than passed to the command: they matter only where a PATH is a URL, which
    :class:`Inputs` and the migration commands handle for every command.
    """
    decorators = [
        click.option("--allow-http", is_flag=True, expose_value=False, callback=_remember,
                     help="Fetch plain http:// URLs too (default: https only)."),
        click.option("--allow-private", is_flag=True, expose_value=False, callback=_remember,
                     help="Fetch from loopback, private, link-local and multicast addresses too (refused by default, "
                          "redirects included)."),
        click.option("--fetch-timeout", type=click.FloatRange(min=0.01), default=None, metavar="SECONDS",
                     show_default=FETCH_DEFAULTS_SHOWN["fetch_timeout"], expose_value=False, callback=_remember,
                     help="Time limit for fetching one URL, all of it (connecting, redirects, the body)."),
        click.option("--max-fetch-size", type=ByteSize(), default=None, show_default=FETCH_DEFAULTS_SHOWN["max_fetch_size"],
                     metavar="SIZE", expose_value=False, callback=_remember, help="Refuse a fetched card larger than this."),
    ]
    for decorator in reversed(decorators):
        command = decorator(command)
    return command


def _remember(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    ctx.meta.setdefault(_FETCH, {})[param.name] = value
    return value


def _read_url_list(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    """``--urls FILE``: its URLs, kept for :func:`paths_argument` (eager, so they are there before it)."""
    if value is None:
        return
    try:
        with click.open_file(value, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise click.BadParameter(f"{value}: {getattr(error, 'strerror', None) or error}") from None
    urls = []
    for number, line in enumerate(lines, 1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        if not discover.is_url(text) or not text.isprintable() or " " in text:
            raise click.BadParameter(f"{value}: line {number}: {json.dumps(text)} is not an http(s) URL")
        urls.append(text)
    ctx.meta["a2a_migrate.urls"], ctx.meta["a2a_migrate.urls_from"] = urls, value


def paths_argument(metavar: str = "PATH...") -> Callable[[F], F]:
    """The PATH arguments of a command that reads cards, with the URLs of ``--urls FILE`` after them."""
    def with_urls(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> tuple[str, ...]:
        if "-" in value and ctx.meta.get("a2a_migrate.urls_from") == "-":
            raise click.UsageError("--urls - reads the URLs from stdin: a card cannot come from it too", ctx)
        paths = (*value, *ctx.meta.get("a2a_migrate.urls", ()))
        if not paths:
            raise click.UsageError(f"Missing argument '{metavar}' (or --urls FILE with URLs in it).", ctx)
        return _urls_once(paths)
    return click.argument("paths", nargs=-1, metavar=metavar, callback=with_urls)


def _urls_once(paths: Sequence[str]) -> tuple[str, ...]:
    """``paths`` with each URL once: a URL named twice is one card, fetched once (files stay as named)."""
    seen: set[str] = set()
    kept = []
    for path in paths:
        if discover.is_url(path):
            if path in seen:
                continue
            seen.add(path)
        kept.append(path)
    return tuple(kept)


def fetch_limits() -> fetch.FetchLimits:
    """The limits the fetch options of the running command set (the library's defaults where not given)."""
    from a2a_migrate.fetch import FetchLimits

    context = click.get_current_context(silent=True)
    given = context.meta.get(_FETCH, {}) if context is not None else {}
    chosen = {"timeout": given.get("fetch_timeout"), "max_bytes": given.get("max_fetch_size"),
              "allow_http": given.get("allow_http"), "allow_private": given.get("allow_private")}
    return FetchLimits(**{name: value for name, value in chosen.items() if value is not None})


def fetch_all(urls: Sequence[str]) -> Iterator[tuple[str, fetch.Fetched | fetch.FetchError]]:
    """Each URL's answer (or error), in order, fetched concurrently within :func:`fetch_limits`."""
    if not urls:
        return iter(())
    from a2a_migrate.fetch import fetch_cards

    return fetch_cards(urls, fetch_limits())


def refuse_shared_stdout(paths: Sequence[str], hint: str) -> None:
    """A usage error when several inputs (stdin, URLs) would each write their card to stdout."""
    streamed = [path for path in dict.fromkeys(paths) if path == "-" or discover.is_url(path)]
    if len(streamed) > 1:
        raise click.UsageError(f"{streamed[0]} and {streamed[1]} would both be written to stdout; {hint}")


class Inputs:
    """Reads the cards PATH arguments name, printing what could not be read, and
    keeps what every command's summary ends with.

    Iterating yields each card as a :class:`~a2a_migrate.discover.Loaded` with a
    document; skipped files are counted, failed ones printed and counted.
    """

    def __init__(self, paths: Sequence[str], include: Sequence[str] = (), exclude: Sequence[str] = (),
                 max_bytes: int | None = io.MAX_CARD_BYTES, *, remove_stale: bool = False) -> None:
        self.paths = paths
        self.max_bytes = max_bytes
        self.found, self.problems = discover.expand(paths, include, exclude, remove_stale=remove_stale)
        self.skipped = self.failed = 0
        self.yielded: set[str] = {problem.arg for problem in self.problems}  # PATHs that gave a card or an error

    def __iter__(self) -> Iterator[discover.Loaded]:
        for problem in self.problems:
            self.fail(problem.path, problem.reason)
        answers = fetch_all([found.url for found in self.found if found.url])  # issue 12: fetched ahead, in order
        for found in self.found:
            if found.url:
                loaded = discover.load_fetched(*next(answers))
            else:
                loaded = read_stdin(self.max_bytes) if found.arg == "-" else discover.load(found, self.max_bytes)
            if loaded.status == "skipped":
                self.skipped += 1
                continue
            self.yielded.add(found.arg)
            if loaded.status == "failed":
                self.fail(loaded.name, loaded.error)
            else:
                yield loaded

    def fail(self, name: str, error: str) -> None:
        """Print ``NAME: error: ERROR`` and count the input as failed."""
        echo_error(name, error)
        self.failed += 1

    def empty(self, quiet: bool = False) -> list[str]:
        """The PATH arguments that gave no card (each said on stderr unless ``quiet``)."""
        return no_cards_found(self.paths, self.yielded, quiet)

    def summary(self, *parts: str) -> str:
        """``parts`` then the skipped and failed counts: ``3 valid, 1 invalid, 2 skipped, 1 failed``."""
        return summary_line(parts, self.skipped, self.failed)


def read_stdin(max_bytes: int | None) -> discover.Loaded:
    """Stdin (``-``) as a card, read in binary and at most ``max_bytes`` of it."""
    try:
        text = io.read_stream(sys.stdin.buffer, max_bytes)
    except io.CardError as error:
        return discover.Loaded("-", "failed", error=str(error))
    return discover.parse_card(text, "-")


def no_cards_found(paths: Iterable[str], yielded: set[str], quiet: bool = False) -> list[str]:
    """The PATH arguments that gave no card nor error, each said as ``no cards found in PATH``."""
    empty = discover.empty_paths(paths, yielded)
    if not quiet:
        for path in empty:
            click.echo(f"no cards found in {path}", err=True)
    return empty


def summary_line(parts: Iterable[str], skipped: int, failed: int) -> str:
    """The one summary line every command ends with: its own counts, then skipped and failed ones."""
    tail = [f"{count} {word}" for count, word in ((skipped, "skipped"), (failed, "failed")) if count]
    return ", ".join([*parts, *tail])


def protocol_version(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """Option callback: ``Major.Minor`` of a version the user typed, or a usage error."""
    from a2a_migrate.versions import major_minor

    if value is None:
        return None
    version = major_minor(value)
    if version is None:
        raise click.BadParameter(f"{json.dumps(value)} is not a protocol version such as 0.3 or 1.0")
    return version


def least_failing(strict: bool, fail_on: Severity | None) -> Severity | None:
    """``--strict`` is ``--fail-on lossy``; with both, the stricter (lesser) severity wins."""
    chosen = [severity for severity in (fail_on, "lossy" if strict else None) if severity is not None]
    return min(chosen, key=SEVERITIES.index) if chosen else None


#: The severities each verbosity prints: -q errors only, default all but info, -v everything.
SHOWN = {-1: {"error"}, 0: {"assumed", "warning", "lossy", "error"}, 1: {"info", "assumed", "warning", "lossy", "error"}}
#: What a card of a batch is reported for at the default verbosity: what needs a look.
NEEDS_A_LOOK = ("warning", "lossy", "error")


# -- colour ------------------------------------------------------------------------------
# Styles are always added; click.echo strips them unless the stream is a terminal and colour
# is on (``NO_COLOR`` and ``--no-color`` turn it off: cli/app.py). Card text is never styled.

_SEVERITY_STYLES: dict[str, dict[str, Any]] = {
    "error": {"fg": "red", "bold": True}, "lossy": {"fg": "magenta", "bold": True}, "warning": {"fg": "yellow"},
    "assumed": {"fg": "cyan"}, "info": {"dim": True}}
_DIFF_STYLES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("+++ ", {"bold": True}), ("--- ", {"bold": True}), ("@@", {"fg": "cyan"}), ("+", {"fg": "green"}),
    ("-", {"fg": "red"}), ("moved ", {"fg": "cyan"}), ("changed ", {"fg": "yellow"}), ("added ", {"fg": "green"}),
    ("removed ", {"fg": "red"}))


def severity_word(severity: str) -> str:
    """A severity word, coloured for a terminal."""
    return click.style(severity, **_SEVERITY_STYLES.get(severity, {}))


def echo_diff(text: str) -> None:
    """Print a unified diff or a ``diff`` listing on stdout, each line coloured by its kind at a terminal."""
    click.echo("".join(_diff_line(line) for line in text.splitlines(keepends=True)), nl=False)


def _diff_line(line: str) -> str:
    for start, style in _DIFF_STYLES:
        if line.startswith(start):
            body = line.rstrip("\n")
            return click.style(body, **style) + line[len(body):]
    return line


def echo_error(name: str, message: str) -> None:
    """The one form of an error line: ``NAME: error: MESSAGE`` on stderr."""
    click.echo(f"{name}: {severity_word('error')}: {message}", err=True)


def disable_colour(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    """``--no-color`` (and the group's ``NO_COLOR`` check): this context and those it makes print no colour."""
    if value:
        ctx.color = False


def print_messages(outcome: Outcome, verbosity: int, batch: bool = False) -> None:
    """Print a card's error and notes as the verbosity asks (-q errors, -v everything).

    In a batch at the default verbosity, a card is one line, and only if it
    needs a look: its error or its most severe warning or lossy note, with how
    many more there are. Assumed notes of thousands of cards would bury those;
    ``-v`` and ``--report`` still give every note.
    """
    if batch and verbosity == 0:
        _print_one_line(outcome)
        return
    if outcome.error:
        echo_error(outcome.name, outcome.error)
    shown = SHOWN[verbosity]
    for note in outcome.notes:
        if note.severity in shown:  # -q: errors only (a card refused for lossy notes says so in its error)
            click.echo(f"{note_place(outcome, note)} {note_line(note)}", err=True)


def note_line(note: Note) -> str:
    """``severity: [transform] /pointer: message``, as every note is printed."""
    where = f" {note.pointer}:" if note.pointer else ""
    return f"{severity_word(note.severity)}: [{note.transform}]{where} {note.message}"


def place(name: str, line: int | None, column: int | None) -> str:
    """``PATH:LINE:COL:`` (issue 14: what editors and linter front ends jump to), or ``PATH:`` with no place."""
    return f"{name}:{line}:{column}:" if line is not None else f"{name}:"


def note_place(outcome: Outcome, note: Note) -> str:
    """Where a note of ``outcome`` is: ``PATH:LINE:COL:`` in the file its lines count in, else ``NAME:``."""
    return place(outcome.source or outcome.name, note.line, note.column) if note.line is not None else f"{outcome.name}:"


def _print_one_line(outcome: Outcome) -> None:
    notes = sorted((note for note in outcome.notes if note.severity in NEEDS_A_LOOK),
                   key=lambda note: -SEVERITIES.index(note.severity))
    lines = [f"{outcome.name}: {severity_word('error')}: {outcome.error}"] if outcome.error else []
    lines += [f"{note_place(outcome, note)} {note_line(note)}" for note in notes]
    if lines:
        more = f" (and {len(lines) - 1} more: -v shows all)" if len(lines) > 1 else ""
        click.echo(f"{lines[0]}{more}", err=True)
