// End-to-end test of the ctxql VS Code extension in a real VS Code: the
// freshly built .vsix is installed into code-server, a workspace is opened
// in headless Chromium through puppeteer-core, and the test looks at what a
// user sees: problems, hovers, code lenses, the Query Results panel, the Testing view, quick
// fixes, formatting, the findings of a Markdown file, folding and workspace
// symbols. Everything listens on the loopback interface only.
//
// Run by run.sh, which installs code-server and builds the server and the
// extension; the environment names them:
//   CTXQL_BIN      the ctxql executable, for the test's own runs of it
//   CTXQL_VSIX     the extension packaged for this platform, with that same
//                  executable inside: the extension runs it, with no
//                  ctxql.path setting and no ctxql on PATH
//   CODE_SERVER    the code-server launcher
//   CHROMIUM       the browser
//   CTXQL_SHOTS    a directory for screenshots (kept for a person to look at)
//   CTXQL_DOCS_SHOT  when set, the path the README's screenshot is written to
import { strict as assert } from 'node:assert';
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import puppeteer from 'puppeteer-core';

const env = (k) => {
  const v = process.env[k];
  if (!v) {
    throw new Error(`${k} is not set: run editors/e2e/run.sh`);
  }
  return v;
};

const BIN = env('CTXQL_BIN');
const VSIX = env('CTXQL_VSIX');
const CODE_SERVER = env('CODE_SERVER');
const CHROMIUM = env('CHROMIUM');
const SHOTS = process.env.CTXQL_SHOTS || fs.mkdtempSync(path.join(os.tmpdir(), 'ctxql-shots-'));
fs.mkdirSync(SHOTS, { recursive: true });

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ctxql-e2e-'));
const ws = path.join(root, 'workspace');

// The workspace a user opens: queries with and without sample data, a
// file with a legacy token, an unformatted file and a Datalog program.
const files = {
  'history.json': JSON.stringify({
    root: {
      id: 'root',
      children: [
        {
          id: 'seq',
          nodeType: '^seq',
          children: [
            {
              id: 'mt:1',
              nodeType: 'mt',
              children: [
                { id: 'cb:u1', nodeType: 'cb', role: 'user', ttl: 3, content: 'Summarise the incident report for the on-call channel.' },
                { id: 'cb:a1', nodeType: 'cb', role: 'assistant', ttl: 2, content: 'The database failover took 41 s; no data was lost.' },
                { id: 'cb:u2', nodeType: 'cb', role: 'user', ttl: 1, content: 'Which alerts fired first?' },
                { id: 'cb:s1', nodeType: 'cb:summary', role: 'system', ttl: 9, content: 'Earlier turns: deployment of v2.3.' },
              ],
            },
          ],
        },
      ],
    },
  }),
  'graph.json': JSON.stringify({
    relations: {
      edge: { param_types: ['Node', 'Node'], tuples: [['a', 'b'], ['b', 'c'], ['c', 'd']] },
    },
  }),
  'turns.pact': "// pact: v2\n// data: ./history.json\n^seq .mt .cb[role='user']\n.cb[ttl<=2]\n",
  'nodata.pact': "// pact: v2\n.cb[role='assistant']\n",
  'legacy.pact': '// pact: v2\n// data: ./history.json\n.mt .cb:summary\n',
  'messy.pact': "// pact: v2\n.cb[ role = 'user' ,ttl<=2 ]\n",
  'paths.dl': '// data: ./graph.json\nrelation edge(Node, Node);\npath(x, y) <-- edge(x, y);\npath(x, z) <-- edge(x, y), path(y, z);\n',
  'plain.pact': '.mt .cb:summary\n',
  'activities.json': JSON.stringify([
    { id: 'a1', type: 'planGenerated', plan: { steps: [{ title: 'x' }] } },
    { id: 'a2', type: 'agentMessaged' },
    { id: 'a3', type: 'planGenerated' },
  ]),
  'recent.jql': "// data: ./activities.json\n{from: 'activities', select: ['id', 'type'], where: {type: 'planGenerated'}}\n",
  'tested.pact': "// pact: v2\n^seq .mt .cb[role='user']\n.cb[ttl<=2]\n",
  'tested.ctxqltest.yaml':
    'data: history.json\nfile: tested.pact\ntests:\n' +
    '  - name: user blocks\n    line: 2\n    want: [cb:u1, cb:u2]\n' +
    '  - name: short-lived blocks\n    line: 3\n    want: [cb:a1]\n',
  // The same cases for the server's lenses, in a file of their own: the
  // second fails (the query also returns cb:u2).
  'lensed.ctxqltest.yaml':
    'data: history.json\nfile: tested.pact\ntests:\n' +
    '  - name: user blocks\n    line: 2\n    want: [cb:u1, cb:u2]\n' +
    '  - name: short-lived blocks\n    line: 3\n    want: [cb:a1]\n',
  // Documentation checked by the Markdown rules: DOC001 on the heading
  // that compares with CSS.
  'guide.md': '# Selector guide\n\n## CSS-like selectors\n\nChains of steps select blocks.\n',
  // A program no test opens before the workspace symbols are searched,
  // with a leading comment block and a rule over several lines that are
  // not indented: VS Code's own folding (by indentation and block
  // comments) folds neither.
  'reach.dl': '// Reachability over the hops.\n// Each hop is one edge.\nrelation hop(Node, Node);\nreachable(x, z) <--\nhop(x, y),\nhop(y, z);\n',
  'agent.ts': 'declare const ctx: { select(q: string): unknown };\nexport const summaries = ctx.select(".block:summary");\n',
  // No ctxql.path: the extension runs the server bundled in the
  // platform-specific package, and ctxql is not on PATH (see before()).
  '.vscode/settings.json': JSON.stringify({}, null, 2),
};

let server;
let userData;
let extDir;
let browser;
let page;
let port;
let serverLog = '';

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const p = s.address().port;
      s.close(() => resolve(p));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Polls f until it returns a truthy value; fails with what after timeout. */
async function until(what, f, timeout = 60000) {
  const deadline = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      last = await f();
      if (last) {
        return last;
      }
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) {
      await shot(`timeout-${what.replace(/[^a-z0-9]+/gi, '-')}`);
      throw new Error(`timed out waiting for ${what} (last: ${last instanceof Error ? last.message : JSON.stringify(last)})`);
    }
    await sleep(200);
  }
}

let shots = 0;

async function shot(name, clip) {
  const p = path.join(SHOTS, `${String(++shots).padStart(2, '0')}-${name}.png`);
  // captureBeyondViewport off: the webviews (out-of-process frames) are
  // left out of clipped captures otherwise.
  await page?.screenshot({ path: p, clip, captureBeyondViewport: false }).catch(() => undefined);
  return p;
}

/** The text of the visible lines of the active editor, top to bottom. */
function editorText() {
  return page.evaluate(() => {
    const ed = document.querySelector('.editor-group-container.active .editor-instance .monaco-editor');
    if (!ed) {
      return '';
    }
    const lines = [...ed.querySelectorAll('.view-lines .view-line')];
    lines.sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top));
    return lines.map((l) => l.textContent.replace(/\u00a0/g, ' ')).join('\n');
  });
}

async function runCommand(title) {
  await page.keyboard.press('Escape');
  const input = await until('the command palette', async () => {
    await page.keyboard.press('F1');
    return page.waitForSelector('.quick-input-widget input', { visible: true, timeout: 3000 }).catch(() => undefined);
  });
  await input.type(title);
  await until(`command "${title}" first`, () =>
    page.evaluate((t) => document.querySelector('.quick-input-list .monaco-list-row.focused')?.textContent.toLowerCase().includes(t.toLowerCase()), title),
  );
  await page.keyboard.press('Enter');
}

async function openFile(name) {
  // As for the command palette: close whatever has the focus, then ask for
  // quick open until it shows (a key press can land while the workbench is
  // still busy with the previous step).
  await page.keyboard.press('Escape');
  const input = await until('quick open', async () => {
    await page.keyboard.down('Control');
    await page.keyboard.press('KeyP');
    await page.keyboard.up('Control');
    return page.waitForSelector('.quick-input-widget input', { visible: true, timeout: 3000 }).catch(() => undefined);
  });
  await input.type(name);
  await until(`${name} first in quick open`, () =>
    page.evaluate((n) => document.querySelector('.quick-input-list .monaco-list-row.focused')?.textContent.includes(n), name),
  );
  await page.keyboard.press('Enter');
  await until(`${name} active`, () =>
    page.evaluate((n) => {
      const groups = [...document.querySelectorAll('.editor-group-container')].map((g) => `${g.className}: ${g.querySelector('.tab.active')?.textContent}`);
      return document.querySelector('.editor-group-container.active .tab.active')?.textContent.includes(n) || Promise.reject(new Error(groups.join(' | ')));
    }, name),
  );
  await until(`${name} text shown`, async () => (await editorText()).length > 0);
}

/** Moves the cursor to the start of the 1-based line. */
async function gotoLine(n) {
  await page.keyboard.down('Control');
  await page.keyboard.press('KeyG');
  await page.keyboard.up('Control');
  const input = await page.waitForSelector('.quick-input-widget input', { visible: true });
  await input.type(String(n));
  await page.keyboard.press('Enter');
  await sleep(200);
}

/** The code lens titles shown in the active editor. */
function lenses() {
  return page.evaluate(() => {
    const ed = document.querySelector('.editor-group-container.active .editor-instance .monaco-editor');
    return ed ? [...ed.querySelectorAll('.codelens-decoration a, .codelens-decoration span')].map((a) => a.textContent.trim()).filter(Boolean) : [];
  });
}

/** The problem counts of the status bar: [errors, warnings]. */
function problemCounts() {
  return page.evaluate(() => {
    const item = document.getElementById('status.problems');
    const label = item?.querySelector('a')?.getAttribute('aria-label') || item?.textContent || '';
    if (!item) {
      return null;
    }
    const n = (re) => Number((re.exec(label) || [0, 0])[1]);
    return [n(/Errors?: (\d+)/), n(/Warnings?: (\d+)/), label];
  });
}

/** The frame of the Query Results webview, once it shows a table or a message. */
async function resultsFrame(want) {
  return until('the Query Results panel', async () => {
    for (const f of page.frames()) {
      const ok = await f.evaluate((w) => !!document.querySelector('header .count') && document.body.textContent.includes(w), want).catch(() => false);
      if (ok) {
        return f;
      }
    }
    return undefined;
  });
}

/**
 * Opens file once its ▶ Run lenses show, runs the query on line with
 * "ctxql: Run query", and returns the table the Query Results panel shows
 * (screenshot name).
 */
async function runIntoTable(file, line, name) {
  await openFile(file);
  await until('run lenses', async () => (await lenses()).some((t) => t.includes('Run')));
  await gotoLine(line);
  await runCommand('ctxql: Run query');
  const frame = await resultsFrame(file);
  const t = await until('the results table', () => tableOf(frame));
  await shot(name);
  return t;
}

function tableOf(frame) {
  return frame.evaluate(() => {
    const t = document.querySelector('table.results');
    if (!t) {
      return null;
    }
    return {
      head: [...t.querySelectorAll('thead th')].map((th) => th.textContent.trim()),
      rows: [...t.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)),
      header: document.querySelector('header')?.textContent.replace(/\s+/g, ' ').trim(),
    };
  });
}

async function hoverText(selector) {
  const box = await until(`${selector} shown`, async () => {
    const el = await page.$(`.editor-instance .monaco-editor ${selector}`);
    return el ? el.boundingBox() : undefined;
  });
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  const text = await until('the hover', () =>
    page.evaluate(() => {
      const h = [...document.querySelectorAll('.monaco-hover')].find((e) => e.offsetParent !== null && e.textContent.trim());
      return h?.textContent;
    }),
  );
  return text;
}

/** Clicks the first code lens of the active editor whose title matches re. */
async function clickLens(re) {
  const box = await until(`a lens matching ${re}`, async () => {
    const handles = await page.$$('.editor-group-container.active .monaco-editor .codelens-decoration a');
    for (const h of handles) {
      if (re.test(await h.evaluate((a) => a.textContent))) {
        return h.boundingBox();
      }
    }
    return undefined;
  });
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
}

/**
 * Opens the quick fix menu with Ctrl+. (as a user would) until it lists an
 * action matching re (the editor may ask before every provider has the
 * finding), clicks that action and returns the listed titles.
 */
async function applyQuickFix(re) {
  let items = [];
  await until(`a quick fix matching ${re}`, async () => {
    await page.keyboard.down('Control');
    await page.keyboard.press('Period');
    await page.keyboard.up('Control');
    items = await until('the quick fix menu', () =>
      page.evaluate(() => {
        const rows = [...document.querySelectorAll('.action-widget .monaco-list-row')].map((r) => r.textContent.trim());
        return rows.length ? rows : undefined;
      }),
    5000).catch(() => []);
    if (items.some((t) => re.test(t))) {
      return true;
    }
    await page.keyboard.press('Escape');
    await sleep(1000);
    return false;
  });
  await shot('quickfix');
  const fix = items.findIndex((t) => re.test(t));
  const rows = await page.$$('.action-widget .monaco-list-row');
  await rows[fix].click();
  return items;
}

function count(haystack, needle) {
  return haystack.split(needle).length - 1;
}

before(async () => {
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(ws, name)), { recursive: true });
    fs.writeFileSync(path.join(ws, name), text);
  }
  userData = path.join(root, 'user-data');
  extDir = path.join(root, 'extensions');
  fs.mkdirSync(path.join(userData, 'User'), { recursive: true });
  fs.writeFileSync(
    path.join(userData, 'User', 'settings.json'),
    JSON.stringify({
      'workbench.startupEditor': 'none',
      'workbench.secondarySideBar.defaultVisibility': 'hidden',
      'workbench.tips.enabled': false,
      'workbench.colorTheme': 'Default Dark Modern',
      'workbench.welcomePage.walkthroughs.openOnInstall': false,
      'security.workspace.trust.enabled': false,
      'telemetry.telemetryLevel': 'off',
      'update.mode': 'none',
      'extensions.autoCheckUpdates': false,
      'extensions.autoUpdate': false,
      'extensions.ignoreRecommendations': true,
      'chat.disableAIFeatures': true,
      'editor.minimap.enabled': false,
      'editor.hover.delay': 100,
      'editor.fontFamily': "'DejaVu Sans Mono', monospace",
      'window.commandCenter': false,
      'files.autoSave': 'off',
    }),
  );
  const home = path.join(root, 'home');
  fs.mkdirSync(home);
  // ctxql is on no directory of PATH: the server the extension starts can
  // only be the one in the package.
  const pathDirs = (process.env.PATH || '').split(path.delimiter).filter((d) => d && !fs.existsSync(path.join(d, 'ctxql')));
  const childEnv = {
    ...process.env,
    PATH: pathDirs.join(path.delimiter),
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    // No marketplace: nothing leaves the machine.
    EXTENSIONS_GALLERY: JSON.stringify({ serviceUrl: 'http://127.0.0.1:9/gallery', itemUrl: 'http://127.0.0.1:9/items' }),
  };
  const common = ['--user-data-dir', userData, '--extensions-dir', extDir, '--disable-telemetry', '--disable-update-check'];
  execFileSync(CODE_SERVER, [...common, '--install-extension', VSIX], { env: childEnv, stdio: 'pipe', timeout: 120000 });
  const installed = execFileSync(CODE_SERVER, [...common, '--list-extensions', '--show-versions'], { env: childEnv, timeout: 60000 }).toString();
  assert.match(installed, /ctxql\.ctxql@/, 'the .vsix is installed');

  port = await freePort();
  server = spawn(
    CODE_SERVER,
    [
      ...common,
      '--auth', 'none',
      '--bind-addr', `127.0.0.1:${port}`,
      '--disable-workspace-trust',
      '--disable-getting-started-override',
      '--ignore-last-opened',
      ws,
    ],
    { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  server.stdout.on('data', (d) => (serverLog += d));
  server.stderr.on('data', (d) => (serverLog += d));
  await until('code-server listening', () => serverLog.includes('HTTP server listening'), 60000);

  browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      // Loopback only: every other host name fails to resolve.
      '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
      '--window-size=1400,900',
    ],
    defaultViewport: { width: 1400, height: 900 },
    userDataDir: path.join(root, 'chromium'),
  });
  page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws)}`, { waitUntil: 'domcontentloaded', timeout: 120000 });
  await until('the workbench', () => page.$('.monaco-workbench .part.editor'), 120000);
  await until('the explorer lists the workspace', () =>
    page.evaluate(() => document.querySelector('.explorer-folders-view')?.textContent.includes('turns.pact')),
  60000);
});

after(async () => {
  await browser?.close().catch(() => undefined);
  if (server?.pid) {
    try {
      process.kill(-server.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  fs.rmSync(root, { recursive: true, force: true, maxRetries: 3 });
  console.log(`screenshots in ${SHOTS}`);
});

describe('ctxql in VS Code', () => {
  it('shows each finding once: one error in the status bar, the code once in the hover', async () => {
    await openFile('legacy.pact');
    const counts = await until('one error in the status bar', async () => {
      const c = await problemCounts();
      return c && c[0] >= 1 ? c : undefined;
    });
    await sleep(1500); // a second diagnostics collection would arrive by now
    const settled = await problemCounts();
    assert.deepEqual(settled.slice(0, 2), [1, 0], `status bar problems: ${settled[2]} (first ${counts[2]})`);
    const hover = await hoverText('.squiggly-error');
    await shot('legacy-hover');
    // The finding's message once (the rule's own documentation in the
    // server's hover names the code again, so count the message).
    assert.equal(count(hover, 'legacy type sugar .cb:summary: write .summary'), 1, `the hover lists the finding once: ${hover}`);
    assert.match(hover, /PACT001/);
  });

  it('offers the quick fix of the finding and applies it', async () => {
    await page.keyboard.press('Escape');
    await gotoLine(3);
    await page.keyboard.press('End');
    await page.keyboard.press('ArrowLeft');
    const items = await applyQuickFix(/\.summary/);
    assert.ok(items.some((t) => /Suppress PACT001/.test(t)), `quick fixes: ${JSON.stringify(items)}`);
    // The step counts are inlay hints between the steps (".mt 1 → .summary"):
    // the text is fixed when the legacy sugar is gone and both steps remain.
    await until('the fixed text', async () => {
      const t = await editorText();
      return !t.includes('.cb:summary') && /\.mt.*\.summary\b/.test(t);
    });
    await until('no problems left', async () => {
      const c = await problemCounts();
      return c && c[0] === 0;
    });
  });

  it('shows ▶ Run lenses with data and runs a PACT query into a table of nodes', async () => {
    await openFile('turns.pact');
    const titles = await until('run lenses', async () => {
      const l = await lenses();
      return l.filter((t) => t.includes('Run')).length >= 2 ? l : undefined;
    });
    assert.ok(titles.some((t) => /^▶ Run/.test(t)), `lenses: ${JSON.stringify(titles)}`);
    // Click the first ▶ Run (the user turns query).
    await clickLens(/Run/);
    const frame = await resultsFrame('turns.pact');
    const t = await until('the node table', () => tableOf(frame));
    await shot('turns-results');
    assert.match(t.header, /turns\.pact:3/);
    assert.match(t.header, /2 results/);
    assert.equal(t.head[1], 'id', `columns: ${JSON.stringify(t.head)}`);
    assert.deepEqual(t.rows.map((r) => r[1]), ['cb:u1', 'cb:u2']);
    if (t.head.includes('nodeType')) {
      assert.deepEqual(t.head.slice(1, 3), ['id', 'nodeType'], `columns: ${JSON.stringify(t.head)}`);
      assert.ok(t.head.includes('content') || t.head.includes('preview'), `a content column: ${JSON.stringify(t.head)}`);
    } else {
      assert.fail(`the server sent bare ids, not node summaries: ${JSON.stringify(t)}`);
    }
    // The README's picture: the editor and the panel, without the side bar.
    await runCommand('View: Toggle Primary Side Bar Visibility');
    await page.mouse.move(700, 600);
    await sleep(1000);
    const again = await resultsFrame('turns.pact');
    await until('the node table after the relayout', () => tableOf(again));
    await sleep(1500);
    const p = await shot('readme', { x: 0, y: 30, width: 1400, height: 190 });
    if (process.env.CTXQL_DOCS_SHOT) {
      fs.copyFileSync(p, process.env.CTXQL_DOCS_SHOT);
    }
    await runCommand('View: Toggle Primary Side Bar Visibility');
  });

  it('runs a Datalog rule into a table with the relation columns', async () => {
    const t = await runIntoTable('paths.dl', 4, 'paths-results');
    assert.match(t.header, /6 results/);
    assert.equal(t.rows.length, 6);
    assert.deepEqual(t.head.slice(1), ['x Node', 'z Node'], 'the columns are named by the rule head and typed by the declaration');
    assert.match(t.header, /\bpath\b/, 'the header names the relation');
  });

  it('runs a JQL query into a table of the documents', async () => {
    const t = await runIntoTable('recent.jql', 2, 'jql-results');
    assert.match(t.header, /recent\.jql/);
    assert.match(t.header, /2 results/);
    const id = t.head.indexOf('id');
    assert.ok(id > 0 && t.head.includes('type'), `columns: ${JSON.stringify(t.head)}`);
    assert.deepEqual(t.rows.map((r) => r[id]), ['a1', 'a3']);
  });

  it("shows a relation's own tuple count when its name is hovered, not the count of the rule on that line", async () => {
    await openFile('paths.dl');
    await page.keyboard.press('Escape');
    await page.mouse.move(5, 5);
    // The last `edge` of the file sits on the line of the recursive path
    // rule, which derives 6 tuples; edge itself holds 3.
    const box = await until('the last edge token', () =>
      page.evaluate(() => {
        const spans = [...document.querySelectorAll('.editor-group-container.active .view-lines span span')].filter(
          (s) => s.textContent === 'edge',
        );
        if (spans.length < 3) {
          return undefined;
        }
        const r = spans.map((s) => s.getBoundingClientRect()).sort((a, b) => b.top - a.top)[0];
        return { x: r.x, y: r.y, width: r.width, height: r.height };
      }),
    );
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    const text = await until('the relation hover', () =>
      page.evaluate(() => {
        const h = [...document.querySelectorAll('.monaco-hover')].find((e) => e.offsetParent !== null && /holds/.test(e.textContent));
        return h?.textContent;
      }),
    );
    await shot('relation-hover');
    assert.match(text, /edge\s*holds\s*3\s*tuple/, `the hover: ${text}`);
    await page.mouse.move(5, 5);
  });

  it('follows the active editor in the Query Results panel', async () => {
    await openFile('turns.pact');
    await resultsFrame('turns.pact');
  });

  it('shows a lens that chooses sample data when there is none, and the choice makes ▶ Run work', async () => {
    await openFile('nodata.pact');
    await sleep(1500);
    const titles = await lenses();
    await shot('nodata-lenses');
    const choose = titles.find((t) => /choose sample data/i.test(t));
    assert.ok(choose, `a "choose sample data" lens: ${JSON.stringify(titles)}`);
    await clickLens(/choose sample data/i);
    await until('the data quick pick', () =>
      page.evaluate(() => [...document.querySelectorAll('.quick-input-list .monaco-list-row')].some((r) => r.textContent.includes('history.json'))),
    );
    await shot('nodata-pick');
    const offered = await page.evaluate(() => [...document.querySelectorAll('.quick-input-list .monaco-list-row')].map((r) => r.textContent));
    assert.ok(!offered.some((o) => o.includes('settings.json')), `no editor metadata offered: ${JSON.stringify(offered)}`);
    await page.keyboard.type('history');
    await page.keyboard.press('Enter');
    await until('the data line', async () => (await editorText()).includes('// data: ./history.json'));
    assert.equal((await editorText()).split('\n')[1], '// data: ./history.json');
    await until('▶ Run lens', async () => (await lenses()).some((t) => /^▶ Run$/.test(t) || /^▶ Run\b(?!.*choose)/.test(t)));
  });

  it('formats a document', async () => {
    await openFile('messy.pact');
    await runCommand('Format Document');
    const want = execFileSync(BIN, ['fmt', '--stdin-filename', 'messy.pact', '-'], { input: files['messy.pact'] }).toString().trimEnd().split('\n')[1];
    assert.notEqual(want, files['messy.pact'].split('\n')[1], 'the file is not already formatted');
    await until('the formatted text', async () => (await editorText()).split('\n')[1] === want);
  });

  it('checks the PACT query embedded in a TypeScript file: the finding, its hover and its quick fix', async () => {
    await openFile('agent.ts');
    const hover = await hoverText('.squiggly-error');
    await shot('embedded-hover');
    assert.equal(count(hover, 'legacy type sugar .block:summary: write .summary'), 1, `the hover lists the finding once: ${hover}`);
    assert.match(hover, /PACT001/);
    await page.keyboard.press('Escape');
    await gotoLine(2);
    await page.keyboard.press('End');
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press('ArrowLeft');
    }
    await applyQuickFix(/\.summary/);
    await until('the fixed literal', async () => (await editorText()).includes('ctx.select(".summary")'));
  });

  it('opens rule documentation read-only, not as an untitled editor', async () => {
    await runCommand('ctxql: Show rule documentation');
    // The rules are listed once "ctxql rules" has answered.
    await until('the list of rules', () =>
      page.evaluate(
        () =>
          [...document.querySelectorAll('.quick-input-list .monaco-list-row')].some((r) => /^[A-Z]+\d{3}/.test(r.textContent.trim())),
      ),
    );
    const input = await page.waitForSelector('.quick-input-widget input', { visible: true });
    await input.type('PACT001');
    await until('PACT001 first in the list', () =>
      page.evaluate(() => document.querySelector('.quick-input-list .monaco-list-row.focused')?.textContent.includes('PACT001')),
    );
    await page.keyboard.press('Enter');
    await until('the rule document', () =>
      page.evaluate(() => [...document.querySelectorAll('.tabs-container .tab')].some((t) => t.textContent.includes('PACT001'))),
    );
    const tabs = await page.evaluate(() => [...document.querySelectorAll('.tabs-container .tab')].map((t) => t.textContent.trim()));
    await shot('rule-doc');
    assert.ok(!tabs.some((t) => /Untitled/.test(t)), `tabs: ${JSON.stringify(tabs)}`);
  });

  it('logs a restart of the server as a normal exit, not as an error', async () => {
    await openFile('turns.pact');
    await runCommand('ctxql: Restart language server');
    const logOf = () => {
      const found = [];
      const walk = (d) => {
        for (const e of fs.readdirSync(d, { withFileTypes: true })) {
          const p = path.join(d, e.name);
          if (e.isDirectory()) {
            walk(p);
          } else if (/ctxql\.log$/.test(e.name)) {
            found.push(fs.readFileSync(p, 'utf8'));
          }
        }
      };
      walk(path.join(userData, 'logs'));
      return found.join('\n');
    };
    const log = await until('the restart in the ctxql output', () => {
      const l = logOf();
      return (l.match(/starting .* lsp/g) || []).length >= 2 && /Server process exited/.test(l) ? l : undefined;
    });
    assert.doesNotMatch(log, /\[Error[^\]]*\] Server process exited with code 0/);
    // The server is the package's own: bin/ctxql in the installed extension.
    const started = [...log.matchAll(/ctxql: starting (.*) lsp \(from (.*)\)/g)];
    assert.ok(started.length >= 2, log);
    for (const [, command, from] of started) {
      assert.equal(from, 'the binary bundled with the extension', log);
      assert.ok(command.startsWith(extDir + path.sep) && command.endsWith(path.join('bin', 'ctxql')), `started ${command}`);
    }
    assert.match(log, /\[Info[^\]]*\] Server process exited normally/);
  });

  it('applies the dialect and rules settings live, without a restart', async () => {
    await openFile('plain.pact');
    const squiggles = () => page.evaluate(() => document.querySelectorAll('.editor-group-container.active .monaco-editor .squiggly-error').length);
    await until('the finding under the default dialect (v2)', async () => (await squiggles()) === 1);
    const settingsFile = path.join(ws, '.vscode', 'settings.json');
    const write = (extra) => fs.writeFileSync(settingsFile, JSON.stringify({ ...extra }));
    write({ 'ctxql.dialect.default': 'v1' });
    await until('no finding under v1, where .cb:summary is a namespaced type', async () => (await squiggles()) === 0);
    write({});
    await until('the finding back once the setting is gone', async () => (await squiggles()) === 1);
    write({ 'ctxql.rules.ignore': ['PACT001'] });
    await until('the ignored finding gone', async () => (await squiggles()) === 0);
    fs.writeFileSync(settingsFile, JSON.stringify({}));
  });

  it("shows the server's ▶ Run test lenses on a query test file, and the failing case as a problem once they ran", async () => {
    await openFile('lensed.ctxqltest.yaml');
    const titles = await until('the test lenses', async () => {
      const l = (await lenses()).filter((t) => t.includes('Run'));
      return l.length >= 3 ? l : undefined;
    });
    await shot('test-lenses');
    assert.deepEqual(titles, ['▶ Run all tests (2)', '▶ Run test', '▶ Run test']);
    await clickLens(/Run all tests/);
    // The failing case is an error at the case, with the results it got
    // that were not wanted; the passing case is none.
    const hover = await hoverText('.squiggly-error');
    await shot('test-failure-hover');
    assert.match(hover, /test "short-lived blocks" failed: results differ from want: 1 unexpected, 0 missing \(want 1, got 2\)/, `the hover: ${hover}`);
    assert.match(hover, /\+ cb:u2/, `the hover: ${hover}`);
    assert.doesNotMatch(hover, /user blocks/);
    // The Problems panel lists it under the test file, at the case, and at
    // the query it tests (tested.pact, which is not open), naming the case.
    await page.keyboard.press('Escape');
    await page.keyboard.down('Control');
    await page.keyboard.down('Shift');
    await page.keyboard.press('KeyM');
    await page.keyboard.up('Shift');
    await page.keyboard.up('Control');
    const rows = await until('the failing case in the Problems panel', () =>
      page.evaluate(() => {
        const r = [...document.querySelectorAll('.markers-panel .monaco-list-row')].map((e) => e.textContent.replace(/\s+/g, ' ').trim());
        return r.filter((t) => t.includes('test "short-lived blocks" failed')).length >= 2 && r.some((t) => t.includes('tested.pact')) ? r : undefined;
      }),
    );
    await shot('test-failure-problems');
    const failures = rows.filter((t) => t.includes('test "short-lived blocks" failed'));
    assert.equal(failures.length, 2, `the case and its query: ${JSON.stringify(rows)}`);
    assert.ok(failures.some((t) => t.includes('[Ln 7, Col 5]')), `the case's problem at the case: ${JSON.stringify(rows)}`);
    assert.ok(failures.some((t) => t.includes('(lensed.ctxqltest.yaml:7)') && t.includes('[Ln 3, Col 1]')), `the query's problem names the case: ${JSON.stringify(rows)}`);
    assert.ok(rows.some((t) => t.includes('lensed.ctxqltest.yaml') && !t.includes('failed')), `the test file's row: ${JSON.stringify(rows)}`);
    assert.ok(!rows.some((t) => t.includes('"user blocks"')), `no problem for the passing case: ${JSON.stringify(rows)}`);
    await page.keyboard.down('Control');
    await page.keyboard.down('Shift');
    await page.keyboard.press('KeyM');
    await page.keyboard.up('Shift');
    await page.keyboard.up('Control');
  });

  it('runs query tests from the Testing view: one passes, one fails with its difference', async () => {
    await page.keyboard.press('Escape');
    const flask = await until('the Testing view in the activity bar', async () => {
      for (const h of await page.$$('.activitybar [aria-label]')) {
        if (/^Testing/.test(await h.evaluate((e) => e.getAttribute('aria-label')))) {
          return h.boundingBox();
        }
      }
      return undefined;
    });
    await page.mouse.click(flask.x + flask.width / 2, flask.y + flask.height / 2);
    const row = (name) =>
      page.evaluate((n) => {
        const r = [...document.querySelectorAll('.test-explorer .monaco-list-row')].find((e) => e.textContent.includes(n));
        return r ? { label: r.getAttribute('aria-label') || '', icon: r.querySelector('.codicon[class*="testing-"]')?.className || '' } : undefined;
      }, name);
    await until('the test file in the Testing view', () => row('tested.ctxqltest.yaml'));
    await runCommand('Test: Run All Tests');
    // The cases show once the file's row is expanded.
    await until('the cases listed', async () => {
      if (await row('short-lived blocks')) {
        return true;
      }
      await page.evaluate(() => {
        const r = [...document.querySelectorAll('.test-explorer .monaco-list-row')].find((e) => e.textContent.includes('tested.ctxqltest.yaml'));
        if (r && r.getAttribute('aria-expanded') === 'false') {
          r.querySelector('.monaco-tl-twistie')?.dispatchEvent(new MouseEvent('click', { bubbles: true }));
        }
      });
      return false;
    });
    const passed = await until('the passing case marked passed', async () => {
      const r = await row('user blocks');
      return r && /Passed/.test(r.label) ? r : undefined;
    });
    const failed = await until('the failing case marked failed', async () => {
      const r = await row('short-lived blocks');
      return r && /Failed/.test(r.label) ? r : undefined;
    });
    await shot('testing-view');
    assert.match(passed.icon, /testing-passed-icon/, `the passing case's icon: ${passed.icon}`);
    assert.match(failed.icon, /testing-failed-icon/, `the failing case's icon: ${failed.icon}`);
    const file = await row('tested.ctxqltest.yaml');
    assert.match(file.label, /Failed/, `the file's row: ${file.label}`);

    // The failure message stands at the case in the test file.
    await openFile('tested.ctxqltest.yaml');
    const inline = await until('the failure message at the case', () =>
      page.evaluate(() => {
        // The message is an inline decoration: text in the DOM or in a
        // pseudo-element's content.
        const ed = document.querySelector('.editor-group-container.active .monaco-editor');
        const m = [...(ed?.querySelectorAll('.view-lines *, .view-overlays *, .contentWidgets *') ?? [])]
          .flatMap((e) => [e.childElementCount === 0 ? e.textContent : '', getComputedStyle(e, '::after').content, getComputedStyle(e, '::before').content])
          .filter((t) => t && t.includes('results differ'));
        return m.length ? m.join(' | ') : undefined;
      }),
    );
    await shot('testing-inline-message');
    assert.match(inline, /results differ from want: 1 unexpected, 0 missing/);
    assert.doesNotMatch(inline, /user blocks/);

    // The Test Results list the case's messages; its difference opens as
    // expected against actual: the query returned cb:u2, which was not wanted.
    const diffRow = await until('the difference in the test results', async () => {
      for (const h of await page.$$('.monaco-list-row')) {
        if ((await h.evaluate((e) => e.textContent)).includes('wanted results missing')) {
          return h.boundingBox();
        }
      }
      return undefined;
    });
    await page.mouse.click(diffRow.x + diffRow.width / 2, diffRow.y + diffRow.height / 2);
    const sides = await until('the expected and actual results side by side', () =>
      page.evaluate(() => {
        const d = [...document.querySelectorAll('.monaco-diff-editor')].find((e) => e.offsetParent !== null);
        const text = (sel) => [...(d?.querySelectorAll(`${sel} .view-lines .view-line`) ?? [])].map((l) => l.textContent.replace(/\u00a0/g, ' ')).join('\n');
        return d && text('.modified').includes('cb:u2') ? { original: text('.original'), modified: text('.modified') } : undefined;
      }),
    );
    await shot('testing-diff');
    assert.equal(sides.modified.trim(), 'cb:u2', `actual: ${JSON.stringify(sides)}`);
    assert.equal(sides.original.trim(), '', `expected: ${JSON.stringify(sides)}`);

    // Fixed on disk, the case passes when the failed tests run again (alone).
    fs.writeFileSync(path.join(ws, 'tested.ctxqltest.yaml'), files['tested.ctxqltest.yaml'].replace('want: [cb:a1]', 'want: [cb:a1, cb:u2]'));
    await until('the fixed file shown', async () => (await editorText()).includes('cb:a1, cb:u2'));
    await runCommand('Test: Rerun Failed Tests from Last Run');
    await until('the fixed case marked passed', async () => {
      const r = await row('short-lived blocks');
      return r && /Passed/.test(r.label);
    });
    await shot('testing-rerun');
    assert.match((await row('tested.ctxqltest.yaml')).label, /Passed/);
  });

  it('shows DOC001 on a Markdown file, as ctxql check reports it', async () => {
    await openFile('plain.pact'); // the extension runs
    await openFile('guide.md');
    // What the command line reports: the finding and its message.
    const check = execFileSync(BIN, ['check', path.join(ws, 'guide.md')], { cwd: ws }).toString();
    const [, message] = /guide\.md:3:4: warning: (.*) \[DOC001\]/.exec(check) || [];
    assert.ok(message, `ctxql check: ${check}`);
    const hover = await hoverText('.squiggly-warning');
    await shot('markdown-doc001');
    assert.match(hover, /DOC001/, `the hover: ${hover}`);
    assert.ok(hover.includes(message), `the hover shows "${message}": ${hover}`);
  });

  it('finds a relation of a file that is not open through the workspace symbols', async () => {
    await openFile('plain.pact');
    await runCommand('Go to Symbol in Workspace');
    await page.keyboard.type('reachable');
    const rows = await until('the symbol reachable listed', () =>
      page.evaluate(() => {
        const r = [...document.querySelectorAll('.quick-input-list .monaco-list-row')].map((e) => e.textContent);
        return r.some((t) => t.includes('reachable') && t.includes('reach.dl')) ? r : undefined;
      }),
    );
    await shot('workspace-symbols');
    assert.ok(rows.some((t) => t.includes('reachable')), `rows: ${JSON.stringify(rows)}`);
    await page.keyboard.press('Enter');
    await until('reach.dl opened at the rule', () =>
      page.evaluate(() => document.querySelector('.editor-group-container.active .tab.active')?.textContent.includes('reach.dl')),
    );
  });

  it("folds a program's comment block and multi-line rule by the server's folding ranges", async () => {
    await openFile('reach.dl');
    await until('the comment block shown', async () => (await editorText()).includes('Each hop is one edge'));
    // Line comments are no block comments to VS Code's own folding: only
    // the server's range of kind comment folds them.
    await until('the comment block folded', async () => {
      await runCommand('Fold All Block Comments');
      await sleep(500);
      const t = await editorText();
      return t.includes('Reachability') && !t.includes('Each hop is one edge');
    });
    await shot('folded-comments');
    await runCommand('Unfold All');
    await until('the comment block unfolded', async () => (await editorText()).includes('Each hop is one edge'));
    // Fold the rule at the cursor (Ctrl+Shift+[): the server's range of
    // the rule, lines 4 to 6.
    await page.keyboard.press('Escape');
    await gotoLine(4);
    await until('the rule folded', async () => {
      await page.keyboard.down('Control');
      await page.keyboard.down('Shift');
      await page.keyboard.press('BracketLeft');
      await page.keyboard.up('Shift');
      await page.keyboard.up('Control');
      await sleep(500);
      const t = await editorText();
      return t.includes('reachable(x, z) <--') && !t.includes('hop(x, y),') && !t.includes('hop(y, z);') && t.includes('Each hop');
    });
    await shot('folded-rule');
    await runCommand('Unfold All');
  });

  it('opens the settings at ctxql.path from the "not found" message', async () => {
    fs.writeFileSync(path.join(ws, '.vscode', 'settings.json'), JSON.stringify({ 'ctxql.path': '/nonexistent/ctxql' }));
    const button = await until('the "not found" message', () =>
      page.evaluate(() => {
        const toast = [...document.querySelectorAll('.notification-toast')].find((t) => t.textContent.includes('/nonexistent/ctxql'));
        return toast ? [...toast.querySelectorAll('a.monaco-button, .monaco-button')].some((b) => b.textContent.includes('Open Settings')) : false;
      }),
    );
    assert.ok(button);
    await shot('not-found');
    await page.evaluate(() => {
      const toast = [...document.querySelectorAll('.notification-toast')].find((t) => t.textContent.includes('/nonexistent/ctxql'));
      [...toast.querySelectorAll('a.monaco-button, .monaco-button')].find((b) => b.textContent.includes('Open Settings')).click();
    });
    const shown = await until('the ctxql.path setting', () =>
      page.evaluate(() => {
        const rows = [...document.querySelectorAll('.settings-editor .setting-item-contents')].filter((r) => r.offsetParent !== null);
        return rows.length ? rows.map((r) => r.querySelector('.setting-item-label')?.textContent + ':' + r.querySelector('.setting-item-category')?.textContent) : undefined;
      }),
    );
    await shot('settings');
    assert.deepEqual(shown, ['Path:Ctxql: '], `settings shown: ${JSON.stringify(shown)}`);
  });
});
