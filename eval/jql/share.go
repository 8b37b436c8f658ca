package jql

import "sync/atomic"

// share runs fn(w, i) once for every i in [0, total), on the calling
// goroutine (w = 0) and up to n-1 goroutines it starts (w = 1, 2, …): each
// takes the next i as it is free. It returns when every i is done, and
// waits for no goroutine that has taken none: a goroutine that starts
// late, when the machine's other work holds the processors, finds nothing
// left and ends, and the caller has done the work alone meanwhile, so the
// split is never much slower than one goroutine. fn must be safe to run
// concurrently for different i, and w tells which goroutine runs it (for
// state of its own).
func share(n, total int, fn func(w, i int)) {
	n = max(1, min(n, total))
	if n == 1 {
		for i := range total {
			fn(0, i)
		}
		return
	}
	var next, finished atomic.Int64
	all := make(chan struct{})
	work := func(w int) {
		for {
			i := int(next.Add(1) - 1)
			if i >= total {
				return
			}
			fn(w, i)
			if finished.Add(1) == int64(total) {
				close(all)
			}
		}
	}
	for w := 1; w < n; w++ {
		go work(w)
	}
	work(0)
	<-all
}
