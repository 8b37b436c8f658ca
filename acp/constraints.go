package acp

import (
	"fmt"
	"io"
	"sort"
)

// Lock levels of the specification, from most to least restrictive.
const (
	LockFrozen           = "frozen"
	LockRestricted       = "restricted"
	LockApprovalRequired = "approval-required"
	LockTestsRequired    = "tests-required"
	LockDocsRequired     = "docs-required"
	LockNormal           = "normal"
	LockExperimental     = "experimental"
)

// lockRule is what a lock level means for a modification.
type lockRule struct {
	allowed, approval bool
	behavior          string
	requirement       string
	notice            string
}

func ruleFor(level string) lockRule {
	switch level {
	case LockFrozen:
		return lockRule{false, false, "refuse", "Do not modify this file; refuse the request",
			"⛔ This file is frozen and must not be modified."}
	case LockRestricted:
		return lockRule{true, true, "conservative", "Explain changes before making them",
			"⚠ This file requires approval before modification."}
	case LockApprovalRequired:
		return lockRule{true, true, "conservative", "Ask for approval before significant changes",
			"⚠ Significant changes to this file need approval."}
	case LockTestsRequired:
		return lockRule{true, false, "tested", "Include tests with changes",
			"ℹ Changes to this file must include tests."}
	case LockDocsRequired:
		return lockRule{true, false, "documented", "Update documentation with changes",
			"ℹ Changes to this file must update documentation."}
	case LockExperimental:
		return lockRule{true, false, "aggressive", "", "ℹ This file is experimental and may be modified aggressively."}
	default:
		return lockRule{true, false, "normal", "", ""}
	}
}

// ConstraintReport is the result of checking one file's constraints, the
// CLI's `constraints --json` record.
type ConstraintReport struct {
	File       string   `json:"file"`
	LockLevel  string   `json:"lock_level"`
	LockReason *string  `json:"lock_reason"`
	Style      *string  `json:"style"`
	Quality    []string `json:"quality"`
	// CanModify is true when the file may be changed without approval.
	CanModify      bool `json:"can_modify"`
	ApprovalNeeded bool `json:"approval_needed"`
	behavior       string
	requirements   []string
	notice         string
}

// ModifyDecision is the can_modify object of the MCP acp_constraints
// response.
type ModifyDecision struct {
	Allowed        bool     `json:"allowed" jsonschema:"whether the file may be modified"`
	ApprovalNeeded bool     `json:"approval_needed" jsonschema:"whether a change needs approval"`
	Requirements   []string `json:"requirements" jsonschema:"what a change must satisfy"`
}

// ToolConstraints is the response of the MCP acp_constraints tool.
type ToolConstraints struct {
	File       string         `json:"file" jsonschema:"the file checked"`
	LockLevel  string         `json:"lock_level" jsonschema:"its lock level (frozen, restricted, approval-required, tests-required, docs-required, normal or experimental)"`
	LockReason *string        `json:"lock_reason" jsonschema:"why it is locked"`
	Style      *string        `json:"style" jsonschema:"the style guide it follows"`
	Behavior   string         `json:"behavior" jsonschema:"how to approach changes to it"`
	Quality    []string       `json:"quality" jsonschema:"the quality requirements"`
	CanModify  ModifyDecision `json:"can_modify" jsonschema:"whether and how the file may be modified"`
}

// LockLevel returns the lock level of path: its by_file entry's lock_level,
// else the by_lock_level list naming it, else "normal".
func (ix *Index) LockLevel(path string) string {
	if c, ok := ix.Cache.Constraints.ByFile[path]; ok && c != nil && c.LockLevel != nil && *c.LockLevel != "" {
		return *c.LockLevel
	}
	levels := make([]string, 0, len(ix.Cache.Constraints.ByLockLevel))
	for l := range ix.Cache.Constraints.ByLockLevel {
		levels = append(levels, l)
	}
	sort.Strings(levels)
	best, bestRank := "", 99
	for _, l := range levels {
		for _, f := range ix.Cache.Constraints.ByLockLevel[l] {
			if f == path && rank(l) < bestRank {
				best, bestRank = l, rank(l)
			}
		}
	}
	if best != "" {
		return best
	}
	return LockNormal
}

func rank(l string) int {
	for i, x := range []string{LockFrozen, LockRestricted, LockApprovalRequired, LockTestsRequired, LockDocsRequired, LockNormal, LockExperimental} {
		if x == l {
			return i
		}
	}
	return 50
}

// CheckConstraints returns the constraint report of path. A file without
// constraints is "normal" and may be modified.
func (ix *Index) CheckConstraints(path string) ConstraintReport {
	level := ix.LockLevel(path)
	r := ruleFor(level)
	rep := ConstraintReport{File: path, LockLevel: level, Quality: []string{},
		CanModify: r.allowed && !r.approval, ApprovalNeeded: r.approval, behavior: r.behavior, notice: r.notice}
	if c, ok := ix.Cache.Constraints.ByFile[path]; ok && c != nil {
		rep.LockReason = c.LockReason
		if c.Style != "" {
			s := c.Style
			rep.Style = &s
		}
		if c.Quality != nil {
			rep.Quality = c.Quality
		}
		if c.Behavior != "" {
			rep.behavior = c.Behavior
		}
	}
	rep.requirements = []string{}
	if r.requirement != "" {
		rep.requirements = append(rep.requirements, r.requirement)
	}
	return rep
}

// CanModify is the programmatic check of the specification: a file may be
// modified unless it is frozen; reason is the lock reason of a frozen file.
func (ix *Index) CanModify(path string) (allowed bool, reason string) {
	rep := ix.CheckConstraints(path)
	if rep.LockLevel == LockFrozen {
		if rep.LockReason != nil {
			return false, *rep.LockReason
		}
		return false, ""
	}
	return true, ""
}

// Tool returns the MCP response form of the report.
func (r ConstraintReport) Tool() ToolConstraints {
	rule := ruleFor(r.LockLevel)
	return ToolConstraints{File: r.File, LockLevel: r.LockLevel, LockReason: r.LockReason, Style: r.Style,
		Behavior: r.behavior, Quality: r.Quality,
		CanModify: ModifyDecision{Allowed: rule.allowed, ApprovalNeeded: rule.approval, Requirements: r.requirements}}
}

// WriteText prints the report in the CLI's text form.
func (r ConstraintReport) WriteText(w io.Writer) error {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("File: %s\n", r.File)
	p("Lock Level: %s\n", r.LockLevel)
	if r.LockReason != nil {
		p("Lock Reason: %s\n", *r.LockReason)
	}
	if r.Style != nil {
		p("Style: %s\n", *r.Style)
	}
	if len(r.Quality) > 0 {
		p("Quality Requirements:\n")
		for _, q := range r.Quality {
			p("  - %s\n", q)
		}
	}
	if r.notice != "" {
		p("\n%s\n", r.notice)
	}
	return nil
}
