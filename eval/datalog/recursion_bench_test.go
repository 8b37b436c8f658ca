package datalog

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// chainDB is a chain of n edges e(i, i+1).
func chainDB(tb testing.TB, n int) *DB {
	tb.Helper()
	e := &RelationData{ParamTypes: []string{"N", "N"}}
	for i := range n {
		e.Tuples = append(e.Tuples, []string{fmt.Sprint(i), fmt.Sprint(i + 1)})
	}
	db, err := Load(&Data{Relations: map[string]*RelationData{"e": e}})
	if err != nil {
		tb.Fatal(err)
	}
	return db
}

const (
	linearTC    = "tc(x, y) <-- e(x, y);\ntc(x, z) <-- tc(x, y), e(y, z);"
	nonLinearTC = "tc(x, y) <-- e(x, y);\ntc(x, z) <-- tc(x, y), tc(y, z);"
)

func timeProgram(tb testing.TB, db *DB, src string) (time.Duration, int) {
	tb.Helper()
	start := time.Now()
	res, err := EvalProgramWith(context.Background(), db, "p", src, Options{MaxTuples: -1})
	if err != nil || len(res.Diagnostics) > 0 {
		tb.Fatalf("%v %v", err, res.Diagnostics)
	}
	return time.Since(start), len(res.Relations["tc"])
}

// BenchmarkClosureForms times the linear and the non-linear transitive
// closure of an 800-edge chain in the same run and reports the ratio
// (target: nonlinear-x-linear <= 2).
func BenchmarkClosureForms(b *testing.B) {
	db := chainDB(b, 800)
	var lin, non time.Duration
	n := 0
	for b.Loop() {
		tl, nl := timeProgram(b, db, linearTC)
		tn, nn := timeProgram(b, db, nonLinearTC)
		if nl != 800*801/2 || nn != nl {
			b.Fatalf("closure sizes %d and %d, want %d", nl, nn, 800*801/2)
		}
		lin += tl
		non += tn
		n++
	}
	b.ReportMetric(float64(lin.Microseconds())/float64(n)/1000, "linear-ms")
	b.ReportMetric(float64(non.Microseconds())/float64(n)/1000, "nonlinear-ms")
	b.ReportMetric(float64(non)/float64(lin), "nonlinear-x-linear")
}

func BenchmarkLinearClosure(b *testing.B) {
	db := chainDB(b, 800)
	for b.Loop() {
		timeProgram(b, db, linearTC)
	}
}
