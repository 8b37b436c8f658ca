module github.com/ctxql/ctxql/bench

go 1.26.0

replace github.com/ctxql/ctxql => ../
