package notify_test

import (
	"context"
	"sync"
	"time"

	"github.com/bookplatform/backend/shared/mail"
	"github.com/bookplatform/backend/shared/orders"
)

var confirmedAt = time.Date(2026, 11, 27, 15, 4, 5, 0, time.UTC)

// anOrder is a confirmed order of two store parts, the first shipped,
// the second a pickup, with a title to escape in HTML; storeA and storeB
// are its stores' ids, buyer its buyer's.
func anOrder(id, buyer, storeA, storeB string) orders.Data {
	at := confirmedAt
	return orders.Data{
		ID: id, OrderNumber: "BW-20261127-7K3M9Q", UserID: buyer, Status: orders.Confirmed,
		Items: []orders.ItemData{
			{ID: id + "-1", BookID: "b1", Book: orders.BookData{ID: "b1", ISBN: "9780441172719", Title: "Dune", Authors: []string{"Frank Herbert"}},
				Quantity: 2, PriceCents: 1299, Condition: "used_good", StoreID: storeA, StoreName: "North <Books> & Co", StoreSlug: "north-books"},
			{ID: id + "-2", BookID: "b2", Book: orders.BookData{ID: "b2", ISBN: "9780547928227", Title: "The Hobbit", Authors: []string{"J. R. R. Tolkien"}},
				Quantity: 1, PriceCents: 850, Condition: "new", StoreID: storeB, StoreName: "South Books", StoreSlug: "south-books"},
		},
		Fulfilment: []orders.PartData{
			{StoreID: storeA, StoreName: "North <Books> & Co", StoreSlug: "north-books", Fulfilment: orders.Ship, Status: orders.Confirmed,
				Totals: orders.Totals{SubtotalCents: 2598, ShippingCents: 699, TaxCents: 272, TotalCents: 3569}},
			{StoreID: storeB, StoreName: "South Books", StoreSlug: "south-books", Fulfilment: orders.Pickup, Status: orders.Confirmed,
				Totals: orders.Totals{SubtotalCents: 850, ShippingCents: 0, TaxCents: 43, TotalCents: 893}},
		},
		SubtotalCents: 3448, ShippingCents: 699, TaxCents: 315, TotalCents: 4462,
		ShippingAddress: &orders.Address{Name: "Ann Reader", AddressLine1: "2 Oak Ave", City: "Portland", State: "OR", PostalCode: "97205", Country: "US"},
		PaymentStatus:   orders.PayCaptured, CreatedAt: at.Add(-time.Minute), UpdatedAt: at, ConfirmedAt: &at,
	}
}

var aTracking = &orders.Tracking{Carrier: "USPS", TrackingNumber: "9400100000000000000000",
	TrackingURL: "https://tools.usps.com/go/TrackConfirmAction?tLabels=9400100000000000000000"}

// recorder is a mail.Sender that records what it is given; addresses in
// suppressed are refused as SES refuses them, and fail, when set, fails
// a send.
type recorder struct {
	mu         sync.Mutex
	sent       []mail.Message
	suppressed map[string]bool
	fail       func(mail.Message) error
}

func newRecorder(suppressed ...string) *recorder {
	r := &recorder{suppressed: map[string]bool{}}
	for _, a := range suppressed {
		r.suppressed[a] = true
	}
	return r
}

func (r *recorder) Send(_ context.Context, m mail.Message) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.suppressed[m.To] {
		return "", mail.ErrSuppressed
	}
	if r.fail != nil {
		if err := r.fail(m); err != nil {
			return "", err
		}
	}
	r.sent = append(r.sent, m)
	return "msg-" + m.Tag, nil
}

func (r *recorder) Suppressed(_ context.Context, addr string) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.suppressed[addr], nil
}

func (r *recorder) messages() []mail.Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]mail.Message(nil), r.sent...)
}

// byTag lists the recipients of each kind of email sent.
func (r *recorder) byTag() map[string][]string {
	out := map[string][]string{}
	for _, m := range r.messages() {
		out[m.Tag] = append(out[m.Tag], m.To)
	}
	return out
}
