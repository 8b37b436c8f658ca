package lang

import (
	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/datalog"
	"github.com/ctxql/ctxql/syntax/jql"
	"github.com/ctxql/ctxql/syntax/pact"
)

// CompletionKind says what a completion proposes.
type CompletionKind uint8

// The completion kinds.
const (
	CompleteRoot      CompletionKind = iota + 1 // a PACT root
	CompleteType                                // a PACT node type
	CompletePseudo                              // a PACT pseudo-class
	CompleteAttribute                           // a PACT attribute key
	CompleteControl                             // a PACT control
	CompleteSnapshot                            // a PACT snapshot reference
	CompleteDomain                              // a JQL domain
	CompleteField                               // a JQL field
	CompleteKey                                 // a JQL top-level key
	CompleteOperator                            // a JQL where operator
	CompleteRelation                            // a Datalog relation
	CompleteVariable                            // a Datalog variable of the rule
	CompleteKeyword                             // a Datalog keyword or aggregator
	CompleteFunction                            // a Datalog function on text and numbers (a method or format!)
)

// Completion is one proposal: Edit replaces the partial word before the
// cursor (possibly empty) with the proposal. When Snippet is set, Edit's
// text is an LSP snippet with "${1:arg}" placeholders.
type Completion struct {
	Label   string
	Kind    CompletionKind
	Detail  string
	Edit    syntax.TextEdit
	Snippet bool
}

// CompletionData is what the sample data adds to completion.
type CompletionData struct {
	// Vocabulary is the PACT data's node types and attribute keys
	// (DataVocabulary).
	Vocabulary Vocabulary
	// Fields returns the top-level fields the JQL sample documents of a
	// domain have (SampleDocs); nil when there are none.
	Fields func(domain string) []string
}

// Complete proposes what can be written at the byte offset off: for PACT
// roots, types, pseudo-classes, attribute keys, snapshots and controls;
// for JQL domains, top-level keys, fields and where operators; for
// Datalog relations (with argument placeholders), the rule's variables,
// keywords and aggregators. data adds the words of the sample data.
func (p *Parsed) Complete(off int, data CompletionData) []Completion {
	switch a := p.AST.(type) {
	case *pact.File:
		return completePACT(a, off, data.Vocabulary)
	case *jql.File:
		var fields []string
		if q := jqlQueryAt(a, off); q != nil && data.Fields != nil {
			fields = data.Fields(q.Domain())
		}
		return completeJQL(a, jql.NewSchema(), off, fields)
	case *datalog.Program:
		return completeDatalog(a, p.datalogInfo(), off)
	}
	return nil
}

// datalogInfo is the Datalog program's check, made for a program with
// errors too (the editor completes and describes programs being
// written).
func (p *Parsed) datalogInfo() *datalog.Info {
	if p.Info != nil {
		return p.Info
	}
	prog, ok := p.AST.(*datalog.Program)
	if !ok {
		return nil
	}
	p.editorInfo.Do(func() { p.editorInfoVal = datalog.Check(prog, nil) })
	return p.editorInfoVal
}
