// node runcases.mjs cases.json out.json: the differential cases through
// @ctxql/ctxql in Node (installed in the project this file is copied to).
import { readFileSync, writeFileSync } from "node:fs";
import * as ctxql from "@ctxql/ctxql";
import { runCases } from "./cases.mjs";

const [casesPath, outPath] = process.argv.slice(2);
await ctxql.init();
const { cases } = JSON.parse(readFileSync(casesPath, "utf8"));
writeFileSync(outPath, JSON.stringify({ outputs: runCases(ctxql, cases) }));
