package webhookdeliveryapi_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/maillocal"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/events"
	"github.com/bookplatform/backend/shared/notify"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Events out end to end, every part as it runs on the local stack: an
// owner registers an endpoint through the API, a reader orders, the
// payment is confirmed and the store ships; the relay (its registered
// consumers) fans the order's events out to the webhooks queue and to
// email, the worker delivers them signed, and the SES stand-in receives
// the emails. Each event reaches the endpoint once and verifies with the
// secret the API gave; the buyer gets the confirmation and the shipped
// notice once each and the store its new-order email once; the owner sees
// the deliveries succeeded and a redelivery sends the same event again.
func TestEventsOut_OrderToEndpointAndMail(t *testing.T) {
	env := newEnv(t, testenv.WithMail())
	rc := newReceiver(t, nil)
	s := env.OpenShop(t, "events-out", map[string]any{"taxRate": 0.05})
	res := env.Do("POST", "/v1/stores/events-out/webhooks", map[string]any{"url": rc.URL + "/hook", "events": []string{"order.created", "order.updated"}}, s.Owner.Token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
	endpointID, secret := res.JSON["id"].(string), res.JSON["secret"].(string)

	stock(t, env, s)
	inv := env.Do("GET", "/v1/inventory?storeId="+s.ID, nil, s.Owner.Token)
	require.Equal(t, http.StatusOK, inv.Status, "%s", inv)
	itemID := inv.JSON["items"].([]any)[0].(map[string]any)["id"].(string)
	reader := env.Signup(t, "events_out_reader")
	order := env.Do("POST", "/v1/orders", map[string]any{"paymentMethodId": "pm_card_visa",
		"items": []any{map[string]any{"inventoryId": itemID, "quantity": 2}},
		"shippingAddress": map[string]any{"name": "Ann Reader", "addressLine1": "2 Oak Ave", "city": "Portland", "state": "OR",
			"postalCode": "97205", "country": "US"}}, reader.Token)
	require.Equal(t, http.StatusCreated, order.Status, "%s", order)
	orderID := order.JSON["id"].(string)
	require.Equal(t, http.StatusOK, env.Do("POST", "/v1/orders/confirm", map[string]any{"sessionId": order.JSON["checkoutSessionId"]}, "").Status)
	ship := env.Do("POST", "/v1/stores/events-out/orders/"+orderID+"/ship", map[string]any{"carrier": "USPS", "trackingNumber": "9400 1000 0000 0000 0000 00"}, s.Owner.Token)
	require.Equal(t, http.StatusOK, ship.Status, "%s", ship)

	// created, confirmed, shipped: three events, each once.
	got := rc.waitFor(t, "/hook", 3)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	wantMail := map[string]string{reader.Email: notify.KindConfirmation, s.Owner.Email: notify.KindStoreNewOrder}
	for to, kind := range wantMail {
		_, err := env.Mail.WaitFor(ctx, func(m maillocal.Message) bool { return m.SentTo(to) && m.Kind() == kind })
		require.NoError(t, err, "%s to %s", kind, to)
	}
	_, err := env.Mail.WaitFor(ctx, func(m maillocal.Message) bool { return m.SentTo(reader.Email) && m.Kind() == notify.KindShipped })
	require.NoError(t, err, "the shipped notice")
	env.WaitDelivered(t, len(env.Outbox(t)))
	time.Sleep(300 * time.Millisecond) // anything more would have arrived by now

	got = rc.requests("/hook")
	require.Len(t, got, 3, "each order event once")
	var types []events.Type
	seen := map[string]bool{}
	for _, r := range got {
		ev := verify(t, r, secret)
		assert.False(t, seen[ev.ID], "event %s delivered twice", ev.ID)
		seen[ev.ID] = true
		types = append(types, ev.Type)
	}
	assert.ElementsMatch(t, []events.Type{"order.created", "order.updated", "order.updated"}, types)
	count := map[string]int{}
	for _, m := range env.Mail.Messages() {
		for _, r := range m.Recipients {
			count[r.Address+" "+m.Kind()]++
		}
	}
	assert.Equal(t, map[string]int{
		reader.Email + " " + notify.KindConfirmation: 1, reader.Email + " " + notify.KindShipped: 1,
		s.Owner.Email + " " + notify.KindStoreNewOrder: 1,
	}, count, "each email once")

	// The owner's view of the deliveries, and a redelivery of the first.
	list := env.Do("GET", "/v1/stores/events-out/webhooks/"+endpointID+"/deliveries", nil, s.Owner.Token)
	require.Equal(t, http.StatusOK, list.Status, "%s", list)
	ds := list.JSON["items"].([]any)
	require.Len(t, ds, 3)
	for _, d := range ds {
		assert.Equal(t, "succeeded", d.(map[string]any)["status"], "%v", d)
	}
	first := ds[len(ds)-1].(map[string]any)
	re := env.Do("POST", "/v1/stores/events-out/webhooks/"+endpointID+"/deliveries/"+first["id"].(string)+"/redeliver", nil, s.Owner.Token)
	require.Equal(t, http.StatusAccepted, re.Status, "%s", re)
	again := rc.waitFor(t, "/hook", 4)[3]
	assert.Equal(t, first["eventId"], verify(t, again, secret).ID, "the redelivery sends the same event")
	assert.Eventually(t, func() bool {
		d := env.Do("GET", "/v1/stores/events-out/webhooks/"+endpointID+"/deliveries/"+first["id"].(string), nil, s.Owner.Token)
		return d.Status == http.StatusOK && d.JSON["status"] == "succeeded" && d.JSON["attempts"] == float64(2)
	}, 10*time.Second, 50*time.Millisecond, "the redelivered delivery is succeeded after its second attempt")
}
