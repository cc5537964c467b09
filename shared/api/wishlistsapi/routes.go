// Package wishlistsapi is the wishlists endpoint group: a reader's
// wishlists and the books on them, the single view with every book, and
// the public wishlists of a reader's profile. The profile's list lives
// here rather than with users because it reads wishlist data: this
// group's Lambda holds the grants for it.
package wishlistsapi

import (
	"github.com/bookplatform/backend/shared/page"
	"net/http"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/wishlists"
)

// handler serves the wishlists group.
type handler struct {
	wishlists *wishlists.Service
}

// Group is the wishlists group. Its calls: GetItem for a wishlist, an
// entry, a username claim or a reader's home store; Query for a
// wishlist's entries, the two lists (GSI1, GSI2) and a deleted
// wishlist's entries; BatchGetItem for the owner and books of the single
// view and for the wishes and demand counts an entry's change is
// computed from; UpdateItem for a wishlist's or an entry's fields;
// TransactWriteItems for wishlists with the owner's count and entries
// with the wishlist's itemCount, the reader's wish and the store's
// demand count (their parts: PutItem, UpdateItem, DeleteItem,
// ConditionCheckItem on the book and the reader's home store; a deleted
// wishlist's entries go the same way, 30 to a transaction, since most
// change demand counts).
func Group(d api.Deps) api.Group {
	h := &handler{wishlists: service(d)}
	array := []httpapi.Param{
		{Name: "cursor", Type: "string", About: "nextCursor of the previous page"},
		httpapi.LimitParam(page.MaxLimit, page.MaxLimit, "one call returns every wishlist of all but the longest lists"),
	}
	return api.Group{
		Name: "wishlists",
		Table: []string{"dynamodb:GetItem", "dynamodb:Query", "dynamodb:BatchGetItem", "dynamodb:UpdateItem",
			"dynamodb:PutItem", "dynamodb:DeleteItem", "dynamodb:ConditionCheckItem"},
		Routes: []httpapi.Route{
			{Method: http.MethodGet, Path: httpapi.V1("/wishlists"), Auth: httpapi.AuthBearer, Handler: h.list,
				Doc: httpapi.Doc{Summary: "The caller's wishlists, private ones included, oldest first", Query: array, Response: wishlistList{}, Errors: []int{400}}},
			{Method: http.MethodPost, Path: httpapi.V1("/wishlists"), Auth: httpapi.AuthBearer, Idempotent: true, Handler: h.create,
				Doc: httpapi.Doc{Summary: "Create a wishlist (free tier 1, premium 10, bookstore unlimited)", Body: createRequest{}, Response: wishlist{}, Status: http.StatusCreated, Errors: []int{400, 403},
					Why: map[int]string{403: "the caller already keeps as many wishlists as the tier allows (details say the limit)."}}},
			{Method: http.MethodGet, Path: httpapi.V1("/wishlists/{id}"), Auth: httpapi.AuthOptional, Handler: h.get,
				Doc: httpapi.Doc{Summary: "A wishlist with its owner and every book on it; a private one to its owner only", Response: view{}, Errors: []int{401, 403, 404},
					Why: map[int]string{403: "the wishlist is private and the caller is not its owner (401 without a token).", 404: "no wishlist has this id."}}},
			{Method: http.MethodPut, Path: httpapi.V1("/wishlists/{id}"), Auth: httpapi.AuthBearer, Handler: h.update,
				Doc: httpapi.Doc{Summary: "Rename, describe or publish one's wishlist", Body: updateRequest{}, Response: wishlist{}, Errors: []int{400, 403, 404},
					Why: map[int]string{403: "the caller does not own the wishlist.", 404: "no wishlist has this id."}}},
			{Method: http.MethodDelete, Path: httpapi.V1("/wishlists/{id}"), Auth: httpapi.AuthBearer, Handler: h.delete,
				Doc: httpapi.Doc{Summary: "Delete one's wishlist with every book on it", Response: httpapi.Success{}, Errors: []int{403, 404},
					Why: map[int]string{403: "the caller does not own the wishlist.", 404: "no wishlist has this id."}}},
			{Method: http.MethodPost, Path: httpapi.V1("/wishlists/{id}/items"), Auth: httpapi.AuthBearer, Idempotent: true, Handler: h.addItem,
				Doc: httpapi.Doc{Summary: "Put a book on one's wishlist", Body: addItemRequest{}, Response: item{}, Status: http.StatusCreated, Errors: []int{400, 403, 404},
					Why: map[int]string{403: "the caller does not own the wishlist.", 404: "no wishlist has this id, or no book has this bookId."}}},
			{Method: http.MethodPut, Path: httpapi.V1("/wishlists/{id}/items/{itemId}"), Auth: httpapi.AuthBearer, Handler: h.updateItem,
				Doc: httpapi.Doc{Summary: "Change a book's priority or notes on one's wishlist", Body: updateItemRequest{}, Response: editedItem{}, Errors: []int{400, 403, 404},
					Why: map[int]string{403: "the caller does not own the wishlist.", 404: "no such wishlist, or no such item on it."}}},
			{Method: http.MethodDelete, Path: httpapi.V1("/wishlists/{id}/items/{itemId}"), Auth: httpapi.AuthBearer, Handler: h.deleteItem,
				Doc: httpapi.Doc{Summary: "Take a book off one's wishlist", Response: httpapi.Success{}, Errors: []int{403, 404},
					Why: map[int]string{403: "the caller does not own the wishlist.", 404: "no such wishlist, or no such item on it."}}},
			{Method: http.MethodGet, Path: httpapi.V1("/users/{username}/wishlists"), Auth: httpapi.AuthNone, Handler: h.listByUser,
				Doc: httpapi.Doc{Summary: "A reader's public wishlists, oldest first", Query: array, Response: wishlistList{}, Errors: []int{400, 404},
					Why: map[int]string{404: "no account has this username."}}},
			// Served here, not by stores: it reads the wishlists' demand
			// counts, and this group's Lambda holds the grants for them.
			{Method: http.MethodGet, Path: httpapi.V1("/stores/{slug}/wishlist-demand"), Auth: httpapi.AuthBearer,
				Role: httpapi.StoreOwner(httpapi.SlugInPath("slug")), Handler: h.demand,
				Doc: httpapi.Doc{Summary: "The books the store's readers wish for, most wished first, with the store's stock of each (snake_case names, as the spec shows)",
					Query: []httpapi.Param{array[0], httpapi.LimitParam(page.MaxLimit, page.MaxLimit, "the most wished books first")}, Response: demandList{}, Errors: []int{400, 403, 404},
					Why: map[int]string{403: "the caller does not own the store (its staff included).", 404: "no store has this slug."}}},
		},
	}
}
