package posapi

import (
	"context"
	"errors"
	"net/http"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/inventory"
	"github.com/bookplatform/backend/shared/pos"
)

// lookup serves the barcode lookup: the catalog's book of a scanned
// barcode and the store's stock of it.
type lookup struct {
	books interface {
		GetBookByISBN(ctx context.Context, isbn13 string) (*books.Book, error)
	}
	inventory interface {
		Get(ctx context.Context, storeID, id string) (*inventory.Item, error)
	}
}

// errNoBook is a barcode that names no catalog book (rule 6).
var errNoBook = apperr.NotFound("No book matches this barcode")

// lookupRoutes is GET /api/pos/lookup/{barcode}. Its calls: a Query of
// GSI1 for the book of the ISBN-13 (dynamo.Books.GetBookByISBN), then a
// GetItem of the store's item for it; none for a barcode that cannot
// name a book (a UPC-A or another EAN-13: the catalog keeps ISBN-13s
// only), beside the role check's reads.
func lookupRoutes(d api.Deps) []httpapi.Route {
	h := &lookup{books: dynamo.NewBooks(d.Table), inventory: dynamo.NewInventory(d.Table)}
	return []httpapi.Route{
		{Method: http.MethodGet, Path: Path("/lookup/{barcode}"), Auth: httpapi.AuthBearer, Role: staffOfQueried, Handler: h.get,
			Doc: httpapi.Doc{Summary: "The book of a scanned barcode (ISBN-10, ISBN-13, hyphens allowed, or UPC-A) and the store's stock of it: inventory is null when the store has no copy",
				Query: []httpapi.Param{{Name: "storeId", Type: "string",
					About: "the store whose stock to show (its owner or staff only); default: the store the caller owns, else the one it staffs (400 for staff of several stores)"}},
				Response: lookupResponse{}, Errors: []int{400, 403, 404},
				Why: map[int]string{
					400: "the barcode is not a valid ISBN-10, ISBN-13 or UPC-A (length, characters or check digit), or storeId is not a UUID or is missing for staff of several stores.",
					403: "the caller is neither the owner nor staff of the store (or staffs no store).",
					404: "no catalog book matches the barcode (a UPC-A never does: the catalog keeps ISBN-13s), or no store has the storeId.",
				}}},
	}
}

// lookupResponse is the spec's answer: the book and the store's stock of
// it, null when it has none (no item, or quantity 0).
type lookupResponse struct {
	Book      lookupBook   `json:"book"`
	Inventory *lookupStock `json:"inventory" doc:"the store's item for the book; null when the store has none or its quantity is 0"`
}

type lookupBook struct {
	ID      string   `json:"id"`
	ISBN13  string   `json:"isbn13"`
	ISBN10  *string  `json:"isbn10" doc:"null for a 979 ISBN"`
	Title   string   `json:"title"`
	Authors []string `json:"authors"`
}

type lookupStock struct {
	ID         string `json:"id" doc:"the inventory item's id: a sale line's inventoryId"`
	Quantity   int    `json:"quantity"`
	PriceCents int    `json:"priceCents"`
	Condition  string `json:"condition"`
	IsUsed     bool   `json:"isUsed" doc:"true for every condition but new: a sale line's isUsed"`
}

// get serves GET /api/pos/lookup/{barcode} (staff of the store, the
// caller's own by default).
func (h *lookup) get(w http.ResponseWriter, r *http.Request) error {
	bc, err := pos.ParseBarcode(r.PathValue("barcode"))
	if err != nil {
		return err
	}
	if !bc.IsBook() {
		return errNoBook
	}
	b, err := h.books.GetBookByISBN(r.Context(), bc.EAN13)
	if errors.Is(err, books.ErrNotFound) {
		return errNoBook
	}
	if err != nil {
		return err
	}
	res := lookupResponse{
		Book: lookupBook{ID: b.ID, ISBN13: b.ISBN13, ISBN10: optional(b.ISBN10), Title: b.Title, Authors: nonNil(b.Authors)},
	}
	storeID := httpapi.CallerOf(r).Store().ID
	it, err := h.inventory.Get(r.Context(), storeID, inventory.ItemID(storeID, b.ID))
	switch {
	case errors.Is(err, inventory.ErrNotFound):
	case err != nil:
		return err
	case it.InStock():
		res.Inventory = &lookupStock{ID: it.ID, Quantity: it.Quantity, PriceCents: it.PriceCents,
			Condition: string(it.Condition), IsUsed: it.Condition.Used()}
	}
	return httpapi.JSON(w, http.StatusOK, res)
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
