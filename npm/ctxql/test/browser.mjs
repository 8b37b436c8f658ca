// node browser.mjs cases.json out.json: the differential cases through
// @ctxql/ctxql in headless Chromium. A local server serves the installed
// package (its browser entry and ctxql.wasm), cases.mjs and the cases to
// a page that imports the package as an ES module, starts it with the
// module's URL (init({wasm: url})) and runs them.
//
// Environment: CHROMIUM, the browser; PUPPETEER_DIR, a directory whose
// node_modules holds puppeteer-core.
import { createServer } from "node:http";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, extname, join, normalize } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const [casesPath, outPath] = process.argv.slice(2);
const here = dirname(fileURLToPath(import.meta.url));
const pkg = dirname(createRequire(join(here, "x.js")).resolve("@ctxql/ctxql/package.json"));
const puppeteer = (await import(pathToFileURL(createRequire(join(process.env.PUPPETEER_DIR, "x.js")).resolve("puppeteer-core")).href)).default;

const types = { ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".json": "application/json", ".html": "text/html" };
const page = `<!doctype html><meta charset="utf-8"><title>ctxql cases</title>
<script type="module">
import * as ctxql from "/pkg/browser.js";
import { runCases } from "/cases.mjs";
window.run = async () => {
  await ctxql.init({ wasm: new URL("/pkg/ctxql.wasm", location.href) });
  const { cases } = await (await fetch("/cases.json")).json();
  return JSON.stringify({ outputs: runCases(ctxql, cases) });
};
window.ready = true;
</script>`;
const server = createServer((req, res) => {
  const url = new URL(req.url, "http://localhost");
  let file;
  if (url.pathname === "/favicon.ico") {
    res.writeHead(204).end();
    return;
  }
  if (url.pathname === "/") {
    res.writeHead(200, { "content-type": "text/html" }).end(page);
    return;
  } else if (url.pathname === "/cases.json") {
    file = casesPath;
  } else if (url.pathname === "/cases.mjs") {
    file = join(here, "cases.mjs");
  } else if (url.pathname.startsWith("/pkg/")) {
    file = join(pkg, normalize(url.pathname.slice(5)).replace(/^(\.\.[/\\])+/, ""));
  }
  try {
    const body = readFileSync(file);
    res.writeHead(200, { "content-type": types[extname(file)] ?? "application/octet-stream" }).end(body);
  } catch {
    res.writeHead(404).end();
  }
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM,
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
});
try {
  const tab = await browser.newPage();
  const errors = [];
  tab.on("pageerror", (e) => errors.push(e.message));
  tab.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  await tab.goto(`http://127.0.0.1:${server.address().port}/`);
  await tab.waitForFunction("window.ready === true", { timeout: 60000 });
  const out = await tab.evaluate(() => window.run());
  if (errors.length) console.error(errors.join("\n"));
  writeFileSync(outPath, out);
} finally {
  await browser.close();
  server.close();
}
