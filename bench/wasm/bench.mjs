// node bench.mjs PACKAGE_DIR PACT_DATA JQL_DATA RUNS: times the npm
// package in Node — the module's ready time (init), the loads, and RUNS
// evaluations of each query — and prints them as one JSON object
// (milliseconds; each evaluation the median of RUNS after WARMUP untimed
// ones, default 10: the median and least wall time, the median CPU time
// of the process and of its main thread). The queries are given as JSON
// in the environment (PACT_QUERIES, JQL_QUERY).
//
// node bench.mjs PACKAGE_DIR ready: prints the module's ready time alone
// (the import, then `await init()`), one fresh process per measure.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [pkg, pactPath, jqlPath, runsArg] = process.argv.slice(2);
const runs = Number(runsArg);
const now = () => performance.now();
let t = now();
const ctxql = await import(pathToFileURL(join(pkg, "index.js")).href);
const importMs = now() - t;
const median = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];

const out = {};
t = now();
await ctxql.init();
out.readyMs = now() - t;
out.importMs = importMs;
if (pactPath === "ready") {
  console.log(JSON.stringify(out));
  process.exit(0);
}

// Each query is first evaluated warmup times untimed, as natively: the
// first evaluations build what later ones reuse (JQL's columns), and V8
// recompiles the module's hot functions with its optimizing compiler in
// the background while they run (on a loaded machine the JQL query
// reaches its steady time only after about ten evaluations).
const warmup = Number(process.env.WARMUP ?? 10);
// Each evaluation is also timed in CPU time: the process's (every thread:
// V8's collector and compiler threads too) and, where Linux gives it, the
// main thread's alone (/proc/thread-self/schedstat), on which the module
// runs. Both move less than the wall time on a loaded machine.
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
let threadCPU = () => Number(readFileSync("/proc/thread-self/schedstat", "latin1").split(" ")[0]) / 1e6;
try {
  if (!(threadCPU() >= 0)) threadCPU = () => NaN;
} catch {
  threadCPU = () => NaN;
}
const time = (fn) => {
  const xs = [];
  const cs = [];
  const ts = [];
  let n = 0;
  for (let i = 0; i < warmup; i++) fn();
  for (let i = 0; i < runs; i++) {
    // The CPU clocks are read outside the wall-clock interval: reading the
    // main thread's from /proc costs about as much as a small query.
    const c0 = cpu();
    const h0 = threadCPU();
    const t0 = now();
    n = fn();
    xs.push(now() - t0);
    ts.push(threadCPU() - h0);
    cs.push(cpu() - c0);
  }
  return { ms: median(xs), minMs: Math.min(...xs), cpuMs: median(cs), threadCpuMs: median(ts), results: n };
};

const pactBytes = readFileSync(pactPath);
t = now();
const pact = ctxql.load("pact", pactBytes, { name: "tree.json" });
out.pactLoadMs = now() - t;
out.pact = {};
for (const [name, q] of Object.entries(JSON.parse(process.env.PACT_QUERIES))) {
  out.pact[name] = time(() => pact.evaluate(q, { dialect: "v1" }).length);
}
pact.release();

const jqlBytes = readFileSync(jqlPath);
t = now();
const jql = ctxql.load("jql", jqlBytes, { name: "activities.jsonl" });
out.jqlLoadMs = now() - t;
out.jql = time(() => jql.evaluate(process.env.JQL_QUERY).length);
jql.release();
console.log(JSON.stringify(out));
