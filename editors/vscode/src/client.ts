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

/** The languages the server is started for, as VS Code language ids. */
export const LANGUAGES = ['pact', 'jql', 'jql-yaml', 'datalog'] as const;

/** Where the executable was found, or why it was not. */
export type Resolution =
  | { ok: true; command: string; from: 'setting' | 'PATH' }
  | { ok: false; message: string };

/** The environment a resolution looks at; injectable for tests. */
export interface ResolveEnv {
  /** The process environment (PATH, PATHEXT, HOME). */
  env: NodeJS.ProcessEnv;
  /** The operating system, as process.platform. */
  platform: NodeJS.Platform;
  /** The first workspace folder, for relative ctxql.path values. */
  workspaceFolder?: string;
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

/** The install hint shown whenever the executable cannot be found. */
export const INSTALL_HINT =
  'Install it with "go install github.com/ctxql/ctxql/cmd/ctxql@latest" or set "ctxql.path" to the executable.';

/**
 * Finds the ctxql executable: the ctxql.path setting when it is set (a
 * bare name is looked up on PATH), otherwise "ctxql" on PATH.
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
  const found = findOnPath('ctxql', env);
  if (found) {
    return { ok: true, command: found, from: 'PATH' };
  }
  return { ok: false, message: `ctxql: the ctxql executable was not found on PATH. ${INSTALL_HINT}` };
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
