"""The connection to `ctxql worker`: one long-lived process per Python process.

Requests and responses are JSON lines on the worker's stdin and stdout. A
lock makes a request and its response one step, so threads share the
worker safely. The worker is started on first use, again after a fork (a
child never writes to its parent's worker), and again if it died. It exits
when its stdin closes, which happens when this process exits or is killed,
and when its parent dies.
"""

from __future__ import annotations

import atexit
import json
import os
import subprocess
import sys
import threading
from typing import IO, Any, Dict, List, Optional, Tuple

from ._types import QueryError

_EXE = "ctxql.exe" if sys.platform == "win32" else "ctxql"


def binary() -> str:
    """The path of the ctxql binary the package runs.

    The CTXQL_BINARY environment variable overrides the binary bundled in
    the wheel (ctxql/bin/ctxql, ctxql.exe on Windows).
    """
    override = os.environ.get("CTXQL_BINARY")
    if override:
        return override
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", _EXE)
    if not os.path.isfile(path):
        raise QueryError(
            "internal",
            f"the ctxql binary is missing from the package ({path}); install a wheel for this platform or set CTXQL_BINARY",
        )
    return path


class Worker:
    """One `ctxql worker` process and the lock its requests take."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: Optional[subprocess.Popen] = None
        self._pid = 0
        self._next = 0
        # Handles dropped by the garbage collector, released on the next call
        # (a finaliser must not wait for the lock a running call holds).
        self._dropped: List[Tuple[int, int]] = []
        self._dropped_lock = threading.Lock()
        # The workers of parent processes, kept so that their Popen objects
        # are never collected (they are not this process's children).
        self._inherited: List[subprocess.Popen] = []
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=self._after_fork)

    def _after_fork(self) -> None:
        """In a forked child: forget the parent's worker, closing the child's copies of its pipes.

        The parent's worker then still sees its stdin close when the parent
        exits, whatever the child does; the child starts its own worker on
        its first call. The locks are new: another thread may have held them
        at the fork.
        """
        self._lock = threading.Lock()
        self._dropped_lock = threading.Lock()
        self._dropped = []
        proc, self._proc = self._proc, None
        if proc is not None:
            for f in (proc.stdin, proc.stdout):
                try:
                    if f:
                        f.close()
                except OSError:
                    pass
            self._inherited.append(proc)

    def _start(self) -> subprocess.Popen:
        kwargs: Dict[str, Any] = {}
        if sys.platform == "win32":
            kwargs["creationflags"] = subprocess.CREATE_NO_WINDOW  # type: ignore[attr-defined]
        proc = subprocess.Popen(
            [binary(), "worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            bufsize=1 << 16,
            close_fds=True,
            **kwargs,
        )
        self._proc, self._pid, self._next = proc, os.getpid(), 0
        return proc

    def generation(self) -> int:
        """Identifies the current worker process, so a handle knows whether it still lives there."""
        proc = self._proc
        return proc.pid if proc is not None and self._pid == os.getpid() else 0

    def call(self, method: str, params: Dict[str, Any]) -> Any:
        """Sends one request and returns its result, or raises QueryError."""
        self._flush_dropped()
        with self._lock:
            return self._call_locked(method, params)

    def call_gen(self, method: str, params: Dict[str, Any]) -> Tuple[Any, int]:
        """Like call, and also returns the generation of the worker that answered."""
        self._flush_dropped()
        with self._lock:
            r = self._call_locked(method, params)
            return r, self.generation()

    def call_on(self, gen: int, method: str, params: Dict[str, Any]) -> Any:
        """Like call, for a request about a handle of worker gen: fails if that worker is gone."""
        self._flush_dropped()
        with self._lock:
            if gen != self.generation() or self._proc is None or self._proc.poll() is not None:
                raise QueryError("usage", "the data handle belongs to a ctxql worker that is gone (closed, or another process)")
            return self._call_locked(method, params)

    def _call_locked(self, method: str, params: Dict[str, Any]) -> Any:
        proc = self._proc
        if proc is None or self._pid != os.getpid() or proc.poll() is not None:
            proc = self._start()
        self._next += 1
        rid = self._next
        req = {"id": rid, "method": method, "params": params}
        try:
            line = json.dumps(req, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        except UnicodeEncodeError:
            # A lone surrogate has no UTF-8 form; JSON's escape carries it
            # (the worker reads it as U+FFFD).
            line = json.dumps(req, separators=(",", ":")).encode("ascii")
        stdin: IO[bytes] = proc.stdin  # type: ignore[assignment]
        stdout: IO[bytes] = proc.stdout  # type: ignore[assignment]
        try:
            stdin.write(line + b"\n")
            stdin.flush()
            reply = stdout.readline()
        except (BrokenPipeError, OSError) as e:
            self._kill()
            raise QueryError("internal", f"the ctxql worker stopped: {e}") from None
        if not reply:
            code = self._kill()
            raise QueryError("internal", f"the ctxql worker exited (status {code}) during {method}")
        try:
            msg = json.loads(reply)
        except ValueError:
            self._kill()
            raise QueryError("internal", f"the ctxql worker answered with a line that is not JSON: {reply[:200]!r}") from None
        if msg.get("id") != rid:
            self._kill()
            raise QueryError("internal", f"the ctxql worker answered request {msg.get('id')!r}, expected {rid}")
        err = msg.get("error")
        if err is not None:
            raise QueryError._from_json(err)
        return msg.get("result")

    def _kill(self) -> Optional[int]:
        proc, self._proc = self._proc, None
        if proc is None:
            return None
        try:
            proc.kill()
        except OSError:
            pass
        return proc.wait()

    def drop(self, gen: int, handle: int) -> None:
        """Queues a handle for release without taking the call lock."""
        with self._dropped_lock:
            self._dropped.append((gen, handle))

    def _flush_dropped(self) -> None:
        if not self._dropped:
            return
        with self._dropped_lock:
            dropped, self._dropped = self._dropped, []
        for gen, handle in dropped:
            try:
                self.call_on(gen, "release", {"handle": handle})
            except QueryError:
                pass

    def close(self) -> None:
        """Closes the worker's stdin and waits for it to exit."""
        with self._lock:
            proc, self._proc = self._proc, None
            if proc is None or self._pid != os.getpid():
                return
            try:
                if proc.stdin:
                    proc.stdin.close()
                proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                proc.kill()
                proc.wait()
            finally:
                if proc.stdout:
                    proc.stdout.close()


_worker = Worker()
atexit.register(_worker.close)


def default() -> Worker:
    """The process's worker."""
    return _worker
