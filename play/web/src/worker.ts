// The exported page's worker: it loads ctxql's WebAssembly module (the npm
// package's browser entry, beside the page) and runs the page's language
// server (server.ts) on it, off the page's thread, so that the page stays
// responsive and can stop an evaluation over its time limit by ending the
// worker. Messages from the page, in order:
//
//	{type: "init", module: URL of browser.js}
//	{type: "paste", ref, text, ext}   sample data pasted into the page
//	{type: "lsp", message}            a language server message (JSON text)
//
// and to the page: {type: "ready", version}, {type: "failed", message},
// {type: "lsp", message}.
import type * as Ctxql from "../../../npm/ctxql/index.js";
import { ModuleServer, type Pasted } from "./server";

const post = (m: object) => (self as any).postMessage(m);
const pastes: Pasted = new Map();
let server: ModuleServer | null = null;
let ready: Promise<void> = Promise.resolve();

async function start(moduleURL: string) {
  try {
    const ctxql: typeof Ctxql = await import(/* @vite-ignore */ moduleURL);
    await ctxql.init();
    server = new ModuleServer(ctxql, pastes, (message) => post({ type: "lsp", message }));
    post({ type: "ready", version: ctxql.version() });
  } catch (e) {
    post({ type: "failed", message: String((e as Error).message || e) });
  }
}

self.onmessage = (e: MessageEvent) => {
  const m = e.data;
  switch (m.type) {
    case "init":
      ready = start(m.module);
      break;
    case "paste":
      pastes.set(m.ref, { text: m.text, ext: m.ext });
      break;
    case "lsp":
      ready = ready.then(() => server?.receive(m.message)).catch(() => {});
      break;
  }
};
