// The tests of @ctxql/ctxql installed from its tarball into an empty
// project (internal/pkgtest runs them there): every function against the
// native ctxql binary's output on the repository's examples, and the
// ctxql-wasm bin against ctxql itself.
//
// Environment: CTXQL_BIN, the native binary; CTXQL_REPO, the repository.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import * as ctxql from "@ctxql/ctxql";

const bin = process.env.CTXQL_BIN;
// The examples are copied out of the repository, whose .ctxql.yaml
// excludes testdata/: no configuration applies to them, as none applies
// to the package.
const ex = mkdtempSync(join(tmpdir(), "ctxql-examples-"));
cpSync(join(process.env.CTXQL_REPO, "testdata", "examples"), ex, { recursive: true });
// A program whose relation only its data declares.
writeFileSync(join(ex, "schema.dl"), '// data: ./graph.json\nq(x) <-- edge(x, _);\n');
const read = (name) => readFileSync(join(ex, name), "utf8");

// native runs ctxql and returns its stdout, stderr and exit code.
function native(args, input) {
  const r = spawnSync(bin, args, { input, encoding: "utf8", cwd: ex });
  return { stdout: r.stdout, stderr: r.stderr, code: r.status };
}

test("every function throws a CtxqlError before init", () => {
  assert.throws(() => ctxql.version(), (e) => e instanceof ctxql.CtxqlError && e.code === "usage" && /init/.test(e.message));
});

test("init starts the module once", async () => {
  const a = ctxql.init();
  assert.equal(ctxql.init(), a);
  await a;
  assert.match(ctxql.version(), /^ctxql \S+ \(commit \S+, js\/wasm\)$/);
});

const evaluations = [
  ["pact", "context.json", "^seq .mt:depth(1-2) .cb[ttl<=1]", { dialect: "v1" }, ["--dialect", "v1"]],
  ["pact", "context.json", "@t0 ^seq .mt .cb", {}, []],
  ["jql", "activities.json", read("failures.jql.yaml"), {}, []],
  ["jql", "activities.json", `{"from": "sessions", "where": {"state": "completed"}}`, {}, []],
  ["datalog", "graph.json", `q(y) <-- edge("a", y)`, {}, []],
];

test("evaluate gives what ctxql eval prints, through a handle and once, from text and from bytes", () => {
  for (const [language, data, query, options, flags] of evaluations) {
    const want = JSON.parse(native(["eval", language, "--data", join(ex, data), ...flags, query]).stdout);
    const ds = ctxql.load(language, read(data), { name: data });
    assert.deepEqual(ds.evaluate(query, options), want, query);
    assert.deepEqual(ds.evaluate(query, options), want, `${query} again`);
    ds.release();
    assert.throws(() => ds.evaluate(query, options), (e) => e.code === "usage");
    assert.deepEqual(ctxql.evaluate(language, query, read(data), { ...options, name: data }), want, query);
    assert.deepEqual(ctxql.evaluate(language, query, readFileSync(join(ex, data)), { ...options, name: data }), want, query);
  }
  const want = JSON.parse(native(["eval", "datalog", "--data", join(ex, "graph.json"), "--rules", join(ex, "reach.dl")]).stdout);
  assert.deepEqual(ctxql.evaluate("datalog", read("reach.dl"), JSON.parse(read("graph.json")), { program: true }), want);
});

test("a PACT selection's ids are the strings ctxql eval prints, whatever their characters", () => {
  // Ids that the package splits out of the result's text and ids that
  // need JSON.parse (escapes), alone and together; an empty selection.
  const ids = ["cb:1", "a,b", "[x]", "é", "日本", "a\u2028b", 'q"uote', "back\\slash", "tab\t", "<&>", '","', "x".repeat(40)];
  const sets = [ids.slice(0, 6), ids, ids.slice(6), ids.slice(0, 1), ["a\u2028b"]];
  for (const set of sets) {
    const data = JSON.stringify({ root: { id: "root", children: set.map((id) => ({ id, nodeType: "cb" })) } });
    const file = join(ex, "ids.json");
    writeFileSync(file, data);
    for (const query of [".cb", ".zz"]) {
      const want = JSON.parse(native(["eval", "pact", "--data", file, query]).stdout);
      assert.deepEqual(want, query === ".cb" ? set : []);
      assert.deepEqual(ctxql.evaluate("pact", query, data), want, `${query} over ${JSON.stringify(set)}`);
      const ds = ctxql.load("pact", data);
      assert.deepEqual(ds.evaluate(query), want, `${query} over ${JSON.stringify(set)}, loaded`);
      ds.release();
    }
  }
});

test("a loaded PACT data set gives every selection what ctxql eval prints, its ids handed over once", () => {
  // Selections whose ids the data set holds already, partly and not at
  // all, in turn; nodes without an id; ids that need JSON.parse.
  const ids = ["cb:1", "a,b", 'q"uote', "back\\slash", "é", "x".repeat(40), "a\u2028b", "mt:2"];
  const children = ids.map((id, i) => ({ id, nodeType: i % 2 ? "cb" : "mt" }));
  children.push({ nodeType: "cb" }, { id: "", nodeType: "mt" });
  const data = JSON.stringify({ root: { id: "root", children } });
  const file = join(ex, "handed.json");
  writeFileSync(file, data);
  const ds = ctxql.load("pact", data);
  for (const query of [".mt", ".mt", ".cb", ".zz", "@t0 .cb", ".mt", "@* .cb"]) {
    const want = JSON.parse(native(["eval", "pact", "--data", file, query]).stdout);
    assert.deepEqual(ds.evaluate(query), want, query);
  }
  ds.release();
  assert.throws(() => ctxql.callRaw("evaluateNodes", { handle: 1, query: ".cb" }), (e) => e.code === "usage");
});

test("explain gives the text of --explain and its steps", () => {
  const r = native(["eval", "pact", "--dialect", "v1", "--explain", "--data", join(ex, "context.json"), ".mt > .cb"]);
  const x = ctxql.evaluate("pact", ".mt > .cb", read("context.json"), { dialect: "v1", explain: true });
  assert.equal(x.text, r.stdout);
  assert.equal(x.steps.length, 2);
  assert.deepEqual(x.steps[1].range.start, { line: 1, column: 5, offset: 4 });
});

test("an invalid query throws a CtxqlError with its first diagnostic's code and range", () => {
  for (const [language, data, query, code] of [
    ["pact", "context.json", "@t0 ^seq .mt:depth()", "pact-syntax"],
    ["datalog", "graph.json", `q(y) <-- edge("a", y`, "datalog/syntax"],
  ]) {
    const r = native(["eval", language, "--data", join(ex, data), query]);
    assert.equal(r.code, 1);
    assert.throws(
      () => ctxql.evaluate(language, query, read(data)),
      (e) => {
        assert.ok(e instanceof ctxql.CtxqlError && e instanceof Error);
        assert.equal(e.code, code);
        assert.ok(r.stderr.includes(`${e.range.start.line}:${e.range.start.column}: ${e.message}`), r.stderr);
        assert.ok(e.range.start.offset <= query.length);
        return true;
      },
    );
  }
  assert.throws(() => ctxql.load("pact", "{"), (e) => e.code === "data");
  assert.throws(() => ctxql.load("cobol", "{}"), (e) => e.code === "usage");
});

test("check, format and migrate give what ctxql check --format json, fmt and migrate print", () => {
  for (const [language, path, text] of [
    ["pact", "q.pact", ".cb[ttl<=]\n"],
    ["pact", "v1.pact", "// pact: v1\n^seq   .mt:depth(1)>.cb\n"],
    ["jql", "q.jql.yaml", "from: sessions\nwhere:\n  bogus: 1\n"],
    ["datalog", "p.dl", "relation e(Node,Node);\nq(x)<--e(x,y), !r(y);\n"],
  ]) {
    const checked = native(["check", "--format", "json", "--stdin-filename", path, "-"], text);
    assert.deepEqual(ctxql.check(text, { language, path }), JSON.parse(checked.stdout), text);
    const fmt = native(["fmt", "--stdin-filename", path, "-"], text);
    if (fmt.code === 2) {
      assert.throws(() => ctxql.format(text, { language, path }), (e) => fmt.stderr.includes(`${e.range.start.line}:${e.range.start.column}: ${e.message}`));
    } else {
      assert.equal(ctxql.format(text, { language, path }), fmt.stdout);
    }
  }
  assert.throws(() => ctxql.format("q(x) <-- e(x", { language: "datalog" }), (e) => e.code === "datalog/syntax" && e.range.start.line === 1);
  // The sample data gives a Datalog program the relations it declares.
  const program = read("schema.dl");
  assert.deepEqual(ctxql.check(program, { language: "datalog", path: "schema.dl", data: read("graph.json") }), JSON.parse(native(["check", "--format", "json", join(ex, "schema.dl")]).stdout).map((d) => ({ ...d, file: "schema.dl" })));
  assert.equal(ctxql.check(program, { language: "datalog" })[0].code, "DL001");
  const text = "// pact: v1\n^seq .mt:depth(1) > .cb\n";
  const m = ctxql.migrate(text, { to: "v2" });
  assert.equal(m.text, native(["migrate", "--to", "v2", "-"], text).stdout);
  assert.equal(m.changed, m.text !== text);
  assert.deepEqual(m.manual, []);
});

test("queries divides a text into the queries ctxql evaluates, with byte ranges and Datalog's relations", () => {
  const bytes = (text, r) => Buffer.from(text).subarray(r.start.offset, r.end.offset).toString();
  // Two JQL queries in one document (one with a non-ASCII character before
  // the second), each evaluating as ctxql eval evaluates it.
  const two = '{"from": "sessions", "where": {"title": "Fix the build — é"}}\n\n{\n  "from": "sessions",\n  "where": {"state": "inProgress"}\n}\n';
  const qs = ctxql.queries(two, { language: "jql" });
  assert.equal(qs.length, 2);
  assert.deepEqual(qs.map((q) => [q.range.start.line, q.range.end.line]), [[1, 1], [3, 6]]);
  const results = qs.map((q) => {
    assert.equal(bytes(two, q.range), q.text);
    const want = JSON.parse(native(["eval", "jql", "--data", join(ex, "activities.json"), q.text]).stdout);
    assert.deepEqual(ctxql.evaluate("jql", q.text, read("activities.json")), want, q.text);
    return want;
  });
  assert.deepEqual(results[1].map((d) => d.id), ["s-2"]);
  const offset = Buffer.byteLength(two.slice(0, two.indexOf("inProgress")));
  assert.deepEqual(ctxql.queries(two, { language: "jql", offset }), [qs[1]]);
  // A Datalog program: its rules, each with its head's relation.
  const program = read("reach.dl");
  const rules = ctxql.queries(program, { language: "datalog" });
  assert.deepEqual(rules.map((r) => [r.range.start.line, r.relation]), [[3, "reach"], [4, "reach"], [5, "cycle"], [6, "sink"]]);
  assert.deepEqual(rules.map((r) => r.text), program.split("\n").slice(2, 6));
  // PACT: a query per line, the offset's line's at an offset.
  const pact = read("blocks.pact");
  assert.deepEqual(ctxql.queries(pact, { language: "pact" }).map((q) => q.range.start.line), [3, 4, 5]);
  const line4 = ctxql.queries(pact, { language: "pact", offset: pact.indexOf(".mt >") + 3 });
  assert.deepEqual(line4.map((q) => q.text), [".mt > .cb[role='user']"]);
  assert.deepEqual(ctxql.queries(pact, { language: "pact", offset: 0 }), []);
  assert.throws(() => ctxql.queries(pact, { language: "pact", offset: pact.length + 1 }), (e) => e.code === "usage");
});

test("why and whyNot print what --why and --why-not print", () => {
  const rules = read("reach.dl");
  const ds = ctxql.load("datalog", read("graph.json"));
  const why = ds.why('reach("a", "d")', { rules, name: join(ex, "reach.dl") });
  assert.equal(why.derived, true);
  assert.equal(why.text, native(["eval", "datalog", "--data", join(ex, "graph.json"), "--rules", join(ex, "reach.dl"), "--why", 'reach("a", "d")']).stdout);
  const not = ds.whyNot('reach("d", "a")', { rules, name: join(ex, "reach.dl") });
  assert.equal(not.derived, false);
  assert.equal(not.text, native(["eval", "datalog", "--data", join(ex, "graph.json"), "--rules", join(ex, "reach.dl"), "--why-not", 'reach("d", "a")']).stdout);
  ds.release();
});

test("init takes the module's bytes", () => {
  const wasm = join(dirname(createRequire(import.meta.url).resolve("@ctxql/ctxql/package.json")), "ctxql.wasm");
  const script = `import * as c from "@ctxql/ctxql"; import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
await c.init({ wasm: readFileSync(${JSON.stringify(wasm)}) });
console.log(JSON.stringify(c.evaluate("datalog", 'q(y) <-- edge("a", y)', ${JSON.stringify(read("graph.json"))})));`;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  assert.equal(out, '[["b"]]\n');
});

test("ctxql-wasm prints what ctxql prints and exits as it does", () => {
  const cases = [
    ["eval", "pact", "--dialect", "v1", "--data", join(ex, "context.json"), ".mt > .cb"],
    ["eval", "pact", "--data", join(ex, "context.json"), ".cb["],
    ["eval", "pact", "--data", join(ex, "nonexistent.json"), ".cb"],
    ["eval", "jql", "--data", join(ex, "activities.json"), "--query-file", join(ex, "failures.jql.yaml")],
    ["eval", "jql", "--data", join(ex, "activities.json"), `{"from": "nothing"}`],
    ["eval", "datalog", "--data", join(ex, "graph.json"), "--rules", join(ex, "reach.dl")],
    ["eval", "datalog", "--data", join(ex, "graph.json"), "--rules", join(ex, "reach.dl"), "--why-not", 'reach("a", "b")'],
    ["check", join(ex, "blocks.pact"), join(ex, "failures.jql.yaml"), join(ex, "schema.dl")],
    ["fmt", join(ex, "reach.dl")],
    ["fmt", "--check", join(ex, "blocks.pact"), join(ex, "reach.dl")],
    ["eval", "pact", ".cb"],
  ];
  const wasmBin = join(dirname(createRequire(import.meta.url).resolve("@ctxql/ctxql/package.json")), "bin", "ctxql-wasm.js");
  for (const args of cases) {
    const want = native(args);
    const got = spawnSync(process.execPath, [wasmBin, ...args], { encoding: "utf8", cwd: ex });
    assert.equal(got.status, want.code, `${args.join(" ")}: exit ${got.status}, ctxql ${want.code}: ${got.stderr}`);
    assert.equal(got.stdout, want.stdout, args.join(" "));
  }
  const fmt = spawnSync(process.execPath, [wasmBin, "fmt", "--stdin-filename", "q.dl", "-"], { input: "q(x)<--e(x).", encoding: "utf8" });
  assert.equal(fmt.stdout, native(["fmt", "--stdin-filename", "q.dl", "-"], "q(x)<--e(x).").stdout);
});
