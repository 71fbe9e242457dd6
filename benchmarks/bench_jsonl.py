"""Benchmark of JSONL registries (issue 12): one process, worker processes, a Dask cluster.

    python benchmarks/bench_jsonl.py [--records N] [--files F] [--workers W] [--repeat R] [--json FILE]
                                     [--extrapolate RECORDS WORKERS]

Writes N records (default 200,000) in F JSONL files (default 4) to a temporary
folder: one compact card per line, the shapes :mod:`bench` draws its cards from
(``golden/*.0.3.json``, and ``../shared/corpus/real/`` when it is there, else
``examples/``), names and ids varied per record. Then times, each as a command
a user would run, results and reports written to files:

    floor    json.loads and json.dumps (compact) of each line, in one process
    jsonl-1  upgrade --jsonl -j 1 --report FILE       (the reports carry patches, as the Dask parts do)
    jsonl    upgrade --jsonl --report FILE            (default jobs: one per CPU)
    dask     upgrade --jsonl -o DIR --scheduler local:W   (a LocalCluster of W worker processes, its start included)

and prints records per second, the ratios, and what the Dask figure says about
``--extrapolate RECORDS WORKERS`` (default 10,000,000 records on 50 workers),
with its assumptions. It runs from a checkout with either install, as
``bench.py`` does (whose helpers it uses); speed is never asserted by tests.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench  # noqa: E402  (takes the checkout's root off sys.path: the installed a2a_migrate is used)

sys.path.pop(0)

JSONL_FLOOR = r"""
import json, sys
with open(sys.argv[-1], "w", encoding="utf-8") as out:
    for path in sys.argv[1:-1]:
        with open(path, encoding="utf-8") as stream:
            for line in stream:
                if line.strip():
                    out.write(json.dumps(json.loads(line), ensure_ascii=False, separators=(",", ":")) + "\n")
"""


def build(folder: Path, records: int, files: int) -> list[Path]:
    """``files`` JSONL files holding ``records`` varied cards between them, one per line."""
    shapes = [card for _, card in bench.templates()]
    folder.mkdir(parents=True)
    paths = [folder / f"registry-{index:02d}.jsonl" for index in range(files)]
    per_file = -(-records // files)
    for index, path in enumerate(paths):
        with path.open("w", encoding="utf-8") as out:
            for i in range(index * per_file, min(records, (index + 1) * per_file)):
                out.write(json.dumps(bench.vary(shapes[i % len(shapes)], i), ensure_ascii=False,
                                     separators=(",", ":")) + "\n")
    return paths


def timed(command: Sequence[str], stdout: Path, expect: int = 0) -> float:
    """Seconds one command takes, its stdout written to a file; a wrong exit status stops the benchmark."""
    with stdout.open("wb") as out:
        started = time.perf_counter()
        done = subprocess.run(command, stdout=out, stderr=subprocess.PIPE, env=bench.ENV, cwd=bench.WORK[0])
        elapsed = time.perf_counter() - started
    if done.returncode != expect:
        tail = done.stderr.decode(errors="replace").strip().splitlines()[-3:]
        raise SystemExit(f"{' '.join(command)}: exit {done.returncode}, expected {expect}: {tail}")
    return elapsed


def rows(inputs: list[Path], work: Path, workers: int, repeat: int) -> dict[str, float]:
    """Median seconds of each row (the rows of a round run one after the other, ``repeat`` rounds)."""
    a2a, names = bench.tool(), [str(path) for path in inputs]
    out, report = work / "out.jsonl", work / "report.jsonl"

    def dask() -> float:
        shutil.rmtree(work / "parts", ignore_errors=True)
        return timed([*a2a, "upgrade", "--jsonl", "-q", *names, "-o", str(work / "parts"), "--scheduler",
                      f"local:{workers}"], out)

    commands = {
        "floor": lambda: timed([sys.executable, "-c", JSONL_FLOOR, *names, str(out)], work / "floor.stdout"),
        "jsonl-1": lambda: timed([*a2a, "upgrade", "--jsonl", "-q", "-j", "1", "--report", str(report), *names], out),
        "jsonl": lambda: timed([*a2a, "upgrade", "--jsonl", "-q", "--report", str(report), *names], out),
        "dask": dask,
    }
    times: dict[str, list[float]] = {name: [] for name in commands}
    for round_ in range(repeat):
        for name, command in commands.items():
            os.sync()
            times[name].append(command())
            print(f"  round {round_ + 1}: {name:<8} {times[name][-1]:8.2f} s", flush=True)
    return {name: statistics.median(values) for name, values in times.items()}


def extrapolation(records: int, dask_seconds: float, workers: int, target: tuple[int, int]) -> dict[str, Any]:
    """What the measured per-worker rate of the Dask row says about ``target`` (records, workers)."""
    per_worker = records / dask_seconds / workers  # the start of the cluster counted against the rate: pessimistic
    target_records, target_workers = target
    seconds = target_records / (per_worker * target_workers)
    return {"records": target_records, "workers": target_workers, "per_worker_records_per_second": per_worker,
            "seconds": seconds}


def report(records: int, inputs: list[Path], medians: dict[str, float], workers: int, target: tuple[int, int],
           out: Path | None) -> None:
    size = sum(path.stat().st_size for path in inputs)
    print(f"\n{records} records, {len(inputs)} files, {size / 2 ** 20:.0f} MiB; default jobs {bench.default_jobs()}, "
          f"dask workers {workers}")
    rates = {name: records / seconds for name, seconds in medians.items()}
    for name, seconds in medians.items():
        print(f"  {name:<8} {seconds:8.2f} s  {rates[name]:9.0f} records/s  floor/{name} "
              f"{medians['floor'] / seconds:5.3f}  {name}/jsonl-1 speed {rates[name] / rates['jsonl-1']:5.2f}x")
    guess = extrapolation(records, medians["dask"], workers, target)
    print(f"\n{guess['records']:,} records on {guess['workers']} workers: about {guess['seconds'] / 60:.1f} min "
          f"({guess['per_worker_records_per_second']:.0f} records/s per worker as measured here), assuming: "
          "workers as fast as this machine's cores, one core each; linear scaling (blocks are independent, no "
          "shuffle; 8 MiB blocks give thousands of tasks, enough for every worker); storage and network keep up "
          "(reading twice for the line count, writing results and reports); the cluster already started.")
    if out is not None:
        meta = {"records": records, "files": len(inputs), "bytes": size, "workers": workers,
                "default_jobs": bench.default_jobs(), "python": platform.python_version(), "cpus": os.cpu_count(),
                "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        out.write_text(json.dumps({**meta, "seconds": medians, "records_per_second": rates,
                                   "extrapolation": guess}, indent=2) + "\n", encoding="utf-8")
        print(f"figures written to {out}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=200_000, help="records in all (default 200,000)")
    parser.add_argument("--files", type=int, default=4, help="JSONL files they are spread over (default 4)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes of the LocalCluster (default 2)")
    parser.add_argument("--repeat", type=int, default=1, help="rounds; the median is shown (default 1)")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the figures to FILE as JSON")
    parser.add_argument("--extrapolate", type=int, nargs=2, metavar=("RECORDS", "WORKERS"),
                        default=(10_000_000, 50), help="the run to extrapolate to (default 10,000,000 on 50)")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="a2a-migrate-bench-jsonl-"))
    bench.WORK[0] = work
    bench.ENV["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    try:
        inputs = build(work / "registry", args.records, args.files)
        medians = rows(inputs, work, args.workers, args.repeat)
        report(args.records, inputs, medians, args.workers, tuple(args.extrapolate), args.json)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
