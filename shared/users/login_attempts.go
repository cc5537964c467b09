package users

import (
	"context"
	"net/netip"
	"strings"
	"time"
)

// A sign-in's attempts are counted twice (docs/decisions.md, "Attempts
// with a password"): per account and source address, against the tight
// PasswordTries.Limit, so one guesser is slowed as before; and per account
// from every source, against the looser PasswordTries.AccountLimit, so a
// guesser with many addresses still gets no more than that in a window.
// The source's count is taken first, and the account's only when it
// passes, so attempts a source was already refused do not use up the
// account's allowance. Past the account's limit a source with no
// attempts in the window still has its password checked: the right one
// signs in, a wrong one is refused (429) like every other attempt there,
// and a source that has tried is refused without a check. So no number
// of guessers locks the owner out of a clean address, at the price of
// one checked guess per fresh address and window. A right password clears
// its source's count and gives its own attempt back to the account's
// when the account's count took it, so an owner signing in often never
// meets the account's limit; clearing the account's count would hand a
// guesser a fresh allowance each time the owner signs in.

// Both counts are kept in one item per account and window (one
// conditional UpdateItem a sign-in, one more to give back on success;
// dynamo.(*Attempts).TakeLogin), with the same answers as two counts
// taken one after the other.

// loginTake is what takeLoginAttempt counted of a sign-in.
type loginTake struct {
	// c is the store's count (zero when the counter failed).
	c LoginCount
	// counted: the account's count took this attempt, so a right
	// password gives it back (not when the counter failed, or refused).
	counted bool
	// refused is the account's 429 for an attempt let through to the
	// password check only because its source is fresh: a wrong password
	// answers it instead of a 401.
	refused error
}

// takeLoginAttempt counts a sign-in of email from source against both
// limits. A counter that fails lets the attempt through, as countAttempt
// does. Errors: a 429 (ratelimit.Exceeded, PasswordAction).
func (s *Service) takeLoginAttempt(ctx context.Context, email, source string, now time.Time) (loginTake, error) {
	p := s.d.PasswordTries
	if p.Limit <= 0 || s.d.Attempts == nil {
		return loginTake{}, nil
	}
	c, until, err := s.d.Attempts.TakeLogin(ctx, loginKeys(email, source), now, p.Window, p.Limit, p.AccountLimit)
	switch {
	case err != nil:
		return loginTake{}, nil
	case c.Source == 0:
		return loginTake{}, attemptsExceeded(p.Limit, until, now, "this account from this address")
	case c.Account > 0:
		return loginTake{c: c, counted: true}, nil
	}
	refused := attemptsExceeded(p.AccountLimit, until, now, "this account")
	if c.Source == 1 { // the source's first attempt in the window
		return loginTake{c: c, refused: refused}, nil
	}
	return loginTake{}, refused
}

// loginSucceeded forgets source's attempts at email and, when the
// account's count took the attempt (t.counted), gives it back.
func (s *Service) loginSucceeded(ctx context.Context, email, source string, t loginTake, now time.Time) error {
	p := s.d.PasswordTries
	if p.Limit <= 0 || s.d.Attempts == nil {
		return nil
	}
	return s.d.Attempts.LoginSucceeded(ctx, loginKeys(email, source), t.c, t.counted, now, p.Window)
}

// loginKeys are the keys of a sign-in's counts: the account's item, the
// source's name in it (sourceOf), and the source's own key for a source
// counted apart.
func loginKeys(email, source string) LoginKeys {
	return LoginKeys{Account: loginAttempts(email), Source: sourceOf(source), Apart: loginFromAttempts(email, source)}
}

// loginAttempts is the key of an account's sign-in attempts from every
// source, loginFromAttempts of those from one source. The prefixes differ
// at their sixth byte and the source comes last after a separator no
// source contains, so no email makes one key equal another: with
// "login:<email>@<source>", the email "ann@example.com@203.0.113.7"
// would count its attempts on ann's from 203.0.113.7.
func loginAttempts(email string) string { return "login:" + email }

func loginFromAttempts(email, source string) string {
	return "login-from:" + email + "|" + sourceOf(source)
}

// sourceOf is the address attempts are counted by: an IPv4 address as
// is, an IPv6 address by its /64, the smallest network one subscriber
// is given, so a guesser cannot draw a fresh address for every try. An
// address that does not parse (none the router gives) counts as itself,
// without the key's separator.
func sourceOf(addr string) string {
	ip, err := netip.ParseAddr(addr)
	if err != nil {
		return "?" + strings.ReplaceAll(addr, "|", "")
	}
	ip = ip.Unmap().WithZone("")
	if ip.Is4() {
		return ip.String()
	}
	p, _ := ip.Prefix(64)
	return p.String()
}
