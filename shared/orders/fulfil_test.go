package orders

import (
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func parts(ss ...Status) []Part {
	out := make([]Part, len(ss))
	for i, s := range ss {
		out[i] = Part{StoreID: strconv.Itoa(i), Status: s}
	}
	return out
}

// The order's status its parts make: shipped once every part has left
// its store (picked up counts, ready for pickup does not), delivered
// once every part is delivered or picked up.
func TestStatusOfParts(t *testing.T) {
	for _, c := range []struct {
		parts []Status
		want  Status
	}{
		{[]Status{Confirmed, Confirmed}, Confirmed},
		{[]Status{Shipped, Confirmed}, Confirmed},
		{[]Status{Shipped, ReadyForPickup}, Confirmed},
		{[]Status{Shipped, Shipped}, Shipped},
		{[]Status{Shipped, PickedUp}, Shipped},
		{[]Status{Delivered, Shipped}, Shipped},
		{[]Status{Delivered, PickedUp}, Delivered},
		{[]Status{PickedUp}, Delivered},
		{[]Status{ReadyForPickup}, Confirmed},
	} {
		assert.Equal(t, c.want, StatusOfParts(parts(c.parts...)), "%v", c.parts)
	}
}

func TestAdvance_Rules(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	o := &Order{ID: "o", Status: Confirmed, Version: 2, Parts: []Part{
		{StoreID: "s", Fulfilment: Ship, Status: Confirmed}, {StoreID: "p", Fulfilment: Pickup, Status: Confirmed}}}
	tr := &Tracking{Carrier: " USPS ", TrackingNumber: "1"}

	next, err := Advance(o, "s", StepShip, tr, now)
	require.NoError(t, err)
	assert.Equal(t, Shipped, next.Part("s").Status)
	assert.Equal(t, "USPS", next.Part("s").Tracking.Carrier, "trimmed")
	assert.Equal(t, Confirmed, next.Status)
	assert.Equal(t, 3, next.Version)
	assert.Equal(t, Confirmed, o.Part("s").Status, "the order read is left as it was")

	_, err = Advance(o, "s", StepDelivered, nil, now)
	assert.ErrorContains(t, err, "Order part is confirmed: cannot delivered")
	_, err = Advance(o, "p", StepShip, tr, now)
	assert.ErrorContains(t, err, "fulfilled by pickup")
	_, err = Advance(o, "s", StepShip, &Tracking{TrackingNumber: "1", TrackingURL: "javascript:x"}, now)
	var ae *apperr.Error
	require.True(t, errors.As(err, &ae))
	assert.Equal(t, apperr.CodeValidation, ae.Code)
	_, err = Advance(o, "x", StepShip, tr, now)
	assert.ErrorIs(t, err, ErrPartNotFound)

	cancelled := &Order{Status: Cancelled, Parts: []Part{{StoreID: "s", Fulfilment: Ship, Status: Cancelled}}}
	_, err = Advance(cancelled, "s", StepShip, tr, now)
	assert.ErrorContains(t, err, "Order part is cancelled")
}

// The owner cancels until a part has left its store; an operator
// refunds a paid order once one has.
func TestCancellableAndRefundable(t *testing.T) {
	o := &Order{Status: Confirmed, Parts: parts(Confirmed, ReadyForPickup)}
	assert.True(t, o.CancellableByOwner(), "a part ready for pickup is still on the shelf")
	assert.False(t, o.Refundable())
	o.Parts = parts(Shipped, Confirmed)
	assert.ErrorIs(t, o.CancelRefusal(), ErrHandedOver)
	assert.True(t, o.Refundable())
	o.Status, o.Parts = Delivered, parts(Delivered)
	assert.True(t, o.Refundable())
	assert.ErrorIs(t, o.CancelRefusal(), ErrNotCancellable)
	o.Status, o.Parts = Refunded, parts(Refunded)
	assert.False(t, o.Refundable())
}

func TestCheckStoreCount(t *testing.T) {
	var ids []string
	for i := range MaxOrderStores {
		ids = append(ids, strconv.Itoa(i), strconv.Itoa(i))
	}
	assert.NoError(t, CheckStoreCount(ids))
	assert.ErrorContains(t, CheckStoreCount(append(ids, "one more")), "Invalid request")
}
