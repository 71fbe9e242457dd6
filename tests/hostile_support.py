"""Running every command over one card file, for the hostile-input tests (issue 11).

:func:`run_all` runs the commands in process with click's CliRunner, read-only
ones first and the ones that rewrite the card last, and returns what each did,
so a test can say: nothing escaped, every exit code is 0, 1 or 123, and a card
the tool refuses to read is left as it was.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from click.testing import CliRunner

from a2a_migrate import cli

SIGNED = Path(__file__).resolve().parent.parent / "golden" / "signed"
KEY = SIGNED / "TEST-ONLY-private-key.jwk.json"
JWKS = SIGNED / "test-key.jwks.json"
ALLOWED_EXITS = (0, 1, 123)


@dataclass
class Run:
    """One command over the card: its arguments, exit code, output and any exception that escaped."""

    args: list[str]
    exit_code: int
    output: str
    exception: BaseException | None


def commands(card: Path, work: Path) -> list[list[str]]:
    """Every command over ``card``: read-only variants first, then those that write it."""
    plan, patch = str(work / "plan.json"), str(work / "patch.json")
    name = str(card)
    return [
        ["detect", name], ["validate", name], ["validate", "--format", "json", name], ["diff", name, name],
        ["verify", "--jwks", str(JWKS), name],
        *([command, flag, name] for command in ("upgrade", "downgrade") for flag in ("--check", "--diff", "--patch")),
        ["upgrade", "--hybrid", "--check", name],
        ["plan", "-o", plan, name], ["plan", "--to", "0.3", "--format", "md", name],
        ["upgrade", "--patch", "-o", str(work / "out"), name],
        ["apply", "--patch", patch, name], ["apply", plan], ["upgrade", name], ["downgrade", name], ["sign", "--key", str(KEY), name],
    ]


def run_all(card: Path, work: Path, stdin: str | None = None) -> list[Run]:
    """Run :func:`commands` over ``card`` (and, given ``stdin``, upgrade/validate/detect of ``-``)."""
    runner = CliRunner()
    runs = []
    for args in commands(card, work):
        if args[0] == "apply" and not Path(args[-1] if args[1] != "--patch" else args[2]).exists():
            continue  # nothing was planned or patched: there is nothing to apply
        runs.append(_invoke(runner, args))
        if args[:2] == ["upgrade", "--patch"] and runs[-1].exit_code == 0 and "-o" not in args:
            (work / "patch.json").write_text(runs[-1].output)
    if stdin is not None:
        for args in (["upgrade", "-"], ["downgrade", "--diff", "-"], ["validate", "-"], ["detect", "-"]):
            runs.append(_invoke(runner, args, stdin))
    return runs


def _invoke(runner: CliRunner, args: list[str], stdin: str | None = None) -> Run:
    result = runner.invoke(cli.main, args, input=stdin)
    escaped = result.exception if not isinstance(result.exception, SystemExit) else None
    return Run(args, result.exit_code, result.stdout, escaped)


def problems(runs: list[Run]) -> list[str]:
    """What went wrong: exceptions that escaped, exit codes other than 0, 1 and 123, tracebacks."""
    found = []
    for run in runs:
        if run.exception is not None:
            found.append(f"{run.args}: {type(run.exception).__name__}: {run.exception}")
        elif run.exit_code not in ALLOWED_EXITS:
            found.append(f"{run.args}: exit {run.exit_code}: {run.output[-300:]}")
        elif "Traceback (most recent call last)" in run.output:
            found.append(f"{run.args}: a traceback was printed")
    return found
