package pact

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	syn "github.com/ctxql/ctxql/syntax/pact"
	"github.com/pmezard/go-difflib/difflib"
)

// RangeDiffLatestResult is the result of a selector with a snapshot range
// (v1 §4).
type RangeDiffLatestResult struct {
	Query     string        `json:"query"`
	Snapshots []SnapshotRef `json:"snapshots"`
	Diffs     []DiffBlock   `json:"diffs"`
	Mode      string        `json:"mode"`
	Limits    *Limits       `json:"limits,omitempty"`
	Warnings  []string      `json:"warnings,omitempty"`
}

// SnapshotRef names one snapshot of a range.
type SnapshotRef struct {
	Kind  string `json:"kind"`
	Value int64  `json:"value"`
	Label string `json:"label"`
	Cycle int64  `json:"cycle"`
}

// Limits reports the caps applied to a range result.
type Limits struct {
	MaxSnapshots          *int `json:"maxSnapshots,omitempty"`
	MaxChangesPerSnapshot *int `json:"maxChangesPerSnapshot,omitempty"`
	Truncated             bool `json:"truncated"`
}

// DiffBlock is the difference between two consecutive snapshots of a range.
type DiffBlock struct {
	From       SnapshotRef `json:"from"`
	To         SnapshotRef `json:"to"`
	AddedIDs   []string    `json:"added_ids"`
	RemovedIDs []string    `json:"removed_ids"`
	Changed    []Change    `json:"changed"`
	Stats      Stats       `json:"stats"`
}

// Stats counts a diff block's entries (before truncation).
type Stats struct {
	Added   int `json:"added"`
	Removed int `json:"removed"`
	Changed int `json:"changed"`
}

// Change is one node present in both snapshots whose tracked headers differ.
type Change struct {
	ID          string           `json:"id"`
	Fields      []string         `json:"fields"`
	Delta       map[string]Delta `json:"delta,omitempty"`
	ContentDiff *ContentDiff     `json:"content_diff,omitempty"`
}

// Delta is a header's value in the newer (From) and older (To) snapshot.
type Delta struct {
	From any `json:"from"`
	To   any `json:"to"`
}

// ContentDiff describes how a node's content changed.
type ContentDiff struct {
	Mode    string         `json:"mode"`
	Mime    string         `json:"mime,omitempty"`
	Summary ContentSummary `json:"summary"`
	Diff    string         `json:"diff,omitempty"`
}

// ContentSummary sizes the two contents.
type ContentSummary struct {
	BytesNewer int  `json:"bytesNewer"`
	BytesOlder int  `json:"bytesOlder"`
	Identical  bool `json:"identical"`
	Truncated  bool `json:"truncated"`
}

// trackedHeaders are the headers whose change makes a node "changed".
var trackedHeaders = []string{"ttl", "priority", "parent", "offset", "nodeType", "role", "kind", "content_hash", "created_at_ns", "creation_index"}

func header(n Node, h string) any {
	switch h {
	case "parent":
		p, ok := n.Parent()
		if !ok || p.ID() == "" {
			return nil
		}
		return p.ID()
	case "nodeType":
		if n.NodeType() == "" {
			return nil
		}
		return n.NodeType()
	case "content_hash":
		return n.ContentHash()
	}
	return n.attr(h)
}

func sameValue(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// rangeIndexes resolves the query's range to snapshot indexes, newest first,
// and the reference kind for labels.
func rangeIndexes(d *Data, t *syn.Time) ([]int, string, error) {
	lo, hi := 0, len(d.Snapshots)-1
	kind := "t"
	if !t.History {
		a, err := resolveAtom(d, t, t.From)
		if err != nil {
			return nil, "", err
		}
		b, err := resolveAtom(d, t, t.To)
		if err != nil {
			return nil, "", err
		}
		lo, hi = min(a, b), max(a, b)
		if t.From.Kind == syn.TimeCycle {
			kind = "c"
		}
	}
	var idx []int
	for i := hi; i >= lo; i-- {
		idx = append(idx, i)
	}
	return idx, kind, nil
}

func refOf(d *Data, i int, kind string) SnapshotRef {
	s := d.Snapshots[i]
	if kind == "c" {
		return SnapshotRef{Kind: "c", Value: s.Cycle, Label: fmt.Sprintf("@c%d", s.Cycle), Cycle: s.Cycle}
	}
	rel := int64(i - (len(d.Snapshots) - 1))
	return SnapshotRef{Kind: "t", Value: rel, Label: fmt.Sprintf("@t%d", rel), Cycle: s.Cycle}
}

func (ev *evaluator) evalRange(d *Data, opts Options) (*RangeDiffLatestResult, error) {
	idx, kind, err := rangeIndexes(d, ev.p.q.Time)
	if err != nil {
		return nil, err
	}
	res := &RangeDiffLatestResult{Query: ev.p.src, Mode: "pairwise", Snapshots: []SnapshotRef{}, Diffs: []DiffBlock{}}
	var limits Limits
	useLimits := false
	if opts.MaxSnapshots != nil {
		useLimits = true
		limits.MaxSnapshots = opts.MaxSnapshots
		if len(idx) > *opts.MaxSnapshots {
			idx = idx[:*opts.MaxSnapshots]
			limits.Truncated = true
		}
	}
	if opts.MaxChangesPerSnapshot != nil {
		useLimits = true
		limits.MaxChangesPerSnapshot = opts.MaxChangesPerSnapshot
	}
	mode := opts.ContentMode
	if mode == "" {
		mode = "unified"
	}
	if opts.IncludeContent && mode != "unified" {
		res.Warnings = append(res.Warnings, fmt.Sprintf("contentMode %q is not supported; content_diff carries the summary only", mode))
	}
	ctxLines := 3
	if opts.ContextLines != nil {
		ctxLines = *opts.ContextLines
	}
	results := make([][]int32, len(idx))
	for k, i := range idx {
		res.Snapshots = append(res.Snapshots, refOf(d, i, kind))
		nodes, err := ev.evalSnapshot(d.Snapshots[i])
		if err != nil {
			return nil, err
		}
		results[k] = nodes
	}
	for k := 0; k+1 < len(idx); k++ {
		from, to := d.Snapshots[idx[k]], d.Snapshots[idx[k+1]]
		blk := DiffBlock{From: res.Snapshots[k], To: res.Snapshots[k+1], AddedIDs: []string{}, RemovedIDs: []string{}, Changed: []Change{}}
		inFrom := map[string]Node{}
		for _, i := range results[k] {
			if n := (Node{from, i}); n.ID() != "" {
				inFrom[n.ID()] = n
			}
		}
		inTo := map[string]Node{}
		for _, i := range results[k+1] {
			if n := (Node{to, i}); n.ID() != "" {
				inTo[n.ID()] = n
			}
		}
		for _, i := range results[k] {
			check := ev.check
			if opts.IncludeContent {
				check = ev.err // every node: a content diff is a large step
			}
			if err := check(); err != nil {
				return nil, err
			}
			n := Node{from, i}
			id := n.ID()
			if id == "" {
				continue
			}
			if o, ok := inTo[id]; !ok {
				blk.AddedIDs = append(blk.AddedIDs, id)
			} else if c, changed := diffNode(n, o, opts.IncludeContent, mode, ctxLines); changed {
				blk.Changed = append(blk.Changed, c)
			}
		}
		for _, i := range results[k+1] {
			if id := to.nodeID(i); id != "" {
				if _, ok := inFrom[id]; !ok {
					blk.RemovedIDs = append(blk.RemovedIDs, id)
				}
			}
		}
		idx, err := from.ids(ev.ctx)
		if err != nil {
			return nil, err
		}
		sortByFrom(blk.AddedIDs, idx)
		sortByFrom(blk.RemovedIDs, idx)
		blk.Stats = Stats{Added: len(blk.AddedIDs), Removed: len(blk.RemovedIDs), Changed: len(blk.Changed)}
		if opts.MaxChangesPerSnapshot != nil {
			budget := *opts.MaxChangesPerSnapshot
			cut := func(n int) int {
				if n > budget {
					limits.Truncated = true
					n = budget
				}
				budget -= n
				return n
			}
			blk.AddedIDs = blk.AddedIDs[:cut(len(blk.AddedIDs))]
			blk.RemovedIDs = blk.RemovedIDs[:cut(len(blk.RemovedIDs))]
			blk.Changed = blk.Changed[:cut(len(blk.Changed))]
		}
		res.Diffs = append(res.Diffs, blk)
	}
	if useLimits {
		res.Limits = &limits
	}
	return res, nil
}

// sortByFrom orders ids by their document position in the from snapshot,
// whose id index is from; ids absent there follow, ordered by id.
func sortByFrom(ids []string, from map[string]int32) {
	pos := func(id string) int {
		if n, ok := from[id]; ok {
			return int(n)
		}
		return int(^uint(0) >> 1)
	}
	sort.SliceStable(ids, func(i, j int) bool {
		pi, pj := pos(ids[i]), pos(ids[j])
		if pi != pj {
			return pi < pj
		}
		return ids[i] < ids[j]
	})
}

func diffNode(newer, older Node, includeContent bool, mode string, ctxLines int) (Change, bool) {
	c := Change{ID: newer.ID(), Fields: []string{}}
	for _, h := range trackedHeaders {
		a, b := header(newer, h), header(older, h)
		if !sameValue(a, b) {
			c.Fields = append(c.Fields, h)
			if c.Delta == nil {
				c.Delta = map[string]Delta{}
			}
			c.Delta[h] = Delta{From: a, To: b}
		}
	}
	if len(c.Fields) == 0 {
		return c, false
	}
	if _, ok := c.Delta["content_hash"]; includeContent && ok {
		c.ContentDiff = contentDiff(newer, older, mode, ctxLines)
	}
	return c, true
}

func contentText(n Node) string {
	c, ok := n.Attr("content")
	if !ok || c == nil {
		return ""
	}
	return string(contentBytes(c))
}

func contentDiff(newer, older Node, mode string, ctxLines int) *ContentDiff {
	a, b := contentText(older), contentText(newer)
	cd := &ContentDiff{Mode: mode, Summary: ContentSummary{BytesNewer: len(b), BytesOlder: len(a), Identical: a == b}}
	if m, ok := newer.attr("mime").(string); ok {
		cd.Mime = m
	}
	if mode != "unified" {
		return cd
	}
	la, lb := splitLines(a), splitLines(b)
	if len(la)+len(lb) > MaxDiffLines {
		// The line diff takes time quadratic in the lines, in one step that
		// no deadline can interrupt: past the bound it is left out.
		cd.Summary.Truncated = true
		return cd
	}
	text, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: la, B: lb,
		FromFile: older.ID() + "@older", ToFile: newer.ID() + "@newer",
		Context: ctxLines,
	})
	if err == nil {
		cd.Diff = text
	}
	return cd
}

// MaxDiffLines bounds the lines (older and newer together) of a content
// whose unified diff is computed; a larger content's diff is left out and
// its summary marked truncated.
const MaxDiffLines = 10000

// splitLines splits text into lines that keep their newline; a last line
// without one gets one so that every diff line is terminated.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	} else {
		lines[len(lines)-1] += "\n"
	}
	return lines
}
