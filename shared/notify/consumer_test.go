package notify_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/events"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/mail"
	"github.com/bookplatform/backend/shared/notify"
	"github.com/bookplatform/backend/shared/orders"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// world is a table with a buyer and two stores (a and b, each with its
// owner), the consumer over it and what it mailed.
type world struct {
	env    *testenv.Env
	store  *dynamo.Notifications
	buyer  testenv.Account
	a, b   testenv.Shop
	mailed *recorder
	c      *notify.Consumer
	deps   notify.Deps
}

func newWorld(t *testing.T, suppressed ...string) *world {
	t.Helper()
	env := testenv.New(t)
	w := &world{env: env, store: dynamo.NewNotifications(env.App.Table), buyer: env.Signup(t, "ann_buyer"),
		a: env.OpenShop(t, "north-books", nil), b: env.OpenShop(t, "south-books", nil), mailed: newRecorder(suppressed...)}
	w.deps = notify.Deps{Store: w.store, Sender: w.mailed, Records: dynamo.NewIdempotency(env.App.Table), Now: env.App.Now}
	w.c = notify.NewConsumer(w.deps)
	return w
}

func (w *world) order() orders.Data { return anOrder(ids.New(), w.buyer.ID, w.a.ID, w.b.ID) }

func (w *world) settings(t *testing.T, shop testenv.Shop, n notify.NewOrderEmail, email string) {
	t.Helper()
	require.NoError(t, w.store.PutSettings(t.Context(), notify.Settings{StoreID: shop.ID, NewOrderEmail: n, Email: email, UpdatedAt: time.Now()}))
}

func updated(t *testing.T, o orders.Data) events.Event {
	t.Helper()
	ev, err := orders.UpdatedEvent.New(o.UpdatedAt, o)
	require.NoError(t, err)
	return ev
}

// A confirmed order mails the buyer's confirmation and each store's
// new-order email (store b's to the address of its settings); the event
// again, or a later one still showing those statuses, mails nothing more;
// a part shipped then mails its notice alone, with its tracking; a part
// ready for pickup its own.
func TestConsumer_eachEmailOnce(t *testing.T) {
	w := newWorld(t)
	w.settings(t, w.b, notify.Immediate, "orders@south.example")
	o := w.order()
	ev := updated(t, o)
	for range 2 {
		require.NoError(t, w.c.Consume(t.Context(), ev))
	}
	assert.Equal(t, map[string][]string{
		notify.KindConfirmation:  {w.buyer.Email},
		notify.KindStoreNewOrder: {w.a.Owner.Email, "orders@south.example"},
	}, w.mailed.byTag())

	shipped := o
	shipped.Fulfilment = append([]orders.PartData(nil), o.Fulfilment...)
	shipped.Fulfilment[0].Status, shipped.Fulfilment[0].Tracking = orders.Shipped, aTracking
	shipped.UpdatedAt = o.UpdatedAt.Add(time.Hour)
	for range 2 {
		require.NoError(t, w.c.Consume(t.Context(), updated(t, shipped)))
	}
	ready := shipped
	ready.Fulfilment = append([]orders.PartData(nil), shipped.Fulfilment...)
	ready.Fulfilment[1].Status = orders.ReadyForPickup
	ready.UpdatedAt = shipped.UpdatedAt.Add(time.Hour)
	require.NoError(t, w.c.Consume(t.Context(), updated(t, ready)))

	got := w.mailed.byTag()
	assert.Equal(t, []string{w.buyer.Email}, got[notify.KindShipped])
	assert.Equal(t, []string{w.buyer.Email}, got[notify.KindReadyForPickup])
	assert.Len(t, got[notify.KindConfirmation], 1)
	assert.Len(t, got[notify.KindStoreNewOrder], 2)
	for _, m := range w.mailed.messages() {
		assert.NotEmpty(t, m.Text, m.Tag)
		assert.NotEmpty(t, m.HTML, m.Tag)
		if m.Tag == notify.KindShipped {
			assert.Contains(t, m.Text, aTracking.TrackingNumber)
			assert.Contains(t, m.Subject, "North <Books> & Co")
		}
		if m.Tag == notify.KindReadyForPickup {
			assert.Contains(t, m.Subject, "South Books")
		}
	}
}

// A pending order (order.created) mails nothing; nor do events of other
// types.
func TestConsumer_pendingAndOtherEventsMailNothing(t *testing.T) {
	w := newWorld(t)
	o := w.order()
	o.Status, o.ConfirmedAt = orders.Pending, nil
	for i := range o.Fulfilment {
		o.Fulfilment[i].Status = orders.Pending
	}
	ev, err := orders.CreatedEvent.New(o.UpdatedAt, o)
	require.NoError(t, err)
	require.NoError(t, w.c.Consume(t.Context(), ev))
	other, err := events.Declaration{Type: "store.followed", Version: 1, Data: map[string]string{}}.New(time.Now(), map[string]string{"storeId": w.a.ID})
	require.NoError(t, err)
	require.NoError(t, w.c.Consume(t.Context(), other))
	assert.Empty(t, w.mailed.messages())
}

// Nothing goes to a suppressed address, whether the check or the send
// finds it: the email is skipped, not retried (no error), and the
// others are sent.
func TestConsumer_suppressedAddressGetsNothing(t *testing.T) {
	w := newWorld(t)
	w.mailed.suppressed[w.buyer.Email] = true
	require.NoError(t, w.c.Consume(t.Context(), updated(t, w.order())))
	assert.Equal(t, map[string][]string{notify.KindStoreNewOrder: {w.a.Owner.Email, w.b.Owner.Email}}, w.mailed.byTag())

	// Suppressed between the check and the send (SES refuses it).
	w2 := newWorld(t)
	w2.c = notify.NewConsumer(notify.Deps{Store: w2.store, Sender: lateSuppression{w2.mailed, w2.buyer.Email},
		Records: dynamo.NewIdempotency(w2.env.App.Table)})
	require.NoError(t, w2.c.Consume(t.Context(), updated(t, w2.order())))
	assert.NotContains(t, w2.mailed.byTag(), notify.KindConfirmation)
}

// lateSuppression reports nobody suppressed, then refuses address's send.
type lateSuppression struct {
	*recorder
	address string
}

func (l lateSuppression) Send(ctx context.Context, m mail.Message) (string, error) {
	if m.To == l.address {
		return "", mail.ErrSuppressed
	}
	return l.recorder.Send(ctx, m)
}

func (l lateSuppression) Suppressed(context.Context, string) (bool, error) { return false, nil }

// A send that fails fails the event (the relay retries it): the retry
// sends what failed, and nothing sent already a second time.
func TestConsumer_aFailedSendIsRetriedAlone(t *testing.T) {
	w := newWorld(t)
	down := true
	w.mailed.fail = func(m mail.Message) error {
		if down && m.Tag == notify.KindStoreNewOrder {
			return errors.New("SES: throttled")
		}
		return nil
	}
	ev := updated(t, w.order())
	err := w.c.Consume(t.Context(), ev)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "throttled")
	assert.Equal(t, map[string][]string{notify.KindConfirmation: {w.buyer.Email}}, w.mailed.byTag())

	down = false
	require.NoError(t, w.c.Consume(t.Context(), ev))
	assert.Equal(t, map[string][]string{
		notify.KindConfirmation:  {w.buyer.Email},
		notify.KindStoreNewOrder: {w.a.Owner.Email, w.b.Owner.Email},
	}, w.mailed.byTag())
}

// A store set to off hears nothing; one set to daily gets no email but
// an entry of its digest of the confirmation's day; the buyer's
// confirmation goes all the same.
func TestConsumer_storeSettingsDecide(t *testing.T) {
	w := newWorld(t)
	w.settings(t, w.a, notify.Off, "")
	w.settings(t, w.b, notify.Daily, "")
	o := w.order()
	for range 2 {
		require.NoError(t, w.c.Consume(t.Context(), updated(t, o)))
	}
	assert.Equal(t, map[string][]string{notify.KindConfirmation: {w.buyer.Email}}, w.mailed.byTag())

	stores, err := w.store.DigestStores(t.Context(), "2026-11-27")
	require.NoError(t, err)
	assert.Equal(t, []string{w.b.ID}, stores)
	entries, err := w.store.DigestEntries(t.Context(), w.b.ID, "2026-11-27")
	require.NoError(t, err)
	require.Len(t, entries, 1)
	assert.Equal(t, notify.DigestEntry{StoreID: w.b.ID, Day: "2026-11-27", OrderID: o.ID, OrderNumber: o.OrderNumber, Items: 1,
		TotalCents: 893, Fulfilment: "pickup", At: confirmedAt}, entries[0])
}
