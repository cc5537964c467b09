package app

import (
	"context"
	"net/http"
	"slices"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/api/authapi"
	"github.com/bookplatform/backend/shared/api/booksapi"
	"github.com/bookplatform/backend/shared/api/challengesapi"
	"github.com/bookplatform/backend/shared/api/clubsapi"
	"github.com/bookplatform/backend/shared/api/docsapi"
	"github.com/bookplatform/backend/shared/api/followsapi"
	"github.com/bookplatform/backend/shared/api/healthapi"
	"github.com/bookplatform/backend/shared/api/linesapi"
	"github.com/bookplatform/backend/shared/api/notesapi"
	"github.com/bookplatform/backend/shared/api/reportsapi"
	"github.com/bookplatform/backend/shared/api/reviewsapi"
	"github.com/bookplatform/backend/shared/api/storesapi"
	"github.com/bookplatform/backend/shared/api/usersapi"
	"github.com/bookplatform/backend/shared/api/wishlistsapi"
	"github.com/bookplatform/backend/shared/auth"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/stores"
	"github.com/bookplatform/backend/shared/users"
)

// groups is the one list of the service's endpoint groups. The router of
// each Lambda, the function list and its grants (Functions), the CDK
// stack, the local server, the route tests, the call benchmark and the
// API reference all read it: a new group is its own packages and one
// line here.
var groups = []api.Build{
	healthapi.Group,
	authapi.Group,
	usersapi.Group,
	booksapi.Group,
	linesapi.Group,
	reviewsapi.Group,
	clubsapi.Group,
	challengesapi.Group,
	wishlistsapi.Group,
	followsapi.Group,
	notesapi.Group,
	reportsapi.Group,
	storesapi.Group,
	docsapi.Group,
}

// Groups returns every group built from d. With a zero Deps the handlers
// are never called: the tables can be listed, not served.
func Groups(d api.Deps) []api.Group {
	out := make([]api.Group, len(groups))
	for i, build := range groups {
		out[i] = build(d)
	}
	return out
}

// Routes returns every route of every group, for readers that need the
// routes and not their handlers.
func Routes() []httpapi.Route {
	var out []httpapi.Route
	for _, g := range Groups(api.Deps{}) {
		out = append(out, g.Routes...)
	}
	return out
}

// Router returns the router for the named groups (all groups when none
// are named: the local server's, whose access log names the group
// "local").
func (a *App) Router(names ...string) *httpapi.Router {
	var routes []httpapi.Route
	for _, g := range Groups(a.Deps()) {
		if len(names) == 0 || slices.Contains(names, g.Name) {
			routes = append(routes, g.Routes...)
		}
	}
	group := ""
	if len(names) == 1 {
		group = names[0]
	}
	return a.routerFor(group, routes)
}

// RouterFor returns a router of the app's pipeline (identity, rate
// limits, idempotency, cursors) for the given routes: the groups' in
// Router, a test's own in tests of the pipeline.
func (a *App) RouterFor(routes []httpapi.Route) *httpapi.Router {
	return a.routerFor("", routes)
}

// routerFor is RouterFor for the function of group (the access log's
// group dimension; empty is "local").
func (a *App) routerFor(group string, routes []httpapi.Route) *httpapi.Router {
	return httpapi.NewRouter(httpapi.Options{
		Group:            group,
		MetricsNamespace: a.Config.MetricsNamespace,
		Identity:         identity{a},
		Counter:          a.Counter,
		Logger:           a.Logger,
		MaxBodyBytes:     a.Config.MaxBodyBytes,
		CursorKeys:       a.derivedKeys(labelCursors),
		Quota:            a.Quota,
		Idempotency:      a.Stores.Idempotency,
		// Its own key: a cursor's key never opens a kept answer.
		IdempotencySecrets: a.derivedKeys(labelIdempotency),
		Stores:             storeDirectory{a.Stores.Bookstores},
		Now:                a.Now,
	}, routes)
}

// FallbackRouter serves API Gateway's $default route from the Fallback
// group's function: it knows every group's routes, so an unmatched
// request gets the envelope's 404 or 405, but it runs only the Fallback
// group's handlers. A request the gateway did not route and this table
// matches anyway is answered 404 rather than run without its group's
// permissions.
func (a *App) FallbackRouter() *httpapi.Router {
	var routes []httpapi.Route
	var fallback string
	for _, g := range Groups(a.Deps()) {
		if g.Fallback {
			routes = append(routes, g.Routes...)
			fallback = g.Name
			continue
		}
		for _, r := range g.Routes {
			routes = append(routes, httpapi.Route{Method: r.Method, Path: r.Path, Auth: httpapi.AuthNone, Unmetered: true, Handler: notRoutedHere})
		}
	}
	return a.routerFor(fallback, routes)
}

func notRoutedHere(_ http.ResponseWriter, r *http.Request) error {
	return httpapi.NoRoute(r)
}

// identity adapts the app to httpapi.Identity.
type identity struct{ a *App }

func (i identity) VerifyAccessToken(token string) (auth.Claims, error) {
	return i.a.Tokens.Verify(token)
}

func (i identity) GetUser(ctx context.Context, id string) (*users.User, error) {
	return i.a.Stores.Users.GetUser(ctx, id)
}

// storeDirectory adapts the stores' storage to httpapi.StoreDirectory:
// the role checks' one read (a slug claim, or a store's id, slug and
// owner).
type storeDirectory struct{ s *dynamo.Bookstores }

func (d storeDirectory) FindStore(ctx context.Context, by httpapi.StoreKey, v string) (httpapi.StoreHeader, error) {
	if by == httpapi.BySlug {
		if v = stores.NormalizeSlug(v); stores.ValidateSlug(v) != "" {
			return httpapi.StoreHeader{}, stores.ErrNotFound // cannot name a store: no read
		}
	}
	id, slug, owner, err := d.s.StoreHeader(ctx, by == httpapi.BySlug, v)
	if err != nil {
		return httpapi.StoreHeader{}, err
	}
	return httpapi.StoreHeader{ID: id, Slug: slug, OwnerID: owner}, nil
}
