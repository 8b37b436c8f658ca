// Keystroke-to-results benchmark of ctxql play in headless Chromium: over a
// generated tree of 1,000,000 nodes, each iteration edits a PACT query in
// the editor, as typing does, and times in the page, from the edit to the
// new results on screen. It prints p50 and p95 against the
// target (50 ms p50) and, as the anchor measured in the same run, the
// server's own evaluation time of the same edits (the "evaluated in" of the
// page). Run by run.sh bench, which provides CTXQL_BIN and CHROMIUM.
import { mkdtempSync, mkdirSync, rmSync, createWriteStream } from "node:fs";
import { once } from "node:events";
import { tmpdir } from "node:os";
import path from "node:path";
import puppeteer from "puppeteer-core";
import { startPlay } from "./serve.mjs";

const bin = process.env.CTXQL_BIN;
const iterations = Number(process.env.ITERATIONS || 60);
const target = 50;

// writeTree writes 2,000 turns of 4 messages of 124 blocks (1,000,000
// blocks), the tree of the Go benchmark BenchmarkEditToPreview.
async function writeTree(file) {
  const out = createWriteStream(file);
  const put = async (s) => { if (!out.write(s)) await once(out, "drain"); };
  await put('{"root":{"id":"root","nodeType":"^root","children":[{"id":"seq","nodeType":"^seq","children":[');
  for (let turn = 0; turn < 2000; turn++) {
    let s = (turn ? "," : "") + `{"id":"mt:${turn}","nodeType":"mt","children":[`;
    for (let c = 0; c < 4; c++) {
      s += (c ? "," : "") + `{"id":"mc:${turn}:${c}","nodeType":"mc","children":[`;
      for (let k = 0; k < 124; k++) {
        const role = (turn + c) % 2 ? "assistant" : "user";
        s += (k ? "," : "") + `{"id":"cb:${turn}:${c}:${k}","nodeType":"cb","role":"${role}","offset":${(k % 3) - 1},"ttl":${(turn * 7 + k) % 5}}`;
      }
      s += "]}";
    }
    await put(s + "]}");
  }
  await put("]}]}}");
  out.end();
  await once(out, "finish");
}

function quantile(xs, q) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}

const project = mkdtempSync(path.join(tmpdir(), "ctxql-play-bench-"));
mkdirSync(path.join(project, "data"));
await writeTree(path.join(project, "data", "tree.json"));
const { server, url: serving } = startPlay(bin, ["--dir", project]);
const url = await serving;
const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM, headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
});
try {
  const page = await browser.newPage();
  // Where the time goes: when the page sends the new text and when the
  // server's preview arrives.
  await page.evaluateOnNewDocument(() => {
    const WS = window.WebSocket;
    window.WebSocket = class extends WS {
      constructor(...a) {
        super(...a);
        this.addEventListener("message", (e) => {
          if (typeof e.data === "string" && e.data.includes('"ctxql/preview"')) window.__previewAt = performance.now();
        });
      }
      send(d) {
        if (typeof d === "string" && d.includes('"textDocument/didChange"')) window.__sentAt = performance.now();
        return super.send(d);
      }
    };
  });
  await page.goto(url, { waitUntil: "networkidle0" });
  await page.waitForSelector("#editor .cm-content");
  // Each edit names another block to leave out, so that every version is a
  // query the server has not evaluated before (it keeps results by query).
  const query = (i) => `^seq .mt .mc > .cb[role='assistant'][ttl<=4][id!='cb:${i}:1:0']`;
  await page.evaluate((text) => {
    const v = window.playView;
    v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: text }, userEvent: "input.type" });
  }, "// data: ../data/tree.json\n" + query(0));
  // The first result loads the tree (the page's document lives in the
  // project's .ctxql-play directory).
  await page.waitForFunction(() => /^\(\d{5,}\)$/.test(document.querySelector("#count").textContent), { timeout: 120000 });
  const times = [], evals = [], sent = [], arrived = [];
  for (let i = 1; i <= iterations + 5; i++) {
    const r = await page.evaluate(async (id) => {
      const v = window.playView, doc = v.state.doc.toString();
      const from = doc.lastIndexOf("cb:"), to = doc.indexOf("'", from);
      const results = document.querySelector("#results");
      const t0 = performance.now();
      const shown = new Promise((resolve) => {
        const obs = new MutationObserver(() => { obs.disconnect(); resolve(performance.now() - t0); });
        obs.observe(results, { childList: true });
      });
      v.dispatch({ changes: { from, to, insert: id }, userEvent: "input.type" });
      const ms = await shown;
      const m = /evaluated in ([\d.]+) ms/.exec(document.querySelector("#timing").textContent);
      return { ms, evalMS: m ? Number(m[1]) : NaN, sent: window.__sentAt - t0, arrived: window.__previewAt - t0 };
    }, `cb:${i}:1:0`);
    if (i > 5) { // the first edits warm up
      times.push(r.ms);
      evals.push(r.evalMS);
      sent.push(r.sent);
      arrived.push(r.arrived);
    }
  }
  const p50 = quantile(times, 0.5), p95 = quantile(times, 0.95), e50 = quantile(evals, 0.5);
  console.log(`  (p50: text sent ${quantile(sent, 0.5).toFixed(1)} ms after the edit, preview received ${quantile(arrived, 0.5).toFixed(1)} ms after it)`);
  console.log(`BenchmarkPlayKeystrokeToResults  ${times.length} edits  p50 ${p50.toFixed(1)} ms  p95 ${p95.toFixed(1)} ms  server-eval-p50 ${e50.toFixed(1)} ms  p50-x-target ${(p50 / target).toFixed(2)} (target ${target} ms)  p50-x-eval ${(p50 / e50).toFixed(2)}`);
} finally {
  await browser.close();
  server.kill("SIGTERM");
  rmSync(project, { recursive: true, force: true });
}
