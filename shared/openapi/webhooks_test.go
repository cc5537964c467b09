package openapi_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/follows"
	"github.com/bookplatform/backend/shared/groups"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every event a group declares is documented under webhooks, and an
// event as the service builds it is valid against its entry.
func TestDocument_webhooks(t *testing.T) {
	doc := document(t)
	declared := map[string]bool{}
	for _, g := range groups.All(api.Deps{}) {
		for _, d := range g.Emits {
			declared[string(d.Type)] = true
			item := doc.Webhooks[string(d.Type)]
			require.NotNil(t, item, "event %s is not in webhooks", d.Type)
			require.NotNil(t, item.Post)
			schema := item.Post.RequestBody.Value.Content.Get("application/json").Schema.Value
			assert.Equal(t, string(d.Type), schema.Properties["type"].Value.Const)
			assert.EqualValues(t, d.Version, schema.Properties["version"].Value.Const)
			assert.Contains(t, item.Post.Tags, g.Name, "tagged with every group that emits it")
		}
	}
	assert.Len(t, doc.Webhooks, len(declared), "webhooks documents the declared events, each once, and nothing else")
	require.NotEmpty(t, declared)

	at := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	ev, err := follows.UserFollowed.New(at, follows.UserFollowedData{FollowerID: "0b7e3c2a-1f4d-4c8e-9a6b-2d5f7e9c1a3b", UserID: "5c1d9e2f-7a3b-4e6c-8d1f-0a2b4c6d8e0f", FollowedAt: at})
	require.NoError(t, err)
	body, err := json.Marshal(ev)
	require.NoError(t, err)
	var v any
	require.NoError(t, json.Unmarshal(body, &v))
	schema := doc.Webhooks["user.followed"].Post.RequestBody.Value.Content.Get("application/json").Schema.Value
	assert.NoError(t, schema.VisitJSON(v), "the event as sent")
	delete(v.(map[string]any)["data"].(map[string]any), "userId")
	assert.Error(t, schema.VisitJSON(v), "the data's schema is checked")
}
