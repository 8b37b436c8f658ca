#!/usr/bin/env python3
"""Runs the differential cases through the ctxql Python package.

    python runcases.py cases.json out.json

cases.json is {"cases": [{"id", "op", "language", "text", "options",
"data", "dataName"}]}, op one of check, format, migrate, evaluate; out.json
gets {"outputs": {ID: {"result": R} | {"error": {code, message, range?}}}}
with R in the protocol's JSON shapes, rebuilt from the package's typed
results, so the outputs compare with the other runners' (native, Node,
browser). Run it with the Python of an environment the wheel is installed in.
"""

from __future__ import annotations

import dataclasses
import json
import re
import sys
from typing import Any, Dict, Optional

import ctxql


def snake(name: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", lambda m: "_" + m.group(1).lower(), name)


def rng(r: Optional[ctxql.Range]) -> Optional[Dict[str, Any]]:
    if r is None:
        return None
    return {k: {"line": p.line, "column": p.column, "offset": p.offset} for k, p in (("start", r.start), ("end", r.end))}


def diagnostic(d: ctxql.Diagnostic) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    if d.file is not None:
        out["file"] = d.file
    out.update(
        line=d.line,
        column=d.column,
        end_line=d.end_line,
        end_column=d.end_column,
        severity=d.severity,
        code=d.code,
        message=d.message,
        fixable=d.fixable,
    )
    out.update(d.extra)
    return out


def wire(v: Any) -> Any:
    """The protocol's JSON of a package result."""
    if isinstance(v, ctxql.MigrateResult):
        manual = []
        for m in v.manual:
            x: Dict[str, Any] = {"message": m.message, "range": rng(m.range)}
            if m.code:
                x = {"code": m.code, **x}
            manual.append(x)
        return {"text": v.text, "changed": v.changed, "manual": manual}
    if isinstance(v, ctxql.Explanation):
        steps = []
        for s in v.steps:
            x = {"text": s.text, "count": s.count}
            if s.range is not None:
                x["range"] = rng(s.range)
            steps.append(x)
        return {"steps": steps, "emptied": v.emptied, "summary": v.summary, "text": v.text}
    if isinstance(v, ctxql.Proof):
        return {"derived": v.derived, "text": v.text}
    if isinstance(v, list) and v and all(isinstance(d, ctxql.Diagnostic) for d in v):
        return [diagnostic(d) for d in v]
    if dataclasses.is_dataclass(v):
        return dataclasses.asdict(v)
    return v


def run(case: Dict[str, Any]) -> Any:
    op, language, text = case["op"], case.get("language", ""), case.get("text", "")
    options = dict(case.get("options") or {})
    if op == "check":
        return ctxql.check(text, language=language, **{snake(k): v for k, v in options.items()})
    if op == "format":
        return ctxql.format(text, language=language, **{snake(k): v for k, v in options.items()})
    if op == "migrate":
        return ctxql.migrate(text, **{snake(k): v for k, v in options.items()})
    if op == "evaluate":
        with ctxql.load(language, case.get("data", ""), name=case.get("dataName")) as data:
            return data.evaluate(text, **{snake(k): v for k, v in options.items()})
    raise ctxql.QueryError("usage", f"unknown op {op!r}")


def main(argv) -> int:
    if len(argv) != 3:
        print("usage: runcases.py cases.json out.json", file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        cases = json.load(f)["cases"]
    outputs: Dict[str, Any] = {}
    for case in cases:
        try:
            outputs[case["id"]] = {"result": wire(run(case))}
        except ctxql.QueryError as e:
            err: Dict[str, Any] = {"code": e.code, "message": e.message}
            if e.range is not None:
                err["range"] = rng(e.range)
            outputs[case["id"]] = {"error": err}
    with open(argv[2], "w", encoding="utf-8") as f:
        json.dump({"outputs": outputs}, f, ensure_ascii=False, indent=1)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
