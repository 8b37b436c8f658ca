// The ctxql playground's page: one CodeMirror editor on the ctxql
// language server (over the server's WebSocket, or answered in the page by
// the WebAssembly module when exported: backend.ts), the results of the
// query at the cursor, the count after each of its steps, Datalog
// explanations, sample data from the project or pasted, and the whole
// state in the link's fragment.
import { EditorView, keymap, lineNumbers, highlightActiveLine, drawSelection } from "@codemirror/view";
import { EditorState, type Extension } from "@codemirror/state";
import { defaultKeymap, history, historyKeymap } from "@codemirror/commands";
import { lintGutter, lintKeymap } from "@codemirror/lint";
import { completionKeymap } from "@codemirror/autocomplete";
import {
  LSPClient, LSPPlugin, formatDocument, hoverTooltips, serverCompletion, formatKeymap, renameKeymap,
  jumpToDefinitionKeymap, findReferencesKeymap,
} from "@codemirror/lsp-client";
import { offset, position, pullDiagnostics, pullInlayHints, pullSemanticTokens, semanticField, hintField, type Range } from "./lsp";
import { renderResults, renderFunnel, type Preview, type Step } from "./results";
import { chooseBackend, type Backend } from "./backend";
import { readState, writeState, pushHistory, loadHistory, type State } from "./state";

// Language is a query language as the server's language table describes
// it: steps says whether ctxql.explain counts what each step of a query
// left (the funnel), proofs whether ctxql.why proves a result (the Why
// panel).
type Language = { id: string; name: string; extensions: string[]; comment: string; dialects?: string[]; steps?: boolean; proofs?: boolean };
type Example = { name: string; lang: string; query: string; data: string };
type Info = {
  version: string; root: string; project: string; languages: Language[]; examples: Example[];
  maxPasteBytes: number; maxQueryBytes: number; timeoutMs: number; path?: string; data?: string;
  // files is false where the page reads no project files (the exported
  // page): only pasted data and the examples.
  files?: boolean;
};

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

let info: Info;
let backend: Backend;
let client: LSPClient;
let view: EditorView | null = null;
let uri = "";
let state: State;
let pasteIDs = new Map<string, string>(); // pasted text → the server's name for it
let lastEdit = 0;
let generation = 0; // bumps on every edit: late answers for older texts are dropped

// relative names the files of the project in a message relative to the
// project, as the page shows them: the project's absolute path and its
// file: URI become the path inside it.
function relative(text: string): string {
  if (!info || !text) return text;
  const dir = decodeURIComponent(new URL(info.root).pathname);
  return text.split(info.root + "/").join("").split(dir + "/").join("");
}

function status(msg: string, error = false) {
  const el = $("status");
  el.textContent = relative(msg);
  el.className = error ? "error" : "";
}

function api(path: string, init?: RequestInit): Promise<any> {
  return backend.api(path, init);
}

function languageOf(id: string): Language {
  return info.languages.find((l) => l.id === id) || info.languages[0];
}

function languageOfPath(p: string): Language | undefined {
  let best: Language | undefined, len = 0;
  for (const l of info.languages) for (const e of l.extensions) {
    if (p.toLowerCase().endsWith(e) && e.length > len) { best = l; len = e.length; }
  }
  return best;
}

// docURI is the document the editor holds: the project file it came from,
// or a file of the project's .ctxql-play directory (never written).
function docURI(): string {
  if (state.path) return info.root + "/" + state.path.split("/").map(encodeURIComponent).join("/");
  return info.root + "/.ctxql-play/query" + languageOf(state.l).extensions[0];
}

function basename(u: string) { return u.slice(u.lastIndexOf("/") + 1); }

// settings are the "ctxql" settings for the current state: the sample data
// of the document and the dialect.
async function settings(): Promise<any> {
  const set: any = {};
  const d = state.data;
  let ref = "";
  if (d && "file" in d && d.file) ref = d.file;
  if (d && "paste" in d && d.paste) {
    ref = pasteIDs.get(d.fmt + "\n" + d.paste) || "";
    if (!ref) {
      const r = await api("/api/paste?ext=" + encodeURIComponent(d.fmt), { method: "POST", body: d.paste, headers: { "Content-Type": "text/plain" } });
      ref = r.data;
      pasteIDs.set(d.fmt + "\n" + d.paste, ref);
    }
  }
  if (ref) set.data = { [basename(uri)]: ref };
  if (state.d) set.dialect = { default: state.d };
  return set;
}

async function sendSettings() {
  try {
    client.notification("workspace/didChangeConfiguration", { settings: { ctxql: await settings() } });
    $("dataname").textContent = describeData();
  } catch (e) {
    status(String((e as Error).message || e), true);
  }
  refresh();
}

function describeData(): string {
  const d = state.data;
  if (d && "file" in d && d.file) return "— " + d.file;
  if (d && "paste" in d && d.paste) return `— pasted ${d.fmt} (${d.paste.length} bytes)`;
  return "";
}

// After an edit the page synchronizes the text and pulls the diagnostics
// and highlighting; the server pushes the edited query's result
// (ctxql/preview). Elsewhere — opening, new settings, Run, the cursor
// moving to another query — the page asks for the result at the cursor
// (ctxql.run).
let editTimer = 0, runTimer = 0, detailTimer = 0;
let lastRange: Range | null = null;
// ranSinceEdit: a result was asked for (Run, the cursor on another query)
// since the last edit. The server's preview is of the edited query at a
// version no newer, so it then must not replace the result asked for.
let ranSinceEdit = false;
// inFlight: a result asked for at the cursor has not come yet. The cursor
// moving meanwhile asks again: the answer on its way may be of the query
// the cursor has left, and lastRange is not yet its range.
let inFlight = false;

// While the user types, the server evaluates the edited query for its
// preview; the step counts (the inlay hints and the funnel), which cost
// about as much again, wait until typing pauses (detailDelay).
const syncDelay = 5, detailDelay = 150;

function edited() {
  clearTimeout(editTimer);
  clearTimeout(detailTimer);
  editTimer = window.setTimeout(() => {
    if (!view) return;
    generation++;
    client.sync();
    void pullDiagnostics(client, view, uri).catch(() => {});
    void pullSemanticTokens(client, view, uri).catch(() => {});
    saveState();
  }, syncDelay);
}

function refresh() {
  clearTimeout(runTimer);
  runTimer = window.setTimeout(runAtCursor, 30);
}

function cursorMoved() {
  if (!view || !lastRange || inFlight) return refresh();
  const head = view.state.selection.main.head, doc = view.state.doc;
  if (head < offset(doc, lastRange.start) || head > offset(doc, lastRange.end)) refresh();
}

async function runAtCursor() {
  if (!view) return;
  const v = view, gen = ++generation, started = performance.now();
  ranSinceEdit = true;
  inFlight = true;
  client.sync();
  void pullDiagnostics(client, v, uri).catch(() => {});
  void pullSemanticTokens(client, v, uri).catch(() => {});
  let pos = position(v.state.doc, v.state.selection.main.head);
  let res = await run(pos);
  if (gen !== generation) return;
  if (res.error && /^No query at line/.test(res.error)) {
    // Not on a query (a comment, a blank line): run the first query, as
    // its "▶ Run" lens would.
    try {
      const lenses: any[] = (await client.request("textDocument/codeLens", { textDocument: { uri } })) || [];
      const lens = lenses.find((l) => l.command && l.command.command === "ctxql.run");
      if (lens) { pos = lens.range.start; res = await run(pos); }
    } catch { /* keep the first answer */ }
    if (gen !== generation) return;
  }
  inFlight = false;
  show(res, started);
  saveState();
}

async function run(pos: { line: number; character: number }): Promise<Preview> {
  try {
    return await client.request("workspace/executeCommand", { command: "ctxql.run", arguments: [uri, { start: pos, end: pos }] });
  } catch (e) {
    return { results: [], count: 0, error: String((e as Error).message || e) } as Preview;
  }
}

// onPreview shows the result the server pushed for the edited query.
function onPreview(p: Preview) {
  if (p.uri !== uri || !view || ranSinceEdit) return;
  show(p, lastEdit);
}

// shown counts the results shown: a funnel that arrives after newer
// results is dropped.
let shown = 0;

// show draws a result at once, then (after a pause in typing, for a
// preview) the step counts: the inlay hints and the funnel.
function show(res: Preview, since: number) {
  const token = ++shown;
  if (res.range) lastRange = res.range;
  if (!res.error && !$("status").textContent?.startsWith("ctxql play refused")) status(`ctxql ${info.version} · ${info.project}`);
  renderResults({ ...res, error: relative(res.error || "") || undefined }, $("results"), $("error"), $("count"), $("tree") as unknown as HTMLInputElement, explainRow);
  $("timing").textContent = res.error ? "" :
    `· evaluated in ${fmtMS(res.elapsed_ms)}, shown ${fmtMS(performance.now() - since)} after the ${since === lastEdit ? "last keystroke" : "request"}`;
  $("funnel").classList.add("stale"); // until details draws this result's
  clearTimeout(detailTimer);
  detailTimer = window.setTimeout(() => void details(res, token), since === lastEdit ? detailDelay : 0);
}

// details draws the step counts of the result shown as token.
async function details(res: Preview, token: number) {
  const v = view;
  if (!v || token !== shown) return;
  void pullInlayHints(client, v, uri).catch(() => {});
  let steps: Step[] = [];
  if (!res.error && res.range && languageOf(state.l).steps) {
    try {
      const x: any = await client.request("workspace/executeCommand", { command: "ctxql.explain", arguments: [uri, res.range] });
      if (!x.error) steps = x.steps.map((s: any, i: number) => ({ text: s.text, count: s.count, emptied: i === x.emptied }));
    } catch { /* no funnel */ }
  }
  if (token !== shown) return;
  renderFunnel($("funnel"), steps, res);
  $("funnel").classList.remove("stale");
}

function fmtMS(ms: number | undefined) {
  if (ms == null) return "";
  return ms < 10 ? ms.toFixed(1) + " ms" : Math.round(ms) + " ms";
}

// explainRow shows the proof of a Datalog row.
async function explainRow(relation: string, values: any[]) {
  await explain([uri, relation, values]);
}

async function explain(args: any[]) {
  const el = $("why");
  el.textContent = "…";
  const r: any = await client.request("workspace/executeCommand", { command: "ctxql.why", arguments: args });
  el.textContent = relative(r.error ? "Cannot explain: " + r.error : r.text);
  el.className = r.derived ? "derived" : "notderived";
  $("p-why").setAttribute("open", "");
}

function editorExtensions(): Extension[] {
  return [
    lineNumbers(), history(), drawSelection(), highlightActiveLine(), lintGutter(),
    serverCompletion({ override: true }), hoverTooltips(), semanticField, hintField,
    keymap.of([
      { key: "Mod-Enter", run: () => { refresh(); return true; } },
      ...formatKeymap, ...renameKeymap, ...jumpToDefinitionKeymap, ...findReferencesKeymap,
      ...completionKeymap, ...lintKeymap, ...historyKeymap, ...defaultKeymap,
    ]),
    EditorView.updateListener.of((u) => {
      // A range shown before an edit is not a range of the new text.
      if (u.docChanged) { lastEdit = performance.now(); ranSinceEdit = false; lastRange = null; state.q = u.state.doc.toString(); edited(); }
      else if (u.selectionSet) cursorMoved();
    }),
    EditorView.lineWrapping,
    EditorView.cspNonce.of(document.querySelector<HTMLMetaElement>('meta[name="ctxql-style-nonce"]')?.content || ""),
  ];
}

// openEditor (re)creates the editor for the state's language and text.
function openEditor() {
  if (view) view.destroy();
  lastRange = null;
  uri = docURI();
  $("docname").textContent = "— " + (state.path || basename(uri));
  const lang = languageOf(state.l);
  view = new EditorView({
    parent: $("editor"),
    state: EditorState.create({
      doc: state.q,
      extensions: [LSPPlugin.create(client, uri, lang.id), editorExtensions()],
    }),
  });
  (window as any).playView = view;
  $("dialect-box").hidden = !lang.dialects;
  // The panels that do not apply to the language are hidden.
  $("p-funnel").hidden = !lang.steps;
  $("p-why").hidden = !lang.proofs;
  void sendSettings();
}

function saveState() {
  state.open = ["p-query", "p-data", "p-results", "p-funnel", "p-why"].filter((id) => $(id).hasAttribute("open"));
  state.tree = ($("tree") as HTMLInputElement).checked;
  writeState(state);
  pushHistory(state);
  fillHistory();
}

function applyLayout() {
  if (state.open) for (const id of ["p-query", "p-data", "p-results", "p-funnel", "p-why"]) {
    $(id).toggleAttribute("open", state.open.includes(id));
  }
  ($("tree") as HTMLInputElement).checked = !!state.tree;
  ($("lang") as HTMLSelectElement).value = state.l;
  ($("dialect") as HTMLSelectElement).value = state.d || "";
  const df = $("datafile") as HTMLSelectElement;
  df.value = state.data && "file" in state.data ? state.data.file : "";
  if (state.data && "paste" in state.data) {
    ($("pastetext") as HTMLTextAreaElement).value = state.data.paste;
    ($("pastefmt") as HTMLSelectElement).value = state.data.fmt;
  }
}

function fillHistory() {
  const sel = $("history") as HTMLSelectElement;
  sel.length = 1;
  for (const [i, h] of loadHistory().entries()) {
    const o = document.createElement("option");
    o.value = String(i);
    o.textContent = `${h.l}: ${h.q.replace(/\s+/g, " ").slice(0, 60)}`;
    sel.append(o);
  }
}

async function loadExample(e: Example) {
  const [q, data] = await Promise.all([
    backend.example(e.query),
    backend.example(e.data),
  ]);
  state = { l: e.lang, d: "", q, data: { paste: data, fmt: e.data.endsWith(".json") ? "json" : "yaml" }, open: state?.open, tree: state?.tree };
  applyLayout();
  openEditor();
}

async function main() {
  backend = await chooseBackend();
  info = await api("/api/info");
  if (info.files === false) $("datafile").closest(".row")?.setAttribute("hidden", "");
  const langSel = $("lang") as HTMLSelectElement;
  for (const l of info.languages) langSel.append(new Option(l.name, l.id));
  const dialectSel = $("dialect") as HTMLSelectElement;
  for (const d of info.languages.find((l) => l.dialects)?.dialects || []) dialectSel.append(new Option(d, d));
  const exSel = $("examples") as HTMLSelectElement;
  info.examples.forEach((e, i) => exSel.append(new Option(e.name, String(i))));
  $("pastelimit").textContent = `at most ${Math.round(info.maxPasteBytes / 1024)} KB`;
  api("/api/files").then((f) => {
    const df = $("datafile") as HTMLSelectElement;
    for (const p of f.data as string[]) df.append(new Option(p, p));
    if (state.data && "file" in state.data) df.value = state.data.file;
  }).catch(() => {});
  fillHistory();

  client = new LSPClient({
    rootUri: info.root,
    timeout: info.timeoutMs + 2000,
    notificationHandlers: {
      "window/showMessage": (_c, p) => { status(p.message, p.type === 1); return true; },
      "window/logMessage": () => true,
      "ctxql/preview": (_c, p) => { onPreview(p); return true; },
    },
  });
  const transport = await backend.connect((reason) => status("Disconnected: " + reason + " — reload the page", true));
  client.connect(transport);
  await client.initializing;
  status(`ctxql ${info.version} · ${info.project}`);

  const fromLink = readState();
  if (fromLink) {
    state = fromLink;
  } else if (info.path) {
    const f = await api("/api/file?path=" + encodeURIComponent(info.path));
    state = { l: languageOfPath(f.path)?.id || "pact", d: "", q: f.text, path: f.path, data: info.data ? { file: info.data } : undefined };
  } else if (info.examples.length) {
    await loadExample(info.examples[0]);
    return wire();
  } else {
    state = { l: "pact", d: "", q: "", data: info.data ? { file: info.data } : undefined };
  }
  applyLayout();
  openEditor();
  wire();
}

function wire() {
  ($("lang") as HTMLSelectElement).onchange = (e) => {
    state.l = (e.target as HTMLSelectElement).value;
    state.path = undefined;
    openEditor();
  };
  ($("dialect") as HTMLSelectElement).onchange = (e) => { state.d = (e.target as HTMLSelectElement).value; void sendSettings(); };
  ($("examples") as HTMLSelectElement).onchange = (e) => {
    const i = (e.target as HTMLSelectElement).value;
    if (i !== "") void loadExample(info.examples[Number(i)]);
  };
  ($("history") as HTMLSelectElement).onchange = (e) => {
    const i = (e.target as HTMLSelectElement).value;
    const h = loadHistory()[Number(i)];
    if (!h) return;
    state = { ...h, open: state.open, tree: state.tree };
    applyLayout();
    openEditor();
  };
  ($("datafile") as HTMLSelectElement).onchange = (e) => {
    const f = (e.target as HTMLSelectElement).value;
    state.data = f ? { file: f } : undefined;
    if (f) ($("pastetext") as HTMLTextAreaElement).value = "";
    void sendSettings();
  };
  $("paste").onclick = () => {
    const text = ($("pastetext") as HTMLTextAreaElement).value;
    if (new Blob([text]).size > info.maxPasteBytes) { status(`Pasted data is larger than ${info.maxPasteBytes} bytes`, true); return; }
    state.data = { paste: text, fmt: ($("pastefmt") as HTMLSelectElement).value };
    ($("datafile") as HTMLSelectElement).value = "";
    void sendSettings();
  };
  $("run").onclick = () => refresh();
  $("format").onclick = () => { if (view) formatDocument(view); };
  $("share").onclick = async () => {
    saveState();
    try { await navigator.clipboard.writeText(location.href); status("Link copied"); } catch { status("Copy this page's address to share it"); }
  };
  ($("tree") as HTMLInputElement).onchange = () => refresh();
  for (const id of ["p-query", "p-data", "p-results", "p-funnel", "p-why"]) $(id).addEventListener("toggle", () => saveState());
  const whyGo = () => {
    const atom = ($("whynot") as HTMLInputElement).value.trim();
    if (atom) void explain([uri, atom]);
  };
  $("whynot-go").onclick = whyGo;
  ($("whynot") as HTMLInputElement).onkeydown = (e) => { if (e.key === "Enter") whyGo(); };
  window.addEventListener("hashchange", () => {
    const s = readState();
    if (s && s.q !== state.q) { state = s; applyLayout(); openEditor(); }
  });
}

main().catch((e) => status(String((e as Error).message || e), true));
