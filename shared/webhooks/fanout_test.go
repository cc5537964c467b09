package webhooks

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/bookplatform/backend/shared/applications"
	"github.com/bookplatform/backend/shared/events"
	"github.com/bookplatform/backend/shared/orders"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An order of two stores is fanned out to both, each seeing only its
// own items, part, totals and tracking, and not the buyer's payment
// session; a pickup part's store does not get the shipping address.
func TestStoreView_anOrderShowsTheStoreItsOwnPart(t *testing.T) {
	d := orders.Data{ID: "o1", Status: "confirmed", CheckoutSessionID: "cs_1", TotalCents: 3000,
		ShippingAddress: &orders.Address{},
		Items:           []orders.ItemData{{ID: "i1", StoreID: "s1", PriceCents: 1000}, {ID: "i2", StoreID: "s2", PriceCents: 2000}},
		Fulfilment: []orders.PartData{
			{StoreID: "s1", Fulfilment: orders.Ship, Totals: orders.Totals{TotalCents: 1000}, Tracking: &orders.Tracking{Carrier: "UPS"}},
			{StoreID: "s2", Fulfilment: orders.Pickup, Totals: orders.Totals{TotalCents: 2000}},
		}}
	ev, err := orders.UpdatedEvent.New(time.Now(), d)
	require.NoError(t, err)

	targets, err := targetsOf(ev)
	require.NoError(t, err)
	assert.Equal(t, []target{{storeID: "s1"}, {storeID: "s2"}}, targets)

	view := func(store string) orders.Data {
		b, err := StoreView(ev, store)
		require.NoError(t, err)
		var env events.Event
		require.NoError(t, json.Unmarshal(b, &env))
		assert.Equal(t, ev.ID, env.ID)
		assert.Equal(t, ev.Type, env.Type)
		var got orders.Data
		require.NoError(t, json.Unmarshal(env.Data, &got))
		return got
	}
	s1 := view("s1")
	require.Len(t, s1.Items, 1)
	assert.Equal(t, "i1", s1.Items[0].ID)
	require.Len(t, s1.Fulfilment, 1)
	assert.Equal(t, int64(1000), s1.TotalCents)
	assert.Equal(t, "UPS", s1.Tracking.Carrier)
	assert.NotNil(t, s1.ShippingAddress)
	assert.Empty(t, s1.CheckoutSessionID)
	s2 := view("s2")
	require.Len(t, s2.Items, 1)
	assert.Equal(t, "i2", s2.Items[0].ID)
	assert.Equal(t, int64(2000), s2.TotalCents)
	assert.Nil(t, s2.Tracking)
	assert.Nil(t, s2.ShippingAddress, "a pickup part does not ship")
}

// A test event goes to the one endpoint it names; types no endpoint
// subscribes to concern no store.
func TestTargets(t *testing.T) {
	ev, err := TestEvent.New(time.Now(), TestData{StoreID: "s1", EndpointID: "e1"})
	require.NoError(t, err)
	got, err := targetsOf(ev)
	require.NoError(t, err)
	assert.Equal(t, []target{{storeID: "s1", endpointID: "e1"}}, got)

	other := events.Event{ID: "x", Type: "user.followed", Version: 1, Data: json.RawMessage(`{}`)}
	got, err = targetsOf(other)
	require.NoError(t, err)
	assert.Empty(t, got)

	// A bookstore application's decision is the applicant's email alone:
	// no store's endpoint gets it, nor may subscribe to it.
	decided, err := applications.DecidedEvent.New(time.Now(), applications.DecidedData{ApplicationID: "a1", UserID: "u1", Status: applications.Approved})
	require.NoError(t, err)
	got, err = targetsOf(decided)
	require.NoError(t, err)
	assert.Empty(t, got)
	_, msg := CheckEvents([]string{string(applications.DecidedEvent.Type)})
	assert.NotEmpty(t, msg)
}
