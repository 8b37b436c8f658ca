// Drives `ctxql mcp` over stdio through the TypeScript MCP SDK, the client
// most assistants use, and checks how the server answers what once broke
// such a client: output schemas, the callers and callees of a symbol with
// none, large results, rejected requests, long paths, cancelled requests
// and refused resource paths.
//
// Usage: node client.mjs CTXQL PROJECT
// PROJECT holds big/ (a relation of 80,000 tuples) and a cache over 8 MiB.
// Prints one line per check and exits 1 if any failed.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [bin, project] = process.argv.slice(2);
let failed = 0;
const check = (name, ok, detail) => {
	console.log(`${ok ? "ok  " : "FAIL"} ${name}${ok ? "" : ": " + detail}`);
	if (!ok) failed++;
};
const text = (r) => (r.content ?? []).map((c) => c.text ?? "").join("");
const opts = { timeout: 20000 };

const transport = new StdioClientTransport({ command: bin, args: ["mcp", "--force", "--dir", project, "--timeout", "2s"], stderr: "pipe" });
const client = new Client({ name: "ctxql-tsclient", version: "1.0.0" });
const errors = [];
client.onerror = (e) => errors.push(String(e?.message ?? e));
let closed = false;
transport.onclose = () => { closed = true; };
await client.connect(transport);
const alive = async (name) => {
	try {
		await client.ping(opts);
		check(`${name}: the session lives on`, !closed, "closed");
	} catch (e) {
		check(`${name}: the session lives on`, false, e.message);
	}
};
// rejected runs f and returns the error it throws, and how long it took.
const rejected = async (f) => {
	const start = Date.now();
	try {
		const r = await f();
		return { r, ms: Date.now() - start };
	} catch (e) {
		return { e, ms: Date.now() - start };
	}
};

// The tools' output schemas: callTool validates structured content.
const { tools } = await client.listTools();
check("every tool has an output schema", tools.every((t) => t.outputSchema?.type === "object"), tools.filter((t) => !t.outputSchema).map((t) => t.name).join(", "));
for (const [name, args] of [
	["acp_query", { type: "stats" }],
	["acp_query", { type: "search", pattern: "session" }],
	["pact_select", { query: ".block", data: "data/context.json" }],
	["jql_query", { query: '{"from": "activities", "limit": 2}', data: "data/activities.json" }],
	["datalog_query", { query: "q(x, y) <-- edge(x, y).", data: "data/relations.json" }],
]) {
	const { r, e } = await rejected(() => client.callTool({ name, arguments: args }, undefined, opts));
	check(`${name} ${JSON.stringify(args)} validates against its output schema`, r && !r.isError && r.structuredContent, e?.message ?? text(r));
}

// Callers and callees of a symbol with none: every documented key is
// present, the list empty, and the schema requires both keys.
{
	const q = tools.find((t) => t.name === "acp_query");
	for (const keys of [["symbol", "callers"], ["symbol", "callees"]]) {
		const ok = (q.outputSchema.anyOf ?? []).some((b) => JSON.stringify([...(b.required ?? [])].sort()) === JSON.stringify([...keys].sort()));
		check(`acp_query's output schema requires ${keys.join(" and ")}`, ok, JSON.stringify(q.outputSchema.anyOf?.map((b) => b.required)));
	}
	for (const [type, name] of [
		["callers", "src/auth/session.ts:SessionService.validateSession"],
		["callees", "src/db/sessions.ts:findSession"],
		["callees", "src/auth/jwt.ts:verifyToken"],
	]) {
		const { r, e } = await rejected(() => client.callTool({ name: "acp_query", arguments: { type, name } }, undefined, opts));
		const sc = r?.structuredContent;
		const ok = sc && sc.symbol === name && Array.isArray(sc[type]) && sc[type].length === 0 && JSON.stringify(JSON.parse(text(r))) === JSON.stringify(sc);
		check(`acp_query ${type} of ${name}, which has none, is {symbol, ${type}: []}`, ok, e?.message ?? text(r));
	}
}

// 8: a large result and a large resource are refused, naming the limit.
{
	const { r, e } = await rejected(() => client.callTool({ name: "datalog_query", arguments: { query: "q(a) <-- r(a).", data: "big" } }, undefined, opts));
	check("8: 80,000 tuples are refused naming --max-output-bytes", r?.isError && text(r).includes("--max-output-bytes"), e?.message ?? text(r).slice(0, 200));
	await alive("8: after the large result");
	const c = await rejected(() => client.readResource({ uri: "acp://cache" }, opts));
	check("8: acp://cache over the budget is refused naming --max-output-bytes", c.e && c.e.message.includes("--max-output-bytes"), c.e?.message ?? "served");
	await alive("8: after the large resource");
}

// 9: rejected requests are answered with their id, at once.
for (const [name, f, code] of [
	["a lone surrogate", () => client.callTool({ name: "jql_query", arguments: { query: "\ud83d", data: "data/activities.json" } }, undefined, opts), -32700],
	["options nested 129 deep", () => {
		let o = 1;
		for (let i = 0; i < 129; i++) o = { a: o };
		return client.callTool({ name: "pact_select", arguments: { query: ".block", data: "data/context.json", options: o } }, undefined, opts);
	}, -32600],
	["a message over 16 MiB", () => client.callTool({ name: "jql_query", arguments: { query: "x".repeat(17 << 20), data: "data/activities.json" } }, undefined, opts), -32600],
]) {
	const { e, ms } = await rejected(f);
	check(`9: ${name} is answered with error ${code} for its id`, e && e.code === code && ms < 10000, `${e?.code} ${e?.message} after ${ms} ms`);
}
await alive("9");

// 10: long paths are refused at once.
{
	const long = "a/".repeat(64000) + "a".repeat(3072);
	const { r, e, ms } = await rejected(() => client.callTool({ name: "acp_constraints", arguments: { file: long } }, undefined, opts));
	check("10: a 128 KiB path is refused at once", r?.isError && text(r).includes("longer than 4096 bytes") && ms < 5000, `${e?.message ?? text(r).slice(0, 200)} after ${ms} ms`);
	const u = await rejected(() => client.readResource({ uri: "acp://file/" + "b/".repeat(24000) + "x" }, opts));
	check("10: an acp://file/ URI of 24,000 segments is refused with -32602 at once", u.e?.code === -32602 && u.ms < 5000, `${u.e?.code} ${u.e?.message?.slice(0, 200)} after ${u.ms} ms`);
}

// 11: a cancelled request is not answered. The call pairs every two of
// 80,000 values (6.4 billion pairs, none kept): it runs far past the
// cancellation, without reaching any budget.
{
	const ac = new AbortController();
	const p = rejected(() => client.callTool({ name: "datalog_query", arguments: { query: "q(a, b) <-- r(a), r(b), if a < b, if b < a.", data: "big" } }, undefined, { signal: ac.signal, timeout: 20000 }));
	setTimeout(() => ac.abort("no longer needed"), 200);
	const { e } = await p;
	check("11: the cancelled call is rejected by the client", !!e, "it completed");
	await new Promise((res) => setTimeout(res, 3000)); // past the 2 s deadline
	const unknown = errors.filter((m) => m.includes("unknown message ID"));
	check("11: no answer comes for the cancelled request", unknown.length === 0, unknown.join("; "));
	await alive("11");
}

// 12: refused resource paths carry -32602 and the reason.
{
	const { e } = await rejected(() => client.readResource({ uri: "acp://file/../../etc/passwd" }, opts));
	check("12: acp://file/../../etc/passwd is refused with -32602 and the reason", e?.code === -32602 && e.message.includes("outside the project directory"), `${e?.code} ${e?.message}`);
}

check("no errors reached the client", errors.length === 0, errors.join("; "));
await client.close();
process.exit(failed ? 1 : 0);
