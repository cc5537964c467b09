package ordersapi

import (
	"encoding/json"
	"math"
	"net/http"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/api/bookjson"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/orders"
)

// previewHandler serves POST /v1/orders/preview. It is its own type, not
// the orders handler: a preview only reads (stock, books, stores) and
// pays nothing, so it needs neither the order storage nor the payment
// provider.
type previewHandler struct {
	previewer *orders.Previewer
}

// PreviewRoute is POST /v1/orders/preview, for the orders group's route
// list. Its calls: Query GSI3 of each book's stock and BatchGetItem of
// the books and of the stores found (the group's Table must grant
// dynamodb:Query and dynamodb:BatchGetItem). Auth is optional: a guest
// previews as a reader does, and nothing is written, so it is neither
// idempotent nor charged to anything but the request rate.
func PreviewRoute(d api.Deps) httpapi.Route {
	h := &previewHandler{previewer: orders.NewPreviewer(orders.PreviewDeps{
		Stock: dynamo.NewInventory(d.Table), Stores: dynamo.NewBookstores(d.Table), Books: dynamo.NewBooks(d.Table),
		Pricing: orders.PricingFrom(d.Env),
	})}
	return httpapi.Route{Method: http.MethodPost, Path: httpapi.V1("/orders/preview"), Auth: httpapi.AuthOptional, Handler: h.preview,
		Doc: httpapi.Doc{
			Summary: "Route an order before placing it: for each book the stores that can supply it (price, condition, stock, distance), " +
				"the cheapest in stock chosen, and the estimated shipping and tax of that routing, shipped and picked up",
			Body: previewRequest{}, Response: previewResponse{}, Errors: []int{400},
			Why: map[int]string{400: "a bad field (items: 1 to 15 distinct books, quantity 1 to 99; shippingAddress: a US 5-digit or ZIP+4 postalCode, country US; " +
				"fulfilment ship or pickup), or books that do not exist (named in details.bookIds). A book no store has in stock is no error: its availableStores is empty."},
		}}
}

// previewRequest is the body of POST /v1/orders/preview. A quantity is
// read raw, to tell an integer from anything else.
type previewRequest struct {
	Items           []previewLine  `json:"items"`
	ShippingAddress previewAddress `json:"shippingAddress"`
	Fulfilment      string         `json:"fulfilment,omitempty" doc:"ship (the default) or pickup: which of options the estimate is; every store's part fulfilled alike."`
}

// previewLine is one book of a preview.
type previewLine struct {
	BookID   string          `json:"bookId"`
	Quantity json.RawMessage `json:"quantity" openapi:"integer" doc:"Copies: 1 to 99."`
}

// previewAddress is where the order would ship: enough to estimate
// distance (the ZIP code's centroid).
type previewAddress struct {
	PostalCode string `json:"postalCode" doc:"A US ZIP code: 5 digits, or ZIP+4 (97209-1234)."`
	Country    string `json:"country" doc:"US: orders ship within the United States."`
}

// previewResponse answers POST /v1/orders/preview.
type previewResponse struct {
	Routing previewRouting `json:"routing"`
}

// previewRouting is the spec's routing, with the totals of both
// fulfilments beside the estimate.
type previewRouting struct {
	Items                  []previewItem  `json:"items"`
	EstimatedShippingCents int64          `json:"estimatedShippingCents" doc:"Shipping of the routing (each book from its cheapest store in stock) for the request's fulfilment: options.ship's or options.pickup's (0)."`
	EstimatedTaxCents      int64          `json:"estimatedTaxCents" doc:"Tax of the routing for the request's fulfilment, at each store's rate, as an order computes it."`
	Options                previewOptions `json:"options"`
}

// previewOptions are the routing's totals with every store's part
// shipped, or picked up: what POST /orders charges for those lines.
type previewOptions struct {
	Ship   orders.Totals `json:"ship"`
	Pickup orders.Totals `json:"pickup"`
}

// previewItem is one book of the routing.
type previewItem struct {
	BookID          string          `json:"bookId"`
	Book            *bookjson.Short `json:"book"`
	Quantity        int             `json:"quantity"`
	AvailableStores []previewStore  `json:"availableStores" doc:"Every store with a copy: those with the quantity asked first, cheapest first (ties: nearer, then store id); empty when no store has the book in stock."`
}

// previewStore is a store's stock of a preview's book.
type previewStore struct {
	StoreID           string   `json:"storeId"`
	StoreName         string   `json:"storeName"`
	StoreSlug         string   `json:"storeSlug"`
	InventoryID       string   `json:"inventoryId" doc:"The item POST /orders takes."`
	PriceCents        int      `json:"priceCents"`
	Condition         string   `json:"condition"`
	QuantityAvailable int      `json:"quantityAvailable"`
	InStock           bool     `json:"inStock" doc:"The store has the quantity asked (a store with fewer copies is listed, never chosen)."`
	Distance          *float64 `json:"distance" doc:"Miles from the postal code's centroid, one decimal; null when the ZIP code or the store's position is unknown."`
	Cheapest          bool     `json:"cheapest" doc:"The routing's choice: the lowest price in stock (ties: nearer, then store id); at most one per book."`
	Nearest           bool     `json:"nearest" doc:"The nearest store in stock with a known distance (ties: cheaper); at most one per book."`
}

// preview serves POST /v1/orders/preview.
func (h *previewHandler) preview(w http.ResponseWriter, r *http.Request) error {
	var req previewRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	in := orders.PreviewRequest{Lines: make([]orders.PreviewLine, len(req.Items)), Fulfilment: orders.Fulfilment(req.Fulfilment),
		PostalCode: req.ShippingAddress.PostalCode, Country: req.ShippingAddress.Country}
	for i, l := range req.Items {
		// Anything but an integer is 0, which the range check refuses
		// with the words an integer out of range gets.
		q, _, _ := httpapi.IntField(l.Quantity, "quantity", "")
		in.Lines[i] = orders.PreviewLine{BookID: l.BookID}
		if q != nil {
			in.Lines[i].Quantity = *q
		}
	}
	rt, err := h.previewer.Preview(r.Context(), in)
	if err != nil {
		return err
	}
	est := rt.Estimate()
	out := previewResponse{Routing: previewRouting{
		Items:                  make([]previewItem, len(rt.Items)),
		EstimatedShippingCents: est.ShippingCents, EstimatedTaxCents: est.TaxCents,
		Options: previewOptions{Ship: rt.Ship, Pickup: rt.Pickup},
	}}
	for i, ri := range rt.Items {
		it := previewItem{BookID: ri.Book.ID, Book: bookjson.ShortOf(ri.Book), Quantity: ri.Quantity,
			AvailableStores: make([]previewStore, len(ri.Offers))}
		for j, o := range ri.Offers {
			s := previewStore{
				StoreID: o.Store.ID, StoreName: o.Store.Name, StoreSlug: o.Store.Slug, InventoryID: o.Item.ID,
				PriceCents: o.Item.PriceCents, Condition: string(o.Item.Condition), QuantityAvailable: o.Item.Quantity,
				InStock: o.InStock, Cheapest: o.Cheapest, Nearest: o.Nearest,
			}
			if o.Distance != nil {
				// Distance is the one float of the answer: miles, no money.
				d := math.Round(*o.Distance*10) / 10
				s.Distance = &d
			}
			it.AvailableStores[j] = s
		}
		out.Routing.Items[i] = it
	}
	return httpapi.JSON(w, http.StatusOK, out)
}
