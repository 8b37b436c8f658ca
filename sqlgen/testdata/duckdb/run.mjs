// Runs a job in one in-memory DuckDB database and writes the rows read
// on stdout. The job, on stdin, is {"setup": [SQL...], "queries":
// [SQL...]} or {"items": [ITEM...]} where an item is {"exec": SQL},
// {"read": SQL}, {"loop": [SQL...], "count": SQL} (the statements run
// again while count reads a non-zero number) or {"time": SQL, "n": N}
// (a read, then N more runs timed; with "quiet": true its rows are not
// returned). The output is {"results": [[row, ...], ...], "times": [ms,
// ...]}, one result per query, read or time item, every value as text
// and null as null, and the median time of each time item; or {"error":
// message, "sql": statement}. An item with a "group" that fails records
// its message in "failed" (by group) and the group's later items are
// skipped, a read giving null, instead of ending the job.
import { DuckDBInstance } from '@duckdb/node-api';

const chunks = [];
for await (const c of process.stdin) chunks.push(c);
const job = JSON.parse(Buffer.concat(chunks).toString('utf8'));
const items = job.items ?? [...job.setup.map((s) => ({ exec: s })), ...job.queries.map((q) => ({ read: q }))];
const instance = await DuckDBInstance.create(':memory:');
const conn = await instance.connect();
let current = '';
const read = async (sql) => {
  current = sql;
  const reader = await conn.runAndReadAll(sql);
  return reader.getRows().map((row) => row.map((v) => (v === null ? null : String(v))));
};
try {
  const results = [];
  const times = [];
  const failed = {};
  for (const it of items) {
    if (it.group !== undefined && failed[it.group] !== undefined) {
      if (it.read !== undefined || it.time !== undefined) results.push(null);
      continue;
    }
    try {
      await runItem(it, results, times);
    } catch (e) {
      if (it.group === undefined) throw e;
      failed[it.group] = String(e && e.message ? e.message : e);
      if (it.read !== undefined || it.time !== undefined) results.push(null);
    }
  }
  process.stdout.write(JSON.stringify({ results, times, failed }));
} catch (e) {
  process.stdout.write(JSON.stringify({ error: String(e && e.message ? e.message : e), sql: current }));
}

async function runItem(it, results, times) {
    if (it.exec !== undefined) {
      current = it.exec;
      await conn.run(it.exec);
    } else if (it.read !== undefined) {
      results.push(await read(it.read));
    } else if (it.time !== undefined) {
      const rows = await read(it.time);
      results.push(it.quiet ? [] : rows);
      const ms = [];
      for (let i = 0; i < (it.n ?? 3); i++) {
        const start = performance.now();
        await conn.runAndReadAll(it.time);
        ms.push(performance.now() - start);
      }
      ms.sort((a, b) => a - b);
      times.push(ms[Math.floor(ms.length / 2)]);
    } else {
      for (;;) {
        for (const s of it.loop) {
          current = s;
          await conn.run(s);
        }
        if (Number((await read(it.count))[0][0]) === 0) break;
      }
    }
}
