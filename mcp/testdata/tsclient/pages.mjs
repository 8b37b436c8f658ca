// Reads a cache larger than the output budget through the TypeScript MCP
// SDK, as a stock client does: acp://cache is refused naming its pages, the
// pages are listed as resources, and the texts of the pages, read one by
// one, joined are the cache file byte for byte.
//
// Usage: node pages.mjs CTXQL PROJECT
// Prints one line per check and exits 1 if any failed.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [bin, project] = process.argv.slice(2);
let failed = 0;
const check = (name, ok, detail) => {
	console.log(`${ok ? "ok  " : "FAIL"} ${name}${ok ? "" : ": " + detail}`);
	if (!ok) failed++;
};
const opts = { timeout: 60000 };
const cache = readFileSync(join(project, ".acp.cache.json"));

const transport = new StdioClientTransport({ command: bin, args: ["mcp", "--force", "--dir", project], stderr: "pipe" });
const client = new Client({ name: "ctxql-pages", version: "1.0.0" });
await client.connect(transport);

let whole;
try {
	await client.readResource({ uri: "acp://cache" }, opts);
} catch (e) {
	whole = e;
}
check(`acp://cache of ${cache.length} bytes is refused naming its pages and --max-output-bytes`,
	whole && /served in \d+ pages: read acp:\/\/cache\/page\/1 to acp:\/\/cache\/page\/\d+/.test(whole.message) && whole.message.includes("--max-output-bytes"),
	whole?.message ?? "served whole");

const { resources } = await client.listResources();
const pages = resources.filter((r) => r.uri.startsWith("acp://cache/page/"));
check("the pages of acp://cache are listed", pages.length >= 2 && pages.every((p, i) => p.uri === `acp://cache/page/${i + 1}`), pages.map((p) => p.uri).join(" "));
const { resourceTemplates } = await client.listResourceTemplates();
check("the template acp://cache/page/{n} is listed", resourceTemplates.some((t) => t.uriTemplate === "acp://cache/page/{n}"), resourceTemplates.map((t) => t.uriTemplate).join(" "));

// Follow the pages from the first, as _meta.next says, as a client would.
const parts = [];
let uri = "acp://cache/page/1";
let meta;
while (uri && parts.length <= pages.length) {
	const r = await client.readResource({ uri }, opts);
	const c = r.contents[0];
	meta = c._meta;
	check(`${uri}: page ${meta?.page} of ${meta?.pages}, at offset ${meta?.offset}`, c.uri === uri && meta?.pages === pages.length && typeof c.text === "string", JSON.stringify(meta));
	parts.push(Buffer.from(c.text, "utf8"));
	uri = meta?.next;
}
const joined = Buffer.concat(parts);
check(`the ${parts.length} pages joined are the cache, byte for byte (${joined.length} bytes)`, joined.equals(cache), `${joined.length} bytes, want ${cache.length}`);
check("the joined pages parse as the cache", Object.keys(JSON.parse(joined.toString("utf8")).files).length >= 30000, "too few files");

for (const bad of ["acp://cache/page/0", `acp://cache/page/${pages.length + 1}`, "acp://cache/page/x"]) {
	let e;
	try {
		await client.readResource({ uri: bad }, opts);
	} catch (err) {
		e = err;
	}
	check(`${bad} is not found (-32602)`, e?.code === -32602, `${e?.code} ${e?.message}`);
}
await client.close();
process.exit(failed ? 1 : 0);
