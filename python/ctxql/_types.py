"""The typed values the ctxql API returns and the one error it raises."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional


@dataclass(frozen=True)
class Position:
    """A point in a text: 1-based line and column as ctxql prints them, and the byte offset."""

    line: int
    column: int
    offset: Optional[int] = None

    @classmethod
    def _from_json(cls, v: Mapping[str, Any]) -> "Position":
        return cls(line=int(v.get("line", 0)), column=int(v.get("column", 0)), offset=v.get("offset"))


@dataclass(frozen=True)
class Range:
    """The span of a text an error or a diagnostic is about."""

    start: Position
    end: Position

    @classmethod
    def _from_json(cls, v: Mapping[str, Any]) -> "Range":
        return cls(start=Position._from_json(v.get("start") or {}), end=Position._from_json(v.get("end") or {}))


@dataclass(frozen=True)
class Diagnostic:
    """One finding of ctxql.check, as one diagnostic of `ctxql check --format json`.

    line/column and end_line/end_column are 1-based, as the CLI prints them.
    extra holds any further field the CLI's JSON carries (fixes, related
    information), unchanged.
    """

    code: str
    severity: str
    message: str
    line: int
    column: int
    end_line: int
    end_column: int
    file: Optional[str] = None
    fixable: bool = False
    extra: Dict[str, Any] = field(default_factory=dict)

    _known = ("code", "severity", "message", "line", "column", "end_line", "end_column", "file", "fixable")

    @classmethod
    def _from_json(cls, v: Mapping[str, Any]) -> "Diagnostic":
        return cls(
            code=str(v.get("code", "")),
            severity=str(v.get("severity", "")),
            message=str(v.get("message", "")),
            line=int(v.get("line", 0)),
            column=int(v.get("column", 0)),
            end_line=int(v.get("end_line", v.get("line", 0))),
            end_column=int(v.get("end_column", v.get("column", 0))),
            file=v.get("file"),
            fixable=bool(v.get("fixable", False)),
            extra={k: x for k, x in v.items() if k not in cls._known},
        )


@dataclass(frozen=True)
class Manual:
    """A place a migration left unchanged because it needs a decision."""

    message: str
    code: str = ""
    range: Optional[Range] = None

    @classmethod
    def _from_json(cls, v: Mapping[str, Any]) -> "Manual":
        r = v.get("range")
        return cls(message=str(v.get("message", "")), code=str(v.get("code") or ""), range=Range._from_json(r) if r else None)


@dataclass(frozen=True)
class MigrateResult:
    """What ctxql.migrate returns: the text `ctxql migrate` prints, whether it changed, and what needs a decision."""

    text: str
    changed: bool = False
    manual: List[Manual] = field(default_factory=list)

    def __str__(self) -> str:
        return self.text

    @classmethod
    def _from_json(cls, v: Mapping[str, Any]) -> "MigrateResult":
        return cls(
            text=str(v.get("text", "")),
            changed=bool(v.get("changed", False)),
            manual=[Manual._from_json(m) for m in (v.get("manual") or [])],
        )


@dataclass(frozen=True)
class Query:
    """One query of a text as ctxql divides it: a PACT query (one per line), a JQL query, a Datalog rule or fact.

    text is the query as written and range where it is (1-based lines and
    columns, byte offsets); relation is, for a Datalog rule or fact, the
    relation of its first head (the relation a run of it shows), else None.
    """

    text: str
    range: Range
    relation: Optional[str] = None

    @classmethod
    def _from_json(cls, v: Mapping[str, Any]) -> "Query":
        return cls(text=str(v.get("text", "")), range=Range._from_json(v.get("range") or {}), relation=v.get("relation") or None)


@dataclass(frozen=True)
class Proof:
    """What why and why_not return: whether the tuple is derived, and the text `--why`/`--why-not` prints."""

    derived: bool
    text: str

    def __str__(self) -> str:
        return self.text

    @classmethod
    def _from_json(cls, v: Mapping[str, Any]) -> "Proof":
        return cls(derived=bool(v.get("derived", False)), text=str(v.get("text", "")))


@dataclass(frozen=True)
class ExplainStep:
    """One step of an explained PACT or JQL query: its text, how many items it kept, and where it is."""

    text: str
    count: int
    range: Optional[Range] = None


@dataclass(frozen=True)
class Explanation:
    """What evaluate(..., explain=True) returns: the steps, the one that emptied the result, and the text `--explain` prints."""

    steps: List[ExplainStep]
    emptied: int
    summary: str
    text: str

    def __str__(self) -> str:
        return self.text

    @classmethod
    def _from_json(cls, v: Mapping[str, Any]) -> "Explanation":
        steps = [
            ExplainStep(text=str(s.get("text", "")), count=int(s.get("count", 0)), range=Range._from_json(s["range"]) if s.get("range") else None)
            for s in (v.get("steps") or [])
        ]
        return cls(steps=steps, emptied=int(v.get("emptied", 0)), summary=str(v.get("summary", "")), text=str(v.get("text", "")))


class QueryError(Exception):
    """The one error of the ctxql API.

    code is the diagnostic code of the first error of an invalid query, or
    one of "usage", "data", "limit", "internal"; line and column (1-based)
    say where, when the error has a place; range has the byte offsets too.
    """

    def __init__(self, code: str, message: str, range: Optional[Range] = None) -> None:
        super().__init__(f"{code}: {message}" if code else message)
        self.code = code
        self.message = message
        self.range = range

    @property
    def line(self) -> Optional[int]:
        """The 1-based line the error starts on, or None."""
        return self.range.start.line if self.range else None

    @property
    def column(self) -> Optional[int]:
        """The 1-based column the error starts at, or None."""
        return self.range.start.column if self.range else None

    @classmethod
    def _from_json(cls, v: Mapping[str, Any]) -> "QueryError":
        r = v.get("range")
        return cls(str(v.get("code", "internal")), str(v.get("message", "")), Range._from_json(r) if r else None)

    def __reduce__(self):  # keeps the fields through pickling (multiprocessing)
        return (type(self), (self.code, self.message, self.range))


def diagnostics(v: Any) -> List[Diagnostic]:
    """Converts the worker's check result to Diagnostics."""
    return [Diagnostic._from_json(d) for d in (v or [])]
