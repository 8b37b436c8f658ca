package lsp

import (
	"context"
	"fmt"

	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/qtest"
	"github.com/ctxql/ctxql/syntax"
)

// TestFileID is the identifier the server gives query test files
// (*.ctxqltest.yaml, package qtest). They are YAML, not a language of the
// language table: the server recognises them by their name alone, reports
// the problems of the format as diagnostics and offers a "Run test" lens
// on each case (CommandTest).
const TestFileID lang.ID = "ctxqltest"

// testLanguage serves query test files.
type testLanguage struct{}

// ID returns TestFileID.
func (testLanguage) ID() lang.ID { return TestFileID }

// Parse parses a test file; the result is a *qtest.File.
func (testLanguage) Parse(f *syntax.File) any {
	return qtest.Parse(f.Name(), []byte(f.Text()))
}

// testFileOf returns the parsed test file of a snapshot, or nil.
func testFileOf(s *Snapshot) *qtest.File {
	f, _ := s.Parsed().(*qtest.File)
	return f
}

// Diagnostics reports the problems of the test file itself (unknown keys,
// values of the wrong kind, cases without a name or expectations), each
// at its position, as "ctxql test" reports them.
func (testLanguage) Diagnostics(_ context.Context, s *Snapshot) []syntax.Diagnostic {
	f := testFileOf(s)
	if f == nil {
		return nil
	}
	ds := append([]syntax.Diagnostic(nil), f.Diagnostics...)
	syntax.SortDiagnostics(ds)
	return ds
}

// CodeLenses puts "Run all tests" at the top of a test file and "Run test"
// on each case. A file with errors runs none of its cases, so it gets no
// lenses.
func (testLanguage) CodeLenses(_ context.Context, s *Snapshot) []CodeLens {
	f := testFileOf(s)
	if f == nil || len(f.Diagnostics) > 0 || len(f.Cases) == 0 {
		return nil
	}
	out := []CodeLens{{Span: syntax.Sp(0, 0), Title: fmt.Sprintf("▶ Run all tests (%d)", len(f.Cases)),
		Command: CommandTest, Arguments: []any{s.URI}}}
	for _, c := range f.Cases {
		out = append(out, CodeLens{Span: syntax.Sp(c.Sp.Start, c.Sp.Start), Title: "▶ Run test",
			Command: CommandTest, Arguments: []any{s.URI, c.Name}})
	}
	return out
}

// testFileLanguage returns the server's test-file language when name is a
// query test file and the server serves them, else nil.
func testFileLanguage(langs []Language, name string) Language {
	if !qtest.IsTestFile(name) {
		return nil
	}
	for _, l := range langs {
		if l.ID() == TestFileID {
			return l
		}
	}
	return nil
}
