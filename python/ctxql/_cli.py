"""The `ctxql` console script: runs the bundled binary with the arguments given."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from typing import List, Optional

from ._types import QueryError
from ._worker import binary


def main(argv: Optional[List[str]] = None) -> int:
    """Runs ctxql with argv (default: this process's arguments) and returns its exit status.

    On POSIX the binary replaces this process (os.execv), so it gets the
    signals, the standard streams and the exit status directly. On Windows
    it runs as a child whose exit status is returned; Ctrl+C reaches both,
    and this process waits for the child's own answer to it.
    """
    args = sys.argv[1:] if argv is None else argv
    try:
        exe = binary()
    except QueryError as e:
        print(f"ctxql: {e.message}", file=sys.stderr)
        return 2
    if os.name != "nt":
        sys.stdout.flush()
        sys.stderr.flush()
        os.execv(exe, [exe, *args])
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    return subprocess.call([exe, *args])
