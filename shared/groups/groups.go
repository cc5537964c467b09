// Package groups is the one list of the service's endpoint groups, for
// the readers of every group: the function list with its IAM grants
// (Functions), which the CDK stack builds from; the local server, the
// route tests, the call benchmark and the API reference (Routes, All).
// A Lambda never imports it: its main names its own group's constructor
// (app.Start(clubsapi.Group)), so it links that group alone, and the
// Fallback group's function knows the other groups' paths from the route
// keys generated from this list into shared/app (RouteKeysSource). The
// central tests find each group's declarations from it too, generated
// into shared/groups/groupstest (FactsSource), so no test support is
// linked here.
package groups

import (
	"slices"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/api/adminapi"
	"github.com/bookplatform/backend/shared/api/authapi"
	"github.com/bookplatform/backend/shared/api/billingapi"
	"github.com/bookplatform/backend/shared/api/booksapi"
	"github.com/bookplatform/backend/shared/api/challengesapi"
	"github.com/bookplatform/backend/shared/api/clubsapi"
	"github.com/bookplatform/backend/shared/api/csvimportapi"
	"github.com/bookplatform/backend/shared/api/docsapi"
	"github.com/bookplatform/backend/shared/api/earningsapi"
	"github.com/bookplatform/backend/shared/api/extposapi"
	"github.com/bookplatform/backend/shared/api/followsapi"
	"github.com/bookplatform/backend/shared/api/healthapi"
	"github.com/bookplatform/backend/shared/api/importsapi"
	"github.com/bookplatform/backend/shared/api/inventoryapi"
	"github.com/bookplatform/backend/shared/api/linesapi"
	"github.com/bookplatform/backend/shared/api/notesapi"
	"github.com/bookplatform/backend/shared/api/notificationsapi"
	"github.com/bookplatform/backend/shared/api/ordersapi"
	"github.com/bookplatform/backend/shared/api/paymentsapi"
	"github.com/bookplatform/backend/shared/api/posapi"
	"github.com/bookplatform/backend/shared/api/possyncapi"
	"github.com/bookplatform/backend/shared/api/reportsapi"
	"github.com/bookplatform/backend/shared/api/reviewsapi"
	"github.com/bookplatform/backend/shared/api/storesapi"
	"github.com/bookplatform/backend/shared/api/tradecreditapi"
	"github.com/bookplatform/backend/shared/api/usersapi"
	"github.com/bookplatform/backend/shared/api/webhookdeliveryapi"
	"github.com/bookplatform/backend/shared/api/webhooksapi"
	"github.com/bookplatform/backend/shared/api/wishlistsapi"
	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/httpapi"
)

// list is the one list of the service's endpoint groups. The function
// list and its grants (Functions), the CDK stack, the local server, the
// route tests, the call benchmark and the API reference all read it: a
// new group is its own packages, its functions/<name>/main.go, one line
// here and its keys in the chart of docs/data-model.md (then make
// openapi regenerates what is generated from this list).
var list = []api.Build{
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
	inventoryapi.Group,
	importsapi.Group,
	csvimportapi.Group,
	extposapi.Group,
	possyncapi.Group,
	ordersapi.Group,
	paymentsapi.Group,
	earningsapi.Group,
	posapi.Group,
	tradecreditapi.Group,
	webhooksapi.Group,
	webhookdeliveryapi.Group,
	notificationsapi.Group,
	billingapi.Group,
	adminapi.Group,
	docsapi.Group,
}

// All returns every group built from d. With a zero Deps the handlers
// are never called: the tables can be listed, not served.
func All(d api.Deps) []api.Group {
	out := make([]api.Group, len(list))
	for i, build := range list {
		out[i] = build(d)
	}
	return out
}

// CheckSettings reads every group's own settings (config.Env) from what
// cfg was read from and returns each bad value, naming its variable: the
// local run checks them at start before it starts anything, as a Lambda
// checks its group's (app.FromEnv) and testenv checks the groups it
// serves.
func CheckSettings(cfg config.Config) error {
	env := cfg.Env()
	All(api.Deps{Config: cfg, Env: env})
	return env.Err()
}

// Names are the core's variables (config.Names) and every variable a
// group reads, for tools that must clear or copy the service's
// environment.
func Names() []string {
	env := config.NewEnv(nil)
	All(api.Deps{Env: env})
	out := slices.Clone(config.Names)
	for _, n := range env.Names() {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// Routes returns every route of every group, for readers that need the
// routes and not their handlers.
func Routes() []httpapi.Route {
	var out []httpapi.Route
	for _, g := range All(api.Deps{}) {
		out = append(out, g.Routes...)
	}
	return out
}
