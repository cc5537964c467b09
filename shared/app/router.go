package app

import (
	"context"
	"net/http"
	"slices"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/auth"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/stores"
	"github.com/bookplatform/backend/shared/users"
)

// Router returns the router of gs: a function's, of its one group (its
// access log names the group), or the local server's, of every group
// (shared/groups; its access log names the group "local").
func (a *App) Router(gs ...api.Group) *httpapi.Router {
	var routes []httpapi.Route
	for _, g := range gs {
		routes = append(routes, g.Routes...)
	}
	group := ""
	if len(gs) == 1 {
		group = gs[0].Name
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
		Group:        group,
		Identity:     identity{a},
		Counter:      a.Counter,
		Logger:       a.Logger,
		MaxBodyBytes: a.Config.MaxBodyBytes,
		CursorKeys:   a.derivedKeys(labelCursors),
		Quota:        a.Quota,
		Idempotency:  a.idempotency,
		// Its own key: a cursor's key never opens a kept answer.
		IdempotencySecrets: a.derivedKeys(labelIdempotency),
		Stores:             storeDirectory{a.bookstores},
		Now:                a.Now,
	}, routes)
}

// FallbackRouter serves API Gateway's $default route from the function
// of g, the Fallback group: it knows every group's routes (routeKeys,
// generated from shared/groups, so this function need not link the other
// groups), so an unmatched request gets the envelope's 404 or 405, but it
// runs only g's handlers. A request the gateway did not route and this
// table matches anyway is answered 404 rather than run without its
// group's permissions.
func (a *App) FallbackRouter(g api.Group) *httpapi.Router {
	routes := slices.Clone(g.Routes)
	own := map[RouteKey]bool{}
	for _, r := range g.Routes {
		own[RouteKey{Method: r.Method, Path: r.Path}] = true
	}
	for _, k := range routeKeys {
		if !own[k] {
			routes = append(routes, httpapi.Route{Method: k.Method, Path: k.Path, Auth: httpapi.AuthNone, Unmetered: true, Handler: notRoutedHere})
		}
	}
	return a.routerFor(g.Name, routes)
}

// RouteKey is a route's method and path: what the Fallback group's router
// knows of the routes of the other groups.
type RouteKey struct{ Method, Path string }

// RouteKeys are the method and path of every route of every group (the
// generated routeKeys), for the tests that hold copies of them (the
// sample events of events/) to the routes there are.
func RouteKeys() []RouteKey { return slices.Clone(routeKeys) }

func notRoutedHere(_ http.ResponseWriter, r *http.Request) error {
	return httpapi.NoRoute(r)
}

// identity adapts the app to httpapi.Identity.
type identity struct{ a *App }

func (i identity) VerifyAccessToken(token string) (auth.Claims, error) {
	return i.a.Tokens.Verify(token)
}

func (i identity) GetUser(ctx context.Context, id string) (*users.User, error) {
	return i.a.users.GetUser(ctx, id)
}

func (i identity) GetUserEventually(ctx context.Context, id string) (*users.User, error) {
	return i.a.users.GetUserEventually(ctx, id)
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
