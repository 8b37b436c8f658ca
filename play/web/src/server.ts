// The language server of the exported page: the language server messages
// the page sends, answered with the operations of ctxql's library built
// for WebAssembly (the npm package @ctxql/ctxql): check (diagnostics),
// format, evaluate (results and, with explain, the funnel) and why /
// whyNot (Datalog proofs). It runs in a worker (worker.ts) and reads no
// file: the module has no file access, and sample data is only what the
// page pastes or an example brings.
import type * as Ctxql from "../../../npm/ctxql/index.js";

type Position = { line: number; character: number };
type Range = { start: Position; end: Position };
type Doc = { text: string; language: string };

// Pasted is sample data pasted into the page, by the name the page's
// settings give it.
export type Pasted = Map<string, { text: string; ext: string }>;

export const noFiles = "the exported playground reads no files";

// enc and dec convert between text and UTF-8.
const enc = new TextEncoder(), dec = new TextDecoder();

// lineStarts returns the offsets (in UTF-16 units) where the lines of text
// begin.
function lineStarts(text: string): number[] {
  const out = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === "\n") out.push(i + 1);
  return out;
}

// lspPosition converts ctxql's 1-based line and byte column to an LSP
// position (0-based line, UTF-16 character).
function lspPosition(text: string, starts: number[], line: number, column: number): Position {
  const l = Math.max(0, Math.min(starts.length - 1, line - 1));
  const end = l + 1 < starts.length ? starts[l + 1] : text.length;
  const bytes = enc.encode(text.slice(starts[l], end));
  return { line: l, character: dec.decode(bytes.slice(0, Math.max(0, column - 1))).length };
}

// byteOffset converts an LSP position to the byte offset of ctxql's
// ranges, within the text.
function byteOffset(text: string, starts: number[], at: Position): number {
  const l = Math.max(0, Math.min(starts.length - 1, at.line));
  const end = l + 1 < starts.length ? starts[l + 1] - 1 : text.length;
  return enc.encode(text.slice(0, Math.min(end, starts[l] + Math.max(0, at.character)))).length;
}

// lspRange converts a range of ctxql's to an LSP range.
function lspRange(text: string, starts: number[], r: Ctxql.Range): Range {
  return { start: lspPosition(text, starts, r.start.line, r.start.column), end: lspPosition(text, starts, r.end.line, r.end.column) };
}

// wholeRange is the range of the whole text.
function wholeRange(text: string): Range {
  const starts = lineStarts(text);
  const last = starts.length - 1;
  return { start: { line: 0, character: 0 }, end: { line: last, character: text.length - starts[last] } };
}

// errorText writes a library error as the command line does: the place in
// the query, then the message.
function errorText(e: any): string {
  const r = e && e.range;
  const msg = String((e && e.message) || e);
  return r ? `${r.start.line}:${r.start.column}: ${msg}` : msg;
}

// ModuleServer answers the language server's messages of the page with
// the library's operations; send receives the messages it sends the page.
export class ModuleServer {
  private docs = new Map<string, Doc>();
  private settings: any = {};
  private previewTimer: ReturnType<typeof setTimeout> | undefined;
  private sets = new Map<string, Ctxql.DataSet>(); // loaded sample data by language and name
  private root = "";

  constructor(private ctxql: typeof Ctxql, private pastes: Pasted, private send: (message: string) => void) {}

  private emit(msg: object) {
    this.send(JSON.stringify({ jsonrpc: "2.0", ...msg }));
  }

  // receive answers one message of the page.
  receive(raw: string) {
    const m = JSON.parse(raw);
    if (!m.method) return; // an answer to a request of ours: we make none
    if (m.id === undefined) return this.notification(m.method, m.params);
    try {
      this.emit({ id: m.id, result: this.request(m.method, m.params) });
    } catch (e) {
      this.emit({ id: m.id, error: { code: -32603, message: errorText(e) } });
    }
  }

  private notification(method: string, p: any) {
    switch (method) {
      case "textDocument/didOpen":
        this.docs.set(p.textDocument.uri, { text: p.textDocument.text, language: p.textDocument.languageId });
        break;
      case "textDocument/didChange": {
        const d = this.docs.get(p.textDocument.uri);
        const last = p.contentChanges[p.contentChanges.length - 1];
        if (!d || !last || last.range !== undefined) break;
        // The preview is of the query where the new text first differs.
        let i = 0;
        while (i < d.text.length && i < last.text.length && d.text[i] === last.text[i]) i++;
        d.text = last.text;
        const starts = lineStarts(d.text);
        const line = starts.filter((s) => s <= i).length - 1;
        this.schedulePreview(p.textDocument.uri, { line, character: i - starts[line] });
        break;
      }
      case "textDocument/didClose":
        this.docs.delete(p.textDocument.uri);
        break;
      case "workspace/didChangeConfiguration":
        this.settings = (p.settings && p.settings.ctxql) || {};
        break;
    }
  }

  // schedulePreview pushes the result of the query edited at a place of a
  // document, as the language server does (ctxql/preview).
  private schedulePreview(uri: string, at: Position) {
    clearTimeout(this.previewTimer);
    this.previewTimer = setTimeout(() => {
      const d = this.docs.get(uri);
      if (!d) return;
      this.emit({ method: "ctxql/preview", params: { uri, ...this.run(uri, { start: at, end: at }) } });
    }, 0);
  }

  private request(method: string, p: any): any {
    switch (method) {
      case "initialize":
        this.root = p.rootUri || "";
        return {
          capabilities: {
            textDocumentSync: 1, // whole texts
            documentFormattingProvider: true,
            diagnosticProvider: { interFileDependencies: false, workspaceDiagnostics: false },
            executeCommandProvider: { commands: ["ctxql.run", "ctxql.explain", "ctxql.why"] },
          },
          serverInfo: { name: "ctxql (WebAssembly)", version: this.ctxql.version() },
        };
      case "shutdown":
        return null;
      case "textDocument/diagnostic":
        return { kind: "full", items: this.diagnostics(p.textDocument.uri) };
      case "textDocument/formatting":
        return this.format(p.textDocument.uri);
      case "textDocument/codeAction":
      case "textDocument/codeLens":
      case "textDocument/inlayHint":
        return [];
      case "workspace/executeCommand":
        return this.command(p.command, p.arguments || []);
    }
    throw new Error(`the exported playground does not answer ${method}`);
  }

  private doc(uri: string): Doc {
    const d = this.docs.get(uri);
    if (!d) throw new Error("no open document " + uri);
    return d;
  }

  // path names a document as the served page's language server does: its
  // path inside the (virtual) project.
  private path(uri: string): string {
    return this.root && uri.startsWith(this.root + "/") ? decodeURIComponent(uri.slice(this.root.length + 1)) : uri.slice(uri.lastIndexOf("/") + 1);
  }

  private dialect(): Ctxql.Dialect | undefined {
    return this.settings.dialect?.default || undefined;
  }

  // pasted returns the pasted sample data of a document, if any.
  private pasted(uri: string): { ref: string; text: string; ext: string } | null {
    const ref = this.settings.data?.[uri.slice(uri.lastIndexOf("/") + 1)];
    const p = typeof ref === "string" ? this.pastes.get(ref) : undefined;
    return p ? { ref, ...p } : null;
  }

  // dataSet returns the document's sample data, loaded once.
  private dataSet(uri: string, language: Ctxql.Language): Ctxql.DataSet {
    const p = this.pasted(uri);
    if (!p) throw new Error(`No sample data: ${noFiles}, not even one a data line names; paste the data or choose an example`);
    const key = language + "\n" + p.ref;
    let ds = this.sets.get(key);
    if (!ds) {
      for (const old of this.sets.values()) old.release();
      this.sets.clear();
      ds = this.ctxql.load(language, p.text, { name: "data." + p.ext });
      this.sets.set(key, ds);
    }
    return ds;
  }

  private diagnostics(uri: string): any[] {
    const d = this.doc(uri);
    const starts = lineStarts(d.text);
    const p = this.pasted(uri);
    const diags = this.ctxql.check(d.text, {
      language: d.language as Ctxql.Language, dialect: this.dialect(), path: this.path(uri), data: p ? p.text : undefined,
    });
    const severity: Record<string, number> = { error: 1, warning: 2, info: 3 };
    return diags.map((x) => ({
      range: { start: lspPosition(d.text, starts, x.line, x.column), end: lspPosition(d.text, starts, x.end_line, x.end_column) },
      severity: severity[x.severity] || 1, code: x.code, source: "ctxql", message: x.message,
    }));
  }

  private format(uri: string): any[] | null {
    const d = this.doc(uri);
    let text: string;
    try {
      text = this.ctxql.format(d.text, { language: d.language as Ctxql.Language, dialect: this.dialect(), path: this.path(uri) });
    } catch {
      return null; // a text with syntax errors stays as it is
    }
    return text === d.text ? [] : [{ range: wholeRange(d.text), newText: text }];
  }

  private command(command: string, args: any[]): any {
    const uri = String(args[0] || "");
    switch (command) {
      case "ctxql.run":
        return { uri, ...this.run(uri, args[1] || null) };
      case "ctxql.explain":
        return this.explain(uri, args[1] || null);
      case "ctxql.why":
        return this.why(uri, args);
    }
    throw new Error(`command ${command} is not available in the playground`);
  }

  // query returns the query of the document a run from at (a range's
  // start) evaluates, as the library divides the document into queries
  // (the language table's: a PACT query per line, each JSON or YAML query
  // of a JQL document, each rule of a Datalog program with the relation
  // it shows): the query there, else the document's first; null when the
  // document has none. Its range is an LSP range.
  private query(uri: string, d: Doc, at: Range | null): { text: string; range: Range; relation?: string } | null {
    const opts = { language: d.language as Ctxql.Language, dialect: this.dialect(), path: this.path(uri) };
    const starts = lineStarts(d.text);
    let q = at ? this.ctxql.queries(d.text, { ...opts, offset: byteOffset(d.text, starts, at.start) })[0] : undefined;
    q = q || this.ctxql.queries(d.text, opts)[0];
    return q ? { text: q.text, range: lspRange(d.text, starts, q.range), relation: q.relation } : null;
  }

  // run evaluates the document on its sample data: the query at the
  // cursor (PACT, JQL) or the program (Datalog), showing the relation of
  // the rule at the cursor.
  private run(uri: string, at: Range | null): any {
    const d = this.doc(uri);
    let range = at || wholeRange(d.text);
    const started = performance.now();
    try {
      const language = d.language as Ctxql.Language;
      const q = this.query(uri, d, at);
      if (q) range = q.range;
      const ds = this.dataSet(uri, language);
      if (language === "datalog") {
        const rels = ds.evaluate(d.text, { program: true }) as Record<string, any[]>;
        const relation = (q && q.relation) || Object.keys(rels)[0] || "";
        if (!relation) return { range, count: 0, results: [], elapsed_ms: performance.now() - started, error: "The program derives no relation" };
        const tuples = rels[relation] || [];
        const arity = tuples.length ? (Array.isArray(tuples[0]) ? tuples[0].length : 1) : 0;
        const columns = Array.from({ length: arity }, (_, i) => ({ name: String(i + 1), type: "" }));
        return { range, count: tuples.length, results: tuples, relation, columns, elapsed_ms: performance.now() - started };
      }
      if (!q) return { range, count: 0, results: [], error: "No query" };
      const res = ds.evaluate(q.text, { dialect: this.dialect() });
      const results = Array.isArray(res) ? res : [res];
      return { range, count: results.length, results, elapsed_ms: performance.now() - started };
    } catch (e) {
      return { range, count: 0, results: [], error: errorText(e) };
    }
  }

  // explain returns what each step of the query in range left (the
  // funnel).
  private explain(uri: string, at: Range | null): any {
    const d = this.doc(uri);
    try {
      const q = this.query(uri, d, at);
      if (!q) return { error: "No query" };
      const ds = this.dataSet(uri, d.language as Ctxql.Language);
      return ds.evaluate(q.text, { explain: true, dialect: this.dialect() });
    } catch (e) {
      return { error: errorText(e) };
    }
  }

  // why explains a Datalog tuple: [uri, relation, values] (a row) or [uri,
  // atom]. A derived tuple gets its proof, another the failing rules.
  private why(uri: string, args: any[]): any {
    const d = this.doc(uri);
    try {
      let tuple = String(args[1] || "");
      if (args.length > 2) {
        const vals: any[] = Array.isArray(args[2]) ? args[2] : [args[2]];
        tuple = `${tuple}(${vals.map((v) => (typeof v === "number" ? String(v) : JSON.stringify(String(v)))).join(", ")})`;
      }
      const ds = this.dataSet(uri, "datalog");
      const opts = { rules: d.text, name: this.path(uri) };
      const r = ds.why(tuple, opts);
      return r.derived ? r : ds.whyNot(tuple, opts);
    } catch (e) {
      return { derived: false, error: errorText(e) };
    }
  }
}
