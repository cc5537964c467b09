// Package earningsapi is the earnings endpoint group: what a store has
// earned (its totals, its affiliate commissions, its shares of the
// monthly pool), for its owner alone. It only reads: the order and
// cancel transactions write the commissions, the monthly pool job
// (functions/poolpayouts) the pool payouts, and an operator's command
// (local/payouts) moves a record to paid. Its own group, not the stores
// group's: the stores function is at its size budget, and these reads
// need none of its clients.
//
// Who may call a route is declared on the route (the store's owner, by
// the slug in the path) and checked by the router; no handler here
// checks a role.
package earningsapi

import (
	"net/http"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/earnings"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/page"
)

// handler serves the earnings group.
type handler struct {
	earnings earnings.Reader
}

// owner is the role of every route: the owner of the store the slug
// names (staff see no earnings).
var owner = httpapi.StoreOwner(httpapi.SlugInPath("slug"))

// The Why of every route's refusals.
var why = map[int]string{
	403: "the caller does not own the store (its staff included).",
	404: "no store has this slug.",
}

// Group is the earnings group. Its calls: GetItem for the store's totals
// (beside the role check's read of the store); Query for its commission
// records (GSI1, or GSI2 by status) and its pool payouts (the store's
// partition).
func Group(d api.Deps) api.Group {
	h := &handler{earnings: dynamo.NewEarnings(d.Table)}
	cursor := []httpapi.Param{
		{Name: "cursor", Type: "string", About: "nextCursor of the previous page"},
		httpapi.LimitParam(page.DefaultLimit, page.MaxLimit),
	}
	return api.Group{
		Name:  "earnings",
		Table: []string{"dynamodb:GetItem", "dynamodb:Query"},
		Routes: []httpapi.Route{
			{Method: http.MethodGet, Path: httpapi.V1("/stores/{slug}/earnings"), Auth: httpapi.AuthBearer, Role: owner, Handler: h.totals,
				Doc: httpapi.Doc{Summary: "What the store has earned: its affiliate commissions and pool payouts, pending and paid (the sums of the two payout lists)",
					Response: totalsResponse{}, Errors: []int{403, 404}, Why: why}},
			{Method: http.MethodGet, Path: httpapi.V1("/stores/{slug}/affiliate-commissions"), Auth: httpapi.AuthBearer, Role: owner, Handler: h.commissions,
				Doc: httpapi.Doc{Summary: "The store's affiliate commissions, newest first: one per order attributed to the store, and a negative reversal of one paid before its order was cancelled",
					Query: append([]httpapi.Param{{Name: "status", Type: "string", Enum: []string{string(earnings.Pending), string(earnings.Paid)},
						About: "only the records in this status"}}, cursor...),
					Response: commissionList{}, Errors: []int{400, 403, 404}, Why: why}},
			{Method: http.MethodGet, Path: httpapi.V1("/stores/{slug}/pool-payouts"), Auth: httpapi.AuthBearer, Role: owner, Handler: h.poolPayouts,
				Doc: httpapi.Doc{Summary: "The store's shares of the monthly pool, latest month first",
					Query: cursor, Response: poolPayoutList{}, Errors: []int{400, 403, 404}, Why: why}},
		},
	}
}
