package adminapi_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/groups"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// auditCase is one operator write route: the action it takes against
// the world (answering the target's type and id) and the entry's action.
type auditCase struct {
	action string
	do     func(t *testing.T, w *auditWorld) (targetType, targetID string)
}

type auditWorld struct {
	env *testenv.Env
	op  testenv.Account
	mia testenv.Account
}

func (w *auditWorld) ok(t *testing.T, method, path string, body any) {
	t.Helper()
	res := w.env.Do(method, path, body, w.op.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s %s: %s", method, path, res)
}

// auditCases are the account routes that change something, by route
// key, each checked here through the audit log's own filters. Every
// write route of the group, these and the other areas' (moderation,
// applications, payouts and refunds), is walked by the call scenario
// too (local/bench, checkAuditEntry): each success leaves exactly one
// entry by the operator, in its transaction, and the scenario fails on
// a write route under /v1/admin that no step answered with a success.
var auditCases = map[string]auditCase{
	"PUT /v1/admin/users/{userId}/tier": {"user.tier", func(t *testing.T, w *auditWorld) (string, string) {
		w.ok(t, "PUT", "/v1/admin/users/"+w.mia.ID+"/tier", map[string]any{"tier": "premium", "reason": "Paid."})
		return "user", w.mia.ID
	}},
	"PUT /v1/admin/users/{userId}/operator": {"user.operator", func(t *testing.T, w *auditWorld) (string, string) {
		w.ok(t, "PUT", "/v1/admin/users/"+w.mia.ID+"/operator", map[string]any{"operator": false})
		return "user", w.mia.ID
	}},
	"POST /v1/admin/users/{userId}/suspend": {"user.suspend", func(t *testing.T, w *auditWorld) (string, string) {
		w.ok(t, "POST", "/v1/admin/users/"+w.mia.ID+"/suspend", map[string]any{"reason": "Spam."})
		return "user", w.mia.ID
	}},
	"POST /v1/admin/users/{userId}/restore": {"user.restore", func(t *testing.T, w *auditWorld) (string, string) {
		w.ok(t, "POST", "/v1/admin/users/"+w.mia.ID+"/restore", map[string]any{})
		return "user", w.mia.ID
	}},
	"DELETE /v1/admin/users/{userId}/rate-limits": {"user.rate_limits", func(t *testing.T, w *auditWorld) (string, string) {
		w.ok(t, "DELETE", "/v1/admin/users/"+w.mia.ID+"/rate-limits", nil)
		return "user", w.mia.ID
	}},
}

// TestAudit_everyOperatorWriteRoute walks every route under /v1/admin
// that changes something: each writes its audit entry, in its action's
// transaction (not apart), readable by target, actor and action.
func TestAudit_everyOperatorWriteRoute(t *testing.T) {
	env := testenv.New(t)
	w := &auditWorld{env: env, op: operator(t, env, "opal"), mia: env.Signup(t, "mia")}
	for _, rt := range groups.Routes() {
		key := rt.Method + " " + rt.Path
		if _, ok := auditCases[key]; !ok {
			continue
		}
		t.Run(key, func(t *testing.T) {
			c := auditCases[key]
			typ, id := c.do(t, w)
			q := url.Values{"targetType": {typ}, "targetId": {id}, "action": {c.action}, "actorId": {w.op.ID}}
			res := env.Do("GET", "/v1/admin/audit?"+q.Encode(), nil, w.op.Token)
			require.Equal(t, http.StatusOK, res.Status, res.String())
			items := res.JSON["items"].([]any)
			require.NotEmpty(t, items, "no %s entry on %s %s", c.action, typ, id)
			e := items[0].(map[string]any)
			assert.Equal(t, false, e["apart"], "written in the action's transaction")
			assert.Equal(t, w.op.ID, e["actorId"])
		})
	}
}

func TestAudit_list(t *testing.T) {
	clock := testenv.NewClock(time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC))
	env := testenv.New(t, testenv.WithClock(clock))
	op := operator(t, env, "opal")
	op2 := operator(t, env, "otto")
	mia := env.Signup(t, "mia")
	bob := env.Signup(t, "bob")
	tier := func(who testenv.Account, by testenv.Account, tier string) {
		t.Helper()
		clock.Advance(time.Minute)
		res := env.Do("PUT", "/v1/admin/users/"+who.ID+"/tier", map[string]any{"tier": tier, "reason": "Because."}, by.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
	}
	tier(mia, op, "premium")  // 09:01
	tier(bob, op2, "premium") // 09:02
	tier(mia, op2, "free")    // 09:03
	tier(bob, op, "free")     // 09:04
	ids := func(q string) []string {
		t.Helper()
		var out []string
		for _, p := range env.ReadPages(t, "/v1/admin/audit?limit=1&"+q, op.Token) {
			for _, it := range p.JSON["items"].([]any) {
				e := it.(map[string]any)
				out = append(out, e["targetId"].(string)+"/"+e["detail"].(map[string]any)["to"].(string))
			}
		}
		return out
	}
	assert.Equal(t, []string{bob.ID + "/free", mia.ID + "/free", bob.ID + "/premium", mia.ID + "/premium"}, ids(""), "newest first, every page")
	assert.Equal(t, []string{mia.ID + "/free", bob.ID + "/premium"}, ids("actorId="+op2.ID))
	assert.Equal(t, []string{mia.ID + "/free", mia.ID + "/premium"}, ids("targetType=user&targetId="+mia.ID))
	assert.Equal(t, []string{mia.ID + "/free"}, ids("actorId="+op2.ID+"&targetType=user&targetId="+mia.ID))
	assert.Equal(t, []string{mia.ID + "/free", bob.ID + "/premium"}, ids("from=2026-11-28T09:02:00Z&to=2026-11-28T09:03:00Z"))
	assert.Equal(t, []string{bob.ID + "/free"}, ids("from=2026-11-28T09:03:30Z"))
	assert.Empty(t, ids("action=user.suspend"))
	assert.Len(t, ids("action=user.tier&targetType=user"), 4)

	for _, q := range []string{"targetId=" + mia.ID, "from=yesterday", "from=2026-11-28T10:00:00Z&to=2026-11-28T09:00:00Z", "cursor=nope"} {
		assert.Equal(t, http.StatusBadRequest, env.Do("GET", "/v1/admin/audit?"+q, nil, op.Token).Status, q)
	}
	assert.Equal(t, http.StatusForbidden, env.Do("GET", "/v1/admin/audit", nil, mia.Token).Status)
}
