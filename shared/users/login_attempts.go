package users

import (
	"context"
	"net/netip"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"
)

// A sign-in's attempts are counted twice (docs/decisions.md, "Attempts
// with a password"): per account and source address, against the tight
// PasswordTries.Limit, so one guesser is slowed as before; and per account
// from every source, against the looser PasswordTries.AccountLimit, so a
// guesser with many addresses still gets no more than that in a window.
// A guesser from one address (or a few, fewer than AccountLimit/Limit)
// no longer locks the owner out: the owner's address has its own count.
// The source's count is taken first, and the account's only when it
// passes, so attempts a source was already refused do not use up the
// account's allowance. A right password clears its source's count and
// gives its own attempt back to the account's, so an owner signing in
// often never meets the account's limit; clearing the account's count
// would hand a guesser a fresh allowance each time the owner signs in.

// takeLoginAttempt counts a sign-in of email from source against both
// limits. Errors: a 429 (ratelimit.Exceeded, PasswordAction).
func (s *Service) takeLoginAttempt(ctx context.Context, email, source string, now time.Time) error {
	p := s.d.PasswordTries
	if err := s.takeAttempt(ctx, loginFromAttempts(email, source), p.Limit, "this account from this address", now); err != nil {
		return err
	}
	return s.takeAttempt(ctx, loginAttempts(email), p.AccountLimit, "this account", now)
}

// loginSucceeded forgets source's attempts at email and gives the right
// password's attempt back to the account's count.
func (s *Service) loginSucceeded(ctx context.Context, email, source string, now time.Time) error {
	p := s.d.PasswordTries
	if p.Limit <= 0 || s.d.Attempts == nil {
		return nil
	}
	var g errgroup.Group
	g.Go(func() error { return s.d.Attempts.Clear(ctx, loginFromAttempts(email, source), now, p.Window) })
	if p.AccountLimit > 0 {
		g.Go(func() error { return s.d.Attempts.Refund(ctx, loginAttempts(email), now, p.Window) })
	}
	return g.Wait()
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
