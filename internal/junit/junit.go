// Package junit writes JUnit XML, the test report most CI services read:
// a <testsuites> root with one <testsuite> per file and a <testcase> per
// check, each passing, failed or in error.
package junit

import (
	"encoding/xml"
	"io"
)

// Suites is the document's root element. Write fills in its counts.
type Suites struct {
	XMLName  xml.Name `xml:"testsuites"`
	Name     string   `xml:"name,attr,omitempty"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   *int     `xml:"errors,attr,omitempty"` // written when CountErrors is set
	Suites   []Suite  `xml:"testsuite"`

	// CountErrors has Write give the root and every suite an errors
	// attribute (cases in error as against failed ones), as a test
	// runner's report has; a linter's report counts failures alone.
	CountErrors bool `xml:"-"`
}

// Suite is one <testsuite>, usually one file. Write fills in its counts.
type Suite struct {
	Name     string `xml:"name,attr"`
	Tests    int    `xml:"tests,attr"`
	Failures int    `xml:"failures,attr"`
	Errors   *int   `xml:"errors,attr,omitempty"`
	Time     string `xml:"time,attr,omitempty"` // seconds, "1.250"
	Cases    []Case `xml:"testcase"`
}

// Case is one <testcase>: it passed unless it has a Failure or an Error.
type Case struct {
	Name      string   `xml:"name,attr"`
	ClassName string   `xml:"classname,attr"`
	File      string   `xml:"file,attr,omitempty"`
	Line      int      `xml:"line,attr,omitempty"` // 1-based
	Time      string   `xml:"time,attr,omitempty"`
	Failure   *Problem `xml:"failure,omitempty"`
	Error     *Problem `xml:"error,omitempty"`
}

// Problem is why a case failed or is in error.
type Problem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// Write counts the cases of every suite and of the whole document, then
// writes the document with an XML header, indented by two spaces and ending
// in a newline.
func Write(w io.Writer, doc *Suites) error {
	doc.Tests, doc.Failures, doc.Errors = 0, 0, nil
	errs := 0
	for i := range doc.Suites {
		s := &doc.Suites[i]
		s.Tests, s.Failures, s.Errors = len(s.Cases), 0, nil
		n := 0
		for _, c := range s.Cases {
			switch {
			case c.Failure != nil:
				s.Failures++
			case c.Error != nil:
				n++
			}
		}
		if doc.CountErrors {
			s.Errors = &n
		}
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		errs += n
	}
	if doc.CountErrors {
		doc.Errors = &errs
	}
	b, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		return err
	}
	_, err = io.WriteString(w, "\n")
	return err
}
