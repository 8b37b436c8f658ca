// The page's two backends. Served by `ctxql play`, the page asks the
// server: its HTTP API (/api/...) and a language server over a WebSocket.
// Exported by `ctxql play --export`, it runs on the WebAssembly build of
// ctxql's library (the npm package @ctxql/ctxql, shipped beside the page)
// and asks it the same questions through the same calls: the static
// files stand in for the API, and module.ts answers the language
// server's messages. The page's index.html says which backend it has.
import type { Transport } from "@codemirror/lsp-client";
import { moduleBackend } from "./module";

export interface Backend {
  // api answers a request of the server's HTTP API with its JSON.
  api(path: string, init?: RequestInit): Promise<any>;
  // example returns the text of a file of the examples.
  example(name: string): Promise<string>;
  // connect opens the language server's transport.
  connect(onClose: (reason: string) => void): Promise<Transport>;
}

// The server's backend: the HTTP API and the WebSocket of `ctxql play`.
export const serverBackend: Backend = {
  async api(path, init) {
    const r = await fetch(path, init);
    if (!r.ok) throw new Error((await r.text()).trim() || r.statusText);
    return r.json();
  },
  async example(name) {
    const r = await fetch("/api/example?name=" + encodeURIComponent(name));
    if (!r.ok) throw new Error((await r.text()).trim() || r.statusText);
    return r.text();
  },
  connect(onClose) {
    const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/lsp";
    const ws = new WebSocket(url);
    const handlers: ((m: string) => void)[] = [];
    ws.onmessage = (e) => { for (const h of handlers) h(String(e.data)); };
    return new Promise((resolve, reject) => {
      ws.onopen = () => resolve({
        send(m: string) { ws.send(m); },
        subscribe(h) { handlers.push(h); },
        unsubscribe(h) { const i = handlers.indexOf(h); if (i >= 0) handlers.splice(i, 1); },
      });
      ws.onerror = () => reject(new Error("the connection to ctxql play failed"));
      ws.onclose = (e) => onClose(e.reason || "the connection to ctxql play closed");
    });
  },
};

// chooseBackend returns the backend the page's index.html names (a meta
// element ctxql-backend; "module" for the exported page).
export async function chooseBackend(): Promise<Backend> {
  const kind = document.querySelector<HTMLMetaElement>('meta[name="ctxql-backend"]')?.content;
  return kind === "module" ? moduleBackend() : serverBackend;
}
