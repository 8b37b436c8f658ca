package datalog

import (
	"cmp"
	"slices"
)

// sortRun is the length of the runs sortStop sorts in one step before it
// merges them, and of the stretches it merges between two calls of its
// stop function: a few milliseconds of work each.
const sortRun = 1 << 15

// sortStop sorts s as slices.SortFunc does, calling stop (when set)
// between steps of at most sortRun elements; stop's error ends the sort,
// leaving s in some order. cmp must not find two elements equal unless
// either order of them will do.
func sortStop[T any](s []T, cmp func(a, b T) int, stop func() error) error {
	if stop == nil || len(s) <= sortRun {
		slices.SortFunc(s, cmp)
		return nil
	}
	return mergeRuns(s, func(r []T) { slices.SortFunc(r, cmp) }, func(a, b T) bool { return cmp(a, b) > 0 }, stop)
}

// sortOrderedStop is sortStop for ordered values.
func sortOrderedStop[T cmp.Ordered](s []T, stop func() error) error {
	if stop == nil || len(s) <= sortRun {
		slices.Sort(s)
		return nil
	}
	return mergeRuns(s, slices.Sort[[]T], func(a, b T) bool { return a > b }, stop)
}

// mergeRuns sorts s: runs of sortRun elements by sortRun, then merged in
// pairs, bottom up, through a buffer (sortOne sorts a run). after(a, b) reports whether a goes
// after b; equal elements keep their order.
func mergeRuns[T any](s []T, sortOne func([]T), after func(a, b T) bool, stop func() error) error {
	n := len(s)
	for lo := 0; lo < n; lo += sortRun {
		if err := stop(); err != nil {
			return err
		}
		sortOne(s[lo:min(lo+sortRun, n)])
	}
	src, dst := s, make([]T, n)
	for width := sortRun; width < n; width *= 2 {
		for lo := 0; lo < n; lo += 2 * width {
			mid, hi := min(lo+width, n), min(lo+2*width, n)
			i, j, k := lo, mid, lo
			for k < hi {
				if (k-lo)%sortRun == 0 {
					if err := stop(); err != nil {
						return err
					}
				}
				switch {
				case i == mid:
					k += copy(dst[k:hi], src[j:hi])
					j = hi
				case j == hi:
					k += copy(dst[k:hi], src[i:mid])
					i = mid
				case after(src[i], src[j]):
					dst[k] = src[j]
					j++
					k++
				default:
					dst[k] = src[i]
					i++
					k++
				}
			}
		}
		src, dst = dst, src
	}
	if &src[0] != &s[0] {
		copy(s, src)
	}
	return nil
}
