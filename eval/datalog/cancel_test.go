package datalog

import (
	"context"
	"errors"
	"fmt"
	"testing"
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
