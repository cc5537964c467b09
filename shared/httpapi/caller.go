package httpapi

import (
	"fmt"
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
	route string
	early bool
}

// Anonymous reports whether the request carries no token.
func (c Caller) Anonymous() bool { return c.ID == "" }

// User returns the caller's stored account (tier, profile, quota counts),
// nil when anonymous. The router reads it before any handler that may
// change something starts: every method but GET, and GET routes marked
// AfterAdmission. A GET handler starts beside that read, before the
// record exists and before the request is admitted, with the identity
// alone (ID, SessionID): asking it for the record is a programming error
// of the route table (mark the route AfterAdmission), and panics naming
// the route, so the route's first test finds it.
func (c Caller) User() *users.User {
	if c.early && c.ID != "" {
		panic(fmt.Sprintf("httpapi: %s reads the caller's stored record but starts before it is read; mark its route AfterAdmission", c.route))
	}
	return c.user
}

// CallerOf returns the request's caller.
func CallerOf(r *http.Request) Caller { return state(r).caller }

// Store returns the store the route's role named, as the router read it
// to check that role (its id, slug and owner); the zero StoreHeader on a
// route without a store role. Like User, it exists only for handlers
// that start after admission.
func (c Caller) Store() StoreHeader {
	if c.early && c.ID != "" {
		panic(fmt.Sprintf("httpapi: %s reads the role's store but starts before it is read; mark its route AfterAdmission", c.route))
	}
	return c.store
}
