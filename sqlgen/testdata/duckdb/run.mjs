// Runs a job in one in-memory DuckDB database and writes the rows read
// on stdout. The job, on stdin, is {"setup": [SQL...], "queries":
// [SQL...]} or {"items": [ITEM...]} where an item is {"exec": SQL},
// {"read": SQL} or {"loop": [SQL...], "count": SQL} (the statements run
// again while count reads a non-zero number). The output is {"results":
// [[row, ...], ...]}, one entry per query or read item, every value as
// text and null as null, or {"error": message, "sql": statement}.
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
  for (const it of items) {
    if (it.exec !== undefined) {
      current = it.exec;
      await conn.run(it.exec);
    } else if (it.read !== undefined) {
      results.push(await read(it.read));
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
  process.stdout.write(JSON.stringify({ results }));
} catch (e) {
  process.stdout.write(JSON.stringify({ error: String(e && e.message ? e.message : e), sql: current }));
}
