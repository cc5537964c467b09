package followsapi_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/events"
	"github.com/bookplatform/backend/shared/follows"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// data decodes an event's data.
func data(t *testing.T, ev events.Event) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(ev.Data, &m))
	return m
}

// Every follow emits its event, in its own transaction; the relay hands
// each to a consumer exactly once and marks it delivered with its TTL.
func TestFollows_EmitEvents(t *testing.T) {
	w := newWorld(t, testenv.WithStream())
	_, storeID := w.openStore(t, "shop_owner", "event-shop")
	ann := w.Signup(t, "ann")
	bob := w.Signup(t, "bob")
	rec := testenv.NewRecorder("test")
	stop := w.StartRelay(rec)

	require.Equal(t, http.StatusOK, w.Req("POST", "/v1/follows/users/"+bob.ID, nil, ann.Token).Status)
	require.Equal(t, http.StatusOK, w.Req("POST", "/v1/follows/stores/"+storeID, nil, ann.Token).Status)

	items := w.WaitDelivered(t, 2)
	stop() // nothing more can arrive: what the consumer has is all it gets
	got := rec.Events()
	require.Len(t, got, 2, "each follow's event once")
	byType := map[events.Type]events.Event{}
	for _, ev := range got {
		byType[ev.Type] = ev
		assert.Equal(t, 1, ev.Version)
		assert.NotEmpty(t, ev.ID)
	}
	user, store := byType[follows.UserFollowed.Type], byType[follows.StoreFollowed.Type]
	follow := w.Item(t, dynamo.FollowKey(ann.ID, "USER", bob.ID))
	assert.Equal(t, map[string]any{"followerId": ann.ID, "userId": bob.ID, "followedAt": follow["createdAt"]}, data(t, user))
	assert.Equal(t, follow["createdAt"], user.Time.Format(time.RFC3339Nano), "the event's time is the follow's")
	storeFollow := w.Item(t, dynamo.FollowKey(ann.ID, "STORE", storeID))
	assert.Equal(t, map[string]any{"followerId": ann.ID, "storeId": storeID, "followedAt": storeFollow["createdAt"]}, data(t, store))

	for _, it := range items {
		assert.Equal(t, it.DeliveredAt/1000+int64(dynamo.OutboxKeep/time.Second), it.ExpiresAt, "TTL a week after delivery")
	}
}

// A refused follow commits nothing, its event included.
func TestFollows_RefusedFollowRecordsNoEvent(t *testing.T) {
	w := newWorld(t)
	_, storeID := w.openStore(t, "shop_owner", "refusing-shop")
	ann := w.Signup(t, "ann")
	bob := w.Signup(t, "bob")
	require.Equal(t, http.StatusOK, w.Req("POST", "/v1/follows/users/"+bob.ID, nil, ann.Token).Status)
	require.Equal(t, http.StatusOK, w.Req("POST", "/v1/follows/stores/"+storeID, nil, ann.Token).Status)
	require.Len(t, w.Outbox(t), 2)

	testenv.AssertError(t, w.Req("POST", "/v1/follows/users/"+bob.ID, nil, ann.Token), http.StatusBadRequest, "ValidationError", "Already following")
	testenv.AssertError(t, w.Req("POST", "/v1/follows/stores/"+storeID, nil, ann.Token), http.StatusBadRequest, "ValidationError", "Already following")
	testenv.AssertError(t, w.Req("POST", "/v1/follows/users/"+unknownID, nil, ann.Token), http.StatusNotFound, "NotFound", "")
	testenv.AssertError(t, w.Req("POST", "/v1/follows/stores/"+unknownID, nil, ann.Token), http.StatusNotFound, "NotFound", "")
	testenv.AssertError(t, w.Req("POST", "/v1/follows/users/"+ann.ID, nil, ann.Token), http.StatusBadRequest, "ValidationError", "")
	require.Equal(t, http.StatusOK, w.Req("DELETE", "/v1/follows/users/"+bob.ID, nil, ann.Token).Status)

	assert.Len(t, w.Outbox(t), 2, "the two follows' events, nothing of the refusals or the unfollow")
}

// An event committed while no relay runs waits in the outbox and is
// delivered when a relay starts: nothing is lost between the commit and
// the relay.
func TestFollows_EventCommittedWithoutRelayIsDeliveredLater(t *testing.T) {
	w := newWorld(t, testenv.WithStream())
	ann := w.Signup(t, "ann")
	bob := w.Signup(t, "bob")
	require.Equal(t, http.StatusOK, w.Req("POST", "/v1/follows/users/"+bob.ID, nil, ann.Token).Status)
	items := w.Outbox(t)
	require.Len(t, items, 1)
	assert.Zero(t, items[0].DeliveredAt, "not delivered: no relay runs")
	assert.Zero(t, items[0].ExpiresAt, "an undelivered event does not expire")

	rec := testenv.NewRecorder("late")
	stop := w.StartRelay(rec)
	w.WaitDelivered(t, 1)
	stop()
	got := rec.Events()
	require.Len(t, got, 1)
	assert.Equal(t, items[0].Event.ID, got[0].ID)
	assert.Equal(t, follows.UserFollowed.Type, got[0].Type)

	// A relay started again reads the stream from its start: the event
	// is not delivered a second time.
	again := w.StartRelay(rec)
	require.Equal(t, http.StatusOK, w.Req("POST", "/v1/follows/users/"+ann.ID, nil, bob.Token).Status)
	delivered := w.WaitDelivered(t, 2)
	again()
	assert.Len(t, rec.Events(), 2, "the old event once, the new one once")

	// Marking again (a redelivered record) moves no expiry, and marking
	// an event whose item is gone brings back no item.
	ctx := t.Context()
	for _, it := range delivered {
		require.NoError(t, dynamo.NewOutbox(w.App.Table).Delivered(ctx, it.Event.ID, w.Clock.Now().Add(time.Hour)))
	}
	require.NoError(t, dynamo.NewOutbox(w.App.Table).Delivered(ctx, unknownID, w.Clock.Now()))
	assert.ElementsMatch(t, delivered, w.Outbox(t))
}
