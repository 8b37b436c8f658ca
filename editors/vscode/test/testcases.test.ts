import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { caseSites, failureOf, isTestFile, parseReport, quoteRegexp, testArgs } from '../src/testcases';

describe('caseSites', () => {
  it('lists the named items of the tests list where they start', () => {
    const text = [
      '# tests for blocks.pact',
      'data: ../data/tree.json',
      'tests:',
      '  - name: short-lived blocks   # a comment',
      '    line: 2',
      '    want: [cb:a1]',
      '',
      '  - line: 3',
      '    name: "every block: of the first turn"',
      '    includes: [{name: not a case}]',
      "  -   name: 'it''s inline'",
      '      query: ".cb"',
      'file: blocks.pact',
      '  - name: not in tests',
    ].join('\n');
    assert.deepEqual(caseSites(text), [
      { name: 'short-lived blocks', line: 3, character: 2 },
      { name: 'every block: of the first turn', line: 7, character: 2 },
      { name: "it's inline", line: 10, character: 2 },
    ]);
  });
  it('reads lists that are not indented', () => {
    assert.deepEqual(caseSites('tests:\n- name: a\n  count: 1\n- name: b\n  count: 2\n'), [
      { name: 'a', line: 1, character: 0 },
      { name: 'b', line: 3, character: 0 },
    ]);
  });
});

describe('testArgs', () => {
  it('runs every case, or the named ones exactly', () => {
    assert.deepEqual(testArgs('/w/a.ctxqltest.yaml', []), ['test', '--format', 'json', '/w/a.ctxqltest.yaml']);
    assert.deepEqual(testArgs('a.ctxqltest.yaml', ['x (1)', 'y.z']), ['test', '--format', 'json', '--run', '^(?:x \\(1\\)|y\\.z)$', 'a.ctxqltest.yaml']);
    assert.equal(quoteRegexp('a+b*[c]^$|{d}?\\'), 'a\\+b\\*\\[c\\]\\^\\$\\|\\{d\\}\\?\\\\');
  });
  it('recognises test files by name', () => {
    assert.ok(isTestFile('/w/q/blocks.ctxqltest.yaml'));
    assert.ok(isTestFile('C:\\w\\b.CTXQLTEST.YML'));
    assert.ok(!isTestFile('/w/.ctxqltest.yaml'));
    assert.ok(!isTestFile('/w/blocks.yaml'));
  });
});

describe('parseReport and failureOf', () => {
  const report = JSON.stringify({
    passed: 1,
    failed: 1,
    errors: 0,
    results: [
      { file: 'a.ctxqltest.yaml', line: 4, column: 5, name: 'ok', status: 'pass', messages: [], added: [], removed: [], seconds: 0.001 },
      {
        file: 'a.ctxqltest.yaml',
        line: 7,
        column: 5,
        name: 'bad',
        status: 'fail',
        query: { file: 'a.pact', line: 3, column: 1 },
        messages: ['results differ from want: 1 unexpected, 1 missing (want 1, got 1)'],
        added: ['cb:a1', { id: 7 }],
        removed: ['cb:u1'],
        seconds: 0.002,
      },
    ],
  });
  it('reads the results and says what failed, with both sides of the difference', () => {
    const rs = parseReport(report);
    assert.equal(rs?.length, 2);
    assert.deepEqual(failureOf(rs![1]), {
      message: 'results differ from want: 1 unexpected, 1 missing (want 1, got 1)\nquery: a.pact:3:1\n+ cb:a1\n+ {"id":7}\n- cb:u1',
      expected: 'cb:u1',
      actual: 'cb:a1\n{"id":7}',
    });
  });
  it('has no difference for a count', () => {
    const f = failureOf({ file: 'a', line: 1, column: 1, name: 'n', status: 'fail', messages: ['count: want 2 result(s), got 3'], added: [], removed: [], seconds: 0 });
    assert.deepEqual(f, { message: 'count: want 2 result(s), got 3' });
  });
  it('refuses what is not a report', () => {
    assert.equal(parseReport('--- FAIL: x'), undefined);
    assert.equal(parseReport('{"passed": 1}'), undefined);
  });
});
