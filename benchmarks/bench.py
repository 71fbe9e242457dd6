"""Benchmark of batch runs over card repositories.

    python benchmarks/bench.py [--cards N] [--repeat R] [--profile M] [--keep]

Builds, in a temporary folder, a tree of N cards (default 10,000) whose shapes
come from the repo's ``golden/*.0.3.json`` and, when ``../shared/corpus/real/``
exists beside the repo, from the real cards there (else from ``examples/``).
Names, ids and file names vary so that no two files are the same; only shapes
the tool upgrades successfully are kept. Then it times, each R times (the
median is reported), the tool against what plain Python needs to do the same
I/O, and prints cards per second and each ratio against its target.

``--profile M`` instead runs cProfile over ``upgrade -j 1`` of M cards and
prints the 15 functions with the largest cumulative time, then the 15 with
the largest own time (the interpreter's and click's entry frames left out).

Every copy of a tree is flushed to disk (``os.sync``) before it is timed, so
that one command's ``fsync`` does not pay for writing back the copy. Child
processes cache bytecode in a temporary ``PYTHONPYCACHEPREFIX``, as an
installed tool has it. Start-up is the median of at least 10 runs.

This is a script to run by hand, not a test: speed is never asserted by tests.
"""

from __future__ import annotations

import argparse
import json
import os
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
sys.path.insert(0, str(REPO))

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

# The same, plus what a safe in-place writer must do: a temporary file, fsync, rename.
JSON_FLOOR_ATOMIC = r"""
import json, os, sys, tempfile
for folder, _, files in os.walk(sys.argv[1]):
    for name in files:
        if name.endswith(".json"):
            path = os.path.join(folder, name)
            with open(path, encoding="utf-8") as stream:
                data = json.loads(stream.read())
            handle, temporary = tempfile.mkstemp(dir=folder)
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                stream.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
                stream.flush()
                os.fsync(stream.fileno())
            os.replace(temporary, path)
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

# Runs one command and prints the peak resident memory (KiB) of it and its descendants:
# a fresh process, so RUSAGE_CHILDREN holds nothing else.
PEAK_RSS = r"""
import resource, subprocess, sys
code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
print(code, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
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


def timed(command: Sequence[str], expect: int = 0, stdout: Any = subprocess.DEVNULL) -> float:
    started = time.perf_counter()
    done = subprocess.run(command, stdout=stdout, stderr=subprocess.PIPE, env=ENV)
    elapsed = time.perf_counter() - started
    if done.returncode != expect:
        tail = done.stderr.decode(errors="replace").strip().splitlines()[-3:]
        raise SystemExit(f"{' '.join(command)}: exit {done.returncode}, expected {expect}: {tail}")
    return elapsed


def median_of(repeat: int, run: Callable[[], float]) -> float:
    return statistics.median(run() for _ in range(repeat))


def on_fresh_copy(source: Path, scratch: Path, command: Callable[[Path], Sequence[str]], expect: int = 0) -> float:
    """Time ``command(copy)`` on a fresh copy of ``source`` (the copying is not timed)."""
    copy = scratch / "run"
    if copy.exists():
        shutil.rmtree(copy)
    shutil.copytree(source, copy)
    os.sync()
    return timed(command(copy), expect)


def peak_rss_kib(command: Sequence[str]) -> int:
    out = subprocess.run([sys.executable, "-c", PEAK_RSS, *command], capture_output=True, text=True, check=True,
                         env=ENV)
    code, kib = out.stdout.split()
    if code != "0":
        raise SystemExit(f"{' '.join(command)}: exit {code}")
    return int(kib)


def summary_line(command: Sequence[str]) -> str:
    done = subprocess.run(command, capture_output=True, text=True, env=ENV)
    lines = done.stderr.strip().splitlines()
    return lines[-1] if lines else f"(exit {done.returncode}, no output)"


# -- report ----------------------------------------------------------------------------------------


class Report:
    def __init__(self) -> None:
        self.verdicts: list[tuple[str, bool]] = []

    def time(self, label: str, seconds: float, cards: int) -> None:
        print(f"  {label:<44} {seconds:8.3f} s  {cards / seconds:9.0f} cards/s")

    def target(self, label: str, ratio: float, limit: float, at_most: bool = True) -> None:
        ok = ratio <= limit if at_most else ratio >= limit
        sign = "<=" if at_most else ">="
        print(f"  -> {label}: {ratio:.2f}x (target {sign} {limit}x) {'OK' if ok else 'MISSED'}")
        self.verdicts.append((label, ok))


def benchmark(cards: int, repeat: int, keep: bool) -> int:
    shapes = templates()
    print(f"{len(shapes)} card shapes that upgrade, from {REPO / 'golden'} and "
          f"{SHARED / 'corpus' / 'real' if (SHARED / 'corpus' / 'real').is_dir() else REPO / 'examples'}")
    print(f"command: {' '.join(tool())}; default jobs: {default_jobs()}; median of {repeat} runs")
    work = Path(tempfile.mkdtemp(prefix="a2a-migrate-bench-"))
    ENV["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    report = Report()
    try:
        source = work / "cards"
        build_json_tree(source, cards, shapes)
        os.sync()
        scratch = work / "scratch"
        scratch.mkdir()
        a2a = tool()
        print(f"\nJSON: {cards} cards ({sum(p.stat().st_size for p in source.rglob('*.json')) // 1024} KiB)")
        print(f"  check: {summary_line([*a2a, 'upgrade', '--check', '-j', '1', str(source)])}")

        floor = median_of(repeat, lambda: on_fresh_copy(source, scratch, lambda d: [sys.executable, "-c", JSON_FLOOR, str(d)]))
        report.time("floor: read, loads, dumps, write", floor, cards)
        atomic = median_of(repeat, lambda: on_fresh_copy(
            source, scratch, lambda d: [sys.executable, "-c", JSON_FLOOR_ATOMIC, str(d)]))
        report.time("floor + temp file, fsync, rename (info)", atomic, cards)
        one = median_of(repeat, lambda: on_fresh_copy(source, scratch, lambda d: [*a2a, "upgrade", "-j", "1", str(d)]))
        report.time("upgrade -j 1", one, cards)
        default = median_of(repeat, lambda: on_fresh_copy(source, scratch, lambda d: [*a2a, "upgrade", str(d)]))
        report.time(f"upgrade (default jobs = {default_jobs()})", default, cards)
        if default_jobs() == 2:
            two = default
        else:
            two = median_of(repeat, lambda: on_fresh_copy(source, scratch, lambda d: [*a2a, "upgrade", "-j", "2", str(d)]))
            report.time("upgrade -j 2", two, cards)
        check = median_of(repeat, lambda: timed([*a2a, "upgrade", "--check", str(source)], expect=1))
        report.time("upgrade --check (default jobs)", check, cards)
        patch_file = work / "patch.json"
        with patch_file.open("wb") as out:
            patch = median_of(repeat, lambda: timed([*a2a, "upgrade", "--patch", str(source)], stdout=out))
        report.time("upgrade --patch > FILE (default jobs)", patch, cards)
        report.target("upgrade -j 1 / floor", one / floor, 3.0)
        print(f"     (upgrade -j 1 / atomic floor: {one / atomic:.2f}x)")
        report.target("speed-up of -j 2 over -j 1", one / two, 1.6, at_most=False)

        yaml_cards = max(1, cards // 10)
        yaml_source = work / "yaml"
        usable = build_yaml_tree(yaml_source, yaml_cards, shapes)
        print(f"\nYAML: {yaml_cards} cards ({usable} shapes)")
        print(f"  check: {summary_line([*a2a, 'upgrade', '--check', '-j', '1', str(yaml_source)])}")
        yaml_floor = median_of(repeat, lambda: on_fresh_copy(
            yaml_source, scratch, lambda d: [sys.executable, "-c", YAML_FLOOR, str(d)]))
        report.time("floor: ruamel round-trip load, dump", yaml_floor, yaml_cards)
        yaml_one = median_of(repeat, lambda: on_fresh_copy(
            yaml_source, scratch, lambda d: [*a2a, "upgrade", "-j", "1", str(d)]))
        report.time("upgrade -j 1", yaml_one, yaml_cards)
        yaml_default = median_of(repeat, lambda: on_fresh_copy(
            yaml_source, scratch, lambda d: [*a2a, "upgrade", str(d)]))
        report.time(f"upgrade (default jobs = {default_jobs()})", yaml_default, yaml_cards)
        report.target("YAML upgrade -j 1 / ruamel floor", yaml_one / yaml_floor, 1.3)

        runs = max(repeat, 10)
        one_card = next(source.rglob("*.json"))
        print(f"\nStart-up (median of {runs} runs)")
        bare = median_of(runs, lambda: timed([sys.executable, "-c", "import json"]))
        print(f"  {BARE_LABEL:<44} {bare * 1000:8.1f} ms")
        start = median_of(runs, lambda: timed([*a2a, "upgrade", "--check", str(one_card)], expect=1))
        print(f"  {'a2a-migrate upgrade --check ONE_CARD':<44} {start * 1000:8.1f} ms")
        report.target("one-card start-up / python -c 'import json'", start / bare, 3.0)

        small = work / "small"
        build_json_tree(small, 100, shapes)
        large = source if cards == 10_000 else work / "large"
        if large != source:
            build_json_tree(large, 10_000, shapes)
        print("\nPeak memory (max RSS of the command and its workers, in-place upgrade of a fresh copy)")
        for jobs in ("1", str(default_jobs())):
            peaks = []
            for tree in (small, large):
                copy = scratch / "run"
                if copy.exists():
                    shutil.rmtree(copy)
                shutil.copytree(tree, copy)
                os.sync()
                peaks.append(peak_rss_kib([*a2a, "upgrade", "-j", jobs, str(copy)]))
            print(f"  -j {jobs}: 100 cards {peaks[0] / 1024:6.1f} MiB, 10,000 cards {peaks[1] / 1024:6.1f} MiB")
            if jobs == "1":
                report.target("peak memory -j 1, 10,000 / 100 cards", peaks[1] / peaks[0], 2.0)
            else:
                print(f"  -> -j {jobs}, 10,000 / 100 cards: {peaks[1] / peaks[0]:.2f}x (the largest single process)")
    finally:
        if keep:
            print(f"\nkept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    missed = [label for label, ok in report.verdicts if not ok]
    print(f"\n{len(report.verdicts) - len(missed)} of {len(report.verdicts)} targets met"
          + (f"; missed: {', '.join(missed)}" if missed else ""))
    return 0


#: Frames that only lead to the work (the interpreter, click, the CLI's entry), left out of the hot spots.
WRAPPERS = ("<frozen runpy>", "<string>", "__main__.py", "click/core.py", "builtins.exec>", "builtins.next>",
            "cli.py:", "(run_batch)")


def profile(cards: int, top: int = 15) -> int:
    import pstats

    work = Path(tempfile.mkdtemp(prefix="a2a-migrate-profile-"))
    try:
        build_json_tree(work / "cards", cards, templates())
        os.sync()
        out = work / "profile.out"
        subprocess.run([sys.executable, "-m", "cProfile", "-o", str(out), "-m", "a2a_migrate",
                        "upgrade", "-j", "1", str(work / "cards")], stderr=subprocess.DEVNULL, check=True)
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
    parser.add_argument("--cards", type=int, default=10_000, help="cards in the JSON tree (default 10,000)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each timing; the median is shown (default 3)")
    parser.add_argument("--profile", type=int, metavar="M", help="profile upgrade -j 1 over M cards instead")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args(argv)
    if args.profile:
        return profile(args.profile)
    return benchmark(args.cards, args.repeat, args.keep)


if __name__ == "__main__":
    sys.exit(main())
