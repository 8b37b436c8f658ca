// Package lsp is the ctxql language server: the Language Server Protocol
// front door over the language table (package lang).
//
// The layout follows gopls:
//
//   - Protocol and transport: stream.go (Content-Length framing over any
//     byte stream), stdio.go, wire.go (the LSP structures the server
//     sends), log.go. server.go reads each message, answers requests
//     concurrently (each with a context that $/cancelRequest cancels) and
//     dispatches through the method table, methods.go: the one list of the
//     methods served, the language feature each needs and the capability
//     that advertises it.
//   - Cache: session.go holds the latest immutable Snapshot of every open
//     document (text, version, language, parse result computed once);
//     workspace.go what the snapshots share (the .ctxql.yaml of each
//     directory with the editor's settings laid over it, the resolved
//     dialect, the sample data of a document); config.go the settings;
//     data.go the loaded sample data (by file version, released beyond the
//     dataCacheBytes bound when no open document uses it); evalcache.go
//     the evaluations over it, cached across document versions by what
//     determines them (query text, dialect, data version), so a keystroke
//     evaluates the query it changed and nothing else; pact_lines.go PACT
//     findings per line text.
//   - One file per LSP method or method group: lifecycle.go (initialize,
//     initialized, shutdown), text.go (didOpen, didChange, didClose,
//     didSave, didChangeWatchedFiles), diagnostics.go (published and
//     pulled diagnostics, workspace/diagnostic/refresh), symbols.go,
//     semantic.go, hover.go, completion.go, formatting.go, codeaction.go,
//     codelens.go, inlay.go, navigation.go (definition, references,
//     rename), command.go (workspace/executeCommand: ctxql.run, ctxql.why;
//     ctxql.test in testrun.go), explain.go (ctxql.explain, the steps of a
//     query as data),
//     run.go (evaluating a query for previews, lenses, hints and data
//     findings; the ctxql/preview notification), steps.go (the count after
//     each step of a query).
//   - Languages: the language table alone decides what a document is
//     (lang.ForName); the server holds one implementation of Language per
//     table language, whose optional features are small interfaces
//     (Diagnoser, Hoverer, Completer, Runner, Tracer, ...). The snapshot's
//     parse result is the table's lang.Parsed (lang.Embedded for host
//     files); the server never looks into a syntax tree. table.go adapts
//     what the table answers alike for every language (outline, semantic
//     tokens, completion with the sample data's words, Datalog
//     definitions, references and rename) to the protocol's types; each
//     language has its files by feature for the rest: pact.go,
//     pact_hover.go, pact_run.go; jql.go, jql_hover.go, jql_run.go;
//     datalog.go, datalog_hover.go, datalog_run.go, datalog_why.go;
//     host.go. Query test files (*.ctxqltest.yaml, package qtest) are no
//     language of the table: testfile.go recognises them by name and gives
//     them their format's problems and a "Run test" lens per case;
//     testrun.go runs the cases and keeps a failing case's diagnostics on
//     its query and on the case until it passes. Parsing, validity, dialects, formatting, migration, data
//     loading, evaluation, explanation, descriptions and every other
//     per-language answer come from the table: the server imports no
//     evaluator, formatter, migrator or language front end
//     (TestFrontDoorImports).
//
// Diagnostics are pushed to clients that cannot pull them: the findings of
// the text first, then those that need the sample data. A client that
// pulls gets the findings of the text at once and the data findings
// evaluated so far; the rest are evaluated in the background and the
// client is asked to pull again (workspace/diagnostic/refresh), as it is
// when a data file an open document uses changes on disk.
//
// All positions go through the syntax.File mapper: the server advertises
// UTF-16 and switches to UTF-8 when the client offers it.
package lsp
