package orders

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/geo"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/inventory"
	"github.com/bookplatform/backend/shared/stores"
	"github.com/bookplatform/backend/shared/text"
	"golang.org/x/sync/errgroup"
)

// Limits of a preview: an order's, so a preview never routes what POST
// /orders would refuse.
const (
	previewMaxItems    = MaxOrderItems
	previewMaxQuantity = MaxQuantity
)

// PreviewStock reads a book's stock at every store.
type PreviewStock interface {
	// InStock reads the items of bookID with at least one copy, in every
	// store, at most max of them (dynamo.Inventory: one Query of GSI3).
	InStock(ctx context.Context, bookID string, max int) ([]*inventory.Item, error)
}

// PreviewStores reads the stores that hold the books.
type PreviewStores interface {
	// GetStores reads live stores by id; missing ones are absent.
	GetStores(ctx context.Context, ids []string) (map[string]*stores.Store, error)
}

// PreviewBooks reads the books asked for.
type PreviewBooks interface {
	// GetBooks reads books by id; unknown ones are left out.
	GetBooks(ctx context.Context, ids []string) ([]*books.Book, error)
}

// PreviewDeps are what a preview reads and how it prices.
type PreviewDeps struct {
	Stock   PreviewStock
	Stores  PreviewStores
	Books   PreviewBooks
	Pricing Pricing
}

// Previewer routes an order that is not placed yet (POST
// /orders/preview): for each book, the stores that can supply it, the
// routing an order would take, and its totals shipped and picked up. It
// only reads, so a guest may ask.
type Previewer struct{ d PreviewDeps }

// NewPreviewer builds the preview service.
func NewPreviewer(d PreviewDeps) *Previewer { return &Previewer{d: d} }

// PreviewLine is one line of a preview: copies of a book.
type PreviewLine struct {
	BookID string
	// Quantity is 1 to 99; the API gives 0 for a value that is no
	// integer, which the range check refuses with the same words.
	Quantity int
}

// PreviewRequest is POST /orders/preview: the books, where they would
// ship, and the fulfilment the estimate is for ("": ship).
type PreviewRequest struct {
	Lines      []PreviewLine
	PostalCode string
	Country    string
	Fulfilment Fulfilment
}

// previewZIP is a US postal code: five digits, or ZIP+4.
var previewZIP = text.NewPattern(`^[0-9]{5}(-[0-9]{4})?$`)

// validate checks a request on its own and normalises its ids, country
// and postal code: 400 naming each bad field. Orders ship within the
// US only (stores' tax rates and shipping are US ones), so another
// country is refused, not priced wrong.
func (r *PreviewRequest) validate() error {
	var f apperr.Fields
	switch n := len(r.Lines); {
	case n == 0:
		f.Add("items", "must list at least one book")
	case n > previewMaxItems:
		f.Add("items", "at most "+strconv.Itoa(previewMaxItems)+" books per order")
	}
	seen := map[string]bool{}
	for i, l := range r.Lines {
		at := "items[" + strconv.Itoa(i) + "]"
		id, msg := ids.Required(strings.TrimSpace(l.BookID))
		switch {
		case msg != "":
			f.Add(at+".bookId", msg)
		case seen[id]:
			f.Add(at+".bookId", "is listed twice: one line per book")
		}
		seen[id] = true
		r.Lines[i].BookID = id
		if l.Quantity < 1 || l.Quantity > previewMaxQuantity {
			f.Add(at+".quantity", "must be an integer from 1 to "+strconv.Itoa(previewMaxQuantity))
		}
	}
	r.Country = strings.ToUpper(strings.TrimSpace(r.Country))
	r.PostalCode = strings.TrimSpace(r.PostalCode)
	switch {
	case r.Country == "":
		f.Add("shippingAddress.country", "is required")
	case r.Country != "US":
		f.Add("shippingAddress.country", "must be US: orders ship within the United States")
	}
	switch {
	case r.PostalCode == "":
		f.Add("shippingAddress.postalCode", "is required")
	case r.Country == "US" && !previewZIP.MatchString(r.PostalCode):
		f.Add("shippingAddress.postalCode", "must be a US ZIP code: 5 digits, or ZIP+4 (97209-1234)")
	}
	if r.Fulfilment != "" && !r.Fulfilment.Valid() {
		f.Add("fulfilment", "must be ship or pickup")
	}
	return f.Err()
}

// Routing is a preview's answer.
type Routing struct {
	Items []RoutedItem
	// Fulfilment is the one the estimate is for (the request's; Ship
	// when it named none).
	Fulfilment Fulfilment
	// Ship and Pickup are the totals of the routing (each item from its
	// Choice) with every store's part shipped, or picked up: what
	// POST /orders would charge for the same lines (Pricing.PriceAll).
	// Items no store can supply are in neither.
	Ship, Pickup Totals
}

// Estimate is the totals for the request's fulfilment.
func (r *Routing) Estimate() Totals {
	if r.Fulfilment == Pickup {
		return r.Pickup
	}
	return r.Ship
}

// RoutedItem is one line of a preview: the book, and every store with a
// copy of it, the routing's choice first.
type RoutedItem struct {
	Book     *books.Book
	Quantity int
	Offers   []StoreOffer
	// Choice is the index in Offers of the store the routing takes the
	// line from, -1 when no store has Quantity copies.
	Choice int
}

// StoreOffer is one store's stock of a line's book.
type StoreOffer struct {
	Item  *inventory.Item
	Store *stores.Store
	// Distance is in miles from the postal code's centroid to the
	// store; nil when either is unknown (a ZIP the dataset does not
	// hold, a store without a position).
	Distance *float64
	// InStock: the store has the line's quantity (a store with fewer
	// copies is listed, not routed to).
	InStock bool
	// Cheapest marks the routing's choice: the lowest price among the
	// stores InStock (ties: the nearer, then the lower store id).
	// Nearest marks the nearest store InStock with a known distance
	// (ties: the cheaper, then the lower store id). At most one offer
	// of a line has each.
	Cheapest, Nearest bool
}

// unknownBooks is the 400 of books that do not exist: the spec lists
// 400 alone for a preview, so an unknown id is a bad request, not a
// 404. Each is named by its field and, in details.bookIds, by id.
func unknownBooks(fields map[string]string, bookIDs []string) error {
	e := apperr.Validation("Unknown books: "+strings.Join(bookIDs, ", "), fields)
	e.Details["bookIds"] = bookIDs
	return e
}

// Preview routes req: in parallel, one read of the books and one Query
// of each book's stock (GSI3, in stock only); then one read of the
// stores found. Each line goes to the cheapest store with its quantity
// (StoreOffer.Cheapest), and the routing is priced per store as an
// order is (Pricing.PriceAll, one Shipment per store). Errors: a 400
// naming each bad field, and a 400 naming unknown books.
func (p *Previewer) Preview(ctx context.Context, req PreviewRequest) (*Routing, error) {
	if err := req.validate(); err != nil {
		return nil, err
	}
	bookIDs := make([]string, len(req.Lines))
	for i, l := range req.Lines {
		bookIDs[i] = l.BookID
	}
	var (
		found []*books.Book
		stock = make([][]*inventory.Item, len(req.Lines))
		g     errgroup.Group
	)
	g.Go(func() (err error) { found, err = p.d.Books.GetBooks(ctx, bookIDs); return err })
	for i, id := range bookIDs {
		g.Go(func() (err error) { stock[i], err = p.d.Stock.InStock(ctx, id, inventory.MaxAvailability); return err })
	}
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("preview: %w", err)
	}
	byID := make(map[string]*books.Book, len(found))
	for _, b := range found {
		byID[b.ID] = b
	}
	var unknown []string
	fields := map[string]string{}
	for i, id := range bookIDs {
		if byID[id] == nil {
			unknown = append(unknown, id)
			fields["items["+strconv.Itoa(i)+"].bookId"] = "no book has this id"
		}
	}
	if len(unknown) > 0 {
		return nil, unknownBooks(fields, unknown)
	}

	var storeIDs []string
	for _, items := range stock {
		for _, it := range items {
			storeIDs = append(storeIDs, it.StoreID)
		}
	}
	sts, err := p.d.Stores.GetStores(ctx, storeIDs)
	if err != nil {
		return nil, fmt.Errorf("preview: %w", err)
	}

	// Distances from the postal code's centroid: the same ZIP centroids
	// a store's position is derived from when it gives none.
	var from *geo.Point
	if pt, ok := geo.ZIP(req.PostalCode); ok {
		from = &pt
	}
	out := &Routing{Items: make([]RoutedItem, len(req.Lines)), Fulfilment: req.Fulfilment}
	if out.Fulfilment == "" {
		out.Fulfilment = Ship
	}
	for i, l := range req.Lines {
		out.Items[i] = routeLine(byID[l.BookID], l.Quantity, stock[i], sts, from)
	}
	out.Ship, out.Pickup = p.price(out.Items, sts, Ship), p.price(out.Items, sts, Pickup)
	return out, nil
}

// routeLine lists a line's offers, marks its choices and orders them: those
// with the quantity first, cheapest first (ties: nearer, then store
// id), so the routing's choice leads when there is one.
func routeLine(b *books.Book, qty int, items []*inventory.Item, sts map[string]*stores.Store, from *geo.Point) RoutedItem {
	ri := RoutedItem{Book: b, Quantity: qty, Offers: make([]StoreOffer, 0, len(items)), Choice: -1}
	for _, it := range items {
		st := sts[it.StoreID]
		if st == nil {
			continue // deleted since: its stock goes with it
		}
		o := StoreOffer{Item: it, Store: st, InStock: it.Quantity >= qty}
		if from != nil && st.Location != nil {
			d := geo.Miles(*from, *st.Location)
			o.Distance = &d
		}
		ri.Offers = append(ri.Offers, o)
	}
	slices.SortFunc(ri.Offers, func(a, b StoreOffer) int {
		if a.InStock != b.InStock {
			if a.InStock {
				return -1
			}
			return 1
		}
		if c := cmp.Compare(a.Item.PriceCents, b.Item.PriceCents); c != 0 {
			return c
		}
		if c := nearerFirst(a.Distance, b.Distance); c != 0 {
			return c
		}
		return cmp.Compare(a.Store.ID, b.Store.ID)
	})
	if len(ri.Offers) > 0 && ri.Offers[0].InStock {
		ri.Choice = 0
		ri.Offers[0].Cheapest = true
	}
	nearest := -1
	for i, o := range ri.Offers {
		if !o.InStock || o.Distance == nil {
			continue
		}
		// Offers are in price order already: a later one of the same
		// distance is dearer (or the same price and a higher id).
		if nearest < 0 || *o.Distance < *ri.Offers[nearest].Distance {
			nearest = i
		}
	}
	if nearest >= 0 {
		ri.Offers[nearest].Nearest = true
	}
	return ri
}

// nearerFirst orders known distances nearest first, and unknown
// ones after them.
func nearerFirst(a, b *float64) int {
	switch {
	case a != nil && b != nil:
		return cmp.Compare(*a, *b)
	case a != nil:
		return -1
	case b != nil:
		return 1
	}
	return 0
}

// price is the totals of the routed lines with every part fulfilled by
// f: one Shipment per store, at that store's tax rate, as POST /orders
// prices an order of the same lines.
func (p *Previewer) price(items []RoutedItem, sts map[string]*stores.Store, f Fulfilment) Totals {
	var order []string
	byStore := map[string]*Shipment{}
	for _, ri := range items {
		if ri.Choice < 0 {
			continue
		}
		o := ri.Offers[ri.Choice]
		s := byStore[o.Store.ID]
		if s == nil {
			s = &Shipment{Fulfilment: f, TaxRateMicros: int64(sts[o.Store.ID].TaxRateMicros)}
			byStore[o.Store.ID] = s
			order = append(order, o.Store.ID)
		}
		s.Lines = append(s.Lines, Line{Quantity: int64(ri.Quantity), PriceCents: int64(o.Item.PriceCents)})
	}
	ss := make([]Shipment, len(order))
	for i, id := range order {
		ss[i] = *byStore[id]
	}
	sum, _ := p.d.Pricing.PriceAll(ss)
	return sum
}
