/**
 * What the Testing view needs to know about query test files
 * (*.ctxqltest.yaml) and "ctxql test --format json", without VS Code:
 * where the cases are, how to run some of them, and what a failure says.
 */

/** The glob of query test files. */
export const TEST_GLOB = '**/*.ctxqltest.{yaml,yml}';

/** Reports whether a path names a query test file. */
export function isTestFile(p: string): boolean {
  return /[^/\\]\.ctxqltest\.ya?ml$/i.test(p);
}

/** A case of a test file: its name and where its list item starts (0-based). */
export interface CaseSite {
  name: string;
  line: number;
  character: number;
}

/** A YAML scalar as written: quotes removed, a trailing comment dropped. */
function scalar(raw: string): string {
  const s = raw.trim();
  if (s.startsWith('"')) {
    try {
      return JSON.parse(s.slice(0, s.lastIndexOf('"') + 1)) as string;
    } catch {
      return s.slice(1, s.lastIndexOf('"'));
    }
  }
  if (s.startsWith("'")) {
    return s.slice(1, s.lastIndexOf("'")).replace(/''/g, "'");
  }
  return s.replace(/\s+#.*$/, '').trim();
}

/**
 * Lists the cases of a test file's text: the items of its top-level
 * "tests" list that have a name, where each item starts. It reads the
 * block style the format's documentation uses; "ctxql test" remains the
 * judge of the file, and a case it reports that this misses still shows
 * up after a run.
 */
export function caseSites(text: string): CaseSite[] {
  const lines = text.split(/\r?\n/);
  const out: CaseSite[] = [];
  let inTests = false;
  let itemIndent = -1;
  let current: { line: number; character: number; indent: number } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (/^\S/.test(line) && !line.startsWith('#') && !/^-(\s|$)/.test(line)) {
      inTests = /^tests\s*:\s*(#.*)?$/.test(line);
      current = undefined;
      itemIndent = -1;
      continue;
    }
    if (!inTests) {
      continue;
    }
    const item = /^(\s*)-(\s+|$)(.*)$/.exec(line);
    if (item && (itemIndent < 0 || item[1].length === itemIndent)) {
      itemIndent = item[1].length;
      current = { line: i, character: itemIndent, indent: itemIndent + 1 + item[2].length };
      const first = /^name\s*:\s*(.*)$/.exec(item[3]);
      if (first) {
        out.push({ name: scalar(first[1]), line: i, character: itemIndent });
      }
      continue;
    }
    const key = /^(\s*)name\s*:\s*(.*)$/.exec(line);
    if (current && key && key[1].length === current.indent) {
      out.push({ name: scalar(key[2]), line: current.line, character: current.character });
    }
  }
  return out;
}

/** Escapes a string for a Go regular expression. */
export function quoteRegexp(s: string): string {
  return s.replace(/[\\.+*?()|[\]{}^$]/g, '\\$&');
}

/** The arguments of "ctxql test" that run the named cases of file (every case when names is empty). */
export function testArgs(file: string, names: readonly string[]): string[] {
  const args = ['test', '--format', 'json'];
  if (names.length > 0) {
    args.push('--run', `^(?:${names.map(quoteRegexp).join('|')})$`);
  }
  args.push(file);
  return args;
}

/** A position in a file, 1-based as "ctxql test" prints it. */
export interface FilePos {
  file: string;
  line: number;
  column: number;
}

/** One result of "ctxql test --format json". */
export interface TestResult extends FilePos {
  name: string;
  status: 'pass' | 'fail' | 'error';
  query?: FilePos;
  messages: string[];
  added: unknown[];
  removed: unknown[];
  seconds: number;
}

/** Reads the report of "ctxql test --format json"; undefined when it is not one. */
export function parseReport(stdout: string): TestResult[] | undefined {
  let v: unknown;
  try {
    v = JSON.parse(stdout);
  } catch {
    return undefined;
  }
  const results = (v as { results?: unknown })?.results;
  if (!Array.isArray(results)) {
    return undefined;
  }
  return results.filter((r): r is TestResult => typeof r === 'object' && r !== null && typeof (r as TestResult).status === 'string');
}

/** A result as the text outputs show it: a string without quotes (a PACT id), anything else as JSON. */
export function display(x: unknown): string {
  return typeof x === 'string' ? x : JSON.stringify(x);
}

/** What a failing case's message says, and the two sides of its difference when it has one. */
export interface Failure {
  message: string;
  /** The wanted results the query did not return, one per line. */
  expected?: string;
  /** The results the query returned that were not wanted, one per line. */
  actual?: string;
}

/** The failure message of a result that did not pass. */
export function failureOf(r: TestResult): Failure {
  const lines = [...r.messages];
  if (r.query) {
    lines.push(`query: ${r.query.file}:${r.query.line}:${r.query.column}`);
  }
  for (const x of r.added) {
    lines.push(`+ ${display(x)}`);
  }
  for (const x of r.removed) {
    lines.push(`- ${display(x)}`);
  }
  const f: Failure = { message: lines.join('\n') };
  if (r.added.length > 0 || r.removed.length > 0) {
    f.expected = r.removed.map(display).join('\n');
    f.actual = r.added.map(display).join('\n');
  }
  return f;
}
