package extposapi_test

import (
	"context"

	"encoding/json"
	"fmt"
	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	dbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"net/http"
	"net/url"
	"strings"
	gosync "sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookplatform/backend/local/squarelocal"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/api/extposapi"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/extpos"
	"github.com/bookplatform/backend/shared/groups"
	"github.com/bookplatform/backend/shared/inventory"
	"github.com/bookplatform/backend/shared/queues"
	"github.com/bookplatform/backend/shared/users"
	"github.com/bookplatform/backend/shared/worker"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// shop is a store with its owner, a staff member and another bookseller.
type shop struct {
	id                  string
	owner, staff, other testenv.Account
}

func newShop(t *testing.T, env *testenv.Env, slug string) shop {
	t.Helper()
	s := shop{owner: env.Signup(t, "own_"+strings.ReplaceAll(slug, "-", "_")), staff: env.Signup(t, "stf_"+strings.ReplaceAll(slug, "-", "_")),
		other: env.Signup(t, "oth_"+strings.ReplaceAll(slug, "-", "_"))}
	env.SetTier(t, s.owner, users.TierBookstore)
	res := env.Do("POST", "/v1/stores", map[string]any{
		"name": "POS " + slug, "slug": slug, "addressLine1": "1005 W Burnside St", "city": "Portland", "state": "OR",
		"postalCode": "97209", "country": "US",
	}, s.owner.Token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
	s.id = res.JSON["id"].(string)
	res = env.Do("POST", "/v1/stores/"+slug+"/staff", map[string]any{"userId": s.staff.ID}, s.owner.Token)
	require.Less(t, res.Status, 300, "%s", res)
	return s
}

// demoBooks adds the stand-in's books to the catalog (all but the tote
// bag) and returns their ids by ISBN-13.
func demoBooks(t *testing.T, env *testenv.Env) map[string]string {
	t.Helper()
	var recs []books.Record
	for _, d := range squarelocal.DemoItems {
		code := d.UPC
		if code == "" {
			code = d.SKU
		}
		if !books.IsISBN(code) {
			continue
		}
		recs = append(recs, books.Record{ISBN: code, Title: d.Name, Authors: []string{d.Author}})
	}
	ids := env.ImportBooks(t, recs...)
	out := map[string]string{}
	for i, r := range recs {
		isbn, _, _ := books.NormalizeISBN(r.ISBN)
		out[isbn] = ids[i]
	}
	return out
}

// bindingOf is the binding cookie connect set (a browser's cookie jar
// keeps it for the callback).
func bindingOf(t *testing.T, res *testenv.Response) *http.Cookie {
	t.Helper()
	for _, c := range (&http.Response{Header: res.Header}).Cookies() {
		if c.Name == extposapi.BindingCookie {
			return c
		}
	}
	t.Fatalf("connect set no %s cookie: %v", extposapi.BindingCookie, res.Header)
	return nil
}

// withCookie is the header of a request carrying c (none when nil).
func withCookie(c *http.Cookie) map[string]string {
	if c == nil {
		return nil
	}
	return map[string]string{"Cookie": c.Name + "=" + c.Value}
}

// connect walks connect → authorisation page → callback, as the owner's
// browser does (with the binding cookie), and returns the app URL the
// callback sent the browser to.
func connect(t *testing.T, env *testenv.Env, s shop) *url.URL {
	t.Helper()
	res := env.Do("GET", "/v1/integrations/extpos/connect?storeId="+s.id, nil, s.owner.Token)
	require.Equal(t, http.StatusFound, res.Status, "%s", res)
	cookie := bindingOf(t, res)
	auth := res.Header.Get("Location")
	require.True(t, strings.HasPrefix(auth, env.POSURL+"/oauth2/authorize?"), auth)
	res = env.Do("GET", auth, nil, "")
	require.Equal(t, http.StatusFound, res.Status, "%s", res)
	cb := res.Header.Get("Location")
	require.True(t, strings.HasPrefix(cb, env.Server.URL+"/v1/integrations/extpos/callback?"), cb)
	res = env.DoHeaders("GET", cb, nil, withCookie(cookie))
	require.Equal(t, http.StatusFound, res.Status, "%s", res)
	back, err := url.Parse(res.Header.Get("Location"))
	require.NoError(t, err)
	return back
}

// sync asks for a sync and returns its outcome: the answer itself (200),
// or, when the worker took longer than the wait (202: a loaded machine),
// the job endpoint's once the job is finished.
func sync(t *testing.T, env *testenv.Env, s shop, mode string) *testenv.Response {
	t.Helper()
	res := env.Do("POST", "/v1/inventory/sync-extpos?storeId="+s.id, map[string]any{"mode": mode}, s.owner.Token)
	if res.Status != http.StatusAccepted {
		return res
	}
	return awaitJob(t, env, s, res)
}

// awaitJob polls the job a 202 names until it is finished.
func awaitJob(t *testing.T, env *testenv.Env, s shop, accepted *testenv.Response) *testenv.Response {
	t.Helper()
	require.Equal(t, "queued", accepted.JSON["status"], "%s", accepted)
	loc := accepted.Header.Get("Location")
	require.Equal(t, "/v1/inventory/sync-extpos/"+accepted.JSON["jobId"].(string)+"?storeId="+s.id, loc)
	deadline := time.Now().Add(time.Minute)
	for {
		res := env.Do("GET", loc, nil, s.owner.Token)
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		if res.JSON["status"] != "queued" || time.Now().After(deadline) {
			return res
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// A sync slower than the wait is answered 202 with the job to poll, which
// answers the outcome once the worker is done.
func TestSync_slowSyncAnswers202AndItsJob(t *testing.T) {
	env := testenv.New(t, testenv.WithWorkers(), testenv.WithEnv(extposapi.EnvSyncWait, "1ms"))
	demoBooks(t, env)
	s := newShop(t, env, "slow-shop")
	connect(t, env, s)
	res := env.Do("POST", "/v1/inventory/sync-extpos?storeId="+s.id, map[string]any{"mode": "import"}, s.owner.Token)
	require.Equal(t, http.StatusAccepted, res.Status, "%s", res)
	assert.Equal(t, false, res.JSON["success"])
	done := awaitJob(t, env, s, res)
	assert.Equal(t, "done", done.JSON["status"], "%s", done)
	assert.Equal(t, true, done.JSON["success"])
	assert.EqualValues(t, len(squarelocal.DemoItems)-1, done.JSON["created"])
}

func TestConnectCallbackSyncImport(t *testing.T) {
	env := testenv.New(t, testenv.WithWorkers())
	ids := demoBooks(t, env)
	s := newShop(t, env, "pos-shop")

	// Not connected yet: 403.
	res := sync(t, env, s, "import")
	testenv.AssertError(t, res, http.StatusForbidden, "Forbidden", "")

	back := connect(t, env, s)
	assert.Equal(t, "http://localhost:3000/settings/integrations?extpos=connected", back.String())
	// The tokens are stored sealed, never in clear.
	conn := env.Item(t, dynamo.ExtPosConnectionKey(s.id))
	assert.Equal(t, squarelocal.MerchantID, conn["merchantId"])
	assert.Equal(t, squarelocal.LocationID, conn["locationId"])
	raw, _ := json.Marshal(conn)
	assert.NotContains(t, string(raw), "EAAAE")
	assert.NotContains(t, string(raw), "EQAAE")

	res = sync(t, env, s, "import")
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	books := len(ids)
	assert.Equal(t, true, res.JSON["success"])
	assert.EqualValues(t, books, res.JSON["synced"])
	assert.EqualValues(t, books, res.JSON["created"])
	assert.EqualValues(t, 0, res.JSON["updated"])
	errs := res.JSON["errors"].([]any)
	require.Len(t, errs, 1, "the tote bag")
	assert.Equal(t, "012345678905", errs[0].(map[string]any)["isbn"])

	inv := dynamo.NewInventory(env.App.Table)
	items, err := inv.ByBooks(context.Background(), s.id, []string{ids["9780345413994"], ids["9780439655484"]})
	require.NoError(t, err)
	door := items[ids["9780345413994"]]
	require.NotNil(t, door)
	assert.Equal(t, 3, door.Quantity)
	assert.Equal(t, 899, door.PriceCents)
	assert.Equal(t, env.POS.VariationByCode("9780345413994"), door.ExternalItemID)
	assert.Equal(t, 4, items[ids["9780439655484"]].Quantity, "the item with an ISBN-10 SKU")
	assert.EqualValues(t, books, env.Item(t, dynamo.StoreKey(s.id))["inventoryCount"])

	// Idempotent: the same sync again changes nothing.
	res = sync(t, env, s, "import")
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	assert.EqualValues(t, 0, res.JSON["created"])
	assert.EqualValues(t, 0, res.JSON["updated"])
	assert.EqualValues(t, books, res.JSON["synced"])

	// The job endpoint answers the same outcome.
	job := env.Do("GET", "/v1/inventory/sync-extpos/"+res.JSON["jobId"].(string)+"?storeId="+s.id, nil, s.owner.Token)
	require.Equal(t, http.StatusOK, job.Status, "%s", job)
	assert.Equal(t, "done", job.JSON["status"])
	assert.EqualValues(t, books, job.JSON["synced"])
	res = env.Do("GET", "/v1/inventory/sync-extpos/00000000-0000-4000-8000-000000000000?storeId="+s.id, nil, s.owner.Token)
	assert.Equal(t, http.StatusNotFound, res.Status, "%s", res)

	// Export: a price and a count changed here reach the till.
	_, err = inv.Set(context.Background(), s.id, inventory.Stock{BookID: door.BookID, Quantity: 9, PriceCents: 950, Condition: door.Condition, ExternalItemID: door.ExternalItemID},
		inventory.Cause{Kind: inventory.CauseAdjust, UserID: s.owner.ID})
	require.NoError(t, err)
	res = sync(t, env, s, "export")
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	assert.EqualValues(t, 1, res.JSON["updated"], "%s", res)
	n, _ := env.POS.Count(door.ExternalItemID)
	assert.Equal(t, 9, n)
	res = sync(t, env, s, "two-way")
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	assert.EqualValues(t, 0, res.JSON["updated"], "%s", res)
	assert.EqualValues(t, 0, res.JSON["created"], "%s", res)
}

func TestSync_badModeAndRoles(t *testing.T) {
	env := testenv.New(t, testenv.WithWorkers())
	s := newShop(t, env, "role-shop")
	connect(t, env, s)

	res := env.Do("POST", "/v1/inventory/sync-extpos?storeId="+s.id, map[string]any{"mode": "sideways"}, s.owner.Token)
	testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "")
	assert.Contains(t, testenv.FieldErrors(t, res), "mode")

	for _, tc := range []struct {
		name   string
		token  string
		status int
	}{
		{"staff", s.staff.Token, http.StatusForbidden},
		{"other", s.other.Token, http.StatusForbidden},
		{"no token", "", http.StatusUnauthorized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := env.Do("GET", "/v1/integrations/extpos/connect?storeId="+s.id, nil, tc.token)
			assert.Equal(t, tc.status, res.Status, "connect: %s", res)
			res = env.Do("POST", "/v1/inventory/sync-extpos?storeId="+s.id, map[string]any{"mode": "import"}, tc.token)
			assert.Equal(t, tc.status, res.Status, "sync: %s", res)
			res = env.Do("GET", "/v1/inventory/sync-extpos/x?storeId="+s.id, nil, tc.token)
			assert.Equal(t, tc.status, res.Status, "job: %s", res)
		})
	}
	res = env.Do("GET", "/v1/integrations/extpos/connect?storeId=00000000-0000-4000-8000-000000000000", nil, s.owner.Token)
	assert.Equal(t, http.StatusNotFound, res.Status, "%s", res)
}

// callbackReason follows a callback in a browser holding cookie (nil:
// none) and returns the reason it redirected with ("" for connected).
func callbackReason(t *testing.T, env *testenv.Env, query string, cookie *http.Cookie) string {
	t.Helper()
	res := env.DoHeaders("GET", "/v1/integrations/extpos/callback?"+query, nil, withCookie(cookie))
	require.Equal(t, http.StatusFound, res.Status, "%s", res)
	// Whatever the outcome, the binding cookie is cleared.
	cleared := false
	for _, c := range (&http.Response{Header: res.Header}).Cookies() {
		cleared = cleared || (c.Name == extposapi.BindingCookie && c.MaxAge < 0)
	}
	require.True(t, cleared, "the callback did not clear the binding cookie: %v", res.Header)
	u, err := url.Parse(res.Header.Get("Location"))
	require.NoError(t, err)
	require.Equal(t, "/settings/integrations", u.Path)
	if u.Query().Get("extpos") == "connected" {
		return ""
	}
	require.Equal(t, "error", u.Query().Get("extpos"))
	return u.Query().Get("reason")
}

// authorise starts a connect as s's owner and follows the authorisation
// page: the callback's query, and the binding cookie of the owner's
// browser.
func authorise(t *testing.T, env *testenv.Env, s shop) (url.Values, *http.Cookie) {
	t.Helper()
	res := env.Do("GET", "/v1/integrations/extpos/connect?storeId="+s.id, nil, s.owner.Token)
	require.Equal(t, http.StatusFound, res.Status, "%s", res)
	cookie := bindingOf(t, res)
	res = env.Do("GET", res.Header.Get("Location"), nil, "")
	u, _ := url.Parse(res.Header.Get("Location"))
	return u.Query(), cookie
}

// The state is bound to the browser that started the connect: its
// authorisation link opened elsewhere (sent to another merchant) comes
// back without the binding cookie, or with another connect's, and
// connects nothing; the owner's own browser still can. The cookie is
// HttpOnly, SameSite=Lax, sent to the callback only, for the state's
// life, and Secure when the callback is HTTPS.
func TestCallback_stateBoundToTheBrowser(t *testing.T) {
	env := testenv.New(t)
	s := newShop(t, env, "bound-shop")

	q, mine := authorise(t, env, s)
	assert.True(t, mine.HttpOnly)
	assert.Equal(t, http.SameSiteLaxMode, mine.SameSite)
	assert.Equal(t, "/v1/integrations/extpos/callback", mine.Path)
	assert.Equal(t, int(extpos.DefaultStateTTL/time.Second), mine.MaxAge)
	assert.False(t, mine.Secure, "the local callback is plain HTTP")
	assert.NotContains(t, q.Get("state"), mine.Value, "the link carries the binding's hash, not the binding")

	_, theirs := authorise(t, env, s)
	assert.Equal(t, "browser_mismatch", callbackReason(t, env, q.Encode(), nil), "no cookie")
	assert.Equal(t, "browser_mismatch", callbackReason(t, env, q.Encode(), theirs), "another connect's cookie")
	assert.Equal(t, "browser_mismatch", callbackReason(t, env, q.Encode(), &http.Cookie{Name: extposapi.BindingCookie, Value: "x"}))
	_, err := dynamo.NewExtPos(env.App.Table).GetConnection(context.Background(), s.id)
	require.ErrorIs(t, err, extpos.ErrNotConnected)
	// Refusing the wrong browser did not use the state up.
	assert.Equal(t, "", callbackReason(t, env, q.Encode(), mine))

	// An https callback makes the cookie Secure.
	secure := testenv.New(t, testenv.WithEnv(extpos.EnvRedirectURL, "https://api.example/v1/integrations/extpos/callback"))
	s2 := newShop(t, secure, "secure-shop")
	res := secure.Do("GET", "/v1/integrations/extpos/connect?storeId="+s2.id, nil, s2.owner.Token)
	require.Equal(t, http.StatusFound, res.Status, "%s", res)
	assert.True(t, bindingOf(t, res).Secure)
}

// A store that changed hands while its owner was on the authorisation
// page is not connected with the former owner's state.
// A store's deletion takes its point-of-sale connection (the sealed
// tokens to the merchant's account) with it.
func TestConnection_goesWithTheStore(t *testing.T) {
	env := testenv.New(t)
	s := newShop(t, env, "closing-shop")
	back := connect(t, env, s)
	require.Equal(t, "connected", back.Query().Get("extpos"), back.String())
	_, err := dynamo.NewExtPos(env.App.Table).GetConnection(context.Background(), s.id)
	require.NoError(t, err)

	res := env.Do("DELETE", "/v1/stores/closing-shop", nil, s.owner.Token)
	require.Less(t, res.Status, 300, "%s", res)
	_, err = dynamo.NewExtPos(env.App.Table).GetConnection(context.Background(), s.id)
	require.ErrorIs(t, err, extpos.ErrNotConnected)
	assert.Nil(t, env.Item(t, dynamo.ExtPosConnectionKey(s.id)))
}

func TestCallback_ownerChangedMeanwhile(t *testing.T) {
	env := testenv.New(t)
	s := newShop(t, env, "sold-shop")
	q, cookie := authorise(t, env, s)

	k := dynamo.StoreKey(s.id)
	_, err := env.App.DB.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{
		TableName:                 aws.String(env.Config.TableName),
		Key:                       map[string]dbtypes.AttributeValue{"PK": &dbtypes.AttributeValueMemberS{Value: k.PK}, "SK": &dbtypes.AttributeValueMemberS{Value: k.SK}},
		UpdateExpression:          aws.String("SET ownerUserId = :o"),
		ExpressionAttributeValues: map[string]dbtypes.AttributeValue{":o": &dbtypes.AttributeValueMemberS{Value: s.other.ID}},
	})
	require.NoError(t, err)
	assert.Equal(t, "not_owner", callbackReason(t, env, q.Encode(), cookie))
	_, err = dynamo.NewExtPos(env.App.Table).GetConnection(context.Background(), s.id)
	require.ErrorIs(t, err, extpos.ErrNotConnected)
}

func TestCallback_forgedExpiredReusedState(t *testing.T) {
	clock := testenv.NewClock(time.Now())
	env := testenv.New(t, testenv.WithWorkers(), testenv.WithClock(clock), testenv.WithEnv("APP_URL", "https://app.example/"))
	s := newShop(t, env, "state-shop")

	authorise := func() (url.Values, *http.Cookie) {
		return authorise(t, env, s)
	}

	q, cookie := authorise()
	state := q.Get("state")
	payload, sig, _ := strings.Cut(state, ".")
	forged := url.Values{"code": {q.Get("code")}, "state": {payload[:len(payload)-2] + "AA." + sig}}
	assert.Equal(t, "invalid_state", callbackReason(t, env, forged.Encode(), cookie))
	assert.Equal(t, "invalid_state", callbackReason(t, env, url.Values{"code": {q.Get("code")}, "state": {"garbage"}}.Encode(), cookie))
	assert.Equal(t, "invalid_state", callbackReason(t, env, url.Values{"code": {q.Get("code")}}.Encode(), cookie))
	// The genuine one connects once; the second use is refused.
	assert.Equal(t, "", callbackReason(t, env, q.Encode(), cookie))
	assert.Equal(t, "state_reused", callbackReason(t, env, q.Encode(), cookie))

	// Expired: the owner took longer than the state's life.
	q, cookie = authorise()
	clock.Advance(extpos.DefaultStateTTL + time.Second)
	assert.Equal(t, "expired_state", callbackReason(t, env, q.Encode(), cookie))

	// Declined on the authorisation page.
	q, cookie = authorise()
	q.Del("code")
	q.Set("error", "access_denied")
	assert.Equal(t, "access_denied", callbackReason(t, env, q.Encode(), cookie))

	res := env.Do("GET", "/v1/integrations/extpos/callback?state=x", nil, "")
	assert.True(t, strings.HasPrefix(res.Header.Get("Location"), "https://app.example/settings/integrations?"), res.Header.Get("Location"))
}

func TestSync_refreshesAnExpiredToken(t *testing.T) {
	env := testenv.New(t, testenv.WithWorkers())
	demoBooks(t, env)
	s := newShop(t, env, "refresh-shop")
	connect(t, env, s)
	before := env.Item(t, dynamo.ExtPosConnectionKey(s.id))["tokens"]

	// The stand-in ends the token's life; the stored expiry says so too.
	env.POS.ExpireTokens()
	store := dynamo.NewExtPos(env.App.Table)
	c, err := store.GetConnection(context.Background(), s.id)
	require.NoError(t, err)
	sealer := extpos.LocalSealer{Keys: func() [][]byte { return env.App.Keys.Keys().Secrets() }}
	data, err := sealer.Open(context.Background(), c.Tokens, s.id)
	require.NoError(t, err)
	var tok map[string]any
	require.NoError(t, json.Unmarshal(data, &tok))
	tok["expiry"] = time.Now().Add(-time.Minute).Format(time.RFC3339)
	data, _ = json.Marshal(tok)
	sealed, err := sealer.Seal(context.Background(), data, s.id)
	require.NoError(t, err)
	require.NoError(t, store.SetTokens(context.Background(), s.id, sealed, time.Now()))

	res := sync(t, env, s, "import")
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	assert.Equal(t, "done", res.JSON["status"], "%s", res)
	assert.Equal(t, 1, env.POS.Refreshes)
	assert.NotEqual(t, before, env.Item(t, dynamo.ExtPosConnectionKey(s.id))["tokens"], "the refreshed token is stored")
}

// TestWorker_redeliveryAppliesNothingTwice hands the worker the same
// message twice, as SQS may: the second delivery applies nothing (the
// worker's record of the message; and the job, once done, is not run
// again), so stock and history change once.
func TestWorker_redeliveryAppliesNothingTwice(t *testing.T) {
	env := testenv.New(t, testenv.WithWorkers())
	ids := demoBooks(t, env)
	s := newShop(t, env, "redeliver-shop")
	connect(t, env, s)

	res := sync(t, env, s, "import")
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	jobID := res.JSON["jobId"].(string)
	first := env.Item(t, dynamo.ExtPosJobKey(s.id, jobID))

	var w *worker.Handler
	for _, g := range groups.All(env.App.Deps()) {
		if g.Worker != nil && g.Name == "possync" {
			h := g.Worker.Handle
			w = &h
		}
	}
	require.NotNil(t, w)
	body, _ := json.Marshal(extpos.Message{StoreID: s.id, JobID: jobID})
	env.POS.SetCount(env.POS.VariationByCode("9780345413994"), 1) // a sale after the sync
	handle := worker.Lambda(*w, dynamo.NewIdempotency(env.App.Table), queues.POSSync, nil, nil)
	// The sender's key (the job id): the worker's record skips it; a
	// copy under another key runs, and finds the job done.
	for _, key := range []string{jobID, "another-" + jobID} {
		key := key
		out, err := handle(context.Background(), events.SQSEvent{Records: []events.SQSMessage{{
			MessageId: "m-" + key, Body: string(body), Attributes: map[string]string{"ApproximateReceiveCount": "2"},
			MessageAttributes: map[string]events.SQSMessageAttribute{queues.KeyAttribute: {StringValue: &key, DataType: "String"}},
		}}})
		require.NoError(t, err)
		assert.Empty(t, out.BatchItemFailures)
	}
	assert.Equal(t, first["updatedAt"], env.Item(t, dynamo.ExtPosJobKey(s.id, jobID))["updatedAt"], "the job ran again")
	items, err := dynamo.NewInventory(env.App.Table).ByBooks(context.Background(), s.id, []string{ids["9780345413994"]})
	require.NoError(t, err)
	assert.Equal(t, 3, items[ids["9780345413994"]].Quantity, "a redelivered sync was applied again")
}

// A job id that is no id (a client's typo, a probe) is an unknown job,
// 404, not a key the table refuses (an id longer than a key may be was a
// 500).
func TestJob_malformedIDIs404(t *testing.T) {
	env := testenv.New(t)
	s := newShop(t, env, "job-id-shop")
	for _, id := range []string{"x", strings.Repeat("x", 3000)} {
		res := env.Do("GET", "/v1/inventory/sync-extpos/"+id+"?storeId="+s.id, nil, s.owner.Token)
		testenv.AssertError(t, res, http.StatusNotFound, "NotFound", "")
	}
}

// A sync that keeps failing for a passing reason (the point-of-sale
// system unreachable) is retried; on its last receipt before the
// dead-letter queue the job is finished failed, so the owner polling it
// does not see "queued" for ever.
func TestWorker_lastReceiptFailsTheJob(t *testing.T) {
	env := testenv.New(t, testenv.WithWorkers())
	s := newShop(t, env, "unreachable-shop")
	connect(t, env, s)
	j, err := extpos.NewService(extpos.Deps{Store: dynamo.NewExtPos(env.App.Table), Now: time.Now}).RequestSync(context.Background(), s.id, s.owner.ID, extpos.Import)
	require.NoError(t, err)

	// The possync group as its function would build it, with the
	// point-of-sale system's address unreachable.
	deps := env.App.Deps()
	deps.Env = config.NewEnv(func(n string) string {
		if n == extpos.EnvBaseURL {
			return "http://127.0.0.1:1"
		}
		return env.App.Deps().Env.String(n)
	})
	var w worker.Handler
	for _, g := range groups.All(deps) {
		if g.Worker != nil && g.Name == "possync" {
			w = g.Worker.Handle
		}
	}
	require.NotNil(t, w)
	body, _ := json.Marshal(extpos.Message{StoreID: s.id, JobID: j.ID})
	for receipt := 1; receipt <= queues.MaxReceiveCount; receipt++ {
		require.Error(t, w(context.Background(), worker.Message{ID: "m", Key: j.ID, Body: body, ReceiveCount: receipt}))
		status := "queued"
		if receipt == queues.MaxReceiveCount {
			status = "failed"
		}
		res := env.Do("GET", "/v1/inventory/sync-extpos/"+j.ID+"?storeId="+s.id, nil, s.owner.Token)
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		assert.Equal(t, status, res.JSON["status"], "receipt %d: %s", receipt, res)
		if status == "failed" {
			assert.NotEmpty(t, res.JSON["message"], "%s", res)
		}
	}
}

// A sync whose job cannot be sent to the worker (the queue unreachable:
// this environment has no queues) is a 500, and its job says it failed
// rather than queued for ever.
func TestSync_unsentJobFails(t *testing.T) {
	env := testenv.New(t)
	s := newShop(t, env, "unsent-shop")
	connect(t, env, s)
	res := env.Do("POST", "/v1/inventory/sync-extpos?storeId="+s.id, map[string]any{"mode": "import"}, s.owner.Token)
	require.Equal(t, http.StatusInternalServerError, res.Status, "%s", res)

	out, err := env.App.DB.Query(context.Background(), &dynamodb.QueryInput{
		TableName: aws.String(env.Config.TableName), KeyConditionExpression: aws.String("PK = :pk AND begins_with(SK, :sk)"),
		ExpressionAttributeValues: map[string]dbtypes.AttributeValue{
			":pk": &dbtypes.AttributeValueMemberS{Value: dynamo.StoreKey(s.id).PK}, ":sk": &dbtypes.AttributeValueMemberS{Value: "EXTPOSSYNC#"},
		},
	})
	require.NoError(t, err)
	require.Len(t, out.Items, 1)
	jobID := strings.TrimPrefix(out.Items[0]["SK"].(*dbtypes.AttributeValueMemberS).Value, "EXTPOSSYNC#")
	res = env.Do("GET", "/v1/inventory/sync-extpos/"+jobID+"?storeId="+s.id, nil, s.owner.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	assert.Equal(t, "failed", res.JSON["status"], "%s", res)
}

// One sync of a store at a time. Many owners' requests at once while a
// job is queued (its worker not running yet) are each answered 409
// naming that job; once it is done the next request is taken. And the
// store's lock itself, raced from many goroutines, goes to one job.
func TestSync_oneAtATime(t *testing.T) {
	env := testenv.New(t, testenv.WithQueues(), testenv.WithEnv(extposapi.EnvSyncWait, "1ms"))
	demoBooks(t, env)
	s := newShop(t, env, "busy-shop")
	connect(t, env, s)

	first := env.Do("POST", "/v1/inventory/sync-extpos?storeId="+s.id, map[string]any{"mode": "import"}, s.owner.Token)
	require.Equal(t, http.StatusAccepted, first.Status, "%s", first)
	jobID := first.JSON["jobId"].(string)

	const n = 8
	answers := make([]*testenv.Response, n)
	var wg gosync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = env.Do("POST", "/v1/inventory/sync-extpos?storeId="+s.id, map[string]any{"mode": "export"}, s.owner.Token)
		}()
	}
	wg.Wait()
	for _, res := range answers {
		testenv.AssertError(t, res, http.StatusConflict, "Conflict", "")
		assert.Equal(t, jobID, res.JSON["error"].(map[string]any)["details"].(map[string]any)["jobId"], "%s", res)
	}

	env.StartWorkers(t)
	done := awaitJob(t, env, s, first)
	require.Equal(t, "done", done.JSON["status"], "%s", done)
	res := sync(t, env, s, "import")
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	assert.EqualValues(t, 0, res.JSON["created"], "%s", res)

	// The lock: one conditional put wins however many race for it.
	store := dynamo.NewExtPos(env.App.Table)
	other := newShop(t, env, "race-shop")
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = store.LockSync(context.Background(), other.id, fmt.Sprintf("job-%d", i), time.Now(), extpos.SyncLease)
		}()
	}
	wg.Wait()
	winner := ""
	for i, err := range errs {
		if err == nil {
			require.Empty(t, winner, "two jobs took the lock")
			winner = fmt.Sprintf("job-%d", i)
		}
	}
	require.NotEmpty(t, winner)
	for _, err := range errs {
		var running *extpos.RunningError
		if err != nil {
			require.ErrorAs(t, err, &running)
			assert.Equal(t, winner, running.JobID)
		}
	}
	// Freed by its holder only.
	require.NoError(t, store.UnlockSync(context.Background(), other.id, "not-"+winner))
	require.ErrorIs(t, store.LockSync(context.Background(), other.id, "late", time.Now(), extpos.SyncLease), extpos.ErrSyncRunning)
	require.NoError(t, store.UnlockSync(context.Background(), other.id, winner))
	require.NoError(t, store.LockSync(context.Background(), other.id, "late", time.Now(), extpos.SyncLease))
}
