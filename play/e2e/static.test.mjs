// End-to-end test of the exported playground (ctxql play --export) in
// headless Chromium: the page written as static files, served under a path
// prefix by a plain static file server (Python's http.server), running on
// the WebAssembly module of the npm package @ctxql/ctxql. What the user
// sees is compared with the command line of this checkout: results, the
// funnel (--explain), Datalog proofs (--why, --why-not), formatting (fmt),
// and a shared link reopens the same state. The page reads no file and
// reaches nothing beside its own files. Run by run.sh, which provides
// CTXQL_BIN, CTXQL_WASM_PKG (the unpacked npm package), CHROMIUM and
// CTXQL_SHOTS.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import puppeteer from "puppeteer-core";

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = process.env.CTXQL_BIN;
const pkg = process.env.CTXQL_WASM_PKG;
const shots = process.env.CTXQL_SHOTS || mkdtempSync(path.join(tmpdir(), "ctxql-play-shots-"));
const examples = path.join(here, "..", "examples");

let work, server, site, origin, browser;

before(async () => {
  assert.ok(bin, "CTXQL_BIN names the ctxql binary");
  assert.ok(pkg, "CTXQL_WASM_PKG names the npm package @ctxql/ctxql's directory");
  work = mkdtempSync(path.join(tmpdir(), "ctxql-play-static-"));
  // The site under a path prefix with a space: every URL of the page is
  // relative.
  const dir = path.join(work, "www", "tools", "ctxql play");
  const out = execFileSync(bin, ["play", "--export", dir, "--wasm", pkg], { encoding: "utf8" });
  assert.match(out, /exported the playground/);
  server = spawn("python3", ["-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", path.join(work, "www")], { stdio: ["ignore", "pipe", "ignore"] });
  origin = await new Promise((resolve, reject) => {
    let text = "";
    server.stdout.on("data", (b) => {
      text += b;
      const m = /port (\d+)/.exec(text);
      if (m) resolve(`http://127.0.0.1:${m[1]}`);
    });
    server.on("exit", (code) => reject(new Error("http.server exited with " + code)));
  });
  site = origin + "/tools/ctxql%20play/";
  browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,900"],
    defaultViewport: { width: 1400, height: 900 },
  });
});

after(async () => {
  await browser?.close();
  server?.kill("SIGTERM");
  if (work) rmSync(work, { recursive: true, force: true });
});

// openPage opens the exported page and records its console errors and
// every request it makes.
async function openPage(at = site) {
  const page = await browser.newPage();
  page.errors = [];
  page.requests = [];
  page.on("console", (m) => { if (m.type() === "error") page.errors.push(m.text()); });
  page.on("pageerror", (e) => page.errors.push(String(e)));
  page.on("request", (r) => page.requests.push(r.url()));
  await page.goto(at, { waitUntil: "networkidle0" });
  await page.waitForSelector("#editor .cm-content", { timeout: 60000 });
  return page;
}

async function setQuery(page, text) {
  await page.click("#editor .cm-content");
  await page.keyboard.down("Control");
  await page.keyboard.press("a");
  await page.keyboard.up("Control");
  await page.keyboard.press("Backspace");
  await page.keyboard.type(text, { delay: 5 });
}

// setText replaces the editor's text at once, the cursor at 0.
async function setText(page, text) {
  await page.evaluate((text) => {
    const v = window.playView;
    v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: text }, selection: { anchor: 0 }, userEvent: "input.type" });
    v.focus();
  }, text);
}

// until waits for fn(arg) to hold in the page; when it does not, the
// error tells what the page shows.
async function until(page, fn, arg, timeout = 60000) {
  try {
    await page.waitForFunction(fn, { timeout }, arg);
  } catch (e) {
    const shown = await page.evaluate(() => ({
      status: document.querySelector("#status").textContent, error: document.querySelector("#error").textContent,
      results: document.querySelector("#results").innerText.slice(0, 200), doc: window.playView?.state.doc.toString(),
    }));
    throw new Error(`${e.message}; the page shows ${JSON.stringify(shown)}; errors: ${JSON.stringify(page.errors)}`);
  }
}

const cellTexts = (page, sel) => page.$$eval(sel, (els) => els.map((e) => e.textContent.trim()));

async function chooseExample(page, prefix) {
  const i = await page.$$eval("#examples option", (os, prefix) => os.findIndex((o) => o.textContent.startsWith(prefix)), prefix);
  assert.ok(i > 0, `a ${prefix} example is offered`);
  await page.select("#examples", String(i - 1));
}

function ctxql(args, opts = {}) {
  return execFileSync(bin, args, { encoding: "utf8", ...opts });
}

// ownRequests asserts that the page asked for nothing but files of the
// exported site.
function ownRequests(page) {
  const others = page.requests.filter((u) => !u.startsWith(site) && !u.startsWith("data:"));
  assert.deepEqual(others, [], "the page requests nothing beside its own files");
  assert.ok(page.requests.some((u) => u.endsWith("/ctxql/ctxql.wasm")), "the page loads the module beside it");
}

test("exported PACT: results and funnel as the command line's, diagnostics, formatting, a shared link", async () => {
  const page = await openPage();
  // The first example (PACT, with its pasted data) opens.
  await chooseExample(page, "PACT");
  const query = readFileSync(path.join(examples, "history.pact"), "utf8").trim();
  const data = path.join(examples, "history.json");
  const ids = JSON.parse(ctxql(["eval", "pact", "--data", data, query]));
  await page.waitForFunction((want) => [...document.querySelectorAll("#results tbody tr td:first-child")].map((e) => e.textContent).join(",") === want,
    { timeout: 30000 }, ids.join(","));
  assert.match(await page.$eval("#count", (e) => e.textContent), new RegExp(`\\(${ids.length}\\)`));
  assert.match(await page.$eval("#dataname", (e) => e.textContent), /pasted json/);
  // The funnel is eval pact --explain's steps and counts.
  await page.waitForFunction(() => document.querySelectorAll("#funnel:not(.stale) li").length >= 3, { timeout: 30000 });
  const funnel = await page.$$eval("#funnel li", (lis) => lis.map((li) => [li.querySelector(".step").textContent, Number(li.querySelector(".n").textContent)]));
  const explain = ctxql(["eval", "pact", "--explain", "--data", data, query])
    .split("\n").map((l) => /^\d+:\d+\s+(.*?)\s+(\d+)$/.exec(l)).filter(Boolean).map((m) => [m[1], Number(m[2])]);
  assert.ok(explain.length >= 3, "--explain prints steps");
  assert.deepEqual(funnel, explain, "the funnel's steps and counts are eval pact --explain's");
  await page.screenshot({ path: path.join(shots, "static-pact.png") });

  // Typing a query updates the results; an invalid one shows its
  // diagnostic and error.
  const q = '@t0 ^seq .mt .cb[role="assistant"]';
  await setQuery(page, q);
  const want = JSON.parse(ctxql(["eval", "pact", "--data", data, q]));
  await page.waitForFunction((want) => [...document.querySelectorAll("#results tbody tr td:first-child")].map((e) => e.textContent).join(",") === want,
    { timeout: 30000 }, want.join(","));
  // A document of several queries, one per line: the query on the
  // cursor's line runs; moving the cursor to another runs that one.
  const two = `// two queries\n${query}\n${q}`;
  await page.evaluate((text) => {
    const v = window.playView;
    v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: text }, selection: { anchor: text.length }, userEvent: "input.type" });
    v.focus();
  }, two);
  await page.click("#run");
  await page.waitForFunction((want) => [...document.querySelectorAll("#results tbody tr td:first-child")].map((e) => e.textContent).join(",") === want,
    { timeout: 30000 }, want.join(","));
  await page.evaluate((at) => window.playView.dispatch({ selection: { anchor: at } }), two.indexOf(query) + 2);
  await page.waitForFunction((want) => [...document.querySelectorAll("#results tbody tr td:first-child")].map((e) => e.textContent).join(",") === want,
    { timeout: 30000 }, ids.join(","));
  await setQuery(page, "@t0 ^seq .mt .cb[role=");
  await page.waitForSelector(".cm-lint-marker-error", { timeout: 30000 });
  await page.waitForFunction(() => !document.querySelector("#error").hidden, { timeout: 30000 });

  // Format, as ctxql fmt formats.
  const messy = '@t0  ^seq   .mt .cb[role="user"]';
  await setQuery(page, messy);
  await page.keyboard.press("Escape");
  await page.click("#format");
  const formatted = ctxql(["fmt", "-"], { input: messy + "\n" });
  await page.waitForFunction((want) => window.playView.state.doc.toString() === want, { timeout: 30000 }, formatted);
  await page.waitForFunction((want) => [...document.querySelectorAll("#results tbody tr td:first-child")].map((e) => e.textContent).join(",") === want,
    { timeout: 30000 }, ids.join(","));

  // The link reopens the same state in a fresh page.
  await page.click("#share");
  const link = page.url();
  assert.ok(link.startsWith(site + "#s="), "the link is the page's address with the state: " + link);
  const fresh = await openPage(link);
  assert.equal(await fresh.evaluate(() => window.playView.state.doc.toString()), formatted);
  assert.equal(await fresh.$eval("#lang", (e) => e.value), "pact");
  await fresh.waitForFunction((want) => [...document.querySelectorAll("#results tbody tr td:first-child")].map((e) => e.textContent).join(",") === want,
    { timeout: 30000 }, ids.join(","));
  await fresh.waitForFunction(() => document.querySelectorAll("#funnel:not(.stale) li").length >= 3, { timeout: 30000 });
  ownRequests(page);
  ownRequests(fresh);
  assert.deepEqual(fresh.errors.concat(page.errors).filter((e) => /Content Security Policy|Refused/.test(e)), [], "no CSP violations");
  await fresh.close();
  await page.close();
});

test("exported Datalog: a row's proof is eval datalog --why's, and --why-not", async () => {
  const page = await openPage();
  await chooseExample(page, "Datalog");
  await page.waitForFunction(() => document.querySelector("#lang").value === "datalog");
  const program = readFileSync(path.join(examples, "reach.dl"), "utf8");
  await page.waitForFunction((p) => window.playView.state.doc.toString() === p, { timeout: 30000 }, program);
  await setText(page, program.trimEnd());
  await page.click("#run");
  await page.waitForFunction(() => /^reach: 7 tuples/.test(document.querySelector("#results .caption")?.textContent || ""), { timeout: 30000 });
  const rows = await page.$$eval("#results tbody tr.clickable", (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
  const i = rows.findIndex((r) => r.join(",") === "a,d");
  assert.ok(i >= 0, "reach(a, d) is a row: " + JSON.stringify(rows));
  await page.evaluate((i) => document.querySelectorAll("#results tbody tr.clickable")[i].click(), i);
  await page.waitForFunction(() => document.querySelector("#why").textContent.includes("by rule"), { timeout: 30000 });
  const proof = await page.$eval("#why", (e) => e.textContent);
  // The page names the program by the document's path in its virtual
  // project, as the command line names the --rules file it is given.
  const dir = path.join(work, "datalog");
  mkdirSync(path.join(dir, ".ctxql-play"), { recursive: true });
  writeFileSync(path.join(dir, ".ctxql-play", "query.dl"), program.trimEnd());
  const data = path.join(examples, "reach.json");
  const want = ctxql(["eval", "datalog", "--data", data, "--rules", ".ctxql-play/query.dl", "--why", 'reach("a", "d")'], { cwd: dir });
  assert.equal(proof.trimEnd(), want.trimEnd(), "the proof is eval datalog --why's");
  assert.equal(await page.$eval("#p-funnel", (e) => e.hidden), true, "the funnel is hidden for Datalog");
  await page.screenshot({ path: path.join(shots, "static-datalog.png") });

  await page.type("#whynot", 'reach("d", "a")');
  await page.click("#whynot-go");
  await page.waitForFunction(() => document.querySelector("#why").className === "notderived", { timeout: 30000 });
  const whyNot = await page.$eval("#why", (e) => e.textContent);
  const wantNot = ctxql(["eval", "datalog", "--data", data, "--rules", ".ctxql-play/query.dl", "--why-not", 'reach("d", "a")'], { cwd: dir });
  assert.equal(whyNot.trimEnd(), wantNot.trimEnd(), "the explanation is eval datalog --why-not's");

  // The cursor on the program's last rule shows its relation.
  await page.evaluate(() => {
    const v = window.playView, at = v.state.doc.toString().lastIndexOf("nf(");
    v.dispatch({ selection: { anchor: at } });
  });
  await page.click("#run");
  const nf = JSON.parse(ctxql(["eval", "datalog", "--data", data, "--rules", ".ctxql-play/query.dl"], { cwd: dir })).nf;
  await page.waitForFunction((n) => (document.querySelector("#results .caption")?.textContent || "").startsWith(`nf: ${n} tuple`), { timeout: 30000 }, nf.length);
  ownRequests(page);
  await page.close();
});

test("exported JQL from the examples menu: the documents of eval jql", async () => {
  const page = await openPage();
  await chooseExample(page, "JQL");
  await page.waitForFunction(() => document.querySelector("#lang").value === "jql");
  await page.waitForFunction(() => [...document.querySelectorAll("#results tbody td")].some((td) => td.textContent === "planGenerated"), { timeout: 30000 });
  const want = JSON.parse(ctxql(["eval", "jql", "--data", path.join(examples, "activities.json"), "--query-file", path.join(examples, "activities.jql")]));
  const head = await cellTexts(page, "#results thead th");
  const rows = await page.$$eval("#results tbody tr", (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
  assert.deepEqual(rows, want.map((d) => head.map((k) => (k in d ? (typeof d[k] === "string" ? d[k] : JSON.stringify(d[k])) : ""))),
    "the table holds eval jql's documents");
  await page.waitForFunction(() => document.querySelectorAll("#funnel:not(.stale) li").length >= 1, { timeout: 30000 });

  // A document of several queries: the query under the cursor runs, as
  // eval jql runs it; moving the cursor to another query runs that one.
  const first = '{"from": "activities", "where": {"type": "planGenerated"}}';
  const second = '{\n  "from": "activities",\n  "where": {"type": "agentMessaged"}\n}';
  const doc = `${first}\n\n${second}\n`;
  const ids = (q) => JSON.parse(ctxql(["eval", "jql", "--data", path.join(examples, "activities.json"), q])).map((d) => d.id).join(",");
  const [firstIds, secondIds] = [ids(first), ids(second)];
  assert.ok(firstIds && secondIds && firstIds !== secondIds, `the two queries find different activities: ${firstIds} and ${secondIds}`);
  // The ids of the documents the table shows.
  const shows = (want) => {
    const head = [...document.querySelectorAll("#results thead th")].map((th) => th.textContent.trim());
    const col = head.indexOf("id");
    return col >= 0 && [...document.querySelectorAll("#results tbody tr")].map((tr) => tr.children[col]?.textContent).join(",") === want;
  };
  await page.evaluate((text, at) => {
    const v = window.playView;
    v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: text }, selection: { anchor: at }, userEvent: "input.type" });
    v.focus();
  }, doc, doc.indexOf("agentMessaged"));
  await page.click("#run");
  await until(page, shows, secondIds);
  assert.equal(await page.$eval("#error", (e) => e.hidden || e.textContent === ""), true, "no error");
  await page.evaluate((at) => window.playView.dispatch({ selection: { anchor: at } }), doc.indexOf("planGenerated"));
  await until(page, shows, firstIds);
  await page.screenshot({ path: path.join(shots, "static-jql-two.png") });
  await page.close();
});

test("the exported page reads no file: a data line naming one, the server's API, file: URLs", async () => {
  const secretDir = mkdtempSync(path.join(work, "outside-"));
  const secret = path.join(secretDir, "secret.json");
  writeFileSync(secret, JSON.stringify({ root: { id: "root", children: [{ id: "seq", nodeType: "^seq", children: [
    { id: "mt:S", nodeType: "mt", children: [{ id: "mc:S", nodeType: "mc", children: [
      { id: "cb:SECRETID", nodeType: "cb", role: "user", offset: 0, ttl: 1, content: "TOPSECRET" }] }] }] }] } }));
  // A copy inside the served directory too: not even the site's own
  // files are sample data.
  const inSite = path.join(work, "www", "tools", "ctxql play", "secret.json");
  writeFileSync(inSite, readFileSync(secret));
  const page = await openPage();
  await page.select("#lang", "pact");
  assert.equal(await page.$eval("#datafile", (e) => getComputedStyle(e.closest(".row")).display), "none", "no project files are offered");
  // No pasted data (the first example's is dropped).
  await page.$eval("#pastetext", (e) => { e.value = ""; });
  await page.click("#paste");
  for (const name of [secret, "file://" + secret, "../../secret.json", "secret.json", site + "secret.json"]) {
    const text = "// data: " + name + "\n^seq .mt .cb\n";
    await setText(page, text);
    await page.click("#run");
    await page.waitForFunction(() => !document.querySelector("#error").hidden && document.querySelector("#error").textContent.length > 0, { timeout: 30000 });
    await new Promise((r) => setTimeout(r, 300));
    const shown = await page.evaluate(() => document.body.innerText + document.querySelector("#error").textContent);
    for (const mark of ["SECRETID", "TOPSECRET", "mt:S"]) assert.ok(!shown.includes(mark), `the page shows ${mark} (data line ${name})`);
    assert.match(await page.$eval("#error", (e) => e.textContent), /reads no files/);
    assert.equal(await page.$$eval("#results tbody tr", (trs) => trs.length), 0, "no results");
  }
  // The policy lets the page fetch nothing but its own origin.
  const blocked = await page.evaluate(async (urls) => {
    const out = [];
    for (const u of urls) {
      try { await fetch(u); out.push(u + ": fetched"); } catch { out.push(u + ": refused"); }
    }
    return out;
  }, ["file://" + secret, "http://localhost:1/", "https://example.com/"]);
  assert.deepEqual(blocked.filter((b) => !b.endsWith("refused")), [], "fetches elsewhere are refused");
  assert.ok(!page.requests.some((u) => u.includes("secret.json")), "the page never requested the data line's file");
  assert.ok(!page.requests.some((u) => u.includes("/api/") || u.startsWith("ws")), "the page asks no server API");
  await page.close();
  rmSync(secretDir, { recursive: true, force: true });
  rmSync(inSite, { force: true });
  // The site holds nothing but the page, the examples and the module.
  assert.deepEqual(readdirSync(path.join(work, "www", "tools", "ctxql play")).sort(), ["assets", "ctxql", "examples", "index.html", "info.json"]);
});

test("an evaluation over the exported page's --timeout is stopped, and the page goes on", async () => {
  const dir = path.join(work, "www", "slow");
  ctxql(["play", "--export", dir, "--wasm", pkg, "--timeout", "1s"]);
  const page = await openPage(origin + "/slow/");
  await page.select("#lang", "datalog");
  // 2,000 facts: their cross product is 4,000,000 tuples.
  const facts = { relations: { a: { param_types: ["Proc"], tuples: Array.from({ length: 2000 }, (_, i) => [String(i)]) } } };
  await page.$eval("#pastetext", (e, t) => { e.value = t; }, JSON.stringify(facts));
  await page.select("#pastefmt", "json");
  await page.click("#paste");
  await setText(page, "p(x, y) <-- a(x), a(y);");
  await page.click("#run");
  await until(page, () => /stopped at the time limit of 1 s/.test(document.querySelector("#error").textContent));
  assert.equal(await page.$$eval("#results tbody tr", (trs) => trs.length), 0, "no results");
  // A new module takes over the page's program and pasted data.
  await setText(page, "q(x) <-- a(x);");
  await page.click("#run");
  await until(page, () => /^q: 2000 tuples/.test(document.querySelector("#results .caption")?.textContent || ""));
  await page.close();
});
