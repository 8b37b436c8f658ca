//go:build !wasm

// Differential tests of the functions on text and numbers against
// SQLite's functions of the same meaning (which does not build for
// WebAssembly, see diff_test.go).

package datalog

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// word draws a short ASCII word over a small alphabet (so that one word
// often contains, starts or ends another), sometimes empty.
func (g *lgen) word() string {
	const alphabet = "abAB-1"
	var b strings.Builder
	for range g.rng.IntN(5) {
		b.WriteByte(alphabet[g.rng.IntN(len(alphabet))])
	}
	return b.String()
}

// diffTextFuncCase compares the text functions over pairs of words with
// SQLite: len with octet_length, contains with instr, starts_with and
// ends_with with substr, to_lowercase and to_uppercase with lower and
// upper (ASCII words, where the two agree), format! with format.
func diffTextFuncCase(t *testing.T, seed uint64) int {
	g := &lgen{rng: rand.New(rand.NewPCG(seed, 31))}
	w := &gRel{name: "w", types: []string{"String"}}
	seen := map[string]bool{}
	for range 1 + g.rng.IntN(6) {
		if s := g.word(); !seen[s] {
			seen[s] = true
			w.tuples = append(w.tuples, []string{s})
		}
	}
	d, rels := relsData(w)
	b := func(cond string) string { return "CASE WHEN " + cond + " THEN 'true' ELSE 'false' END" }
	src := `q(s, t, s.len(), s.contains(t), s.starts_with(t), s.ends_with(t), s.to_lowercase(), t.to_uppercase(), format!("<{}|{}>", s, t), s.len().max(t.len())) <-- w(s), w(t)`
	q := "SELECT a.c0, b.c0, octet_length(a.c0), " + b("instr(a.c0, b.c0) > 0 OR b.c0 = ''") + ", " +
		b("substr(a.c0, 1, length(b.c0)) = b.c0") + ", " +
		b("b.c0 = '' OR (length(a.c0) >= length(b.c0) AND substr(a.c0, length(a.c0) - length(b.c0) + 1) = b.c0)") + ", " +
		"lower(a.c0), upper(b.c0), format('<%s|%s>', a.c0, b.c0), max(octet_length(a.c0), octet_length(b.c0)) FROM w AS a, w AS b"
	return diffAgainstSQL(t, seed, d, rels, src, q)
}

// diffNumFuncCase compares abs, min, max, pow and to_string with
// SQLite's abs, min, max, repeated multiplication and CAST … AS TEXT.
func diffNumFuncCase(t *testing.T, seed uint64) int {
	g := &lgen{rng: rand.New(rand.NewPCG(seed, 32))}
	r := g.intRel("r", 2, 10, -40, 40)
	d, rels := relsData(r)
	src := `q(x, y, x.abs(), x.min(y), y.max(x), x.pow(3), (x - y).abs().pow(2), x.to_string(), format!("{}", x * y)) <-- r(x, y)`
	q := "SELECT t.c0, t.c1, abs(CAST(t.c0 AS INTEGER)), min(CAST(t.c0 AS INTEGER), CAST(t.c1 AS INTEGER)), max(CAST(t.c0 AS INTEGER), CAST(t.c1 AS INTEGER)), " +
		"CAST(t.c0 AS INTEGER) * CAST(t.c0 AS INTEGER) * CAST(t.c0 AS INTEGER), " +
		"(CAST(t.c0 AS INTEGER) - CAST(t.c1 AS INTEGER)) * (CAST(t.c0 AS INTEGER) - CAST(t.c1 AS INTEGER)), " +
		"CAST(CAST(t.c0 AS INTEGER) AS TEXT), CAST(CAST(t.c0 AS INTEGER) * CAST(t.c1 AS INTEGER) AS TEXT) FROM r AS t"
	return diffAgainstSQL(t, seed, d, rels, src, q)
}

// TestFunctionsDifferential runs the function checks over fixed seeds.
func TestFunctionsDifferential(t *testing.T) {
	nonEmpty := 0
	const seeds = 150
	for seed := range uint64(seeds) {
		if diffTextFuncCase(t, seed) > 0 {
			nonEmpty++
		}
		if diffNumFuncCase(t, seed) > 0 {
			nonEmpty++
		}
	}
	if nonEmpty < seeds {
		t.Errorf("only %d of %d cases had results", nonEmpty, 2*seeds)
	}
}

// TestParseAgainstStrconv compares parse::<T> for the signed types with
// Go's strconv.ParseInt of the same bit size (which reads the same
// forms: an optional sign, then decimal digits) over random texts: the
// rule fires exactly for the texts strconv reads, with its value.
func TestParseAgainstStrconv(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 33))
	const alphabet = "0123456789+- x"
	w := &RelationData{ParamTypes: []string{"String"}}
	seen := map[string]bool{}
	for range 400 {
		var b strings.Builder
		for range rng.IntN(21) {
			b.WriteByte(alphabet[rng.IntN(len(alphabet))])
		}
		if s := b.String(); !seen[s] {
			seen[s] = true
			w.Tuples = append(w.Tuples, []string{s})
		}
	}
	for _, s := range []string{"127", "128", "-128", "-129", "9223372036854775807", "9223372036854775808", "-9223372036854775808", "+0", "-0", "007"} {
		if !seen[s] {
			w.Tuples = append(w.Tuples, []string{s})
		}
	}
	db, err := Load(&Data{Relations: map[string]*RelationData{"w": w}})
	if err != nil {
		t.Fatal(err)
	}
	for _, ty := range []struct {
		name string
		bits int
	}{{"i8", 8}, {"i16", 16}, {"i32", 32}, {"i64", 64}} {
		res, err := EvalRule(context.Background(), db, fmt.Sprintf("q(s, v) <-- w(s), let v = s.parse::<%s>()", ty.name))
		if err != nil || len(res.Diagnostics) > 0 {
			t.Fatal(err, res.Diagnostics)
		}
		got := map[string]string{}
		for _, tup := range res.Tuples {
			got[tup[0]] = tup[1]
		}
		for _, tup := range w.Tuples {
			s := tup[0]
			n, err := strconv.ParseInt(s, 10, ty.bits)
			v, ok := got[s]
			switch {
			case err != nil && ok:
				t.Errorf("%q.parse::<%s>() = %s, strconv: %v", s, ty.name, v, err)
			case err == nil && (!ok || v != strconv.FormatInt(n, 10)):
				t.Errorf("%q.parse::<%s>() = %q (fired %v), strconv: %d", s, ty.name, v, ok, n)
			}
		}
	}
}
