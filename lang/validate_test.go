package lang

import (
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	evpact "github.com/ctxql/ctxql/eval/pact"
	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/pact"
)

// compileVerdict is the evaluator's own answer for q, as a diagnostic the
// way ValidatePACT reports it.
func compileVerdict(q *pact.Query, src string) (syntax.Diagnostic, bool) {
	if q == nil || q.Bad || q.Expr == nil {
		return syntax.Diagnostic{}, true
	}
	_, err := evpact.Compile(q, src)
	if err == nil {
		return syntax.Diagnostic{}, true
	}
	span, msg := q.Sp, err.Error()
	if e, ok := err.(*evpact.Error); ok {
		msg = e.Msg
		if e.Span != (syntax.Span{}) {
			span = e.Span
		}
	}
	return syntax.Diagnostic{Span: span, Severity: syntax.SeverityError, Origin: syntax.OriginCheck,
		Code: CodeInvalidPACT, Message: msg}, false
}

// corpusQueries returns candidate PACT queries: every line of the
// repository's txtar and .pact test files and every string literal of the
// PACT evaluator's and parser's tests. Most are not queries; those fail
// to parse, which is part of what is compared.
func corpusQueries(t *testing.T) []string {
	t.Helper()
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		s = strings.TrimSpace(s)
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, dir := range []string{"../testdata", "../syntax/pact", "../eval/pact"} {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			switch {
			case strings.HasSuffix(p, ".txtar"), strings.HasSuffix(p, ".pact"):
				b, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				for _, line := range strings.Split(string(b), "\n") {
					add(line)
				}
			case strings.HasSuffix(p, "_test.go"):
				b, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				var s scanner.Scanner
				fset := token.NewFileSet()
				s.Init(fset.AddFile(p, -1, len(b)), b, nil, 0)
				for {
					_, tk, lit := s.Scan()
					if tk == token.EOF {
						break
					}
					if tk == token.STRING {
						if v, err := strconv.Unquote(lit); err == nil {
							add(v)
						}
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestValidatePACTMatchesCompile checks that ValidatePACT, which does not
// build a plan, refuses exactly the queries the evaluator's Compile
// refuses, with the same message and span, in both dialects.
func TestValidatePACTMatchesCompile(t *testing.T) {
	qs := corpusQueries(t)
	refused := 0
	for _, src := range qs {
		for _, d := range []pact.Dialect{pact.V1, pact.V2} {
			q, _ := pact.ParseQuery(src, d)
			want, wantOK := compileVerdict(q, src)
			got, gotOK := ValidatePACT(q, src)
			if gotOK != wantOK || got.Span != want.Span || got.Message != want.Message || got.Code != want.Code ||
				got.Severity != want.Severity || got.Origin != want.Origin {
				t.Errorf("%v %q: ValidatePACT = %+v, %v; Compile says %+v, %v", d, src, got, gotOK, want, wantOK)
			}
			if !wantOK {
				refused++
			}
		}
	}
	// The corpus must exercise refusals, not only valid queries.
	if refused < 20 {
		t.Errorf("only %d of %d candidate queries are refused by Compile: the corpus is too thin", refused, 2*len(qs))
	}
	t.Logf("%d candidates, %d refusals", 2*len(qs), refused)
}
