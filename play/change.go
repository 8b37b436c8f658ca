package play

import (
	"strings"
	"unicode/utf16"
)

// The page sends whole texts (the bridge announces full synchronization,
// so that it sees every text in full); the language server pushes its live
// preview only for an edit at a known place. The bridge therefore passes
// each new text on as the one range edit that turns the previous text into
// it, widened to whole lines: the server's preview then follows the edited
// query, as in the editors.

// lspPos is an LSP position in UTF-16 code units.
type lspPos struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

type lspRange struct {
	Start lspPos `json:"start"`
	End   lspPos `json:"end"`
}

// lineChange returns the range of old (whole lines, without their line
// break) and the text that replace it to give new.
func lineChange(old, new string) (lspRange, string) {
	n := min(len(old), len(new))
	p := 0
	for p < n && old[p] == new[p] {
		p++
	}
	s := 0
	for s < n-p && old[len(old)-1-s] == new[len(new)-1-s] {
		s++
	}
	start := strings.LastIndexByte(old[:p], '\n') + 1
	endOld := len(old) - s
	e := len(old)
	if i := strings.IndexByte(old[endOld:], '\n'); i >= 0 {
		e = endOld + i
		switch {
		case e > start && old[e-1] == '\r' && e-1 >= endOld:
			e-- // end before an unchanged "\r\n"
		case e > start && old[e-1] == '\r':
			e++ // a changed "\r": end after its "\n", never between the two
		}
	}
	newEnd := len(new) - (len(old) - e)
	return lspRange{Start: utf16Pos(old, start), End: utf16Pos(old, e)}, new[start:newEnd]
}

// utf16Pos converts a byte offset of text to an LSP position.
func utf16Pos(text string, off int) lspPos {
	head := text[:off]
	ls := strings.LastIndexByte(head, '\n') + 1
	n := 0
	for _, r := range head[ls:] {
		n += utf16.RuneLen(r)
	}
	return lspPos{Line: strings.Count(head, "\n"), Character: n}
}
