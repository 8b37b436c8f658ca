package datalog

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"
)

// TestConcurrentEval runs rules and programs (whose head constants occur
// in the data) concurrently over one freshly loaded DB, so that the
// indexes and string ranks are built under contention, and checks that
// every result equals the sequential one. Run with -race.
func TestConcurrentEval(t *testing.T) {
	src := `{"relations": {"e": {"param_types": ["N", "N"], "tuples": [`
	for i := range 60 {
		if i > 0 {
			src += ","
		}
		src += fmt.Sprintf(`["n%d", "n%d"], ["n%d", "n%d"]`, i, i+1, i, (i*7)%61)
	}
	src += `]}, "mark": {"param_types": ["N"], "tuples": [["n3"], ["n10"]]}}}`
	type job struct {
		rule, program string
	}
	jobs := []job{
		{rule: `q(x, y) <-- e(x, y), !mark(y)`},
		{rule: `q(x) <-- e(x, "n3"), e("n3", x)`},
		{rule: `q(x, z) <-- e(x, y), e(y, z), if x != z`},
		{program: "tc(x, y) <-- e(x, y);\ntc(x, z) <-- tc(x, y), e(y, z);"},
		{program: "tc(x, y) <-- e(x, y);\ntc(x, z) <-- tc(x, y), tc(y, z), if x != z;\nhit(x) <-- tc(x, \"n10\"), mark(x);"},
	}
	run := func(db *DB, j job) string {
		var b bytes.Buffer
		if j.rule != "" {
			res, rows, err := EvalRuleRows(context.Background(), db, j.rule, Options{})
			if err != nil || len(res.Diagnostics) > 0 {
				return fmt.Sprint(err, res.Diagnostics)
			}
			if err := rows.WriteJSON(&b); err != nil {
				return err.Error()
			}
			return b.String()
		}
		res, rels, err := EvalProgramRows(context.Background(), db, "p.dl", j.program, Options{})
		if err != nil || len(res.Diagnostics) > 0 {
			return fmt.Sprint(err, res.Diagnostics)
		}
		if err := WriteRelationsJSON(&b, rels); err != nil {
			return err.Error()
		}
		return b.String()
	}
	seq, err := LoadJSON([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := make([]string, len(jobs))
	for i, j := range jobs {
		want[i] = run(seq, j)
	}
	db, err := LoadJSON([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	got := make([]string, 4*len(jobs))
	for k := range got {
		wg.Go(func() { got[k] = run(db, jobs[k%len(jobs)]) })
	}
	wg.Wait()
	for k, g := range got {
		if w := want[k%len(jobs)]; g != w {
			t.Errorf("job %d concurrently:\n%s\nsequentially:\n%s", k%len(jobs), g, w)
		}
	}
}
