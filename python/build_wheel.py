#!/usr/bin/env python3
"""Builds the ctxql wheels, one per platform, with the standard library only.

    python3 python/build_wheel.py --version v0.1.0 --out dist \\
        linux/amd64=path/to/ctxql windows/arm64=path/to/ctxql.exe ...

VERSION is the release tag scripts/release takes (v0.1.0, v0.2.0-rc.1);
the wheel carries it as a PEP 440 version (0.1.0, 0.2.0rc1). Each
OS/ARCH=BINARY pair gives one wheel holding the package python/ctxql and
that binary as ctxql/bin/ctxql (ctxql.exe on Windows). The archives are
reproducible: sorted entries, fixed times. Prints the file name of each
wheel written.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import os
import re
import sys
import zipfile
from typing import List, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))

# The wheel platform tags of each Go target. The binary is static
# (CGO_ENABLED=0), so one Linux wheel serves glibc and musl; Go needs
# macOS 12 or later.
PLATFORMS = {
    "linux/amd64": ["manylinux_2_17_x86_64", "manylinux2014_x86_64", "musllinux_1_1_x86_64"],
    "linux/arm64": ["manylinux_2_17_aarch64", "manylinux2014_aarch64", "musllinux_1_1_aarch64"],
    "darwin/amd64": ["macosx_12_0_x86_64"],
    "darwin/arm64": ["macosx_12_0_arm64"],
    "windows/amd64": ["win_amd64"],
    "windows/arm64": ["win_arm64"],
}

SUMMARY = "Check, format, migrate and evaluate PACT, JQL and Datalog queries for AI-agent context"

DESCRIPTION = """\
# ctxql

ctxql checks, formats, migrates and evaluates the query languages AI-agent
systems use to address their context and caches: PACT selectors and queries,
JQL and Datalog (Ascent syntax).

```python
import ctxql

print(ctxql.check(".block[", language="pact"))
with ctxql.load("jql", open("activities.json").read()) as data:
    print(data.evaluate('{"from": "activities", "limit": 2}'))
```

The wheel bundles the `ctxql` command: `python -m ctxql mcp` (or
`uvx ctxql mcp`, `pipx run ctxql mcp`) serves the MCP server on stdio.
"""

# The fixed time of every archive entry (zip cannot store earlier).
EPOCH = (1980, 1, 1, 0, 0, 0)


def pep440(tag: str) -> str:
    """The PEP 440 version of a release tag: v1.2.3-rc.1 -> 1.2.3rc1, v1.2.3-test.1 -> 1.2.3+test.1."""
    m = re.fullmatch(r"v?(\d+\.\d+\.\d+)(?:-([0-9A-Za-z.-]+))?(?:\+([0-9A-Za-z.-]+))?", tag)
    if not m:
        raise ValueError(f"version {tag!r} is not vMAJOR.MINOR.PATCH[-PRE][+BUILD]")
    base, pre, build = m.groups()
    local = []
    if pre:
        p = re.fullmatch(r"(alpha|a|beta|b|rc)\.?(\d+)", pre)
        if p:
            base += {"alpha": "a", "a": "a", "beta": "b", "b": "b", "rc": "rc"}[p.group(1)] + p.group(2)
        else:
            local.append(pre)
    if build:
        local.append(build)
    if local:
        base += "+" + re.sub(r"[^0-9A-Za-z]+", ".", ".".join(local)).strip(".")
    return base


def package_files() -> List[Tuple[str, bytes]]:
    """The files of python/ctxql, as (path in the wheel, content)."""
    src = os.path.join(HERE, "ctxql")
    out = []
    for name in sorted(os.listdir(src)):
        if (name.endswith(".py") and name != "_version.py") or name == "py.typed":
            with open(os.path.join(src, name), "rb") as f:
                out.append(("ctxql/" + name, f.read()))
    return out


def digest(b: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(b).digest()).rstrip(b"=").decode("ascii")


def build(version: str, target: str, binary: str, out: str) -> str:
    """Writes the wheel of target with binary into out and returns its file name."""
    if target not in PLATFORMS:
        raise ValueError(f"unknown target {target!r} (known: {', '.join(PLATFORMS)})")
    tags = PLATFORMS[target]
    exe = "ctxql.exe" if target.startswith("windows/") else "ctxql"
    with open(binary, "rb") as f:
        bin_bytes = f.read()
    dist_info = f"ctxql-{version}.dist-info"
    metadata = "\n".join(
        [
            "Metadata-Version: 2.1",
            "Name: ctxql",
            f"Version: {version}",
            f"Summary: {SUMMARY}",
            "Home-page: https://github.com/ctxql/ctxql",
            "Requires-Python: >=3.8",
            "Classifier: Programming Language :: Python :: 3",
            "Classifier: Typing :: Typed",
            "Description-Content-Type: text/markdown",
            "",
            DESCRIPTION,
        ]
    )
    wheel = "Wheel-Version: 1.0\nGenerator: ctxql build_wheel.py\nRoot-Is-Purelib: false\n" + "".join(
        f"Tag: py3-none-{t}\n" for t in tags
    )
    entry_points = "[console_scripts]\nctxql = ctxql._cli:main\n"
    files = package_files() + [
        ("ctxql/_version.py", f'"""The version of the wheel."""\n\n__version__ = "{version}"\n'.encode("utf-8")),
        (f"ctxql/bin/{exe}", bin_bytes),
        (f"{dist_info}/METADATA", metadata.encode("utf-8")),
        (f"{dist_info}/WHEEL", wheel.encode("utf-8")),
        (f"{dist_info}/entry_points.txt", entry_points.encode("utf-8")),
    ]
    record = "".join(f"{p},{digest(b)},{len(b)}\n" for p, b in files) + f"{dist_info}/RECORD,,\n"
    files.append((f"{dist_info}/RECORD", record.encode("utf-8")))
    name = f"ctxql-{version}-py3-none-{'.'.join(tags)}.whl"
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, name)
    tmp = path + ".tmp"
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for p, b in files:
            info = zipfile.ZipInfo(p, date_time=EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            mode = 0o755 if p.startswith("ctxql/bin/") else 0o644
            info.external_attr = (0o100000 | mode) << 16
            info.create_system = 3  # Unix, so the mode holds
            z.writestr(info, b)
    os.replace(tmp, path)
    return name


def main(argv: List[str]) -> int:
    ap = argparse.ArgumentParser(description="Builds one ctxql wheel per OS/ARCH=BINARY pair.")
    ap.add_argument("--version", required=True, help="the release tag, such as v0.1.0")
    ap.add_argument("--out", default="dist", help="directory the wheels are written to")
    ap.add_argument("targets", nargs="+", metavar="OS/ARCH=BINARY")
    a = ap.parse_args(argv)
    try:
        version = pep440(a.version)
        for t in a.targets:
            target, sep, binary = t.partition("=")
            if not sep:
                raise ValueError(f"{t!r} is not OS/ARCH=BINARY")
            print(build(version, target, binary, a.out))
    except (ValueError, OSError) as e:
        print(f"build_wheel: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
