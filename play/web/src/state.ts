// The page's state — language, dialect, query, sample data, the open
// panels — kept in the link's fragment so that a copied link reproduces
// the page, and the recent queries kept in the browser's storage.

export type DataRef = { file: string } | { paste: string; fmt: string };
export type State = {
  l: string; // language id
  d: string; // PACT dialect ("" for the project's)
  q: string; // the query text
  path?: string; // the project file the query came from
  data?: DataRef;
  open?: string[]; // the open panels
  tree?: boolean; // JSON tree instead of a table
};

// maxLinkData bounds pasted data carried in a link.
const maxLinkData = 64 << 10;
const historyKey = "ctxql-play-history";
const maxHistory = 20;

function encode(s: string): string {
  const bytes = new TextEncoder().encode(s);
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function decode(s: string): string {
  const bin = atob(s.replace(/-/g, "+").replace(/_/g, "/"));
  return new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
}

// readState reads the state of the link's fragment ("#s=…"), if any.
export function readState(): State | null {
  const m = /^#s=([A-Za-z0-9_-]+)$/.exec(location.hash);
  if (!m) return null;
  try {
    const s = JSON.parse(decode(m[1]));
    if (typeof s.l !== "string" || typeof s.q !== "string") return null;
    return { l: s.l, d: typeof s.d === "string" ? s.d : "", q: s.q, path: s.path, data: s.data, open: s.open, tree: !!s.tree };
  } catch {
    return null;
  }
}

// writeState puts the state in the fragment without a new history entry.
export function writeState(s: State) {
  const out: State = { ...s };
  if (out.data && "paste" in out.data && out.data.paste.length > maxLinkData) out.data = undefined;
  const hash = "#s=" + encode(JSON.stringify(out));
  if (location.hash !== hash) history.replaceState(null, "", hash);
}

export function loadHistory(): State[] {
  try {
    const h = JSON.parse(localStorage.getItem(historyKey) || "[]");
    return Array.isArray(h) ? h : [];
  } catch {
    return [];
  }
}

// pushHistory records the query of s as the most recent one.
export function pushHistory(s: State) {
  if (!s.q.trim()) return;
  const entry: State = { l: s.l, d: s.d, q: s.q, path: s.path, data: s.data };
  if (entry.data && "paste" in entry.data && entry.data.paste.length > 16 << 10) entry.data = undefined;
  const h = loadHistory().filter((e) => !(e.l === s.l && e.q === s.q));
  h.unshift(entry);
  try {
    localStorage.setItem(historyKey, JSON.stringify(h.slice(0, maxHistory)));
  } catch { /* storage full or off */ }
}
