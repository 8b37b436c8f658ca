import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { columns, escapeHtml, fileName, formatElapsed, isTabular, QueryResult, renderBody, renderResults, renderTree } from '../src/render';

const range = { start: { line: 2, character: 0 }, end: { line: 2, character: 25 } };

function result(over: Partial<QueryResult>): QueryResult {
  return { uri: 'file:///w/q.pact', range, count: 0, results: [], elapsed_ms: 1.5, ...over };
}

describe('renderResults', () => {
  it('renders an array of objects as a table with the union of the keys as columns', () => {
    const html = renderBody(
      result({ count: 2, results: [{ id: 'cb:u1', ttl: 1 }, { id: 'cb:u2', role: 'user' }] }),
    );
    assert.match(html, /<table class="results">/);
    assert.doesNotMatch(html, /class="tree"/);
    assert.match(html, /<th class="index">#<\/th><th>id<\/th><th>ttl<\/th><th>role<\/th>/);
    assert.match(html, /<tr><td class="index">1<\/td><td class="string">cb:u1<\/td><td class="number">1<\/td><td class="missing"><\/td><\/tr>/);
    assert.match(html, /<tr><td class="index">2<\/td><td class="string">cb:u2<\/td><td class="missing"><\/td><td class="string">user<\/td><\/tr>/);
  });

  it('renders nested values of a table cell as compact JSON', () => {
    const html = renderBody(result({ count: 1, results: [{ id: 'a', plan: { steps: [{ title: 'x' }] } }] }));
    assert.match(html, /<td class="json"><code>\{&quot;steps&quot;:\[\{&quot;title&quot;:&quot;x&quot;\}\]\}<\/code><\/td>/);
  });

  it('renders scalars and mixed arrays as a JSON tree', () => {
    const html = renderBody(result({ count: 3, results: ['cb:a1', 'cb:u2', { id: 'x' }] }));
    assert.doesNotMatch(html, /<table/);
    assert.match(html, /<div class="tree"><details class="node" open><summary><span class="kind">array \[3\]<\/span><\/summary>/);
    assert.match(html, /<span class="key">0<\/span>: <span class="string">&quot;cb:a1&quot;<\/span>/);
    assert.match(html, /<span class="key">2<\/span>: <span class="kind">object \{1\}<\/span>/);
  });

  it('renders a range diff object (a single non-array result) as a tree', () => {
    const diff = { query: '@t-1..@t0 .cb', mode: 'pairwise', diffs: [{ added_ids: ['cb:1'], removed_ids: [] }] };
    const html = renderBody(result({ count: 1, results: [diff] }));
    // a one-element array of objects is tabular; nested values become JSON cells
    assert.match(html, /<th>query<\/th><th>mode<\/th><th>diffs<\/th>/);
    const tree = renderTree(diff, 1);
    assert.match(tree, /^<details class="node" open><summary><span class="kind">object \{3\}<\/span><\/summary>/);
    assert.match(tree, /<details class="node"><summary><span class="key">diffs<\/span>: <span class="kind">array \[1\]/);
    assert.match(tree, /<span class="key">removed_ids<\/span>: <span class="empty">\[\]<\/span>/);
  });

  it('escapes HTML in keys, values, errors and the file name', () => {
    const evil = '<script>alert("x")</script>';
    const html = renderResults(
      result({ uri: 'file:///w/%3Cb%3E.pact', count: 1, results: [{ [evil]: evil, "a'b": '&' }] }),
    );
    assert.doesNotMatch(html, /<script>/);
    assert.match(html, /<th>&lt;script&gt;alert\(&quot;x&quot;\)&lt;\/script&gt;<\/th>/);
    assert.match(html, /<th>a&#39;b<\/th>/);
    assert.match(html, /<td class="string">&amp;<\/td>/);
    assert.match(html, /<span class="file" title="file:\/\/\/w\/%3Cb%3E.pact">&lt;b&gt;.pact:3<\/span>/);
    const err = renderBody(result({ error: 'bad <token> & "quote"' }));
    assert.match(err, /<div class="error" role="alert">bad &lt;token&gt; &amp; &quot;quote&quot;<\/div>/);
    const tree = renderTree(['</details><img src=x onerror=alert(1)>']);
    assert.doesNotMatch(tree, /<img/);
  });

  it('shows an error instead of results', () => {
    const html = renderBody(result({ error: 'eval: timeout after 2s', results: [{ id: 'stale' }], count: 0 }));
    assert.match(html, /<div class="error" role="alert">eval: timeout after 2s<\/div>/);
    assert.doesNotMatch(html, /stale/);
    assert.doesNotMatch(html, /<table/);
  });

  it('shows the count, the timing, the location and the source', () => {
    const html = renderBody(result({ count: 120, results: Array.from({ length: 50 }, (_, i) => ({ i })), elapsed_ms: 3.25 }), {
      source: 'preview',
    });
    assert.match(html, /<span class="file" title="file:\/\/\/w\/q.pact">q.pact:3<\/span>/);
    assert.match(html, /<span class="count">120 results<\/span>/);
    assert.match(html, /<span class="shown">showing the first 50<\/span>/);
    assert.match(html, /<span class="elapsed">3.25 ms<\/span>/);
    assert.match(html, /<span class="source">live preview<\/span>/);
    const one = renderBody(result({ count: 1, results: ['x'], elapsed_ms: 0.042 }), { source: 'run' });
    assert.match(one, /<span class="count">1 result<\/span>/);
    assert.doesNotMatch(one, /showing the first/);
    assert.match(one, /<span class="elapsed">42 µs<\/span>/);
    assert.match(one, /<span class="source">run<\/span>/);
  });

  it('says so when there are no results, and before the first result', () => {
    assert.match(renderBody(result({ count: 0, results: [] })), /<p class="empty-result">No results.<\/p>/);
    assert.match(renderBody(result({ count: 0, results: null })), /No results/);
    assert.match(renderBody(undefined), /Run a query/);
  });

  it('produces a full page with a restrictive content security policy and no scripts', () => {
    const html = renderResults(result({ count: 1, results: [1] }), { cspSource: 'vscode-webview://abc' });
    assert.match(html, /^<!DOCTYPE html>/);
    assert.match(html, /content="default-src &#39;none&#39;; style-src &#39;unsafe-inline&#39; vscode-webview:\/\/abc"/);
    assert.doesNotMatch(html, /<script/);
    assert.equal(renderResults(result({ count: 1, results: [1] })), renderResults(result({ count: 1, results: [1] })));
  });
});

describe('render helpers', () => {
  it('escapeHtml escapes the five special characters', () => {
    assert.equal(escapeHtml(`<a href="x">'&'</a>`), '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });
  it('isTabular needs a non-empty array of plain objects', () => {
    assert.equal(isTabular([{ a: 1 }, { b: 2 }]), true);
    assert.equal(isTabular([]), false);
    assert.equal(isTabular([{ a: 1 }, [1]]), false);
    assert.equal(isTabular([{ a: 1 }, null]), false);
    assert.equal(isTabular(null), false);
  });
  it('columns keeps the order of first appearance', () => {
    assert.deepEqual(columns([{ b: 1, a: 2 }, { c: 3, a: 4 }]), ['b', 'a', 'c']);
  });
  it('formatElapsed picks a unit', () => {
    assert.equal(formatElapsed(0.5), '500 µs');
    assert.equal(formatElapsed(12.345), '12.3 ms');
    assert.equal(formatElapsed(2500), '2.50 s');
    assert.equal(formatElapsed(NaN), '');
  });
  it('fileName decodes the last segment', () => {
    assert.equal(fileName('file:///w/my%20q.jql.yaml'), 'my q.jql.yaml');
    assert.equal(fileName('untitled:Untitled-1'), 'untitled:Untitled-1');
  });
});

describe('result tables', () => {
  it('renders PACT node summaries with id, nodeType, depth, role and kind first and the content last', () => {
    const html = renderBody(
      result({
        count: 2,
        results: [
          { content: 'Hello there', id: 'cb:u1', nodeType: 'cb', depth: 3, role: 'user' },
          { content: 'Done.', id: 'cb:a1', nodeType: 'cb', depth: 3, role: 'assistant', kind: 'text' },
        ],
      }),
    );
    assert.match(html, /<th class="index">#<\/th><th>id<\/th><th>nodeType<\/th><th>depth<\/th><th>role<\/th><th>kind<\/th><th>content<\/th>/);
    assert.match(html, /<td class="string">cb:a1<\/td><td class="string">cb<\/td><td class="number">3<\/td><td class="string">assistant<\/td><td class="string">text<\/td><td class="string">Done.<\/td>/);
  });

  it('renders Datalog tuples under the relation columns with their types', () => {
    const html = renderBody(
      result({
        uri: 'file:///w/p.dl',
        count: 2,
        relation: 'path',
        columns: [{ name: 'from', type: 'String' }, { name: 'to', type: 'String' }],
        results: [['a', 'b'], ['a', 'c']],
      }),
    );
    assert.match(html, /<span class="relation">path<\/span>/);
    assert.match(html, /<th>from <span class="type">String<\/span><\/th><th>to <span class="type">String<\/span><\/th>/);
    assert.match(html, /<tr><td class="index">2<\/td><td class="string">a<\/td><td class="string">c<\/td><\/tr>/);
  });

  it('numbers the columns of tuples whose relation is unknown', () => {
    const html = renderBody(result({ uri: 'file:///w/p.dl', count: 1, results: [[1, 'x']] }));
    assert.match(html, /<th>#1<\/th><th>#2<\/th>/);
    assert.match(html, /<td class="number">1<\/td><td class="string">x<\/td>/);
  });

  it('renders bare PACT ids as a one-column table', () => {
    const html = renderBody(result({ count: 2, results: ['cb:a1', 'cb:u2'] }));
    assert.match(html, /<th>id<\/th>/);
    assert.match(html, /<tr><td class="index">2<\/td><td class="string">cb:u2<\/td><\/tr>/);
  });

  it('names the document and the no-data path when there is no result yet', () => {
    const html = renderBody(undefined, { emptyFor: 'file:///w/q.pact' });
    assert.match(html, /q\.pact<\/span>: no results yet/);
    assert.match(html, /choose sample data/);
  });

  it('renders the node summaries the server sends beside the ids', () => {
    const html = renderBody(
      result({
        count: 3,
        results: ['cb:u1', 'cb:u2', 'cb:u3'],
        nodes: [
          { id: 'cb:u1', nodeType: 'cb', depth: 4, role: 'user', preview: 'hello' },
          { id: 'cb:u2', nodeType: 'cb', depth: 4, role: 'user', kind: 'text', preview: 'there' },
        ],
      }),
    );
    assert.match(html, /<th>id<\/th><th>nodeType<\/th><th>depth<\/th><th>role<\/th><th>kind<\/th><th>preview<\/th>/);
    assert.match(html, /<td class="string">cb:u2<\/td><td class="string">cb<\/td><td class="number">4<\/td><td class="string">user<\/td><td class="string">text<\/td><td class="string">there<\/td>/);
    assert.match(html, /3 results<\/span>\n<span class="shown">showing the first 2<\/span>/);
  });
});
