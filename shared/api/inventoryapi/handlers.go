package inventoryapi

import (
	"encoding/json"
	"math"
	"net/http"
	"strconv"

	"github.com/bookplatform/backend/shared/api/bookjson"
	"github.com/bookplatform/backend/shared/api/userjson"
	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/inventory"
	"github.com/bookplatform/backend/shared/stores"
)

// item is the spec's Inventory item as lists show it: its book brief,
// without cost and external id (the detail view's).
type item struct {
	ID         string          `json:"id"`
	StoreID    string          `json:"storeId"`
	BookID     string          `json:"bookId"`
	Book       *bookjson.Brief `json:"book" doc:"The book's brief; null only when the catalog record is gone."`
	Quantity   int             `json:"quantity"`
	PriceCents int             `json:"priceCents"`
	Condition  string          `json:"condition"`
	Location   string          `json:"location"`
	Notes      string          `json:"notes"`
	CreatedAt  string          `json:"createdAt"`
	UpdatedAt  string          `json:"updatedAt"`
}

func newItem(v inventory.View) item {
	it := v.Item
	return item{
		ID: it.ID, StoreID: it.StoreID, BookID: it.BookID, Book: bookjson.BriefOf(v.Book), Quantity: it.Quantity,
		PriceCents: it.PriceCents, Condition: string(it.Condition), Location: it.Location, Notes: it.Notes,
		CreatedAt: userjson.Time(it.CreatedAt), UpdatedAt: userjson.Time(it.UpdatedAt),
	}
}

// detail is the spec's Inventory item in its detail view: the book
// brief with isbn13, publisher and pageCount, and the cost and external
// id.
type detail struct {
	ID             string      `json:"id"`
	StoreID        string      `json:"storeId"`
	BookID         string      `json:"bookId"`
	Book           *detailBook `json:"book" doc:"The book's brief with isbn13, publisher and pageCount; null only when the catalog record is gone."`
	Quantity       int         `json:"quantity"`
	PriceCents     int         `json:"priceCents"`
	CostCents      *int        `json:"costCents" doc:"What the store paid, in cents; null when never given."`
	Condition      string      `json:"condition"`
	Location       string      `json:"location"`
	Notes          string      `json:"notes"`
	ExternalItemID *string     `json:"externalItemId" doc:"The item's id in the external point-of-sale system; null until a sync links it."`
	CreatedAt      string      `json:"createdAt"`
	UpdatedAt      string      `json:"updatedAt"`
}

// detailBook is a BookBrief with the detail view's additions.
type detailBook struct {
	bookjson.Brief
	ISBN13    string `json:"isbn13"`
	Publisher string `json:"publisher"`
	PageCount int    `json:"pageCount"`
}

func newDetail(v *inventory.View) detail {
	it := v.Item
	d := detail{
		ID: it.ID, StoreID: it.StoreID, BookID: it.BookID, Quantity: it.Quantity, PriceCents: it.PriceCents,
		CostCents: it.CostCents, Condition: string(it.Condition), Location: it.Location, Notes: it.Notes,
		CreatedAt: userjson.Time(it.CreatedAt), UpdatedAt: userjson.Time(it.UpdatedAt),
	}
	if it.ExternalItemID != "" {
		d.ExternalItemID = &it.ExternalItemID
	}
	if b := v.Book; b != nil {
		d.Book = &detailBook{Brief: bookjson.NewBrief(b), ISBN13: b.ISBN13, Publisher: b.Publisher, PageCount: b.PageCount}
	}
	return d
}

// listResponse answers GET /v1/inventory.
type listResponse struct {
	Items []item `json:"items"`
	httpapi.OffsetMeta
	TotalIsLowerBound bool `json:"totalIsLowerBound,omitempty" doc:"Present (true) when total is a lower bound: a search reads its driving word's postings only until it has the page and one match more (total is then at least offset + limit + 1 when there is a next page), and at most 500 of them; absent when total is exact."`
}

// createRequest is the body of POST /v1/inventory. The numbers are read
// raw, to tell an integer from anything else.
type createRequest struct {
	StoreID    string          `json:"storeId"`
	BookID     string          `json:"bookId"`
	Quantity   json.RawMessage `json:"quantity" openapi:"integer"`
	PriceCents json.RawMessage `json:"priceCents" openapi:"integer"`
	CostCents  json.RawMessage `json:"costCents,omitempty" openapi:"integer,null"`
	Condition  string          `json:"condition"`
	Location   string          `json:"location,omitempty"`
	Notes      string          `json:"notes,omitempty"`
}

// updateRequest is the body of PUT /v1/inventory/{id}: a field left out
// keeps its value; "" clears location or notes, null clears costCents
// (as null clears a note's pageNumber).
type updateRequest struct {
	StoreID    string          `json:"storeId"`
	PriceCents json.RawMessage `json:"priceCents,omitempty" openapi:"integer"`
	CostCents  json.RawMessage `json:"costCents,omitempty" openapi:"integer,null" doc:"What the store paid, in cents; null clears it, left out keeps it."`
	Condition  *string         `json:"condition,omitempty"`
	Location   *string         `json:"location,omitempty"`
	Notes      *string         `json:"notes,omitempty"`
}

// updated answers PUT /v1/inventory/{id}: the spec's fields.
type updated struct {
	ID         string `json:"id"`
	StoreID    string `json:"storeId"`
	BookID     string `json:"bookId"`
	Quantity   int    `json:"quantity"`
	PriceCents int    `json:"priceCents"`
	Condition  string `json:"condition"`
	Location   string `json:"location"`
	Notes      string `json:"notes"`
	UpdatedAt  string `json:"updatedAt"`
}

// adjustRequest is the body of PUT /v1/inventory/{id}/adjust.
type adjustRequest struct {
	StoreID    string          `json:"storeId"`
	Adjustment json.RawMessage `json:"adjustment" openapi:"integer" doc:"What to add to the quantity: negative takes away; not 0."`
	Reason     string          `json:"reason" doc:"Why (a recount, damage, a sale elsewhere): kept in the item's history; 1-500 characters."`
}

// adjusted answers PUT /v1/inventory/{id}/adjust: quantity is
// previousQuantity + adjustment, as committed.
type adjusted struct {
	ID               string `json:"id"`
	StoreID          string `json:"storeId"`
	BookID           string `json:"bookId"`
	Quantity         int    `json:"quantity"`
	PreviousQuantity int    `json:"previousQuantity"`
	Adjustment       int    `json:"adjustment"`
	UpdatedAt        string `json:"updatedAt"`
}

// availabilityResponse answers GET /v1/books/{id}/availability.
type availabilityResponse struct {
	BookID       string  `json:"bookId"`
	Availability []offer `json:"availability"`
}

// offer is one store's stock of the book.
type offer struct {
	StoreID      string   `json:"storeId"`
	StoreName    string   `json:"storeName"`
	StoreSlug    string   `json:"storeSlug"`
	Quantity     int      `json:"quantity"`
	PriceCents   int      `json:"priceCents"`
	Condition    string   `json:"condition"`
	Distance     *float64 `json:"distance" doc:"Miles from the position asked, two decimals; null without one."`
	AddressLine1 string   `json:"addressLine1"`
	City         string   `json:"city"`
	State        string   `json:"state"`
}

// storeIDIn reads the storeId of a query (the role check read it too; a
// GET handler starts beside that check, so it reads it itself).
func storeIDIn(r *http.Request) (string, error) {
	id, msg := ids.Required(r.URL.Query().Get("storeId"))
	if msg != "" {
		return "", apperr.Validation("storeId "+msg+": it names the store", map[string]string{"storeId": msg})
	}
	return id, nil
}

// itemID reads the path's item id: one that is not an item id (a UUID)
// names no item.
func itemID(r *http.Request) (string, error) {
	id, ok := ids.Parse(r.PathValue("id"))
	if !ok {
		return "", inventory.ErrNotFound
	}
	return id, nil
}

// cents reads an amount field: an integer number of cents, 0 or more.
func cents(f *apperr.Fields, raw json.RawMessage, field string, required bool) *int {
	n, present, err := httpapi.IntField(raw, field, inventory.CentsMessage)
	switch {
	case err != nil:
		f.Add(field, inventory.CentsMessage)
	case required && (!present || n == nil):
		f.Add(field, "is required")
	}
	return n
}

// list serves GET /v1/inventory.
func (h *handler) list(w http.ResponseWriter, r *http.Request) error {
	o, err := httpapi.OffsetPage(r, listLimits)
	if err != nil {
		return err
	}
	storeID, err := storeIDIn(r)
	if err != nil {
		return err
	}
	qs := r.URL.Query()
	q := inventory.ListQuery{Page: o}
	if qs.Has("inStockOnly") {
		if q.InStockOnly, err = strconv.ParseBool(qs.Get("inStockOnly")); err != nil {
			return apperr.Validation("inStockOnly must be true or false", map[string]string{"inStockOnly": "must be true or false"})
		}
	}
	if q.Search, err = inventory.ParseSearch(qs.Get("search")); err != nil {
		return err
	}
	views, res, err := h.inventory.List(r.Context(), storeID, q)
	if err != nil {
		return err
	}
	out := listResponse{Items: make([]item, len(views)), OffsetMeta: httpapi.NewOffsetMeta(o, res.Total), TotalIsLowerBound: res.TotalIsLowerBound}
	for i, v := range views {
		out.Items[i] = newItem(v)
	}
	return httpapi.JSON(w, http.StatusOK, out)
}

// create serves POST /v1/inventory: 201 with the item's detail view.
func (h *handler) create(w http.ResponseWriter, r *http.Request) error {
	var req createRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	var f apperr.Fields
	bookID, msg := ids.Required(req.BookID)
	f.Add("bookId", msg)
	qty, present, err := httpapi.IntField(req.Quantity, "quantity", inventory.QuantityMessage)
	switch {
	case err != nil:
		f.Add("quantity", inventory.QuantityMessage)
	case !present || qty == nil:
		f.Add("quantity", "is required")
	}
	price := cents(&f, req.PriceCents, "priceCents", true)
	cost := cents(&f, req.CostCents, "costCents", false)
	if req.Condition == "" {
		f.Add("condition", "is required: "+inventory.ConditionMessage())
	}
	if err := f.Err(); err != nil {
		return err
	}
	v, err := h.inventory.Create(r.Context(), httpapi.CallerOf(r).ID, inventory.NewItem{
		StoreID: httpapi.CallerOf(r).Store().ID, BookID: bookID, Quantity: *qty, PriceCents: *price, CostCents: cost,
		Condition: inventory.Condition(req.Condition), Location: req.Location, Notes: req.Notes,
	})
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusCreated, newDetail(v))
}

// get serves GET /v1/inventory/{id}.
func (h *handler) get(w http.ResponseWriter, r *http.Request) error {
	storeID, err := storeIDIn(r)
	if err != nil {
		return err
	}
	id, err := itemID(r)
	if err != nil {
		return err
	}
	v, err := h.inventory.Get(r.Context(), storeID, id)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, newDetail(v))
}

// update serves PUT /v1/inventory/{id}.
func (h *handler) update(w http.ResponseWriter, r *http.Request) error {
	var req updateRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	id, err := itemID(r)
	if err != nil {
		return err
	}
	var f apperr.Fields
	u := inventory.Update{Location: req.Location, Notes: req.Notes}
	u.PriceCents = cents(&f, req.PriceCents, "priceCents", false)
	cost, costSet, err := httpapi.IntField(req.CostCents, "costCents", inventory.CentsMessage)
	if err != nil {
		f.Add("costCents", inventory.CentsMessage)
	}
	u.CostCents, u.ClearCost = cost, costSet && cost == nil
	if req.Condition != nil {
		c := inventory.Condition(*req.Condition)
		u.Condition = &c
	}
	if err := f.Err(); err != nil {
		return err
	}
	it, err := h.inventory.Update(r.Context(), httpapi.CallerOf(r).Store().ID, id, u)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, updated{
		ID: it.ID, StoreID: it.StoreID, BookID: it.BookID, Quantity: it.Quantity, PriceCents: it.PriceCents,
		Condition: string(it.Condition), Location: it.Location, Notes: it.Notes, UpdatedAt: userjson.Time(it.UpdatedAt),
	})
}

// adjustMessage is the message of a bad adjustment.
const adjustMessage = "must be a non-zero integer from -1000000 to 1000000"

// adjust serves PUT /v1/inventory/{id}/adjust.
func (h *handler) adjust(w http.ResponseWriter, r *http.Request) error {
	var req adjustRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	id, err := itemID(r)
	if err != nil {
		return err
	}
	delta, present, err := httpapi.IntField(req.Adjustment, "adjustment", adjustMessage)
	if err != nil {
		return err
	}
	if !present || delta == nil {
		return apperr.Validation("adjustment is required", map[string]string{"adjustment": "is required: " + adjustMessage})
	}
	c := httpapi.CallerOf(r)
	it, ch, err := h.inventory.Adjust(r.Context(), c.ID, c.Store().ID, id, *delta, req.Reason)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, adjusted{
		ID: it.ID, StoreID: it.StoreID, BookID: it.BookID, Quantity: ch.After, PreviousQuantity: ch.Before,
		Adjustment: ch.Delta, UpdatedAt: userjson.Time(it.UpdatedAt),
	})
}

// delete serves DELETE /v1/inventory/{id}.
func (h *handler) delete(w http.ResponseWriter, r *http.Request) error {
	id, err := itemID(r)
	if err != nil {
		return err
	}
	c := httpapi.CallerOf(r)
	if err := h.inventory.Delete(r.Context(), c.ID, c.Store().ID, id); err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.Success{Success: true, Message: "Inventory item deleted"})
}

// history serves GET /v1/inventory/{id}/history: newest first.
func (h *handler) history(w http.ResponseWriter, r *http.Request) error {
	c, err := httpapi.CursorPage(r)
	if err != nil {
		return err
	}
	storeID, err := storeIDIn(r)
	if err != nil {
		return err
	}
	id, err := itemID(r)
	if err != nil {
		return err
	}
	p, err := h.inventory.History(r.Context(), storeID, id, c)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.NewCursorBody(r, p, inventory.NewChangeData))
}

// availability serves GET /v1/books/{id}/availability.
func (h *handler) availability(w http.ResponseWriter, r *http.Request) error {
	bookID, ok := ids.Parse(r.PathValue("id"))
	if !ok {
		return books.ErrNotFound
	}
	q, err := stores.PositionOf(r.URL.Query())
	if err != nil {
		return err
	}
	offers, err := h.inventory.Availability(r.Context(), bookID, q.Near, q.Radius)
	if err != nil {
		return err
	}
	out := availabilityResponse{BookID: bookID, Availability: make([]offer, len(offers))}
	for i, o := range offers {
		out.Availability[i] = offer{
			StoreID: o.Store.ID, StoreName: o.Store.Name, StoreSlug: o.Store.Slug, Quantity: o.Item.Quantity,
			PriceCents: o.Item.PriceCents, Condition: string(o.Item.Condition),
			AddressLine1: o.Store.AddressLine1, City: o.Store.City, State: o.Store.State,
		}
		if o.Distance != nil {
			d := math.Round(*o.Distance*100) / 100
			out.Availability[i].Distance = &d
		}
	}
	return httpapi.JSON(w, http.StatusOK, out)
}
