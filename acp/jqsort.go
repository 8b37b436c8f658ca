package acp

import (
	"fmt"

	"github.com/itchyny/gojq"
)

// sortFallback names, for each sorting built-in, the gojq query that
// produces its error for input that is not an array (or whose keys do not
// line up): the error is gojq's own, word for word.
var sortFallback = map[string]string{
	"sort": "sort", "unique": "unique",
	"sort_by": "_sort_by($x)", "group_by": "_group_by($x)", "unique_by": "_unique_by($x)",
}

// sort is _ctxql_sort(name; values; keys), the sorting built-ins (sort,
// sort_by, group_by, unique, unique_by) over a merge sort that looks at the
// deadline as it goes: gojq sorts in one step, which takes seconds on a
// few million elements. Order, stability and results are gojq's: values
// sorted by their keys with gojq.Compare, ties kept in input order.
func (b *bounded) sort(_ any, args []any) any {
	name, _ := args[0].(string)
	vs, ok1 := args[1].([]any)
	ks, ok2 := args[2].([]any)
	if !ok1 || !ok2 || len(vs) != len(ks) {
		return gojqError(sortFallback[name], args[1], args[2])
	}
	idx, err := b.mergeSort(ks)
	if err != nil {
		return err
	}
	switch name {
	case "sort", "sort_by":
		out := make([]any, len(idx))
		for i, j := range idx {
			out[i] = vs[j]
		}
		return out
	case "group_by":
		out := []any{}
		for i, j := range idx {
			if i == 0 || gojq.Compare(ks[idx[i-1]], ks[j]) != 0 {
				out = append(out, []any{vs[j]})
			} else {
				out[len(out)-1] = append(out[len(out)-1].([]any), vs[j])
			}
		}
		return out
	default: // unique, unique_by
		out := []any{}
		for i, j := range idx {
			if i == 0 || gojq.Compare(ks[idx[i-1]], ks[j]) != 0 {
				out = append(out, vs[j])
			}
		}
		return out
	}
}

// mergeSort returns the indexes of keys in stable sorted order, looking at
// the deadline every checkEvery comparisons.
func (b *bounded) mergeSort(keys []any) ([]int, error) {
	n := len(keys)
	idx, tmp := make([]int, n), make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	steps := 0
	for width := 1; width < n; width *= 2 {
		for lo := 0; lo < n; lo += 2 * width {
			mid, hi := min(lo+width, n), min(lo+2*width, n)
			i, j, k := lo, mid, lo
			for i < mid && j < hi {
				if steps++; steps%checkEvery == 0 {
					if err := b.stopped(); err != nil {
						return nil, err
					}
				}
				if gojq.Compare(keys[idx[j]], keys[idx[i]]) < 0 {
					tmp[k], j = idx[j], j+1
				} else {
					tmp[k], i = idx[i], i+1
				}
				k++
			}
			k += copy(tmp[k:], idx[i:mid])
			copy(tmp[k:], idx[j:hi])
		}
		idx, tmp = tmp, idx
	}
	return idx, nil
}

// gojqError runs the gojq query src (with $x bound to x) on v and returns
// what it returns: for the inputs it is used on, gojq's error.
func gojqError(src string, v, x any) any {
	q, err := gojq.Parse(src)
	if err != nil {
		return fmt.Errorf("jq: %w", err)
	}
	code, err := gojq.Compile(q, gojq.WithVariables([]string{"$x"}))
	if err != nil {
		return fmt.Errorf("jq: %w", err)
	}
	r, _ := code.Run(v, x).Next()
	return r
}
