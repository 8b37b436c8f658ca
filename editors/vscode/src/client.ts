/**
 * Everything needed to start the ctxql language server that does not need
 * VS Code itself: locating the executable, the server options and the
 * settings sent to the server. Only types are imported from VS Code and
 * the language client, so this module runs (and is tested) in plain Node.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { Executable } from 'vscode-languageclient/node';
import { TEST_GLOB } from './testcases';

/** The languages the server is started for, as VS Code language ids. */
export const LANGUAGES = ['pact', 'jql', 'jql-yaml', 'datalog'] as const;

/** Where the executable was found, or why it was not. */
export type Resolution =
  | { ok: true; command: string; from: 'setting' | 'bundled' | 'PATH' }
  | { ok: false; message: string };

/** How the output log names each place the executable may come from. */
export const FROM_LABEL: Record<'setting' | 'bundled' | 'PATH', string> = {
  setting: 'the ctxql.path setting',
  bundled: 'the binary bundled with the extension',
  PATH: 'PATH',
};

/** The environment a resolution looks at; injectable for tests. */
export interface ResolveEnv {
  /** The process environment (PATH, PATHEXT, HOME). */
  env: NodeJS.ProcessEnv;
  /** The operating system, as process.platform. */
  platform: NodeJS.Platform;
  /** The first workspace folder, for relative ctxql.path values. */
  workspaceFolder?: string;
  /**
   * The extension's own directory, whose bin/ holds the server in a
   * platform-specific package (none in the package built for every platform).
   */
  extensionPath?: string;
  /** Reports whether p is an executable file. */
  isExecutable?: (p: string) => boolean;
}

/** The default check: p is a regular file the user may execute. */
export function isExecutableFile(p: string): boolean {
  try {
    const st = fs.statSync(p);
    if (!st.isFile()) {
      return false;
    }
    if (process.platform === 'win32') {
      return true;
    }
    fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Expands a leading "~" and ${workspaceFolder} and resolves p against the workspace. */
export function expandPath(p: string, env: ResolveEnv): string {
  let out = p.trim();
  const home = env.env.HOME || env.env.USERPROFILE || os.homedir();
  if (out === '~' || out.startsWith('~/') || out.startsWith('~\\')) {
    out = path.join(home, out.slice(1));
  }
  if (env.workspaceFolder) {
    out = out.replace(/\$\{workspaceFolder\}/g, env.workspaceFolder);
    if (!path.isAbsolute(out) && (out.includes('/') || out.includes('\\'))) {
      out = path.resolve(env.workspaceFolder, out);
    }
  }
  return out;
}

/** Looks name up in the directories of PATH (with PATHEXT on Windows). */
export function findOnPath(name: string, env: ResolveEnv): string | undefined {
  const check = env.isExecutable ?? isExecutableFile;
  const pathVar = env.env.PATH ?? env.env.Path ?? '';
  const delimiter = env.platform === 'win32' ? ';' : ':';
  const exts = env.platform === 'win32' ? (env.env.PATHEXT || '.EXE;.CMD;.BAT').split(';').filter(Boolean) : [''];
  for (const dir of pathVar.split(delimiter)) {
    if (!dir) {
      continue;
    }
    for (const ext of exts) {
      const candidate = path.join(dir, name + ext);
      if (check(candidate)) {
        return candidate;
      }
    }
  }
  return undefined;
}

/**
 * The server bundled in a platform-specific package: bin/ctxql (ctxql.exe
 * on Windows) in the extension's directory, if it is there and executable.
 * A bundled binary that lost its execute bit in unpacking gets it back.
 */
export function bundledServer(env: ResolveEnv): string | undefined {
  if (!env.extensionPath) {
    return undefined;
  }
  const check = env.isExecutable ?? isExecutableFile;
  const p = path.join(env.extensionPath, 'bin', env.platform === 'win32' ? 'ctxql.exe' : 'ctxql');
  if (check(p)) {
    return p;
  }
  if (env.platform !== 'win32' && !env.isExecutable) {
    try {
      if (fs.statSync(p).isFile()) {
        fs.chmodSync(p, 0o755);
        return check(p) ? p : undefined;
      }
    } catch {
      // not bundled
    }
  }
  return undefined;
}

/** The install hint shown whenever the executable cannot be found. */
export const INSTALL_HINT =
  'Install the extension package for your platform, which brings its own server, or install the server with "go install github.com/ctxql/ctxql/cmd/ctxql@latest", or set "ctxql.path" to the executable.';

/**
 * Finds the ctxql executable: the ctxql.path setting when it is set (a
 * bare name is looked up on PATH), otherwise the server bundled with the
 * extension, otherwise "ctxql" on PATH. A setting that names nothing usable
 * is an error, not a reason to look elsewhere: the user asked for it.
 */
export function resolveServer(setting: string | undefined, env: ResolveEnv): Resolution {
  const check = env.isExecutable ?? isExecutableFile;
  const configured = (setting ?? '').trim();
  if (configured) {
    const p = expandPath(configured, env);
    if (path.isAbsolute(p)) {
      if (check(p)) {
        return { ok: true, command: p, from: 'setting' };
      }
      return {
        ok: false,
        message: `ctxql: "ctxql.path" is set to ${JSON.stringify(configured)}, but ${p} is not an executable file. ${INSTALL_HINT}`,
      };
    }
    const found = findOnPath(p, env);
    if (found) {
      return { ok: true, command: found, from: 'setting' };
    }
    return {
      ok: false,
      message: `ctxql: "ctxql.path" is set to ${JSON.stringify(configured)}, which was not found on PATH. ${INSTALL_HINT}`,
    };
  }
  const bundled = bundledServer(env);
  if (bundled) {
    return { ok: true, command: bundled, from: 'bundled' };
  }
  const found = findOnPath('ctxql', env);
  if (found) {
    return { ok: true, command: found, from: 'PATH' };
  }
  const bundle = env.extensionPath ? ' (and this package of the extension bundles none for this platform)' : '';
  return { ok: false, message: `ctxql: the ctxql executable was not found on PATH${bundle}. ${INSTALL_HINT}` };
}

/** The process the client starts: "<command> lsp [extra args]" over stdio. */
export function serverOptions(command: string, extraArgs: readonly string[] = [], cwd?: string): Executable {
  const opts: Executable = { command, args: ['lsp', ...extraArgs] };
  if (cwd) {
    opts.options = { cwd };
  }
  return opts;
}

/** The document selector of the client: every ctxql language, on disk or unsaved. */
export function documentSelector(): { scheme: string; language: string }[] {
  return LANGUAGES.flatMap((language) => [
    { scheme: 'file', language },
    { scheme: 'untitled', language },
  ]);
}

/**
 * The query test files (*.ctxqltest.yaml): YAML to VS Code, recognised by
 * the server by their name. It reports the problems of the format, puts a
 * "Run test" lens on each case and, once a case ran, its failure on the
 * case (and on the query it tests). Saved files only: the cases name their
 * query file and data relative to the test file.
 */
export function testFileSelector(): { scheme: string; pattern: string }[] {
  return [{ scheme: 'file', pattern: TEST_GLOB }];
}

/**
 * The languages of documentation files the server checks with its rules
 * (Markdown: DOC001), saved files only. Like host files they get the
 * server's diagnostics, hovers and quick fixes, and nothing else.
 */
export const DOC_LANGUAGES = ['markdown'] as const;

/** The document selector of the documentation files the server checks. */
export function docSelector(): { scheme: string; language: string }[] {
  return DOC_LANGUAGES.map((language) => ({ scheme: 'file', language }));
}

/** The VS Code languages of host files whose string literals may hold PACT queries, by file extension. */
export const HOST_LANGUAGES: Record<string, string[]> = {
  '.ts': ['typescript', 'typescriptreact'],
  '.tsx': ['typescriptreact'],
  '.js': ['javascript', 'javascriptreact'],
  '.jsx': ['javascriptreact'],
  '.mjs': ['javascript'],
  '.cjs': ['javascript'],
  '.py': ['python'],
  '.go': ['go'],
};

/**
 * The document selector of the host files the server checks for embedded
 * queries (the embedded.extensions setting, saved files only).
 */
export function hostSelector(extensions: readonly string[]): { scheme: string; language: string }[] {
  const langs = new Set<string>();
  for (const ext of extensions) {
    for (const l of HOST_LANGUAGES[ext.startsWith('.') ? ext : '.' + ext] ?? []) {
      langs.add(l);
    }
  }
  return [...langs].map((language) => ({ scheme: 'file', language }));
}

/**
 * The server features that also serve host files: diagnostics, hovers and
 * quick fixes of their embedded queries. Every other feature (formatting,
 * completion, semantic tokens, symbols, lenses…) stays with the query
 * languages, so that the host language's own providers are not shadowed.
 */
export const HOST_FEATURES = ['textDocument/hover', 'textDocument/codeAction', 'textDocument/diagnostic'];

/**
 * The features of the query languages that also serve the query test files
 * (whose other features stay with YAML's own providers).
 */
export const TEST_FILE_FEATURES: readonly string[] = ['textDocument/codeLens'];

/** The features whose registration is limited to the query languages. */
export const QUERY_ONLY_FEATURES = [
  'textDocument/completion',
  'textDocument/signatureHelp',
  'textDocument/definition',
  'textDocument/references',
  'textDocument/documentHighlight',
  'textDocument/codeLens',
  'textDocument/formatting',
  'textDocument/rangeFormatting',
  'textDocument/onTypeFormatting',
  'textDocument/rename',
  'textDocument/documentSymbol',
  'textDocument/documentLink',
  'textDocument/foldingRange',
  'textDocument/selectionRange',
  'textDocument/semanticTokens',
  'textDocument/inlayHint',
  'textDocument/inlineValue',
  'textDocument/declaration',
  'textDocument/implementation',
  'textDocument/typeDefinition',
  'textDocument/linkedEditingRange',
  'textDocument/prepareCallHierarchy',
  'textDocument/prepareTypeHierarchy',
];

/**
 * The "ctxql" settings as the server receives them (initializationOptions
 * and workspace/configuration answers): the VS Code settings object with
 * relative data paths made absolute against the workspace folder and the
 * client-only keys (path, serverArgs, preview, trace) removed.
 */
export function serverSettings(raw: unknown, workspaceFolder?: string): Record<string, unknown> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return {};
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
    if (k === 'path' || k === 'serverArgs' || k === 'preview' || k === 'trace' || typeof v === 'function') {
      continue;
    }
    out[k] = v;
  }
  const emb = out.embedded;
  if (typeof emb === 'object' && emb !== null && !Array.isArray(emb) && 'enable' in emb) {
    // Client-only: whether host files are sent at all.
    const { enable: _enable, ...rest } = emb as Record<string, unknown>;
    void _enable;
    out.embedded = rest;
  }
  const data = out.data;
  if (typeof data === 'object' && data !== null && !Array.isArray(data)) {
    const abs: Record<string, string> = {};
    for (const [glob, p] of Object.entries(data as Record<string, unknown>)) {
      if (typeof p !== 'string' || p === '') {
        continue;
      }
      abs[glob] = workspaceFolder && !path.isAbsolute(p) ? path.resolve(workspaceFolder, p) : p;
    }
    out.data = abs;
  }
  return out;
}

/**
 * Completes the arguments of ctxql.run. A code lens passes [uri, range];
 * the command palette and key binding pass nothing, and then the active
 * editor's document and selection are used. Undefined when neither exists.
 */
export function runArguments(
  args: readonly unknown[],
  active: { uri: string; range: { start: { line: number; character: number }; end: { line: number; character: number } } } | undefined,
): unknown[] | undefined {
  if (args.length >= 1 && typeof args[0] === 'string') {
    return [...args];
  }
  if (!active) {
    return undefined;
  }
  return [active.uri, active.range];
}

/** A code action or command as a textDocument/codeAction answer lists it. */
export interface CodeActionLike {
  title: string;
  kind?: string;
  edit?: unknown;
  command?: unknown;
}

/**
 * Picks the action of kind (or a sub-kind such as "source.fixAll.ctxql")
 * from a textDocument/codeAction answer; bare commands (which have a string
 * "command" field and no kind) never match.
 */
export function pickSourceAction<T extends CodeActionLike>(actions: readonly (T | { command: string })[] | null | undefined, kind: string): T | undefined {
  for (const a of actions ?? []) {
    if (typeof (a as { command?: unknown }).command === 'string') {
      continue;
    }
    const k = (a as T).kind;
    if (typeof k === 'string' && (k === kind || k.startsWith(kind + '.'))) {
      return a as T;
    }
  }
  return undefined;
}

/** The textDocument/codeAction parameters asking for the kind actions of a whole document. */
export function sourceActionParams(uri: string, end: { line: number; character: number }, kind: string) {
  return {
    textDocument: { uri },
    range: { start: { line: 0, character: 0 }, end },
    context: { diagnostics: [], only: [kind] },
  };
}

/** The commands the extension itself provides; a server advertising one of them does not take it over. */
export const CLIENT_COMMANDS = ['ctxql.chooseData', 'ctxql.showRuleDoc', 'ctxql.showResults', 'ctxql.restartServer'];

/** The extensions of files offered as sample data. */
export const DATA_GLOB = '**/*.{json,jsonl,ndjson,yaml,yml}';

/** Reports whether the workspace file p (slash-separated, relative) may be sample data: not a query file, not editor or package metadata. */
export function isDataCandidate(p: string): boolean {
  const base = p.split('/').pop() ?? p;
  if (/\.jql\.(json|ya?ml)$/.test(base) || base === '.ctxql.yaml' || base === '.ctxql.yml') {
    return false;
  }
  if (/^(package(-lock)?|tsconfig|jsconfig)\.json$/.test(base)) {
    return false;
  }
  return !p.split('/').some((seg) => seg === 'node_modules' || seg === '.vscode' || seg === '.git');
}

/**
 * Rewrites a log line of the language client: a server that exits with
 * code 0 stopped normally (a restart or a shutdown), which the client
 * library logs as an error.
 */
export function logLine(line: string): string {
  return line.replace(/^\[Error( - [^\]]*)?\] Server process exited with code 0\.?$/, '[Info$1] Server process exited normally.');
}

/** The URI scheme of the read-only rule documentation documents. */
export const RULE_DOC_SCHEME = 'ctxql-rule';

/** The path of the virtual document of a rule's documentation. */
export function ruleDocPath(code: string): string {
  return `/${code.replace(/[^A-Za-z0-9_.-]/g, '_')}.md`;
}

/** The rule code of a virtual rule documentation path. */
export function ruleOfDocPath(p: string): string {
  return p.replace(/^\//, '').replace(/\.md$/, '');
}

/** One setting's values as WorkspaceConfiguration.inspect reports them. */
export interface Inspected {
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

/**
 * The "ctxql" settings the user set (folder > workspace > user), nested by
 * their dotted keys ("dialect.default" → {dialect: {default}}). Defaults
 * are left out, so that a .ctxql.yaml value is not overridden by a default
 * the user never chose.
 */
export function explicitSettings(keys: readonly string[], inspect: (key: string) => Inspected | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const i = inspect(key);
    const v = i?.workspaceFolderValue ?? i?.workspaceValue ?? i?.globalValue;
    if (v === undefined) {
      continue;
    }
    const parts = key.split('.');
    let at = out;
    for (const p of parts.slice(0, -1)) {
      const next = at[p];
      if (typeof next !== 'object' || next === null || Array.isArray(next)) {
        at[p] = {};
      }
      at = at[p] as Record<string, unknown>;
    }
    at[parts[parts.length - 1]] = v;
  }
  return out;
}
