// Types of @ctxql/ctxql. The operations and their results are those of
// ctxql's library protocol (api/doc.go in the ctxql repository); every
// result is what the ctxql command line prints for the same input.

/** A query language: the language table's ids. */
export type Language = "pact" | "jql" | "datalog";

/** A PACT dialect. */
export type Dialect = "v1" | "v2";

/** A place in a text: 1-based line and byte column as ctxql prints them, and the byte offset. */
export interface Position {
  line: number;
  column: number;
  offset: number;
}

/** A span of a text. */
export interface Range {
  start: Position;
  end: Position;
}

/**
 * The one error every function throws. An invalid query's code is the code
 * of its first diagnostic ("pact-syntax", "InvalidQuery", "datalog/syntax",
 * ...) with its range in the query; other codes are "usage", "data",
 * "limit" and "internal".
 */
export class CtxqlError extends Error {
  readonly code: string;
  readonly range?: Range;
  constructor(code: string, message: string, range?: Range);
}

/** Where ctxql.wasm comes from: by default the file next to the module. */
export interface InitOptions {
  wasm?: string | URL | ArrayBuffer | Uint8Array | Response | WebAssembly.Module;
}

/** Starts the WebAssembly module, once; every other function needs it done. */
export function init(options?: InitOptions): Promise<void>;

/** What `ctxql version` prints, without the newline. */
export function version(): string;

/** One diagnostic, as `ctxql check --format json` prints it (end exclusive). */
export interface Diagnostic {
  file: string;
  line: number;
  column: number;
  end_line: number;
  end_column: number;
  severity: "error" | "warning" | "info";
  code: string;
  message: string;
  fixable: boolean;
}

export interface TextOptions {
  language: Language | "markdown";
  /** The dialect of PACT text without a pragma (default v2). */
  dialect?: Dialect;
  /** The text's file name, as --stdin-filename (default "stdin" and the language's suffix). */
  path?: string;
}

export interface CheckOptions extends TextOptions {
  /**
   * The text's sample data (what its data pragma names, or the data of a
   * text without one): a Datalog program is checked against its schema.
   */
  data?: Data;
}

/** The diagnostics `ctxql check --format json` prints (no .ctxql.yaml applies). */
export function check(text: string, options: CheckOptions): Diagnostic[];

/** What `ctxql fmt` prints; a text with syntax errors throws its first one. */
export function format(text: string, options: TextOptions & { language: Language }): string;

export interface QueriesOptions extends TextOptions {
  language: Language;
  /** A byte offset of the text: only the query a run from there evaluates (PACT: the offset's line). */
  offset?: number;
}

/** One query of a text: a PACT query (one per line), a JQL query, a Datalog rule or fact. */
export interface Query {
  /** The query as written. */
  text: string;
  range: Range;
  /** Datalog: the relation of the rule's first head, the relation a run of it shows. */
  relation?: string;
}

/** The queries of a text as the language table divides it, in source order; with offset, the one there (or none). */
export function queries(text: string, options: QueriesOptions): Query[];

export interface MigrateOptions {
  /** "v2" also rewrites v1 selectors into v2 queries (--to v2). */
  to?: "v2";
  dialect?: Dialect;
  /** Also apply rewrites that may change a result (--unsafe). */
  unsafe?: boolean;
  path?: string;
}

/** A place a migration left for a manual decision. */
export interface ManualDecision {
  code?: string;
  message: string;
  range: Range;
}

export interface Migration {
  /** What `ctxql migrate` prints. */
  text: string;
  changed: boolean;
  /** What `ctxql migrate` lists on standard error. */
  manual: ManualDecision[];
}

/** Migrates a PACT text as `ctxql migrate` does. */
export function migrate(text: string, options?: MigrateOptions): Migration;

export interface EvaluateOptions {
  /** PACT: the dialect of the query (default v2). */
  dialect?: Dialect;
  /** Datalog: the text is a whole program, as --rules (the result maps relations to tuples). */
  program?: boolean;
  /** PACT, JQL: return how the query arrives at its result (--explain) instead. */
  explain?: boolean;
  /** PACT: range options (--options). */
  rangeOptions?: Record<string, unknown>;
  /** Datalog: budget of intermediate and derived tuples (--max-tuples). */
  maxTuples?: number;
  /** JQL: most bytes of result documents (--max-bytes). */
  maxBytes?: number;
}

/** An evaluation with explain: what `--explain` prints, and its parts. */
export interface Explanation {
  steps: { text: string; count: number; range?: Range }[];
  /** The index of the step that left nothing, or -1. */
  emptied: number;
  summary: string;
  text: string;
}

/**
 * The JSON value `ctxql eval <language>` prints: PACT node ids (or a
 * snapshot range's object), JQL documents, Datalog tuples (a rule) or
 * relations by name (a program).
 */
export type Result = unknown;

export interface WhyOptions {
  /** The Datalog program (as --rules). */
  rules: string;
  /** The program's name in the proof's rule positions (default "rules"). */
  name?: string;
  /** Levels of the proof tree (--why-depth). */
  depth?: number;
  maxTuples?: number;
}

export interface Proof {
  /** Whether the program derives the tuple. */
  derived: boolean;
  /** What --why (the proof tree) or --why-not (each rule's failing item) prints. */
  text: string;
}

/** A data set decoded once and queried many times; release it when done. */
export class DataSet {
  readonly language: Language;
  readonly handle: number;
  evaluate(query: string, options?: EvaluateOptions & { explain?: false }): Result;
  evaluate(query: string, options: EvaluateOptions & { explain: true }): Explanation;
  why(tuple: string, options: WhyOptions): Proof;
  whyNot(tuple: string, options: WhyOptions): Proof;
  release(): void;
}

/** Data: text (JSON, JSON Lines, YAML), its bytes, or a JSON-encodable object. */
export type Data = string | Uint8Array | ArrayBuffer | ArrayBufferView | object;

export interface LoadOptions {
  /** A file name whose suffix tells the format (JQL: ".yaml" reads YAML; default "data.json"). */
  name?: string;
}

/** Decodes the data once (`--data`), for many evaluations. */
export function load(language: Language, data: Data, options?: LoadOptions): DataSet;

/** Evaluates one query on data loaded for this call only, as `ctxql eval` does. */
export function evaluate(language: Language, query: string, data: Data, options?: EvaluateOptions & LoadOptions): Result;

/** Calls an operation of the protocol by name with its parameters (api/doc.go). */
export function callRaw(method: string, params?: object, data?: string | Uint8Array): unknown;
