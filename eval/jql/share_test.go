package jql

import (
	"runtime"
	"sync/atomic"
	"testing"
)

// TestShareRunsEachOnce runs share with 1 to 4 goroutines over 0 to 1,000
// indices and checks that fn ran once for every index, on goroutines
// numbered below n, and that everything ran before share returned. Run
// with -race.
func TestShareRunsEachOnce(t *testing.T) {
	for _, n := range []int{1, 2, 4} {
		for _, total := range []int{0, 1, 3, 1000} {
			runs := make([]atomic.Int32, total)
			var bad atomic.Int32
			share(n, total, func(w, i int) {
				if w < 0 || w >= n {
					bad.Add(1)
				}
				runs[i].Add(1)
			})
			if bad.Load() > 0 {
				t.Errorf("n %d, total %d: a goroutine numbered outside [0, %d)", n, total, n)
			}
			for i := range runs {
				if c := runs[i].Load(); c != 1 {
					t.Errorf("n %d, total %d: index %d ran %d times", n, total, i, c)
					break
				}
			}
		}
	}
}

// TestShareCallerWorksAlone runs share with one processor and work that
// never blocks: the goroutines share starts cannot run before the caller
// has taken every index, so the caller must have done all the work, and
// share must return without any of them having run fn.
func TestShareCallerWorksAlone(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var helpers, caller atomic.Int32
	share(4, 50, func(w, i int) {
		if w != 0 {
			helpers.Add(1)
		} else {
			caller.Add(1)
		}
	})
	if h, c := helpers.Load(), caller.Load(); h != 0 || c != 50 {
		t.Errorf("the caller ran %d indices and the helpers %d, want 50 and 0", c, h)
	}
}
