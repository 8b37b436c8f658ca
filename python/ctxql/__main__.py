"""`python -m ctxql ARGS…` runs the bundled ctxql binary with ARGS."""

from ._cli import main

raise SystemExit(main())
