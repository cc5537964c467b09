package httpapi

import (
	"net/http"

	"github.com/bookplatform/backend/shared/users"
)

// Caller is the account a request acts for. Handlers get it through
// CallerOf, the one accessor.
type Caller struct {
	// ID is the account id of the verified access token; "" when the
	// request is anonymous. SessionID is the token's session.
	ID, SessionID string

	user  *users.User
	store StoreHeader
	// wait is set for a GET handler that starts before admission: User
	// and Store wait on it for what the router read.
	wait *admitted
}

// Anonymous reports whether the request carries no token.
func (c Caller) Anonymous() bool { return c.ID == "" }

// User returns the caller's stored account (tier, profile, quota counts),
// nil when anonymous. The router reads it before any handler that may
// change something starts: every method but GET, and GET routes marked
// AfterAdmission. A GET handler starts beside that read, with the
// identity alone (ID, SessionID) at first: there User waits for the
// read and the rest of admission to end, then returns the record; if
// the request is refused, the handler stops inside this call (its
// answer is the refusal). So reading the record is safe in every
// handler, and costs an early GET only the wait.
func (c Caller) User() *users.User {
	if c.wait != nil && c.ID != "" {
		return c.wait.wait().user
	}
	return c.user
}

// CallerOf returns the request's caller.
func CallerOf(r *http.Request) Caller { return state(r).caller }

// Store returns the store the route's role named, as the router read it
// to check that role (its id, slug and owner); the zero StoreHeader on a
// route without a store role. In a GET handler that starts before
// admission it waits for admission, as User does.
func (c Caller) Store() StoreHeader {
	if c.wait != nil && c.ID != "" {
		return c.wait.wait().store
	}
	return c.store
}
