// Builds the playground's page into ../dist: the TypeScript bundle
// (app.js), the exported page's worker (worker.js), the stylesheet and the
// HTML. The output depends only on the
// sources and the locked package versions, so the committed bundle can be
// checked by rebuilding it.
import { build } from "esbuild";
import { copyFileSync, mkdirSync } from "node:fs";

mkdirSync("../dist", { recursive: true });
await build({
  entryPoints: ["src/main.ts"],
  bundle: true,
  minify: true,
  format: "iife",
  target: "es2022",
  legalComments: "none",
  charset: "utf8",
  sourcemap: false,
  outfile: "../dist/app.js",
  logLevel: "warning",
});
// The exported page's worker (an ES module worker): the language server
// on the WebAssembly module.
await build({
  entryPoints: ["src/worker.ts"],
  bundle: true,
  minify: true,
  format: "esm",
  target: "es2022",
  legalComments: "none",
  charset: "utf8",
  sourcemap: false,
  outfile: "../dist/worker.js",
  logLevel: "warning",
});
copyFileSync("index.html", "../dist/index.html");
copyFileSync("src/app.css", "../dist/app.css");
