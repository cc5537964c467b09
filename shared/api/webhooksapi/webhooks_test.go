package webhooksapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/api/webhooksapi/webhooksapitest"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/queues"
	"github.com/bookplatform/backend/shared/webhooks"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { testenv.Main(m) }

var start = time.Date(2026, 11, 2, 15, 4, 5, 0, time.UTC)

func hooks(s testenv.Shop) string { return "/v1/stores/" + s.Slug + "/webhooks" }

// register registers an endpoint and returns its answer.
func register(t *testing.T, env *testenv.Env, s testenv.Shop, body map[string]any) map[string]any {
	t.Helper()
	res := env.Do("POST", hooks(s), body, s.Owner.Token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
	return res.JSON
}

func TestWebhooks_RegisterReadChangeDelete(t *testing.T) {
	clock := testenv.NewClock(start)
	env := testenv.New(t, testenv.WithClock(clock))
	s := env.OpenShop(t, "hooked", nil)

	first := register(t, env, s, map[string]any{"url": "https://erp.example.com/hooks", "events": []string{"order.created", "inventory.updated", "order.created"},
		"description": "ERP sync"})
	id := first["id"].(string)
	assert.True(t, strings.HasPrefix(first["secret"].(string), webhooks.SecretPrefix), "the secret is shown on registration")
	assert.Equal(t, []any{"order.created", "inventory.updated"}, first["events"], "duplicates dropped, the order kept")
	assert.Equal(t, "active", first["status"])
	assert.Equal(t, s.ID, first["storeId"])
	assert.Nil(t, first["disabledReason"])
	assert.Nil(t, first["previousSecretExpiresAt"])
	assert.Equal(t, "ERP sync", first["description"])

	clock.Advance(time.Minute)
	second := register(t, env, s, map[string]any{"url": "https://pos.example.com/in"})
	assert.Equal(t, []any{}, second["events"], "no events: every type")

	list := env.Do("GET", hooks(s), nil, s.Owner.Token)
	require.Equal(t, http.StatusOK, list.Status, "%s", list)
	data := list.JSON["data"].([]any)
	require.Len(t, data, 2)
	assert.Equal(t, second["id"], data[0].(map[string]any)["id"], "newest first")
	for _, e := range data {
		assert.NotContains(t, e.(map[string]any), "secret", "a list never shows a secret")
	}
	got := env.Do("GET", hooks(s)+"/"+id, nil, s.Owner.Token)
	require.Equal(t, http.StatusOK, got.Status, "%s", got)
	assert.NotContains(t, got.JSON, "secret")
	assert.Equal(t, "https://erp.example.com/hooks", got.JSON["url"])

	// A partial change leaves the other fields as they are.
	clock.Advance(time.Minute)
	res := env.Do("PUT", hooks(s)+"/"+id, map[string]any{"description": "ERP (staging)"}, s.Owner.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	assert.Equal(t, "ERP (staging)", res.JSON["description"])
	assert.Equal(t, "https://erp.example.com/hooks", res.JSON["url"])
	assert.Equal(t, []any{"order.created", "inventory.updated"}, res.JSON["events"])
	res = env.Do("PUT", hooks(s)+"/"+id, map[string]any{"url": "https://erp.example.com/v2/hooks", "events": []string{}}, s.Owner.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	assert.Equal(t, []any{}, res.JSON["events"], "an empty list: every type")
	assert.Equal(t, "https://erp.example.com/v2/hooks", res.JSON["url"])

	// Disabled by the owner, then enabled again: the failures counted
	// against it are cleared.
	res = env.Do("PUT", hooks(s)+"/"+id, map[string]any{"enabled": false}, s.Owner.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	assert.Equal(t, "disabled", res.JSON["status"])
	assert.Equal(t, webhooks.DisabledByOwner, res.JSON["disabledReason"])
	assert.NotNil(t, res.JSON["disabledAt"])
	item := env.Item(t, dynamo.WebhookEndpointKey(s.ID, id))
	item["consecutiveFailures"] = 4 // as the delivery worker counts them
	env.PutItem(t, item)
	res = env.Do("PUT", hooks(s)+"/"+id, map[string]any{"enabled": true}, s.Owner.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	assert.Equal(t, "active", res.JSON["status"])
	assert.Nil(t, res.JSON["disabledReason"])
	assert.Nil(t, res.JSON["disabledAt"])
	assert.EqualValues(t, 0, res.JSON["consecutiveFailures"])

	// Deleted: gone, and uncounted.
	assert.EqualValues(t, 2, env.Item(t, dynamo.WebhookCountKey(s.ID))["count"])
	res = env.Do("DELETE", hooks(s)+"/"+id, nil, s.Owner.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	assert.Equal(t, true, res.JSON["success"])
	assert.Equal(t, http.StatusNotFound, env.Do("GET", hooks(s)+"/"+id, nil, s.Owner.Token).Status)
	assert.Equal(t, http.StatusNotFound, env.Do("DELETE", hooks(s)+"/"+id, nil, s.Owner.Token).Status)
	assert.Equal(t, http.StatusNotFound, env.Do("PUT", hooks(s)+"/"+id, map[string]any{"enabled": false}, s.Owner.Token).Status)
	assert.EqualValues(t, 1, env.Item(t, dynamo.WebhookCountKey(s.ID))["count"])
	assert.Equal(t, http.StatusNotFound, env.Do("GET", hooks(s)+"/not-a-uuid", nil, s.Owner.Token).Status)
}

func TestWebhooks_OwnerOnly(t *testing.T) {
	env := testenv.New(t)
	s := env.OpenShop(t, "owned", nil)
	other := env.OpenShop(t, "other", nil)
	id := register(t, env, s, map[string]any{"url": "https://erp.example.com/hooks"})["id"].(string)

	body := map[string]any{"url": "https://erp.example.com/hooks"}
	assert.Equal(t, http.StatusForbidden, env.Do("POST", hooks(s), body, s.Staff.Token).Status, "staff are not the owner")
	assert.Equal(t, http.StatusForbidden, env.Do("GET", hooks(s), nil, other.Owner.Token).Status, "another store's owner")
	assert.Equal(t, http.StatusForbidden, env.Do("GET", hooks(s)+"/"+id, nil, s.Staff.Token).Status)
	// Another store's endpoint, through the caller's own store: not there.
	assert.Equal(t, http.StatusNotFound, env.Do("GET", hooks(other)+"/"+id, nil, other.Owner.Token).Status)
	assert.Equal(t, http.StatusNotFound, env.Do("DELETE", hooks(other)+"/"+id, nil, other.Owner.Token).Status)
	assert.Equal(t, http.StatusNotFound, env.Do("POST", hooks(other)+"/"+id+"/rotate-secret", nil, other.Owner.Token).Status)
	assert.Equal(t, http.StatusNotFound, env.Do("GET", hooks(other)+"/"+id+"/deliveries", nil, other.Owner.Token).Status)
	assert.Equal(t, http.StatusNotFound, env.Do("GET", "/v1/stores/no-such-store/webhooks", nil, s.Owner.Token).Status)
}

func TestWebhooks_RegistrationIsChecked(t *testing.T) {
	env := testenv.New(t)
	s := env.OpenShop(t, "checked", nil)
	for _, c := range []struct {
		name  string
		body  map[string]any
		field string
		says  string
	}{
		{"unknown event type", map[string]any{"url": "https://a.example.com/", "events": []string{"order.created", "order.shipped"}}, "events", `"order.shipped"`},
		{"no url", map[string]any{"events": []string{}}, "url", "required"},
		{"plain http", map[string]any{"url": "http://a.example.com/hooks"}, "url", "https"},
		{"another scheme", map[string]any{"url": "ftp://a.example.com/hooks"}, "url", "https"},
		{"relative", map[string]any{"url": "/hooks"}, "url", "absolute"},
		{"user info", map[string]any{"url": "https://user:pw@a.example.com/hooks"}, "url", "user name"},
		{"fragment", map[string]any{"url": "https://a.example.com/hooks#x"}, "url", "fragment"},
		{"too long", map[string]any{"url": "https://a.example.com/" + strings.Repeat("a", 2048)}, "url", "2048"},
		{"loopback", map[string]any{"url": "https://127.0.0.1/hooks"}, "url", "private"},
		{"private", map[string]any{"url": "https://10.1.2.3:8443/hooks"}, "url", "private"},
		{"metadata", map[string]any{"url": "https://169.254.169.254/latest/meta-data/"}, "url", "private"},
		{"IPv6 loopback", map[string]any{"url": "https://[::1]/hooks"}, "url", "private"},
		{"IPv4-mapped", map[string]any{"url": "https://[::ffff:10.0.0.1]/hooks"}, "url", "private"},
		{"localhost", map[string]any{"url": "https://localhost:8443/hooks"}, "url", "localhost"},
		{"a localhost name", map[string]any{"url": "https://api.localhost/hooks"}, "url", "localhost"},
		{"long description", map[string]any{"url": "https://a.example.com/", "description": strings.Repeat("d", 201)}, "description", "200"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := env.Do("POST", hooks(s), c.body, s.Owner.Token)
			require.Equal(t, http.StatusBadRequest, res.Status, "%s", res)
			assert.Contains(t, testenv.FieldErrors(t, res)[c.field], c.says)
		})
	}
	// A change is checked as a registration is, and changes nothing.
	id := register(t, env, s, map[string]any{"url": "https://a.example.com/hooks"})["id"].(string)
	res := env.Do("PUT", hooks(s)+"/"+id, map[string]any{"url": "https://192.168.1.1/", "events": []string{"nope"}}, s.Owner.Token)
	require.Equal(t, http.StatusBadRequest, res.Status, "%s", res)
	assert.Len(t, testenv.FieldErrors(t, res), 2)
	assert.Equal(t, "https://a.example.com/hooks", env.Do("GET", hooks(s)+"/"+id, nil, s.Owner.Token).JSON["url"])
	assert.EqualValues(t, 1, env.Item(t, dynamo.WebhookCountKey(s.ID))["count"], "refusals count nothing")
}

// The local run allows receivers on this machine (make run sets
// WEBHOOK_ALLOW_PRIVATE_TARGETS): http and loopback are accepted.
func TestWebhooks_PrivateTargetsWhenAllowed(t *testing.T) {
	env := testenv.New(t, testenv.WithEnv(webhooks.EnvAllowPrivateTargets, "true"))
	s := env.OpenShop(t, "local", nil)
	for _, u := range []string{"http://127.0.0.1:9000/hooks", "http://localhost:9000/hooks", "https://10.0.0.5/hooks"} {
		assert.Equal(t, u, register(t, env, s, map[string]any{"url": u})["url"])
	}
	res := env.Do("POST", hooks(s), map[string]any{"url": "ftp://127.0.0.1/"}, s.Owner.Token)
	assert.Equal(t, http.StatusBadRequest, res.Status, "still http or https: %s", res)
}

// The limit holds however many registrations race: the count item
// changes in each creation's transaction.
func TestWebhooks_LimitIsExactUnderConcurrency(t *testing.T) {
	env := testenv.New(t, testenv.WithEnv(webhooks.EnvMaxEndpoints, "3"))
	s := env.OpenShop(t, "limited", nil)
	const tries = 8
	var wg sync.WaitGroup
	statuses := make([]*testenv.Response, tries)
	for i := range tries {
		wg.Go(func() {
			statuses[i] = env.Do("POST", hooks(s), map[string]any{"url": fmt.Sprintf("https://h%d.example.com/", i)}, s.Owner.Token)
		})
	}
	wg.Wait()
	created := 0
	for _, res := range statuses {
		switch res.Status {
		case http.StatusCreated:
			created++
		case http.StatusBadRequest:
			assert.EqualValues(t, 3, testenv.ErrorOf(t, res)["details"].(map[string]any)["limit"], "the limit is named")
		default:
			t.Errorf("unexpected answer %s", res)
		}
	}
	assert.Equal(t, 3, created)
	list := env.Do("GET", hooks(s), nil, s.Owner.Token)
	require.Len(t, list.JSON["data"], 3)
	assert.EqualValues(t, 3, env.Item(t, dynamo.WebhookCountKey(s.ID))["count"])

	// A deletion makes room for one.
	id := list.JSON["data"].([]any)[0].(map[string]any)["id"].(string)
	require.Equal(t, http.StatusOK, env.Do("DELETE", hooks(s)+"/"+id, nil, s.Owner.Token).Status)
	register(t, env, s, map[string]any{"url": "https://again.example.com/"})
	assert.Equal(t, http.StatusBadRequest, env.Do("POST", hooks(s), map[string]any{"url": "https://more.example.com/"}, s.Owner.Token).Status)
}

func TestWebhooks_RotateSecret(t *testing.T) {
	clock := testenv.NewClock(start)
	env := testenv.New(t, testenv.WithClock(clock), testenv.WithEnv(webhooks.EnvSecretGrace, "2h"))
	s := env.OpenShop(t, "rotated", nil)
	e := register(t, env, s, map[string]any{"url": "https://a.example.com/hooks"})
	id, old := e["id"].(string), e["secret"].(string)

	clock.Advance(10 * time.Minute)
	res := env.Do("POST", hooks(s)+"/"+id+"/rotate-secret", nil, s.Owner.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	secret := res.JSON["secret"].(string)
	assert.True(t, strings.HasPrefix(secret, webhooks.SecretPrefix))
	assert.NotEqual(t, old, secret)
	assert.Equal(t, "2026-11-02T17:14:05.000Z", res.JSON["previousSecretExpiresAt"], "the grace runs from the rotation")

	// Both sign until the grace ends, then the new one alone.
	item := env.Item(t, dynamo.WebhookEndpointKey(s.ID, id))
	assert.Equal(t, old, item["previousSecret"])
	assert.Equal(t, secret, item["secret"])
	ep, err := dynamo.NewWebhooks(env.App.Table).Endpoint(t.Context(), s.ID, id)
	require.NoError(t, err)
	assert.Equal(t, []string{secret, old}, ep.Secrets(clock.Now()))
	assert.Equal(t, []string{secret}, ep.Secrets(clock.Now().Add(2*time.Hour)))
	assert.NotContains(t, env.Do("GET", hooks(s)+"/"+id, nil, s.Owner.Token).JSON, "secret")
}

func TestWebhooks_TestEventGoesThroughTheOutbox(t *testing.T) {
	clock := testenv.NewClock(start)
	env := testenv.New(t, testenv.WithClock(clock))
	s := env.OpenShop(t, "tested", nil)
	id := register(t, env, s, map[string]any{"url": "https://a.example.com/hooks", "events": []string{"store.followed"}})["id"].(string)

	res := env.Do("POST", hooks(s)+"/"+id+"/test", nil, s.Owner.Token)
	require.Equal(t, http.StatusAccepted, res.Status, "%s", res)
	var tests []testenv.OutboxItem
	for _, o := range env.Outbox(t) {
		if o.Event.Type == webhooks.TestEvent.Type {
			tests = append(tests, o)
		}
	}
	require.Len(t, tests, 1, "one webhook.test event, whatever the endpoint subscribes to")
	ev := tests[0].Event
	assert.Equal(t, res.JSON["eventId"], ev.ID)
	assert.Equal(t, webhooks.DeliveryID(ev.ID, id, ev.Time), res.JSON["deliveryId"], "the id its delivery will have")
	var data webhooks.TestData
	require.NoError(t, json.Unmarshal(ev.Data, &data))
	assert.Equal(t, s.ID, data.StoreID)
	assert.Equal(t, id, data.EndpointID)
	assert.Equal(t, start, data.SentAt)

	// A disabled endpoint receives nothing: no event.
	require.Equal(t, http.StatusOK, env.Do("PUT", hooks(s)+"/"+id, map[string]any{"enabled": false}, s.Owner.Token).Status)
	res = env.Do("POST", hooks(s)+"/"+id+"/test", nil, s.Owner.Token)
	require.Equal(t, http.StatusBadRequest, res.Status, "%s", res)
	assert.Contains(t, testenv.ErrorOf(t, res)["message"], "disabled")
	assert.Equal(t, http.StatusNotFound, env.Do("POST", hooks(s)+"/00000000-0000-4000-8000-000000000000/test", nil, s.Owner.Token).Status)
	n := 0
	for _, o := range env.Outbox(t) {
		if o.Event.Type == webhooks.TestEvent.Type {
			n++
		}
	}
	assert.Equal(t, 1, n)
}

// putDelivery stores a delivery as the worker leaves it.
func putDelivery(t *testing.T, env *testenv.Env, storeID, endpointID, eventID string, st webhooks.DeliveryStatus, at time.Time) string {
	t.Helper()
	item, id := webhooksapitest.DeliveryItem(storeID, endpointID, eventID, st, at)
	env.PutItem(t, item)
	return id
}

func TestWebhooks_Deliveries(t *testing.T) {
	env := testenv.New(t)
	s := env.OpenShop(t, "delivered", nil)
	other := env.OpenShop(t, "elsewhere", nil)
	id := register(t, env, s, map[string]any{"url": "https://a.example.com/hooks"})["id"].(string)
	otherID := register(t, env, other, map[string]any{"url": "https://b.example.com/hooks"})["id"].(string)
	oldest := putDelivery(t, env, s.ID, id, "0190f5a4-7c1e-4000-8000-000000000001", webhooks.Succeeded, start)
	middle := putDelivery(t, env, s.ID, id, "0190f5a4-7c1e-4000-8000-000000000002", webhooks.Failed, start.Add(time.Minute))
	newest := putDelivery(t, env, s.ID, id, "0190f5a4-7c1e-4000-8000-000000000003", webhooks.Succeeded, start.Add(2*time.Minute))
	theirs := putDelivery(t, env, other.ID, otherID, "0190f5a4-7c1e-4000-8000-000000000004", webhooks.Failed, start)

	ids := func(path string) (out []string, next string) {
		res := env.Do("GET", path, nil, s.Owner.Token)
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		for _, d := range res.JSON["items"].([]any) {
			m := d.(map[string]any)
			assert.NotContains(t, m, "payload", "a list leaves the payloads out")
			out = append(out, m["id"].(string))
		}
		next, _ = res.JSON["nextCursor"].(string)
		return out, next
	}
	all, _ := ids(hooks(s) + "/" + id + "/deliveries")
	assert.Equal(t, []string{newest, middle, oldest}, all, "newest first")
	failed, _ := ids(hooks(s) + "/" + id + "/deliveries?status=failed")
	assert.Equal(t, []string{middle}, failed)
	// Pages of one.
	var paged []string
	path := hooks(s) + "/" + id + "/deliveries?status=succeeded&limit=1"
	for range 5 {
		got, next := ids(path)
		paged = append(paged, got...)
		if next == "" {
			break
		}
		path = hooks(s) + "/" + id + "/deliveries?status=succeeded&limit=1&cursor=" + next
	}
	assert.Equal(t, []string{newest, oldest}, paged)
	res := env.Do("GET", hooks(s)+"/"+id+"/deliveries?status=lost", nil, s.Owner.Token)
	assert.Equal(t, http.StatusBadRequest, res.Status, "%s", res)

	// One in full: its payload as an object, its attempts.
	res = env.Do("GET", hooks(s)+"/"+id+"/deliveries/"+middle, nil, s.Owner.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	assert.Equal(t, "failed", res.JSON["status"])
	assert.EqualValues(t, 500, res.JSON["responseCode"])
	assert.Equal(t, "HTTP 500", res.JSON["error"])
	assert.Equal(t, "inventory.updated", res.JSON["payload"].(map[string]any)["type"])
	hist := res.JSON["history"].([]any)
	require.Len(t, hist, 1)
	assert.EqualValues(t, 42, hist[0].(map[string]any)["durationMs"])
	assert.Nil(t, res.JSON["nextAttemptAt"])

	// Another endpoint's delivery, or another store's, is not there.
	assert.Equal(t, http.StatusNotFound, env.Do("GET", hooks(s)+"/"+id+"/deliveries/"+theirs, nil, s.Owner.Token).Status)
	assert.Equal(t, http.StatusNotFound, env.Do("GET", hooks(s)+"/"+otherID+"/deliveries/"+theirs, nil, s.Owner.Token).Status)
	assert.Equal(t, http.StatusNotFound, env.Do("GET", hooks(s)+"/"+otherID+"/deliveries", nil, s.Owner.Token).Status)
	assert.Equal(t, http.StatusNotFound, env.Do("GET", hooks(s)+"/"+id+"/deliveries/nope", nil, s.Owner.Token).Status)
}

// receive reads the messages of the webhooks queue.
func receive(t *testing.T, env *testenv.Env) []webhooks.Message {
	t.Helper()
	out, err := env.SQS.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{
		QueueUrl: aws.String(env.QueueURLs[queues.Webhooks]), MaxNumberOfMessages: 10, WaitTimeSeconds: 1,
	})
	require.NoError(t, err)
	var msgs []webhooks.Message
	for _, m := range out.Messages {
		var msg webhooks.Message
		require.NoError(t, json.Unmarshal([]byte(aws.ToString(m.Body)), &msg))
		msgs = append(msgs, msg)
	}
	return msgs
}

func TestWebhooks_Redeliver(t *testing.T) {
	clock := testenv.NewClock(start)
	env := testenv.New(t, testenv.WithClock(clock), testenv.WithQueues())
	s := env.OpenShop(t, "again", nil)
	id := register(t, env, s, map[string]any{"url": "https://a.example.com/hooks"})["id"].(string)
	failed := putDelivery(t, env, s.ID, id, "0190f5a4-7c1e-4000-8000-000000000001", webhooks.Failed, start.Add(-time.Hour))
	redeliver := func(d string) *testenv.Response {
		return env.Do("POST", hooks(s)+"/"+id+"/deliveries/"+d+"/redeliver", nil, s.Owner.Token)
	}

	res := redeliver(failed)
	require.Equal(t, http.StatusAccepted, res.Status, "%s", res)
	assert.Equal(t, "pending", res.JSON["status"])
	assert.Equal(t, "2026-11-02T15:04:05.000Z", res.JSON["nextAttemptAt"], "due now")
	msgs := receive(t, env)
	require.Len(t, msgs, 1)
	assert.Equal(t, webhooks.Message{DeliveryID: failed, EndpointID: id, Attempt: 2, Manual: true}, msgs[0], "one manual attempt after the one made")
	assert.Equal(t, "pending", env.Item(t, dynamo.WebhookDeliveryKey(id, failed))["status"])

	// While it is pending, no second attempt is queued.
	res = redeliver(failed)
	assert.Equal(t, http.StatusConflict, res.Status, "%s", res)
	assert.Empty(t, receive(t, env))

	// A succeeded one may be sent again; a disabled endpoint's may not.
	ok := putDelivery(t, env, s.ID, id, "0190f5a4-7c1e-4000-8000-000000000002", webhooks.Succeeded, start.Add(-time.Hour))
	require.Equal(t, http.StatusOK, env.Do("PUT", hooks(s)+"/"+id, map[string]any{"enabled": false}, s.Owner.Token).Status)
	res = redeliver(ok)
	assert.Equal(t, http.StatusBadRequest, res.Status, "%s", res)
	require.Equal(t, http.StatusOK, env.Do("PUT", hooks(s)+"/"+id, map[string]any{"enabled": true}, s.Owner.Token).Status)
	require.Equal(t, http.StatusAccepted, redeliver(ok).Status)
	require.Len(t, receive(t, env), 1)
	assert.Equal(t, http.StatusNotFound, redeliver("00000000-0000-7000-8000-000000000000").Status)
}

// A redelivery whose attempt cannot be queued leaves the delivery as it
// was: never pending with nothing to try it.
func TestWebhooks_RedeliverUnqueuedIsTakenBack(t *testing.T) {
	env := testenv.New(t) // no queues: a send fails
	s := env.OpenShop(t, "unqueued", nil)
	id := register(t, env, s, map[string]any{"url": "https://a.example.com/hooks"})["id"].(string)
	failed := putDelivery(t, env, s.ID, id, "0190f5a4-7c1e-4000-8000-000000000001", webhooks.Failed, start)
	res := env.Do("POST", hooks(s)+"/"+id+"/deliveries/"+failed+"/redeliver", nil, s.Owner.Token)
	assert.GreaterOrEqual(t, res.Status, 500, "%s", res)
	item := env.Item(t, dynamo.WebhookDeliveryKey(id, failed))
	assert.Equal(t, "failed", item["status"])
	assert.NotContains(t, item, "nextAttemptAt")
}

// A store's deletion takes its endpoints and their count with it.
func TestWebhooks_StoreDeletionRemovesEndpoints(t *testing.T) {
	env := testenv.New(t)
	s := env.OpenShop(t, "closing", nil)
	a := register(t, env, s, map[string]any{"url": "https://a.example.com/hooks"})["id"].(string)
	b := register(t, env, s, map[string]any{"url": "https://b.example.com/hooks"})["id"].(string)
	res := env.Do("DELETE", "/v1/stores/"+s.Slug, nil, s.Owner.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	assert.Nil(t, env.Item(t, dynamo.WebhookEndpointKey(s.ID, a)))
	assert.Nil(t, env.Item(t, dynamo.WebhookEndpointKey(s.ID, b)))
	assert.Nil(t, env.Item(t, dynamo.WebhookCountKey(s.ID)))
}
