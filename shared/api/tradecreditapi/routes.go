// Package tradecreditapi is the trade credit endpoint group: a store's
// staff grant a customer credit (for books traded in) or correct it, and
// read a customer's balance and ledger at their store; a customer reads
// their own balances at every store. The point of sale spends credit in
// its sale's transaction (shared/dynamo POS), not through these routes.
// Its own group and function: no spec group has these routes (the spec
// names the /trade-credit base path, not its endpoints), and they need
// none of the point of sale's reads.
//
// Who may call a route is declared on the route (the owner or staff of
// the store the body or query names, the caller's own store when the
// query names none) and checked by the router; no handler here checks a
// role.
package tradecreditapi

import (
	"net/http"
	"time"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/page"
)

// handler serves the trade credit group.
type handler struct {
	credit *dynamo.TradeCredit
	now    func() time.Time
}

// Roles of the group's store routes.
var (
	// staffOfNamed: the owner or staff of the store the body names.
	staffOfNamed = httpapi.StoreStaff(httpapi.IDInBody("storeId"))
	// staffOfQueried: the owner or staff of the store the query names,
	// or of the caller's own store without one.
	staffOfQueried = httpapi.StoreStaff(httpapi.IDInQueryOrOwn("storeId"))
)

// Group is the trade credit group. Its calls: a grant is a GetItem of
// the balance (strongly consistent) and one TransactWriteItems (a
// ConditionCheck of the customer's account, the balance's Put
// conditional on its version, the entry's Put), again from a fresh read
// when another change came between; a staff read is the balance's
// GetItem beside the ledger's Query (and a GetItem of the account when
// the customer has no credit at the store); a customer's read is a
// Query of GSI1 and one BatchGetItem of the page's stores.
func Group(d api.Deps) api.Group {
	h := &handler{credit: dynamo.NewTradeCredit(d.Table), now: d.Now}
	cursor := []httpapi.Param{
		{Name: "cursor", Type: "string", About: "nextCursor of the previous page"},
		httpapi.LimitParam(page.DefaultLimit, page.MaxLimit),
	}
	staffWhy := map[int]string{
		403: "the caller is neither the owner nor staff of the store (or, without storeId, staffs no store).",
		404: "no store has the storeId, or no account has the customerUserId.",
	}
	return api.Group{
		Name:  "tradecredit",
		Table: []string{"dynamodb:BatchGetItem", "dynamodb:ConditionCheckItem", "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:Query"},
		Routes: []httpapi.Route{
			{Method: http.MethodPost, Path: httpapi.V1("/trade-credit"), Auth: httpapi.AuthBearer, Role: staffOfNamed, Idempotent: true, Handler: h.change,
				Doc: httpapi.Doc{Summary: "Grant a customer trade credit at the store (a positive amount), or correct it (a negative one), with the reason; the balance never goes below zero",
					Body: changeRequest{}, Response: changeResponse{}, Status: http.StatusCreated, Errors: []int{400, 403, 404},
					Why: map[int]string{
						400: "a bad field, or insufficient trade credit: the correction would take the balance below zero (details.balanceCents is the balance; nothing changes).",
						403: staffWhy[403], 404: staffWhy[404],
					}}},
			{Method: http.MethodGet, Path: httpapi.V1("/trade-credit"), Auth: httpapi.AuthBearer, Role: staffOfQueried, Handler: h.ledger,
				Doc: httpapi.Doc{Summary: "A customer's trade credit at the store: the balance and its entries, newest first (each entry's balanceCents is the one after it)",
					Query: append([]httpapi.Param{
						{Name: "storeId", Type: "string", About: "the store (its owner or staff only); default: the caller's own store, the one it owns, else the one it staffs (required for staff of several stores)"},
						{Name: "customerUserId", Type: "string", Required: true, About: "the customer's user id"},
					}, cursor...),
					Response: ledgerResponse{}, Errors: []int{400, 403, 404},
					Why: map[int]string{400: "customerUserId missing or not a UUID, a bad cursor or limit, or no storeId from staff of several stores.", 403: staffWhy[403], 404: staffWhy[404]}}},
			{Method: http.MethodGet, Path: httpapi.V1("/trade-credit/me"), Auth: httpapi.AuthBearer, Handler: h.mine,
				Doc: httpapi.Doc{Summary: "The caller's trade credit at every store that gave it any, by store id",
					Query: cursor, Response: mineResponse{}, Errors: []int{400}}},
		},
	}
}
