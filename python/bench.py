#!/usr/bin/env python3
"""Measures what a call on loaded data costs through the ctxql package.

    python bench.py LANGUAGE DATAFILE QUERY [N]

Loads DATAFILE once, evaluates QUERY N times (default 2000, after 200
warm-up calls) on the handle and prints one JSON line: the median and the
90th percentile of a call's round trip in microseconds. The Go benchmark
BenchmarkPythonCall (internal/launchtest) runs it next to the same
evaluation called in process, the engine's own time, and prints the
difference: the cost of the package and the worker's pipe.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time

import ctxql


def main(argv) -> int:
    if len(argv) not in (4, 5):
        print(__doc__, file=sys.stderr)
        return 2
    language, path, query = argv[1:4]
    n = int(argv[4]) if len(argv) == 5 else 2000
    with open(path, "rb") as f:
        raw = f.read()
    with ctxql.load(language, raw, name=os.path.basename(path)) as data:
        for _ in range(200):
            data.evaluate(query)
        times = []
        for _ in range(n):
            t0 = time.perf_counter_ns()
            data.evaluate(query)
            times.append(time.perf_counter_ns() - t0)
    times.sort()
    print(json.dumps({"n": n, "p50_us": statistics.median(times) / 1000, "p90_us": times[int(n * 0.9)] / 1000}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
