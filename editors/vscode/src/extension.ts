/**
 * The ctxql extension: starts "ctxql lsp" for PACT, JQL and Datalog files
 * and adds the Query Results panel and the ctxql commands.
 */
import { execFile } from 'child_process';
import * as path from 'path';
import * as vscode from 'vscode';
import {
  CodeAction,
  CodeActionRequest,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  ResponseError,
} from 'vscode-languageclient/node';
import {
  CLIENT_COMMANDS,
  DATA_GLOB,
  LANGUAGES,
  RULE_DOC_SCHEME,
  docSelector,
  documentSelector,
  explicitSettings,
  hostSelector,
  testFileSelector,
  QUERY_ONLY_FEATURES,
  TEST_FILE_FEATURES,
  isDataCandidate,
  logLine,
  pickSourceAction,
  FROM_LABEL,
  Resolution,
  resolveServer,
  ruleDocPath,
  ruleOfDocPath,
  runArguments,
  serverOptions,
  serverSettings,
  sourceActionParams,
} from './client';
import { ResultsPanel } from './panel';
import { columnList, QueryResult } from './render';
import { registerTesting } from './testing';

const PREVIEW = 'ctxql/preview';

let client: LanguageClient | undefined;
/** The extension's directory, where a platform-specific package keeps bin/ctxql. */
let extensionPath: string | undefined;
let fallbacks: vscode.Disposable[] = [];

function workspaceFolder(): string | undefined {
  return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
}

function settings(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration('ctxql');
}

let settingKeys: string[] = [];

/** The ctxql settings the user set, as the server receives them. */
function userSettings(): Record<string, unknown> {
  const cfg = settings();
  return serverSettings(
    explicitSettings(settingKeys, (k) => cfg.inspect(k)),
    workspaceFolder(),
  );
}

function activeRun(): Parameters<typeof runArguments>[1] {
  const ed = vscode.window.activeTextEditor;
  if (!ed) {
    return undefined;
  }
  const s = ed.selection;
  return {
    uri: ed.document.uri.toString(),
    range: {
      start: { line: s.start.line, character: s.start.character },
      end: { line: s.end.line, character: s.end.character },
    },
  };
}

function resultOf(v: unknown): QueryResult | undefined {
  if (typeof v !== 'object' || v === null) {
    return undefined;
  }
  const r = v as Partial<QueryResult>;
  if (typeof r.uri !== 'string' || typeof r.count !== 'number') {
    return undefined;
  }
  return {
    uri: r.uri,
    range: r.range,
    count: r.count,
    results: Array.isArray(r.results) ? r.results : [],
    elapsed_ms: typeof r.elapsed_ms === 'number' ? r.elapsed_ms : NaN,
    error: r.error,
    language: typeof r.language === 'string' ? r.language : undefined,
    relation: typeof r.relation === 'string' ? r.relation : undefined,
    columns: columnList(r.columns),
    nodes: Array.isArray(r.nodes) ? r.nodes : undefined,
  };
}

/**
 * The output channel handed to the language client: a server that exits
 * with code 0 (a restart) is logged as such, not as an error.
 */
function clientOutput(out: vscode.OutputChannel): vscode.OutputChannel {
  return new Proxy(out, {
    get(target, prop) {
      if (prop === 'appendLine') {
        return (line: string) => target.appendLine(logLine(line));
      }
      const v = Reflect.get(target, prop) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

function clientOptions(panel: ResultsPanel, out: vscode.OutputChannel): LanguageClientOptions {
  return {
    documentSelector: [...documentSelector(), ...testFileSelector(), ...hostDocuments(), ...docSelector()],
    outputChannel: clientOutput(out),
    initializationOptions: userSettings(),
    synchronize: {
      fileEvents: vscode.workspace.createFileSystemWatcher('**/.ctxql.{yaml,yml}'),
    },
    middleware: {
      workspace: {
        configuration: async (params, token, next) => {
          const res = await next(params, token);
          if (!Array.isArray(res)) {
            return res;
          }
          return res.map((v, i) => (params.items[i]?.section === 'ctxql' ? userSettings() : v));
        },
      },
      executeCommand: async (command, args, next) => {
        if (command !== 'ctxql.run') {
          return next(command, args);
        }
        const full = runArguments(args, activeRun());
        if (!full) {
          void vscode.window.showWarningMessage('ctxql: open a query file and put the cursor on a query to run it.');
          return undefined;
        }
        try {
          const res = await next(command, full);
          const r = resultOf(res);
          if (r) {
            panel.update(r, 'run');
            panel.show();
          } else if (res === null || res === undefined) {
            void noResultHint(String(full[0]));
          }
          return res;
        } catch (e) {
          const message = e instanceof ResponseError || e instanceof Error ? e.message : String(e);
          panel.update({ uri: String(full[0]), range: full[1] as QueryResult['range'], count: 0, results: [], elapsed_ms: NaN, error: message }, 'run');
          panel.show();
          if (/sample data/i.test(message)) {
            void noResultHint(String(full[0]));
          }
          return undefined;
        }
      },
    },
  };
}

async function applySourceAction(kind: string, what: string): Promise<void> {
  const ed = vscode.window.activeTextEditor;
  if (!client || !ed) {
    void vscode.window.showWarningMessage('ctxql: the language server is not running.');
    return;
  }
  const doc = ed.document;
  const end = doc.lineAt(doc.lineCount - 1).range.end;
  const actions = await client.sendRequest(
    CodeActionRequest.type,
    sourceActionParams(doc.uri.toString(), { line: end.line, character: end.character }, kind),
  );
  const action = pickSourceAction<CodeAction>(actions, kind);
  if (!action) {
    void vscode.window.showInformationMessage(`ctxql: nothing to ${what} in ${vscode.workspace.asRelativePath(doc.uri)}.`);
    return;
  }
  if (action.edit) {
    const edit = await client.protocol2CodeConverter.asWorkspaceEdit(action.edit);
    await vscode.workspace.applyEdit(edit);
  }
  if (action.command) {
    await vscode.commands.executeCommand(action.command.command, ...(action.command.arguments ?? []));
  }
}

function ruleCodesAtCursor(): { code: string; href?: string }[] {
  const ed = vscode.window.activeTextEditor;
  if (!ed) {
    return [];
  }
  const out: { code: string; href?: string }[] = [];
  for (const d of vscode.languages.getDiagnostics(ed.document.uri)) {
    if (!d.range.contains(ed.selection.active) || d.code === undefined) {
      continue;
    }
    if (typeof d.code === 'object') {
      out.push({ code: String(d.code.value), href: d.code.target.toString() });
    } else {
      out.push({ code: String(d.code) });
    }
  }
  return out;
}

function run(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { timeout: 10000, maxBuffer: 4 << 20 }, (err, stdout, stderr) => {
      if (err) {
        reject(new Error((stderr || err.message).trim()));
        return;
      }
      resolve(stdout);
    });
  });
}

async function showRuleDoc(code?: string): Promise<void> {
  const res = findServer();
  if (!code) {
    const here = ruleCodesAtCursor();
    if (here.length === 1) {
      code = here[0].code;
    } else if (here.length > 1) {
      code = (await vscode.window.showQuickPick(here.map((h) => h.code), { placeHolder: 'Rule' })) ?? undefined;
    } else if (res.ok) {
      const list = await run(res.command, ['rules']).catch(() => '');
      const items = list
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => ({ label: l.split(/\s+/)[0], description: l.slice(l.indexOf(' ')).trim() }));
      code = (await vscode.window.showQuickPick(items, { placeHolder: 'Rule', matchOnDescription: true }))?.label;
    } else {
      code = await vscode.window.showInputBox({ prompt: 'Rule code, e.g. PACT001' });
    }
  }
  if (!code) {
    return;
  }
  if (!res.ok) {
    void vscode.window.showErrorMessage(res.message);
    return;
  }
  try {
    await run(res.command, ['rules', 'explain', code]); // an unknown rule fails here, with the server's message
    const uri = vscode.Uri.from({ scheme: RULE_DOC_SCHEME, path: ruleDocPath(code) });
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.languages.setTextDocumentLanguage(doc, 'markdown');
    await vscode.commands.executeCommand('markdown.showPreview', uri).then(undefined, () =>
      vscode.window.showTextDocument(doc, { preview: true }),
    );
  } catch (e) {
    void vscode.window.showErrorMessage(`ctxql: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** The read-only documents of rule documentation (ctxql-rule:/CODE.md), from "ctxql rules explain". */
class RuleDocs implements vscode.TextDocumentContentProvider {
  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const res = findServer();
    if (!res.ok) {
      return res.message;
    }
    return run(res.command, ['rules', 'explain', ruleOfDocPath(uri.path)]).catch((e: unknown) => `ctxql: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** Tells the user why a run gave nothing and offers to choose sample data. */
async function noResultHint(uri: string): Promise<void> {
  const choice = await vscode.window.showWarningMessage(
    `ctxql: nothing ran in ${vscode.workspace.asRelativePath(vscode.Uri.parse(uri))}: put the cursor on a query, and choose its sample data.`,
    'Choose Sample Data',
  );
  if (choice) {
    await chooseData(uri);
  }
}

/**
 * Lets the user pick the sample data of a document from the workspace's
 * JSON, YAML and JSONL files, and records it: as a "data:" line in the
 * document, written by the server (ctxql.setData), when it is a query file
 * on disk, else as a ctxql.data setting of the workspace.
 */
async function chooseData(arg?: unknown): Promise<void> {
  let uri: vscode.Uri | undefined;
  if (typeof arg === 'string') {
    uri = vscode.Uri.parse(arg);
  } else if (arg instanceof vscode.Uri) {
    uri = arg;
  } else {
    uri = vscode.window.activeTextEditor?.document.uri;
  }
  if (!uri) {
    void vscode.window.showWarningMessage('ctxql: open a query file to choose its sample data.');
    return;
  }
  const doc = await vscode.workspace.openTextDocument(uri);
  const files = (await vscode.workspace.findFiles(DATA_GLOB, '**/node_modules/**', 500))
    .filter((f) => isDataCandidate(vscode.workspace.asRelativePath(f, false)))
    .sort((a, b) => a.fsPath.localeCompare(b.fsPath));
  if (files.length === 0) {
    void vscode.window.showWarningMessage('ctxql: the workspace has no JSON, YAML or JSONL file to use as sample data.');
    return;
  }
  const picked = await vscode.window.showQuickPick(
    files.map((f) => ({ label: vscode.workspace.asRelativePath(f, false), uri: f })),
    { placeHolder: `Sample data for ${vscode.workspace.asRelativePath(uri, false)}`, matchOnDescription: true },
  );
  if (!picked) {
    return;
  }
  if (doc.uri.scheme === 'file' && !/\.json$/.test(doc.uri.fsPath)) {
    // The server writes the data line (ctxql.setData) and has the client apply it.
    const c = client;
    if (!c) {
      void vscode.window.showWarningMessage('ctxql: the language server is not running: cannot write the data line.');
      return;
    }
    const res = (await c.sendRequest(ExecuteCommandRequest.type, {
      command: 'ctxql.setData',
      arguments: [c.code2ProtocolConverter.asUri(doc.uri), picked.uri.fsPath],
    })) as { applied?: boolean; error?: string } | null;
    if (!res?.applied && !res?.error) {
      void vscode.window.showWarningMessage('ctxql: the language server wrote no data line.');
    }
    return;
  }
  // Strict JSON and unsaved documents take no comment: a workspace setting names the data.
  const cfg = settings();
  const data = { ...(cfg.get<Record<string, string>>('data') ?? {}) };
  const folder = workspaceFolder();
  const glob = doc.uri.scheme === 'file' ? path.basename(doc.uri.fsPath) : `*.${doc.languageId}`;
  data[glob] = folder ? vscode.workspace.asRelativePath(picked.uri, false) : picked.uri.fsPath;
  await cfg.update('data', data, vscode.ConfigurationTarget.Workspace);
}

/** Finds the server: ctxql.path, else the bundled binary, else PATH. */
function findServer(): Resolution {
  return resolveServer(settings().get<string>('path'), {
    env: process.env,
    platform: process.platform,
    workspaceFolder: workspaceFolder(),
    extensionPath,
  });
}

async function startClient(context: vscode.ExtensionContext, panel: ResultsPanel, out: vscode.OutputChannel): Promise<void> {
  const cfg = settings();
  const res = findServer();
  if (!res.ok) {
    out.appendLine(res.message);
    registerFallbackRun('the language server is not running: ' + res.message);
    const choice = await vscode.window.showErrorMessage(res.message, 'Open Settings');
    if (choice === 'Open Settings') {
      // ctxql.path is a machine setting: in a remote window (code-server,
      // SSH, containers) it lives in the remote settings.
      const where = vscode.env.remoteName ? 'workbench.action.openRemoteSettings' : 'workbench.action.openSettings';
      await vscode.commands.executeCommand(where, { query: '@id:ctxql.path' });
    }
    return;
  }
  out.appendLine(`ctxql: starting ${res.command} lsp (from ${FROM_LABEL[res.from]})`);
  const c = new LanguageClient('ctxql', 'ctxql', serverOptions(res.command, cfg.get<string[]>('serverArgs') ?? [], workspaceFolder()), clientOptions(panel, out));
  context.subscriptions.push(
    c.onNotification(PREVIEW, (params: unknown) => {
      const r = resultOf(params);
      if (!r) {
        return;
      }
      panel.update(r, 'preview');
      if (!panel.visible && settings().get<boolean>('preview.autoShow', true)) {
        panel.show();
      }
    }),
  );
  keepClientCommands(c);
  limitToQueryLanguages(c);
  client = c;
  try {
    await c.start();
  } catch (e) {
    const message = `ctxql: the language server failed to start: ${e instanceof Error ? e.message : String(e)}`;
    out.appendLine(message);
    void vscode.window.showErrorMessage(message);
    return;
  }
  const all = await vscode.commands.getCommands(true);
  if (!all.includes('ctxql.run')) {
    registerFallbackRun('this ctxql server cannot run queries');
  }
}

/** The host files sent to the server for their embedded queries (none when ctxql.embedded.enable is off). */
function hostDocuments(): { scheme: string; language: string }[] {
  const cfg = settings();
  if (!cfg.get<boolean>('embedded.enable', true)) {
    return [];
  }
  return hostSelector(cfg.get<string[]>('embedded.extensions') ?? ['.ts', '.js', '.py', '.go']);
}

/**
 * Registers every feature but diagnostics, hovers and code actions for the
 * query languages only (and the code lenses for the query test files too):
 * the host files' and YAML's own formatters, completion, semantic tokens
 * and symbols are left alone.
 */
function limitToQueryLanguages(c: LanguageClient): void {
  const only = documentSelector();
  // Query test files get their "Run test" lenses too, and nothing more.
  const withTests = [...only, ...testFileSelector()];
  for (const method of QUERY_ONLY_FEATURES) {
    let feature: { initialize?: (caps: unknown, sel: unknown) => void } | undefined;
    try {
      feature = (c.getFeature as unknown as (m: string) => typeof feature)(method);
    } catch {
      feature = undefined;
    }
    if (!feature || typeof feature.initialize !== 'function') {
      continue;
    }
    const init = feature.initialize.bind(feature);
    const sel = TEST_FILE_FEATURES.includes(method) ? withTests : only;
    feature.initialize = (caps: unknown) => init(caps, sel);
  }
}

/**
 * Keeps the extension's own commands when a server also advertises them
 * (as the target of a code lens): the client would otherwise fail to
 * register them a second time.
 */
function keepClientCommands(c: LanguageClient): void {
  type Registration = { id: string; registerOptions: { commands: string[] } };
  const feature = c.getFeature(ExecuteCommandRequest.method) as unknown as { register(data: Registration): void } | undefined;
  if (!feature || typeof feature.register !== 'function') {
    return;
  }
  const register = feature.register.bind(feature);
  feature.register = (data: Registration) =>
    register({ ...data, registerOptions: { ...data.registerOptions, commands: data.registerOptions.commands.filter((k) => !CLIENT_COMMANDS.includes(k)) } });
}

function registerFallbackRun(why: string): void {
  fallbacks.push(
    vscode.commands.registerCommand('ctxql.run', () => {
      void vscode.window.showWarningMessage(`ctxql: cannot run the query: ${why}`);
    }),
  );
}

async function stopClient(): Promise<void> {
  for (const d of fallbacks) {
    d.dispose();
  }
  fallbacks = [];
  const c = client;
  client = undefined;
  if (c) {
    await c.stop().catch(() => undefined);
  }
}

/** Starts the language client and registers the commands. */
export async function activate(context: vscode.ExtensionContext): Promise<void> {
  extensionPath = context.extensionPath;
  const props = (context.extension.packageJSON as { contributes?: { configuration?: { properties?: Record<string, unknown> } } }).contributes?.configuration?.properties ?? {};
  settingKeys = Object.keys(props).map((k) => k.replace(/^ctxql\./, ''));
  const out = vscode.window.createOutputChannel('ctxql');
  const panel = new ResultsPanel();
  context.subscriptions.push(
    out,
    panel,
    vscode.commands.registerCommand('ctxql.fixAll', () => applySourceAction('source.fixAll', 'fix')),
    vscode.commands.registerCommand('ctxql.migrate', () => applySourceAction('source.migrate', 'migrate')),
    vscode.commands.registerCommand('ctxql.format', () => vscode.commands.executeCommand('editor.action.formatDocument')),
    vscode.commands.registerCommand('ctxql.showRuleDoc', (code?: string) => showRuleDoc(typeof code === 'string' ? code : undefined)),
    vscode.commands.registerCommand('ctxql.showResults', () => panel.show(false)),
    vscode.commands.registerCommand('ctxql.chooseData', (uri?: unknown) => chooseData(uri)),
    vscode.workspace.registerTextDocumentContentProvider(RULE_DOC_SCHEME, new RuleDocs()),
    vscode.window.onDidChangeActiveTextEditor((ed) => {
      if (ed && (LANGUAGES as readonly string[]).includes(ed.document.languageId)) {
        panel.follow(ed.document.uri.toString());
      }
    }),
    vscode.commands.registerCommand('ctxql.restartServer', async () => {
      await stopClient();
      await startClient(context, panel, out);
    }),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (
        e.affectsConfiguration('ctxql.path') ||
        e.affectsConfiguration('ctxql.serverArgs') ||
        e.affectsConfiguration('ctxql.embedded.enable') ||
        e.affectsConfiguration('ctxql.embedded.extensions')
      ) {
        await stopClient();
        await startClient(context, panel, out);
      } else if (e.affectsConfiguration('ctxql') && client?.isRunning()) {
        // The server re-reads its settings and re-diagnoses the open documents.
        await client.sendNotification('workspace/didChangeConfiguration', { settings: { ctxql: userSettings() } });
      }
    }),
    { dispose: () => void stopClient() },
    registerTesting(findServer),
  );
  await startClient(context, panel, out);
}

/** Stops the language server. */
export function deactivate(): Promise<void> {
  return stopClient();
}
