package ordersapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/orders"
	"github.com/bookplatform/backend/shared/payments"
	"github.com/bookplatform/backend/shared/users"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// shop is a store with its owner.
type shop struct {
	ID, Slug string
	Owner    testenv.Account
}

// openShop opens a store in Portland with a tax rate.
func openShop(t *testing.T, env *testenv.Env, slug string, taxRate float64) shop {
	t.Helper()
	owner := env.Signup(t, "own_"+strings.ReplaceAll(slug, "-", "_"))
	env.SetTier(t, owner, users.TierBookstore)
	res := env.Do("POST", "/v1/stores", map[string]any{
		"name": "Shop " + slug, "slug": slug, "addressLine1": "1 Main St", "city": "Portland", "state": "OR",
		"postalCode": "97209", "country": "US", "taxRate": taxRate,
	}, owner.Token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
	return shop{ID: res.JSON["id"].(string), Slug: slug, Owner: owner}
}

func catalog(t *testing.T, env *testenv.Env) []string {
	t.Helper()
	return env.ImportBooks(t,
		books.Record{Title: "The Left Hand of Darkness", Authors: []string{"Ursula K. Le Guin"}, ISBN: "9780441478125"},
		books.Record{Title: "A Wizard of Earthsea", Authors: []string{"Ursula K. Le Guin"}, ISBN: "9780547773742"},
		books.Record{Title: "Dune", Authors: []string{"Frank Herbert"}, ISBN: "9780441172719"},
		books.Record{Title: "The Hobbit", Authors: []string{"J. R. R. Tolkien"}, ISBN: "9780547928227"},
	)
}

// stock stocks a book at the shop and returns the item's id.
func stock(t *testing.T, env *testenv.Env, s shop, bookID string, qty, price int) string {
	t.Helper()
	res := env.Do("POST", "/v1/inventory", map[string]any{"storeId": s.ID, "bookId": bookID, "quantity": qty, "priceCents": price, "condition": "used_good"}, s.Owner.Token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
	return res.JSON["id"].(string)
}

func quantityOf(t *testing.T, env *testenv.Env, s shop, itemID string) int {
	t.Helper()
	res := env.Do("GET", "/v1/inventory/"+itemID+"?storeId="+s.ID, nil, s.Owner.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	return int(res.JSON["quantity"].(float64))
}

var address = map[string]any{"name": "Ann Reader", "addressLine1": "2 Oak Ave", "city": "Portland", "state": "OR",
	"postalCode": "97205", "country": "US", "phone": "+1 503 555 0199"}

func line(id string, q int) map[string]any { return map[string]any{"inventoryId": id, "quantity": q} }

func orderBody(pm string, lines ...map[string]any) map[string]any {
	return map[string]any{"items": lines, "shippingAddress": address, "paymentMethodId": pm}
}

// world: two stores (8.25% and 5% tax), four items, a reader.
type world struct {
	env    *testenv.Env
	a, b   shop
	items  []string // a: book0 (3 @ 1299), a: book1 (2 @ 850); b: book2 (1 @ 500), b: book3 (5 @ 2000)
	reader testenv.Account
}

func newWorld(t *testing.T) *world {
	env := testenv.New(t)
	w := &world{env: env, a: openShop(t, env, "north-books", 0.0825), b: openShop(t, env, "south-books", 0.05)}
	bk := catalog(t, env)
	w.items = []string{stock(t, env, w.a, bk[0], 3, 1299), stock(t, env, w.a, bk[1], 2, 850),
		stock(t, env, w.b, bk[2], 1, 500), stock(t, env, w.b, bk[3], 5, 2000)}
	w.reader = env.Signup(t, "ann_reader")
	return w
}

// An order of 3 items from 2 stores: 201 with its totals per store, each
// item's store, the session to confirm with; the stock is taken; the
// detail shows the phone and the stores; confirm moves it to confirmed
// once (a second confirm writes nothing); the list filters and counts.
func TestOrders_PlaceConfirmList(t *testing.T) {
	w := newWorld(t)
	env := w.env
	res := env.Do("POST", "/v1/orders", orderBody("pm_card_visa", line(w.items[0], 2), line(w.items[1], 1), line(w.items[2], 1)), w.reader.Token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
	o := res.JSON
	assert.Equal(t, "pending", o["status"])
	assert.Regexp(t, `^BW-\d{8}-[0-9A-HJKMNP-TV-Z]{6}$`, o["orderNumber"])
	assert.Equal(t, w.reader.ID, o["userId"])
	sess := o["checkoutSessionId"].(string)
	assert.True(t, payments.ValidSessionID(sess))
	// North: 2×1299 + 850 = 3448, shipping 499 + 2×100 = 699, tax 8.25% of 4147 = 342.13 → 342.
	// South: 500, shipping 499, tax 5% of 999 = 49.95 → 50.
	assert.EqualValues(t, 3948, o["subtotalCents"])
	assert.EqualValues(t, 1198, o["shippingCents"])
	assert.EqualValues(t, 392, o["taxCents"])
	assert.EqualValues(t, 5538, o["totalCents"])
	items := o["items"].([]any)
	require.Len(t, items, 3)
	assert.Equal(t, w.a.ID, items[0].(map[string]any)["storeId"])
	assert.Equal(t, w.b.ID, items[2].(map[string]any)["storeId"])
	addr := o["shippingAddress"].(map[string]any)
	assert.NotContains(t, addr, "phone", "the creation's answer has no phone")
	parts := o["fulfilment"].([]any)
	require.Len(t, parts, 2)
	assert.Equal(t, "ship", parts[0].(map[string]any)["fulfilment"])
	in, ok := env.Payments.Intent(sess)
	require.True(t, ok)
	assert.EqualValues(t, 5538, in.AmountCents, "the total is what is authorised")
	assert.Equal(t, 1, quantityOf(t, env, w.a, w.items[1]))
	assert.Equal(t, 0, quantityOf(t, env, w.b, w.items[2]))

	id := o["id"].(string)
	res = env.Do("GET", "/v1/orders/"+id, nil, w.reader.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	assert.Equal(t, "+1 503 555 0199", res.JSON["shippingAddress"].(map[string]any)["phone"])
	it0 := res.JSON["items"].([]any)[0].(map[string]any)
	assert.Equal(t, "Shop north-books", it0["storeName"])
	assert.Equal(t, "north-books", it0["storeSlug"])
	assert.Equal(t, "used_good", it0["condition"])
	assert.Equal(t, "9780441478125", it0["book"].(map[string]any)["isbn"])
	assert.Nil(t, res.JSON["confirmedAt"])

	other := env.Signup(t, "other_reader")
	assertErr(t, env.Do("GET", "/v1/orders/"+id, nil, other.Token), http.StatusForbidden, "")
	assertErr(t, env.Do("GET", "/v1/orders/00000000-0000-4000-8000-000000000000", nil, w.reader.Token), http.StatusNotFound, "")
	assertErr(t, env.Do("GET", "/v1/orders/nope", nil, w.reader.Token), http.StatusNotFound, "")

	res = env.Do("POST", "/v1/orders/confirm", map[string]any{"sessionId": sess}, "")
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	first := res.JSON["order"].(map[string]any)
	assert.Equal(t, "confirmed", first["status"])
	assert.NotNil(t, first["confirmedAt"])
	in, _ = env.Payments.Intent(sess)
	assert.Equal(t, "succeeded", in.Status, "confirming captures")
	before := env.Item(t, dynamo.OrderKey(id))
	events := len(env.Outbox(t))
	res = env.Do("POST", "/v1/orders/confirm", map[string]any{"sessionId": sess}, "")
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	assert.Equal(t, first, res.JSON["order"], "confirming twice answers the same")
	assert.Equal(t, before, env.Item(t, dynamo.OrderKey(id)), "and writes nothing")
	assert.Equal(t, events, len(env.Outbox(t)))

	// A second order, pending; the list is newest first with exact totals.
	res = env.Do("POST", "/v1/orders", orderBody("pm_card_visa", line(w.items[3], 2)), w.reader.Token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
	second := res.JSON["id"].(string)
	res = env.Do("GET", "/v1/orders", nil, w.reader.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	assert.EqualValues(t, 2, res.JSON["total"])
	list := res.JSON["orders"].([]any)
	require.Len(t, list, 2)
	assert.Equal(t, second, list[0].(map[string]any)["id"])
	assert.EqualValues(t, 4, list[1].(map[string]any)["itemCount"])
	res = env.Do("GET", "/v1/orders?status=confirmed", nil, w.reader.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	assert.EqualValues(t, 1, res.JSON["total"])
	assert.Equal(t, id, res.JSON["orders"].([]any)[0].(map[string]any)["id"])
	res = env.Do("GET", "/v1/orders?status=pending&limit=1&offset=1", nil, w.reader.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	assert.EqualValues(t, 1, res.JSON["total"])
	assert.Empty(t, res.JSON["orders"])
	assertErr(t, env.Do("GET", "/v1/orders?status=lost", nil, w.reader.Token), http.StatusBadRequest, "")
	res = env.Do("GET", "/v1/orders", nil, other.Token)
	assert.EqualValues(t, 0, res.JSON["total"])

	var created, updated int
	for _, ob := range env.Outbox(t) {
		switch ob.Event.Type {
		case orders.CreatedEvent.Type:
			created++
		case orders.UpdatedEvent.Type:
			updated++
		}
	}
	assert.Equal(t, 2, created)
	assert.Equal(t, 1, updated, "the confirmation")
}

// A declined card is 402 and leaves nothing: no order, the stock as it
// was, nothing held at the provider.
func TestOrders_DeclinedLeavesNothing(t *testing.T) {
	w := newWorld(t)
	env := w.env
	res := env.Do("POST", "/v1/orders", orderBody("pm_card_chargeDeclined", line(w.items[2], 1)), w.reader.Token)
	assertErr(t, res, http.StatusPaymentRequired, "")
	assert.Equal(t, 1, quantityOf(t, env, w.b, w.items[2]))
	assert.Nil(t, env.Item(t, dynamo.OrderCountsKey(w.reader.ID)), "no order counted")
	assert.Zero(t, env.Payments.HeldCents())
	res = env.Do("GET", "/v1/orders", nil, w.reader.Token)
	assert.EqualValues(t, 0, res.JSON["total"])
	for _, ob := range env.Outbox(t) {
		assert.NotEqual(t, orders.CreatedEvent.Type, ob.Event.Type)
	}
	// An unknown payment method is the client's mistake: 400.
	res = env.Do("POST", "/v1/orders", orderBody("pm_no_such_method", line(w.items[2], 1)), w.reader.Token)
	assertErr(t, res, http.StatusBadRequest, "")
	assert.Equal(t, 1, quantityOf(t, env, w.b, w.items[2]))
}

// A retried POST /orders with the same Idempotency-Key answers the
// first answer and charges once; the key with another body is 422.
func TestOrders_IdempotentRetryChargesOnce(t *testing.T) {
	w := newWorld(t)
	env := w.env
	h := map[string]string{"Authorization": "Bearer " + w.reader.Token, "Idempotency-Key": "order-key-1"}
	body := orderBody("pm_card_visa", line(w.items[3], 1))
	first := env.DoHeaders("POST", "/v1/orders", body, h)
	require.Equal(t, http.StatusCreated, first.Status, "%s", first)
	again := env.DoHeaders("POST", "/v1/orders", body, h)
	require.Equal(t, http.StatusCreated, again.Status, "%s", again)
	assert.Equal(t, first.JSON["id"], again.JSON["id"])
	assert.Equal(t, 1, env.Payments.Created(), "charged once")
	assert.Equal(t, 4, quantityOf(t, env, w.b, w.items[3]), "stock taken once")
	other := env.DoHeaders("POST", "/v1/orders", orderBody("pm_card_visa", line(w.items[3], 2)), h)
	assertErr(t, other, http.StatusUnprocessableEntity, "")
	assert.Equal(t, 1, env.Payments.Created())
}

// The request's errors: 400 naming bad fields, 400 items unavailable
// naming the items, 404 naming unknown inventoryIds, more than 15
// items; an order picked up needs no address.
func TestOrders_Errors(t *testing.T) {
	w := newWorld(t)
	env := w.env
	tok := w.reader.Token
	res := env.Do("POST", "/v1/orders", orderBody("pm_card_visa", line(w.items[2], 2), line(w.items[3], 1)), tok)
	assertErr(t, res, http.StatusBadRequest, "Items unavailable")
	assert.Equal(t, []any{w.items[2]}, testenv.ErrorOf(t, res)["details"].(map[string]any)["inventoryIds"])
	assert.Zero(t, env.Payments.Created(), "nothing authorised")

	unknown := "00000000-0000-4000-8000-000000000000"
	res = env.Do("POST", "/v1/orders", orderBody("pm_card_visa", line(unknown, 1), line(w.items[3], 1)), tok)
	assertErr(t, res, http.StatusNotFound, "")
	assert.Equal(t, []any{unknown}, testenv.ErrorOf(t, res)["details"].(map[string]any)["inventoryIds"])

	for name, body := range map[string]map[string]any{
		"no items":       orderBody("pm_card_visa"),
		"zero quantity":  orderBody("pm_card_visa", line(w.items[3], 0)),
		"100 copies":     orderBody("pm_card_visa", line(w.items[3], 100)),
		"twice":          orderBody("pm_card_visa", line(w.items[3], 1), line(w.items[3], 1)),
		"bad id":         orderBody("pm_card_visa", line("abc", 1)),
		"no method":      orderBody("", line(w.items[3], 1)),
		"no address":     {"items": []any{line(w.items[3], 1)}, "paymentMethodId": "pm_card_visa"},
		"bad fulfilment": {"items": []any{line(w.items[3], 1)}, "paymentMethodId": "pm_card_visa", "fulfilment": "drone"},
		"other store":    {"items": []any{line(w.items[3], 1)}, "paymentMethodId": "pm_card_visa", "shippingAddress": address, "fulfilments": map[string]any{w.a.ID: "pickup"}},
		"float quantity": orderBody("pm_card_visa", map[string]any{"inventoryId": w.items[3], "quantity": 1.5}),
	} {
		res := env.Do("POST", "/v1/orders", body, tok)
		assert.Equal(t, http.StatusBadRequest, res.Status, "%s: %s", name, res)
	}
	var many []map[string]any
	for i := range orders.MaxOrderItems + 1 {
		many = append(many, line(fmt.Sprintf("00000000-0000-4000-8000-%012d", i), 1))
	}
	res = env.Do("POST", "/v1/orders", orderBody("pm_card_visa", many...), tok)
	assertErr(t, res, http.StatusBadRequest, "")
	assert.Contains(t, testenv.FieldErrors(t, res), "items")
	assert.Zero(t, env.Payments.Created())

	// Picked up everywhere: no address, no shipping.
	res = env.Do("POST", "/v1/orders", map[string]any{"items": []any{line(w.items[3], 1)}, "paymentMethodId": "pm_card_visa", "fulfilment": "pickup"}, tok)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
	assert.EqualValues(t, 0, res.JSON["shippingCents"])
	assert.Nil(t, res.JSON["shippingAddress"])
	// Per store: the north store's part picked up, the south's shipped.
	res = env.Do("POST", "/v1/orders", map[string]any{"items": []any{line(w.items[0], 1), line(w.items[3], 1)}, "paymentMethodId": "pm_card_visa",
		"shippingAddress": address, "fulfilments": map[string]any{w.a.ID: "pickup"}}, tok)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
	assert.EqualValues(t, 499, res.JSON["shippingCents"])
	assertErr(t, env.Do("POST", "/v1/orders", orderBody("pm_card_visa", line(w.items[3], 1)), ""), http.StatusUnauthorized, "")
}

// Buyers racing through the API for the last copy: exactly one order,
// and every loser's authorisation is voided.
func TestOrders_RaceForTheLastCopy(t *testing.T) {
	w := newWorld(t)
	env := w.env
	const buyers = 5
	tokens := make([]string, buyers)
	for i := range buyers {
		tokens[i] = env.Signup(t, fmt.Sprintf("racer_%d", i)).Token
	}
	statuses := make([]int, buyers)
	var wg sync.WaitGroup
	for i := range buyers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = env.Do("POST", "/v1/orders", orderBody("pm_card_visa", line(w.items[2], 1)), tokens[i]).Status
		}()
	}
	wg.Wait()
	won := 0
	for _, s := range statuses {
		if s == http.StatusCreated {
			won++
		} else {
			assert.Equal(t, http.StatusBadRequest, s)
		}
	}
	assert.Equal(t, 1, won, "%v", statuses)
	assert.Equal(t, 0, quantityOf(t, env, w.b, w.items[2]))
	assert.EqualValues(t, 500+499+50, env.Payments.HeldCents(), "only the winner's payment is held")
}

// Confirm's errors: malformed 400, unknown 404, expired 400 (and the
// order of an expired payment is cancelled, its stock back: no webhook
// needed), a payment not completed 400.
func TestOrders_ConfirmErrors(t *testing.T) {
	w := newWorld(t)
	env := w.env
	assertErr(t, env.Do("POST", "/v1/orders/confirm", map[string]any{"sessionId": "cs_nope"}, ""), http.StatusBadRequest, "")
	assertErr(t, env.Do("POST", "/v1/orders/confirm", map[string]any{"sessionId": "pi_000000000000000000000000"}, ""), http.StatusNotFound, "")

	res := env.Do("POST", "/v1/orders", orderBody("pm_card_visa", line(w.items[3], 1)), w.reader.Token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
	sess, id := res.JSON["checkoutSessionId"].(string), res.JSON["id"].(string)
	require.Equal(t, 4, quantityOf(t, env, w.b, w.items[3]), "one copy held")
	require.NoError(t, env.Payments.Expire(sess))
	res = env.Do("POST", "/v1/orders/confirm", map[string]any{"sessionId": sess}, "")
	assertErr(t, res, http.StatusBadRequest, "Checkout session expired")
	assert.Equal(t, 5, quantityOf(t, env, w.b, w.items[3]), "the expired payment's copy is back")
	got := env.Do("GET", "/v1/orders/"+id, nil, w.reader.Token)
	assert.Equal(t, "cancelled", got.JSON["status"])
	assert.Equal(t, "payment failed", got.JSON["cancellationReason"])

	res = env.Do("POST", "/v1/orders", orderBody("pm_card_authenticationRequired", line(w.items[3], 1)), w.reader.Token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
	assert.Equal(t, "action_required", res.JSON["paymentStatus"])
	res = env.Do("POST", "/v1/orders/confirm", map[string]any{"sessionId": res.JSON["checkoutSessionId"]}, "")
	assertErr(t, res, http.StatusBadRequest, "Payment not completed")
}

// Cancel: the owner only; pending → cancelled with the stock back and
// the payment voided; confirmed → cancelled and refunded; anything
// else 400 with the status unchanged.
func TestOrders_Cancel(t *testing.T) {
	w := newWorld(t)
	env := w.env
	res := env.Do("POST", "/v1/orders", orderBody("pm_card_visa", line(w.items[0], 3), line(w.items[2], 1)), w.reader.Token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
	id, sess := res.JSON["id"].(string), res.JSON["checkoutSessionId"].(string)
	assert.Equal(t, 0, quantityOf(t, env, w.a, w.items[0]))

	other := env.Signup(t, "not_the_owner")
	assertErr(t, env.Do("POST", "/v1/orders/"+id+"/cancel", map[string]any{"reason": "mine"}, other.Token), http.StatusForbidden, "")
	assertErr(t, env.Do("POST", "/v1/orders/00000000-0000-4000-8000-000000000000/cancel", map[string]any{}, w.reader.Token), http.StatusNotFound, "")

	res = env.Do("POST", "/v1/orders/"+id+"/cancel", map[string]any{"reason": "Found it elsewhere"}, w.reader.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	assert.Equal(t, "cancelled", res.JSON["status"])
	assert.Equal(t, "Found it elsewhere", res.JSON["cancellationReason"])
	assert.NotEmpty(t, res.JSON["cancelledAt"])
	assert.Equal(t, "voided", res.JSON["paymentStatus"])
	in, _ := env.Payments.Intent(sess)
	assert.Equal(t, "canceled", in.Status)
	assert.Equal(t, 3, quantityOf(t, env, w.a, w.items[0]), "stock back")
	assert.Equal(t, 1, quantityOf(t, env, w.b, w.items[2]))
	res = env.Do("POST", "/v1/orders/"+id+"/cancel", map[string]any{}, w.reader.Token)
	assertErr(t, res, http.StatusBadRequest, "Order cannot be cancelled")
	res = env.Do("POST", "/v1/orders/confirm", map[string]any{"sessionId": sess}, "")
	assertErr(t, res, http.StatusBadRequest, "Order was cancelled")

	// A shipped order cannot be cancelled: 400, its status unchanged.
	res = env.Do("POST", "/v1/orders", orderBody("pm_card_visa", line(w.items[3], 1)), w.reader.Token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
	shipped := res.JSON["id"].(string)
	it := env.Item(t, dynamo.OrderKey(shipped))
	it["status"] = "shipped"
	env.PutItem(t, it)
	res = env.Do("POST", "/v1/orders/"+shipped+"/cancel", map[string]any{}, w.reader.Token)
	assertErr(t, res, http.StatusBadRequest, "Order cannot be cancelled")
	assert.Equal(t, "shipped", env.Item(t, dynamo.OrderKey(shipped))["status"])
	assert.Equal(t, 4, quantityOf(t, env, w.b, w.items[3]))
}

// Without a payment provider the payment routes answer 503, and the
// others serve on.
func TestOrders_PaymentsNotConfigured(t *testing.T) {
	env := testenv.New(t, testenv.WithEnv(payments.EnvStripeAPIKey, ""))
	r := env.Signup(t, "no_payments")
	res := env.Do("POST", "/v1/orders", orderBody("pm_card_visa", line("00000000-0000-4000-8000-000000000000", 1)), r.Token)
	assertErr(t, res, http.StatusServiceUnavailable, "Payments are not configured on this deployment")
	assertErr(t, env.Do("POST", "/v1/orders/confirm", map[string]any{"sessionId": "pi_000000000000000000000000"}, ""), http.StatusServiceUnavailable, "")
	res = env.Do("GET", "/v1/orders", nil, r.Token)
	assert.Equal(t, http.StatusOK, res.Status, "%s", res)
}

// assertErr checks an error answer's status, its name for that status
// and, when given, its message.
func assertErr(t *testing.T, res *testenv.Response, status int, message string) {
	t.Helper()
	names := map[int]string{400: "ValidationError", 401: "Unauthorized", 402: "PaymentRequired", 403: "Forbidden", 404: "NotFound",
		422: "UnprocessableEntity", 503: "ServiceUnavailable"}
	testenv.AssertError(t, res, status, names[status], message)
}

// Attribution: an order through a store's verified custom domain (its
// Origin) earns that store the commission; else the buyer's home store;
// else none, and the order feeds the month's pool.
func TestOrders_Attribution(t *testing.T) {
	w := newWorld(t)
	env := w.env
	k := dynamo.StoreDomainClaimKey("books.north.example")
	env.PutItem(t, map[string]any{"PK": k.PK, "SK": k.SK, "type": "StoreDomainClaim", "domain": "books.north.example",
		"storeId": w.a.ID, "slug": w.a.Slug, "name": "Shop north-books", "status": "VERIFIED"})
	require.Equal(t, http.StatusOK, env.Do("PUT", "/v1/users/me/home-store", map[string]any{"storeId": w.b.ID}, w.reader.Token).Status)

	place := func(origin string) string {
		h := map[string]string{"Authorization": "Bearer " + w.reader.Token}
		if origin != "" {
			h["Origin"] = origin
		}
		res := env.DoHeaders("POST", "/v1/orders", orderBody("pm_card_visa", line(w.items[3], 1)), h)
		require.Equal(t, http.StatusCreated, res.Status, "%s", res)
		return res.JSON["id"].(string)
	}
	viaDomain := place("https://books.north.example")
	com := env.Item(t, dynamo.AffiliateCommissionKey(w.a.ID, viaDomain))
	require.NotNil(t, com, "the store of the Origin's verified domain")
	assert.EqualValues(t, 100, com["commissionCents"], "5% of 2000")
	viaHome := place("https://unknown.example")
	assert.NotNil(t, env.Item(t, dynamo.AffiliateCommissionKey(w.b.ID, viaHome)), "else the home store")
	assert.EqualValues(t, 100, env.Item(t, dynamo.StoreEarningsKey(w.b.ID))["affiliatePendingCents"])

	require.Equal(t, http.StatusOK, env.Do("DELETE", "/v1/users/me/home-store", nil, w.reader.Token).Status)
	none := place("")
	assert.NotContains(t, env.Item(t, dynamo.OrderKey(none)), "attributedStoreId")
	month := dynamo.PoolMonth(env.App.Now())
	assert.EqualValues(t, 40, env.Item(t, dynamo.PoolMonthTotalKey(month))["poolCents"], "2% of 2000")
	assert.EqualValues(t, 6000, env.Item(t, dynamo.PoolMonthStoreKey(month, w.b.ID))["salesCents"], "every order weighs in the split")
}
