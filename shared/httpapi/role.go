package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/text"
	"github.com/bookplatform/backend/shared/users"
)

// Roles, once (docs/decisions.md, "Roles"): a route declares the role
// its caller must hold, as it declares its rate-limit actions, and the
// router enforces it during admission, so no handler re-implements an
// ownership check. A store role says where the route names its store
// (a path parameter, a query parameter or a body field, by slug or by
// id); the store is read beside the caller's record, and the caller's
// staff memberships come with that record (users.User.StaffStoreIDs),
// so a role costs at most one read, and no extra round trip.

// Need is the standing a route requires of its caller.
type Need int

// The spec's role checks (Authentication, item 8). The store owner has
// every staff right, so "staff at the store" (the point of sale) and
// "store owner or staff" (inventory) are one need.
const (
	NeedNone          Need = iota
	NeedBookstoreTier      // the caller's stored tier is bookstore (POST /stores)
	NeedStoreOwner         // the caller owns the store the route names
	NeedStoreStaff         // the caller owns the store, or is staff there
	// NeedAnyStaff: the caller owns a store or is staff at one. For a
	// route whose store is its record's (a sale, a shift: GET
	// /api/pos/sales/{id}), which only the handler reads: the router
	// refuses everyone who staffs no store (403), and the handler answers
	// 404 for a record of a store the caller does not staff
	// (StaffsStore), so another store's records are not revealed.
	NeedAnyStaff
	// NeedOperator: the caller is one of the platform's operators (the
	// spec's admin; users.User.Operator): the back office under
	// /v1/admin. Everyone else is refused (403), store owners included.
	NeedOperator
)

// String names the need as the API reference does.
func (n Need) String() string {
	switch n {
	case NeedBookstoreTier:
		return "bookstore tier"
	case NeedStoreOwner:
		return "store owner"
	case NeedStoreStaff:
		return "store owner or staff"
	case NeedAnyStaff:
		return "staff at the record's store"
	case NeedOperator:
		return "operator"
	}
	return "none"
}

// Source is where a request names its store.
type Source string

// Sources of a store reference.
const (
	InPath  Source = "path"
	InQuery Source = "query"
	InBody  Source = "body"
)

// StoreKey is what names the store: its slug or its id.
type StoreKey string

// Store keys.
const (
	BySlug StoreKey = "slug"
	ByID   StoreKey = "id"
)

// StoreRef locates a route's store in its requests: the parameter or
// JSON body field Name, in In, holding the store's slug or id (By).
type StoreRef struct {
	In   Source
	Name string
	By   StoreKey
	// OrOwn: when the request does not name a store, the caller's own:
	// the store it owns, else the one store it staffs (the point of
	// sale's "defaults to the staff user's store"). A caller staffing
	// several stores and owning none must name one (400); one staffing
	// none is refused (403).
	OrOwn bool
}

// Role is a route's required standing; the zero Role requires nothing
// beyond the route's Auth.
type Role struct {
	Need  Need
	Store StoreRef // for the store needs
}

// BookstoreTier is the role of routes open to the bookstore tier only.
var BookstoreTier = Role{Need: NeedBookstoreTier}

// Operator is the role of the back office's routes: the platform's
// operators only.
var Operator = Role{Need: NeedOperator}

// StoreOwner is the role of the owner of the store ref names.
func StoreOwner(ref StoreRef) Role { return Role{Need: NeedStoreOwner, Store: ref} }

// StoreStaff is the role of the owner or a staff member of the store ref
// names.
func StoreStaff(ref StoreRef) Role { return Role{Need: NeedStoreStaff, Store: ref} }

// IDInQueryOrOwn names the store by its id in query parameter name, or,
// without one, by the caller's own store (StoreRef.OrOwn).
func IDInQueryOrOwn(name string) StoreRef {
	return StoreRef{In: InQuery, Name: name, By: ByID, OrOwn: true}
}

// SlugInPath names the store by the slug in path parameter name
// (/stores/{slug}/...).
func SlugInPath(name string) StoreRef { return StoreRef{In: InPath, Name: name, By: BySlug} }

// IDInQuery names the store by its id in query parameter name.
func IDInQuery(name string) StoreRef { return StoreRef{In: InQuery, Name: name, By: ByID} }

// IDInBody names the store by its id in JSON body field name.
func IDInBody(name string) StoreRef { return StoreRef{In: InBody, Name: name, By: ByID} }

// isStore reports whether the role needs a store.
func (r Role) isStore() bool { return r.Need == NeedStoreOwner || r.Need == NeedStoreStaff }

// StaffsStore reports whether u owns the store storeID or is staff
// there: the check of a NeedAnyStaff route's handler once it has read
// its record's store.
func StaffsStore(u *users.User, storeID string) bool {
	return u != nil && storeID != "" && (u.StoreID == storeID || u.StaffAt(storeID))
}

// ownStore is the store a caller's request names by default
// (StoreRef.OrOwn): the one it owns, else the one it staffs.
func ownStoreOf(u *users.User, name string) (string, error) {
	switch {
	case u == nil:
		return "", apperr.Unauthorized(MsgUserNotFound)
	case u.StoreID != "":
		return u.StoreID, nil
	case len(u.StaffStoreIDs) == 1:
		return u.StaffStoreIDs[0], nil
	case len(u.StaffStoreIDs) == 0:
		return "", apperr.Forbidden("Only a store's owner or its staff may do this")
	}
	return "", apperr.Validation(name+" is required: the caller is staff at several stores", map[string]string{name: "is required: staff at several stores"})
}

// check refuses a role the route table cannot mean (NewRouter).
func (r Role) check(route *Route) error {
	switch {
	case r.Need == NeedNone, r.Need == NeedAnyStaff:
		if r.Store != (StoreRef{}) {
			return fmt.Errorf("route %s %s names a store but no store role", route.Method, route.Path)
		}
		if r.Need == NeedAnyStaff && route.Auth != AuthBearer {
			return fmt.Errorf("route %s %s requires the role %s but not a bearer token", route.Method, route.Path, r.Need)
		}
		return nil
	case route.Auth != AuthBearer:
		return fmt.Errorf("route %s %s requires the role %s but not a bearer token", route.Method, route.Path, r.Need)
	case !r.isStore():
		return nil
	}
	ref := r.Store
	if ref.OrOwn && (ref.In != InQuery || ref.By != ByID) {
		return fmt.Errorf("route %s %s: only a store id in the query may default to the caller's store", route.Method, route.Path)
	}
	if ref.Name == "" || (ref.By != BySlug && ref.By != ByID) {
		return fmt.Errorf("route %s %s: store reference %+v names no parameter or key", route.Method, route.Path, ref)
	}
	switch ref.In {
	case InPath:
		if !strings.Contains(route.Path, "{"+ref.Name+"}") {
			return fmt.Errorf("route %s %s has no path parameter {%s}", route.Method, route.Path, ref.Name)
		}
	case InQuery:
	case InBody:
		if route.Doc.Body == nil || route.early() {
			// An early GET's handler would read the body beside the role
			// check reading it.
			return fmt.Errorf("route %s %s names its store in a body it does not document, or is a GET", route.Method, route.Path)
		}
	default:
		return fmt.Errorf("route %s %s: store reference in %q", route.Method, route.Path, ref.In)
	}
	return nil
}

// StoreHeader is what role checks read of a store: its id, slug and
// owner. Handlers of store routes get it from CallerOf(r).Store().
type StoreHeader struct {
	ID, Slug, OwnerID string
}

// StoreDirectory finds the store a role names (the router's Options).
type StoreDirectory interface {
	// FindStore reads the header of the store whose slug or id (by) is
	// value, strongly consistent. Errors: a NotFound apperr.Error for no
	// such store (a value that cannot name one included).
	FindStore(ctx context.Context, by StoreKey, value string) (StoreHeader, error)
}

// errNoStoreDirectory: a store role on a router built without a
// directory, a wiring bug.
var errNoStoreDirectory = fmt.Errorf("router has no store directory for a store role")

// storeValue reads the value naming the route's store from the request:
// 400 when a query parameter or body field is missing or not an id, 404
// when a path parameter cannot be one (an unknown store, as any other).
func storeValue(r *http.Request, route *Route) (string, error) {
	ref := route.Role.Store
	var v string
	switch ref.In {
	case InPath:
		v = r.PathValue(ref.Name)
	case InQuery:
		v = r.URL.Query().Get(ref.Name)
	case InBody:
		var err error
		if v, err = bodyField(r, ref.Name); err != nil {
			return "", err
		}
	}
	if v == "" && ref.OrOwn {
		return "", nil // the caller's own store, once its record is read
	}
	if v == "" {
		return "", apperr.Validation(ref.Name+" is required: it names the store", map[string]string{ref.Name: "is required"})
	}
	if ref.By == ByID {
		id, ok := ids.Parse(v)
		switch {
		case ok:
			return id, nil
		case ref.In == InPath:
			return "", errStoreNotFound
		default:
			return "", apperr.Validation(ref.Name+" must be a store id (a UUID)", map[string]string{ref.Name: "must be a UUID"})
		}
	}
	return v, nil
}

// bodyField reads one string field of the request's JSON object body and
// puts the body back for the handler. A body that is not a JSON object
// is left for the handler's Decode to refuse with its own message.
func bodyField(r *http.Request, name string) (string, error) {
	data, err := readBody(nil, r)
	if err != nil {
		return "", err
	}
	r.Body = io.NopCloser(bytes.NewReader(data))
	var obj map[string]json.RawMessage
	if json.Unmarshal(data, &obj) != nil {
		return "", nil
	}
	// The handler's Decode matches keys as encoding/json does, without
	// regard to case: so does the role check, and two spellings of the
	// field are refused rather than read one way here and another there.
	var raw json.RawMessage
	found := 0
	for k, v := range obj {
		if foldKey(k) == foldKey(name) {
			raw, found = v, found+1
		}
	}
	switch found {
	case 0:
		return "", nil
	case 1:
	default:
		return "", apperr.Validation("Key "+text.Quote(name)+" appears twice in one object", nil)
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", apperr.Validation(name+" must be a string", map[string]string{name: "must be a string"})
	}
	return s, nil
}

// errStoreNotFound is a store reference no store can have, answered as
// the directory answers an unknown store (stores.ErrNotFound).
var errStoreNotFound = apperr.NotFound("Store not found")

// roleDecision decides a role on the caller's stored record and, for a
// store role, the store's header.
func roleDecision(role Role, u *users.User, store StoreHeader) error {
	switch role.Need {
	case NeedBookstoreTier:
		if u.Tier != users.TierBookstore {
			return apperr.Forbidden("This requires the bookstore tier; the account's tier is %s", u.Tier)
		}
	case NeedStoreOwner:
		if store.OwnerID != u.ID {
			return apperr.Forbidden("Only the store's owner may do this")
		}
	case NeedStoreStaff:
		if store.OwnerID != u.ID && !u.StaffAt(store.ID) {
			return apperr.Forbidden("Only the store's owner or its staff may do this")
		}
	case NeedAnyStaff:
		if u.StoreID == "" && len(u.StaffStoreIDs) == 0 {
			return apperr.Forbidden("Only a store's owner or its staff may do this")
		}
	case NeedOperator:
		if !u.Operator {
			return apperr.Forbidden("Only the platform's operators may do this")
		}
	}
	return nil
}
