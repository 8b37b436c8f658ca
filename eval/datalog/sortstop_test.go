package datalog

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestSortStop pins that the sorts that look at a context sort as the
// standard library does (lengths around the run length and its
// multiples), and that their stop function's error ends them.
func TestSortStop(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	calls := 0
	stop := func() error { calls++; return nil }
	for _, n := range []int{0, 1, 7, sortRun - 1, sortRun, sortRun + 1, 3*sortRun + 5, 8 * sortRun} {
		nums := make([]uint64, n)
		strs := make([]string, n)
		for i := range nums {
			nums[i] = rng.Uint64N(uint64(n) + 1)
			strs[i] = strings.Repeat("x", int(rng.IntN(3))) + string(rune('a'+rng.IntN(26)))
		}
		wantNums := slices.Sorted(slices.Values(nums))
		wantStrs := slices.Sorted(slices.Values(strs))
		if err := sortOrderedStop(nums, stop); err != nil || !slices.Equal(nums, wantNums) {
			t.Errorf("sortOrderedStop of %d values: err %v, sorted %v", n, err, slices.Equal(nums, wantNums))
		}
		if err := sortStop(strs, strings.Compare, stop); err != nil || !slices.Equal(strs, wantStrs) {
			t.Errorf("sortStop of %d strings: err %v, sorted %v", n, err, slices.Equal(strs, wantStrs))
		}
	}
	if calls == 0 {
		t.Error("the sorts of long slices never called stop")
	}
	halt := errors.New("halt")
	nums := make([]uint64, 4*sortRun)
	if err := sortOrderedStop(nums, func() error { return halt }); err != halt {
		t.Errorf("stopped sort: err = %v, want the stop function's", err)
	}
}
