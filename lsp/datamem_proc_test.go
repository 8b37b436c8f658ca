package lsp_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ctxql/ctxql/lsp"
)

// writeActivities writes a JQL data file of about size bytes: an array
// of activity documents, each naming the file (n), so that no two files
// hold the same data.
func writeActivities(t testing.TB, path string, n, size int) {
	t.Helper()
	var b bytes.Buffer
	b.Grow(size + 512)
	b.WriteString("[")
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `{"id":"f%d-a%d","type":%q,"sessionId":"s%d","createTime":"2026-11-%02dT%02d:%02d:00Z","agentMessaged":{"agentMessage":"step %d of file %d: the build of the service finished and its tests ran"},"progress":{"steps":[{"title":"compile","done":true},{"title":"test %d","done":%t}]}}`,
			n, i, []string{"agentMessaged", "planGenerated", "progressUpdated", "sessionCompleted"}[i%4], i%97, 1+i%28, i%24, i%60, i, n, i, i%3 == 0)
	}
	b.WriteString("]\n")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// dataChurn is a run of a real server over documents with different
// sample data files, each opened and closed in turn: the resident size
// of the process before the first document, at its peak and after the
// idle wait.
type dataChurn struct {
	base, peak, final int64
	settled           time.Duration // from the last close to final
}

// churnData starts "ctxql lsp" with the settings given, opens and closes
// files JQL documents one after the other, each over its own data file of
// size bytes, waiting for each document's data finding (the query
// evaluated over its data), then polls the resident size until settled
// holds or wait has passed since the last close, and returns the figures.
func churnData(t testing.TB, files, size int, settings map[string]any, settled func(dataChurn) bool, wait time.Duration) dataChurn {
	t.Helper()
	dir := t.TempDir()
	for i := range files {
		writeActivities(t, filepath.Join(dir, fmt.Sprintf("d%d.json", i)), i, size)
	}
	p := startProc(t, dir)
	id := p.request("initialize", map[string]any{"processId": nil, "capabilities": map[string]any{},
		"initializationOptions": settings})
	p.response(id, 20*time.Second)
	p.notify("initialized", map[string]any{})
	var run dataChurn
	run.base = p.vmRSS()
	for i := range files {
		uri := fileURI(filepath.Join(dir, fmt.Sprintf("q%d.jql", i)))
		p.open(uri, fmt.Sprintf("// data: ./d%d.json\n{from: 'activities', select: ['id'], where: {type: 'nobody'}}\n", i))
		p.await(2*time.Minute, func(m map[string]any) bool {
			if !isNote(m, "textDocument/publishDiagnostics", uri) {
				return false
			}
			ds, _ := m["params"].(map[string]any)["diagnostics"].([]any)
			for _, d := range ds {
				if d.(map[string]any)["code"] == "DATA001" {
					return true
				}
			}
			return false
		}, nil)
		p.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}})
	}
	closed := time.Now()
	// Every close handled: the notifications are handled in order.
	last := fileURI(filepath.Join(dir, "last.pact"))
	p.open(last, "// pact: v2\n.cb\n")
	p.await(time.Minute, func(m map[string]any) bool { return isNote(m, "textDocument/publishDiagnostics", last) }, nil)
	run.peak = p.vmHWM()
	for {
		run.final = p.vmRSS()
		run.settled = time.Since(closed)
		if settled(run) || run.settled > wait {
			return run
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestDataReleasedAfterIdleProcess checks, from outside a real server,
// that the memory of sample data no open document uses returns to the
// operating system after the dataReleaseDelay setting: twelve JQL
// documents, each over its own 4 MB data file, opened and closed in turn,
// with the default dataCacheBytes bound (which keeps them all) and a
// dataReleaseDelay of 500 ms. Within 20 s of the last close the resident
// size is back within 16 MiB of the server's before the first document,
// although its peak was more than the data's size above it.
func TestDataReleasedAfterIdleProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and loads 48 MB of sample data")
	}
	const files, size = 12, 4 << 20
	run := churnData(t, files, size, map[string]any{"dataReleaseDelay": 500}, func(r dataChurn) bool { return r.final <= r.base+16<<20 }, 20*time.Second)
	t.Logf("resident: %d MiB before, %d MiB peak, %d MiB %v after the last close",
		run.base>>20, run.peak>>20, run.final>>20, run.settled.Round(time.Millisecond))
	if run.peak-run.base < size*files {
		t.Errorf("peak %d MiB, %d MiB before: the data was not loaded", run.peak>>20, run.base>>20)
	}
	if run.final > run.base+16<<20 {
		t.Errorf("resident %d MiB %v after the last close, want at most %d MiB (%d MiB before the first document, peak %d MiB)",
			run.final>>20, run.settled.Round(time.Millisecond), (run.base+16<<20)>>20, run.base>>20, run.peak>>20)
	}
}

// BenchmarkDataReleaseProcess opens and closes, one after the other, 26
// JQL documents over different 20 MB data files in a real server with the
// default settings, and reports its resident size (VmRSS, VmHWM) before
// the first document, at its peak, and once it settled after the last
// close (back within 32 MiB of the start, or twice the default
// dataReleaseDelay after the last close); and, as the anchor in the same
// run, the same with the settings of the server before it released idle
// data: a dataCacheBytes bound of 512 MiB and no dataReleaseDelay (about
// a year).
func BenchmarkDataReleaseProcess(b *testing.B) {
	const files, size = 26, 20 << 20
	wait := 2 * lsp.DefaultDataReleaseDelay
	var run, anchor dataChurn
	for i := 0; i < b.N; i++ {
		run = churnData(b, files, size, map[string]any{}, func(r dataChurn) bool { return r.final <= r.base+32<<20 }, wait)
		anchor = churnData(b, files, size, map[string]any{"dataCacheBytes": 512 << 20, "dataReleaseDelay": int64(365 * 24 * time.Hour / time.Millisecond)},
			func(dataChurn) bool { return false }, wait)
	}
	mib := func(n int64) float64 { return float64(n) / (1 << 20) }
	b.ReportMetric(mib(run.base), "start-MiB")
	b.ReportMetric(mib(run.peak), "peak-MiB")
	b.ReportMetric(mib(run.final), "settled-MiB")
	b.ReportMetric(run.settled.Seconds(), "settled-s")
	b.ReportMetric(mib(anchor.peak), "anchor-peak-MiB")
	b.ReportMetric(mib(anchor.final), "anchor-settled-MiB")
	b.ReportMetric(float64(run.final)/float64(anchor.final), "settled-x-vs-anchor")
}
