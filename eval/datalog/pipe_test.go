package datalog

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/internal/files"
)

// pipeCases are JSON data for the pipelined load: the scanner's cases and
// generated data of many batches, with repeated values in a column, nulls
// between them, escapes, a tuple of the general path, a relation whose
// "tuples" key comes twice, and one of null tuples.
func pipeCases() []string {
	cases := slices.Clone(scanCases)
	rng := rand.New(rand.NewPCG(7, 9))
	for _, nulls := range []int{0, 37, 500} {
		var b strings.Builder
		b.WriteString(`{"relations": {"path": {"param_types": ["A", "B"], "tuples": [`)
		for i := range 20_000 {
			if i > 0 {
				b.WriteString(",")
			}
			second := fmt.Sprintf("%q", fmt.Sprintf("v%d", rng.IntN(3000)))
			switch {
			case nulls > 0 && i%nulls == nulls-1:
				second = "null"
			case i%997 == 0:
				second = `"esc\u0041\n"`
			}
			fmt.Fprintf(&b, `["g%d", %s]`, i/7, second)
		}
		b.WriteString(`]}, "again": {"param_types": ["A"], "tuples": [["x"], ["y"]], "tuples": [["z"], [null], ["x"]]}, "none": {"param_types": ["A"], "tuples": null}}}`)
		cases = append(cases, b.String())
	}
	return cases
}

// TestPipelinedLoadIsTheSame loads each case with the values interned by
// the scanner and by the interning goroutine (at any size), and checks
// that both give the same error or the same DB: the same relations and
// tuples, and the same ids for the same strings (the strings in the same
// order). Run with -race.
func TestPipelinedLoadIsTheSame(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0))))
	ctx := context.Background()
	for i, src := range pipeCases() {
		seq, seqErr := loadJSON(ctx, []byte(src), -1)
		pipe, pipeErr := loadJSON(ctx, []byte(src), 0)
		if fmt.Sprint(seqErr) != fmt.Sprint(pipeErr) {
			t.Errorf("case %d: error %v, pipelined %v", i, seqErr, pipeErr)
			continue
		}
		if seqErr != nil {
			continue
		}
		if !slices.Equal(seq.strs, pipe.strs) {
			t.Errorf("case %d: the pipelined load interns the strings in another order", i)
		}
		if d, p := dump(seq), dump(pipe); d != p {
			t.Errorf("case %d: the pipelined load differs:\n%.500s\nwant:\n%.500s", i, p, d)
		}
	}
}

// TestPipelinedFactsLoadIsTheSame is TestPipelinedLoadIsTheSame for a
// facts directory of TSV and CSV files.
func TestPipelinedFactsLoadIsTheSame(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0))))
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	var tsv, csv strings.Builder
	for i := range 30_000 {
		fmt.Fprintf(&tsv, "g%d\tv%d\n", i/5, rng.IntN(4000))
		fmt.Fprintf(&csv, "\"c%d\",w%d\n", i/3, rng.IntN(4000))
	}
	for name, s := range map[string]string{"p.facts": tsv.String(), "q.csv": csv.String(), "decl.dl": "relation p(A, B);\nrelation q(A, B);\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	load := func(pipeMin int) *DB {
		f, err := ReadFacts(ctx, files.New(0, ""), dir)
		if err != nil {
			t.Fatal(err)
		}
		f.pipeMin = pipeMin
		db, err := f.Load(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	seq, pipe := load(-1), load(0)
	if !slices.Equal(seq.strs, pipe.strs) {
		t.Errorf("the pipelined load interns the strings in another order")
	}
	if d, p := dump(seq), dump(pipe); d != p || !strings.Contains(d, "g5999") {
		t.Errorf("the pipelined load differs:\n%.500s\nwant:\n%.500s", p, d)
	}
}

// TestDedupSplitIsDedup compares the deduplication by two goroutines with
// a set's, on random rows of arity 1 to 3 over small and large value
// spaces (bitmap and hashed sets): the same rows, in the same order.
func TestDedupSplitIsDedup(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, ar := range []int{1, 2, 3} {
		for _, space := range []int{50, 1 << 20} {
			vals := make([]uint32, 200_000*ar)
			for i := range vals {
				vals[i] = uint32(rng.IntN(space))
			}
			want, err := newTupleSetSized(ar, space, len(vals)/ar).dedup(slices.Clone(vals), nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := dedupSplit(ar, space, slices.Clone(vals), nil)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Errorf("arity %d, %d values: %d values kept, want %d (or another order)", ar, space, len(got), len(want))
			}
		}
	}
	stop := fmt.Errorf("stopped")
	if _, err := dedupSplit(2, 1<<20, make([]uint32, 2*3*stopEvery), func() error { return stop }); err != stop {
		t.Errorf("a stopped deduplication returns %v, want %v", err, stop)
	}
}
