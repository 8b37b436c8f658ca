// The exported page's backend: ctxql's library built for WebAssembly (the
// npm package @ctxql/ctxql, in the directory ctxql/ beside the page) in
// place of the server. The page's API requests are answered from the
// exported files (info.json, examples/) and the page's pasted data; its
// language server messages by server.ts on the module, in a worker
// (worker.ts). A request that runs past the time limit ends the worker:
// the page gets an error naming the limit, and a new worker takes over
// the page's documents, settings and pasted data.
import type { Transport } from "@codemirror/lsp-client";
import type { Backend } from "./backend";
import { noFiles } from "./server";

export async function moduleBackend(): Promise<Backend> {
  const r = await fetch("info.json");
  if (!r.ok) throw new Error("info.json: " + r.statusText);
  const info = await r.json();
  const worker = new ModuleWorker(info.timeoutMs);
  info.version = (await worker.start()).replace(/^ctxql /, "");
  // The worker times each request from when it is ready; the page's own
  // deadline for an answer (timeoutMs) also covers starting a new worker
  // after one ran out of time.
  info.timeoutMs += restartAllowanceMs;
  let pasted = 0;
  return {
    async api(path, init) {
      const u = new URL(path, "http://page");
      switch (u.pathname) {
        case "/api/info":
          return info;
        case "/api/files":
          return { queries: [], data: [] };
        case "/api/paste": {
          const ext = u.searchParams.get("ext") || "json";
          const text = typeof init?.body === "string" ? init.body : "";
          const ref = `paste:${++pasted}.${ext}`;
          worker.paste(ref, text, ext);
          return { data: ref };
        }
        default:
          throw new Error(`${noFiles} (${u.pathname})`);
      }
    },
    async example(name) {
      if (!/^[A-Za-z0-9_.-]+$/.test(name) || name.startsWith(".")) throw new Error("no such example");
      const r = await fetch("examples/" + name);
      if (!r.ok) throw new Error("no such example: " + name);
      return r.text();
    },
    async connect() {
      return worker.transport();
    },
  };
}

// restartAllowanceMs is how long a new worker may take to start.
const restartAllowanceMs = 60000;

// Pending is a request the worker has not answered.
type Pending = { id: any; method: string; timer?: ReturnType<typeof setTimeout> };

// ModuleWorker is the page's end of the worker: it passes the language
// server messages, times each request, and replaces a worker whose
// request ran out of time.
class ModuleWorker {
  private worker!: Worker;
  private handlers: ((m: string) => void)[] = [];
  // The requests the worker has not answered, by id; each is timed from
  // when the worker is ready.
  private pending = new Map<string, Pending>();
  private ready = false;
  private pastes: { ref: string; text: string; ext: string }[] = [];
  // What a new worker needs to take over: the initialize params, the
  // settings and the open documents' texts.
  private init: any = null;
  private config: any = null;
  private docs = new Map<string, { uri: string; languageId: string; version: number; text: string }>();
  private replays = 0;

  constructor(private timeoutMs: number) {}

  // start starts a worker and returns the module's version.
  start(): Promise<string> {
    this.ready = false;
    this.worker = new Worker(new URL("assets/worker.js", document.baseURI), { type: "module" });
    const started = new Promise<string>((resolve, reject) => {
      this.worker.onmessage = (e) => {
        const m = e.data;
        if (m.type === "ready") {
          this.ready = true;
          for (const p of this.pending.values()) this.time(p);
          resolve(m.version);
        }
        else if (m.type === "failed") reject(new Error("ctxql.wasm: " + m.message));
        else if (m.type === "lsp") this.fromWorker(m.message);
      };
      this.worker.onerror = (e) => reject(new Error("the worker failed: " + (e.message || "load error")));
    });
    this.worker.postMessage({ type: "init", module: new URL("ctxql/browser.js", document.baseURI).href });
    return started;
  }

  paste(ref: string, text: string, ext: string) {
    this.pastes.push({ ref, text, ext });
    if (this.pastes.length > 8) this.pastes.shift();
    this.worker.postMessage({ type: "paste", ref, text, ext });
  }

  transport(): Transport {
    return {
      send: (m: string) => this.toWorker(m),
      subscribe: (h) => { this.handlers.push(h); },
      unsubscribe: (h) => { const i = this.handlers.indexOf(h); if (i >= 0) this.handlers.splice(i, 1); },
    };
  }

  private toWorker(raw: string) {
    const m = JSON.parse(raw);
    const p = m.params;
    switch (m.method) {
      case "initialize": this.init = p; break;
      case "workspace/didChangeConfiguration": this.config = p; break;
      case "textDocument/didOpen": this.docs.set(p.textDocument.uri, { ...p.textDocument }); break;
      case "textDocument/didChange": {
        const d = this.docs.get(p.textDocument.uri), last = p.contentChanges[p.contentChanges.length - 1];
        if (d && last) { d.text = last.text; d.version = p.textDocument.version; }
        break;
      }
      case "textDocument/didClose": this.docs.delete(p.textDocument.uri); break;
    }
    if (m.method && m.id !== undefined && m.method !== "initialize") {
      const p: Pending = { id: m.id, method: m.method };
      this.pending.set(String(m.id), p);
      if (this.ready) this.time(p);
    }
    this.worker.postMessage({ type: "lsp", message: raw });
  }

  // time starts the time limit of a request.
  private time(p: Pending) {
    p.timer ??= setTimeout(() => this.timedOut(), this.timeoutMs);
  }

  private fromWorker(raw: string) {
    const m = JSON.parse(raw);
    if (m.id !== undefined && !m.method) {
      if (String(m.id).startsWith("replay-")) return; // a new worker's initialize
      clearTimeout(this.pending.get(String(m.id))?.timer);
      this.pending.delete(String(m.id));
    }
    for (const h of this.handlers) h(raw);
  }

  // timedOut ends the worker running a request over the time limit,
  // answers its pending requests with an error naming the limit, and
  // starts a new worker with the page's documents, settings and pasted
  // data.
  private timedOut() {
    this.worker.terminate();
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      const message = `ctxql play: ${p.method}: stopped at the time limit of ${this.timeoutMs / 1000} s (ctxql play --export --timeout)`;
      const err = JSON.stringify({ jsonrpc: "2.0", id: p.id, error: { code: -32803, message } });
      for (const h of this.handlers) h(err);
    }
    this.pending.clear();
    void this.start().catch(() => {});
    for (const p of this.pastes) this.worker.postMessage({ type: "paste", ...p });
    const send = (msg: object) => this.worker.postMessage({ type: "lsp", message: JSON.stringify({ jsonrpc: "2.0", ...msg }) });
    if (this.init) send({ id: `replay-${++this.replays}`, method: "initialize", params: this.init });
    send({ method: "initialized", params: {} });
    if (this.config) send({ method: "workspace/didChangeConfiguration", params: this.config });
    for (const d of this.docs.values()) send({ method: "textDocument/didOpen", params: { textDocument: d } });
  }
}
