// Package inventoryapi is the inventory endpoint group: a store's stock
// (one item per book: list and search, create, read, update, adjust,
// delete), each item's history of quantity changes, and a book's
// availability at stores (GET /books/{id}/availability, here because it
// reads stock: this group's Lambda holds the grants for it). It is its
// own group, not the stores group's: the stores function is at its size
// budget, and stock is read and written far more often than profiles.
//
// Who may call an inventory route is declared on the route (the store's
// owner or staff, by the storeId in the query or body) and checked by
// the router; no handler here checks a role.
package inventoryapi

import (
	"net/http"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/inventory"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/stores"
)

// handler serves the inventory group.
type handler struct {
	inventory *inventory.Service
}

// The store of every inventory route: by its id in the query (reads,
// deletion) or in the body (writes).
var (
	staffByQuery = httpapi.StoreStaff(httpapi.IDInQuery("storeId"))
	staffByBody  = httpapi.StoreStaff(httpapi.IDInBody("storeId"))
)

// Service is the stock service of the inventory group (and of the demo
// data), built from the table.
func Service(d api.Deps) *inventory.Service {
	return inventory.NewService(inventory.Deps{
		Store: dynamo.NewInventory(d.Table), Books: dynamo.NewBooks(d.Table), Briefs: dynamo.NewBriefs(d.Table),
		Stores: dynamo.NewBookstores(d.Table),
		Now:    d.Now,
	})
}

// Group is the inventory group. Its calls: GetItem for an item, a book
// or a store's counts; Query for a store's items (GSI1, GSI2), its
// search postings, an item's history and a book's stock (GSI3);
// BatchGetItem for a page's books and items and the stores of an
// availability; TransactWriteItems for every change (an item's Put
// conditional on its version, with its history entry's and its event's
// Puts, the store's counts' and the postings' Updates, a ConditionCheck
// of the book, the Deletes of a removal).
func Group(d api.Deps) api.Group {
	h := &handler{inventory: Service(d)}
	storeParam := httpapi.Param{Name: "storeId", Type: "string", Required: true, About: "the store (its owner or staff only)"}
	return api.Group{
		Name: "inventory",
		Table: []string{"dynamodb:BatchGetItem", "dynamodb:ConditionCheckItem", "dynamodb:DeleteItem", "dynamodb:GetItem",
			"dynamodb:PutItem", "dynamodb:Query", "dynamodb:UpdateItem"},
		Emits: inventory.Events,
		Routes: []httpapi.Route{
			{Method: http.MethodGet, Path: httpapi.V1("/inventory"), Auth: httpapi.AuthBearer, Role: staffByQuery, Handler: h.list,
				Doc: httpapi.Doc{Summary: "A store's items in title order, optionally in stock only or matching a search by title, author or ISBN",
					Query: []httpapi.Param{
						storeParam,
						httpapi.LimitParam(listLimits.Default, listLimits.Max),
						httpapi.OffsetParam(),
						{Name: "search", Type: "string", About: "words of the title or authors (the last one may be the start of a word), or an ISBN-10 or ISBN-13; at most 200 characters"},
						{Name: "inStockOnly", Type: "boolean", About: "true: only the items with a quantity above 0", Default: false},
					},
					Response: listResponse{}, Errors: []int{400, 403},
					Why: map[int]string{403: "the caller is neither the owner nor staff of the store.", 404: "no store has this id."}}},
			{Method: http.MethodPost, Path: httpapi.V1("/inventory"), Auth: httpapi.AuthBearer, Role: staffByBody, Idempotent: true, Handler: h.create,
				Doc: httpapi.Doc{Summary: "Stock a book at the store (one item per book)", Body: createRequest{}, Response: detail{},
					Status: http.StatusCreated, Errors: []int{400, 403, 404, 409},
					Why: map[int]string{403: "the caller is neither the owner nor staff of the store.", 404: "no book (or no store) has this id.", 409: "the store has an item for this book already: change it instead."}}},
			{Method: http.MethodGet, Path: httpapi.V1("/inventory/{id}"), Auth: httpapi.AuthBearer, Role: staffByQuery, Handler: h.get,
				Doc: httpapi.Doc{Summary: "One item of the store, with its cost and external id", Query: []httpapi.Param{storeParam},
					Response: detail{}, Errors: []int{400, 403, 404},
					Why: map[int]string{403: "the caller is neither the owner nor staff of the store.", 404: "no store has the storeId, or the store has no item with this id."}}},
			{Method: http.MethodPut, Path: httpapi.V1("/inventory/{id}"), Auth: httpapi.AuthBearer, Role: staffByBody, Handler: h.update,
				Doc: httpapi.Doc{Summary: "Change an item's price, cost, condition, location or notes (its quantity: adjust)", Body: updateRequest{},
					Response: updated{}, Errors: []int{400, 403, 404},
					Why: map[int]string{403: "the caller is neither the owner nor staff of the store.", 404: "no store has the storeId, or the store has no item with this id."}}},
			{Method: http.MethodPut, Path: httpapi.V1("/inventory/{id}/adjust"), Auth: httpapi.AuthBearer, Role: staffByBody, Idempotent: true, Handler: h.adjust,
				Doc: httpapi.Doc{Summary: "Add to or take from an item's quantity, never below zero, recording the reason", Body: adjustRequest{},
					Response: adjusted{}, Errors: []int{400, 403, 404},
					Why: map[int]string{403: "the caller is neither the owner nor staff of the store.", 404: "no store has the storeId, or the store has no item with this id.", 400: "a bad adjustment or reason, or insufficient quantity: the adjustment would take the quantity below zero (nothing changes)."}}},
			{Method: http.MethodDelete, Path: httpapi.V1("/inventory/{id}"), Auth: httpapi.AuthBearer, Role: staffByQuery, Handler: h.delete,
				Doc: httpapi.Doc{Summary: "Remove an item (its history stays)", Query: []httpapi.Param{storeParam}, Response: httpapi.Success{}, Errors: []int{400, 403, 404},
					Why: map[int]string{403: "the caller is neither the owner nor staff of the store.", 404: "no store has the storeId, or the store has no item with this id."}}},
			{Method: http.MethodGet, Path: httpapi.V1("/inventory/{id}/history"), Auth: httpapi.AuthBearer, Role: staffByQuery, Handler: h.history,
				Doc: httpapi.Doc{Summary: "An item's quantity changes, newest first: who or what changed it, by how much, why, before and after",
					Query: []httpapi.Param{storeParam, {Name: "cursor", Type: "string", About: "nextCursor of the previous page"},
						httpapi.LimitParam(page.DefaultLimit, page.MaxLimit)},
					Response: httpapi.CursorBody[inventory.ChangeData]{}, Errors: []int{400, 403, 404},
					Why: map[int]string{403: "the caller is neither the owner nor staff of the store.", 404: "no store has the storeId, or the store has no item with this id."}}},
			{Method: http.MethodGet, Path: httpapi.V1("/books/{id}/availability"), Auth: httpapi.AuthBearer, Handler: h.availability,
				Doc: httpapi.Doc{Summary: "The stores with the book in stock: near a position (within a radius, nearest first, with distance) or all by name",
					Query: []httpapi.Param{
						{Name: "latitude", Type: "number", Minimum: new(-90.0), Maximum: new(90.0), About: "with longitude: only the stores within radius of this point, nearest first, with their distance"},
						{Name: "longitude", Type: "number", Minimum: new(-180.0), Maximum: new(180.0), About: "with latitude"},
						{Name: "radius", Type: "number", Maximum: new(float64(stores.MaxRadius)), About: "miles, more than 0 and at most 12450; default 25; needs latitude and longitude"},
					},
					Response: availabilityResponse{}, Errors: []int{400, 404},
					Why: map[int]string{404: "no book has this id."}}},
		},
	}
}

// listLimits: the spec's default of 50 for inventory; at most 100.
var listLimits = httpapi.OffsetLimits{Default: 50, Max: 100}
