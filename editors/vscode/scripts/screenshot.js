#!/usr/bin/env node
// Renders the Query Results panel for a sample result with the extension's
// own renderer and photographs it with headless Chromium:
//   node scripts/screenshot.js [output.png]     (default: ../../docs/vscode-results.png)
// Needs a compiled extension (npm run compile) and chromium on PATH (or
// CHROMIUM=/path/to/chromium).
'use strict';
const { execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { renderResults } = require('../out/src/render');

const out = path.resolve(process.argv[2] || path.join(__dirname, '..', '..', '..', 'docs', 'vscode-results.png'));

// The result of `^seq .mt .cb[role='user']` over a small conversation, as
// the server reports it in a ctxql/preview notification.
const sample = {
  uri: 'file:///workspace/queries/turns.pact',
  range: { start: { line: 2, character: 0 }, end: { line: 2, character: 25 } },
  count: 4,
  results: [
    { id: 'cb:u1', nodeType: 'cb', role: 'user', offset: 0, ttl: 1, status: 'open' },
    { id: 'cb:u2', nodeType: 'cb', role: 'user', offset: -1, ttl: 2 },
    { id: 'cb:u3', nodeType: 'cb', role: 'user', offset: 0, ttl: 0, tags: ['audit', 'pinned'] },
    { id: 'cb:u4', nodeType: 'cb:summary', role: 'user', offset: 1, ttl: null },
  ],
  elapsed_ms: 0.84,
};

// Dark theme values as VS Code injects them into webviews.
const theme = `<style>:root{--vscode-font-family:system-ui,sans-serif;--vscode-font-size:13px;
--vscode-foreground:#cccccc;--vscode-editor-background:#1e1e1e;--vscode-panel-border:#3c3c3c;
--vscode-descriptionForeground:#9d9d9d;--vscode-editorWidget-background:#252526;
--vscode-debugTokenExpression-number:#b5cea8;--vscode-debugTokenExpression-string:#ce9178;
--vscode-debugTokenExpression-boolean:#569cd6;--vscode-debugTokenExpression-name:#9cdcfe;
--vscode-editor-font-family:"DejaVu Sans Mono",monospace}</style>`;

function chromium() {
  if (process.env.CHROMIUM) {
    return process.env.CHROMIUM;
  }
  for (const name of ['chromium', 'chromium-browser', 'google-chrome']) {
    for (const dir of (process.env.PATH || '').split(path.delimiter)) {
      const p = path.join(dir, name);
      if (dir && fs.existsSync(p)) {
        return p;
      }
    }
  }
  throw new Error('no chromium on PATH (apt-get install -y chromium, or set CHROMIUM)');
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ctxql-shot-'));
try {
  const html = renderResults(sample, { source: 'preview' }).replace('</head>', `${theme}</head>`);
  const page = path.join(tmp, 'results.html');
  fs.writeFileSync(page, html);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  execFileSync(
    chromium(),
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--hide-scrollbars',
      `--user-data-dir=${path.join(tmp, 'profile')}`,
      `--screenshot=${out}`,
      '--window-size=760,220',
      `file://${page}`,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], timeout: 60000 },
  );
  const png = fs.readFileSync(out);
  if (png.length < 1000 || png.readUInt32BE(0) !== 0x89504e47) {
    throw new Error(`${out} is not a PNG image`);
  }
  console.log(`wrote ${out} (${png.length} bytes)`);
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
