package cli

import (
	"regexp"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/internal/golden"
)

// durations matches what varies from run to run in the outputs of
// "ctxql test": the times of cases and suites.
var durations = regexp.MustCompile(`\(\d+\.\d+s\)|time="\d+\.\d+"|"seconds": [0-9.e-]+`)

// TestTestGolden runs each archive under testdata/test as TestCheckGolden
// runs testdata/check (runArchive), with times replaced by "X".
func TestTestGolden(t *testing.T) {
	golden.Run(t, "../testdata/test/*.txtar", func(t *testing.T, c *golden.Case) {
		runArchive(t, c, func(s string) string {
			return durations.ReplaceAllStringFunc(s, func(m string) string {
				switch {
				case strings.HasPrefix(m, "("):
					return "(X)"
				case strings.HasPrefix(m, "time="):
					return `time="X"`
				}
				return `"seconds": X`
			})
		})
	})
}
