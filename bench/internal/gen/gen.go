// Package gen generates the benchmarks' large inputs, deterministically,
// so that the benchmarks of ctxql against its anchors and those of the
// WebAssembly build against the native one measure the same data.
package gen

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// PACTTree returns the PACT benchmark tree: root → sys/seq/ah → 2,000
// turns → 4 containers each → 124 blocks each (about 1,000,000 nodes,
// 87 MB of JSON, {"root": ...}), and its HTML rendering (nodeType as
// class, attributes as data-*).
func PACTTree() (jsonText, htmlText []byte) {
	var jb, hb bytes.Buffer
	jb.WriteString(`{"root":{"id":"root","nodeType":"^root","children":[{"id":"sys","nodeType":"^sys","children":[{"id":"sys:cb","nodeType":"cb","role":"system","offset":0,"ttl":9}]},{"id":"seq","nodeType":"^seq","children":[`)
	hb.WriteString(`<html><body><div id="root" class="root"><div id="sys" class="sys"><div id="sys:cb" class="cb" data-role="system" data-offset="0" data-ttl="9"></div></div><div id="seq" class="seq">`)
	roles := []string{"user", "assistant"}
	for t := 0; t < 2000; t++ {
		if t > 0 {
			jb.WriteByte(',')
		}
		fmt.Fprintf(&jb, `{"id":"mt:%d","nodeType":"mt","children":[`, t)
		fmt.Fprintf(&hb, `<div id="mt:%d" class="mt">`, t)
		for c := 0; c < 4; c++ {
			if c > 0 {
				jb.WriteByte(',')
			}
			fmt.Fprintf(&jb, `{"id":"mc:%d:%d","nodeType":"mc","children":[`, t, c)
			fmt.Fprintf(&hb, `<div id="mc:%d:%d" class="mc">`, t, c)
			for k := 0; k < 124; k++ {
				if k > 0 {
					jb.WriteByte(',')
				}
				role, off, ttl := roles[(t+c)%2], k%3-1, (t*7+k)%5
				fmt.Fprintf(&jb, `{"id":"cb:%d:%d:%d","nodeType":"cb","role":"%s","kind":"text","offset":%d,"ttl":%d}`, t, c, k, role, off, ttl)
				fmt.Fprintf(&hb, `<div id="cb:%d:%d:%d" class="cb" data-role="%s" data-kind="text" data-offset="%d" data-ttl="%d"></div>`, t, c, k, role, off, ttl)
			}
			jb.WriteString(`]}`)
			hb.WriteString(`</div>`)
		}
		jb.WriteString(`]}`)
		hb.WriteString(`</div>`)
	}
	jb.WriteString(`]},{"id":"ah","nodeType":"^ah","children":[]}]}}`)
	hb.WriteString(`</div><div id="ah" class="ah"></div></div></body></html>`)
	return jb.Bytes(), hb.Bytes()
}

type genArtifact struct {
	Type      string         `json:"type"`
	Command   string         `json:"command,omitempty"`
	Stdout    string         `json:"stdout,omitempty"`
	Stderr    string         `json:"stderr,omitempty"`
	ExitCode  *int           `json:"exitCode,omitempty"`
	Format    string         `json:"format,omitempty"`
	Data      string         `json:"data,omitempty"`
	ChangeSet map[string]any `json:"changeSet,omitempty"`
}

type genActivity struct {
	ID          string         `json:"id"`
	Name        string         `json:"name"`
	SessionID   string         `json:"sessionId"`
	Type        string         `json:"type"`
	CreateTime  string         `json:"createTime"`
	Originator  string         `json:"originator"`
	Message     string         `json:"message,omitempty"`
	Title       string         `json:"title,omitempty"`
	Description string         `json:"description,omitempty"`
	Plan        map[string]any `json:"plan,omitempty"`
	Artifacts   []genArtifact  `json:"artifacts,omitempty"`
}

// Activities writes n realistic JQL activities as JSON Lines to out, over
// n/1000+1 sessions (at least 50), newest last, and returns the bytes
// written.
func Activities(out io.Writer, n int) (int64, error) {
	cw := &counter{w: out}
	w := bufio.NewWriterSize(cw, 1<<20)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	r := rand.New(rand.NewPCG(1, 2))
	sessions := max(n/1000+1, 50)
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	types := []string{"progressUpdated", "progressUpdated", "progressUpdated", "agentMessaged", "userMessaged", "planGenerated", "sessionCompleted"}
	cmds := []string{"npm test", "go test ./...", "make build", "ls -la", "git status", "pytest -q"}
	for i := range n {
		s := r.IntN(sessions)
		a := genActivity{
			ID: fmt.Sprintf("act-%07d", i), SessionID: "s-" + strconv.Itoa(s), Type: types[r.IntN(len(types))],
			CreateTime: base.Add(time.Duration(i) * time.Second).Format(time.RFC3339), Originator: "agent",
		}
		a.Name = "sessions/" + a.SessionID + "/activities/" + a.ID
		switch a.Type {
		case "agentMessaged", "userMessaged":
			a.Message = strings.Repeat("The tests are passing now and the change is ready for review. ", 1+r.IntN(4))
			if a.Type == "userMessaged" {
				a.Originator = "user"
			}
		case "planGenerated":
			a.Plan = map[string]any{"id": "plan-" + a.ID, "steps": []map[string]any{{"id": "st-1", "title": "Reproduce the bug", "index": 0}, {"id": "st-2", "title": "Fix it", "index": 1}}}
		case "progressUpdated":
			a.Title = "Running " + cmds[r.IntN(len(cmds))]
			a.Description = "Ran the command and collected its output."
			for range 1 + r.IntN(3) {
				switch r.IntN(4) {
				case 0, 1:
					code := 0
					if r.IntN(4) == 0 {
						code = 1 + r.IntN(2)
					}
					a.Artifacts = append(a.Artifacts, genArtifact{Type: "bashOutput", Command: cmds[r.IntN(len(cmds))],
						Stdout:   strings.Repeat("ok  \tgithub.com/example/pkg\t0.012s\n", 2+r.IntN(6)),
						Stderr:   strings.Repeat("warning: deprecated flag\n", r.IntN(3)),
						ExitCode: &code})
				case 2:
					a.Artifacts = append(a.Artifacts, genArtifact{Type: "media", Format: "image/png", Data: strings.Repeat("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg", 3)})
				default:
					a.Artifacts = append(a.Artifacts, genArtifact{Type: "changeSet", ChangeSet: map[string]any{
						"source": "sources/github/example/repo",
						"gitPatch": map[string]any{
							"unidiffPatch":           "diff --git a/main.go b/main.go\n--- a/main.go\n+++ b/main.go\n@@ -1,3 +1,4 @@\n package main\n+import \"fmt\"\n func main() {\n-\tprintln(1)\n+\tfmt.Println(1)\n }\n",
							"baseCommitId":           fmt.Sprintf("%040x", r.Uint64()),
							"suggestedCommitMessage": "Fix the printing of numbers",
						}}})
				}
			}
		}
		if err := enc.Encode(a); err != nil {
			return cw.n, err
		}
	}
	err := w.Flush()
	return cw.n, err
}

// counter counts the bytes written through it.
type counter struct {
	w io.Writer
	n int64
}

func (c *counter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}
