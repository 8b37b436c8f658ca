import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { explicitSettings, isDataCandidate, logLine, ruleDocPath, ruleOfDocPath } from '../src/client';

describe('data candidates', () => {
  it('offers data files, not query files or metadata', () => {
    assert.ok(isDataCandidate('history.json'));
    assert.ok(isDataCandidate('samples/acts.jsonl'));
    assert.ok(isDataCandidate('samples/db.yaml'));
    assert.ok(!isDataCandidate('q.jql.json'));
    assert.ok(!isDataCandidate('q.jql.yaml'));
    assert.ok(!isDataCandidate('.ctxql.yaml'));
    assert.ok(!isDataCandidate('package.json'));
    assert.ok(!isDataCandidate('.vscode/settings.json'));
    assert.ok(!isDataCandidate('a/node_modules/x/data.json'));
  });
});

describe('logLine', () => {
  it('logs a normal exit as info', () => {
    assert.equal(logLine('[Error - 10:00:01 AM] Server process exited with code 0.'), '[Info - 10:00:01 AM] Server process exited normally.');
  });
  it('keeps real failures as errors', () => {
    assert.equal(logLine('[Error - 10:00:01 AM] Server process exited with code 2.'), '[Error - 10:00:01 AM] Server process exited with code 2.');
    assert.equal(logLine('[Error - 10:00:01 AM] Server process exited with code 0 and more'), '[Error - 10:00:01 AM] Server process exited with code 0 and more');
  });
});

describe('rule documents', () => {
  it('round-trips a rule code through the document path', () => {
    assert.equal(ruleDocPath('PACT001'), '/PACT001.md');
    assert.equal(ruleOfDocPath(ruleDocPath('DL002')), 'DL002');
    assert.equal(ruleDocPath('../x y'), '/.._x_y.md');
  });
});

describe('explicitSettings', () => {
  it('sends only the values the user set, nested by key, folder over workspace over user', () => {
    const values: Record<string, { globalValue?: unknown; workspaceValue?: unknown; workspaceFolderValue?: unknown }> = {
      'dialect.default': { globalValue: 'v1', workspaceValue: 'v2' },
      'dialect.files': {},
      'rules.select': { globalValue: ['PACT'] },
      'rules.ignore': { workspaceFolderValue: ['PACT001'], workspaceValue: ['X'] },
      runTimeout: undefined as never,
      'per-file-ignores': { workspaceValue: { 'legacy/*.pact': ['PACT'] } },
    };
    assert.deepEqual(
      explicitSettings(Object.keys(values), (k) => values[k]),
      {
        dialect: { default: 'v2' },
        rules: { select: ['PACT'], ignore: ['PACT001'] },
        'per-file-ignores': { 'legacy/*.pact': ['PACT'] },
      },
    );
  });
});
