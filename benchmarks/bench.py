"""Benchmark of a2a-migrate against the floors it can reach (issue 15).

    python benchmarks/bench.py [--cards N] [--repeat R] [--json FILE] [--only ROW ...] [--profile M]

Builds, in a temporary folder, a tree of N cards (default 3,000) whose shapes
come from the repo's ``golden/*.0.3.json`` and, when ``../shared/corpus/real/``
exists beside the repo, from the real cards there (else from ``examples/``).
Names, ids and file names vary so that no two files are the same; only shapes
the tool upgrades successfully are kept. Then each row times the tool (A)
against what it is compared with (B), alternating A and B R times in one run
(so that a slower minute of the machine hurts both), and prints the medians
and the ratio against the row's target:

    json     upgrade -q -j 1 in place / read, json.loads, json.dumps, write     <= 2
    jobs     upgrade -q -j 1 / upgrade -q (default jobs)                          >= 1.8
    startup  upgrade --check ONE_CARD / python -c "import json"                  <= 2.5
    api      a2a_migrate.upgrade(card) / the SDK's 0.3 to 1.0 conversion          <= 2
    api-bare the same without the patch (record=False) / the SDK                  <= 1
    yaml     upgrade -q -j 1 of YAML cards / ruamel round-trip load and dump      <= 1.2

``--json FILE`` writes the figures (medians, ratios, targets, the machine) for
comparison between runs. ``--profile M`` instead runs cProfile over
``upgrade -j 1`` of M cards and prints the hottest functions.

It runs from a checkout with either install (``pip install .`` or ``-e``): the
checkout's root is taken off ``sys.path`` and child processes start in the
temporary folder, so ``a2a_migrate`` is always the installed one. Every copy of
a tree is flushed to disk (``os.sync``) before it is timed. Child processes
cache bytecode in a temporary ``PYTHONPYCACHEPREFIX``, as an installed tool has
it.

This is a script to run by hand, not a test: speed is never asserted by tests.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
# The checkout's a2a_migrate/ has no transforms/ inside (setup.cfg maps them in): never import it by accident.
sys.path[:] = [entry for entry in sys.path if Path(entry or os.getcwd()).resolve() != REPO]

from a2a_migrate import jsontext  # noqa: E402
from a2a_migrate.batch import Job, default_jobs, migrate_text  # noqa: E402

BARE_LABEL = 'python -c "import json"'
FILE_NAMES = ("agent-card.json", "agent-card.json", "agent-card.json", "agent.json", "agent_card.json",
              "AgentCard.json", "{i}.agent-card.json")

JSON_FLOOR = r"""
import json, os, sys
for folder, _, files in os.walk(sys.argv[1]):
    for name in files:
        if name.endswith(".json"):
            path = os.path.join(folder, name)
            with open(path, encoding="utf-8") as stream:
                data = json.loads(stream.read())
            with open(path, "w", encoding="utf-8") as stream:
                stream.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
"""

YAML_FLOOR = r"""
import os, sys
from ruamel.yaml import YAML
yaml = YAML(typ="rt")
for folder, _, files in os.walk(sys.argv[1]):
    for name in files:
        if name.endswith((".yaml", ".yml")):
            path = os.path.join(folder, name)
            with open(path, encoding="utf-8") as stream:
                data = yaml.load(stream.read())
            with open(path, "w", encoding="utf-8") as stream:
                yaml.dump(data, stream)
"""

#: Child processes cache bytecode in a folder of their own, as an installed tool has it cached
#: (and even when PYTHONDONTWRITEBYTECODE is set, without writing into the repo).
ENV = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}


def tool() -> list[str]:
    """The installed console script next to this Python, else ``python -m a2a_migrate``."""
    script = Path(sys.executable).parent / "a2a-migrate"
    return [str(script)] if script.exists() else [sys.executable, "-m", "a2a_migrate"]


# -- building the trees ----------------------------------------------------------------------------


def source_texts() -> list[tuple[str, str]]:
    """(name, text) of every card shape to draw from."""
    paths = sorted((REPO / "golden").glob("*.0.3.json"))
    real = SHARED / "corpus" / "real"
    if real.is_dir():
        paths += sorted(real.glob("*.json"))
    else:
        paths += sorted((REPO / "examples").glob("*.json"))
    texts = []
    for path in paths:
        try:
            texts.append((path.name, path.read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError):
            continue
    return texts


def vary(card: dict[str, Any], i: int) -> dict[str, Any]:
    """A copy of ``card`` with its name and skill ids made unique to ``i``."""
    card = json.loads(json.dumps(card))
    if isinstance(card.get("name"), str):
        card["name"] = f"{card['name']} #{i}"
    for skill in card.get("skills") or []:
        if isinstance(skill, dict) and isinstance(skill.get("id"), str):
            skill["id"] = f"{skill['id']}-{i}"
    return card


def templates() -> list[tuple[str, Any]]:
    """(text, parsed card) of the shapes the tool upgrades (it changes them and refuses nothing)."""
    kept = []
    for name, text in source_texts():
        outcome = migrate_text(text, name, Job("up"))
        if outcome.status != "changed":
            continue
        try:
            card = json.loads(text.lstrip("\ufeff"))
        except ValueError:
            continue
        # The varied card must upgrade too, and be written in the file's own layout.
        varied = jsontext.render(text, card, vary(card, 0))
        if migrate_text(varied, name, Job("up")).status == "changed":
            kept.append((text, card))
    return kept


def card_path(root: Path, i: int, file_name: str) -> Path:
    return root / f"{i // 1000:02d}" / f"{(i // 100) % 10}" / str(i) / file_name.format(i=i)


def build_json_tree(root: Path, count: int, shapes: list[tuple[str, Any]]) -> None:
    rng = random.Random(1)
    for i in range(count):
        text, card = shapes[i % len(shapes)]
        path = card_path(root, i, rng.choice(FILE_NAMES))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(jsontext.render(text, card, vary(card, i)), encoding="utf-8")


def build_yaml_tree(root: Path, count: int, shapes: list[tuple[str, Any]]) -> int:
    from io import StringIO

    from ruamel.yaml import YAML

    yaml = YAML(typ="rt")
    usable = []
    for _, card in shapes:
        stream = StringIO()
        yaml.dump(vary(card, 0), stream)
        if migrate_text(stream.getvalue(), "agent-card.yaml", Job("up")).status == "changed":
            usable.append(card)
    for i in range(count):
        path = card_path(root, i, "agent-card.yaml")
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("w", encoding="utf-8") as out:
            yaml.dump(vary(usable[i % len(usable)], i), out)
    return len(usable)


# -- timing ----------------------------------------------------------------------------------------


def timed(command: Sequence[str], expect: int = 0, cwd: Path | None = None) -> float:
    """Seconds one command takes; a wrong exit status stops the benchmark with its last lines."""
    started = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV, cwd=cwd or WORK[0])
    elapsed = time.perf_counter() - started
    if done.returncode != expect:
        tail = done.stderr.decode(errors="replace").strip().splitlines()[-3:]
        raise SystemExit(f"{' '.join(command)}: exit {done.returncode}, expected {expect}: {tail}")
    return elapsed


#: The folder child processes start in (not the checkout: ``-m a2a_migrate`` would find its source).
WORK: list[Path] = [Path(tempfile.gettempdir())]


def on_fresh_copy(source: Path, scratch: Path, command: Callable[[Path], Sequence[str]], expect: int = 0) -> float:
    """Time ``command(copy)`` on a fresh copy of ``source`` (the copying and flushing are not timed)."""
    copy = scratch / "run"
    if copy.exists():
        shutil.rmtree(copy)
    shutil.copytree(source, copy)
    os.sync()
    return timed(command(copy), expect)


def alternate(repeat: int, a: Callable[[], float], b: Callable[[], float]) -> tuple[float, float]:
    """Medians of A and B run alternately ``repeat`` times each (A, B, A, B, ...)."""
    a_times, b_times = [], []
    for _ in range(repeat):
        a_times.append(a())
        b_times.append(b())
    return statistics.median(a_times), statistics.median(b_times)


def summary_line(command: Sequence[str]) -> str:
    done = subprocess.run(command, capture_output=True, text=True, env=ENV, cwd=WORK[0])
    lines = done.stderr.strip().splitlines()
    return lines[-1] if lines else f"(exit {done.returncode}, no output)"


# -- the in-process row ----------------------------------------------------------------------------


def sdk_conversion() -> Callable[[Any], Any] | None:
    """The official SDK's 0.3 to 1.0 conversion of a card value, or None without the SDK."""
    try:
        from a2a.compat.v0_3 import types as types_v03
        from a2a.compat.v0_3.conversions import to_core_agent_card
        from google.protobuf.json_format import MessageToDict
    except ImportError:
        return None

    def convert(card: Any) -> Any:
        return MessageToDict(to_core_agent_card(types_v03.AgentCard.model_validate(card)))

    return convert


def in_process(cards: list[Any], convert: Callable[[Any], Any]) -> float:
    """Seconds ``convert`` takes over every card (a failing card counts as done: the time is spent)."""
    started = time.perf_counter()
    for card in cards:
        try:
            convert(card)
        except Exception:  # noqa: BLE001 - the SDK refuses some real cards; the tool reports them
            pass
    return time.perf_counter() - started


def api_cards(shapes: list[tuple[str, Any]], convert: Callable[[Any], Any]) -> list[Any]:
    """The shapes both the tool and the SDK convert (the same cards for both sides)."""
    kept = []
    for _, card in shapes:
        try:
            convert(card)
        except Exception:  # noqa: BLE001
            continue
        kept.append(card)
    return kept


# -- report ----------------------------------------------------------------------------------------


TARGETS: dict[str, tuple[str, float, bool]] = {
    # row: (what A / B is, the target, whether the ratio must be at most it)
    "json": ("upgrade -q -j 1 in place / read, loads, dumps, write", 2.0, True),
    "jobs": ("upgrade -q -j 1 / upgrade -q (default jobs)", 1.8, False),
    "startup": ('upgrade --check ONE_CARD / python -c "import json"', 2.5, True),
    "api": ("a2a_migrate.upgrade(card) / SDK model_validate, to_core_agent_card, MessageToDict", 2.0, True),
    "api-bare": ("the same without the patch (record=False) / the SDK", 1.0, True),
    "yaml": ("upgrade -q -j 1 of YAML / ruamel round-trip load and dump", 1.2, True),
}


class Report:
    """The rows measured so far, printed as they come and written as JSON at the end."""

    def __init__(self) -> None:
        self.rows: dict[str, dict[str, Any]] = {}

    def row(self, name: str, a: float, b: float, count: int) -> None:
        label, limit, at_most = TARGETS[name]
        ratio = a / b
        ok = ratio <= limit if at_most else ratio >= limit
        sign = "<=" if at_most else ">="
        print(f"  {name:<9} A {a:9.4f} s  B {b:9.4f} s  A/B {ratio:5.2f}x  (target {sign} {limit}x) "
              f"{'OK' if ok else 'MISSED'}   [{label}; {count} cards]", flush=True)
        self.rows[name] = {"a_seconds": a, "b_seconds": b, "ratio": ratio, "target": limit,
                           "at_most": at_most, "met": ok, "cards": count, "what": label}

    def write(self, path: Path | None, meta: dict[str, Any]) -> None:
        missed = [name for name, row in self.rows.items() if not row["met"]]
        print(f"\n{len(self.rows) - len(missed)} of {len(self.rows)} targets met"
              + (f"; missed: {', '.join(missed)}" if missed else ""))
        if path is not None:
            path.write_text(json.dumps({**meta, "rows": self.rows}, indent=2) + "\n", encoding="utf-8")
            print(f"figures written to {path}")


def benchmark(cards: int, repeat: int, keep: bool, only: Sequence[str], out: Path | None) -> int:
    shapes = templates()
    print(f"{len(shapes)} card shapes that upgrade, from {REPO / 'golden'} and "
          f"{SHARED / 'corpus' / 'real' if (SHARED / 'corpus' / 'real').is_dir() else REPO / 'examples'}")
    import a2a_migrate

    print(f"a2a_migrate from {Path(a2a_migrate.__file__).parent}; command: {' '.join(tool())}; "
          f"default jobs: {default_jobs()}; A and B alternate, median of {repeat} each")
    work = Path(tempfile.mkdtemp(prefix="a2a-migrate-bench-"))
    WORK[0] = work
    ENV["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    report = Report()
    wanted = set(only or TARGETS)
    try:
        scratch = work / "scratch"
        scratch.mkdir()
        a2a = tool()
        source = work / "cards"
        build_json_tree(source, cards, shapes)
        os.sync()
        print(f"\nJSON: {cards} cards ({sum(p.stat().st_size for p in source.rglob('*.json')) // 1024} KiB); "
              f"check: {summary_line([*a2a, 'upgrade', '--check', '-j', '1', str(source)])}")
        one_job = lambda: on_fresh_copy(source, scratch, lambda d: [*a2a, "upgrade", "-q", "-j", "1", str(d)])  # noqa: E731
        if "json" in wanted:
            report.row("json", *alternate(repeat, one_job, lambda: on_fresh_copy(
                source, scratch, lambda d: [sys.executable, "-c", JSON_FLOOR, str(d)])), cards)
        if "jobs" in wanted:
            report.row("jobs", *alternate(repeat, one_job, lambda: on_fresh_copy(
                source, scratch, lambda d: [*a2a, "upgrade", "-q", str(d)])), cards)
        if "startup" in wanted:
            one_card = next(source.rglob("*.json"))
            runs = max(repeat, 10)
            report.row("startup", *alternate(runs, lambda: timed([*a2a, "upgrade", "--check", str(one_card)], expect=1),
                                            lambda: timed([sys.executable, "-c", "import json"])), 1)
        convert = sdk_conversion()
        if wanted & {"api", "api-bare"} and convert is None:
            print("  api: skipped, the a2a SDK is not installed (pip install '.[test]')")
        elif wanted & {"api", "api-bare"} and convert is not None:
            api_rows(report, repeat, shapes, convert, wanted)
        if "yaml" in wanted:
            yaml_row(report, repeat, work, scratch, shapes, max(1, cards // 10))
        meta = {"cards": cards, "repeat": repeat, "jobs": default_jobs(), "python": platform.python_version(),
                "machine": platform.machine(), "cpus": os.cpu_count(), "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    finally:
        if keep:
            print(f"\nkept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    report.write(out, meta)
    return 0


def api_rows(report: Report, repeat: int, shapes: list[tuple[str, Any]], convert: Callable[[Any], Any],
             wanted: set[str]) -> None:
    """The in-process rows: the same cards through ``a2a_migrate.upgrade`` and through the SDK."""
    from a2a_migrate import Options, upgrade
    from a2a_migrate.api import migrate_in_place
    from a2a_migrate.io import to_plain

    usable = api_cards(shapes, convert)
    cards = [vary(usable[i % len(usable)], i) for i in range(max(200, 20 * len(usable)))]
    print(f"\nIn process: {len(cards)} cards of {len(usable)} shapes both convert")
    sdk = lambda: in_process(cards, convert)  # noqa: E731
    if "api" in wanted:
        report.row("api", *alternate(repeat, lambda: in_process(cards, upgrade), sdk), len(cards))
    if "api-bare" in wanted:
        bare = lambda card: migrate_in_place(to_plain(card), "up", Options(), record=False)  # noqa: E731
        report.row("api-bare", *alternate(repeat, lambda: in_process(cards, bare), sdk), len(cards))


def yaml_row(report: Report, repeat: int, work: Path, scratch: Path, shapes: list[tuple[str, Any]], count: int) -> None:
    a2a = tool()
    source = work / "yaml"
    usable = build_yaml_tree(source, count, shapes)
    os.sync()
    print(f"\nYAML: {count} cards ({usable} shapes); "
          f"check: {summary_line([*a2a, 'upgrade', '--check', '-j', '1', str(source)])}")
    report.row("yaml", *alternate(
        repeat, lambda: on_fresh_copy(source, scratch, lambda d: [*a2a, "upgrade", "-q", "-j", "1", str(d)]),
        lambda: on_fresh_copy(source, scratch, lambda d: [sys.executable, "-c", YAML_FLOOR, str(d)])), count)


#: Frames that only lead to the work (the interpreter, click, the CLI's entry), left out of the hot spots.
WRAPPERS = ("<frozen runpy>", "<string>", "__main__.py", "click/core.py", "builtins.exec>", "builtins.next>",
            "cli/migrate.py:", "(run_batch)")


def profile(cards: int, top: int = 15) -> int:
    import pstats

    work = Path(tempfile.mkdtemp(prefix="a2a-migrate-profile-"))
    try:
        build_json_tree(work / "cards", cards, templates())
        os.sync()
        out = work / "profile.out"
        subprocess.run([sys.executable, "-m", "cProfile", "-o", str(out), "-m", "a2a_migrate",
                        "upgrade", "-j", "1", str(work / "cards")], stderr=subprocess.DEVNULL, check=True, cwd=work)
        stats = pstats.Stats(str(out))
        total = stats.total_tt  # type: ignore[attr-defined]
        rows: list[tuple[float, float, int, str]] = []
        for (file, line, function), (_, calls, own, cumulative, _) in stats.stats.items():  # type: ignore[attr-defined]
            where = f"{file}:{line}({function})" if line else function
            if not any(wrapper in where for wrapper in WRAPPERS):
                rows.append((cumulative, own, calls, where.replace(str(REPO) + "/", "")))
        print(f"cProfile of upgrade -j 1 over {cards} cards: {total:.2f} s in all ({cards / total:.0f} cards/s)")
        for title, key in (("cumulative", 0), ("own time", 1)):
            print(f"\ntop {top} by {title} (entry frames left out):")
            print(f"  {'cumulative':>10} {'own':>8} {'%':>5} {'calls':>8}  function")
            for cumulative, own, calls, where in sorted(rows, key=lambda row: row[key], reverse=True)[:top]:
                share = 100 * (cumulative if key == 0 else own) / total
                print(f"  {cumulative:10.3f} {own:8.3f} {share:5.1f} {calls:8d}  {where}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cards", type=int, default=3_000, help="cards in the JSON tree (default 3,000)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each timing; the median is shown (default 3)")
    parser.add_argument("--profile", type=int, metavar="M", help="profile upgrade -j 1 over M cards instead")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the figures to FILE as JSON")
    parser.add_argument("--only", nargs="+", choices=sorted(TARGETS), default=[], help="measure only these rows")
    args = parser.parse_args(argv)
    if args.profile:
        return profile(args.profile)
    return benchmark(args.cards, args.repeat, args.keep, args.only, args.json)


if __name__ == "__main__":
    sys.exit(main())
