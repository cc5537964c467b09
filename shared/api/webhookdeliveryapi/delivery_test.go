package webhookdeliveryapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/events"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/queues"
	"github.com/bookplatform/backend/shared/relay/registry"
	"github.com/bookplatform/backend/shared/webhooks"
	"github.com/bookplatform/backend/shared/webhooks/webhooksrelay"
	gdynamo "github.com/guregu/dynamo/v2"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// endpointItem is an endpoint as stored (dynamo's webhookEndpointItem):
// the tests put endpoints directly, the owner's routes being another
// group's.
type endpointItem struct {
	PK                      string     `dynamo:"PK"`
	SK                      string     `dynamo:"SK"`
	Type                    string     `dynamo:"type"`
	ID                      string     `dynamo:"id"`
	StoreID                 string     `dynamo:"storeId"`
	URL                     string     `dynamo:"url"`
	Events                  []string   `dynamo:"events,omitempty"`
	Status                  string     `dynamo:"status"`
	DisabledReason          string     `dynamo:"disabledReason,omitempty"`
	Secret                  string     `dynamo:"secret"`
	PreviousSecret          string     `dynamo:"previousSecret,omitempty"`
	PreviousSecretExpiresAt *time.Time `dynamo:"previousSecretExpiresAt,omitempty"`
	ConsecutiveFailures     int        `dynamo:"consecutiveFailures"`
	CreatedAt               time.Time  `dynamo:"createdAt"`
	UpdatedAt               time.Time  `dynamo:"updatedAt"`
	Version                 int        `dynamo:"version"`
}

// putEndpoint stores an endpoint of storeID at url, active unless
// changed by edit, and returns it as read back.
func putEndpoint(t *testing.T, env *testenv.Env, storeID, url string, edit func(*endpointItem)) *webhooks.Endpoint {
	t.Helper()
	id := ids.New()
	k := dynamo.WebhookEndpointKey(storeID, id)
	now := time.Now().UTC()
	it := endpointItem{PK: k.PK, SK: k.SK, Type: "WebhookEndpoint", ID: id, StoreID: storeID, URL: url, Status: "active",
		Secret: webhooks.NewSecret(), CreatedAt: now, UpdatedAt: now, Version: 1}
	if edit != nil {
		edit(&it)
	}
	db := gdynamo.NewFromIface(env.App.DB)
	require.NoError(t, db.Table(env.Config.TableName).Put(it).Run(context.Background()))
	e, err := dynamo.NewWebhooks(env.App.Table).Endpoint(context.Background(), storeID, id)
	require.NoError(t, err)
	return e
}

// received is one request a receiver got.
type received struct {
	Path   string
	Header http.Header
	Body   []byte
	At     time.Time
}

// receiver is an httptest server recording every request; status
// decides each answer (nil: 204).
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	got    []received
	status func(r *http.Request, n int) int
}

func newReceiver(t *testing.T, status func(r *http.Request, n int) int) *receiver {
	rc := &receiver{status: status}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.got = append(rc.got, received{Path: r.URL.Path, Header: r.Header.Clone(), Body: b, At: time.Now()})
		n := len(rc.got)
		rc.mu.Unlock()
		code := http.StatusNoContent
		if rc.status != nil {
			code = rc.status(r, n)
		}
		w.WriteHeader(code)
	}))
	t.Cleanup(rc.Close)
	return rc
}

// requests returns what arrived at path.
func (rc *receiver) requests(path string) []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var out []received
	for _, r := range rc.got {
		if r.Path == path {
			out = append(out, r)
		}
	}
	return out
}

// waitFor waits until n requests arrived at path.
func (rc *receiver) waitFor(t *testing.T, path string, n int) []received {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if got := rc.requests(path); len(got) >= n {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("receiver: %d requests at %s, want %d", len(rc.requests(path)), path, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// verify checks r with the Standard Webhooks library and secret, and
// returns its event.
func verify(t *testing.T, r received, secret string) events.Event {
	t.Helper()
	wh, err := standardwebhooks.NewWebhook(secret)
	require.NoError(t, err)
	require.NoError(t, wh.Verify(r.Body, r.Header), "verifies with the Standard Webhooks library")
	var ev events.Event
	require.NoError(t, json.Unmarshal(r.Body, &ev))
	assert.Equal(t, ev.ID, r.Header.Get("webhook-id"), "webhook-id is the event id")
	assert.Equal(t, "application/json", r.Header.Get("Content-Type"))
	return ev
}

// newEnv is the local stack with the relay's webhooks consumer (the
// registered one) and the delivery worker, delivering to 127.0.0.1.
func newEnv(t *testing.T, opts ...testenv.Option) *testenv.Env {
	env := testenv.New(t, append([]testenv.Option{testenv.WithStream(), testenv.WithWorkers(),
		testenv.WithEnv(webhooks.EnvAllowPrivateTargets, "true")}, opts...)...)
	env.StartRelay(registry.Consumers(env.App.Deps())...)
	return env
}

func stock(t *testing.T, env *testenv.Env, s testenv.Shop) {
	t.Helper()
	bookIDs := env.ImportBooks(t, books.Record{Title: "Dune", Authors: []string{"Frank Herbert"}, ISBN: "9780441172719"})
	res := env.Do("POST", "/v1/inventory", map[string]any{"storeId": s.ID, "bookId": bookIDs[0], "quantity": 3, "priceCents": 1000, "condition": "new"}, s.Owner.Token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
}

// Each change's event arrives once at each endpoint that wants it,
// signed so the Standard Webhooks library verifies it (with either
// secret during a rotation's grace), and nothing reaches an endpoint
// that does not want it or is disabled.
func TestDelivery_EachEventOncePerEndpointVerified(t *testing.T) {
	env := newEnv(t)
	rc := newReceiver(t, nil)
	s := env.OpenShop(t, "hook-shop", nil)
	other := env.OpenShop(t, "other-shop", nil)
	all := putEndpoint(t, env, s.ID, rc.URL+"/all", nil)
	oldSecret := webhooks.NewSecret()
	follows := putEndpoint(t, env, s.ID, rc.URL+"/follows", func(it *endpointItem) {
		it.Events = []string{"store.followed"}
		exp := time.Now().Add(time.Hour).UTC()
		it.PreviousSecret, it.PreviousSecretExpiresAt = oldSecret, &exp
	})
	putEndpoint(t, env, s.ID, rc.URL+"/disabled", func(it *endpointItem) { it.Status, it.DisabledReason = "disabled", "disabled by the owner" })
	putEndpoint(t, env, other.ID, rc.URL+"/other", nil)

	stock(t, env, s)
	reader := env.Signup(t, "reader")
	require.Equal(t, http.StatusOK, env.Do("POST", "/v1/follows/stores/"+s.ID, nil, reader.Token).Status)

	got := rc.waitFor(t, "/all", 2)
	f := rc.waitFor(t, "/follows", 1)
	env.WaitDelivered(t, len(env.Outbox(t)))
	time.Sleep(300 * time.Millisecond) // anything more would have arrived by now
	require.Len(t, rc.requests("/all"), 2, "each event once")
	require.Len(t, rc.requests("/follows"), 1)
	assert.Empty(t, rc.requests("/disabled"), "a disabled endpoint receives nothing")
	assert.Empty(t, rc.requests("/other"), "another store's endpoint receives nothing")

	types := []string{}
	for _, r := range got {
		ev := verify(t, r, all.Secret)
		types = append(types, string(ev.Type))
		var data map[string]any
		require.NoError(t, json.Unmarshal(ev.Data, &data))
		assert.Equal(t, s.ID, data["storeId"])
		d, err := dynamo.NewWebhooks(env.App.Table).Delivery(context.Background(), all.ID, webhooks.DeliveryID(ev.ID, all.ID, ev.Time))
		require.NoError(t, err)
		assert.Equal(t, webhooks.Succeeded, d.Status)
		assert.Equal(t, 1, d.Attempts)
		require.Len(t, d.History, 1)
		assert.Equal(t, http.StatusNoContent, d.History[0].ResponseCode)
	}
	sort.Strings(types)
	assert.Equal(t, []string{"inventory.updated", "store.followed"}, types)
	ev := verify(t, f[0], follows.Secret)
	verify(t, f[0], oldSecret)
	assert.Equal(t, events.Type("store.followed"), ev.Type)
}

// A receiver that keeps failing gets every retry of the schedule, then
// the delivery fails, its message goes to the dead-letter queue and
// (at the limit of failures in a row) the endpoint is disabled with the
// reason; an owner's redelivery then makes one more attempt.
func TestDelivery_RetriesThenDeadLetterAndDisable(t *testing.T) {
	env := newEnv(t, testenv.WithEnv(webhooks.EnvRetrySchedule, "50ms,50ms"), testenv.WithEnv(webhooks.EnvDisableAfter, "1"))
	var fail atomic.Bool
	fail.Store(true)
	rc := newReceiver(t, func(*http.Request, int) int {
		if fail.Load() {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	})
	s := env.OpenShop(t, "failing-shop", nil)
	e := putEndpoint(t, env, s.ID, rc.URL+"/hook", nil)
	stock(t, env, s)

	got := rc.waitFor(t, "/hook", 3)
	store := dynamo.NewWebhooks(env.App.Table)
	var d *webhooks.Delivery
	require.Eventually(t, func() bool {
		ev := verify(t, got[0], e.Secret)
		var err error
		d, err = store.Delivery(context.Background(), e.ID, webhooks.DeliveryID(ev.ID, e.ID, ev.Time))
		return err == nil && d.Status == webhooks.Failed
	}, 10*time.Second, 50*time.Millisecond)
	assert.Equal(t, 3, d.Attempts, "the first attempt and two retries")
	require.Len(t, d.History, 3)
	for _, a := range d.History {
		assert.Equal(t, http.StatusInternalServerError, a.ResponseCode)
		assert.Equal(t, "HTTP 500", a.Error)
	}
	assert.Nil(t, d.NextAttemptAt)
	for i := 1; i < 3; i++ {
		assert.Equal(t, got[0].Header.Get("webhook-id"), got[i].Header.Get("webhook-id"), "the same event each time")
		gap := got[i].At.Sub(got[i-1].At)
		assert.GreaterOrEqual(t, gap, 40*time.Millisecond, "waited its jittered 50ms at least")
	}

	dead := receiveAll(t, env, queues.Webhooks.DLQ())
	require.Len(t, dead, 1, "the failed delivery's message in the dead-letter queue")
	var m webhooks.Message
	require.NoError(t, json.Unmarshal([]byte(dead[0]), &m))
	assert.Equal(t, d.ID, m.DeliveryID)
	assert.Equal(t, 3, m.Attempt)

	ep, err := store.Endpoint(context.Background(), s.ID, e.ID)
	require.NoError(t, err)
	assert.Equal(t, webhooks.Disabled, ep.Status)
	assert.Equal(t, "1 deliveries in a row failed; last: HTTP 500", ep.DisabledReason)
	assert.Equal(t, 1, ep.ConsecutiveFailures)

	// Nothing more goes to a disabled endpoint.
	stock2 := env.ImportBooks(t, books.Record{Title: "Emma", Authors: []string{"Jane Austen"}, ISBN: "9780141439587"})
	require.Equal(t, http.StatusCreated, env.Do("POST", "/v1/inventory", map[string]any{"storeId": s.ID, "bookId": stock2[0], "quantity": 1, "priceCents": 500, "condition": "new"}, s.Owner.Token).Status)
	env.WaitDelivered(t, len(env.Outbox(t)))
	time.Sleep(500 * time.Millisecond)
	assert.Len(t, rc.requests("/hook"), 3)

	// The owner re-enables it and redelivers (part A's routes: here
	// what they store and send): one manual attempt, no retries after it.
	fail.Store(false)
	ep.Status, ep.DisabledReason, ep.DisabledAt = webhooks.Active, "", nil
	require.NoError(t, store.SaveDelivery(context.Background(), pendingAgain(d), ep))
	sendMessage(t, env, webhooks.Message{DeliveryID: d.ID, EndpointID: e.ID, Attempt: 4, Manual: true})
	rc.waitFor(t, "/hook", 4)
	require.Eventually(t, func() bool {
		d, err = store.Delivery(context.Background(), e.ID, d.ID)
		return err == nil && d.Status == webhooks.Succeeded
	}, 10*time.Second, 50*time.Millisecond)
	assert.Equal(t, 4, d.Attempts)
	ep, err = store.Endpoint(context.Background(), s.ID, e.ID)
	require.NoError(t, err)
	assert.Equal(t, 0, ep.ConsecutiveFailures, "a success ends the run of failures")
}

// pendingAgain is d marked for a redelivery.
func pendingAgain(d *webhooks.Delivery) *webhooks.Delivery {
	x := *d
	x.Status = webhooks.Pending
	return &x
}

// sendMessage sends m to the webhooks queue, as a redelivery does.
func sendMessage(t *testing.T, env *testenv.Env, m webhooks.Message) {
	t.Helper()
	b, err := json.Marshal(m)
	require.NoError(t, err)
	_, err = env.SQS.SendMessage(context.Background(), &sqs.SendMessageInput{QueueUrl: aws.String(env.QueueURLs[queues.Webhooks]), MessageBody: aws.String(string(b))})
	require.NoError(t, err)
}

// receiveAll drains queue q's visible messages.
func receiveAll(t *testing.T, env *testenv.Env, q queues.Name) []string {
	t.Helper()
	var out []string
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		res, err := env.SQS.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: aws.String(env.QueueURLs[q]), MaxNumberOfMessages: 10})
		require.NoError(t, err)
		for _, m := range res.Messages {
			out = append(out, aws.ToString(m.Body))
		}
		if len(out) > 0 && len(res.Messages) == 0 {
			return out
		}
		time.Sleep(100 * time.Millisecond)
	}
	return out
}

// failOnce is a queue failing its first send: the fan-out fails after
// its delivery is stored, before its message is sent, as a crash there
// would leave it.
type failOnce struct {
	webhooks.Queue
	failed atomic.Bool
}

func (q *failOnce) Send(ctx context.Context, n queues.Name, b []byte, k string) error {
	if q.failed.CompareAndSwap(false, true) {
		return errors.New("crashed before sending")
	}
	return q.Queue.Send(ctx, n, b, k)
}

// A fan-out that fails between storing a delivery and queueing it loses
// nothing: the relay runs it again, it finds the delivery unattempted,
// sends it, and the receiver gets the event once.
func TestDelivery_aCrashBetweenCommitAndSendLosesNothing(t *testing.T) {
	env := testenv.New(t, testenv.WithStream(), testenv.WithWorkers(), testenv.WithEnv(webhooks.EnvAllowPrivateTargets, "true"))
	fan := webhooksrelay.FanOut(env.App.Deps())
	q := &failOnce{Queue: fan.Queue}
	fan.Queue = q
	env.StartRelay(fan)
	rc := newReceiver(t, nil)
	s := env.OpenShop(t, "crash-shop", nil)
	e := putEndpoint(t, env, s.ID, rc.URL+"/hook", nil)
	stock(t, env, s)

	got := rc.waitFor(t, "/hook", 1)
	env.WaitDelivered(t, len(env.Outbox(t)))
	time.Sleep(500 * time.Millisecond)
	assert.True(t, q.failed.Load(), "the first send failed")
	assert.Len(t, rc.requests("/hook"), 1, "sent once")
	verify(t, got[0], e.Secret)
}

// A test event goes to the endpoint it names alone, whatever it
// subscribes to, once however often the fan-out runs for it; a disabled
// endpoint gets none.
func TestDelivery_aTestEventReachesItsEndpointOnly(t *testing.T) {
	env := testenv.New(t, testenv.WithWorkers(), testenv.WithEnv(webhooks.EnvAllowPrivateTargets, "true"))
	fan := webhooksrelay.FanOut(env.App.Deps())
	rc := newReceiver(t, nil)
	s := env.OpenShop(t, "test-shop", nil)
	named := putEndpoint(t, env, s.ID, rc.URL+"/named", func(it *endpointItem) { it.Events = []string{"inventory.updated"} })
	putEndpoint(t, env, s.ID, rc.URL+"/other", nil)
	off := putEndpoint(t, env, s.ID, rc.URL+"/off", func(it *endpointItem) { it.Status = "disabled" })
	ctx := context.Background()
	for _, e := range []*webhooks.Endpoint{named, off} {
		ev, err := webhooks.TestEvent.New(time.Now(), webhooks.TestData{StoreID: s.ID, EndpointID: e.ID, Message: "hello", SentAt: time.Now()})
		require.NoError(t, err)
		require.NoError(t, fan.Consume(ctx, ev))
		require.NoError(t, fan.Consume(ctx, ev), "run again, as the relay may")
	}
	got := rc.waitFor(t, "/named", 1)
	time.Sleep(500 * time.Millisecond)
	assert.Len(t, rc.requests("/named"), 1, "once")
	assert.Empty(t, rc.requests("/other"))
	assert.Empty(t, rc.requests("/off"))
	ev := verify(t, got[0], named.Secret)
	assert.Equal(t, webhooks.TestEvent.Type, ev.Type)
}

// An order of two stores reaches each store's endpoint once, holding
// only that store's items and part.
func TestDelivery_anOrderReachesEachStoreWithItsOwnPart(t *testing.T) {
	env := newEnv(t)
	rc := newReceiver(t, nil)
	a, b := env.OpenShop(t, "north-hooks", nil), env.OpenShop(t, "south-hooks", nil)
	ea := putEndpoint(t, env, a.ID, rc.URL+"/a", func(it *endpointItem) { it.Events = []string{"order.created"} })
	eb := putEndpoint(t, env, b.ID, rc.URL+"/b", func(it *endpointItem) { it.Events = []string{"order.created"} })
	bk := env.ImportBooks(t, books.Record{Title: "Dune", Authors: []string{"Frank Herbert"}, ISBN: "9780441172719"},
		books.Record{Title: "The Hobbit", Authors: []string{"J. R. R. Tolkien"}, ISBN: "9780547928227"})
	item := func(s testenv.Shop, book string) string {
		res := env.Do("POST", "/v1/inventory", map[string]any{"storeId": s.ID, "bookId": book, "quantity": 3, "priceCents": 1000, "condition": "new"}, s.Owner.Token)
		require.Equal(t, http.StatusCreated, res.Status, "%s", res)
		return res.JSON["id"].(string)
	}
	ia, ib := item(a, bk[0]), item(b, bk[1])
	reader := env.Signup(t, "hook_reader")
	res := env.Do("POST", "/v1/orders", map[string]any{
		"items": []map[string]any{{"inventoryId": ia, "quantity": 1}, {"inventoryId": ib, "quantity": 2}},
		"shippingAddress": map[string]any{"name": "Ann Reader", "addressLine1": "2 Oak Ave", "city": "Portland", "state": "OR",
			"postalCode": "97205", "country": "US", "phone": "+1 503 555 0199"},
		"paymentMethodId": "pm_card_visa"}, reader.Token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)

	for _, c := range []struct {
		path     string
		e        *webhooks.Endpoint
		store    string
		item     string
		quantity float64
	}{{"/a", ea, a.ID, ia, 1}, {"/b", eb, b.ID, ib, 2}} {
		got := rc.waitFor(t, c.path, 1)
		ev := verify(t, got[0], c.e.Secret)
		assert.Equal(t, events.Type("order.created"), ev.Type)
		var data map[string]any
		require.NoError(t, json.Unmarshal(ev.Data, &data))
		items := data["items"].([]any)
		require.Len(t, items, 1, c.path)
		assert.Equal(t, c.item, items[0].(map[string]any)["inventoryId"])
		assert.Equal(t, c.quantity, items[0].(map[string]any)["quantity"])
		parts := data["fulfilment"].([]any)
		require.Len(t, parts, 1)
		assert.Equal(t, c.store, parts[0].(map[string]any)["storeId"])
		assert.Equal(t, parts[0].(map[string]any)["totalCents"], data["totalCents"], "the part's totals")
		assert.Empty(t, data["checkoutSessionId"])
	}
	env.WaitDelivered(t, len(env.Outbox(t)))
	time.Sleep(300 * time.Millisecond)
	assert.Len(t, rc.requests("/a"), 1)
	assert.Len(t, rc.requests("/b"), 1)
}
