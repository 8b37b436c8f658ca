// DuckDB anchor of the JQL benchmarks (bench/jql BenchmarkLoadedDuckDB):
// runs the SQL equivalents of the benchmarked JQL queries over a JSON Lines
// file of activities through @duckdb/node-api, with 1 and 2 threads, on a
// table built beforehand (the query on loaded data) and straight from the
// file (end to end in the process), and prints one JSON object: the rows
// of each query (ids, in order) and the median times in milliseconds.
//
//   node jql.mjs FILE REPS
//
// Not part of the test suite; run `npm ci` in this directory first.
import { DuckDBInstance } from '@duckdb/node-api';

const [file, repsArg] = process.argv.slice(2);
const reps = Number(repsArg || 5);
const src = `read_json('${file.replaceAll("'", "''")}', format = 'newline_delimited')`;

// The JQL queries of bench/jql, in SQL: order by createTime descending,
// then id ascending; limit 100. A JQL condition on artifacts.exitCode
// holds when some artifact's exitCode satisfies it.
const queries = {
  bar: (t) => `SELECT id, list_transform(artifacts, a -> {command: a.command, exitCode: a.exitCode}) AS artifacts FROM ${t}
    WHERE sessionId = 's-42' AND type = 'progressUpdated'
      AND len(list_filter(artifacts, a -> a.exitCode IS NOT NULL AND a.exitCode <> 0)) > 0
    ORDER BY createTime DESC, id LIMIT 100`,
  timeExit: (t) => `SELECT id, type, createTime FROM ${t}
    WHERE createTime >= '2024-01-02T00:00:00Z' AND len(list_filter(artifacts, a -> a.exitCode > 1)) > 0
    ORDER BY createTime DESC, id LIMIT 100`,
  contains: (t) => `SELECT id, type, createTime FROM ${t}
    WHERE message ILIKE '%READY FOR REVIEW%'
    ORDER BY createTime DESC, id LIMIT 100`,
};

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

async function timed(conn, sql) {
  const t0 = process.hrtime.bigint();
  const r = await conn.runAndReadAll(sql);
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  return { ms, ids: r.getRowObjects().map((o) => String(o.id)) };
}

const out = { version: '', rows: {}, prebuilt: {}, e2e: {}, loadMs: {} };
for (const threads of [1, 2]) {
  const inst = await DuckDBInstance.create(':memory:', { threads: String(threads) });
  const conn = await inst.connect();
  if (!out.version) {
    out.version = (await conn.runAndReadAll('SELECT version() AS v')).getRowObjects()[0].v;
  }
  const t0 = process.hrtime.bigint();
  await conn.run(`CREATE TABLE activities AS SELECT * FROM ${src}`);
  out.loadMs[threads] = Number(process.hrtime.bigint() - t0) / 1e6;
  for (const [name, q] of Object.entries(queries)) {
    const times = [];
    for (let i = 0; i < reps + 1; i++) {
      const r = await timed(conn, q('activities'));
      if (i > 0) times.push(r.ms); // the first run warms the caches
      out.rows[name] ??= r.ids;
    }
    (out.prebuilt[name] ??= {})[threads] = median(times);
  }
  conn.closeSync?.();
  // End to end in the process: a fresh database reads the file per query.
  for (const [name, q] of Object.entries(queries)) {
    const times = [];
    for (let i = 0; i < Math.max(1, Math.floor(reps / 2)); i++) {
      const fresh = await DuckDBInstance.create(':memory:', { threads: String(threads) });
      const c = await fresh.connect();
      const t1 = process.hrtime.bigint();
      const r = await c.runAndReadAll(q(src));
      times.push(Number(process.hrtime.bigint() - t1) / 1e6);
      if (JSON.stringify(r.getRowObjects().map((o) => String(o.id))) !== JSON.stringify(out.rows[name])) {
        throw new Error(`${name}: the rows read from the file differ from the table's`);
      }
      c.closeSync?.();
    }
    (out.e2e[name] ??= {})[threads] = median(times);
  }
}
process.stdout.write(JSON.stringify(out) + '\n');
