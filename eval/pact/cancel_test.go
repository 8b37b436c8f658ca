package pact

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctxql/ctxql/internal/canceltest"
	syn "github.com/ctxql/ctxql/syntax/pact"
)

// countingCtx counts Err calls. On call number pauseAt it signals started
// and waits until the wrapped context is done, so the cancellation from
// another goroutine always lands while the evaluation is running.
type countingCtx struct {
	context.Context
	calls   atomic.Int64
	pauseAt int64
	started chan struct{}
}

func (c *countingCtx) Err() error {
	n := c.calls.Add(1)
	if n == c.pauseAt {
		close(c.started)
		<-c.Context.Done()
	}
	return c.Context.Err()
}

// cancelAtCheck runs run under a context that another goroutine cancels
// at its look number pauseAt, and checks that run returns the context's
// error without looking again: what follows the cancellation is not run.
func cancelAtCheck(t *testing.T, pauseAt, total int64, run func(context.Context) error) {
	t.Helper()
	inner, cancel := context.WithCancel(context.Background())
	defer cancel()
	ctx := &countingCtx{Context: inner, pauseAt: pauseAt, started: make(chan struct{})}
	go func() {
		<-ctx.started
		cancel()
	}()
	if err := run(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if got := ctx.calls.Load(); got != pauseAt {
		t.Fatalf("%d context checks after the cancellation at check %d of %d", got-pauseAt, pauseAt, total)
	}
}

// TestEvalCancelledMidway cancels from another goroutine after the
// evaluation has started and checks that it returns the context's error at
// the next check instead of running to completion.
func TestEvalCancelledMidway(t *testing.T) {
	d := chainData(t, 3000)
	src := strings.TrimSpace(strings.Repeat(".cb ", 40))

	// Count the checks of a full run first.
	full := &countingCtx{Context: context.Background(), pauseAt: -1}
	res, err := Select(full, d, src, syn.V1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.IDs) != 3000-39 {
		t.Fatalf("full run: got %d ids, want %d", len(res.IDs), 3000-39)
	}
	total := full.calls.Load()
	if total < 10 {
		t.Fatalf("full run made only %d context checks", total)
	}

	cancelAtCheck(t, total/2, total, func(ctx context.Context) error {
		_, err := Select(ctx, d, src, syn.V1, Options{})
		return err
	})
}

// historyData returns snapshots cycles 1..snaps of a tree whose n blocks
// change their content and ttl in every cycle.
func historyData(t testing.TB, snaps, n int) *Data {
	d, err := LoadString(historySrc(snaps, n))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// historySrc is the JSON text of historyData.
func historySrc(snaps, n int) string {
	var sb strings.Builder
	sb.WriteString(`{"snapshots":[`)
	for c := 1; c <= snaps; c++ {
		if c > 1 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"cycle":%d,"root":{"id":"root","children":[`, c)
		for i := 0; i < n; i++ {
			if i > 0 {
				sb.WriteByte(',')
			}
			fmt.Fprintf(&sb, `{"id":"b%d","nodeType":"cb","ttl":%d,"content":"line one\nblock %d at cycle %d\nline three"}`, i, c%5, i, c)
		}
		sb.WriteString(`]}}`)
	}
	sb.WriteString(`]}`)
	return sb.String()
}

// TestLoadCancelled pins that a load stops with the context's error at
// its first look at the context after the cancellation, and soon after it
// in time, and that a load under a context that is not cancelled loads
// the same data as one without a context.
func TestLoadCancelled(t *testing.T) {
	src := historySrc(60, 8000) // about 45 MB
	want, err := LoadString(src)
	if err != nil {
		t.Fatal(err)
	}
	full := &countingCtx{Context: context.Background(), pauseAt: -1}
	got, err := LoadStringContext(full, src)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatal("the load under a context loaded other data than LoadString")
	}
	total := full.calls.Load()
	if total < 16 {
		t.Fatalf("the load made only %d context checks", total)
	}

	load := func(ctx context.Context) error {
		_, err := LoadStringContext(ctx, src)
		return err
	}
	cancelAtCheck(t, total/2, total, load)
	canceltest.Stops(t, load)
}

// TestRangeCancelledMidway cancels a snapshot-range evaluation while it
// diffs the snapshots (the checks of the diff phase come after those of
// the per-snapshot selection) and checks it stops at that check.
func TestRangeCancelledMidway(t *testing.T) {
	d := historyData(t, 30, 800)
	src := "@t-29..@t0 .cb"
	opts := Options{IncludeContent: true}

	full := &countingCtx{Context: context.Background(), pauseAt: -1}
	res, err := Select(full, d, src, syn.V1, opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Range == nil || len(res.Range.Diffs) != 29 || len(res.Range.Diffs[0].Changed) != 800 {
		t.Fatalf("full run: unexpected result shape")
	}
	total := full.calls.Load()

	// The selection phase alone: the same query over one snapshot, times 30.
	sel := &countingCtx{Context: context.Background(), pauseAt: -1}
	if _, err := Select(sel, d, ".cb", syn.V1, opts); err != nil {
		t.Fatal(err)
	}
	selection := 30 * sel.calls.Load()
	if total-selection < 10 {
		t.Fatalf("diff phase made only %d of %d context checks", total-selection, total)
	}

	cancelAtCheck(t, total-(total-selection)/2, total, func(ctx context.Context) error {
		_, err := Select(ctx, d, src, syn.V1, opts)
		return err
	})
}

// TestContentDiffBounded checks that a content diff over more than
// MaxDiffLines lines is left out and marked truncated, and one under it is
// computed: no single step of a range evaluation diffs more lines.
func TestContentDiffBounded(t *testing.T) {
	content := func(n, seed int) string {
		var sb strings.Builder
		for i := range n {
			fmt.Fprintf(&sb, "line %d %d\n", i, (i*7+seed)%10)
		}
		return sb.String()
	}
	for _, c := range []struct {
		lines     int
		truncated bool
	}{{MaxDiffLines / 2, false}, {MaxDiffLines/2 + 1, true}} {
		src := fmt.Sprintf(`{"snapshots":[{"cycle":1,"root":{"id":"r","children":[{"id":"a","nodeType":"cb","content":%q}]}},{"cycle":2,"root":{"id":"r","children":[{"id":"a","nodeType":"cb","content":%q}]}}]}`,
			content(c.lines, 1), content(c.lines, 2))
		d, err := LoadBytes([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		res, err := Select(context.Background(), d, "@t-1..@t0 .cb", syn.V1, Options{IncludeContent: true})
		if err != nil {
			t.Fatal(err)
		}
		took := time.Since(start)
		ch := res.Range.Diffs[0].Changed
		if len(ch) != 1 || ch[0].ContentDiff == nil {
			t.Fatalf("%d lines: no content diff: %+v", c.lines, res.Range.Diffs[0])
		}
		cd := ch[0].ContentDiff
		if cd.Summary.Truncated != c.truncated || (cd.Diff == "") != c.truncated {
			t.Errorf("%d lines a side: truncated %v with %d bytes of diff, want truncated %v", c.lines, cd.Summary.Truncated, len(cd.Diff), c.truncated)
		}
		t.Logf("%d lines a side: %s", c.lines, took)
	}
}

// TestIDIndexCancelled cancels while a selection by id builds the
// snapshot's id index: the selection returns the context's error at the
// next look, the index is not kept half built, and the next selection
// finds the node.
func TestIDIndexCancelled(t *testing.T) {
	d := historyData(t, 1, 20000)
	src := "#b19999"
	cancelAtCheck(t, 3, 0, func(ctx context.Context) error {
		_, err := Select(ctx, d, src, syn.V1, Options{})
		return err
	})
	if m := d.Snapshots[0].byID.Load(); m != nil {
		t.Fatalf("the id index was kept after a cancelled build (%d ids)", len(*m))
	}
	res, err := Select(context.Background(), d, src, syn.V1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.IDs, []string{"b19999"}) {
		t.Fatalf("after the cancelled build: %v", res.IDs)
	}
}
