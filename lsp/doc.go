// Package lsp is the ctxql language server: the Language Server Protocol
// front door over the language table (package lang).
//
// The layout follows gopls:
//
//   - Protocol and transport: stream.go (Content-Length framing over any
//     byte stream, with bounded frames), stdio.go, wire.go (the LSP
//     structures the server reads and sends), log.go. server.go hands each
//     message to the jsonrpc2 connection; notifications run in wire order,
//     requests other than initialize and shutdown concurrently, each with a
//     context that $/cancelRequest cancels. Every request goes through
//     the method table, methods.go: the one list of the methods served,
//     the language feature each needs and the capability that advertises
//     it (advertised only when some served language has the feature).
//   - Cache: session.go holds the latest immutable Snapshot of every open
//     document (text, version, language), with what is derived from it
//     computed once per snapshot and shared by the requests on it (the
//     parse, the configured linter, the findings, the run of each query;
//     a request that needs a value being computed waits for that
//     computation). workspace.go holds what the snapshots share: the
//     .ctxql.yaml of each directory with the editor's settings laid over
//     it, the resolved dialect, the sample data path of a document as the
//     table resolves it (lang.Settings.DataPath); config.go the settings;
//     data.go the loaded sample data (by file version, released beyond the
//     dataCacheBytes bound, or after the dataReleaseDelay, when no open
//     document uses it, its memory returned to the system; a load stops
//     when no request waits for it any longer); evalcache.go the
//     evaluations over it, one cache per kind of result, kept across
//     document versions by what determines them (the query's text, dialect
//     and data version; for Datalog the whole program's text), so that a
//     keystroke in one PACT or JQL query evaluates that query and no
//     other; pact_lines.go findings per line text, for a language whose
//     lines the table parses each on its own (lang.Language.Lines).
//   - One file per LSP method or method group: lifecycle.go (initialize,
//     initialized, shutdown), text.go (didOpen, didChange, didClose,
//     didSave, didChangeWatchedFiles), diagnostics.go (published and
//     pulled diagnostics, workspace/diagnostic/refresh), symbols.go
//     (documentSymbol), wsymbols.go (workspace/symbol: the outlines of the
//     open documents and of the files of the workspace folders, read
//     through the workspace's reader), folding.go, selection.go,
//     signature.go, semantic.go, hover.go, completion.go, formatting.go,
//     codeaction.go, codelens.go, inlay.go, navigation.go (definition,
//     references, rename), command.go (workspace/executeCommand:
//     ctxql.run, ctxql.why; ctxql.test in testrun.go; ctxql.setData,
//     the data pragma written by the table, in setdata.go), explain.go
//     (ctxql.explain, the steps of a query as data), run.go (evaluating a
//     query for previews, lenses, hints and data findings; the
//     ctxql/preview notification), steps.go (the count after each step of
//     a query).
//   - Languages: the language table decides what a document is
//     (lang.ForName on its name, else the client's language id). The
//     server holds one implementation of Language per table language it
//     serves, whose optional features are small interfaces (Diagnoser,
//     Hoverer, Completer, Runner, Tracer, Folder, SignatureHelper, ...).
//     The snapshot's parse result is the table's lang.Parsed
//     (lang.Embedded for host files); the server passes its syntax tree to
//     the linter and does not look into it. table.go adapts what the table
//     answers alike for every language (outline, semantic tokens, folds,
//     selection ranges, signatures, completion with the sample data's
//     words, definitions, references and rename) to the protocol's types;
//     tablelang.go serves a table language through those alone (Markdown,
//     with its rules' findings such as DOC001). The query languages have
//     their files by feature for the rest: pact.go, pact_hover.go,
//     pact_run.go; jql.go, jql_hover.go, jql_run.go; datalog.go,
//     datalog_hover.go, datalog_run.go, datalog_why.go; host.go. Each of
//     those types names the table row it serves (its ID method) and asks
//     the table everything else: parsing, validity, dialects, the data
//     pragma, formatting, migration, data loading, evaluation, the parts
//     of a program, explanation and descriptions. Query test files
//     (*.ctxqltest.yaml, package qtest) are no language of the table:
//     testfile.go recognises them by name (qtest.IsTestFile) and gives
//     them their format's problems and a "Run test" lens per case;
//     testrun.go runs the cases and keeps a failing case's diagnostics on
//     its query and on the case until it passes. The server imports no
//     evaluator, formatter, migrator or language front end
//     (TestFrontDoorImports).
//
// Files: the sample data, the .ctxql.yaml files and the workspace
// folders' files are read through internal/files (regular files only; a
// FIFO or a device is refused, never waited on), the sample data and the
// workspace files through Options.Files when it is set (a reader confined
// to a project), within the data size setting.
//
// Diagnostics are pushed to clients that cannot pull them: the findings of
// the text first, then those that need the sample data. A client that
// pulls gets the findings of the text at once and the data findings
// evaluated so far; the rest are evaluated in the background and the
// client is asked to pull again (workspace/diagnostic/refresh), as it is
// when a data file an open document uses changes on disk.
//
// Document positions go through the syntax.File mapper: the server
// advertises UTF-16 and switches to UTF-8 when the client offers it.
package lsp
