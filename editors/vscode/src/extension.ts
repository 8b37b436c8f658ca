/**
 * The ctxql extension: starts "ctxql lsp" for PACT, JQL and Datalog files
 * and adds the Query Results panel and the ctxql commands.
 */
import { execFile } from 'child_process';
import * as vscode from 'vscode';
import {
  CodeAction,
  CodeActionRequest,
  LanguageClient,
  LanguageClientOptions,
  ResponseError,
} from 'vscode-languageclient/node';
import { documentSelector, pickSourceAction, resolveServer, runArguments, serverOptions, serverSettings, sourceActionParams } from './client';
import { ResultsPanel } from './panel';
import { QueryResult } from './render';

const PREVIEW = 'ctxql/preview';

let client: LanguageClient | undefined;
let fallbacks: vscode.Disposable[] = [];

function workspaceFolder(): string | undefined {
  return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
}

function settings(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration('ctxql');
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
  };
}

function clientOptions(panel: ResultsPanel, out: vscode.OutputChannel): LanguageClientOptions {
  const folder = workspaceFolder();
  return {
    documentSelector: documentSelector(),
    outputChannel: out,
    initializationOptions: serverSettings(JSON.parse(JSON.stringify(settings())), folder),
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
          return res.map((v, i) => (params.items[i]?.section === 'ctxql' ? serverSettings(v, folder) : v));
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
          }
          return res;
        } catch (e) {
          const message = e instanceof ResponseError || e instanceof Error ? e.message : String(e);
          panel.update({ uri: String(full[0]), range: full[1] as QueryResult['range'], count: 0, results: [], elapsed_ms: NaN, error: message }, 'run');
          panel.show();
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
  const res = resolveServer(settings().get<string>('path'), {
    env: process.env,
    platform: process.platform,
    workspaceFolder: workspaceFolder(),
  });
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
    const doc = await run(res.command, ['rules', 'explain', code]);
    const md = await vscode.workspace.openTextDocument({ language: 'markdown', content: doc });
    await vscode.commands.executeCommand('markdown.showPreview', md.uri);
  } catch (e) {
    void vscode.window.showErrorMessage(`ctxql: ${e instanceof Error ? e.message : String(e)}`);
  }
}

async function startClient(context: vscode.ExtensionContext, panel: ResultsPanel, out: vscode.OutputChannel): Promise<void> {
  const cfg = settings();
  const res = resolveServer(cfg.get<string>('path'), {
    env: process.env,
    platform: process.platform,
    workspaceFolder: workspaceFolder(),
  });
  if (!res.ok) {
    out.appendLine(res.message);
    registerFallbackRun('the language server is not running: ' + res.message);
    const choice = await vscode.window.showErrorMessage(res.message, 'Open Settings');
    if (choice === 'Open Settings') {
      await vscode.commands.executeCommand('workbench.action.openSettings', 'ctxql.path');
    }
    return;
  }
  out.appendLine(`ctxql: starting ${res.command} lsp (from ${res.from})`);
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
    vscode.commands.registerCommand('ctxql.restartServer', async () => {
      await stopClient();
      await startClient(context, panel, out);
    }),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration('ctxql.path') || e.affectsConfiguration('ctxql.serverArgs')) {
        await stopClient();
        await startClient(context, panel, out);
      }
    }),
    { dispose: () => void stopClient() },
  );
  await startClient(context, panel, out);
}

/** Stops the language server. */
export function deactivate(): Promise<void> {
  return stopClient();
}
