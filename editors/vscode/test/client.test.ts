import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { bundledServer, docSelector, documentSelector, findOnPath, hostSelector, pickSourceAction, QUERY_ONLY_FEATURES, TEST_FILE_FEATURES, testFileSelector, resolveServer, runArguments, serverOptions, serverSettings, sourceActionParams } from '../src/client';

let dir: string;
let bin1: string;
let bin2: string;
let notExec: string;

before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctxql-client-'));
  fs.mkdirSync(path.join(dir, 'a'));
  fs.mkdirSync(path.join(dir, 'b'));
  fs.mkdirSync(path.join(dir, 'ws', 'bin'), { recursive: true });
  bin1 = path.join(dir, 'a', 'ctxql');
  bin2 = path.join(dir, 'b', 'ctxql');
  for (const p of [bin1, bin2, path.join(dir, 'ws', 'bin', 'ctxql')]) {
    fs.writeFileSync(p, '#!/bin/sh\n');
    fs.chmodSync(p, 0o755);
  }
  notExec = path.join(dir, 'b', 'plain');
  fs.writeFileSync(notExec, 'x');
  fs.chmodSync(notExec, 0o644);
});

after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Makes an extension directory named name with bin/ctxql of the given mode; returns both paths. */
function fakePackage(name: string, mode: number): [string, string] {
  const ext = path.join(dir, name);
  fs.mkdirSync(path.join(ext, 'bin'), { recursive: true });
  const bundled = path.join(ext, 'bin', 'ctxql');
  fs.writeFileSync(bundled, '#!/bin/sh\n');
  fs.chmodSync(bundled, mode);
  return [ext, bundled];
}

const unix = (PATH: string, ws?: string) => ({ env: { PATH, HOME: '/home/u' }, platform: 'linux' as const, workspaceFolder: ws });

describe('resolveServer', () => {
  it('uses ctxql.path when it names an executable', () => {
    assert.deepEqual(resolveServer(bin2, unix(path.join(dir, 'a'))), { ok: true, command: bin2, from: 'setting' });
  });

  it('resolves a relative ctxql.path and ${workspaceFolder} against the workspace folder', () => {
    const ws = path.join(dir, 'ws');
    const want = path.join(ws, 'bin', 'ctxql');
    assert.deepEqual(resolveServer('./bin/ctxql', unix('', ws)), { ok: true, command: want, from: 'setting' });
    assert.deepEqual(resolveServer('${workspaceFolder}/bin/ctxql', unix('', ws)), { ok: true, command: want, from: 'setting' });
  });

  it('looks a bare ctxql.path name up on PATH', () => {
    assert.deepEqual(resolveServer('ctxql', unix(path.join(dir, 'b'))), { ok: true, command: bin2, from: 'setting' });
  });

  it('falls back to the first ctxql on PATH when the setting is empty', () => {
    const PATH = [path.join(dir, 'missing'), path.join(dir, 'a'), path.join(dir, 'b')].join(':');
    assert.deepEqual(resolveServer('', unix(PATH)), { ok: true, command: bin1, from: 'PATH' });
    assert.deepEqual(resolveServer(undefined, unix(PATH)), { ok: true, command: bin1, from: 'PATH' });
    assert.deepEqual(resolveServer('   ', unix(PATH)), { ok: true, command: bin1, from: 'PATH' });
  });

  it('explains a missing executable on PATH', () => {
    const r = resolveServer('', unix(path.join(dir, 'nothing-here')));
    assert.equal(r.ok, false);
    assert.ok(!r.ok);
    assert.match(r.message, /^ctxql: the ctxql executable was not found on PATH\. /);
    assert.match(r.message, /go install github\.com\/ctxql\/ctxql\/cmd\/ctxql@latest/);
    assert.match(r.message, /set "ctxql\.path"/);
  });

  it('explains a ctxql.path that is not an executable file', () => {
    for (const p of [notExec, path.join(dir, 'a'), path.join(dir, 'nope', 'ctxql')]) {
      const r = resolveServer(p, unix(path.join(dir, 'a')));
      assert.ok(!r.ok, p);
      assert.match(r.message, /"ctxql\.path" is set to .*, but .* is not an executable file\./);
    }
    const r = resolveServer('ctxql-nightly', unix(path.join(dir, 'a')));
    assert.ok(!r.ok);
    assert.match(r.message, /"ctxql\.path" is set to "ctxql-nightly", which was not found on PATH\./);
  });

  it('prefers the bundled server to PATH, and ctxql.path to both', () => {
    const [ext, bundled] = fakePackage('ext', 0o755);
    const env = { ...unix(path.join(dir, 'a')), extensionPath: ext };
    assert.deepEqual(resolveServer('', env), { ok: true, command: bundled, from: 'bundled' });
    assert.deepEqual(resolveServer(bin2, env), { ok: true, command: bin2, from: 'setting' });
    const r = resolveServer('/nonexistent/ctxql', env);
    assert.ok(!r.ok, 'a ctxql.path naming nothing is an error, not a reason to use the bundled server');
    assert.deepEqual(resolveServer('', { ...env, extensionPath: path.join(dir, 'b') }), { ok: true, command: bin1, from: 'PATH' });
  });

  it('gives a bundled server that lost its execute bit the bit back', () => {
    const [ext, bundled] = fakePackage('ext-noexec', 0o644);
    assert.equal(bundledServer({ ...unix(''), extensionPath: ext }), bundled);
    assert.equal(fs.statSync(bundled).mode & 0o111, 0o111);
  });

  it('looks for ctxql.exe in a Windows package', () => {
    const seen: string[] = [];
    const r = bundledServer({ env: {}, platform: 'win32', extensionPath: 'C:\\ext', isExecutable: (p) => (seen.push(p), true) });
    assert.equal(r, path.join('C:\\ext', 'bin', 'ctxql.exe'));
  });

  it('says a package without a bundled server has none', () => {
    const r = resolveServer('', { ...unix(path.join(dir, 'nothing-here')), extensionPath: path.join(dir, 'b') });
    assert.ok(!r.ok);
    assert.match(r.message, /not found on PATH \(and this package of the extension bundles none for this platform\)\. /);
  });

  it('expands ~ in ctxql.path', () => {
    const seen: string[] = [];
    const r = resolveServer('~/go/bin/ctxql', { ...unix(''), isExecutable: (p) => (seen.push(p), true) });
    assert.deepEqual(r, { ok: true, command: path.join('/home/u', 'go', 'bin', 'ctxql'), from: 'setting' });
  });

  it('tries PATHEXT extensions on Windows', () => {
    const seen: string[] = [];
    const found = findOnPath('ctxql', {
      env: { Path: 'C:\\tools;D:\\bin', PATHEXT: '.COM;.EXE' },
      platform: 'win32',
      isExecutable: (p) => (seen.push(p), p.endsWith(path.join('D:\\bin', 'ctxql.EXE'))),
    });
    assert.equal(found, path.join('D:\\bin', 'ctxql.EXE'));
    assert.equal(seen.length, 4);
  });
});

describe('serverOptions', () => {
  it('starts "<command> lsp" with extra arguments over stdio', () => {
    assert.deepEqual(serverOptions('/usr/bin/ctxql'), { command: '/usr/bin/ctxql', args: ['lsp'] });
    assert.deepEqual(serverOptions('/usr/bin/ctxql', ['-v'], '/w'), {
      command: '/usr/bin/ctxql',
      args: ['lsp', '-v'],
      options: { cwd: '/w' },
    });
  });
});

describe('documentSelector', () => {
  it('covers every language on disk and unsaved', () => {
    const sel = documentSelector();
    for (const language of ['pact', 'jql', 'jql-yaml', 'datalog']) {
      assert.ok(sel.some((s) => s.language === language && s.scheme === 'file'), language);
      assert.ok(sel.some((s) => s.language === language && s.scheme === 'untitled'), language);
    }
    assert.equal(sel.length, 8);
  });
});

describe('docSelector', () => {
  it('sends Markdown files on disk to the server, and no query language twice', () => {
    assert.deepEqual(docSelector(), [{ scheme: 'file', language: 'markdown' }]);
    const query = new Set(documentSelector().map((s) => s.language));
    assert.ok(docSelector().every((s) => !query.has(s.language)));
  });
});

describe('testFileSelector', () => {
  it('sends query test files on disk to the server, whatever their language, for their lenses only', () => {
    assert.deepEqual(testFileSelector(), [{ scheme: 'file', pattern: '**/*.ctxqltest.{yaml,yml}' }]);
    assert.deepEqual(TEST_FILE_FEATURES, ['textDocument/codeLens']);
    assert.ok(TEST_FILE_FEATURES.every((m) => QUERY_ONLY_FEATURES.includes(m)));
  });
});

describe('hostSelector', () => {
  it('maps embedded.extensions to the host languages, files on disk only', () => {
    assert.deepEqual(hostSelector(['.ts', 'py', '.go', '.rs']), [
      { scheme: 'file', language: 'typescript' },
      { scheme: 'file', language: 'typescriptreact' },
      { scheme: 'file', language: 'python' },
      { scheme: 'file', language: 'go' },
    ]);
    assert.deepEqual(hostSelector([]), []);
  });
});

describe('serverSettings', () => {
  it('keeps the client-only embedded.enable to itself', () => {
    assert.deepEqual(serverSettings({ embedded: { enable: false, calls: ['ctx.select'] } }), { embedded: { calls: ['ctx.select'] } });
  });

  it('mirrors .ctxql.yaml keys, drops client-only keys and makes data paths absolute', () => {
    const raw = {
      path: '/x/ctxql',
      serverArgs: ['-v'],
      trace: { server: 'off' },
      preview: { autoShow: true },
      dialect: { default: 'v2', files: { 'legacy/*.pact': 'v1' } },
      data: { '*.pact': './history.json', '*.dl': '/abs/rel.json', bad: 3 },
      rules: { select: ['PACT'], ignore: ['PACT003'], severity: { PACT001: 'warning' } },
      embedded: { calls: ['ctx.select', 'query'], extensions: ['.ts'] },
      diagnosticsDelay: 20,
    };
    assert.deepEqual(serverSettings(raw, '/w'), {
      dialect: { default: 'v2', files: { 'legacy/*.pact': 'v1' } },
      data: { '*.pact': path.resolve('/w', 'history.json'), '*.dl': '/abs/rel.json' },
      rules: { select: ['PACT'], ignore: ['PACT003'], severity: { PACT001: 'warning' } },
      embedded: { calls: ['ctx.select', 'query'], extensions: ['.ts'] },
      diagnosticsDelay: 20,
    });
  });
  it('keeps relative data paths without a workspace and tolerates null', () => {
    assert.deepEqual(serverSettings({ data: { '*': 'd.json' } }), { data: { '*': 'd.json' } });
    assert.deepEqual(serverSettings(null), {});
    assert.deepEqual(serverSettings([1]), {});
  });
});

describe('runArguments', () => {
  const active = { uri: 'file:///w/q.pact', range: { start: { line: 3, character: 1 }, end: { line: 3, character: 1 } } };
  it('keeps the [uri, range] of a code lens', () => {
    const lens = ['file:///w/other.pact', { start: { line: 0, character: 0 }, end: { line: 0, character: 5 } }];
    assert.deepEqual(runArguments(lens, active), lens);
  });
  it('uses the active editor from the command palette', () => {
    assert.deepEqual(runArguments([], active), [active.uri, active.range]);
  });
  it('gives up without arguments and without an editor', () => {
    assert.equal(runArguments([], undefined), undefined);
  });
});

describe('source actions', () => {
  it('asks for the kind over the whole document', () => {
    assert.deepEqual(sourceActionParams('file:///w/q.pact', { line: 9, character: 3 }, 'source.fixAll'), {
      textDocument: { uri: 'file:///w/q.pact' },
      range: { start: { line: 0, character: 0 }, end: { line: 9, character: 3 } },
      context: { diagnostics: [], only: ['source.fixAll'] },
    });
  });
  it('picks the first action of the kind or a sub-kind, never a bare command or a lookalike', () => {
    const actions = [
      { title: 'Run', command: 'ctxql.run' },
      { title: 'replace with .summary', kind: 'quickfix', edit: {} },
      { title: 'lookalike', kind: 'source.fixAllOther', edit: {} },
      { title: 'Fix all', kind: 'source.fixAll.ctxql', edit: {} },
      { title: 'Migrate file to v2', kind: 'source.migrate', edit: {} },
    ];
    assert.equal(pickSourceAction(actions, 'source.fixAll')?.title, 'Fix all');
    assert.equal(pickSourceAction(actions, 'source.migrate')?.title, 'Migrate file to v2');
    assert.equal(pickSourceAction(actions, 'source.organizeImports'), undefined);
    assert.equal(pickSourceAction(null, 'source.fixAll'), undefined);
  });
});
