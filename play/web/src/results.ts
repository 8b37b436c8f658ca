// The results panels: the query's results as the editors show them (PACT
// nodes, JQL documents, Datalog tuples under their columns) and the count
// after each step as a funnel.
import type { Range } from "./lsp";

// Preview is the result of ctxql.run (and of ctxql/preview notifications).
export type Preview = {
  uri?: string; range?: Range; count: number; results: any[]; elapsed_ms?: number; error?: string;
  nodes?: { id: string; nodeType: string; depth: number; role?: string; kind?: string; preview?: string }[];
  relation?: string; columns?: { name: string; type: string }[];
  emptiedBy?: { range: Range; text: string; before: number };
};

function el<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, cls?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (text != null) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

// maxRows bounds the rows a table shows; the first firstRows are drawn at
// once, the others rowsPerFrame at a time in the frames after, so that a
// new result is on screen without waiting for its whole table.
const maxRows = 1000, firstRows = 100, rowsPerFrame = 300;

function table(head: string[], rows: string[][], onRow?: (i: number) => void): HTMLTableElement {
  const t = el("table");
  const tr = el("tr");
  for (const h of head) tr.append(el("th", h));
  t.append(el("thead"));
  t.tHead!.append(tr);
  const body = el("tbody");
  t.append(body);
  const limit = Math.min(rows.length, maxRows);
  const add = (from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const row = el("tr");
      for (const c of rows[i]) row.append(el("td", c));
      if (onRow) {
        row.className = "clickable";
        row.title = "Explain this row (--why)";
        row.onclick = () => onRow(i);
      }
      body.append(row);
    }
  };
  add(0, Math.min(limit, firstRows));
  let next = Math.min(limit, firstRows);
  const more = () => {
    if (!t.isConnected) return; // replaced by newer results
    const to = Math.min(limit, next + rowsPerFrame);
    add(next, to);
    next = to;
    if (next < limit) requestAnimationFrame(more);
  };
  if (next < limit) requestAnimationFrame(more);
  return t;
}

function show(v: any): string {
  return typeof v === "string" ? v : JSON.stringify(v);
}

// tree renders a JSON value as nested lists.
function tree(v: any): HTMLElement {
  if (v === null || typeof v !== "object") return el("span", JSON.stringify(v), "json-" + (v === null ? "null" : typeof v));
  const ul = el("ul", undefined, "tree");
  for (const [k, x] of Object.entries(v)) {
    const li = el("li");
    li.append(el("span", Array.isArray(v) ? `[${k}] ` : k + ": ", "key"), tree(x));
    ul.append(li);
  }
  return ul;
}

export function renderResults(p: Preview, out: HTMLElement, errEl: HTMLElement, countEl: HTMLElement,
  treeBox: HTMLInputElement, explain: (relation: string, values: any[]) => void) {
  out.replaceChildren();
  errEl.hidden = !p.error;
  errEl.textContent = p.error || "";
  countEl.textContent = p.error ? "" : `(${p.count})`;
  if (p.error) return;
  if (p.emptiedBy) {
    out.append(el("p", `No results: ${p.emptiedBy.text} left nothing (${p.emptiedBy.before} before it).`, "empty"));
  }
  if (treeBox.checked) {
    out.append(tree(p.results));
    return;
  }
  let rows = p.results.length;
  if (p.nodes && p.nodes.length) {
    rows = p.nodes.length;
    out.append(table(["id", "nodeType", "depth", "role", "kind", "content"],
      p.nodes.map((n) => [n.id, n.nodeType, String(n.depth), n.role || "", n.kind || "", n.preview || ""])));
  } else if (p.columns && p.relation) {
    const rel = p.relation;
    out.append(el("p", `${rel}: ${p.count} tuple${p.count === 1 ? "" : "s"} — click a row for its proof`, "caption"));
    out.append(table(p.columns.map((c) => c.type ? `${c.name}: ${c.type}` : c.name),
      p.results.map((r) => (Array.isArray(r) ? r : [r]).map(show)), (i) => explain(rel, p.results[i])));
  } else if (p.results.length && p.results.every((r) => r && typeof r === "object" && !Array.isArray(r))) {
    const keys: string[] = [];
    for (const r of p.results) for (const k of Object.keys(r)) if (!keys.includes(k)) keys.push(k);
    out.append(table(keys, p.results.map((r) => keys.map((k) => (k in r ? show(r[k]) : "")))));
  } else {
    out.append(table(["result"], p.results.map((r) => [show(r)])));
  }
  const shown = Math.min(rows, maxRows);
  if (p.count > shown) out.append(el("p", `… ${p.count - shown} more (${p.count} in all)`, "caption"));
}

// Step is one step of a query with what it left (the language server's
// ctxql.explain).
export type Step = { text: string; count: number; emptied: boolean };

// renderFunnel draws the count after each step, with the step that
// emptied the query marked.
export function renderFunnel(out: HTMLElement, rows: Step[], p: Preview) {
  out.replaceChildren();
  if (p.error || !p.range) return;
  const max = Math.max(1, ...rows.map((r) => r.count));
  const list = el("ol", undefined, "funnel");
  for (const r of rows) {
    const li = el("li", undefined, r.emptied ? "emptied" : "");
    const bar = el("span", undefined, "bar");
    bar.style.width = `${Math.max(2, (100 * r.count) / max)}%`;
    li.append(el("code", r.text, "step"), el("span", String(r.count), "n"), bar);
    if (r.emptied) li.title = "this step emptied the query";
    list.append(li);
  }
  out.append(list);
}
