// Package posapi is the point-of-sale endpoint group (base path /api/pos,
// no version segment, as the spec places it): a store's staff ring up
// sales, look books up by barcode, print receipts, read summaries and
// keep the cash drawer. Its own group and function, as the spec's groups
// each are.
//
// Who may call a route is declared on the route: staff (or the owner) of
// the store the request names, the caller's own store when it names none
// (httpapi.IDInQueryOrOwn); for a route on one sale or shift, staff of
// any store, the handler answering 404 for a record of a store the caller
// does not staff (httpapi.NeedAnyStaff, httpapi.StaffsStore).
package posapi

import (
	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/inventory"
)

// Path is a point-of-sale path: the spec's /api/pos base, unversioned.
func Path(rest string) string { return "/api/pos" + rest }

// Roles of the group's routes.
var (
	// staffOfNamed: staff at the store the body's storeId names.
	staffOfNamed = httpapi.StoreStaff(httpapi.IDInBody("storeId"))
	// staffOfQueried: staff at the store the query's storeId names, or
	// the caller's own store without one.
	staffOfQueried = httpapi.StoreStaff(httpapi.IDInQueryOrOwn("storeId"))
	// staffOfRecord: staff somewhere; the handler checks the record's
	// store (404 for another store's record).
	staffOfRecord = httpapi.Role{Need: httpapi.NeedAnyStaff}
)

// Group is the point-of-sale group. Its routes come from three files:
// sales.go (the sales, their detail and receipt), lookup.go (barcode
// lookup) and reports.go (the summary and the cash drawer's shifts).
func Group(d api.Deps) api.Group {
	var routes []httpapi.Route
	routes = append(routes, saleRoutes(d)...)
	routes = append(routes, lookupRoutes(d)...)
	routes = append(routes, reportRoutes(d)...)
	return api.Group{
		Name: "pos",
		// What the group's code calls, parts of transactions included:
		// a sale reads its items, books, customer and balance (BatchGet)
		// and the open shift (Get), and puts, updates and, with no shift
		// open, checks (ConditionCheck) in its transaction; closing a
		// shift deletes the store's open-shift pointer in its own
		// (DeleteItem, stated here though idempotent routes are granted
		// it too); the lists and the summary Query.
		Table: []string{"dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:Query", "dynamodb:PutItem", "dynamodb:UpdateItem",
			"dynamodb:DeleteItem", "dynamodb:ConditionCheckItem"},
		Emits:  inventory.Events,
		Routes: routes,
	}
}
