// @ctxql/ctxql for browsers: fetches ctxql.wasm from next to this module
// (or from the URL, bytes or Response init is given).
import { makeInit, instantiate } from "./core.js";

export { CtxqlError, DataSet, version, check, format, queries, migrate, load, evaluate, callRaw } from "./core.js";

async function readWasm(src, imports) {
  if (src instanceof URL || typeof src === "string") {
    src = await fetch(src);
  }
  return instantiate(src, imports);
}

/** Starts the WebAssembly module (once); await it before calling anything else. */
export const init = makeInit(readWasm);
