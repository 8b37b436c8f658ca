/**
 * Rendering of the Query Results panel: a pure function from the result of
 * a query run (a ctxql/preview notification or the answer to ctxql.run) to
 * the panel's HTML. Nothing here depends on VS Code, so it runs in plain
 * Node for tests and for the screenshot script.
 */

/** A position in a document: zero-based line and UTF-16 character. */
export interface Position {
  line: number;
  character: number;
}

/** A range of a document, end exclusive. */
export interface Range {
  start: Position;
  end: Position;
}

/**
 * The result of evaluating one query, as carried by the ctxql/preview
 * notification and returned by the ctxql.run command.
 */
export interface QueryResult {
  uri: string;
  range?: Range;
  count: number;
  results: unknown[] | null;
  elapsed_ms: number;
  error?: string;
  /** The language of the query (pact, jql, datalog), when the server says. */
  language?: string;
  /** Datalog: the relation whose tuples the results are. */
  relation?: string;
  /** Datalog: the relation's columns; each result is then one tuple (an array). */
  columns?: Column[];
  /** PACT: summaries of the first result nodes, in result order (the results are their ids). */
  nodes?: Record<string, unknown>[];
}

/** A column of a Datalog relation: its name and, when declared, its type. */
export interface Column {
  name: string;
  type?: string;
}

/** Options of one rendering. */
export interface RenderOptions {
  /** Where the result came from, shown in the header. */
  source?: 'preview' | 'run';
  /** The webview's CSP source (webview.cspSource); omitted outside VS Code. */
  cspSource?: string;
  /** Nesting depth from which JSON tree nodes start collapsed. */
  openDepth?: number;
  /** The URI of the document shown when there is no result yet. */
  emptyFor?: string;
}

/** Escapes the five HTML-significant characters of s. */
export function escapeHtml(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** Reports whether v is a plain JSON object (not null, not an array). */
function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Reports whether results render as a table: a non-empty array whose
 * elements are all objects.
 */
export function isTabular(results: unknown[] | null | undefined): results is Record<string, unknown>[] {
  return Array.isArray(results) && results.length > 0 && results.every(isObject);
}

/** The union of the keys of rows, in order of first appearance. */
export function columns(rows: Record<string, unknown>[]): string[] {
  const seen = new Set<string>();
  for (const r of rows) {
    for (const k of Object.keys(r)) {
      seen.add(k);
    }
  }
  return [...seen];
}

/** The leading columns of a table of PACT node summaries, in this order. */
export const NODE_COLUMNS = ['id', 'nodeType', 'depth', 'role', 'kind'];

/** The trailing columns of a table of PACT node summaries (long text last). */
export const NODE_TRAILING = ['content', 'preview'];

/**
 * Reports whether rows are PACT node summaries: every row has a string id
 * and a string nodeType.
 */
export function isNodeTable(rows: Record<string, unknown>[]): boolean {
  return rows.every((r) => typeof r.id === 'string' && typeof r.nodeType === 'string');
}

/** The columns of a node table: id, nodeType, depth, role, kind, the others, content last. */
export function nodeColumns(rows: Record<string, unknown>[]): string[] {
  const all = columns(rows);
  const lead = NODE_COLUMNS.filter((c) => all.includes(c));
  const tail = NODE_TRAILING.filter((c) => all.includes(c));
  return [...lead, ...all.filter((c) => !lead.includes(c) && !tail.includes(c)), ...tail];
}

/** Normalises a server's column list (names or {name, type} objects). */
export function columnList(v: unknown): Column[] | undefined {
  if (!Array.isArray(v) || v.length === 0) {
    return undefined;
  }
  const out: Column[] = [];
  for (const c of v) {
    if (typeof c === 'string') {
      out.push({ name: c });
    } else if (isObject(c) && typeof c.name === 'string') {
      out.push(typeof c.type === 'string' && c.type ? { name: c.name, type: c.type } : { name: c.name });
    } else {
      return undefined;
    }
  }
  return out;
}

/** Reports whether results are tuples: a non-empty array of arrays of equal length. */
export function isTuples(results: unknown[] | null | undefined): results is unknown[][] {
  return (
    Array.isArray(results) &&
    results.length > 0 &&
    results.every((r) => Array.isArray(r) && r.length === (results[0] as unknown[]).length)
  );
}

/** Formats a duration in milliseconds for the header. */
export function formatElapsed(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) {
    return '';
  }
  if (ms < 1) {
    return `${Math.round(ms * 1000)} µs`;
  }
  if (ms < 1000) {
    return `${ms < 10 ? ms.toFixed(2) : ms.toFixed(1)} ms`;
  }
  return `${(ms / 1000).toFixed(2)} s`;
}

/** The last path segment of a URI, decoded. */
export function fileName(uri: string): string {
  const last = uri.replace(/[?#].*$/, '').split('/').pop() || uri;
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

function scalarClass(v: unknown): string {
  if (v === null) {
    return 'null';
  }
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'number':
    case 'bigint':
      return 'number';
    case 'boolean':
      return 'boolean';
    default:
      return 'other';
  }
}

function scalarText(v: unknown): string {
  if (typeof v === 'string') {
    return JSON.stringify(v);
  }
  if (v === undefined) {
    return '';
  }
  return String(v);
}

/** Renders one table cell: scalars plain, nested values as compact JSON. */
function cell(v: unknown): string {
  if (v === undefined) {
    return '<td class="missing"></td>';
  }
  if (typeof v === 'object' && v !== null) {
    return `<td class="json"><code>${escapeHtml(JSON.stringify(v))}</code></td>`;
  }
  const text = typeof v === 'string' ? v : scalarText(v);
  return `<td class="${scalarClass(v)}">${escapeHtml(text)}</td>`;
}

/** Renders rows of objects as an HTML table with a row-number column. */
export function renderTable(rows: Record<string, unknown>[], cols: string[] = columns(rows)): string {
  const head = cols.map((c) => `<th>${escapeHtml(c)}</th>`).join('');
  const body = rows
    .map((r, i) => `<tr><td class="index">${i + 1}</td>${cols.map((c) => cell(r[c])).join('')}</tr>`)
    .join('\n');
  return `<table class="results"><thead><tr><th class="index">#</th>${head}</tr></thead>\n<tbody>\n${body}\n</tbody></table>`;
}

/**
 * Renders tuples as a table whose header gives each column's name and type
 * (positions when the columns are unknown).
 */
export function renderTuples(rows: unknown[][], cols?: Column[]): string {
  const width = rows[0]?.length ?? 0;
  const head: string[] = [];
  for (let i = 0; i < width; i++) {
    const c = cols?.[i];
    const name = c ? escapeHtml(c.name) : `#${i + 1}`;
    const type = c?.type ? ` <span class="type">${escapeHtml(c.type)}</span>` : '';
    head.push(`<th>${name}${type}</th>`);
  }
  const body = rows
    .map((r, i) => `<tr><td class="index">${i + 1}</td>${r.map((v) => cell(v)).join('')}</tr>`)
    .join('\n');
  return `<table class="results tuples"><thead><tr><th class="index">#</th>${head.join('')}</tr></thead>\n<tbody>\n${body}\n</tbody></table>`;
}

/** Renders a list of scalars (such as bare node ids) as a one-column table. */
export function renderList(rows: unknown[], name: string): string {
  const body = rows.map((r, i) => `<tr><td class="index">${i + 1}</td>${cell(r)}</tr>`).join('\n');
  return `<table class="results"><thead><tr><th class="index">#</th><th>${escapeHtml(name)}</th></tr></thead>\n<tbody>\n${body}\n</tbody></table>`;
}

/**
 * Renders any JSON value as a tree of details elements: objects and arrays
 * are collapsible nodes (open up to openDepth), scalars are leaves.
 */
export function renderTree(v: unknown, openDepth = 2, depth = 0, label?: string): string {
  const key = label === undefined ? '' : `<span class="key">${escapeHtml(label)}</span>: `;
  if (typeof v === 'object' && v !== null) {
    const entries: [string, unknown][] = Array.isArray(v) ? v.map((x, i) => [String(i), x]) : Object.entries(v);
    const kind = Array.isArray(v) ? `array [${entries.length}]` : `object {${entries.length}}`;
    if (entries.length === 0) {
      return `<div class="leaf">${key}<span class="empty">${Array.isArray(v) ? '[]' : '{}'}</span></div>`;
    }
    const children = entries.map(([k, x]) => renderTree(x, openDepth, depth + 1, k)).join('');
    const open = depth < openDepth ? ' open' : '';
    return `<details class="node"${open}><summary>${key}<span class="kind">${kind}</span></summary>${children}</details>`;
  }
  return `<div class="leaf">${key}<span class="${scalarClass(v)}">${escapeHtml(scalarText(v))}</span></div>`;
}

const STYLE = `
body { font-family: var(--vscode-font-family, system-ui, sans-serif); font-size: var(--vscode-font-size, 13px);
  color: var(--vscode-foreground, #1f2328); background: var(--vscode-editor-background, #ffffff); margin: 0; padding: 8px 12px; }
header { display: flex; flex-wrap: wrap; gap: 6px 16px; align-items: baseline; padding-bottom: 6px;
  border-bottom: 1px solid var(--vscode-panel-border, #d0d7de); margin-bottom: 8px; }
header .file { font-weight: 600; }
header .count { font-variant-numeric: tabular-nums; }
header .elapsed, header .source, header .shown { color: var(--vscode-descriptionForeground, #656d76); }
.error { color: var(--vscode-errorForeground, #cf222e); border: 1px solid var(--vscode-inputValidation-errorBorder, #cf222e);
  background: var(--vscode-inputValidation-errorBackground, #ffebe9); padding: 6px 8px; white-space: pre-wrap;
  font-family: var(--vscode-editor-font-family, monospace); }
.empty-result { color: var(--vscode-descriptionForeground, #656d76); font-style: italic; }
table.results { border-collapse: collapse; font-family: var(--vscode-editor-font-family, monospace); font-size: 12px; }
table.results th, table.results td { border: 1px solid var(--vscode-panel-border, #d0d7de); padding: 2px 8px; text-align: left;
  vertical-align: top; white-space: nowrap; max-width: 40em; overflow: hidden; text-overflow: ellipsis; }
table.results th { background: var(--vscode-editorWidget-background, #f6f8fa); position: sticky; top: 0; }
td.index, th.index { color: var(--vscode-descriptionForeground, #656d76); text-align: right; }
table.results td.number { text-align: right; }
td.number, span.number { color: var(--vscode-debugTokenExpression-number, #0550ae); }
td.string, span.string { color: var(--vscode-debugTokenExpression-string, #0a3069); }
td.boolean, span.boolean, td.null, span.null { color: var(--vscode-debugTokenExpression-boolean, #8250df); }
td.json code { color: var(--vscode-descriptionForeground, #656d76); }
.tree { font-family: var(--vscode-editor-font-family, monospace); font-size: 12px; }
.tree details, .tree .leaf { margin-left: 14px; }
.tree > details, .tree > .leaf { margin-left: 0; }
.tree .key { color: var(--vscode-debugTokenExpression-name, #953800); }
.tree .kind { color: var(--vscode-descriptionForeground, #656d76); }
th .type { font-weight: normal; color: var(--vscode-descriptionForeground, #656d76); }
header .relation { font-family: var(--vscode-editor-font-family, monospace); }
`;

function isPactUri(uri: string): boolean {
  return /\.pact(?:[?#].*)?$/.test(uri);
}

/** The full HTML page of the Query Results panel for r. */
export function renderResults(r: QueryResult | undefined, opts: RenderOptions = {}): string {
  const csp = [
    "default-src 'none'",
    `style-src 'unsafe-inline'${opts.cspSource ? ' ' + opts.cspSource : ''}`,
  ].join('; ');
  const head = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Query Results</title><style>${STYLE}</style></head>`;
  return `${head}\n<body>\n${renderBody(r, opts)}\n</body></html>\n`;
}

/** The body of the panel: header, error and results. */
export function renderBody(r: QueryResult | undefined, opts: RenderOptions = {}): string {
  if (!r) {
    const which = opts.emptyFor ? `<span class="file">${escapeHtml(fileName(opts.emptyFor))}</span>: no results yet. ` : '';
    return (
      `<p class="empty-result">${which}Run a query (▶ Run above a query, or "ctxql: Run query") or edit one with sample data configured to see its results here.</p>` +
      '<p class="empty-result">No sample data yet? "▶ Run — choose sample data…" above a query, or "ctxql: Choose sample data", picks a JSON, YAML or JSONL file.</p>'
    );
  }
  const parts: string[] = [];
  const where = r.range ? `:${r.range.start.line + 1}` : '';
  let results = Array.isArray(r.results) ? r.results : [];
  if (Array.isArray(r.nodes) && r.nodes.length > 0 && isTabular(r.nodes)) {
    results = r.nodes; // the node summaries of the first results stand for their ids
  }
  const header = [
    `<span class="file" title="${escapeHtml(r.uri)}">${escapeHtml(fileName(r.uri) + where)}</span>`,
    `<span class="count">${r.count} result${r.count === 1 ? '' : 's'}</span>`,
  ];
  if (!r.error && results.length < r.count) {
    header.push(`<span class="shown">showing the first ${results.length}</span>`);
  }
  const elapsed = formatElapsed(r.elapsed_ms);
  if (elapsed) {
    header.push(`<span class="elapsed">${escapeHtml(elapsed)}</span>`);
  }
  if (r.relation) {
    header.push(`<span class="relation">${escapeHtml(r.relation)}</span>`);
  }
  if (opts.source) {
    header.push(`<span class="source">${opts.source === 'run' ? 'run' : 'live preview'}</span>`);
  }
  parts.push(`<header>${header.join('\n')}</header>`);
  if (r.error) {
    parts.push(`<div class="error" role="alert">${escapeHtml(r.error)}</div>`);
    return parts.join('\n');
  }
  if (results.length === 0) {
    parts.push('<p class="empty-result">No results.</p>');
  } else if (isTuples(results)) {
    parts.push(renderTuples(results, columnList(r.columns)));
  } else if (isTabular(results)) {
    parts.push(renderTable(results, isNodeTable(results) ? nodeColumns(results) : columns(results)));
  } else if (results.every((v) => typeof v !== 'object' || v === null)) {
    parts.push(renderList(results, r.language === 'pact' || isPactUri(r.uri) ? 'id' : 'value'));
  } else {
    parts.push(`<div class="tree">${renderTree(results, opts.openDepth ?? 2)}</div>`);
  }
  return parts.join('\n');
}
