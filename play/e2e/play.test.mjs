// End-to-end test of ctxql play in headless Chromium: the page, the
// editor on the real language server, the panels and shareable links,
// against the ctxql built from this checkout. Run by run.sh, which
// provides CTXQL_BIN, CHROMIUM and CTXQL_SHOTS.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, copyFileSync, writeFileSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import puppeteer from "puppeteer-core";
import { startPlay } from "./serve.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = process.env.CTXQL_BIN;
const shots = process.env.CTXQL_SHOTS || mkdtempSync(path.join(tmpdir(), "ctxql-play-shots-"));
const examples = path.join(here, "..", "examples");

let project, server, url, browser;

// shot saves a screenshot of the page (and, for the README, a copy).
async function shot(page, name) {
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: path.join(shots, name + ".png") });
}

before(async () => {
  assert.ok(bin, "CTXQL_BIN names the ctxql binary");
  project = mkdtempSync(path.join(tmpdir(), "ctxql play project-")); // a space, escaped in URIs
  mkdirSync(path.join(project, "data"));
  for (const f of ["history.json", "reach.json"]) copyFileSync(path.join(examples, f), path.join(project, "data", f));
  let serving;
  ({ server, url: serving } = startPlay(bin, ["--dir", project]));
  url = await serving;
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
  if (project) rmSync(project, { recursive: true, force: true });
});

// openPage opens a page (a fresh one shares the browser's session cookie)
// and collects the console errors and CSP violations.
async function openPage(at) {
  const page = await browser.newPage();
  page.errors = [];
  page.on("console", (m) => { if (m.type() === "error") page.errors.push(m.text()); });
  page.on("pageerror", (e) => page.errors.push(String(e)));
  await page.goto(at, { waitUntil: "networkidle0" });
  await page.waitForSelector("#editor .cm-content");
  return page;
}

// setQuery replaces the editor's text by typing it.
async function setQuery(page, text) {
  await page.click("#editor .cm-content");
  await page.keyboard.down("Control");
  await page.keyboard.press("a");
  await page.keyboard.up("Control");
  await page.keyboard.press("Backspace");
  await page.keyboard.type(text, { delay: 5 });
}

const cellTexts = (page, sel) => page.$$eval(sel, (els) => els.map((e) => e.textContent.trim()));

// ctxql runs the command line of this checkout in the project.
function ctxql(...args) {
  return execFileSync(bin, args, { cwd: project, encoding: "utf8" });
}

test("PACT: results, a diagnostic with a quick fix, the funnel equals --explain, a shared link", async () => {
  const page = await openPage(url);
  assert.match(page.url(), /\/(#.*)?$/, "the token left the address bar");
  await page.select("#lang", "pact");
  await page.waitForFunction(() => [...document.querySelectorAll("#datafile option")].some((o) => o.value === "data/history.json"));
  await page.select("#datafile", "data/history.json");

  // A query with a fixable finding: results and the diagnostic appear.
  await setQuery(page, "@t0 ^seq .mt .cb{ttl=3}");
  await page.waitForSelector(".cm-lintRange-error", { timeout: 15000 });
  await page.waitForFunction(() => document.querySelectorAll("#results tbody tr").length > 0, { timeout: 15000 });
  // The step counts (inlay hints, which move the text, and the funnel)
  // follow once typing pauses.
  await page.waitForFunction(() => document.querySelectorAll("#funnel:not(.stale) li").length > 0, { timeout: 15000 });
  await shot(page, "play-diagnostic");

  // The quick fix, from the diagnostic's tooltip.
  await page.hover(".cm-lintRange-error");
  await page.waitForSelector(".cm-tooltip-lint .cm-diagnosticAction", { timeout: 15000 });
  await shot(page, "play-quickfix");
  await page.click(".cm-tooltip-lint .cm-diagnosticAction");
  await page.waitForFunction(() => window.playView.state.doc.toString().includes("[ ttl=3 ]"), { timeout: 15000 });
  await page.waitForFunction(() => document.querySelectorAll(".cm-lintRange-error").length === 0, { timeout: 15000 });

  // A query and its funnel, against the command line's --explain.
  const q = '@t0 ^seq .mt .cb[role="user"]';
  await setQuery(page, q);
  await page.waitForFunction(() => {
    const ids = [...document.querySelectorAll("#results tbody tr td:first-child")].map((e) => e.textContent);
    return ids.join(",") === "cb:u1,cb:u2";
  }, { timeout: 15000 });
  await page.waitForFunction(() => document.querySelectorAll("#funnel:not(.stale) li").length >= 4, { timeout: 15000 });
  const funnel = await page.$$eval("#funnel li", (lis) => lis.map((li) => [li.querySelector(".step").textContent, Number(li.querySelector(".n").textContent)]));
  const explain = ctxql("eval", "pact", "--explain", "--data", "data/history.json", q)
    .split("\n").map((l) => /^\d+:\d+\s+(.*?)\s+(\d+)$/.exec(l)).filter(Boolean).map((m) => [m[1], Number(m[2])]);
  assert.deepEqual(funnel, explain, "the funnel's steps and counts are eval pact --explain's");
  assert.match(await page.$eval("#timing", (e) => e.textContent), /evaluated in/);
  await shot(page, "play-pact");

  // The other editor features: step counts inline, semantic highlighting,
  // hover, completion and formatting (as ctxql fmt formats).
  assert.ok((await page.$$eval(".cm-inlay", (es) => es.length)) >= 3, "step counts as inlay hints");
  assert.ok((await page.$$eval("#editor [class*='tok-']", (es) => es.length)) >= 3, "semantic highlighting");
  const at = await page.evaluate(() => {
    const v = window.playView, pos = v.state.doc.toString().indexOf("^seq") + 2;
    const c = v.coordsAtPos(pos);
    return { x: (c.left + c.right) / 2, y: (c.top + c.bottom) / 2 };
  });
  await page.mouse.move(at.x, at.y);
  await page.waitForSelector(".cm-tooltip-hover", { timeout: 15000 });
  assert.ok((await page.$eval(".cm-tooltip-hover", (e) => e.textContent)).length > 0, "a hover");
  await page.click("#editor .cm-content");
  await page.keyboard.press("End");
  await page.keyboard.type(" .");
  await page.keyboard.down("Control");
  await page.keyboard.press("Space");
  await page.keyboard.up("Control");
  await page.waitForSelector(".cm-tooltip-autocomplete li", { timeout: 15000 });
  await page.keyboard.press("Escape");
  const messy = '@t0  ^seq   .mt .cb[role="user"]';
  await setQuery(page, messy);
  await page.keyboard.press("Escape");
  await page.click("#format");
  const formatted = execFileSync(bin, ["fmt", "-"], { input: messy + "\n", encoding: "utf8" });
  await page.waitForFunction((want) => window.playView.state.doc.toString() === want, { timeout: 15000 }, formatted);
  await setQuery(page, q);
  await page.keyboard.press("Escape");
  await page.waitForFunction(() => document.querySelectorAll("#results tbody tr").length === 2, { timeout: 15000 });

  // The link reproduces the state in a fresh page.
  await page.click("#share");
  const link = page.url();
  assert.match(link, /#s=/);
  const fresh = await openPage(link);
  assert.equal(await fresh.evaluate(() => window.playView.state.doc.toString()), q);
  assert.equal(await fresh.$eval("#lang", (e) => e.value), "pact");
  assert.equal(await fresh.$eval("#datafile", (e) => e.value), "data/history.json");
  await fresh.waitForFunction(() => document.querySelectorAll("#results tbody tr").length === 2, { timeout: 15000 });
  assert.deepEqual(await cellTexts(fresh, "#results tbody tr td:first-child"), ["cb:u1", "cb:u2"]);
  assert.deepEqual(fresh.errors.concat(page.errors).filter((e) => /Content Security Policy|Refused/.test(e)), [], "no CSP violations");
  await fresh.close();
  await page.close();
});

test("Datalog: a row's proof equals eval datalog --why, and --why-not", async () => {
  const page = await openPage(url);
  await page.select("#lang", "datalog");
  await page.waitForFunction(() => [...document.querySelectorAll("#datafile option")].some((o) => o.value === "data/reach.json"));
  await page.select("#datafile", "data/reach.json");
  const program = readFileSync(path.join(examples, "reach.dl"), "utf8").trimEnd();
  // The program, with the cursor on its first rule.
  await page.evaluate((text) => {
    const v = window.playView;
    v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: text }, selection: { anchor: 0 }, userEvent: "input.type" });
    v.focus();
  }, program);
  await page.click("#run");
  await page.waitForFunction(() => /^reach: 7 tuples/.test(document.querySelector("#results .caption")?.textContent || ""), { timeout: 15000 });
  // The preview the edit caused (the program's last rule) may arrive
  // after the run: it must not replace the table asked for.
  await new Promise((r) => setTimeout(r, 1500));
  assert.match(await page.$eval("#results .caption", (e) => e.textContent), /^reach: 7 tuples/, "Run's table stays shown");
  const rows = await page.$$eval("#results tbody tr.clickable", (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
  const i = rows.findIndex((r) => r.join(",") === "a,d");
  assert.ok(i >= 0, "reach(a, d) is a row: " + JSON.stringify(rows));
  await page.evaluate((i) => document.querySelectorAll("#results tbody tr.clickable")[i].click(), i);
  await page.waitForFunction(() => document.querySelector("#why").textContent.includes("by rule"), { timeout: 15000 });
  const proof = await page.$eval("#why", (e) => e.textContent);
  // The page names the rules by the document's path in the project, as
  // the command line run in the project names the file it is given:
  // write the program there.
  const docPath = path.join(".ctxql-play", "query.dl");
  mkdirSync(path.join(project, ".ctxql-play"), { recursive: true });
  writeFileSync(path.join(project, docPath), program);
  const want = ctxql("eval", "datalog", "--data", "data/reach.json", "--rules", docPath, "--why", 'reach("a", "d")');
  assert.equal(proof.trimEnd(), want.trimEnd(), "the proof is eval datalog --why's, naming the file in the project");
  assert.ok(!proof.includes(project), "the proof names no absolute path");
  // A proof line wider than the panel wraps instead of being cut off.
  assert.equal(await page.$eval("#why", (e) => getComputedStyle(e).whiteSpace), "pre-wrap");
  // Datalog has no step funnel; its Why panel shows.
  assert.equal(await page.$eval("#p-funnel", (e) => e.hidden), true, "the funnel is hidden for Datalog");
  assert.equal(await page.$eval("#p-why", (e) => e.hidden), false, "the Why panel shows for Datalog");
  await shot(page, "play-datalog");

  await page.type("#whynot", 'reach("d", "a")');
  await page.click("#whynot-go");
  await page.waitForFunction(() => document.querySelector("#why").className === "notderived", { timeout: 15000 });
  const whyNot = await page.$eval("#why", (e) => e.textContent);
  const wantNot = ctxql("eval", "datalog", "--data", "data/reach.json", "--rules", docPath, "--why-not", 'reach("d", "a")');
  assert.equal(whyNot.trimEnd(), wantNot.trimEnd(), "the explanation is eval datalog --why-not's");
  await page.close();
});

test("A data line naming a file outside the project: an error, no byte of the file, no path outside", async () => {
  // The file outside: a PACT tree with marks no project file has.
  const outsideDir = mkdtempSync(path.join(path.dirname(project), "ctxql play outside-"));
  const secret = path.join(outsideDir, "secret.json");
  writeFileSync(secret, JSON.stringify({ root: { id: "root", children: [{ id: "seq", nodeType: "^seq", children: [
    { id: "mt:S", nodeType: "mt", children: [{ id: "mc:S", nodeType: "mc", children: [
      { id: "cb:SECRETID", nodeType: "cb", role: "user", offset: 0, ttl: 1, content: "TOPSECRET" }] }] }] }] } }));
  const rel = path.relative(path.join(project, ".ctxql-play"), secret);
  const page = await openPage(url);
  try {
    await page.select("#lang", "pact");
    await page.select("#datafile", "");
    for (const name of [rel, secret, "file://" + secret]) {
      const text = "// line1\n// line2\n// line3\n// line4\n// line5\n// data: " + name + "\n^seq .mt .cb\n";
      await page.evaluate((text) => {
        const v = window.playView;
        v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: text }, selection: { anchor: text.length - 2 }, userEvent: "input.type" });
        v.focus();
      }, text);
      await page.click("#run");
      await page.waitForFunction(() => !document.querySelector("#error").hidden && document.querySelector("#error").textContent.length > 0, { timeout: 15000 });
      await new Promise((r) => setTimeout(r, 500)); // what else the server sends
      const shown = await page.evaluate(() => document.body.innerText + document.querySelector("#error").textContent + document.querySelector("#status").textContent);
      for (const mark of ["SECRETID", "TOPSECRET", "mt:S"]) assert.ok(!shown.includes(mark), `the page shows ${mark} of the file outside (data line ${name})`);
      assert.ok(!shown.replaceAll(name, "").replaceAll("file:" + secret, "").includes(outsideDir), `the page shows a path outside the project (data line ${name}): ${shown}`);
      assert.equal(await page.$$eval("#results tbody tr", (trs) => trs.length), 0, "no results");
    }
    // PACT has a step funnel and no proofs: the Why panel is hidden.
    assert.equal(await page.$eval("#p-why", (e) => e.hidden), true, "the Why panel is hidden for PACT");
    assert.equal(await page.$eval("#p-funnel", (e) => e.hidden), false, "the funnel shows for PACT");
    await shot(page, "play-outside");
  } finally {
    await page.close();
    rmSync(outsideDir, { recursive: true, force: true });
  }
});

test("JQL from the examples menu: pasted data, documents as a table and a tree, the history", async () => {
  const page = await openPage(url);
  const i = await page.$$eval("#examples option", (os) => os.findIndex((o) => o.textContent.startsWith("JQL")));
  assert.ok(i > 0, "a JQL example is offered");
  await page.select("#examples", String(i - 1));
  await page.waitForFunction(() => document.querySelector("#lang").value === "jql");
  await page.waitForFunction(() => [...document.querySelectorAll("#results tbody td")].some((td) => td.textContent === "planGenerated"), { timeout: 15000 });
  const want = JSON.parse(ctxql("eval", "jql", "--data", path.join(examples, "activities.json"), "--query-file", path.join(examples, "activities.jql")));
  const head = await cellTexts(page, "#results thead th");
  const rows = await page.$$eval("#results tbody tr", (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
  assert.deepEqual(rows, want.map((d) => head.map((k) => (k in d ? (typeof d[k] === "string" ? d[k] : JSON.stringify(d[k])) : ""))),
    "the table holds eval jql's documents");
  assert.match(await page.$eval("#dataname", (e) => e.textContent), /pasted json/);
  await page.click("#tree");
  await page.waitForSelector("#results ul.tree", { timeout: 15000 });
  assert.ok((await page.$$eval("#history option", (os) => os.length)) > 1, "the history lists recent queries");
  await page.close();
});

test("PATH opens a project file with its data line", async () => {
  mkdirSync(path.join(project, "queries"), { recursive: true });
  writeFileSync(path.join(project, "queries", "recent.pact"), "// data: ../data/history.json\n@t0 ^seq .mt .cb[role=\"user\"]\n");
  const { server: second, url: serving } = startPlay(bin, ["--dir", project, "queries/recent.pact"], "ignore");
  try {
    const at = await serving;
    const page = await openPage(at);
    assert.match(await page.$eval("#docname", (e) => e.textContent), /queries\/recent\.pact/);
    await page.waitForFunction(() => document.querySelectorAll("#results tbody tr").length === 2, { timeout: 15000 });
    assert.deepEqual(await cellTexts(page, "#results tbody tr td:first-child"), ["cb:u1", "cb:u2"]);
    await page.close();
  } finally {
    second.kill("SIGTERM");
  }
});
