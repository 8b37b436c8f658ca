package mcpserver

import (
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxql/ctxql/acp"
	"github.com/ctxql/ctxql/lang"
)

// Values of the enumerated parameters, as the tools' input schemas list
// them.
var (
	queryTypes   = []string{"symbol", "file", "domain", "callers", "callees", "search", "stats"}
	expandModes  = []string{"summary", "full", "inline", "annotated"}
	debugActions = []string{"start", "attempt", "result", "revert", "resolve", "status"}
	hackActions  = []string{"mark", "list", "revert", "cleanup"}
	contentModes = []string{"unified", "jsonpatch", "tokens"}
)

// inputSchema is the schema of A with the enumerations of its named
// top-level properties.
func inputSchema[A any](enums map[string][]string) *jsonschema.Schema {
	s := schemaFor[A]()
	for name, vals := range enums {
		p := s.Properties[name]
		for _, v := range vals {
			p.Enum = append(p.Enum, v)
		}
	}
	return s
}

// schemaFor infers the schema of T; the types given to it are the
// package's own, so it cannot fail.
func schemaFor[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("schema of %T: %v", *new(T), err))
	}
	return s
}

// pactOptionsSchema describes the options of pact_select, which the
// evaluator decodes itself (refusing keys it does not know).
func pactOptionsSchema() *jsonschema.Schema {
	n := func(desc string) *jsonschema.Schema { return &jsonschema.Schema{Type: "integer", Description: desc} }
	modes := make([]any, len(contentModes))
	for i, m := range contentModes {
		modes[i] = m
	}
	return &jsonschema.Schema{
		Type:        "object",
		Description: "options of a snapshot-range query (@a..@b); they do not affect other results",
		Properties: map[string]*jsonschema.Schema{
			"includeContent":        {Type: "boolean", Description: "include the changed content of each node"},
			"contentMode":           {Type: "string", Enum: modes, Description: "how changed content is shown: unified (a unified diff, the default), jsonpatch or tokens"},
			"contextLines":          n("lines of context around each change of a unified diff"),
			"materialize":           {Type: "array", Items: &jsonschema.Schema{Type: "string"}, Description: "fields to write out in full for each changed node"},
			"maxSnapshots":          n("most snapshots a range may span (at least 1)"),
			"maxChangesPerSnapshot": n("most changes reported per snapshot"),
		},
	}
}

// diagSchema is the schema of a Diag. Each schema is a fresh value: the
// SDK refuses a schema that holds one value twice.
func diagSchema() *jsonschema.Schema {
	return &jsonschema.Schema{
		Type:        "object",
		Description: "a diagnostic with its byte span and 1-based line and byte column",
		Properties: map[string]*jsonschema.Schema{
			"severity": {Type: "string", Description: "error, warning, info or hint"},
			"code":     {Type: "string", Description: "the diagnostic's code"},
			"message":  {Type: "string", Description: "what is wrong"},
			"start":    {Type: "integer", Description: "byte offset where the span starts"},
			"end":      {Type: "integer", Description: "byte offset where the span ends (exclusive)"},
			"line":     {Type: "integer", Description: "1-based line of the start"},
			"column":   {Type: "integer", Description: "1-based byte column of the start"},
		},
		Required: []string{"severity", "message", "start", "end", "line", "column"},
	}
}

// rangeDiffSchema is the schema of the range diff of a snapshot-range PACT
// query; every key it requires it defines, as strict validators demand.
func rangeDiffSchema() *jsonschema.Schema {
	snapshot := func(desc string) *jsonschema.Schema {
		return &jsonschema.Schema{Type: "object", Description: desc}
	}
	return &jsonschema.Schema{
		Type:        "object",
		Description: "the range diff: query, snapshots, diffs, mode, and limits and warnings when any",
		Properties: map[string]*jsonschema.Schema{
			"query":     {Type: "string", Description: "the query evaluated"},
			"snapshots": {Type: "array", Items: snapshot("a snapshot of the range: kind, value, label and cycle"), Description: "the snapshots of the range"},
			"diffs":     {Type: "array", Items: snapshot("the difference between two consecutive snapshots"), Description: "one difference per pair of consecutive snapshots"},
			"mode":      {Type: "string", Description: "how changed content is shown"},
			"limits":    {Type: "object", Description: "the caps applied to the range, when any"},
			"warnings":  {Type: "array", Items: &jsonschema.Schema{Type: "string"}, Description: "warnings, when any"},
		},
		Required: []string{"query", "snapshots", "diffs", "mode"},
	}
}

func stringList() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "array", Items: &jsonschema.Schema{Type: "string"}}
}

// langResultSchema is the output schema of a language tool whose results
// are described by results.
func langResultSchema(desc string, results *jsonschema.Schema) *jsonschema.Schema {
	return &jsonschema.Schema{
		Type:        "object",
		Description: desc,
		Properties: map[string]*jsonschema.Schema{
			"results":     results,
			"diagnostics": {Type: "array", Items: diagSchema(), Description: "errors that prevented the results, or warnings"},
		},
		Required: []string{"results", "diagnostics"},
	}
}

// oneOfObjects is an object schema that is any of variants.
func oneOfObjects(desc string, variants ...*jsonschema.Schema) *jsonschema.Schema {
	return &jsonschema.Schema{Type: "object", Description: desc, AnyOf: variants}
}

func described(s *jsonschema.Schema, desc string) *jsonschema.Schema {
	s.Description = desc
	return s
}

// Annotations of the tools: read-only ones, and the two that write the
// state file (acp_hack revert deletes a marker).
func readOnly(title string) *mcp.ToolAnnotations {
	f := false
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, DestructiveHint: &f, IdempotentHint: true, OpenWorldHint: &f}
}

func writes(title string, destructive bool) *mcp.ToolAnnotations {
	f := false
	return &mcp.ToolAnnotations{Title: title, DestructiveHint: &destructive, OpenWorldHint: &f}
}

// tools describes every tool of the server.
func (s *Server) toolSpecs() []*mcp.Tool {
	pactIn := inputSchema[PactArgs](map[string][]string{"dialect": lang.DialectNames()})
	pactIn.Properties["options"] = pactOptionsSchema()
	return []*mcp.Tool{
		{Name: "acp_query", Description: "Query the codebase index: symbol, file, domain, callers, callees, search or stats.",
			InputSchema: inputSchema[QueryArgs](map[string][]string{"type": queryTypes}),
			OutputSchema: oneOfObjects("the record asked for, by query type",
				described(schemaFor[acp.Symbol](), "symbol: the symbol's metadata"),
				described(schemaFor[acp.File](), "file: the file's metadata"),
				described(schemaFor[acp.Domain](), "domain: the domain's files and symbols"),
				described(schemaFor[CallerList](), "callers: the symbol and its callers, an empty list when it has none"),
				described(schemaFor[CalleeList](), "callees: the symbol and its callees, an empty list when it has none"),
				described(schemaFor[acp.SearchResult](), "search: the symbols and files matching the pattern"),
				described(schemaFor[acp.StatsView](), "stats: the counts of the index")),
			Annotations: readOnly("Query the codebase index")},
		{Name: "acp_constraints", Description: "Check constraints before modifying a file. Call this before modifying any file.",
			InputSchema:  inputSchema[ConstraintsArgs](nil),
			OutputSchema: described(schemaFor[acp.ToolConstraints](), "the file's lock level, rules and whether it may be modified"),
			Annotations:  readOnly("Check a file's constraints")},
		{Name: "acp_expand", Description: "Expand $VAR references to their values (modes: summary, full, inline, annotated).",
			InputSchema:  inputSchema[ExpandArgs](map[string][]string{"mode": expandModes}),
			OutputSchema: described(schemaFor[acp.Expansion](), "the text with its references expanded, and the variables found"),
			Annotations:  readOnly("Expand variables")},
		{Name: "acp_debug", Description: "Manage debugging sessions: start, attempt, result, revert, resolve, status.",
			InputSchema: inputSchema[DebugArgs](map[string][]string{"action": debugActions}),
			OutputSchema: oneOfObjects("the session (start, resolve, status) or the attempt (attempt, result, revert)",
				described(schemaFor[acp.DebugSession](), "a debug session"),
				described(schemaFor[acp.Attempt](), "an attempt of a session")),
			Annotations: writes("Track debugging sessions", false)},
		{Name: "acp_hack", Description: "Track temporary code: mark, list, revert, cleanup.",
			InputSchema: inputSchema[HackArgs](map[string][]string{"action": hackActions}),
			OutputSchema: oneOfObjects("the marker (mark), the markers (list, cleanup) or the removed marker (revert)",
				described(schemaFor[acp.Hack](), "a marker"),
				described(schemaFor[HackList](), "markers and their count"),
				described(schemaFor[HackReverted](), "the removed marker")),
			Annotations: writes("Track temporary code", true)},
		{Name: "pact_select", Description: "Evaluate a PACT selector or query over a context snapshot file; returns node ids (or a range diff) or diagnostics with positions.",
			InputSchema: pactIn,
			OutputSchema: langResultSchema("node ids or a range diff, or the diagnostics of a query that does not compile",
				&jsonschema.Schema{Description: "the matched node ids in result order, or the range diff of a snapshot-range query", AnyOf: []*jsonschema.Schema{stringList(),
					rangeDiffSchema()}}),
			Annotations: readOnly("Evaluate a PACT query")},
		{Name: "jql_query", Description: "Evaluate a JQL query over sessions and activities data; returns documents or diagnostics with positions.",
			InputSchema: inputSchema[LangArgs](nil),
			OutputSchema: langResultSchema("documents, or the diagnostics of an invalid query",
				&jsonschema.Schema{Type: "array", Items: &jsonschema.Schema{Description: "a matched document, projected"}, Description: "the matched documents in result order"}),
			Annotations: readOnly("Evaluate a JQL query")},
		{Name: "jql_schema", Description: "Return the JQL schema, or check a JQL query against it and return diagnostics with positions.",
			InputSchema:  inputSchema[SchemaArgs](nil),
			OutputSchema: &jsonschema.Schema{Type: "object", Description: "the JQL schema (no query), or {results: {valid}, diagnostics} for a query"},
			Annotations:  readOnly("JQL schema")},
		{Name: "datalog_query", Description: "Evaluate a Datalog (Ascent) query rule or program over relation data; returns tuples or diagnostics with positions.",
			InputSchema: inputSchema[DatalogArgs](nil),
			OutputSchema: langResultSchema("tuples, or every derived relation of a program, with diagnostics",
				&jsonschema.Schema{Description: "the tuples of the query's head (a rule), or each derived relation's tuples (a program)", AnyOf: []*jsonschema.Schema{
					{Type: "array", Items: stringList()},
					{Type: "object", AdditionalProperties: &jsonschema.Schema{Type: "array", Items: stringList()}},
				}}),
			Annotations: readOnly("Evaluate a Datalog query")},
	}
}
