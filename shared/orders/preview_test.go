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

// previewShelf is an in-memory catalog, stock and store list: the preview's
// rules (choices, ties, pricing) on their own; the API tests
// (ordersapi) run the same through the router and DynamoDB Local.
type previewShelf struct {
	books  map[string]*books.Book
	items  map[string][]*inventory.Item
	stores map[string]*stores.Store
}

func (s previewShelf) InStock(_ context.Context, bookID string, max int) ([]*inventory.Item, error) {
	return s.items[bookID], nil
}

func (s previewShelf) GetStores(_ context.Context, ids []string) (map[string]*stores.Store, error) {
	out := map[string]*stores.Store{}
	for _, id := range ids {
		if st := s.stores[id]; st != nil {
			out[id] = st
		}
	}
	return out, nil
}

func (s previewShelf) GetBooks(_ context.Context, ids []string) ([]*books.Book, error) {
	var out []*books.Book
	for _, id := range ids {
		if b := s.books[id]; b != nil {
			out = append(out, b)
		}
	}
	return out, nil
}

const (
	previewBookA = "aaaaaaaa-0000-4000-8000-000000000001"
	previewBookB = "aaaaaaaa-0000-4000-8000-000000000002"
)

// storeAt is a store at a ZIP code's centroid (no position for "").
func storeAt(id, zip string, taxMicros int) *stores.Store {
	st := &stores.Store{ID: id, Name: "Store " + id, Slug: "store-" + id, TaxRateMicros: taxMicros}
	if p, ok := geo.ZIP(zip); ok {
		st.Location = &p
	}
	return st
}

func stockedItem(storeID, bookID string, qty, price int) *inventory.Item {
	return &inventory.Item{ID: inventory.ItemID(storeID, bookID), StoreID: storeID, BookID: bookID, Quantity: qty, PriceCents: price, Condition: inventory.New}
}

func testPreviewer(s previewShelf) *Previewer {
	return NewPreviewer(PreviewDeps{Stock: s, Stores: s, Books: s, Pricing: DefaultPricing})
}

func storeOrder(ri RoutedItem) []string {
	var out []string
	for _, o := range ri.Offers {
		out = append(out, o.Store.ID)
	}
	return out
}

func TestPreview_Ties(t *testing.T) {
	s := previewShelf{
		books: map[string]*books.Book{previewBookA: {ID: previewBookA}},
		stores: map[string]*stores.Store{
			"s1": storeAt("s1", "98101", 0), // Seattle
			"s2": storeAt("s2", "97209", 0), // Portland: the buyer's
			"s3": storeAt("s3", "97209", 0), // Portland too
			"s4": storeAt("s4", "", 0),      // no position
			"s5": storeAt("s5", "97209", 0), // dearer, nearest too
		},
		items: map[string][]*inventory.Item{previewBookA: {
			stockedItem("s4", previewBookA, 1, 1000), stockedItem("s1", previewBookA, 1, 1000), stockedItem("s3", previewBookA, 1, 1000),
			stockedItem("s2", previewBookA, 1, 1000), stockedItem("s5", previewBookA, 1, 1500),
		}},
	}
	rt, err := testPreviewer(s).Preview(t.Context(), PreviewRequest{Lines: []PreviewLine{{previewBookA, 1}}, PostalCode: "97209", Country: "US"})
	require.NoError(t, err)
	ri := rt.Items[0]
	// Same price: nearer first, same distance by store id, no distance last.
	assert.Equal(t, []string{"s2", "s3", "s1", "s4", "s5"}, storeOrder(ri))
	assert.Equal(t, 0, ri.Choice)
	assert.True(t, ri.Offers[0].Cheapest)
	assert.True(t, ri.Offers[0].Nearest, "the nearest tie goes to the cheaper, then the lower id")
	for _, o := range ri.Offers[1:] {
		assert.False(t, o.Cheapest || o.Nearest, o.Store.ID)
	}
	assert.Nil(t, ri.Offers[3].Distance)
}

func TestPreview_PricesTheRoutingPerStore(t *testing.T) {
	s := previewShelf{
		books:  map[string]*books.Book{previewBookA: {ID: previewBookA}, previewBookB: {ID: previewBookB}},
		stores: map[string]*stores.Store{"s1": storeAt("s1", "97209", 82_500), "s2": storeAt("s2", "98101", 100_000)},
		items: map[string][]*inventory.Item{
			previewBookA: {stockedItem("s1", previewBookA, 5, 1299), stockedItem("s2", previewBookA, 1, 999)},
			previewBookB: {stockedItem("s1", previewBookB, 2, 850)},
		},
	}
	rt, err := testPreviewer(s).Preview(t.Context(), PreviewRequest{Lines: []PreviewLine{{previewBookA, 2}, {previewBookB, 1}}, PostalCode: "97209-1234", Country: "us"})
	require.NoError(t, err)
	// s2 is cheaper but has one copy: both lines go to s1, one shipment.
	assert.Equal(t, []string{"s1", "s2"}, storeOrder(rt.Items[0]))
	assert.False(t, rt.Items[0].Offers[1].InStock)
	want := DefaultPricing.Price(Shipment{Lines: []Line{{2, 1299}, {1, 850}}, Fulfilment: Ship, TaxRateMicros: 82_500})
	assert.Equal(t, want, rt.Ship)
	assert.Equal(t, want, rt.Estimate())
	assert.Equal(t, DefaultPricing.Price(Shipment{Lines: []Line{{2, 1299}, {1, 850}}, Fulfilment: Pickup, TaxRateMicros: 82_500}), rt.Pickup)
}

func TestPreview_UnroutableLineIsLeftOutOfTheTotals(t *testing.T) {
	s := previewShelf{
		books:  map[string]*books.Book{previewBookA: {ID: previewBookA}, previewBookB: {ID: previewBookB}},
		stores: map[string]*stores.Store{"s1": storeAt("s1", "97209", 0)},
		items:  map[string][]*inventory.Item{previewBookA: {stockedItem("s1", previewBookA, 1, 1000)}},
	}
	rt, err := testPreviewer(s).Preview(t.Context(), PreviewRequest{Lines: []PreviewLine{{previewBookA, 3}, {previewBookB, 1}}, PostalCode: "97209", Country: "US", Fulfilment: Pickup})
	require.NoError(t, err)
	assert.Equal(t, -1, rt.Items[0].Choice)
	assert.Empty(t, rt.Items[1].Offers)
	assert.Equal(t, Totals{}, rt.Ship)
	assert.Equal(t, Totals{}, rt.Estimate())
}

func TestPreview_DeletedStoreIsLeftOut(t *testing.T) {
	s := previewShelf{
		books:  map[string]*books.Book{previewBookA: {ID: previewBookA}},
		stores: map[string]*stores.Store{"s1": storeAt("s1", "97209", 0)},
		items:  map[string][]*inventory.Item{previewBookA: {stockedItem("gone", previewBookA, 9, 1), stockedItem("s1", previewBookA, 1, 1000)}},
	}
	rt, err := testPreviewer(s).Preview(t.Context(), PreviewRequest{Lines: []PreviewLine{{previewBookA, 1}}, PostalCode: "97209", Country: "US"})
	require.NoError(t, err)
	assert.Equal(t, []string{"s1"}, storeOrder(rt.Items[0]))
}

func TestPreview_Validation(t *testing.T) {
	s := previewShelf{books: map[string]*books.Book{previewBookA: {ID: previewBookA}}}
	for _, c := range []struct {
		name  string
		req   PreviewRequest
		field string
	}{
		{"no lines", PreviewRequest{PostalCode: "97209", Country: "US"}, "items"},
		{"16 lines", PreviewRequest{Lines: make([]PreviewLine, 16), PostalCode: "97209", Country: "US"}, "items"},
		{"quantity 0", PreviewRequest{Lines: []PreviewLine{{previewBookA, 0}}, PostalCode: "97209", Country: "US"}, "items[0].quantity"},
		{"quantity 100", PreviewRequest{Lines: []PreviewLine{{previewBookA, 100}}, PostalCode: "97209", Country: "US"}, "items[0].quantity"},
		{"twice", PreviewRequest{Lines: []PreviewLine{{previewBookA, 1}, {previewBookA, 1}}, PostalCode: "97209", Country: "US"}, "items[1].bookId"},
		{"no address", PreviewRequest{Lines: []PreviewLine{{previewBookA, 1}}}, "shippingAddress.postalCode"},
		{"ZIP+5", PreviewRequest{Lines: []PreviewLine{{previewBookA, 1}}, PostalCode: "97209-12345", Country: "US"}, "shippingAddress.postalCode"},
		{"GB", PreviewRequest{Lines: []PreviewLine{{previewBookA, 1}}, PostalCode: "SW1A 1AA", Country: "GB"}, "shippingAddress.country"},
		{"fulfilment", PreviewRequest{Lines: []PreviewLine{{previewBookA, 1}}, PostalCode: "97209", Country: "US", Fulfilment: "drone"}, "fulfilment"},
	} {
		_, err := testPreviewer(s).Preview(t.Context(), c.req)
		e, ok := apperr.As(err)
		require.True(t, ok, c.name)
		assert.Equal(t, apperr.CodeValidation, e.Code, c.name)
		assert.Contains(t, e.Details["fields"], c.field, c.name)
	}
	_, err := testPreviewer(s).Preview(t.Context(), PreviewRequest{Lines: []PreviewLine{{previewBookA, 1}, {previewBookB, 1}}, PostalCode: "97209", Country: "US"})
	e, ok := apperr.As(err)
	require.True(t, ok)
	assert.Equal(t, "Unknown books: "+previewBookB, e.Message)
	assert.Equal(t, []string{previewBookB}, e.Details["bookIds"])
}
