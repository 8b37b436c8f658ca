package datalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxql/ctxql/syntax"
	syn "github.com/ctxql/ctxql/syntax/datalog"
)

// evalWorkers evaluates src over db with one worker and with several
// (rounds split however small), fails the test when the two differ in
// their relations, diagnostics or error, and returns the one-worker
// result. The differential tests evaluate through it, so every program
// they check against a reference is also checked split.
func evalWorkers(t *testing.T, ctx context.Context, db *DB, src string) (*ProgramResult, error) {
	t.Helper()
	one, err1 := EvalProgramWith(ctx, db, "p", src, Options{Workers: 1})
	many, errN := EvalProgramWith(ctx, db, "p", src, Options{Workers: 3, splitMin: 1})
	if fmt.Sprint(err1) != fmt.Sprint(errN) {
		t.Fatalf("%s\none worker: %v; three: %v", src, err1, errN)
	}
	if err1 == nil {
		a, _ := json.Marshal([]any{one.Relations, one.Diagnostics})
		b, _ := json.Marshal([]any{many.Relations, many.Diagnostics})
		if string(a) != string(b) {
			t.Fatalf("%s\none worker:    %s\nthree workers: %s", src, a, b)
		}
	}
	return one, err1
}

// TestSplitRounds evaluates closure, same-generation and a program with
// negation over a lower stratum, with rounds split across 1 to 4 workers
// (run with -race: the workers share the growing indexes and the head's
// set), and checks every result is the one-worker result; then that a
// split round stops at the tuple budget and at a cancelled context.
func TestSplitRounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 2))
	var e, p strings.Builder
	e.WriteString(`{"relations": {"e": {"param_types": ["N", "N"], "tuples": [`)
	for i := 1; i < 1500; i++ {
		if i > 1 {
			e.WriteByte(',')
		}
		fmt.Fprintf(&e, `["n%d","n%d"]`, i, rng.IntN(i))
	}
	e.WriteString(`]}, "p": {"param_types": ["N", "N"], "tuples": [`)
	for i := 1; i < 300; i++ {
		if i > 1 {
			p.WriteByte(',')
		}
		fmt.Fprintf(&p, `["m%d","m%d"]`, i, rng.IntN(i))
	}
	db, err := LoadJSON([]byte(e.String() + p.String() + `]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, src := range []string{
		"tc(x, y) <-- e(x, y); tc(x, z) <-- tc(x, y), e(y, z);",
		"tc(x, y) <-- e(x, y); tc(x, z) <-- tc(x, y), tc(y, z);",
		"tc(x, y) <-- e(x, y); tc(x, z) <-- tc(x, y), tc(y, z), if x != z;",
		// Three atoms: a plan that checks whether a growing relation's
		// columns are a key while other workers extend its index.
		"tc(x, y) <-- e(x, y); tc(x, z) <-- tc(x, y), tc(y, w), e(w, z);",
		"sg(x, y) <-- p(x, a), p(y, a), if x != y; sg(x, y) <-- p(x, a), p(y, b), sg(a, b);",
		"r(x, y) <-- e(x, y); r(x, z) <-- r(x, y), e(y, z); leaf(x) <-- e(x, _), !e(_, x); far(x, y, z) <-- r(x, y), r(y, z), leaf(x);",
		// No recursion: only the first round, split on its smaller atom.
		"two(x, z) <-- e(x, y), e(y, z), if x != z; root(y) <-- e(_, y), !e(y, _); pe(x, b) <-- p(x, a), e(a, b);",
	} {
		var want string
		for w := 1; w <= 4; w++ {
			res, err := EvalProgramWith(ctx, db, "p", src, Options{Workers: w, splitMin: 16})
			if err != nil || len(res.Diagnostics) > 0 {
				t.Fatalf("%s: %v %v", src, err, res.Diagnostics)
			}
			b, _ := json.Marshal(res.Relations)
			if w == 1 {
				want = string(b)
			} else if string(b) != want {
				t.Fatalf("%s: %d workers give another result than one", src, w)
			}
		}
	}
	_, err = EvalProgramWith(ctx, db, "p", "tc(x, y) <-- e(x, y); tc(x, z) <-- tc(x, y), e(y, z);", Options{Workers: 2, splitMin: 16, MaxTuples: 5000})
	if le := (*LimitError)(nil); err == nil || !strings.Contains(err.Error(), "5000") {
		t.Errorf("split rounds over the budget: err = %v (%T), want the budget of 5000 tuples", err, le)
	}
	_, err = EvalProgramWith(ctx, db, "p", "two(x, z) <-- e(x, y), e(y, z);", Options{Workers: 2, splitMin: 16, MaxTuples: 100})
	if err == nil || !strings.Contains(err.Error(), "100") {
		t.Errorf("a split first round over the budget: err = %v, want the budget of 100 tuples", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := EvalProgramWith(cctx, db, "p", "tc(x, y) <-- e(x, y); tc(x, z) <-- tc(x, y), e(y, z);", Options{Workers: 2, splitMin: 16}); err == nil {
		t.Error("split rounds under a cancelled context: no error")
	}
}

// TestSplitRoundsHashed is TestSplitRounds over more values than a
// head's set keeps in a bitmap: the workers of a round then split its new
// tuples by the value the head's first argument takes and insert into
// their own parts of the head's set (run with -race). Every result must
// be the one-worker result, and the round counts too; a split round
// still stops at the tuple budget.
func TestSplitRoundsHashed(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 5))
	var e strings.Builder
	e.WriteString(`{"relations": {"e": {"param_types": ["N", "N"], "tuples": [`)
	const nodes = 12_000
	for i := 1; i < nodes; i++ {
		if i > 1 {
			e.WriteByte(',')
		}
		if rng.IntN(40) == 0 {
			// Some roots, some edges to a later node: a few cycles.
			fmt.Fprintf(&e, `["n%d","n%d"]`, i, rng.IntN(nodes))
			continue
		}
		fmt.Fprintf(&e, `["n%d","n%d"]`, i, rng.IntN(i))
	}
	db, err := LoadJSON([]byte(e.String() + `]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, src := range []string{
		"tc(x, y) <-- e(x, y); tc(x, z) <-- tc(x, y), e(y, z);",
		"tc(x, y) <-- e(x, y); tc(x, z) <-- tc(x, y), tc(y, z);",
		"tc(x, y) <-- e(x, y); tc(x, z) <-- tc(x, y), tc(y, z), if x != z;",
		"tc(x, y) <-- e(x, y); tc(x, z) <-- e(y, z), tc(x, y), !e(z, x);",
	} {
		var want string
		var wantRounds []int
		for w := 1; w <= 4; w++ {
			st, err := fixpointOf(t, db, src, Options{Workers: w, splitMin: 64})
			if err != nil {
				t.Fatalf("%s: %v", src, err)
			}
			tuples, err := db.stringsStop(st.full["tc"], nil)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(tuples)
			if w == 1 {
				want, wantRounds = string(b), st.rounds["tc"]
				if len(tuples) < 50_000 {
					t.Fatalf("%s: %d tuples, want a closure of at least 50,000", src, len(tuples))
				}
			} else if string(b) != want {
				t.Fatalf("%s: %d workers give another result than one", src, w)
			} else if fmt.Sprint(st.rounds["tc"]) != fmt.Sprint(wantRounds) {
				t.Fatalf("%s: %d workers end rounds at %v, one at %v", src, w, st.rounds["tc"], wantRounds)
			}
		}
	}
	_, err = EvalProgramWith(ctx, db, "p", "tc(x, y) <-- e(x, y); tc(x, z) <-- tc(x, y), e(y, z);", Options{Workers: 2, splitMin: 16, MaxTuples: 30_000})
	if err == nil || !strings.Contains(err.Error(), "30000") {
		t.Errorf("split rounds over the budget: err = %v, want the budget of 30000 tuples", err)
	}
}

// fixpointOf parses, checks and evaluates a program with opts.
func fixpointOf(t *testing.T, db *DB, src string, opts Options) (*progState, error) {
	t.Helper()
	prog := syn.ParseProgram("p", src)
	info := syn.Check(prog, db.Schema())
	if syntax.HasErrors(prog.Diagnostics) || syntax.HasErrors(info.Diagnostics) {
		t.Fatalf("%v %v", prog.Diagnostics, info.Diagnostics)
	}
	return fixpoint(context.Background(), db, prog, info, opts)
}

// TestAppendTables appends tables of random sizes (some across chunks)
// to tables that hold some rows already, with 1 to 4 goroutines, and
// checks every row against the rows appended one by one; and that a
// stop error ends the appending.
func TestAppendTables(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 7))
	for _, ar := range []int{1, 2, 3} {
		for _, before := range []int{0, 5, chunkRows - 3, chunkRows + 70} {
			// An empty table among them too.
			ts := []*table{newTable(ar)}
			for range 5 {
				u := newTable(ar)
				for range rng.IntN(3 * concatMin / 4) {
					row := make([]uint32, ar)
					for j := range row {
						row[j] = rng.Uint32()
					}
					u.append(row)
				}
				ts = append(ts, u)
			}
			for w := 1; w <= 4; w++ {
				got, want := newTable(ar), newTable(ar)
				for i := range before {
					row := make([]uint32, ar)
					row[0] = uint32(i)
					got.append(row)
					want.append(row)
				}
				if err := got.appendTables(ts, w, nil); err != nil {
					t.Fatal(err)
				}
				for _, u := range ts {
					for i := 0; i < u.len(); i++ {
						want.append(u.row(i))
					}
				}
				if got.len() != want.len() {
					t.Fatalf("arity %d, %d rows before, %d goroutines: %d rows, want %d", ar, before, w, got.len(), want.len())
				}
				for i := 0; i < want.len(); i++ {
					if !slices.Equal(got.row(i), want.row(i)) {
						t.Fatalf("arity %d, %d rows before, %d goroutines: row %d is %v, want %v", ar, before, w, i, got.row(i), want.row(i))
					}
				}
				// Appending after goes on where the rows end.
				got.append(make([]uint32, ar))
				if got.len() != want.len()+1 {
					t.Fatalf("append after appendTables: %d rows", got.len())
				}
			}
		}
	}
	big := newTable(1)
	for i := range 2 * concatMin {
		big.append([]uint32{uint32(i)})
	}
	stop := errors.New("stop")
	for _, before := range []int{0, 7, chunkRows} {
		got := newTable(1)
		for i := range before {
			got.append([]uint32{uint32(i)})
		}
		calls := 0
		var mu sync.Mutex
		err := got.appendTables([]*table{big}, 2, func() error {
			mu.Lock()
			defer mu.Unlock()
			if calls++; calls > 2 {
				return stop
			}
			return nil
		})
		if err != stop {
			t.Errorf("appendTables with a stop error: %v, want it", err)
		}
		// The table holds the rows it held and appends after them.
		got.append([]uint32{99})
		if got.len() != before+1 || got.row(before)[0] != 99 || (before > 0 && got.row(before - 1)[0] != uint32(before-1)) {
			t.Errorf("%d rows before a stopped appendTables: %d rows after one more, last %v", before, got.len(), got.row(got.len()-1))
		}
	}
}

// TestSplitRoundsOrder checks that the parts a round is split into do
// not depend on the number of workers: over a hashed head's set (and
// over a head no part inserts into itself) the rows of every round come
// in the same order with 2, 3 and 4 workers, not only the same rows; and
// that a split round under a context that ends while it runs stops with
// the context's error.
func TestSplitRoundsOrder(t *testing.T) {
	db := forestDB(t, 20_000)
	for _, src := range []string{
		"tc(x, y) <-- e(x, y); tc(x, z) <-- tc(x, y), e(y, z);",
		// The head's first argument is not a variable of the atom
		// reading the new tuples: contiguous parts, emitted in order.
		"tc(x, y) <-- e(x, y); tc(x, z) <-- e(y, z), tc(x, y), !e(z, x);",
	} {
		var want string
		var wantRounds []int
		for w := 2; w <= 4; w++ {
			st, err := fixpointOf(t, db, src, Options{Workers: w, splitMin: 64})
			if err != nil {
				t.Fatalf("%s: %v", src, err)
			}
			full := st.full["tc"]
			var b strings.Builder
			for i := 0; i < full.len(); i++ {
				fmt.Fprint(&b, full.row(i))
			}
			if w == 2 {
				want, wantRounds = b.String(), st.rounds["tc"]
				if full.len() < 50_000 || len(wantRounds) < 5 {
					t.Fatalf("%s: %d tuples in %d rounds, want a longer closure", src, full.len(), len(wantRounds))
				}
			} else if b.String() != want || fmt.Sprint(st.rounds["tc"]) != fmt.Sprint(wantRounds) {
				t.Fatalf("%s: %d workers derive the rows in another order than two", src, w)
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Millisecond)
	defer cancel()
	_, err := EvalProgramWith(ctx, db, "p", "tc(x, y) <-- e(x, y); tc(x, z) <-- tc(x, y), tc(y, z), if x != z;", Options{Workers: 3, splitMin: 16})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("split rounds under a context that ends: %v, want the context's error", err)
	}
}

// TestSplitRoundsWorkerTables evaluates strata of several recursive rules
// whose heads differ in arity (so that the tables the workers append to
// are kept from one split round to the next and replaced when a head of
// another arity follows), with negation, aggregates and conditions, over
// a bitmap's values and over more than a bitmap holds, with 1, 2, 3 and 8
// workers and rounds split from 8 rows on (run with -race): every result,
// and where every round ends, must be one worker's. Then a split round
// stops at the tuple budget and at the memory bound.
func TestSplitRoundsWorkerTables(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 11))
	var e strings.Builder
	e.WriteString(`{"relations": {"e": {"param_types": ["N", "N"], "tuples": [`)
	const nodes = 9000
	for i := 1; i < nodes; i++ {
		if i > 1 {
			e.WriteByte(',')
		}
		fmt.Fprintf(&e, `["n%d","n%d"]`, i, rng.IntN(i))
	}
	e.WriteString(`]}, "f": {"param_types": ["N", "N"], "tuples": [`)
	for i := 1; i < 400; i++ {
		if i > 1 {
			e.WriteByte(',')
		}
		fmt.Fprintf(&e, `["m%d","m%d"]`, i, rng.IntN(i))
	}
	db, err := LoadJSON([]byte(e.String() + `]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, src := range []string{
		// Mutual recursion, heads of two and three columns: the rounds
		// alternate arities among the workers' tables.
		`anc(x, y) <-- e(x, y);
		 anc(x, z) <-- e(x, y), anc(y, z);
		 path3(x, y, z) <-- anc(x, y), e(y, z);
		 anc(x, z) <-- path3(x, y, z), !e(x, y);`,
		// The same over the small tree (bitmap sets), with a
		// condition and a relation of one column in the stratum.
		`sg(x, y) <-- f(x, a), f(y, a), if x != y;
		 sg(x, y) <-- f(x, a), f(y, b), sg(a, b);
		 trio(x, y, a) <-- sg(x, y), f(x, a);
		 sg(y, x) <-- trio(x, y, _);
		 paired(x) <-- sg(x, _);`,
		// Negation and an aggregate over lower strata.
		`tc(x, y) <-- e(x, y);
		 tc(x, z) <-- tc(x, y), e(y, z);
		 fan(x, c) <-- e(_, x), agg c = count() in e(_, x);
		 big(x) <-- fan(x, c), if c > 3;
		 reach(x, y) <-- tc(x, y), !big(y);
		 reach(x, z) <-- reach(x, y), e(y, z), !big(z);
		 deep(x, y, c) <-- reach(x, y), fan(y, c);
		 deep(x, z, c) <-- deep(x, y, c), e(y, z);`,
	} {
		var want, wantOrder string
		var wantRounds map[string][]int
		for _, w := range []int{1, 2, 3, 8} {
			st, err := fixpointOf(t, db, src, Options{Workers: w, splitMin: 8, MaxTuples: -1})
			if err != nil {
				t.Fatalf("%s: %v", src, err)
			}
			out := map[string][][]string{}
			for name, tab := range st.full {
				if out[name], err = db.stringsStop(tab, nil); err != nil {
					t.Fatal(err)
				}
			}
			// Split rounds keep their rows in the same order for any
			// number of workers.
			order, _ := json.Marshal(out)
			if w == 2 {
				wantOrder = string(order)
			} else if w > 2 && string(order) != wantOrder {
				t.Fatalf("%s: %d workers keep the rows in another order than two", src, w)
			}
			for name := range out {
				slices.SortFunc(out[name], slices.Compare)
			}
			b, _ := json.Marshal(out)
			if w == 1 {
				want, wantRounds = string(b), st.rounds
				for name, rows := range out {
					if len(rows) == 0 {
						t.Fatalf("%s: %s is empty", src, name)
					}
				}
			} else if string(b) != want {
				t.Fatalf("%s: %d workers give another result than one", src, w)
			} else if fmt.Sprint(st.rounds) != fmt.Sprint(wantRounds) {
				t.Fatalf("%s: %d workers end rounds at %v, one at %v", src, w, st.rounds, wantRounds)
			}
		}
	}
	closure := "tc(x, y) <-- e(x, y); tc(x, z) <-- tc(x, y), e(y, z);"
	for _, w := range []int{2, 3} {
		_, err := EvalProgramWith(ctx, db, "p", closure, Options{Workers: w, splitMin: 8, MaxTuples: 20_000})
		if le := (*LimitError)(nil); !errors.As(err, &le) || le.Max != 20_000 {
			t.Errorf("%d workers over the budget: err = %v, want the budget of 20000 tuples", w, err)
		}
		// A bound of 500 rows of two values: the rounds of the closure
		// derive thousands of rows, so some worker derives more than
		// 500 of one round however they share its parts.
		_, err = EvalProgramWith(ctx, db, "p", closure, Options{Workers: w, splitMin: 8, MaxTuples: 10_000_000, MaxBytes: 500 * 2 * 4})
		if le := (*LimitError)(nil); !errors.As(err, &le) || le.Bytes != 500*2*4 {
			t.Errorf("%d workers over the memory bound: err = %v, want the bound of %d bytes", w, err, 500*2*4)
		}
	}
}

// TestFirstDriver checks the atom the first round of a fixpoint splits
// on: the one reading the fewest rows (the first of those), and none when
// the rule has no positive atom, reads an equivalence relation or part of
// a table.
func TestFirstDriver(t *testing.T) {
	rows := func(n int) source {
		tab := newTable(1)
		for i := range n {
			tab.append([]uint32{uint32(i)})
		}
		return source{t: tab, n: n, kind: srcBase}
	}
	cr := &crule{pos: []*catom{{name: "a"}, {name: "b"}, {name: "c"}}}
	for _, c := range []struct {
		name  string
		sizes []int
		want  int
	}{
		{"smallest", []int{30, 10, 20}, 1},
		{"first of the smallest", []int{10, 20, 10}, 0},
		{"last", []int{30, 20, 5}, 2},
	} {
		got := firstDriver(cr, func(i int) source { return rows(c.sizes[i]) })
		if got != c.want {
			t.Errorf("%s: atom %d, want %d", c.name, got, c.want)
		}
	}
	if got := firstDriver(&crule{}, nil); got != -1 {
		t.Errorf("no positive atom: atom %d, want -1", got)
	}
	part := func(i int) source {
		s := rows(10 * (i + 1))
		if i == 2 {
			s.n = 5
		}
		return s
	}
	if got := firstDriver(cr, part); got != -1 {
		t.Errorf("an atom reading part of its table: atom %d, want -1", got)
	}
	eq := func(i int) source {
		s := rows(10 * (i + 1))
		if i == 1 {
			s = source{t: newTable(2), n: 3, kind: srcTemp, eq: &eqStore{}}
		}
		return s
	}
	if got := firstDriver(cr, eq); got != -1 {
		t.Errorf("an atom reading an equivalence relation: atom %d, want -1", got)
	}
}

// TestClaim sets the bits of rows of one and two columns that span two
// chunks of a table, some set before and some repeated, and checks the
// rows kept against a map: the first of each row whose bit was clear, in
// order, and every row's bit set after.
func TestClaim(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	for _, ar := range []int{1, 2} {
		// Bitmaps of 90,000 bits, so that both chunks hold new rows.
		side, size := uint64(90_000), uint64(90_000)
		if ar == 2 {
			side = 300
		}
		s := &tupleSet{arity: ar, side: side, bits: make([]uint64, (size+63)/64)}
		seen := map[[2]uint32]bool{}
		row := func() []uint32 {
			r := []uint32{uint32(rng.Uint64N(side)), uint32(rng.Uint64N(side))}
			return r[:ar]
		}
		key := func(r []uint32) [2]uint32 {
			var k [2]uint32
			copy(k[:], r)
			return k
		}
		for range 500 {
			r := row()
			b, _ := s.bit(r)
			s.bits[b>>6] |= 1 << (b & 63)
			seen[key(r)] = true
		}
		tab := newTable(ar)
		for range chunkRows + 5000 {
			tab.append(row())
		}
		lo, hi := 100, chunkRows+4000
		var want [][]uint32
		for i := lo; i < hi; i++ {
			r := tab.row(i)
			if !seen[key(r)] {
				seen[key(r)] = true
				want = append(want, slices.Clone(r))
			}
		}
		var got [][]uint32
		views := s.claim(tab, lo, hi)
		if len(views) != 2 {
			t.Fatalf("arity %d: %d views of the rows kept, want one for each of the two chunks", ar, len(views))
		}
		for _, v := range views {
			for i := range v.len() {
				got = append(got, v.row(i))
			}
		}
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Fatalf("arity %d: kept %d rows, want %d (the first of each new row, in order)", ar, len(got), len(want))
		}
		for k := range seen {
			if b, _ := s.bit(k[:ar]); s.bits[b>>6]&(1<<(b&63)) == 0 {
				t.Fatalf("arity %d: the bit of %v is clear after the claim", ar, k[:ar])
			}
		}
	}
}
