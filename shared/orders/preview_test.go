package orders

import (
	"context"
	"testing"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/geo"
	"github.com/bookplatform/backend/shared/inventory"
	"github.com/bookplatform/backend/shared/stores"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// shelf is an in-memory catalog, stock and store list: the preview's
// rules (choices, ties, pricing) on their own; the API tests
// (ordersapi) run the same through the router and DynamoDB Local.
type shelf struct {
	books  map[string]*books.Book
	items  map[string][]*inventory.Item
	stores map[string]*stores.Store
}

func (s shelf) InStock(_ context.Context, bookID string, max int) ([]*inventory.Item, error) {
	return s.items[bookID], nil
}

func (s shelf) GetStores(_ context.Context, ids []string) (map[string]*stores.Store, error) {
	out := map[string]*stores.Store{}
	for _, id := range ids {
		if st := s.stores[id]; st != nil {
			out[id] = st
		}
	}
	return out, nil
}

func (s shelf) GetBooks(_ context.Context, ids []string) ([]*books.Book, error) {
	var out []*books.Book
	for _, id := range ids {
		if b := s.books[id]; b != nil {
			out = append(out, b)
		}
	}
	return out, nil
}

const (
	bookA = "aaaaaaaa-0000-4000-8000-000000000001"
	bookB = "aaaaaaaa-0000-4000-8000-000000000002"
)

// at is a store at a ZIP code's centroid (no position for "").
func at(id, zip string, taxMicros int) *stores.Store {
	st := &stores.Store{ID: id, Name: "Store " + id, Slug: "store-" + id, TaxRateMicros: taxMicros}
	if p, ok := geo.ZIP(zip); ok {
		st.Location = &p
	}
	return st
}

func stocked(storeID, bookID string, qty, price int) *inventory.Item {
	return &inventory.Item{ID: inventory.ItemID(storeID, bookID), StoreID: storeID, BookID: bookID, Quantity: qty, PriceCents: price, Condition: inventory.New}
}

func previewer(s shelf) *Previewer {
	return NewPreviewer(PreviewDeps{Stock: s, Stores: s, Books: s, Pricing: DefaultPricing})
}

func order(ri RoutedItem) []string {
	var out []string
	for _, o := range ri.Offers {
		out = append(out, o.Store.ID)
	}
	return out
}

func TestPreview_Ties(t *testing.T) {
	s := shelf{
		books: map[string]*books.Book{bookA: {ID: bookA}},
		stores: map[string]*stores.Store{
			"s1": at("s1", "98101", 0), // Seattle
			"s2": at("s2", "97209", 0), // Portland: the buyer's
			"s3": at("s3", "97209", 0), // Portland too
			"s4": at("s4", "", 0),      // no position
			"s5": at("s5", "97209", 0), // dearer, nearest too
		},
		items: map[string][]*inventory.Item{bookA: {
			stocked("s4", bookA, 1, 1000), stocked("s1", bookA, 1, 1000), stocked("s3", bookA, 1, 1000),
			stocked("s2", bookA, 1, 1000), stocked("s5", bookA, 1, 1500),
		}},
	}
	rt, err := previewer(s).Preview(t.Context(), PreviewRequest{Lines: []PreviewLine{{bookA, 1}}, PostalCode: "97209", Country: "US"})
	require.NoError(t, err)
	ri := rt.Items[0]
	// Same price: nearer first, same distance by store id, no distance last.
	assert.Equal(t, []string{"s2", "s3", "s1", "s4", "s5"}, order(ri))
	assert.Equal(t, 0, ri.Choice)
	assert.True(t, ri.Offers[0].Cheapest)
	assert.True(t, ri.Offers[0].Nearest, "the nearest tie goes to the cheaper, then the lower id")
	for _, o := range ri.Offers[1:] {
		assert.False(t, o.Cheapest || o.Nearest, o.Store.ID)
	}
	assert.Nil(t, ri.Offers[3].Distance)
}

func TestPreview_PricesTheRoutingPerStore(t *testing.T) {
	s := shelf{
		books:  map[string]*books.Book{bookA: {ID: bookA}, bookB: {ID: bookB}},
		stores: map[string]*stores.Store{"s1": at("s1", "97209", 82_500), "s2": at("s2", "98101", 100_000)},
		items: map[string][]*inventory.Item{
			bookA: {stocked("s1", bookA, 5, 1299), stocked("s2", bookA, 1, 999)},
			bookB: {stocked("s1", bookB, 2, 850)},
		},
	}
	rt, err := previewer(s).Preview(t.Context(), PreviewRequest{Lines: []PreviewLine{{bookA, 2}, {bookB, 1}}, PostalCode: "97209-1234", Country: "us"})
	require.NoError(t, err)
	// s2 is cheaper but has one copy: both lines go to s1, one shipment.
	assert.Equal(t, []string{"s1", "s2"}, order(rt.Items[0]))
	assert.False(t, rt.Items[0].Offers[1].InStock)
	want := DefaultPricing.Price(Shipment{Lines: []Line{{2, 1299}, {1, 850}}, Fulfilment: Ship, TaxRateMicros: 82_500})
	assert.Equal(t, want, rt.Ship)
	assert.Equal(t, want, rt.Estimate())
	assert.Equal(t, DefaultPricing.Price(Shipment{Lines: []Line{{2, 1299}, {1, 850}}, Fulfilment: Pickup, TaxRateMicros: 82_500}), rt.Pickup)
}

func TestPreview_UnroutableLineIsLeftOutOfTheTotals(t *testing.T) {
	s := shelf{
		books:  map[string]*books.Book{bookA: {ID: bookA}, bookB: {ID: bookB}},
		stores: map[string]*stores.Store{"s1": at("s1", "97209", 0)},
		items:  map[string][]*inventory.Item{bookA: {stocked("s1", bookA, 1, 1000)}},
	}
	rt, err := previewer(s).Preview(t.Context(), PreviewRequest{Lines: []PreviewLine{{bookA, 3}, {bookB, 1}}, PostalCode: "97209", Country: "US", Fulfilment: Pickup})
	require.NoError(t, err)
	assert.Equal(t, -1, rt.Items[0].Choice)
	assert.Empty(t, rt.Items[1].Offers)
	assert.Equal(t, Totals{}, rt.Ship)
	assert.Equal(t, Totals{}, rt.Estimate())
}

func TestPreview_DeletedStoreIsLeftOut(t *testing.T) {
	s := shelf{
		books:  map[string]*books.Book{bookA: {ID: bookA}},
		stores: map[string]*stores.Store{"s1": at("s1", "97209", 0)},
		items:  map[string][]*inventory.Item{bookA: {stocked("gone", bookA, 9, 1), stocked("s1", bookA, 1, 1000)}},
	}
	rt, err := previewer(s).Preview(t.Context(), PreviewRequest{Lines: []PreviewLine{{bookA, 1}}, PostalCode: "97209", Country: "US"})
	require.NoError(t, err)
	assert.Equal(t, []string{"s1"}, order(rt.Items[0]))
}

func TestPreview_Validation(t *testing.T) {
	s := shelf{books: map[string]*books.Book{bookA: {ID: bookA}}}
	for _, c := range []struct {
		name  string
		req   PreviewRequest
		field string
	}{
		{"no lines", PreviewRequest{PostalCode: "97209", Country: "US"}, "items"},
		{"16 lines", PreviewRequest{Lines: make([]PreviewLine, 16), PostalCode: "97209", Country: "US"}, "items"},
		{"quantity 0", PreviewRequest{Lines: []PreviewLine{{bookA, 0}}, PostalCode: "97209", Country: "US"}, "items[0].quantity"},
		{"quantity 100", PreviewRequest{Lines: []PreviewLine{{bookA, 100}}, PostalCode: "97209", Country: "US"}, "items[0].quantity"},
		{"twice", PreviewRequest{Lines: []PreviewLine{{bookA, 1}, {bookA, 1}}, PostalCode: "97209", Country: "US"}, "items[1].bookId"},
		{"no address", PreviewRequest{Lines: []PreviewLine{{bookA, 1}}}, "shippingAddress.postalCode"},
		{"ZIP+5", PreviewRequest{Lines: []PreviewLine{{bookA, 1}}, PostalCode: "97209-12345", Country: "US"}, "shippingAddress.postalCode"},
		{"GB", PreviewRequest{Lines: []PreviewLine{{bookA, 1}}, PostalCode: "SW1A 1AA", Country: "GB"}, "shippingAddress.country"},
		{"fulfilment", PreviewRequest{Lines: []PreviewLine{{bookA, 1}}, PostalCode: "97209", Country: "US", Fulfilment: "drone"}, "fulfilment"},
	} {
		_, err := previewer(s).Preview(t.Context(), c.req)
		e, ok := apperr.As(err)
		require.True(t, ok, c.name)
		assert.Equal(t, apperr.CodeValidation, e.Code, c.name)
		assert.Contains(t, e.Details["fields"], c.field, c.name)
	}
	_, err := previewer(s).Preview(t.Context(), PreviewRequest{Lines: []PreviewLine{{bookA, 1}, {bookB, 1}}, PostalCode: "97209", Country: "US"})
	e, ok := apperr.As(err)
	require.True(t, ok)
	assert.Equal(t, "Unknown books: "+bookB, e.Message)
	assert.Equal(t, []string{bookB}, e.Details["bookIds"])
}
