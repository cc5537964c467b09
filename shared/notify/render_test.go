package notify_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bookplatform/backend/shared/notify"
	"github.com/bookplatform/backend/shared/orders"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// golden compares got with testdata/name, or writes it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "no golden file: run go test -update")
	assert.Equal(t, string(want), got, "%s differs from its golden file (go test -update rewrites it)", name)
}

// Each template renders its email: a golden file per template, text and
// HTML, with the subject heading the text's; the HTML escapes what
// stores and readers typed.
func TestRender_golden(t *testing.T) {
	o := anOrder("0190f3a0-0000-7000-8000-000000000001", "u1", "s1", "s2")
	shipped := o
	shipped.Fulfilment = append([]orders.PartData(nil), o.Fulfilment...)
	shipped.Fulfilment[0].Status, shipped.Fulfilment[0].Tracking = orders.Shipped, aTracking
	ready := o
	ready.Fulfilment = append([]orders.PartData(nil), o.Fulfilment...)
	ready.Fulfilment[1].Status = orders.ReadyForPickup
	cases := []struct {
		kind string
		data any
	}{
		{notify.KindConfirmation, notify.OrderMailOf(o, nil)},
		{notify.KindShipped, notify.OrderMailOf(shipped, &shipped.Fulfilment[0])},
		{notify.KindReadyForPickup, notify.OrderMailOf(ready, &ready.Fulfilment[1])},
		{notify.KindStoreNewOrder, notify.OrderMailOf(o, &o.Fulfilment[0])},
		{notify.KindStoreDigest, notify.DigestMail{StoreName: "North <Books> & Co", Day: "2026-11-27", TotalCents: 4462,
			UnsubscribeURL: "https://api.bookplatform.example/v1/notifications/unsubscribe?token=abc.def",
			Entries: []notify.DigestEntry{
				{OrderNumber: "BW-20261127-7K3M9Q", Items: 2, TotalCents: 3569, Fulfilment: "ship"},
				{OrderNumber: "BW-20261127-2B8C4D", Items: 1, TotalCents: 893, Fulfilment: "pickup"},
			}}},
		{notify.KindApplicationApproved, notify.ApplicationMail{StoreName: "North <Books> & Co", Reason: "Welcome aboard & good luck"}},
		{notify.KindApplicationDeclined, notify.ApplicationMail{StoreName: "North <Books> & Co", Reason: "We could not find the shop at <this> address"}},
	}
	for _, c := range cases {
		t.Run(c.kind, func(t *testing.T) {
			r, err := notify.Render(c.kind, c.data)
			require.NoError(t, err)
			golden(t, c.kind+".txt", "Subject: "+r.Subject+"\n\n"+r.Text)
			golden(t, c.kind+".html", r.HTML)
			assert.NotContains(t, r.HTML, "<Books>", "what a store typed is escaped")
			assert.NotContains(t, r.Subject, "\n")
		})
	}
}

// The confirmation lists every item and the totals.
func TestRender_confirmationHasItemsAndTotals(t *testing.T) {
	o := anOrder("0190f3a0-0000-7000-8000-000000000001", "u1", "s1", "s2")
	r, err := notify.Render(notify.KindConfirmation, notify.OrderMailOf(o, nil))
	require.NoError(t, err)
	for _, want := range []string{"2 x Dune", "1 x The Hobbit", "$12.99", "Total:    $44.62", "Tax:      $3.15", "pickup at the store"} {
		assert.True(t, strings.Contains(r.Text, want), "the text has %q:\n%s", want, r.Text)
	}
	assert.Contains(t, r.HTML, "$44.62")
}

func TestMoney(t *testing.T) {
	assert.Equal(t, "$0.05", notify.Money(5))
	assert.Equal(t, "$1234.50", notify.Money(123450))
	assert.Equal(t, "-$3.00", notify.Money(-300))
}
