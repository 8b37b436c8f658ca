// Compiles every input and output schema of `ctxql mcp`, as listed by
// tools/list through the TypeScript MCP SDK, with ajv in strict mode under
// JSON Schema draft 2020-12 and draft-07, as clients that validate strictly
// do.
//
// Usage: node schemas.mjs CTXQL PROJECT
// Prints one line per schema and draft and exits 1 if any failed.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import Ajv07 from "ajv";
import Ajv2020 from "ajv/dist/2020.js";

const [bin, project] = process.argv.slice(2);
const transport = new StdioClientTransport({ command: bin, args: ["mcp", "--force", "--dir", project], stderr: "pipe" });
const client = new Client({ name: "ctxql-schemas", version: "1.0.0" });
await client.connect(transport);
const { tools } = await client.listTools();
await client.close();

let failed = 0, compiled = 0;
for (const [draft, Ajv] of [["draft 2020-12", Ajv2020], ["draft-07", Ajv07]]) {
	for (const t of tools) {
		for (const [kind, schema] of [["input", t.inputSchema], ["output", t.outputSchema]]) {
			const name = `${t.name} ${kind} schema, ${draft}`;
			if (!schema) {
				console.log(`FAIL ${name}: missing`);
				failed++;
				continue;
			}
			// A fresh instance per schema: strict mode, no option relaxed.
			const warnings = [];
			const logger = { log() {}, warn: (...a) => warnings.push(a.join(" ")), error: (...a) => warnings.push(a.join(" ")) };
			const ajv = new Ajv({ strict: true, allErrors: true, logger });
			try {
				ajv.compile(schema);
				if (warnings.length) throw new Error(warnings.join("; "));
				console.log(`ok   ${name}`);
				compiled++;
			} catch (e) {
				console.log(`FAIL ${name}: ${e.message}`);
				failed++;
			}
		}
	}
}
console.log(`${compiled} schemas compiled, ${failed} failed, over ${tools.length} tools`);
process.exit(failed || tools.length === 0 ? 1 : 0);
