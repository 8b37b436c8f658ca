package datalog

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// groupedRows returns n rows of arity ar grouped by their first value:
// runs of 1 to maxRun rows, each run's first value new, the other values
// drawn from space values (so that small spaces repeat rows within a
// run). From row breakAt on (when ≥ 0) the first values are drawn at
// random, so that they come back after their runs.
func groupedRows(rng *rand.Rand, ar, n, maxRun, space, breakAt int) []uint32 {
	vals := make([]uint32, 0, n*ar)
	first := uint32(0)
	for i := 0; i < n; {
		run := 1 + rng.IntN(maxRun)
		for k := 0; k < run && i < n; k++ {
			f := first
			if breakAt >= 0 && i >= breakAt {
				f = uint32(rng.IntN(int(first) + 1))
			}
			vals = append(vals, f)
			for range ar - 1 {
				vals = append(vals, uint32(rng.IntN(space)))
			}
			i++
		}
		first++
	}
	return vals
}

// TestDedupGroupedIsDedup compares the deduplication of grouped rows with
// a set's: on rows grouped by their first value (short runs, with and
// without repeated rows) it must keep the same rows in the same order and
// say it did; on rows that are not grouped, or grouped in runs too long,
// it must say so, and what it returns must deduplicate to the same rows.
func TestDedupGroupedIsDedup(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	cases := []struct {
		name                   string
		ar, maxRun, space, brk int
		grouped                bool
	}{
		{"grouped, repeated rows", 2, 8, 3, -1, true},
		{"grouped, no repeats", 2, 8, 1 << 20, -1, true},
		{"grouped, arity 3", 3, 12, 2, -1, true},
		{"grouped, runs of up to 32", 2, maxGroupRun, 20, -1, true},
		{"runs too long", 2, 200, 50, -1, false},
		{"broken after a while", 2, 6, 4, 70_000, false},
		{"broken after a while, arity 3", 3, 6, 3, 9_000, false},
		{"broken at once", 2, 6, 4, 0, false},
	}
	for _, c := range cases {
		vals := groupedRows(rng, c.ar, 100_000, c.maxRun, c.space, c.brk)
		idSpace := 1 << 21
		want, err := newTupleSetSized(c.ar, idSpace, len(vals)/c.ar).dedup(slices.Clone(vals), nil)
		if err != nil {
			t.Fatal(err)
		}
		got, ok, err := dedupGrouped(c.ar, idSpace, slices.Clone(vals), nil)
		if err != nil {
			t.Fatal(err)
		}
		if ok != c.grouped {
			t.Errorf("%s: grouped %v, want %v", c.name, ok, c.grouped)
		}
		if !ok {
			if got, err = newTupleSetSized(c.ar, idSpace, len(got)/c.ar).dedup(got, nil); err != nil {
				t.Fatal(err)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: %d values kept, want %d (or another order)", c.name, len(got), len(want))
		}
		if len(want) == len(vals) && c.space < 10 {
			t.Errorf("%s: the rows repeat nothing; the case tests less than it says", c.name)
		}
	}
	stop := errors.New("stopped")
	vals := groupedRows(rng, 2, 3*stopEvery, 4, 10, -1)
	if _, _, err := dedupGrouped(2, 1<<20, vals, func() error { return stop }); err != stop {
		t.Errorf("a stopped deduplication returns %v, want %v", err, stop)
	}
}

// TestLoadGroupedMatchesReadJSON loads grouped data with repeated tuples
// (arity 2 and 3, runs shorter and longer than maxGroupRun, a first
// value that comes back late) with the scanner and with encoding/json,
// and compares the relations.
func TestLoadGroupedMatchesReadJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	var b strings.Builder
	b.WriteString(`{"relations": {`)
	for r, c := range []struct{ ar, run, late int }{{2, 5, -1}, {3, 7, -1}, {2, 60, -1}, {2, 4, 3000}} {
		if r > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, `"r%d": {"param_types": [%s], "tuples": [`, r, strings.TrimSuffix(strings.Repeat(`"T",`, c.ar), ","))
		for i := range 4000 {
			if i > 0 {
				b.WriteString(",")
			}
			g := i / c.run
			if i == c.late {
				g = 0
			}
			fmt.Fprintf(&b, `["g%d"`, g)
			for range c.ar - 1 {
				fmt.Fprintf(&b, `, "v%d"`, rng.IntN(3))
			}
			b.WriteString("]")
		}
		b.WriteString("]}")
	}
	b.WriteString("}}")
	scan, ref, se, re := loadBoth(b.String())
	if se != nil || re != nil {
		t.Fatalf("scanner error %v, encoding/json error %v", se, re)
	}
	if scan != ref {
		t.Errorf("scanner:\n%.500s\nencoding/json:\n%.500s", scan, ref)
	}
}
