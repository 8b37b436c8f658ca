//go:build !wasm

package lang_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/engine"
	"github.com/ctxql/ctxql/internal/jsonenc"
	"github.com/ctxql/ctxql/lang"
)

// TestEngineAggregates evaluates Datalog programs with min, max, sum,
// mean and let arithmetic through the language table over a data file
// and over a SQLite database loaded from it: the same tuples, and where
// the database cannot compute the evaluator's answer on this data (a
// mean that is no decimal, which the evaluator prints as a float; a sum
// over text, which the evaluator fails on) an *UnsupportedError naming
// the construct, not other tuples.
func TestEngineAggregates(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	data := filepath.Join(dir, "data.json")
	src := `{"relations": {
  "m": {"param_types": ["Int", "Int"], "tuples": [["1", "3"], ["1", "4"], ["2", "10"], ["2", "-7"], ["3", "5"], ["4", "1"], ["4", "2"], ["4", "4"]]},
  "t": {"param_types": ["Int", "Int"], "tuples": [["1", "2"], ["1", "a"]]}
}}`
	if err := os.WriteFile(data, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	l := lang.ByID(lang.Datalog)
	mem, err := l.Load(ctx, nil, data)
	if err != nil {
		t.Fatal(err)
	}
	url := "sqlite:" + filepath.Join(dir, "d.db")
	db, err := engine.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	tables, err := l.LoadTables(ctx, nil, data)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Load(ctx, tables.Tables, func(emit func(string, []any) error) error { return tables.Rows(ctx, emit) }); err != nil {
		t.Fatal(err)
	}
	db.Close()
	open := func(ctx context.Context, url string) (lang.Engine, error) { return engine.Open(ctx, url) }
	eng, err := l.LoadEngine(ctx, open, url)
	if err != nil {
		t.Fatal(err)
	}
	answered := `lo(x, n) <-- m(x, _), agg n = min(v) in m(x, v);
hi(x, n) <-- m(x, _), agg n = max(v) in m(x, v);
total(x, n) <-- m(x, _), agg n = sum(v) in m(x, v);
avg(x, n) <-- m(x, _), agg n = mean(v) in m(x, v), if x < 4;
prod(x, q) <-- m(x, y), let q = x * y - 1;
big(x) <-- total(x, n), if n > 5;
`
	want := `{"avg":[["1","3.5"],["2","1.5"],["3","5"]],"big":[["1"],["4"]],"hi":[["1","4"],["2","10"],["3","5"],["4","4"]],"lo":[["1","3"],["2","-7"],["3","5"],["4","1"]],"prod":[["1","2"],["1","3"],["2","-15"],["2","19"],["3","14"],["4","15"],["4","3"],["4","7"]],"total":[["1","7"],["2","3"],["3","5"],["4","7"]]}`
	for _, d := range []lang.Data{mem, eng} {
		res, err := l.Evaluate(ctx, d, lang.Query{Name: "p.dl", Src: answered, Program: true}, lang.Budget{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := jsonenc.Marshal(res.Value)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Fatalf("got  %s\nwant %s", got, want)
		}
	}
	for _, c := range []struct{ src, inProcess, refusal string }{
		{"avg(x, n) <-- m(x, _), agg n = mean(v) in m(x, v);\n", `"4","2.3333333333333335"`,
			"agg n = mean(v) in m(x, v) cannot be compiled to sqlite: its mean has no decimal of at most 9 fractional digits (the evaluator prints a float)"},
		{"s(x, n) <-- t(x, _), agg n = sum(v) in t(x, v);\n", "",
			"agg n = sum(v) in t(x, v) cannot be compiled to sqlite: a value is not an integer of at most 18 digits (the evaluator computes exact decimals)"},
	} {
		q := lang.Query{Name: "p.dl", Src: c.src, Program: true}
		res, err := l.Evaluate(ctx, mem, q, lang.Budget{})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := jsonenc.Marshal(res.Value)
		if c.inProcess != "" && !strings.Contains(string(got), c.inProcess) || c.inProcess == "" && len(res.Diagnostics) == 0 {
			t.Fatalf("%s in process: %s %v", c.src, got, res.Diagnostics)
		}
		_, err = l.Evaluate(ctx, eng, q, lang.Budget{})
		var ue *lang.UnsupportedError
		if !errors.As(err, &ue) || !strings.HasSuffix(err.Error(), c.refusal) {
			t.Fatalf("%s in SQLite: %v, want the refusal %q", c.src, err, c.refusal)
		}
	}
}
