// Package api is ctxql as a library: the operations of the command line
// (version, check, format, migrate, evaluate, why / why-not) on values
// shaped like JSON, for programs that embed ctxql rather than run it. The
// `ctxql worker` command speaks it as JSON lines over standard input and
// output, the WebAssembly build (cmd/wasm) exposes it to JavaScript, and
// the npm package @ctxql/ctxql and the Python package wrap those two.
//
// Every result is what the command line prints for the same input, so a
// query checked and tested with ctxql gives the same answer inside an
// agent: an evaluation is the JSON value `ctxql eval LANGUAGE` prints, a
// check's diagnostics are the objects of `ctxql check --format json`, a
// format is what `ctxql fmt` prints, a migration what `ctxql migrate`
// prints. The package reads no file: text and data come in as values, and
// no .ctxql.yaml applies (every rule at its default severity).
//
// # Operations
//
// A Session holds the loaded data sets, each under an integer handle, so
// that the data an agent queries many times is decoded once. Call
// dispatches one operation by name with JSON parameters; these are its
// methods, parameters (optional ones marked ?) and results:
//
//	version      {}                                    string: what `ctxql version` prints, without the newline
//	check        {text, language, dialect?, path?,     array of diagnostics as `ctxql check --format json` prints them:
//	              data?}                               {file, line, column, end_line, end_column, severity, code, message, fixable}
//	dataPath     {text, path}                          the file the text's data pragma names, resolved as check does; or null
//	report       {files: [{path, text, data?}],        {output, errors}: what `ctxql check --format FORMAT` prints for
//	              format?, dialect?, maxFindings?}     the files (default text), and whether a finding is an error
//	format       {text, language, dialect?, path?}     string: what `ctxql fmt` prints
//	queries      {text, language, dialect?, path?,     array of the text's queries in source order, each {text, range,
//	              offset?}                             relation?}; with offset (a byte offset) only the query there
//	migrate      {text, to?, dialect?, unsafe?, path?} {text, changed, manual}: text is what `ctxql migrate` prints,
//	                                                   manual the places left for a decision, each {code, message, range}
//	load         {language, data | dataBase64, name?}  {handle}
//	evaluate     {handle, query, dialect?, program?,   the JSON value `ctxql eval LANGUAGE` prints; with explain, an
//	              explain?, rangeOptions?,             Explanation {steps: [{text, count, range?}], emptied, summary, text}
//	              maxTuples?, maxBytes?, printed?}     whose text is what `ctxql eval pact|jql --explain` prints;
//	                                                   with printed, the result's text as printed (a string)
//	why, whyNot  {handle, rules, tuple, name?, depth?, {derived, text}: whether the tuple is derived and the proof
//	              maxTuples?}                          (why) or the failing rules (whyNot) as `--why`/`--why-not` print them
//	evaluateOnce {language, query, data | dataBase64,  as evaluate, on data loaded for this call only
//	              name?, options?}
//	release      {handle}                              null
//
// language is a language of the table: "pact", "jql" or "datalog" (check
// also takes "markdown"). dialect is a PACT dialect, "v1" or "v2" (a
// file's pragma beats it; default v2; the languages without dialects
// ignore it). path names the text for check and format as
// --stdin-filename does (default "stdin" and the language's suffix); its
// suffix must be the language's. load's name tells the data's format by
// its suffix where the language reads several (JQL: a ".yaml" or ".yml"
// name reads YAML; default "data.json"); why's names the program in the
// proof as the --rules file's name does (default "rules"). check's and
// report's data is the text's sample data (what its pragma names, or the
// data of a text without one): a Datalog program is checked against its
// schema, as check does with the file the pragma names.
//
// queries divides a text into its queries as the language table does (the
// language server's runs and code lenses divide it the same way): a PACT
// query per line, each JSON or YAML query of a JQL text, each rule and
// fact of a Datalog program, whose relation is its first head's (the
// relation a run of the rule shows). With offset it gives the query a run
// from that place of the text evaluates: in PACT the query of the
// offset's line, elsewhere the last query whose range touches it; none
// when no query is there.
//
// program evaluates Datalog text as a whole program, as --rules does (the
// result maps each derived relation to its tuples); otherwise the text is
// one query rule. A query evaluated on its own (PACT, JQL) is checked
// before evaluateOnce reads the data, as the command line does.
// rangeOptions are PACT's --options (a JSON object); maxTuples and
// maxBytes are Datalog's --max-tuples and JQL's --max-bytes (absent or 0:
// the command line's defaults). evaluateOnce's options are evaluate's
// parameters other than handle and query.
//
// # Errors
//
// Every failure is an *Error: {code, message, range?}. An invalid query's
// code is the diagnostic code of its first error ("pact-syntax",
// "InvalidQuery", "datalog/syntax", ...) and its range locates it in the
// query; a text that does not parse for format or migrate fails the same
// way. The other codes are "usage" (unknown method, handle, language or
// parameter, a bad dialect or option), "data" (data that cannot be
// decoded), "limit" (an evaluation stopped by its budget or its deadline)
// and "internal". A range is {start, end}, each {line, column, offset}:
// 1-based line and byte column as the command line prints them, and the
// byte offset.
//
// # The worker
//
// `ctxql worker` reads one request per line, {"id": N, "method": M,
// "params": {...}}, and answers each with one line, {"id": N, "result": R}
// or {"id": N, "error": E}, one request after the other in their order. It exits
// when its standard input closes or its parent process dies.
package api
