"""Tests of the ctxql package as installed from its wheel.

Run with the Python of a virtual environment the wheel is installed in,
from a directory other than python/ (so the installed package, not the
source tree, is imported):

    venv/bin/python -m unittest discover -s python/tests -t python/tests

Each result is compared with what the bundled ctxql binary prints for the
same input, and with the values a user expects.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import ctxql
from ctxql import _worker

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
DATA = os.path.join(REPO, "testdata", "acp", "project", "data")


def read(name: str) -> str:
    with open(os.path.join(DATA, name), encoding="utf-8") as f:
        return f.read()


def cli(*args: str, input: str | None = None) -> subprocess.CompletedProcess:
    """Runs the bundled binary, as a user of the command line would."""
    return subprocess.run([ctxql.binary(), *args], input=input, capture_output=True, text=True)


def alive(pid: int) -> bool:
    """Whether process pid exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
    except OSError:
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


RULES = 'path(x, y) <-- edge(x, y).\npath(x, z) <-- edge(x, y), path(y, z).\n'
DECLARED = "relation edge(S, S);\nrelation path(S, S);\n" + RULES


class Installed(unittest.TestCase):
    def test_imported_from_the_wheel(self):
        self.assertTrue(ctxql.__file__.startswith(sys.prefix), f"ctxql imported from {ctxql.__file__}, not from {sys.prefix}")
        self.assertNotIn("CTXQL_BINARY", os.environ)
        self.assertTrue(ctxql.binary().startswith(os.path.dirname(ctxql.__file__)))
        self.assertTrue(os.path.isfile(os.path.join(os.path.dirname(ctxql.__file__), "py.typed")))

    def test_package_version(self):
        from importlib.metadata import version

        self.assertEqual(ctxql.__version__, version("ctxql"))
        self.assertNotEqual(ctxql.__version__, "devel")

    def test_version_is_the_binarys(self):
        self.assertEqual(ctxql.version(), cli("version").stdout.rstrip("\n"))
        self.assertRegex(ctxql.version(), r"^ctxql \S+ \(commit \S+, \w+/\w+\)$")


class PACT(unittest.TestCase):
    def test_check(self):
        self.assertEqual(ctxql.check(".block > .cont", language="pact"), [])
        (d,) = ctxql.check(".block[", language="pact")
        self.assertIsInstance(d, ctxql.Diagnostic)
        self.assertEqual((d.code, d.severity, d.line, d.column), ("pact-syntax", "error", 1, 8))
        want = json.loads(cli("check", "--format", "json", "--stdin-filename", "stdin.pact", "-", input=".block[").stdout)
        self.assertEqual(d.message, want[0]["message"])
        self.assertEqual((d.end_line, d.end_column), (want[0]["end_line"], want[0]["end_column"]))

    def test_format(self):
        got = ctxql.format(".block   >   .x", language="pact")
        self.assertEqual(got, cli("fmt", "--stdin-filename", "q.pact", "-", input=".block   >   .x").stdout)
        self.assertEqual(got, "@t0 .block > .x\n")

    def test_migrate(self):
        src = "// pact: v1\n.cb:summary\n#cb:u2\n"
        m = ctxql.migrate(src, to="v2")
        self.assertIsInstance(m, ctxql.MigrateResult)
        self.assertEqual(m.text, "// pact: v2\n*[nodeType='cb:summary']\n*[id='cb:u2']\n")
        self.assertTrue(m.changed)
        self.assertEqual(m.manual, [])
        m = ctxql.migrate("// pact: v1\n.cb#a\n.cb, .mt\n", to="v2")
        self.assertFalse(m.changed)
        self.assertEqual(len(m.manual), 1)
        self.assertEqual((m.manual[0].range.start.line, m.manual[0].range.start.column), (3, 1))
        self.assertIn("comma groups have no v2 form", m.manual[0].message)

    def test_load_and_evaluate(self):
        text = read("context.json")
        with ctxql.load("pact", text) as data:
            ids = data.evaluate(".block")
            self.assertEqual(ids, ["block:sysA", "block:u1", "block:a1", "block:u2", "block:u3"])
            self.assertEqual(ids, json.loads(cli("eval", "pact", "--data", os.path.join(DATA, "context.json"), ".block").stdout))
            x = data.evaluate(".block[kind=zz]", explain=True)
            self.assertIsInstance(x, ctxql.Explanation)
            self.assertEqual([s.count for s in x.steps], [5, 0])
            self.assertEqual(x.emptied, 1)
            self.assertIn("<- emptied here", x.text)
        self.assertTrue(data.closed)
        with self.assertRaises(ctxql.QueryError) as e:
            data.evaluate(".block")
        self.assertEqual(e.exception.code, "usage")

    def test_bytes_data(self):
        with ctxql.load("pact", read("context.json").encode("utf-8")) as data:
            self.assertEqual(len(data.evaluate(".block")), 5)

    def test_one_shot(self):
        self.assertEqual(ctxql.evaluate("pact", ".block[kind=text]", read("context.json")), ["block:sysA", "block:u1", "block:a1", "block:u2", "block:u3"])
        self.assertEqual(ctxql.evaluate("pact", ".block[kind=zz]", read("context.json")), [])


class JQL(unittest.TestCase):
    Q = '{"from": "activities", "limit": 2}'

    def test_check(self):
        self.assertEqual(ctxql.check(self.Q, language="jql"), [])
        ds = ctxql.check('{"from": "nowhere"}', language="jql")
        self.assertTrue(ds and ds[0].severity == "error", ds)
        want = json.loads(cli("check", "--format", "json", "--stdin-filename", "stdin.jql", "-", input='{"from": "nowhere"}').stdout)
        self.assertEqual([(d.code, d.line, d.column, d.message) for d in ds], [(w["code"], w["line"], w["column"], w["message"]) for w in want])

    def test_format(self):
        src = '{"from":"activities","limit":2}'
        self.assertEqual(ctxql.format(src, language="jql"), cli("fmt", "--stdin-filename", "q.jql", "-", input=src).stdout)

    def test_load_and_evaluate(self):
        with ctxql.load("jql", read("activities.json"), name="activities.json") as data:
            rows = data.evaluate(self.Q)
            self.assertEqual([r["id"] for r in rows], ["a1", "a2"])
            self.assertEqual(rows, json.loads(cli("eval", "jql", "--data", os.path.join(DATA, "activities.json"), self.Q).stdout))

    def test_one_shot(self):
        rows = ctxql.evaluate("jql", self.Q, read("activities.json"))
        self.assertEqual([r["id"] for r in rows], ["a1", "a2"])


class Datalog(unittest.TestCase):
    def test_check_and_format(self):
        self.assertEqual(ctxql.check(DECLARED, language="datalog"), [])
        self.assertEqual([d.code for d in ctxql.check(RULES, language="datalog")], ["DL001", "DL001"])
        ds = ctxql.check("q(x <-- edge(x, y).", language="datalog")
        self.assertEqual((ds[0].code, ds[0].line, ds[0].column), ("datalog/syntax", 1, 5))
        src = "q(x,y)<--edge(x,y)."
        self.assertEqual(ctxql.format(src, language="datalog"), cli("fmt", "--stdin-filename", "q.dl", "-", input=src).stdout)

    def test_load_evaluate_why(self):
        with ctxql.load("datalog", read("relations.json")) as data:
            self.assertEqual(data.evaluate("q(x, y) <-- edge(x, y)."), [["a", "b"], ["b", "c"], ["c", "d"]])
            rel = data.evaluate(RULES, program=True)
            self.assertIn(["a", "d"], rel["path"])
            p = data.why(("path", "a", "c"), rules=RULES)
            self.assertIsInstance(p, ctxql.Proof)
            self.assertTrue(p.derived)
            self.assertEqual(p.text, data.why('path("a", "c")', rules=RULES).text)
            self.assertIn('edge("b", "c")  from the data', p.text)
            n = data.why_not(("path", "c", "a"), rules=RULES)
            self.assertFalse(n.derived)
            self.assertIn('path("c", "a") is not derived', n.text)
            with tempfile.NamedTemporaryFile("w", suffix=".dl", delete=False) as f:
                f.write(RULES)
            try:
                out = cli("eval", "datalog", "--data", os.path.join(DATA, "relations.json"), "--rules", f.name, "--why", 'path("a", "c")')
            finally:
                os.unlink(f.name)
            self.assertEqual(p.text.strip(), out.stdout.replace(f.name, "rules").strip())

    def test_one_shot(self):
        self.assertEqual(ctxql.evaluate("datalog", "q(y) <-- edge(\"a\", y).", read("relations.json")), [["b"]])


class Queries(unittest.TestCase):
    def test_several_jql_queries(self):
        second = '{\n  "from": "activities",\n  "where": {"type": "agentMessaged"}\n}'
        text = JQL.Q + "\n\n" + second + "\n"
        qs = ctxql.queries(text, "jql")
        self.assertEqual([q.text for q in qs], [JQL.Q, second])
        self.assertTrue(all(isinstance(q, ctxql.Query) and q.relation is None for q in qs))
        self.assertEqual([(q.range.start.line, q.range.end.line) for q in qs], [(1, 1), (3, 6)])
        raw = text.encode()
        self.assertEqual([raw[q.range.start.offset : q.range.end.offset].decode() for q in qs], [JQL.Q, second])
        want = json.loads(cli("eval", "jql", "--data", os.path.join(DATA, "activities.json"), qs[1].text).stdout)
        self.assertEqual(ctxql.evaluate("jql", qs[1].text, read("activities.json")), want)
        self.assertEqual(ctxql.queries(text, "jql", offset=text.index("agentMessaged")), [qs[1]])

    def test_datalog_rules_and_relations(self):
        qs = ctxql.queries(RULES, "datalog")
        self.assertEqual([q.text for q in qs], [r for r in RULES.splitlines() if r.strip()])
        self.assertEqual([q.relation for q in qs], ["path"] * len(qs))

    def test_pact_lines(self):
        text = "// two queries\n.mt\n\n^seq .mt .cb\n"
        qs = ctxql.queries(text, "pact")
        self.assertEqual([(q.text, q.range.start.line) for q in qs], [(".mt", 2), ("^seq .mt .cb", 4)])
        self.assertEqual(ctxql.queries(text, "pact", offset=text.index(".cb")), [qs[1]])
        self.assertEqual(ctxql.queries(text, "pact", offset=0), [])
        with self.assertRaises(ctxql.QueryError) as e:
            ctxql.queries(text, "pact", offset=len(text) + 1)
        self.assertEqual(e.exception.code, "usage")


class Errors(unittest.TestCase):
    def test_invalid_query(self):
        with ctxql.load("datalog", read("relations.json")) as data:
            with self.assertRaises(ctxql.QueryError) as e:
                data.evaluate("q(x <-- edge(x, y).")
        err = e.exception
        self.assertEqual((err.code, err.line, err.column), ("datalog/syntax", 1, 5))
        self.assertIn("expected", err.message)
        self.assertEqual(err.range.start.offset, 4)

    def test_other_codes(self):
        with self.assertRaises(ctxql.QueryError) as e:
            ctxql.check(".x", language="cobol")
        self.assertEqual(e.exception.code, "usage")
        self.assertIsNone(e.exception.line)
        for language in ("pact", "datalog"):
            with self.assertRaises(ctxql.QueryError) as e:
                ctxql.load(language, "{not json")
            self.assertEqual(e.exception.code, "data", language)
        with self.assertRaises(ctxql.QueryError) as e:
            ctxql.evaluate("pact", ".block[", read("context.json"))
        self.assertEqual((e.exception.code, e.exception.line, e.exception.column), ("pact-syntax", 1, 8))

    def test_the_worker_lives_on_after_errors(self):
        for _ in range(3):
            with self.assertRaises(ctxql.QueryError):
                ctxql.evaluate("pact", "[[[", "{}")
        self.assertTrue(ctxql.version().startswith("ctxql "))


class Worker(unittest.TestCase):
    def test_threads_share_one_worker(self):
        data = ctxql.load("datalog", read("relations.json"))
        pid = _worker.default().generation()
        errors = []

        def run(i: int) -> None:
            try:
                for _ in range(40):
                    got = data.evaluate(f'q(y) <-- edge("{"abc"[i % 3]}", y).')
                    want = [[{"a": "b", "b": "c", "c": "d"}["abc"[i % 3]]]]
                    if got != want:
                        errors.append((i, got))
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append((i, e))

        threads = [threading.Thread(target=run, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        data.close()
        self.assertEqual(errors, [])
        self.assertEqual(_worker.default().generation(), pid, "the worker was restarted")

    def test_dropped_handles_are_released(self):
        d = ctxql.load("pact", read("context.json"))
        h = d._handle
        del d
        ctxql.version()  # the next call releases it
        with self.assertRaises(ctxql.QueryError) as e:
            _worker.default().call("evaluate", {"handle": h, "query": ".x"})
        self.assertEqual(e.exception.code, "usage")

    @unittest.skipUnless(hasattr(os, "fork"), "needs fork")
    def test_a_forked_child_starts_its_own_worker(self):
        ctxql.version()
        parent = _worker.default().generation()
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.close(r)
                v = ctxql.version()
                os.write(w, json.dumps([v, _worker.default().generation()]).encode())
            finally:
                os._exit(0)
        os.close(w)
        with os.fdopen(r) as f:
            v, child = json.loads(f.read())
        os.waitpid(pid, 0)
        self.assertTrue(v.startswith("ctxql "))
        self.assertNotEqual(child, parent)
        self.assertEqual(ctxql.version(), v)

    @unittest.skipIf(sys.platform == "win32", "SIGKILL is POSIX")
    def test_the_worker_dies_with_its_process(self):
        script = "import ctxql, sys; from ctxql import _worker; ctxql.version(); print(_worker.default().generation(), flush=True); sys.stdin.read()"
        for how in ("SIGKILL", "exit"):
            with self.subTest(how=how):
                p = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
                worker = int(p.stdout.readline())
                self.assertTrue(alive(worker), "the worker is not running")
                if how == "SIGKILL":
                    p.kill()
                else:
                    p.stdin.close()
                p.wait()
                deadline = time.monotonic() + 10
                while alive(worker) and time.monotonic() < deadline:
                    time.sleep(0.02)
                self.assertFalse(alive(worker), f"the worker {worker} outlived its Python process ({how})")
                if how == "SIGKILL":
                    p.stdin.close()
                p.stdout.close()

    def test_close_stops_the_worker_and_the_next_call_starts_one(self):
        ctxql.version()
        pid = _worker.default().generation()
        d = ctxql.load("pact", read("context.json"))
        _worker.default().close()
        self.assertFalse(alive(pid))
        with self.assertRaises(ctxql.QueryError) as e:
            d.evaluate(".x")
        self.assertEqual(e.exception.code, "usage")
        self.assertTrue(ctxql.version().startswith("ctxql "))
        self.assertNotEqual(_worker.default().generation(), pid)


class Command(unittest.TestCase):
    def run_module(self, *args: str, input: str = "") -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "ctxql", *args], input=input, capture_output=True, text=True)

    def test_version_and_exit_codes(self):
        r = self.run_module("version")
        self.assertEqual((r.returncode, r.stdout.rstrip("\n")), (0, ctxql.version()))
        r = self.run_module("check", "--stdin-filename", "q.pact", "-", input=".block[")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("pact-syntax", r.stdout + r.stderr)
        r = self.run_module("eval", "jql", "--no-such-flag")
        self.assertEqual(r.returncode, 2)
        self.assertIn("unknown flag", r.stderr)

    def test_console_script(self):
        script = os.path.join(os.path.dirname(sys.executable), "ctxql.exe" if sys.platform == "win32" else "ctxql")
        r = subprocess.run([script, "version"], capture_output=True, text=True)
        self.assertEqual((r.returncode, r.stdout.rstrip("\n")), (0, ctxql.version()))

    @unittest.skipUnless(os.path.isdir("/proc"), "reads /proc to see which program runs")
    def test_signals_reach_the_binary(self):
        # The module execs the binary: the process is ctxql itself and ends
        # on SIGTERM as the binary run directly does.
        def terminated(argv):
            p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            deadline = time.monotonic() + 10
            comm = ""
            while time.monotonic() < deadline:
                with open(f"/proc/{p.pid}/comm") as f:
                    comm = f.read().strip()
                if comm == "ctxql":
                    break
                time.sleep(0.02)
            time.sleep(0.3)
            p.send_signal(signal.SIGTERM)
            p.communicate(timeout=10)
            return comm, p.returncode

        direct = terminated([ctxql.binary(), "lsp"])
        self.assertEqual(terminated([sys.executable, "-m", "ctxql", "lsp"]), direct)
        self.assertNotEqual(direct[1], 0)


if __name__ == "__main__":
    unittest.main()
