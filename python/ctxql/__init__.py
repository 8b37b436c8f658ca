"""ctxql for Python: check, format, migrate and evaluate PACT, JQL and Datalog.

Every call goes to one long-lived `ctxql worker` process (the binary bundled
in the wheel), started on first use and stopped when Python exits. Data
loaded once with load() stays parsed in the worker, so each query on it
costs only its evaluation:

    import ctxql

    with ctxql.load("jql", open("activities.json").read()) as data:
        rows = data.evaluate('{"from": "activities", "limit": 2}')

Errors are raised as ctxql.QueryError (code, message, line, column).
"""

from __future__ import annotations

import base64
import json
from typing import Any, Dict, List, Optional, Sequence, Union

from ._types import Diagnostic, ExplainStep, Explanation, Manual, MigrateResult, Position, Proof, Query, QueryError, Range, diagnostics
from ._worker import binary, default

try:
    from ._version import __version__
except ImportError:  # the source tree; the wheel writes _version.py
    __version__ = "devel"

__all__ = [
    "LANGUAGES",
    "Data",
    "Diagnostic",
    "ExplainStep",
    "Explanation",
    "Manual",
    "MigrateResult",
    "Position",
    "Proof",
    "Query",
    "QueryError",
    "Range",
    "binary",
    "check",
    "evaluate",
    "format",
    "load",
    "migrate",
    "queries",
    "version",
]

#: A JSON value as the json module reads it.
JSON = Any

#: The languages ctxql knows: their names as the CLI and the protocol spell them.
LANGUAGES = ("pact", "jql", "datalog")


def _opt(params: Dict[str, Any], **kv: Any) -> Dict[str, Any]:
    for k, v in kv.items():
        if v is not None:
            params[k] = v
    return params


def version() -> str:
    """What `ctxql version` prints, without the newline."""
    return str(default().call("version", {}))


def check(text: str, language: str, dialect: Optional[str] = None, path: Optional[str] = None) -> List[Diagnostic]:
    """Lints one query or program and returns its diagnostics (empty when clean).

    dialect is the PACT dialect ("v1" or "v2") of a text without a pragma;
    path names the text in diagnostics and picks the rules that apply to it.
    """
    return diagnostics(default().call("check", _opt({"text": text, "language": language}, dialect=dialect, path=path)))


def format(text: str, language: str, dialect: Optional[str] = None, path: Optional[str] = None) -> str:  # noqa: A001
    """The canonical form of a query or program, as `ctxql fmt` writes it."""
    return str(default().call("format", _opt({"text": text, "language": language}, dialect=dialect, path=path)))


def queries(
    text: str, language: str, dialect: Optional[str] = None, path: Optional[str] = None, offset: Optional[int] = None
) -> List[Query]:
    """The queries of a text in source order, as ctxql divides it (Datalog: each rule with its head's relation).

    With offset (a byte offset of the text) only the query a run from there
    evaluates: in PACT the query of the offset's line, elsewhere the last
    query whose range touches it; none when no query is there.
    """
    r = default().call("queries", _opt({"text": text, "language": language}, dialect=dialect, path=path, offset=offset))
    return [Query._from_json(q) for q in (r or [])]


def migrate(text: str, to: Optional[str] = "v2", dialect: Optional[str] = None, unsafe: bool = False, path: Optional[str] = None) -> MigrateResult:
    """Rewrites legacy PACT as `ctxql migrate --to TO` does (to=None: only the deprecated forms).

    The result's text is what `ctxql migrate` prints; manual lists the
    places left unchanged because they need a decision. unsafe also applies
    the rewrites that may change a result, as --unsafe does.
    """
    r = default().call("migrate", _opt({"text": text}, to=to, dialect=dialect, unsafe=unsafe or None, path=path))
    return MigrateResult._from_json(r)


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(w[:1].upper() + w[1:] for w in rest)


def _eval_options(options: Dict[str, Any]) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    for k, v in options.items():
        if v is None or v is False:
            continue
        out[_camel(k)] = v
    return out


def _result(v: Any, explain: bool) -> Any:
    return Explanation._from_json(v) if explain and isinstance(v, dict) else v


def _data_params(data: Union[str, bytes, bytearray, memoryview]) -> Dict[str, Any]:
    if isinstance(data, str):
        return {"data": data}
    if isinstance(data, (bytes, bytearray, memoryview)):
        return {"dataBase64": base64.b64encode(bytes(data)).decode("ascii")}
    raise TypeError(f"data must be str or bytes, not {type(data).__name__}")


def _tuple_text(t: Union[str, Sequence[Any]]) -> str:
    """A tuple as --why takes it: 'q("a", "b")', from that text or from ("q", "a", "b")."""
    if isinstance(t, str):
        return t
    if not t:
        raise TypeError("a tuple needs a relation name")
    rel, *args = t
    return f"{rel}({', '.join(json.dumps(a) for a in args)})"


class Data:
    """Data loaded once into the worker, queried many times.

    Close it (or use it as a context manager) to free the worker's copy;
    a handle dropped without close() is freed on a later call.
    """

    def __init__(self, language: str, handle: int, gen: int) -> None:
        self.language = language
        self._handle: Optional[int] = handle
        self._gen = gen

    def _call(self, method: str, params: Dict[str, Any]) -> Any:
        if self._handle is None:
            raise QueryError("usage", "the data handle is closed")
        params["handle"] = self._handle
        return default().call_on(self._gen, method, params)

    def evaluate(
        self,
        query: str,
        dialect: Optional[str] = None,
        explain: bool = False,
        *,
        program: bool = False,
        range_options: Optional[Dict[str, Any]] = None,
        max_tuples: Optional[int] = None,
        max_bytes: Optional[int] = None,
    ) -> JSON:
        """The JSON value `ctxql eval LANGUAGE` prints for query on this data.

        With explain=True (PACT and JQL) it returns an Explanation instead.
        program evaluates Datalog text as a whole program (--rules): the
        result maps each derived relation to its tuples. range_options are
        PACT's --options; max_tuples and max_bytes are Datalog's --max-tuples
        and JQL's --max-bytes.
        """
        params = _eval_options(
            dict(dialect=dialect, explain=explain, program=program, range_options=range_options, max_tuples=max_tuples, max_bytes=max_bytes)
        )
        params["query"] = query
        return _result(self._call("evaluate", params), explain)

    def why(self, tuple: Union[str, Sequence[Any]], rules: str, depth: Optional[int] = None) -> Proof:  # noqa: A002
        """How the Datalog program rules derives tuple, as `ctxql eval datalog --why` prints it.

        tuple is the text --why takes ('path("a", "c")') or a sequence
        ("path", "a", "c").
        """
        return Proof._from_json(self._call("why", _opt({"rules": rules, "tuple": _tuple_text(tuple)}, depth=depth)))

    def why_not(self, tuple: Union[str, Sequence[Any]], rules: str) -> Proof:  # noqa: A002
        """Why rules does not derive tuple: for each rule of its relation, the first body item that fails."""
        return Proof._from_json(self._call("whyNot", {"rules": rules, "tuple": _tuple_text(tuple)}))

    def close(self) -> None:
        """Frees the data in the worker. Closing twice does nothing."""
        handle, self._handle = self._handle, None
        if handle is not None:
            try:
                default().call_on(self._gen, "release", {"handle": handle})
            except QueryError:
                pass  # the worker is gone, and the data with it

    @property
    def closed(self) -> bool:
        """Whether close() was called."""
        return self._handle is None

    def __enter__(self) -> "Data":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        handle = getattr(self, "_handle", None)
        if handle is not None:
            try:
                default().drop(self._gen, handle)
            except Exception:  # noqa: BLE001 - at interpreter exit the module may be gone
                pass

    def __repr__(self) -> str:
        state = "closed" if self._handle is None else f"handle {self._handle}"
        return f"<ctxql.Data {self.language} {state}>"


def load(language: str, data: Union[str, bytes], name: Optional[str] = None) -> Data:
    """Parses data once for language ("pact", "jql" or "datalog") and returns its handle.

    data is the text of the data file (bytes are sent as they are); name,
    such as "activities.json", is the file name the CLI would have seen,
    which picks the format where the language reads several.
    """
    w = default()
    params = _opt(_data_params(data), language=language, name=name)
    r, gen = w.call_gen("load", params)
    handle = r["handle"] if isinstance(r, dict) else r
    return Data(language, int(handle), gen)


def evaluate(language: str, query: str, data: Union[str, bytes], name: Optional[str] = None, **options: Any) -> JSON:
    """Loads data, evaluates query once and returns what `ctxql eval LANGUAGE` prints.

    options are Data.evaluate's keyword arguments (dialect, explain,
    program, range_options, max_tuples, max_bytes).
    """
    explain = bool(options.get("explain"))
    params = _opt(_data_params(data), language=language, query=query, name=name)
    params["options"] = _eval_options(options)
    return _result(default().call("evaluateOnce", params), explain)
