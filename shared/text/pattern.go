package text

import (
	"regexp"
	"sync"
)

// Pattern is a regular expression compiled at its first match rather
// than at package init: a package-level regexp.MustCompile runs in every
// function that links the package, at every cold start, whether or not
// the function ever validates that field. A malformed expression panics
// at its first match, as MustCompile would at init.
type Pattern struct{ re func() *regexp.Regexp }

// NewPattern returns the Pattern of expr, not yet compiled.
func NewPattern(expr string) *Pattern {
	return &Pattern{re: sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })}
}

// MatchString reports whether s contains a match of the pattern.
func (p *Pattern) MatchString(s string) bool { return p.re().MatchString(s) }
