// End-to-end check of the wire contract the extension relies on, against the
// real "ctxql lsp": the executable is found the way the extension finds it
// (CTXQL_PATH, else PATH), started with the extension's server options, sent
// the extension's settings, and its ctxql.run answer and ctxql/preview
// notification are rendered by the panel renderer. Skipped when no ctxql
// executable is available.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';
import { pickSourceAction, resolveServer, serverOptions, serverSettings, sourceActionParams } from '../src/client';
import { QueryResult, renderBody } from '../src/render';

const found = resolveServer(process.env.CTXQL_PATH, { env: process.env, platform: process.platform });

const sample = {
  root: {
    id: 'root', nodeType: '^root', children: [
      { id: 'sys', nodeType: '^sys', children: [] },
      { id: 'seq', nodeType: '^seq', children: [
        { id: 'mt:1', nodeType: 'mt', children: [{ id: 'mc:1', nodeType: 'mc', children: [
          { id: 'cb:u1', nodeType: 'cb', role: 'user', offset: 0, ttl: 1 },
          { id: 'cb:a1', nodeType: 'cb', role: 'assistant', offset: 1, ttl: 0 }] }] },
        { id: 'mt:2', nodeType: 'mt', children: [{ id: 'mc:2', nodeType: 'mc', children: [
          { id: 'cb:u2', nodeType: 'cb', role: 'user', offset: -1, ttl: 2 }] }] }] },
      { id: 'ah', nodeType: '^ah', children: [] }],
  },
};

describe('ctxql lsp', { skip: found.ok ? false : `no ctxql executable: ${found.ok ? '' : found.message}` }, () => {
  it('answers ctxql.run and pushes ctxql/preview in the shape the panel renders', async () => {
    assert.ok(found.ok);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctxql-e2e-'));
    fs.writeFileSync(path.join(dir, 'history.json'), JSON.stringify(sample));
    const file = path.join(dir, 'q.pact');
    const text = "// pact: v1\n^seq .mt .cb[role='user']\n";
    fs.writeFileSync(file, text);
    const uri = pathToFileURL(file).toString();
    const opts = serverOptions(found.command, [], dir);
    const proc = spawn(opts.command, opts.args ?? [], { cwd: dir, stdio: ['pipe', 'pipe', 'ignore'] });
    const conn = createMessageConnection(new StreamMessageReader(proc.stdout), new StreamMessageWriter(proc.stdin));
    const settings = serverSettings({ path: found.command, data: { '*.pact': './history.json' }, diagnosticsDelay: 0 }, dir);
    const configRequests: unknown[] = [];
    conn.onRequest('workspace/configuration', (params: unknown) => {
      configRequests.push(params);
      return [settings];
    });
    conn.onRequest('client/registerCapability', () => null);
    conn.onRequest('workspace/codeLens/refresh', () => null);
    conn.onRequest('workspace/inlayHint/refresh', () => null);
    conn.onRequest('workspace/semanticTokens/refresh', () => null);
    const previews: QueryResult[] = [];
    conn.onNotification('ctxql/preview', (p: QueryResult) => {
      previews.push(p);
    });
    conn.onNotification(() => undefined);
    conn.listen();
    try {
      const init = await conn.sendRequest<{ capabilities: Record<string, unknown> }>('initialize', {
        processId: process.pid,
        rootUri: pathToFileURL(dir).toString(),
        capabilities: { workspace: { configuration: true } },
        initializationOptions: settings,
      });
      assert.deepEqual((init.capabilities.executeCommandProvider as { commands: string[] }).commands, ['ctxql.run', 'ctxql.why', 'ctxql.explain', 'ctxql.test', 'ctxql.setData']);
      await conn.sendNotification('initialized', {});
      await conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'pact', version: 1, text } });
      const range = { start: { line: 1, character: 0 }, end: { line: 1, character: 0 } };
      const res = await conn.sendRequest<QueryResult>('workspace/executeCommand', { command: 'ctxql.run', arguments: [uri, range] });
      assert.equal(res.uri, uri);
      assert.equal(res.count, 2);
      assert.equal(res.error, undefined);
      assert.equal(typeof res.elapsed_ms, 'number');
      assert.deepEqual(res.range?.start, { line: 1, character: 0 });
      const html = renderBody(res, { source: 'run' });
      assert.match(html, /<span class="count">2 results<\/span>/);
      assert.match(html, /cb:u1/);
      assert.match(html, /cb:u2/);
      assert.doesNotMatch(html, /cb:a1/);
      for (let i = 0; i < 100 && previews.length === 0; i++) {
        await new Promise((r) => setTimeout(r, 20));
      }
      assert.ok(previews.length > 0, 'no ctxql/preview notification');
      assert.equal(previews[0].count, 2);
      assert.match(renderBody(previews[0], { source: 'preview' }), /<span class="count">2 results<\/span>/);
      // A run that cannot happen is answered with a result that says why
      // (and a shown message), not with a failed request.
      const bad = await conn.sendRequest<QueryResult>('workspace/executeCommand', { command: 'ctxql.run', arguments: [uri + '.missing', range] });
      assert.match(bad.error ?? '', /not open/);
      assert.match(renderBody(bad, { source: 'run' }), /<div class="error" role="alert">[^<]*not open/);
      // The requests of ctxql.fixAll and ctxql.migrate find their actions.
      type Action = { title: string; kind?: string; edit?: { changes?: Record<string, { newText: string }[]>; documentChanges?: { textDocument: { uri: string } }[] } };
      const editsFor = (a: Action | undefined, u: string) =>
        !!a?.edit && (!!a.edit.changes?.[u]?.length || !!a.edit.documentChanges?.some((d) => d.textDocument.uri === u));
      const legacy = pathToFileURL(path.join(dir, 'legacy.pact')).toString();
      const legacyText = '.block:summary\n(d1, seg, cont[offset=0])\n';
      await conn.sendNotification('textDocument/didOpen', { textDocument: { uri: legacy, languageId: 'pact', version: 1, text: legacyText } });
      const fixes = await conn.sendRequest<Action[]>('textDocument/codeAction', sourceActionParams(legacy, { line: 2, character: 0 }, 'source.fixAll'));
      const fixAll = pickSourceAction(fixes, 'source.fixAll');
      assert.ok(editsFor(fixAll, legacy), `no fix-all action with edits in ${JSON.stringify(fixes)}`);
      const v1 = pathToFileURL(path.join(dir, 'v1.pact')).toString();
      await conn.sendNotification('textDocument/didOpen', { textDocument: { uri: v1, languageId: 'pact', version: 1, text: '// pact: v1\n.cb:summary\n#cb:u2\n' } });
      const migrations = await conn.sendRequest<Action[]>('textDocument/codeAction', sourceActionParams(v1, { line: 3, character: 0 }, 'source.migrate'));
      const migrate = pickSourceAction(migrations, 'source.migrate');
      assert.ok(editsFor(migrate, v1), `no migrate action with edits in ${JSON.stringify(migrations)}`);
      await conn.sendRequest('shutdown');
      await conn.sendNotification('exit');
    } finally {
      conn.dispose();
      proc.kill();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
