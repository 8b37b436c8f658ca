package cli

import (
	"testing"
	"time"
)

// TestSourceDateClock checks that SOURCE_DATE_EPOCH fixes the MCP server's
// clock, that an empty value keeps the real clock and that garbage is refused.
func TestSourceDateClock(t *testing.T) {
	now, err := sourceDateClock("1735689600")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := now(), time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC); !got.Equal(want) {
		t.Errorf("clock = %v, want %v", got, want)
	}
	if now, err := sourceDateClock(""); err != nil || now != nil {
		t.Errorf(`sourceDateClock("") = %v, %v; want no clock and no error`, now != nil, err)
	}
	if _, err := sourceDateClock("yesterday"); err == nil {
		t.Error("a non-numeric SOURCE_DATE_EPOCH was accepted")
	}
}
