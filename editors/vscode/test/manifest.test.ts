// Consistency of package.json with the files it points at and with the code.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { LANGUAGES } from '../src/client';

const root = path.join(__dirname, '..', '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const c = pkg.contributes;

describe('package.json', () => {
  it('contributes every server language with extensions, a grammar, a configuration and snippets', () => {
    const ids = c.languages.map((l: { id: string }) => l.id);
    assert.deepEqual([...ids].sort(), [...LANGUAGES].sort());
    const exts = c.languages.flatMap((l: { extensions: string[] }) => l.extensions).sort();
    assert.deepEqual(exts, ['.dl', '.jql', '.jql.json', '.jql.yaml', '.jql.yml', '.pact']);
    for (const id of ids) {
      assert.ok(c.grammars.some((g: { language?: string }) => g.language === id), `grammar for ${id}`);
      assert.ok(c.snippets.some((s: { language: string }) => s.language === id), `snippets for ${id}`);
    }
  });

  it('points only at files that exist and parse, with scope names matching the grammars', () => {
    for (const l of c.languages) {
      const conf = JSON.parse(fs.readFileSync(path.join(root, l.configuration), 'utf8'));
      assert.ok(conf.comments && (conf.comments.lineComment || conf.comments.blockComment), l.id);
      assert.ok(conf.brackets.length > 0 && conf.autoClosingPairs.some((p: { open: string }) => p.open === '"'), l.id);
    }
    for (const g of c.grammars) {
      const grammar = JSON.parse(fs.readFileSync(path.join(root, g.path), 'utf8'));
      assert.equal(grammar.scopeName, g.scopeName);
    }
    for (const s of c.snippets) {
      const snippets = JSON.parse(fs.readFileSync(path.join(root, s.path), 'utf8'));
      for (const [name, sn] of Object.entries(snippets as Record<string, { prefix: string; body: string[] }>)) {
        assert.ok(sn.prefix && Array.isArray(sn.body) && sn.body.length > 0, `${s.path}: ${name}`);
      }
    }
  });

  it('injects PACT into TypeScript and JavaScript', () => {
    const inj = c.grammars.find((g: { scopeName: string }) => g.scopeName === 'pact.injection');
    assert.deepEqual(inj.injectTo, ['source.ts', 'source.tsx', 'source.js', 'source.js.jsx']);
  });

  it('has a handler for every contributed command', () => {
    const src = fs.readFileSync(path.join(root, 'src', 'extension.ts'), 'utf8');
    const cmds = c.commands.map((x: { command: string }) => x.command);
    for (const want of ['ctxql.run', 'ctxql.fixAll', 'ctxql.format', 'ctxql.migrate', 'ctxql.showRuleDoc']) {
      assert.ok(cmds.includes(want), want);
    }
    for (const cmd of cmds) {
      // ctxql.run is the server's command (registered by the language client),
      // completed by the executeCommand middleware and backed by a fallback.
      const pattern = cmd === 'ctxql.run' ? /command !== 'ctxql\.run'[\s\S]*registerCommand\('ctxql\.run'/ : new RegExp(`registerCommand\\('${cmd.replace('.', '\\.')}'`);
      assert.match(src, pattern, cmd);
    }
  });

  it('has settings mirroring .ctxql.yaml', () => {
    const props = Object.keys(c.configuration.properties);
    for (const k of ['ctxql.path', 'ctxql.dialect.default', 'ctxql.dialect.files', 'ctxql.data', 'ctxql.rules.select',
      'ctxql.rules.ignore', 'ctxql.rules.severity', 'ctxql.embedded.calls', 'ctxql.embedded.extensions']) {
      assert.ok(props.includes(k), k);
    }
    assert.deepEqual(c.configuration.properties['ctxql.dialect.default'].enum, ['v1', 'v2']);
  });

  it('has a setting for every key .ctxql.yaml accepts', () => {
    // The keys the configuration parser knows, from its source.
    const parser = fs.readFileSync(path.join(root, '..', '..', 'config', 'parse.go'), 'utf8');
    const keys = new Set<string>();
    for (const m of parser.matchAll(/case ((?:"[a-z.*-]+",?\s*)+):/g)) {
      for (const k of m[1].matchAll(/"([a-z.*-]+)"/g)) {
        keys.add(k[1].replace(/\.\*$/, ''));
      }
    }
    assert.ok(keys.has('rules.select') && keys.has('dialect.default'), [...keys].join(' '));
    const props = Object.keys(c.configuration.properties);
    for (const k of keys) {
      assert.ok(props.includes('ctxql.' + k), `.ctxql.yaml key ${k} has no ctxql.${k} setting`);
    }
  });

  it('has what vsce needs', () => {
    assert.ok(pkg.publisher && pkg.repository?.url && pkg.license && pkg.engines?.vscode);
    assert.ok(fs.existsSync(path.join(root, 'LICENSE')));
    // The extension ships as one esbuild bundle of src/extension.ts (with
    // vscode-languageclient): the .vsix leaves node_modules and out/ out.
    assert.equal(pkg.main, './dist/extension.js');
    assert.match(pkg.scripts?.bundle ?? '', /esbuild src\/extension\.ts --bundle .*--external:vscode .*--outfile=dist\/extension\.js/);
    assert.match(pkg.scripts?.['vscode:prepublish'] ?? '', /npm run bundle/);
    const ignore = fs.readFileSync(path.join(root, '.vscodeignore'), 'utf8').split('\n');
    assert.ok(ignore.includes('node_modules/**') && ignore.includes('out/**'), `.vscodeignore: ${ignore.join(' ')}`);
  });
});
