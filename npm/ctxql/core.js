// The part of @ctxql/ctxql that Node and browsers share: the WebAssembly
// instance of ctxql's library (package api) and the functions over it.
// index.js (Node) and browser.js give it the way to read the .wasm file.
import "./wasm_exec.js";

/** The one error every function throws: code, message and, for an error in the given text, its range. */
export class CtxqlError extends Error {
  constructor(code, message, range) {
    super(message);
    this.name = "CtxqlError";
    this.code = code;
    if (range !== undefined) this.range = range;
  }
}

let ready = null; // the promise of init
let call = null; // call(method, paramsJSON, data?) of the instance
let memory = null; // the instance's memory
let instances = 0;

/**
 * makeInit returns init for an environment: readWasm(src, imports)
 * instantiates the module from a URL, path, bytes or Response. init starts
 * the module once (options.wasm: where ctxql.wasm is, by default next to
 * this file); every other function needs it done.
 */
export function makeInit(readWasm) {
  return function init(options = {}) {
    if (ready === null) {
      ready = start(readWasm, options).catch((err) => {
        ready = null;
        throw err;
      });
    }
    return ready;
  };
}

async function start(readWasm, options) {
  const go = new globalThis.Go();
  const name = `__ctxql_${Date.now().toString(36)}_${instances++}`;
  go.argv = ["ctxql", name];
  let src = options.wasm ?? new URL("./ctxql.wasm", import.meta.url);
  if (typeof WebAssembly !== "undefined" && src instanceof WebAssembly.Module) {
    const inst = await WebAssembly.instantiate(src, go.importObject);
    return run(go, inst, name);
  }
  const { instance } = await readWasm(src, go.importObject);
  return run(go, instance, name);
}

function run(go, instance, name) {
  go.run(instance); // returns when main waits for calls
  const fn = globalThis[name];
  delete globalThis[name];
  if (typeof fn !== "function") {
    throw new CtxqlError("internal", "ctxql.wasm did not start");
  }
  call = fn;
  memory = instance.exports.mem;
}

/** Instantiates wasm bytes or a Response. */
export async function instantiate(src, imports) {
  // Bytes go straight to WebAssembly: in Node, the first look at the
  // global Response loads its fetch implementation, a cost at start.
  if (src instanceof ArrayBuffer || ArrayBuffer.isView(src)) {
    return WebAssembly.instantiate(src, imports);
  }
  if (typeof Response !== "undefined" && src instanceof Response) {
    if (WebAssembly.instantiateStreaming && src.headers.get("content-type") === "application/wasm") {
      return WebAssembly.instantiateStreaming(src, imports);
    }
    src = await src.arrayBuffer();
  }
  return WebAssembly.instantiate(src, imports);
}

function invoke(method, params, data, parse = JSON.parse, ids) {
  if (call === null) {
    throw new CtxqlError("usage", "ctxql is not initialized: await init() first");
  }
  // The module returns the result's JSON text, or {error: the error's JSON
  // text}, or for evaluateNodes [at, n, fresh] (cmd/wasm).
  const out = data === undefined ? call(method, JSON.stringify(params)) : call(method, JSON.stringify(params), data);
  if (typeof out === "string") return parse(out);
  if (!Array.isArray(out)) {
    const e = JSON.parse(out.error);
    throw new CtxqlError(e.code, e.message, e.range);
  }
  return handedIDs(out, ids);
}

// handedIDs is a PACT selection's ids from evaluateNodes' answer [at, n,
// fresh]: fresh, unless empty, the ids the data set's array ids does not
// hold yet, are appended to it, and the n int32s at address at of the
// module's memory index that array, one per id of the result. The
// strings are those made when each id was first handed over (strings are
// values: the result is the same). The indices are read where they are
// (a view, not a copy: a new buffer of megabytes per call would make V8
// collect its whole heap each time).
function handedIDs([at, n, fresh], ids) {
  if (fresh !== "") {
    for (const id of parseIDs(fresh)) ids.push(id);
  }
  const idx = new Int32Array(memory.buffer, at, n);
  const res = new Array(n);
  for (let i = 0; i < n; i++) res[i] = ids[idx[i]];
  return res;
}

// parseEvaluation is JSON.parse for an evaluation's result in language. A
// PACT selection's result, when it is an array, is an array of ids, all
// strings, written compactly: without a backslash in the text no string
// has an escape, so the ids are the text between `["` and `"]` split at
// `","` — the same strings, made faster than JSON.parse makes them for
// the hundreds of thousands of ids of a large selection.
function parseEvaluation(language) {
  return language === "pact" ? parseIDs : JSON.parse;
}

function parseIDs(text) {
  const n = text.length;
  if (
    n >= 4 &&
    text.charCodeAt(0) === 91 && // [
    text.charCodeAt(1) === 34 && // "
    text.charCodeAt(n - 2) === 34 &&
    text.charCodeAt(n - 1) === 93 && // ]
    text.indexOf("\\") < 0
  ) {
    return text.slice(2, n - 2).split('","');
  }
  return JSON.parse(text);
}

/** Calls an operation of the protocol by name (api/doc.go): the escape hatch the typed functions are built on. */
export function callRaw(method, params = {}, data) {
  if (method === "evaluateNodes") {
    // It answers for a DataSet's own array of ids.
    throw new CtxqlError("usage", "evaluateNodes is DataSet.evaluate's: call evaluate");
  }
  return invoke(method, params, data);
}

function clean(obj) {
  const out = {};
  for (const [k, v] of Object.entries(obj)) if (v !== undefined) out[k] = v;
  return out;
}

function evalOptions(options = {}) {
  return clean({
    dialect: options.dialect,
    program: options.program,
    explain: options.explain,
    rangeOptions: options.rangeOptions,
    maxTuples: options.maxTuples,
    maxBytes: options.maxBytes,
  });
}

/** What `ctxql version` prints, without the newline. */
export function version() {
  return invoke("version", {});
}

/** The diagnostics `ctxql check --format json` prints for text. */
export function check(text, options = {}) {
  return invoke("check", clean({ text, language: options.language, dialect: options.dialect, path: options.path, data: dataText(options.data) }));
}

/** What `ctxql fmt` prints for text. */
export function format(text, options = {}) {
  return invoke("format", clean({ text, language: options.language, dialect: options.dialect, path: options.path }));
}

/** The queries of text as the language table divides it, each with its range (Datalog: its head's relation); with offset, the one there. */
export function queries(text, options = {}) {
  return invoke("queries", clean({ text, language: options.language, dialect: options.dialect, path: options.path, offset: options.offset }));
}

/** What `ctxql migrate [--to v2]` prints for a PACT text, with the places left for a manual decision. */
export function migrate(text, options = {}) {
  return invoke("migrate", clean({ text, to: options.to, dialect: options.dialect, unsafe: options.unsafe, path: options.path }));
}

const registry =
  typeof FinalizationRegistry !== "undefined"
    ? new FinalizationRegistry((handle) => {
        try {
          invoke("release", { handle });
        } catch {
          // already released
        }
      })
    : null;

/** A data set loaded once and queried many times. */
export class DataSet {
  #handle;
  #released = false;
  // A PACT data set's ids handed over by evaluateNodes, each once.
  #ids = [];
  constructor(language, handle) {
    this.language = language;
    this.#handle = handle;
    registry?.register(this, handle, this);
  }
  get handle() {
    return this.#handle;
  }
  #live() {
    if (this.#released) throw new CtxqlError("usage", "the data set was released");
    return this.#handle;
  }
  /** The JSON value `ctxql eval <language>` prints (with explain, the explanation). */
  evaluate(query, options = {}) {
    const params = { handle: this.#live(), query, ...evalOptions(options) };
    if (this.language !== "pact") return invoke("evaluate", params);
    return invoke("evaluateNodes", params, undefined, parseIDs, this.#ids);
  }
  /** How the Datalog program rules derives tuple (`--why`). */
  why(tuple, options = {}) {
    return invoke("why", clean({ handle: this.#live(), tuple, rules: options.rules, name: options.name, depth: options.depth, maxTuples: options.maxTuples }));
  }
  /** Why the Datalog program rules does not derive tuple (`--why-not`). */
  whyNot(tuple, options = {}) {
    return invoke("whyNot", clean({ handle: this.#live(), tuple, rules: options.rules, name: options.name, depth: options.depth, maxTuples: options.maxTuples }));
  }
  /** Frees the data; the data set cannot be used afterwards. */
  release() {
    if (this.#released) return;
    this.#released = true;
    registry?.unregister(this);
    this.#ids = [];
    invoke("release", { handle: this.#handle });
  }
}

function dataText(data) {
  if (data === undefined || typeof data === "string") return data;
  if (data instanceof Uint8Array || data instanceof ArrayBuffer || ArrayBuffer.isView(data)) return new TextDecoder().decode(data);
  return JSON.stringify(data);
}

function dataArg(data) {
  if (typeof data === "string" || data instanceof Uint8Array) return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  if (data !== null && typeof data === "object") return JSON.stringify(data);
  throw new CtxqlError("usage", "data must be a string, bytes or a JSON-encodable object");
}

/** Decodes data of a language once; evaluate queries on the returned DataSet. */
export function load(language, data, options = {}) {
  const { handle } = invoke("load", clean({ language, name: options.name }), dataArg(data));
  return new DataSet(language, handle);
}

/** Evaluates one query on data loaded for this call only. */
export function evaluate(language, query, data, options = {}) {
  return invoke("evaluateOnce", clean({ language, query, name: options.name, options: evalOptions(options) }), dataArg(data), parseEvaluation(language));
}
