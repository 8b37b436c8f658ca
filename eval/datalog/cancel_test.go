package datalog

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/ctxql/ctxql/internal/canceltest"
)

// TestCancel pins that evaluation stops with the context's error, for a
// single rule and for a recursive program.
func TestCancel(t *testing.T) {
	rel := &RelationData{ParamTypes: []string{"A", "A"}}
	for i := range 300 {
		rel.Tuples = append(rel.Tuples, []string{fmt.Sprint(i), fmt.Sprint(i + 1)})
	}
	db, err := Load(&Data{Relations: map[string]*RelationData{"e": rel}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := EvalRule(ctx, db, `q(a, b, c, d) <-- e(a, _), e(b, _), e(c, _), e(d, _)`); !errors.Is(err, context.Canceled) {
		t.Errorf("EvalRule: err = %v, want context.Canceled", err)
	}
	if _, err := EvalProgram(ctx, db, "p", "tc(x, y) <-- e(x, y); tc(x, z) <-- tc(x, y), e(y, z);"); !errors.Is(err, context.Canceled) {
		t.Errorf("EvalProgram: err = %v, want context.Canceled", err)
	}
	// Not cancelled: the closure of a 301-node chain.
	res, err := EvalProgram(context.Background(), db, "p", "tc(x, y) <-- e(x, y); tc(x, z) <-- tc(x, y), e(y, z);")
	if err != nil || len(res.Relations["tc"]) != 300*301/2 {
		t.Fatalf("closure: err %v, %d tuples, want %d", err, len(res.Relations["tc"]), 300*301/2)
	}
}

// TestCancelLatency pins that a cancelled evaluation stops soon after
// the cancellation, whichever phase it is in (the fixpoint's joins, the
// fused tail of the last join, the aggregates, the sorting of millions of
// tuples): runs cancelled at a quarter and at half of the program's whole
// run must return within a third of it (canceltest.Stops).
func TestCancelLatency(t *testing.T) {
	chain := func(n int, typ string) *Data {
		rel := &RelationData{ParamTypes: []string{typ, typ}}
		for i := range n {
			rel.Tuples = append(rel.Tuples, []string{fmt.Sprint(i), fmt.Sprint(i + 1)})
		}
		return &Data{Relations: map[string]*RelationData{"e": rel}}
	}
	programs := []struct {
		name, src string
		data      *Data
	}{
		// The closure of a 1,500-edge chain: about 1.1M tuples.
		{"closure", "tc(x, y) <-- e(x, y); tc(x, z) <-- tc(x, y), e(y, z);", chain(1500, "i64")},
		// A cross product of 2.25M tuples, then a computed column.
		{"product", "p(x, y) <-- e(x, _), e(y, _); s(x, y + 1) <-- p(x, y);", chain(1500, "i64")},
		// The non-linear closure with a condition (the general path,
		// conditions and head fused into the last join): about 36M
		// derivations.
		{"general", "tc(x, y) <-- e(x, y); tc(x, z) <-- tc(x, y), tc(y, z), if x != z;", chain(600, "A")},
		// An aggregate per binding over the whole relation.
		{"aggregate", "c(x, k) <-- e(x, _), e(y, _), agg k = count() in e(_, _), if y != k;", chain(1500, "i64")},
	}
	for _, p := range programs {
		t.Run(p.name, func(t *testing.T) {
			canceltest.Stops(t, func(ctx context.Context) error {
				db, err := Load(p.data)
				if err != nil {
					return err
				}
				_, err = EvalProgramWith(ctx, db, "p", p.src, Options{MaxTuples: -1})
				return err
			})
		})
	}
}
