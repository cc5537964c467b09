package config

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Env reads variables with the checks every setting shares (a duration,
// a bounded integer, a tier list, a host name), collecting each bad value
// as an error that names its variable. Load reads the core's settings
// through one; a group reads its own settings through the one in its
// api.Deps, in its constructor, so a group's variable is declared, read
// and checked in the group's package and nowhere else. Whoever builds a
// group reports Err at start (app.FromEnv in Lambda, groups.CheckSettings
// on the local run and in tests), so a bad group setting is a start-up
// error as a bad core setting is.
//
// A nil *Env reads every variable as unset: a zero api.Deps builds
// groups on their defaults (CDK, the API reference).
type Env struct {
	get func(string) string

	mu    sync.Mutex
	errs  []error
	names []string
}

// NewEnv reads through get (os.Getenv, or a map in tests).
func NewEnv(get func(string) string) *Env {
	if get == nil {
		get = func(string) string { return "" }
	}
	return &Env{get: get}
}

// OSEnv reads the process's environment.
func OSEnv() *Env { return NewEnv(os.Getenv) }

// Err is every bad value read so far, each once.
func (e *Env) Err() error {
	if e == nil {
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return errors.Join(e.errs...)
}

// Names are the variables read so far (groups.Names lists every group's).
func (e *Env) Names() []string {
	if e == nil {
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.names)
}

// Fail records a bad value, for checks across variables.
func (e *Env) Fail(err error) {
	if e == nil || err == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, old := range e.errs {
		if old.Error() == err.Error() {
			return
		}
	}
	e.errs = append(e.errs, err)
}

// String is the trimmed value of name ("" when unset).
func (e *Env) String(name string) string {
	if e == nil {
		return ""
	}
	e.mu.Lock()
	if !slices.Contains(e.names, name) {
		e.names = append(e.names, name)
	}
	e.mu.Unlock()
	return strings.TrimSpace(e.get(name))
}

// Required is String, and an error when unset.
func (e *Env) Required(name string) string {
	v := e.String(name)
	if v == "" && e != nil {
		e.Fail(fmt.Errorf("%s is required", name))
	}
	return v
}

// Duration is a positive Go duration (def when unset).
func (e *Env) Duration(name string, def time.Duration) time.Duration {
	v := e.String(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		e.Fail(fmt.Errorf("%s must be a positive Go duration such as 15m, got %q", name, v))
		return def
	}
	return d
}

// Int is an integer from lo to hi (def when unset).
func (e *Env) Int(name string, def, lo, hi int64) int64 {
	v := e.String(name)
	if v == "" {
		return def
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < lo || n > hi {
		e.Fail(fmt.Errorf("%s must be an integer from %d to %d, got %q", name, lo, hi, v))
		return def
	}
	return n
}

// Tiers is a comma-separated list of account tiers (def when unset),
// lower-cased.
func (e *Env) Tiers(name, def string) []string {
	v := e.String(name)
	if v == "" {
		v = def
	}
	var out []string
	for _, t := range strings.Split(v, ",") {
		t = strings.ToLower(strings.TrimSpace(t))
		if !slices.Contains(tierNames, t) {
			e.Fail(fmt.Errorf("%s must list tiers among %s, got %q", name, strings.Join(tierNames, ", "), v))
			return nil
		}
		out = append(out, t)
	}
	return out
}

// HostName is a host name: lower case, no scheme, path or trailing dot
// (def when unset).
func (e *Env) HostName(name, def string) string {
	v := strings.TrimSuffix(strings.ToLower(e.String(name)), ".")
	if v == "" {
		return def
	}
	if strings.ContainsAny(v, "/: ") || !strings.Contains(v, ".") {
		e.Fail(fmt.Errorf("%s must be a host name such as %s, got %q", name, def, v))
		return def
	}
	return v
}

// Bool is true or false (also 1/0, as strconv.ParseBool reads them; def
// when unset).
func (e *Env) Bool(name string, def bool) bool {
	v := e.String(name)
	if v == "" {
		return def
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		e.Fail(fmt.Errorf("%s must be true or false, got %q", name, v))
		return def
	}
	return b
}
