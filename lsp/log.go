package lsp

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// logger writes the server's log lines; it never touches the protocol stream.
type logger struct {
	mu      sync.Mutex
	w       io.Writer
	tracing bool
}

func newLogger(w io.Writer, trace bool) *logger {
	if w == nil {
		w = io.Discard
	}
	return &logger{w: w, tracing: trace}
}

func (l *logger) printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.w, "%s ctxql lsp: %s\n", time.Now().UTC().Format("15:04:05.000"), fmt.Sprintf(format, args...))
}

// trace logs a message body in either direction when tracing is on.
func (l *logger) trace(dir string, body []byte) {
	if !l.tracing {
		return
	}
	const max = 4096
	if len(body) > max {
		l.printf("%s %s... (%d bytes)", dir, body[:max], len(body))
		return
	}
	l.printf("%s %s", dir, body)
}
