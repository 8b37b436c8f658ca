// @ctxql/ctxql for Node: reads ctxql.wasm from the package (or the file,
// URL or bytes init is given).
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { makeInit, instantiate } from "./core.js";

export { CtxqlError, DataSet, version, check, format, queries, migrate, load, evaluate, callRaw } from "./core.js";

async function readWasm(src, imports) {
  if (src instanceof URL && src.protocol === "file:") {
    src = fileURLToPath(src);
  }
  if (typeof src === "string" && !/^[a-z][a-z0-9+.-]*:\/\//i.test(src)) {
    src = await readFile(src);
  } else if (src instanceof URL || typeof src === "string") {
    src = await fetch(src);
  }
  return instantiate(src, imports);
}

/** Starts the WebAssembly module (once); await it before calling anything else. */
export const init = makeInit(readWasm);
