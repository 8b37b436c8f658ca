package junit

import (
	"encoding/xml"
	"strings"
	"testing"
)

// TestWrite checks the counts Write fills in and the bytes it writes, with
// and without errors attributes.
func TestWrite(t *testing.T) {
	for _, tc := range []struct {
		name string
		doc  Suites
		want string
	}{
		{
			name: "empty",
			doc:  Suites{},
			want: `<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="0" failures="0"></testsuites>
`,
		},
		{
			name: "lint",
			doc: Suites{Name: "ctxql", Suites: []Suite{
				{Name: "a.pact", Cases: []Case{{Name: "P001 1:2", ClassName: "ctxql.P001", Failure: &Problem{Message: "m", Type: "error", Text: "a.pact:1:2: m & <x>\n"}}}},
				{Name: "b.pact", Cases: []Case{{Name: "clean", ClassName: "ctxql"}}},
			}},
			want: `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="ctxql" tests="2" failures="1">
  <testsuite name="a.pact" tests="1" failures="1">
    <testcase name="P001 1:2" classname="ctxql.P001">
      <failure message="m" type="error">a.pact:1:2: m &amp; &lt;x&gt;&#xA;</failure>
    </testcase>
  </testsuite>
  <testsuite name="b.pact" tests="1" failures="0">
    <testcase name="clean" classname="ctxql"></testcase>
  </testsuite>
</testsuites>
`,
		},
		{
			name: "test run",
			doc: Suites{CountErrors: true, Suites: []Suite{
				{Name: "t.yaml", Time: "0.250", Cases: []Case{
					{Name: "ok", ClassName: "t.yaml", File: "t.yaml", Line: 3, Time: "0.100"},
					{Name: "bad", ClassName: "t.yaml", File: "t.yaml", Line: 5, Time: "0.100", Failure: &Problem{Message: "differs", Type: "fail"}},
					{Name: "broken", ClassName: "t.yaml", File: "t.yaml", Line: 9, Time: "0.050", Error: &Problem{Message: "no data", Type: "error"}},
				}},
				{Name: "u.yaml", Time: "0.000", Cases: []Case{{Name: "ok", ClassName: "u.yaml", File: "u.yaml", Line: 1, Time: "0.000"}}},
			}},
			want: `<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="4" failures="1" errors="1">
  <testsuite name="t.yaml" tests="3" failures="1" errors="1" time="0.250">
    <testcase name="ok" classname="t.yaml" file="t.yaml" line="3" time="0.100"></testcase>
    <testcase name="bad" classname="t.yaml" file="t.yaml" line="5" time="0.100">
      <failure message="differs" type="fail"></failure>
    </testcase>
    <testcase name="broken" classname="t.yaml" file="t.yaml" line="9" time="0.050">
      <error message="no data" type="error"></error>
    </testcase>
  </testsuite>
  <testsuite name="u.yaml" tests="1" failures="0" errors="0" time="0.000">
    <testcase name="ok" classname="u.yaml" file="u.yaml" line="1" time="0.000"></testcase>
  </testsuite>
</testsuites>
`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			if err := Write(&b, &tc.doc); err != nil {
				t.Fatal(err)
			}
			if b.String() != tc.want {
				t.Fatalf("got\n%s\nwant\n%s", b.String(), tc.want)
			}
			// Writing again gives the same bytes: the counts are set, not added to.
			var again strings.Builder
			if err := Write(&again, &tc.doc); err != nil || again.String() != tc.want {
				t.Fatalf("second write: %v\n%s", err, again.String())
			}
			var back Suites
			if err := xml.Unmarshal([]byte(b.String()), &back); err != nil {
				t.Fatalf("the output does not read back: %v", err)
			}
			if back.Tests != tc.doc.Tests || len(back.Suites) != len(tc.doc.Suites) {
				t.Fatalf("read back %d tests in %d suites", back.Tests, len(back.Suites))
			}
		})
	}
}
