/**
 * The Testing view of query test files (*.ctxqltest.yaml): one item per
 * file and per case, run (and run again) through "ctxql test --format
 * json", failures with their message and the results added and removed
 * at the case.
 */
import { execFile } from 'child_process';
import * as path from 'path';
import * as vscode from 'vscode';
import type { Resolution } from './client';
import { TEST_GLOB, TestResult, caseSites, failureOf, isTestFile, parseReport, testArgs } from './testcases';

/** How long one run of a test file may take. */
const RUN_TIMEOUT_MS = 5 * 60 * 1000;

/**
 * Registers the ctxql test controller. resolve finds the ctxql executable
 * (the one the language server runs).
 */
export function registerTesting(resolve: () => Resolution): vscode.Disposable {
  const ctrl = vscode.tests.createTestController('ctxql', 'ctxql tests');
  const subs: vscode.Disposable[] = [ctrl];

  /** The file item of uri, created on first use. */
  const fileItem = (uri: vscode.Uri): vscode.TestItem => {
    let item = ctrl.items.get(uri.toString());
    if (!item) {
      item = ctrl.createTestItem(uri.toString(), vscode.workspace.asRelativePath(uri), uri);
      item.canResolveChildren = true;
      ctrl.items.add(item);
    }
    return item;
  };

  /** Lists the cases of a file from its text (the open document's, else the saved file's). */
  const readCases = async (item: vscode.TestItem): Promise<void> => {
    const uri = item.uri!;
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    let text: string;
    try {
      text = open ? open.getText() : Buffer.from(await vscode.workspace.fs.readFile(uri)).toString('utf8');
    } catch {
      ctrl.items.delete(item.id);
      return;
    }
    const children = caseSites(text).map((c) => {
      const child = ctrl.createTestItem(`${item.id}#${c.name}`, c.name, uri);
      child.range = new vscode.Range(c.line, c.character, c.line, c.character);
      return child;
    });
    item.children.replace(children);
  };

  const discover = async (): Promise<void> => {
    const found = await vscode.workspace.findFiles(TEST_GLOB, '**/{node_modules,.git}/**');
    await Promise.all(found.map((uri) => readCases(fileItem(uri))));
  };

  ctrl.resolveHandler = async (item) => {
    if (item) {
      await readCases(item);
    } else {
      await discover();
    }
  };
  ctrl.refreshHandler = async () => {
    ctrl.items.replace([]);
    await discover();
  };

  const watcher = vscode.workspace.createFileSystemWatcher(TEST_GLOB);
  subs.push(
    watcher,
    watcher.onDidCreate((uri) => void readCases(fileItem(uri))),
    watcher.onDidChange((uri) => void readCases(fileItem(uri))),
    watcher.onDidDelete((uri) => ctrl.items.delete(uri.toString())),
    vscode.workspace.onDidChangeTextDocument((e) => {
      if (e.document.uri.scheme === 'file' && isTestFile(e.document.uri.fsPath)) {
        void readCases(fileItem(e.document.uri));
      }
    }),
  );

  const runHandler = async (request: vscode.TestRunRequest, token: vscode.CancellationToken): Promise<void> => {
    const run = ctrl.createTestRun(request);
    // The cases to run, by file: all of them, or those named.
    const byFile = new Map<string, { file: vscode.TestItem; all: boolean; names: Set<string> }>();
    const excluded = new Set((request.exclude ?? []).map((i) => i.id));
    const roots: vscode.TestItem[] = [];
    if (request.include) {
      roots.push(...request.include);
    } else {
      ctrl.items.forEach((i) => roots.push(i));
    }
    for (const item of roots) {
      if (excluded.has(item.id)) {
        continue;
      }
      const file = item.parent ?? item;
      const entry = byFile.get(file.id) ?? { file, all: false, names: new Set<string>() };
      byFile.set(file.id, entry);
      if (item.parent) {
        entry.names.add(item.label);
      } else {
        entry.all = true;
      }
    }
    const res = resolve();
    for (const { file, all, names } of byFile.values()) {
      if (token.isCancellationRequested) {
        break;
      }
      if (file.children.size === 0) {
        await readCases(file);
      }
      const cases: vscode.TestItem[] = [];
      let skipped = false;
      file.children.forEach((c) => {
        if (excluded.has(c.id)) {
          skipped = true;
        } else if (all || names.has(c.label)) {
          cases.push(c);
        }
      });
      const selected = all && !skipped ? [] : cases.map((c) => c.label);
      for (const c of cases) {
        run.enqueued(c);
      }
      if (!res.ok) {
        for (const c of [file, ...cases]) {
          run.errored(c, new vscode.TestMessage(res.message));
        }
        continue;
      }
      for (const c of cases) {
        run.started(c);
      }
      await runFile(run, file, cases, selected, res.command, token);
    }
    run.end();
  };
  subs.push(ctrl.createRunProfile('Run', vscode.TestRunProfileKind.Run, runHandler, true));
  void discover();
  return vscode.Disposable.from(...subs);
}

/** Runs cases of one test file with "ctxql test" and reports their outcome. */
async function runFile(
  run: vscode.TestRun,
  file: vscode.TestItem,
  cases: vscode.TestItem[],
  names: string[],
  command: string,
  token: vscode.CancellationToken,
): Promise<void> {
  const uri = file.uri!;
  const cwd = vscode.workspace.getWorkspaceFolder(uri)?.uri.fsPath ?? path.dirname(uri.fsPath);
  const { stdout, stderr, code } = await exec(command, testArgs(uri.fsPath, names), cwd, token);
  run.appendOutput(`$ ctxql ${testArgs(vscode.workspace.asRelativePath(uri), names).join(' ')}\r\n`);
  const results = parseReport(stdout);
  if (!results) {
    const why = new vscode.TestMessage(`ctxql test failed (exit ${code}): ${(stderr || stdout).trim()}`);
    for (const c of cases) {
      run.errored(c, why);
    }
    run.appendOutput(`${(stderr || stdout).replace(/\n/g, '\r\n')}\r\n`);
    return;
  }
  const seen = new Set<vscode.TestItem>();
  for (const r of results) {
    const item = r.name ? (cases.find((c) => c.label === r.name) ?? file.children.get(`${file.id}#${r.name}`)) : file;
    if (!item) {
      continue;
    }
    seen.add(item);
    const ms = r.seconds * 1000;
    run.appendOutput(`--- ${r.status.toUpperCase()}: ${r.name || '(test file)'}\r\n`);
    if (r.status === 'pass') {
      run.passed(item, ms);
      continue;
    }
    const msg = messages(uri, r);
    run.appendOutput(`${failureOf(r).message.replace(/\n/g, '\r\n')}\r\n`);
    if (r.status === 'fail') {
      run.failed(item, msg, ms);
    } else {
      run.errored(item, msg, ms);
      if (!r.name) {
        // The test file has errors: none of its cases ran.
        for (const c of cases) {
          run.errored(c, msg[0]);
        }
      }
    }
  }
  for (const c of cases) {
    if (!seen.has(c) && results.some((r) => r.name)) {
      run.skipped(c);
    }
  }
}

/**
 * The test messages of a result: what did not hold, at the case (shown
 * inline in the test file), and, when results were added or removed, a
 * message whose expected and actual output are the wanted results the
 * query missed and the results it returned unwanted, for the diff view.
 */
function messages(uri: vscode.Uri, r: TestResult): vscode.TestMessage[] {
  const f = failureOf(r);
  const msg = new vscode.TestMessage(f.message);
  msg.location = new vscode.Location(uri, new vscode.Position(Math.max(0, r.line - 1), Math.max(0, r.column - 1)));
  const out = [msg];
  if (f.expected !== undefined) {
    out.push(vscode.TestMessage.diff(`${r.name}: wanted results missing (expected) and unwanted results returned (actual)`, f.expected, f.actual ?? ''));
  }
  return out;
}

function exec(command: string, args: string[], cwd: string, token: vscode.CancellationToken): Promise<{ stdout: string; stderr: string; code: number }> {
  return new Promise((resolve) => {
    const child = execFile(command, args, { cwd, timeout: RUN_TIMEOUT_MS, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : -1) : 0;
      resolve({ stdout, stderr: stderr || (err && code === -1 ? err.message : ''), code });
    });
    token.onCancellationRequested(() => child.kill());
  });
}
