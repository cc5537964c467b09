package posapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/pos"
	"github.com/bookplatform/backend/shared/stores"
)

// sales serves the sales: ringing one up, the list, a sale's detail and
// its receipt.
type sales struct {
	pos    *dynamo.POS
	stores *dynamo.Bookstores
	now    func() time.Time
}

// Limits of the sales list (spec: POS sales list, default 50, maximum 50).
const (
	saleListDefault = 50
	saleListMax     = 50
)

// NextCursorHeader carries the sales list's next-page cursor: the spec
// shows the list as a bare array, which has no room for it
// (docs/decisions.md, "The sales list's paging header").
const NextCursorHeader = "X-Next-Cursor"

// errSaleNotFound answers an unknown sale and another store's alike
// (docs/decisions.md, "Another store's sale is 404").
var errSaleNotFound = apperr.NotFound("Sale not found")

// saleRoutes are the sales' routes. Their calls: BatchGetItem (the
// sale's store, books, items, customer and balance, consistent);
// TransactWriteItems (Puts of the items, their history, their events,
// the balance and its entry, the number's claim and the sale; Updates of
// the store's in-stock count, the report counters and the shift;
// ConditionChecks of the shift pointer); UpdateItem (the postings' stock
// flags); Query (the list, GSI1 or GSI2); GetItem (a sale, the
// receipt's store).
func saleRoutes(d api.Deps) []httpapi.Route {
	now := d.Now
	if now == nil {
		now = time.Now
	}
	h := &sales{pos: dynamo.NewPOS(d.Table), stores: dynamo.NewBookstores(d.Table), now: now}
	notFound := "no sale has this id, or the sale is another store's (one the caller neither owns nor staffs)."
	return []httpapi.Route{
		{Method: http.MethodPost, Path: Path("/sales"), Auth: httpapi.AuthBearer, Role: staffOfNamed, Idempotent: true, Handler: h.create,
			Doc: httpapi.Doc{Summary: "Ring up a sale at the counter: catalog books (the stock of a line naming inventoryId is taken in the sale's transaction) and custom items, the store's tax on the whole subtotal (half up), trade credit spent after tax; an Idempotency-Key makes a retry answer the first sale",
				Body: saleRequest{}, Response: saleJSON{}, Status: http.StatusCreated, Errors: []int{400, 403, 404},
				Why: map[int]string{
					400: "an invalid body (1 to 25 items, each with a bookId or a customItem, not both; an inventoryId only with a bookId, the store's item for that book, existing, once per sale, with isUsed agreeing with its condition; quantity 1-999; unitPriceCents 0-10000000; paymentMethod consistent with the credit applied: cash or card without credit, trade_credit when the credit pays the whole total, mixed when it pays part), a bookId not in the catalog, trade credit without customerUserId or above the subtotal plus tax, Insufficient trade credit (details.balanceCents), or Insufficient stock (details.inventoryIds): nothing is written.",
					403: "the caller is neither the owner nor staff of the store storeId names.",
					404: "no store has this id, or customerUserId names no account (Customer not found)."}}},
		{Method: http.MethodGet, Path: Path("/sales"), Auth: httpapi.AuthBearer, Role: staffOfQueried, Handler: h.list,
			Doc: httpapi.Doc{Summary: "The store's sales, newest first, as a bare array; the next page's cursor is in the X-Next-Cursor response header (absent on the last page)",
				Query: []httpapi.Param{
					{Name: "storeId", Type: "string", About: "the store (default: the one the caller owns, else the one it staffs)"},
					{Name: "staffUserId", Type: "string", About: "only the sales this staff member made"},
					{Name: "startDate", Type: "string", About: "the earliest sale's time, inclusive: an RFC 3339 timestamp, or YYYY-MM-DD for that UTC day's start"},
					{Name: "endDate", Type: "string", About: "the latest sale's time, inclusive: an RFC 3339 timestamp, or YYYY-MM-DD for that UTC day's end"},
					httpapi.LimitParam(saleListDefault, saleListMax),
					{Name: "cursor", Type: "string", About: "X-Next-Cursor of the previous page (with the same filters)"},
				},
				Response: []saleJSON{}, Errors: []int{400, 403, 404},
				Why: map[int]string{
					400: "a staffUserId that is no UUID, a date that is neither form, endDate before startDate, a limit outside 1-50, a cursor this list did not issue, or storeId missing for a caller who staffs several stores and owns none.",
					403: "the caller is neither the owner nor staff of the store.", 404: "no store has this id."}}},
		{Method: http.MethodGet, Path: Path("/sales/{id}"), Auth: httpapi.AuthBearer, Role: staffOfRecord, Handler: h.get,
			Doc: httpapi.Doc{Summary: "A sale with its items and their books as at the sale",
				Response: saleJSON{}, Errors: []int{403, 404},
				Why: map[int]string{403: "the caller neither owns nor staffs any store.", 404: notFound}}},
		{Method: http.MethodGet, Path: Path("/sales/{id}/receipt"), Auth: httpapi.AuthBearer, Role: staffOfRecord, Handler: h.receipt,
			Doc: httpapi.Doc{Summary: "A sale's receipt for 48-character printers, as text/plain; charset=utf-8",
				Response: receiptText{}, Errors: []int{403, 404},
				Why: map[int]string{403: "the caller neither owns nor staffs any store.", 404: notFound}}},
	}
}

// saleRequest is the body of POST /api/pos/sales; its integers are read
// raw to tell an integer from anything else.
type saleRequest struct {
	StoreID                 string            `json:"storeId" doc:"The store selling (the caller its owner or staff)."`
	CustomerUserID          string            `json:"customerUserId,omitempty" doc:"The customer's account, if any; required when trade credit is applied."`
	Items                   []saleItemRequest `json:"items" doc:"1 to 25 lines."`
	PaymentMethod           string            `json:"paymentMethod" doc:"cash, card, trade_credit or mixed, consistent with the credit applied."`
	TradeCreditAppliedCents json.RawMessage   `json:"tradeCreditAppliedCents,omitempty" openapi:"integer" doc:"Trade credit spent, cents (default 0); at most the customer's balance and the subtotal plus tax."`
}

// saleItemRequest is one line of a sale.
type saleItemRequest struct {
	BookID         string             `json:"bookId,omitempty" doc:"A catalog book; or customItem, not both."`
	CustomItem     *customItemRequest `json:"customItem,omitempty"`
	InventoryID    string             `json:"inventoryId,omitempty" doc:"The store's inventory item of the book: its stock is taken."`
	Quantity       json.RawMessage    `json:"quantity" openapi:"integer" doc:"1 to 999."`
	UnitPriceCents json.RawMessage    `json:"unitPriceCents" openapi:"integer" doc:"The price charged per copy, cents (0 to 10000000): the clerk's, discounts allowed."`
	IsUsed         *bool              `json:"isUsed" doc:"Required; with inventoryId, true exactly when the item's condition is not new."`
}

// customItemRequest is an item that is no catalog book.
type customItemRequest struct {
	Title   string   `json:"title" doc:"1 to 300 characters."`
	Authors []string `json:"authors,omitempty" doc:"At most 20, each 1 to 200 characters."`
}

// saleJSON is the spec's Sale: the list's and the detail's alike, since
// everything is on the sale's one item.
type saleJSON struct {
	ID                      string         `json:"id"`
	StoreID                 string         `json:"storeId"`
	StaffUserID             string         `json:"staffUserId"`
	CustomerUserID          *string        `json:"customerUserId"`
	SaleNumber              string         `json:"saleNumber" doc:"STORE-TIMESTAMP-RANDOM: the store slug's letters and digits (at most 8), the UTC time YYYYMMDDHHMMSS, 6 random digits."`
	Items                   []saleItemJSON `json:"items"`
	SubtotalCents           int64          `json:"subtotalCents"`
	TaxCents                int64          `json:"taxCents"`
	TotalCents              int64          `json:"totalCents" doc:"subtotalCents + taxCents - tradeCreditAppliedCents."`
	PaymentMethod           string         `json:"paymentMethod"`
	TradeCreditAppliedCents int64          `json:"tradeCreditAppliedCents"`
	CreatedAt               time.Time      `json:"createdAt"`
	Customer                *customerJSON  `json:"customer" doc:"The customer as at the sale; null without one."`
	ShiftID                 *string        `json:"shiftId" doc:"The cash-drawer shift open at the store at the sale; null when none was."`
}

// customerJSON is a sale's customer.
type customerJSON struct {
	ID          string  `json:"id"`
	DisplayName *string `json:"displayName"`
	Email       *string `json:"email"`
}

// saleItemJSON is the spec's sale item; unitPrice is in cents, and
// unitPriceCents says so (docs/decisions.md, "unitPrice in cents").
type saleItemJSON struct {
	ID             string       `json:"id"`
	SaleID         string       `json:"saleId"`
	BookID         *string      `json:"bookId" doc:"null for a custom item."`
	InventoryID    *string      `json:"inventoryId"`
	Quantity       int          `json:"quantity"`
	UnitPrice      int64        `json:"unitPrice" doc:"Cents, as unitPriceCents."`
	UnitPriceCents int64        `json:"unitPriceCents"`
	LineTotalCents int64        `json:"lineTotalCents"`
	IsUsed         bool         `json:"isUsed"`
	Book           saleBookJSON `json:"book"`
}

// saleBookJSON is a line's book as at the sale, or its custom item (no
// id, no ISBNs).
type saleBookJSON struct {
	ID      *string  `json:"id"`
	ISBN13  *string  `json:"isbn13"`
	ISBN10  *string  `json:"isbn10"`
	Title   string   `json:"title"`
	Authors []string `json:"authors"`
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func newSaleJSON(s *pos.Sale) saleJSON {
	out := saleJSON{
		ID: s.ID, StoreID: s.StoreID, StaffUserID: s.StaffUserID, CustomerUserID: nullable(s.CustomerUserID), SaleNumber: s.Number,
		Items: make([]saleItemJSON, len(s.Items)), SubtotalCents: s.SubtotalCents, TaxCents: s.TaxCents, TotalCents: s.TotalCents,
		PaymentMethod: string(s.PaymentMethod), TradeCreditAppliedCents: s.TradeCreditAppliedCents, CreatedAt: s.CreatedAt.UTC(),
		ShiftID: nullable(s.ShiftID),
	}
	if c := s.Customer; c != nil {
		out.Customer = &customerJSON{ID: c.ID, DisplayName: nullable(c.DisplayName), Email: nullable(c.Email)}
	}
	for i, it := range s.Items {
		authors := it.Book.Authors
		if authors == nil {
			authors = []string{}
		}
		out.Items[i] = saleItemJSON{
			ID: it.ID, SaleID: s.ID, BookID: nullable(it.BookID), InventoryID: nullable(it.InventoryID), Quantity: it.Quantity,
			UnitPrice: it.UnitCents, UnitPriceCents: it.UnitCents, LineTotalCents: it.LineCents(), IsUsed: it.IsUsed,
			Book: saleBookJSON{ID: nullable(it.Book.ID), ISBN13: nullable(it.Book.ISBN13), ISBN10: nullable(it.Book.ISBN10),
				Title: it.Book.Title, Authors: authors},
		}
	}
	return out
}

// int64Field reads an integer field read raw: ok false (and the field's
// problem added to f) for anything but an integer; absent or null is def.
func int64Field(f *apperr.Fields, raw json.RawMessage, field, msg string, def int64, required bool) int64 {
	n, present, err := httpapi.IntField(raw, field, msg)
	switch {
	case err != nil:
		f.Add(field, msg)
	case (!present || n == nil) && required:
		f.Add(field, "is required: "+msg)
	case n != nil:
		return int64(*n)
	}
	return def
}

// create serves POST /api/pos/sales.
func (h *sales) create(w http.ResponseWriter, r *http.Request) error {
	var body saleRequest
	if err := httpapi.Decode(w, r, &body); err != nil {
		return err
	}
	var f apperr.Fields
	req := pos.SaleRequest{
		StoreID: httpapi.CallerOf(r).Store().ID, CustomerUserID: body.CustomerUserID, PaymentMethod: pos.PaymentMethod(body.PaymentMethod),
		TradeCreditAppliedCents: int64Field(&f, body.TradeCreditAppliedCents, "tradeCreditAppliedCents", pos.CreditMessage, 0, false),
		Items:                   make([]pos.ItemRequest, len(body.Items)),
	}
	for i, it := range body.Items {
		at := "items[" + strconv.Itoa(i) + "]"
		req.Items[i] = pos.ItemRequest{BookID: it.BookID, InventoryID: it.InventoryID, IsUsed: it.IsUsed,
			Quantity:       int(int64Field(&f, it.Quantity, at+".quantity", pos.QuantityMessage, 0, true)),
			UnitPriceCents: int64Field(&f, it.UnitPriceCents, at+".unitPriceCents", pos.UnitPriceMessage, 0, true)}
		if c := it.CustomItem; c != nil {
			req.Items[i].Custom = &pos.CustomItem{Title: c.Title, Authors: append([]string(nil), c.Authors...)}
		}
	}
	if err := f.Err(); err != nil {
		return err
	}
	if err := req.Validate(); err != nil {
		return err
	}
	s, err := h.pos.Sell(r.Context(), &req, httpapi.CallerOf(r).ID, h.now)
	var short *pos.StockError
	if errors.As(err, &short) {
		return insufficientStock(&req, short)
	}
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusCreated, newSaleJSON(s))
}

// insufficientStock is the 400 of lines asking more than their items
// hold: each line's quantity field says how many are left.
func insufficientStock(req *pos.SaleRequest, e *pos.StockError) error {
	fields := map[string]string{}
	for i, l := range req.Items {
		if have, ok := e.Have[l.InventoryID]; ok && l.InventoryID != "" {
			fields["items["+strconv.Itoa(i)+"].quantity"] = "only " + strconv.Itoa(have) + " in stock"
		}
	}
	return apperr.Validation("Insufficient stock", nil).WithDetails(map[string]any{"fields": fields, "inventoryIds": e.InventoryIDs})
}

// list serves GET /api/pos/sales: the bare array, the next cursor in
// X-Next-Cursor.
func (h *sales) list(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	var f apperr.Fields
	filter := pos.ListFilter{StoreID: httpapi.CallerOf(r).Store().ID}
	if v := q.Get("staffUserId"); v != "" {
		id, ok := ids.Parse(v)
		if !ok {
			f.Add("staffUserId", "must be a user id (a UUID)")
		}
		filter.StaffUserID = id
	}
	var ok bool
	if filter.From, ok = parseDate(q.Get("startDate"), false); !ok {
		f.Add("startDate", dateMessage)
	}
	if filter.To, ok = parseDate(q.Get("endDate"), true); !ok {
		f.Add("endDate", dateMessage)
	}
	if !filter.From.IsZero() && !filter.To.IsZero() && filter.To.Before(filter.From) {
		f.Add("endDate", "must not be before startDate")
	}
	limit := saleListDefault
	if q.Has("limit") {
		n, err := strconv.Atoi(q.Get("limit"))
		if err != nil || n < 1 || n > saleListMax {
			f.Add("limit", "must be an integer from 1 to "+strconv.Itoa(saleListMax))
		}
		limit = n
	}
	if err := f.Err(); err != nil {
		return err
	}
	c, err := httpapi.CursorPage(r)
	if err != nil {
		return err
	}
	c.Limit = limit
	p, err := h.pos.List(r.Context(), filter, c)
	if err != nil {
		return err
	}
	out := make([]saleJSON, len(p.Items))
	for i, s := range p.Items {
		out[i] = newSaleJSON(s)
	}
	if m := httpapi.NewMore(r, p.Next); m.NextCursor != nil {
		w.Header().Set(NextCursorHeader, *m.NextCursor)
	}
	return httpapi.JSON(w, http.StatusOK, out)
}

const dateMessage = "must be an RFC 3339 timestamp or a date YYYY-MM-DD"

// parseDate reads a list's date: an RFC 3339 timestamp, or a UTC day
// (its first instant, or with end its last); "" is no bound.
func parseDate(v string, end bool) (time.Time, bool) {
	if v == "" {
		return time.Time{}, true
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t.UTC(), true
	}
	d, err := time.Parse(time.DateOnly, v)
	if err != nil {
		return time.Time{}, false
	}
	if end {
		return d.AddDate(0, 0, 1).Add(-time.Nanosecond), true
	}
	return d, true
}

// sale reads the path's sale, 404 unless the caller owns or staffs its
// store.
func (h *sales) sale(r *http.Request) (*pos.Sale, error) {
	id, ok := ids.Parse(r.PathValue("id"))
	if !ok {
		return nil, errSaleNotFound
	}
	s, err := h.pos.Get(r.Context(), id)
	if errors.Is(err, pos.ErrNotFound) {
		return nil, errSaleNotFound
	}
	if err != nil {
		return nil, err
	}
	if !httpapi.StaffsStore(httpapi.CallerOf(r).User(), s.StoreID) {
		return nil, errSaleNotFound
	}
	return s, nil
}

// get serves GET /api/pos/sales/{id}.
func (h *sales) get(w http.ResponseWriter, r *http.Request) error {
	s, err := h.sale(r)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, newSaleJSON(s))
}

// receiptText is the receipt's body, plain text.
type receiptText struct{}

// MediaType is the receipt's media type.
func (receiptText) MediaType() string { return "text/plain" }

// receipt serves GET /api/pos/sales/{id}/receipt: pos.Receipt of the
// sale and its store as it is now (its name, address and phone).
func (h *sales) receipt(w http.ResponseWriter, r *http.Request) error {
	s, err := h.sale(r)
	if err != nil {
		return err
	}
	st, err := h.stores.GetStore(r.Context(), s.StoreID)
	if errors.Is(err, stores.ErrNotFound) {
		return errSaleNotFound
	}
	if err != nil {
		return err
	}
	body := pos.Receipt(s, pos.ReceiptStore{Name: st.Name, AddressLine1: st.AddressLine1, AddressLine2: st.AddressLine2,
		City: st.City, State: st.State, PostalCode: st.PostalCode, Phone: st.Phone})
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, err = w.Write([]byte(body))
	return err
}
