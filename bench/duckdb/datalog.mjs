// DuckDB anchor of the Datalog benchmarks (bench/datalog BenchmarkAnchors):
// runs the SQL equivalents of the benchmarked Datalog workloads over the
// CSV files of a facts directory (RELATION.csv, two text columns c1, c2, no
// header; DIR/WORKLOAD/RELATION.csv) through @duckdb/node-api, with 1 and 2 threads: on tables built
// beforehand (the query on loaded data) and in a fresh database that reads
// the files first (end to end in the process). It writes each workload's
// rows to OUTDIR/WORKLOAD.csv, for the benchmark to compare with ctxql's,
// and prints one JSON object: the row counts and the median times in
// milliseconds.
//
//   node datalog.mjs DIR OUTDIR REPS WORKLOAD...
//
// Not part of the test suite; run `npm ci` in this directory first.
import { DuckDBInstance } from '@duckdb/node-api';
import path from 'node:path';

const [dir, outDir, repsArg, ...names] = process.argv.slice(2);
const reps = Number(repsArg || 3);
const q = (s) => `'${s.replaceAll("'", "''")}'`;
const csv = (name, rel) => `read_csv(${q(path.join(dir, name, rel + '.csv'))}, header = false, quote = '"', escape = '"', columns = {'c1': 'VARCHAR', 'c2': 'VARCHAR'})`;

// Each workload: the relations it reads and its SQL over tables of those
// names. Recursion is UNION (set semantics, as Datalog's).
const workloads = {
  negation: {
    rels: ['path', 'rw_proc'],
    sql: `SELECT DISTINCT p.c1, p.c2 FROM path p WHERE NOT EXISTS (SELECT 1 FROM rw_proc r WHERE r.c1 = p.c2)`,
  },
  closure: {
    rels: ['e'],
    sql: `WITH RECURSIVE tc(x, y) AS (SELECT c1, c2 FROM e UNION SELECT tc.x, e.c2 FROM tc JOIN e ON e.c1 = tc.y) SELECT x, y FROM tc`,
  },
  samegen: {
    rels: ['p'],
    sql: `WITH RECURSIVE sg(x, y) AS (
  SELECT p1.c1, p2.c1 FROM p p1 JOIN p p2 ON p1.c2 = p2.c2 WHERE p1.c1 <> p2.c1
  UNION
  SELECT p1.c1, p2.c1 FROM sg JOIN p p1 ON p1.c2 = sg.x JOIN p p2 ON p2.c2 = sg.y)
SELECT x, y FROM sg`,
  },
};

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};
const now = () => process.hrtime.bigint();
const msSince = (t0) => Number(now() - t0) / 1e6;

async function count(conn, sql) {
  const r = await conn.runAndReadAll(`SELECT count(*) AS n FROM (${sql}) s`);
  return Number(r.getRowObjects()[0].n);
}

async function load(conn, name, rels) {
  for (const rel of rels) {
    await conn.run(`CREATE OR REPLACE TABLE ${rel} AS SELECT * FROM ${csv(name, rel)}`);
  }
}

const out = { version: '', rows: {}, prebuilt: {}, e2e: {}, loadMs: {} };
for (const threads of [1, 2]) {
  const inst = await DuckDBInstance.create(':memory:', { threads: String(threads) });
  const conn = await inst.connect();
  if (!out.version) {
    out.version = (await conn.runAndReadAll('SELECT version() AS v')).getRowObjects()[0].v;
  }
  for (const name of names) {
    const w = workloads[name];
    if (!w) throw new Error(`unknown workload ${name}`);
    const t0 = now();
    await load(conn, name, w.rels);
    (out.loadMs[name] ??= {})[threads] = msSince(t0);
    if (threads === 1) {
      await conn.run(`COPY (${w.sql}) TO ${q(path.join(outDir, name + '.csv'))} (HEADER false)`);
    }
    const times = [];
    for (let i = 0; i < reps + 1; i++) {
      const t1 = now();
      const n = await count(conn, w.sql);
      if (i > 0) times.push(msSince(t1)); // the first run warms the caches
      if ((out.rows[name] ??= n) !== n) throw new Error(`${name}: ${n} rows, before ${out.rows[name]}`);
    }
    (out.prebuilt[name] ??= {})[threads] = median(times);
  }
  conn.closeSync?.();
  // End to end in the process: a fresh database reads the files, then
  // answers.
  for (const name of names) {
    const w = workloads[name];
    const times = [];
    for (let i = 0; i < Math.max(1, reps); i++) {
      const fresh = await DuckDBInstance.create(':memory:', { threads: String(threads) });
      const c = await fresh.connect();
      const t1 = now();
      await load(c, name, w.rels);
      const n = await count(c, w.sql);
      times.push(msSince(t1));
      if (n !== out.rows[name]) throw new Error(`${name}: ${n} rows end to end, ${out.rows[name]} on the prebuilt tables`);
      c.closeSync?.();
    }
    (out.e2e[name] ??= {})[threads] = median(times);
  }
}
process.stdout.write(JSON.stringify(out) + '\n');
