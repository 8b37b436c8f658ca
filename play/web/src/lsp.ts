// The page's end of the language server: the editor features
// @codemirror/lsp-client lacks, built on its request API: pulled diagnostics with quick fixes, semantic
// highlighting and the step counts of inlay hints.
import { LSPClient, LSPPlugin } from "@codemirror/lsp-client";
import { setDiagnostics, type Diagnostic, type Action } from "@codemirror/lint";
import { StateEffect, StateField, RangeSetBuilder, type Text } from "@codemirror/state";
import { Decoration, EditorView, WidgetType, type DecorationSet } from "@codemirror/view";

export type Position = { line: number; character: number };
export type Range = { start: Position; end: Position };
type TextEdit = { range: Range; newText: string };

// offset converts an LSP position to a document offset.
export function offset(doc: Text, p: Position): number {
  const line = doc.line(Math.min(doc.lines, p.line + 1));
  return Math.min(line.to, line.from + p.character);
}

// position converts a document offset to an LSP position.
export function position(doc: Text, pos: number): Position {
  const line = doc.lineAt(pos);
  return { line: line.number - 1, character: pos - line.from };
}

// applyEdits applies LSP text edits of the document to the editor.
export function applyEdits(view: EditorView, edits: TextEdit[]) {
  const doc = view.state.doc;
  view.dispatch({
    changes: edits.map((e) => ({ from: offset(doc, e.range.start), to: offset(doc, e.range.end), insert: e.newText })),
    userEvent: "input.fix",
  });
}

// editsOf extracts the edits of uri from a workspace edit.
function editsOf(edit: any, uri: string): TextEdit[] {
  if (!edit) return [];
  if (edit.changes && edit.changes[uri]) return edit.changes[uri];
  const out: TextEdit[] = [];
  for (const dc of edit.documentChanges || []) {
    if (dc.textDocument && dc.textDocument.uri === uri) out.push(...dc.edits);
  }
  return out;
}

const severities: Diagnostic["severity"][] = ["error", "error", "warning", "info", "hint"];

// pullDiagnostics asks the server for the document's diagnostics and shows
// them with the quick fixes the server offers for each.
export async function pullDiagnostics(client: LSPClient, view: EditorView, uri: string) {
  const doc = view.state.doc;
  const report: any = await client.request("textDocument/diagnostic", { textDocument: { uri } });
  const items: any[] = (report && report.items) || [];
  const out: Diagnostic[] = [];
  for (const d of items.slice(0, 50)) {
    const actions: Action[] = [];
    try {
      const fixes: any[] = (await client.request("textDocument/codeAction", {
        textDocument: { uri }, range: d.range, context: { diagnostics: [d], only: ["quickfix"] },
      })) || [];
      for (const f of fixes) {
        const edits = editsOf(f.edit, uri);
        if (!edits.length) continue;
        actions.push({ name: f.title, apply: (v) => applyEdits(v, edits) });
      }
    } catch { /* no fixes */ }
    const from = offset(doc, d.range.start), to = offset(doc, d.range.end);
    out.push({
      from, to: Math.max(to, from), severity: severities[d.severity || 1] || "error",
      message: d.message, source: d.code ? String(d.code) : undefined, actions,
    });
  }
  if (view.state.doc !== doc) return; // outdated
  view.dispatch(setDiagnostics(view.state, out));
}

// decorationField returns a field of decorations the server's answers
// replace (mapped through the edits in between) and the effect that
// replaces them.
function decorationField() {
  const set = StateEffect.define<DecorationSet>();
  const field = StateField.define<DecorationSet>({
    create: () => Decoration.none,
    update(deco, tr) {
      for (const e of tr.effects) if (e.is(set)) return e.value;
      return tr.docChanged ? deco.map(tr.changes) : deco;
    },
    provide: (f) => EditorView.decorations.from(f),
  });
  return { field, set };
}

// Semantic highlighting: the server's tokens as mark decorations with a
// class per token type ("tok-keyword").
const tokens = decorationField();
export const semanticField = tokens.field;

export async function pullSemanticTokens(client: LSPClient, view: EditorView, uri: string) {
  const legend = (client.serverCapabilities as any)?.semanticTokensProvider?.legend;
  if (!legend) return;
  const doc = view.state.doc;
  const res: any = await client.request("textDocument/semanticTokens/full", { textDocument: { uri } });
  if (!res || !res.data || view.state.doc !== doc) return;
  const b = new RangeSetBuilder<Decoration>();
  let line = 0, char = 0;
  const d: number[] = res.data;
  for (let i = 0; i + 4 < d.length; i += 5) {
    line += d[i];
    char = d[i] ? d[i + 1] : char + d[i + 1];
    const from = offset(doc, { line, character: char });
    const to = Math.min(doc.length, from + d[i + 2]);
    const type = legend.tokenTypes[d[i + 3]] || "other";
    if (to > from) b.add(from, to, Decoration.mark({ class: "tok-" + type }));
  }
  view.dispatch({ effects: tokens.set.of(b.finish()) });
}

// Inlay hints: the server's labels ("3 →", "12 left") as widgets.
class HintWidget extends WidgetType {
  constructor(readonly label: string, readonly tip: string, readonly left: boolean, readonly right: boolean) { super(); }
  eq(o: HintWidget) { return o.label === this.label && o.tip === this.tip; }
  toDOM() {
    const s = document.createElement("span");
    s.className = "cm-inlay" + (this.left ? " pl" : "") + (this.right ? " pr" : "");
    s.textContent = this.label;
    s.title = this.tip;
    return s;
  }
}

const hintDecos = decorationField();
export const hintField = hintDecos.field;

export type Hint = { at: number; label: string; tooltip: string };

// pullInlayHints shows the document's inlay hints and returns them.
export async function pullInlayHints(client: LSPClient, view: EditorView, uri: string): Promise<Hint[]> {
  const doc = view.state.doc;
  const end = position(doc, doc.length);
  const raw: any[] = (await client.request("textDocument/inlayHint", { textDocument: { uri }, range: { start: { line: 0, character: 0 }, end } })) || [];
  if (view.state.doc !== doc) return [];
  const hints: Hint[] = raw.map((h) => ({
    at: offset(doc, h.position),
    label: typeof h.label === "string" ? h.label : (h.label || []).map((p: any) => p.value).join(""),
    tooltip: typeof h.tooltip === "string" ? h.tooltip : h.tooltip?.value || "",
  }));
  const b = new RangeSetBuilder<Decoration>();
  raw.forEach((h, i) => b.add(hints[i].at, hints[i].at, Decoration.widget({
    widget: new HintWidget(hints[i].label, hints[i].tooltip, !!h.paddingLeft, !!h.paddingRight), side: 1,
  })));
  view.dispatch({ effects: hintDecos.set.of(b.finish()) });
  return hints;
}

// A step of the funnel: what a query's step left.
export { LSPClient, LSPPlugin };
