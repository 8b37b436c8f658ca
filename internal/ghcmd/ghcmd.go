// Package ghcmd writes GitHub Actions workflow commands that annotate a
// file ("::error file=q.pact,line=3,col=1,title=…::message"), with the
// escaping the runner expects.
package ghcmd

import (
	"fmt"
	"strings"
)

// Annotation is one workflow command: an error, warning or notice at a
// place of a file. EndLine and EndColumn are written only when EndLine is
// set; lines and columns count from 1.
type Annotation struct {
	Level              string // "error", "warning" or "notice"
	File               string
	Line, Column       int
	EndLine, EndColumn int
	Title, Message     string
}

var (
	data     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	property = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

// String returns the command's line, without its line break.
func (a Annotation) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "::%s file=%s,line=%d,col=%d", a.Level, property.Replace(a.File), a.Line, a.Column)
	if a.EndLine > 0 {
		fmt.Fprintf(&b, ",endLine=%d,endColumn=%d", a.EndLine, a.EndColumn)
	}
	fmt.Fprintf(&b, ",title=%s::%s", property.Replace(a.Title), data.Replace(a.Message))
	return b.String()
}
