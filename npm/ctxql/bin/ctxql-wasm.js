#!/usr/bin/env node
// ctxql-wasm: `ctxql eval`, `ctxql check` and `ctxql fmt` run on the
// WebAssembly build, with the command line's flags, output and exit codes
// (0 success, 1 an invalid query or findings, 2 usage or unreadable data).
// Data must be a file (not a directory), and no .ctxql.yaml applies.
import { readFileSync, writeFileSync, statSync } from "node:fs";
import { init, callRaw, CtxqlError } from "../index.js";

const USAGE = `usage: ctxql-wasm eval pact [--dialect v1|v2] --data FILE [--options JSON] [--explain] SELECTOR
       ctxql-wasm eval jql --data FILE [--max-bytes N] [--explain] (QUERY | --query-file F)
       ctxql-wasm eval datalog --data FILE [--max-tuples N] (RULE | --rules FILE) [--why T | --why-not T] [--why-depth N]
       ctxql-wasm check [--format text|json|sarif|github|junit] [--stdin-filename NAME] [--max-findings N] PATH...|-
       ctxql-wasm fmt [-l|--list] [--check] [-w|--write] [--stdin-filename NAME] PATH...|-
       ctxql-wasm version`;

class Exit extends Error {
  constructor(code, message) {
    super(message ?? "");
    this.exitCode = code;
  }
}
const usage = (msg) => new Exit(2, msg);

// parse reads flags (spec: name -> "string" | "bool", aliases as extra
// keys pointing to the name) and positional arguments.
function parse(args, spec) {
  const flags = {};
  const rest = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "-" || !a.startsWith("-")) {
      rest.push(a);
      continue;
    }
    if (a === "--") {
      rest.push(...args.slice(i + 1));
      break;
    }
    let [name, value] = a.includes("=") ? [a.slice(0, a.indexOf("=")), a.slice(a.indexOf("=") + 1)] : [a, undefined];
    let key = spec[name];
    if (typeof key === "string" && key.startsWith("-")) {
      name = key;
      key = spec[key];
    }
    if (key === undefined) throw usage(`ctxql: unknown flag: ${name}`);
    if (key === "bool") {
      flags[name] = value === undefined ? true : value === "true";
      continue;
    }
    if (value === undefined) {
      if (i + 1 >= args.length) throw usage(`ctxql: flag needs an argument: ${name}`);
      value = args[++i];
    }
    flags[name] = value;
  }
  return { flags, rest };
}

function readData(path) {
  if (path === undefined || path === "") return null;
  try {
    if (statSync(path).isDirectory()) throw usage(`ctxql-wasm: ${path}: a data directory needs the ctxql command line`);
    return readFileSync(path);
  } catch (e) {
    if (e instanceof Exit) throw e;
    throw usage(`ctxql-wasm: ${e.message}`);
  }
}

function readText(path) {
  try {
    return readFileSync(path === "-" ? 0 : path, "utf8");
  } catch (e) {
    throw usage(`ctxql-wasm: ${e.message}`);
  }
}

function int(flags, name, def) {
  if (flags[name] === undefined) return def;
  const n = Number(flags[name]);
  if (!Number.isInteger(n)) throw usage(`ctxql: invalid argument "${flags[name]}" for "${name}" flag`);
  return n;
}

function where(e) {
  return e.range ? `${e.range.start.line}:${e.range.start.column}: ` : "";
}

// evalError maps an error of an evaluation to its exit: 1 for an invalid
// query or a budget (2 for JQL's, as the command line), 2 for usage and
// data.
function evalError(e, language) {
  if (!(e instanceof CtxqlError)) throw e;
  if (e.code === "usage" || e.code === "data" || (language === "jql" && e.code === "limit")) {
    return new Exit(2, `ctxql eval ${language}: ${e.message}`);
  }
  if (e.code === "limit" || e.code === "internal") return new Exit(1, `ctxql eval ${language}: ${e.message}`);
  return new Exit(1, `${where(e)}${e.message} [${e.code}]`);
}

function runEval(args, out) {
  const language = args[0];
  const specs = {
    pact: { "--data": "s", "--dialect": "s", "--options": "s", "--explain": "bool", "--max-data-bytes": "s", "--timeout": "s" },
    jql: { "--data": "s", "--query-file": "s", "--max-bytes": "s", "--explain": "bool", "--max-data-bytes": "s", "--timeout": "s" },
    datalog: { "--data": "s", "--rules": "s", "--why": "s", "--why-not": "s", "--why-depth": "s", "--max-tuples": "s", "--max-data-bytes": "s", "--timeout": "s" },
  };
  if (!specs[language]) throw usage(`ctxql eval: name a language: datalog, jql, pact`);
  const { flags, rest } = parse(args.slice(1), specs[language]);
  if (!flags["--data"]) throw usage(`ctxql eval ${language}: --data is required`);
  const options = {};
  let query;
  if (language === "pact") {
    if (rest.length !== 1) throw usage(`ctxql: accepts 1 arg(s), received ${rest.length}`);
    query = rest[0];
    options.dialect = flags["--dialect"] ?? "v2";
    if (flags["--options"]) {
      try {
        options.rangeOptions = JSON.parse(flags["--options"]);
      } catch (e) {
        throw usage(`ctxql eval pact: ${e.message}`);
      }
    }
    options.explain = flags["--explain"];
  } else if (language === "jql") {
    if (flags["--query-file"] !== undefined && rest.length > 0) throw usage("ctxql eval jql: give the query as an argument or with --query-file, not both");
    query = flags["--query-file"] !== undefined ? readText(flags["--query-file"]) : rest[0];
    if (query === undefined) throw usage("ctxql eval jql: missing QUERY (or --query-file)");
    options.maxBytes = int(flags, "--max-bytes", undefined);
    if (options.maxBytes !== undefined && options.maxBytes <= 0) throw usage("ctxql eval jql: --max-bytes must be positive");
    options.explain = flags["--explain"];
  } else {
    if ((rest.length === 1) === (flags["--rules"] !== undefined)) throw usage("ctxql eval datalog: give either a RULE argument or --rules FILE");
    query = flags["--rules"] !== undefined ? readText(flags["--rules"]) : rest[0];
    options.program = flags["--rules"] !== undefined;
    const maxTuples = int(flags, "--max-tuples", undefined);
    if (maxTuples !== undefined) options.maxTuples = maxTuples <= 0 ? 2 ** 53 - 1 : maxTuples;
  }
  const data = readData(flags["--data"]);
  const name = flags["--data"];
  if (language === "datalog" && (flags["--why"] !== undefined || flags["--why-not"] !== undefined)) {
    if (flags["--why"] !== undefined && flags["--why-not"] !== undefined) throw usage("ctxql eval datalog: give one of --why, --why-not and --profile");
    const not = flags["--why-not"] !== undefined;
    let handle;
    try {
      handle = callRaw("load", { language, name }, data).handle;
    } catch (e) {
      throw evalError(e, language);
    }
    let proof;
    try {
      proof = callRaw(not ? "whyNot" : "why", {
        handle,
        rules: query,
        tuple: not ? flags["--why-not"] : flags["--why"],
        name: flags["--rules"] ?? "rule",
        depth: int(flags, "--why-depth", undefined),
        maxTuples: options.maxTuples,
      });
    } catch (e) {
      throw evalError(e, language);
    } finally {
      callRaw("release", { handle });
    }
    if (!not && !proof.derived) throw new Exit(1, proof.text.replace(/\n$/, "") + "; see --why-not");
    out(proof.text);
    if (not && proof.derived) throw new Exit(1);
    return;
  }
  let res;
  try {
    res = callRaw("evaluateOnce", { language, query, name, options: { ...options, printed: !options.explain } }, data);
  } catch (e) {
    throw evalError(e, language);
  }
  out(options.explain ? res.text : res);
}

function runCheck(args, out) {
  const { flags, rest } = parse(args, { "--format": "s", "--stdin-filename": "s", "--max-findings": "s" });
  if (rest.length === 0) throw usage("ctxql: requires at least 1 arg(s), only received 0");
  const files = rest.map((p) => {
    const file = { path: p === "-" ? (flags["--stdin-filename"] ?? "stdin.pact") : p, text: readText(p) };
    // The sample data the file's pragma names gives a Datalog program
    // its schema, as ctxql check reads it; unreadable data is none.
    let data;
    try {
      data = callRaw("dataPath", file);
    } catch (e) {
      if (e instanceof CtxqlError) throw usage(`check: ${e.message}`);
      throw e;
    }
    if (data !== null) {
      try {
        file.data = readFileSync(data, "utf8");
      } catch {
        // none
      }
    }
    return file;
  });
  let r;
  try {
    r = callRaw("report", { files, format: flags["--format"] ?? "text", maxFindings: int(flags, "--max-findings", 100) });
  } catch (e) {
    if (e instanceof CtxqlError) throw usage(`check: ${e.message}`);
    throw e;
  }
  out(r.output);
  if (r.errors) throw new Exit(1);
}

function runFmt(args, out) {
  const { flags, rest } = parse(args, { "-l": "--list", "--list": "bool", "--check": "bool", "-w": "--write", "--write": "bool", "--stdin-filename": "s" });
  if (rest.length === 0) throw usage("ctxql: requires at least 1 arg(s), only received 0");
  if (flags["--check"] && flags["--write"]) throw usage("fmt: --check and -w cannot be combined");
  let changed = false;
  let broken = false;
  for (const p of rest) {
    const stdin = p === "-";
    const name = stdin ? (flags["--stdin-filename"] ?? "stdin.pact") : p;
    const text = readText(p);
    let formatted;
    try {
      formatted = callRaw("format", { text, path: name });
    } catch (e) {
      if (!(e instanceof CtxqlError)) throw e;
      if (e.code === "usage") throw usage(`fmt: ${name}: ${e.message}`);
      process.stderr.write(`${name}:${where(e)}${e.message}\n`);
      if (stdin) throw new Exit(2);
      broken = true;
      continue;
    }
    const differs = formatted !== text;
    changed ||= differs;
    if (flags["--check"] || flags["--list"]) {
      if (differs) out(name + "\n");
    } else if (flags["--write"] && !stdin) {
      if (differs) writeFileSync(p, formatted);
    } else {
      out(formatted);
    }
  }
  if (broken) throw new Exit(2);
  if (flags["--check"] && changed) throw new Exit(1);
}

async function main(argv) {
  const chunks = [];
  const out = (s) => chunks.push(s);
  try {
    await init();
    switch (argv[0]) {
      case "eval":
        runEval(argv.slice(1), out);
        break;
      case "check":
        runCheck(argv.slice(1), out);
        break;
      case "fmt":
        runFmt(argv.slice(1), out);
        break;
      case "version":
        out(callRaw("version", {}) + "\n");
        break;
      default:
        throw usage(USAGE);
    }
    return 0;
  } catch (e) {
    if (!(e instanceof Exit)) throw e;
    if (e.message) process.stderr.write(e.message + "\n");
    return e.exitCode;
  } finally {
    process.stdout.write(chunks.join(""));
  }
}

process.exitCode = await main(process.argv.slice(2));
