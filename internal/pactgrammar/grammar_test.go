package pactgrammar

import (
	"strings"
	"testing"

	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/pact"
)

// selectors are v1 selectors both parsers accept; they include the PACT
// benchmark's selectors.
var selectors = []string{
	"@t0 ^seq .mt:depth(1-2) .mc > .cb[role='assistant']",
	"@t-5..-1 ^ah .cb:first, .cb:last",
	".seq .mt .mc > .cb[role='assistant']",
	".cb[ttl<=1]",
	".cb[ttl>1]",
	"#a1",
	".mt:nth(3) .cb",
	"^sys .cb:summary",
	"@c42 .mc > *[kind]",
	".mt:depth(1, 3-4) > .mc",
}

// bad are selectors with errors at known places, one or several.
var bad = []struct {
	src    string
	errors int // errors the hand-written parser reports
}{
	{".cb[ttl<=]", 1},
	{".mt > > .cb", 1},
	{".cb[ttl<=], .mt:nth(, .mc[=1]", 3},
}

func parsers(t testing.TB) map[string]func(string) (*Selector, error) {
	re, err := NewRegexpParser()
	if err != nil {
		t.Fatal(err)
	}
	hand, err := NewHandLexParser()
	if err != nil {
		t.Fatal(err)
	}
	return map[string]func(string) (*Selector, error){
		"regexp-lexer": func(s string) (*Selector, error) { return re.ParseString("", s) },
		"hand-lexer":   func(s string) (*Selector, error) { return hand.ParseString("", s) },
	}
}

// TestGrammarAgreesWithParser checks that the grammar accepts every selector
// the hand parser accepts, with the same number of comma-separated chains and
// compound selectors, so the benchmarks compare like with like.
func TestGrammarAgreesWithParser(t *testing.T) {
	for name, parse := range parsers(t) {
		for _, src := range selectors {
			q, diags := pact.ParseQuery(src, pact.V1)
			if len(diags) > 0 {
				t.Fatalf("hand parser rejects %q: %v", src, diags)
			}
			sel, err := parse(src)
			if err != nil {
				t.Errorf("%s: %q: %v", name, src, err)
				continue
			}
			if got, want := compounds(sel), strings.Count(pact.Dump(q), "Compound"); got != want {
				t.Errorf("%s: %q: %d compound selectors, hand parser %d", name, src, got, want)
			}
		}
	}
}

func compounds(s *Selector) int {
	n := 0
	for _, c := range s.Chains {
		n += 1 + len(c.Rest)
	}
	return n
}

// TestGrammarStopsAtFirstError pins the recovery difference the hand parser
// exists for: participle returns one error and no tree, the hand parser every
// error (one per broken part) and a partial tree.
func TestGrammarStopsAtFirstError(t *testing.T) {
	for name, parse := range parsers(t) {
		for _, b := range bad {
			sel, err := parse(b.src)
			if err == nil {
				t.Errorf("%s: %q accepted", name, b.src)
				continue
			}
			if sel != nil && len(sel.Chains) > 1 {
				t.Errorf("%s: %q: expected no usable tree after the first error", name, b.src)
			}
			q, diags := pact.ParseQuery(b.src, pact.V1)
			if q == nil || q.Expr == nil {
				t.Errorf("%q: hand parser kept no partial tree", b.src)
			}
			if n := countErrors(diags); n != b.errors {
				t.Errorf("%q: hand parser reports %d errors, want %d: %v", b.src, n, b.errors, diags)
			}
		}
	}
}

func countErrors(ds []syntax.Diagnostic) int {
	n := 0
	for _, d := range ds {
		if d.Severity == syntax.SeverityError {
			n++
		}
	}
	return n
}

// TestHandLexerTotal checks that the hand lexer ends on every input with
// tokens that cover the input exactly.
func TestHandLexerTotal(t *testing.T) {
	for _, src := range append(selectors, "\x00@@..'unterminated", "€ .a", "", "--1..") {
		l, _ := handDef{}.LexString("", src)
		end := 0
		for i := 0; i <= len(src)+1; i++ {
			tok, err := l.Next()
			if err != nil {
				t.Fatalf("%q: %v", src, err)
			}
			if tok.EOF() {
				break
			}
			if tok.Pos.Offset != end || tok.Value == "" {
				t.Fatalf("%q: token %q at %d, want a non-empty token at %d", src, tok.Value, tok.Pos.Offset, end)
			}
			end += len(tok.Value)
		}
		if end != len(src) {
			t.Errorf("%q: tokens cover %d of %d bytes", src, end, len(src))
		}
	}
}
