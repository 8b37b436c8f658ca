package lsp

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/lint"
	"github.com/ctxql/ctxql/syntax"
)

// CodeAction is a titled set of edits to the document, such as a
// diagnostic's suggested fix or a migration, or a command to run, such as
// an explanation. Kind is an LSP CodeActionKind ("quickfix",
// "refactor.rewrite", "source.fixAll").
type CodeAction struct {
	Title       string
	Kind        string
	Edits       []syntax.TextEdit
	Diagnostics []syntax.Diagnostic // the diagnostics it resolves, if any
	Preferred   bool
	// Command and Arguments name a workspace/executeCommand command the
	// action runs instead of edits.
	Command   string
	Arguments []any
}

// CodeActioner proposes code actions for a byte span of a document
// (textDocument/codeAction).
type CodeActioner interface {
	CodeActions(ctx context.Context, s *Snapshot, span syntax.Span) []CodeAction
}

// codeActionKinds are the kinds of the actions the server offers.
var codeActionKinds = []string{"quickfix", "source.fixAll", "source.migrate", kindExplain}

type wireCodeAction struct {
	Title       string           `json:"title"`
	Kind        string           `json:"kind,omitempty"`
	Diagnostics []wireDiagnostic `json:"diagnostics,omitempty"`
	IsPreferred bool             `json:"isPreferred,omitempty"`
	Edit        *struct {
		Changes map[string][]wireTextEdit `json:"changes"`
	} `json:"edit,omitempty"`
	Command *wireCommand `json:"command,omitempty"`
}

func (s *server) codeAction(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct {
		TextDocument textDocumentIdentifier `json:"textDocument"`
		Range        Range                  `json:"range"`
		Context      struct {
			Only []string `json:"only"`
		} `json:"context"`
	}
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	snap, err := s.snapshotOf(params)
	if err != nil {
		return nil, err
	}
	out := []wireCodeAction{}
	ca, ok := snap.Lang.(CodeActioner)
	if !ok {
		return out, nil
	}
	ctx = context.WithValue(ctx, onlyKey{}, p.Context.Only)
	for _, a := range ca.CodeActions(ctx, snap, s.spanOf(snap.File, p.Range)) {
		if !kindMatches(a.Kind, p.Context.Only) {
			continue
		}
		w := wireCodeAction{Title: a.Title, Kind: a.Kind, IsPreferred: a.Preferred}
		if len(a.Diagnostics) > 0 {
			w.Diagnostics = s.toWire(snap, a.Diagnostics)
		}
		if a.Command != "" {
			w.Command = &wireCommand{Title: a.Title, Command: a.Command, Arguments: a.Arguments}
		} else {
			w.Edit = &struct {
				Changes map[string][]wireTextEdit `json:"changes"`
			}{Changes: map[string][]wireTextEdit{snap.URI: s.textEdits(snap.File, a.Edits)}}
		}
		out = append(out, w)
	}
	return out, nil
}

// onlyKey carries the requested kinds (context.only) to the languages, so
// that they skip computing actions nobody asked for.
type onlyKey struct{}

// wanted reports whether the request in ctx asks for actions of kind.
func wanted(ctx context.Context, kind string) bool {
	only, _ := ctx.Value(onlyKey{}).([]string)
	return kindMatches(kind, only)
}

// kindMatches reports whether an action of kind is asked for by only (the
// client's context.only: kinds or their parents, "quickfix" or "source");
// an empty only asks for every kind.
func kindMatches(kind string, only []string) bool {
	if len(only) == 0 {
		return true
	}
	for _, o := range only {
		if kind == o || strings.HasPrefix(kind, o+".") {
			return true
		}
	}
	return false
}

// lintActions offers, for the findings overlapping span, each suggested
// fix as a quick fix (safe ones preferred, unsafe ones titled as such; the
// parsers' fixes, such as Datalog's ':-' → '<--', included) and, for rule
// findings when the file's syntax has comments, a directive suppressing
// the finding on its line (rule findings only); and "fix all" when the
// file has safe fixes.
func lintActions(ctx context.Context, l *lint.Linter, s *Snapshot, diags []syntax.Diagnostic, span syntax.Span, canSuppress bool) []CodeAction {
	var out []CodeAction
	for _, d := range diags {
		if d.Span.End < span.Start || d.Span.Start > span.End {
			continue
		}
		for _, f := range d.SuggestedFixes {
			title := f.Message
			if f.Unsafe {
				title += " (may change the result)"
			}
			out = append(out, CodeAction{Title: title, Kind: "quickfix", Edits: f.TextEdits,
				Diagnostics: []syntax.Diagnostic{d}, Preferred: !f.Unsafe})
		}
		// A syntax or check error makes the file invalid whatever a
		// directive says: the table says what can be suppressed.
		if canSuppress && lang.Suppressible(d) {
			out = append(out, CodeAction{Title: "Suppress " + d.Code + " on this line", Kind: "quickfix",
				Edits: []syntax.TextEdit{lint.SuppressEdit(s.File.Name(), s.File, d)}, Diagnostics: []syntax.Diagnostic{d}})
		}
	}
	if !wanted(ctx, "source.fixAll") {
		return out
	}
	fixed, _, err := l.Fix(ctx, s.File.Name(), s.File.Text(), false)
	if err == nil && fixed != s.File.Text() {
		out = append(out, CodeAction{Title: "Fix all safe ctxql findings in the file", Kind: "source.fixAll",
			Edits: []syntax.TextEdit{{Span: syntax.Sp(0, s.File.Len()), NewText: fixed}}})
	}
	return out
}
