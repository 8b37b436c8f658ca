package ghcmd

import "testing"

func TestAnnotation(t *testing.T) {
	for _, tc := range []struct {
		a    Annotation
		want string
	}{
		{Annotation{Level: "error", File: "q/a.pact", Line: 3, Column: 1, Title: "ctxql test", Message: "case: 1 result\n+ x"},
			"::error file=q/a.pact,line=3,col=1,title=ctxql test::case: 1 result%0A+ x"},
		{Annotation{Level: "warning", File: "a,b:c.pact", Line: 1, Column: 2, EndLine: 1, EndColumn: 5, Title: "PACT001", Message: "100% off\r [PACT001]"},
			"::warning file=a%2Cb%3Ac.pact,line=1,col=2,endLine=1,endColumn=5,title=PACT001::100%25 off%0D [PACT001]"},
	} {
		if got := tc.a.String(); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}
