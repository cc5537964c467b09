package httpapi

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/auth"
	"github.com/bookplatform/backend/shared/users"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Store "corner" (id storeID) is owned by user "owner"; "staff" is staff
// there; "reader" is neither; "seller" has the bookstore tier;
// "operator" is one of the platform's operators (and no store's).
const storeID = "0b1e6a8e-5d3c-4f7a-9a43-2f9c1b0d7e11"

type roleWorld struct {
	reads atomic.Int32
	// meet, when set, is called as each read starts.
	meet func()
}

func (*roleWorld) VerifyAccessToken(token string) (auth.Claims, error) {
	if token == "" {
		return auth.Claims{}, auth.ErrInvalidToken
	}
	return auth.Claims{UserID: token}, nil
}

func (w *roleWorld) GetUser(_ context.Context, id string) (*users.User, error) {
	if w.meet != nil {
		w.meet()
	}
	time.Sleep(5 * time.Millisecond)
	switch id {
	case "owner":
		return &users.User{ID: id, Tier: users.TierBookstore, StoreID: storeID}, nil
	case "staff":
		return &users.User{ID: id, Tier: users.TierFree, StaffStoreIDs: []string{"other", storeID}}, nil
	case "clerk":
		return &users.User{ID: id, Tier: users.TierFree, StaffStoreIDs: []string{storeID}}, nil
	case "reader":
		return &users.User{ID: id, Tier: users.TierPremium}, nil
	case "seller":
		return &users.User{ID: id, Tier: users.TierBookstore}, nil
	case "operator":
		return &users.User{ID: id, Tier: users.TierFree, Operator: true}, nil
	}
	return nil, users.ErrNotFound
}

func (w *roleWorld) FindStore(_ context.Context, by StoreKey, v string) (StoreHeader, error) {
	w.reads.Add(1)
	if w.meet != nil {
		w.meet()
	}
	time.Sleep(5 * time.Millisecond)
	if (by == BySlug && v == "corner") || (by == ByID && v == storeID) {
		return StoreHeader{ID: storeID, Slug: "corner", OwnerID: "owner"}, nil
	}
	return StoreHeader{}, apperr.NotFound("Store not found")
}

type storeBody struct {
	StoreID string `json:"storeId"`
	Note    string `json:"note"`
}

func roleRouter(w *roleWorld) *Router {
	// Each handler answers the store the router resolved, and the body it
	// decodes, so a test sees both the check and what the handler got.
	h := func(w http.ResponseWriter, r *http.Request) error {
		var b storeBody
		if r.Method != http.MethodGet {
			if err := Decode(w, r, &b); err != nil {
				return err
			}
		}
		return JSON(w, http.StatusOK, map[string]string{"store": CallerOf(r).Store().ID, "note": b.Note})
	}
	return NewRouter(Options{Identity: w, Stores: w, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, []Route{
		{Method: "POST", Path: "/v1/stores", Auth: AuthBearer, Role: BookstoreTier, Handler: h, Doc: Doc{Body: storeBody{}}},
		{Method: "PUT", Path: "/v1/stores/{slug}", Auth: AuthBearer, Role: StoreOwner(SlugInPath("slug")), Handler: h, Doc: Doc{Body: storeBody{}}},
		{Method: "GET", Path: "/v1/stores/{slug}/staff", Auth: AuthBearer, AfterAdmission: true, Role: StoreOwner(SlugInPath("slug")), Handler: h},
		{Method: "GET", Path: "/v1/inventory", Auth: AuthBearer, AfterAdmission: true, Role: StoreStaff(IDInQuery("storeId")), Handler: h},
		{Method: "POST", Path: "/v1/pos/sales", Auth: AuthBearer, Role: StoreStaff(IDInBody("storeId")), Handler: h, Doc: Doc{Body: storeBody{}}},
		{Method: "GET", Path: "/v1/pos/summary", Auth: AuthBearer, Role: StoreStaff(IDInQueryOrOwn("storeId")), Handler: h},
		{Method: "GET", Path: "/v1/pos/sales/{id}", Auth: AuthBearer, Role: Role{Need: NeedAnyStaff}, Handler: h},
		{Method: "PUT", Path: "/v1/admin/users/{userId}/tier", Auth: AuthBearer, Role: Operator, Handler: h, Doc: Doc{Body: storeBody{}}},
	})
}

func roleCall(rt http.Handler, method, path, token, body string) (int, map[string]any) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, path, rd)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	rec := httptest.NewRecorder()
	rt.ServeHTTP(rec, req)
	var out map[string]any
	_ = json.Unmarshal(rec.Body.Bytes(), &out)
	return rec.Code, out
}

// The role matrix of one mechanism, over the three places a store can be
// named: the owner passes every store role, staff only the staff role,
// anyone else none; an unknown store is 404 for all; the handler gets the
// store the router read, and the body intact.
func TestRoles_Matrix(t *testing.T) {
	w := &roleWorld{}
	rt := roleRouter(w)
	body := `{"storeId":"` + storeID + `","note":"kept"}`
	cases := []struct {
		name, method, path, body string
		want                     map[string]int // caller → status
	}{
		{"tier", "POST", "/v1/stores", `{"note":"kept"}`, map[string]int{"seller": 200, "owner": 200, "staff": 403, "reader": 403, "operator": 403}},
		{"owner by slug in path", "PUT", "/v1/stores/corner", `{"note":"kept"}`, map[string]int{"owner": 200, "staff": 403, "reader": 403, "seller": 403, "operator": 403}},
		{"owner, a GET after admission", "GET", "/v1/stores/corner/staff", "", map[string]int{"owner": 200, "staff": 403, "reader": 403}},
		{"staff by id in query", "GET", "/v1/inventory?storeId=" + strings.ToUpper(storeID), "", map[string]int{"owner": 200, "staff": 200, "reader": 403, "operator": 403}},
		{"staff by id in body", "POST", "/v1/pos/sales", body, map[string]int{"owner": 200, "staff": 200, "reader": 403}},
		{"unknown slug", "PUT", "/v1/stores/elsewhere", `{}`, map[string]int{"owner": 404, "staff": 404, "reader": 404}},
		{"unknown id in query", "GET", "/v1/inventory?storeId=00000000-0000-4000-8000-000000000000", "", map[string]int{"owner": 404, "reader": 404}},
		{"no id in query", "GET", "/v1/inventory", "", map[string]int{"owner": 400, "reader": 400}},
		{"id in query not a UUID", "GET", "/v1/inventory?storeId=corner", "", map[string]int{"owner": 400}},
		{"no id in body", "POST", "/v1/pos/sales", `{"note":"x"}`, map[string]int{"staff": 400}},
		{"id in body not a string", "POST", "/v1/pos/sales", `{"storeId":7}`, map[string]int{"staff": 400}},
		// encoding/json would give the handler the other spelling's store.
		{"id in body twice, in two cases", "POST", "/v1/pos/sales", `{"storeId":"` + storeID + `","StoreId":"00000000-0000-4000-8000-000000000000","note":"x"}`,
			map[string]int{"owner": 400, "staff": 400, "reader": 400}},
		{"id in body in another case", "POST", "/v1/pos/sales", `{"STOREID":"` + storeID + `","note":"kept"}`, map[string]int{"owner": 200, "staff": 200, "reader": 403}},
		// A store id in the query that may default to the caller's own:
		// named, it is checked as any other; absent, it is the store the
		// caller owns, else the one it staffs; staff of several stores
		// must name one, and someone who staffs none is refused.
		{"own store named", "GET", "/v1/pos/summary?storeId=" + storeID, "", map[string]int{"owner": 200, "staff": 200, "clerk": 200, "reader": 403}},
		{"own store by default", "GET", "/v1/pos/summary", "", map[string]int{"owner": 200, "clerk": 200, "staff": 400, "reader": 403, "seller": 403}},
		// Staff anywhere: the handler decides on its record's store.
		{"staff at some store", "GET", "/v1/pos/sales/x", "", map[string]int{"owner": 200, "staff": 200, "clerk": 200, "reader": 403, "seller": 403, "operator": 403}},
		// The back office: operators only, whatever else the caller is
		// (an operator is no store's owner or staff either, above).
		{"operator", "PUT", "/v1/admin/users/u1/tier", `{"note":"kept"}`,
			map[string]int{"operator": 200, "owner": 403, "staff": 403, "seller": 403, "reader": 403}},
	}
	for _, c := range cases {
		for caller, want := range c.want {
			t.Run(c.name+"/"+caller, func(t *testing.T) {
				status, out := roleCall(rt, c.method, c.path, caller, c.body)
				require.Equal(t, want, status, "%v", out)
				if status == http.StatusOK {
					if (strings.Contains(c.path, "stores") && c.method == "POST") || strings.Contains(c.path, "/sales/") || strings.Contains(c.path, "/admin/") {
						assert.Equal(t, "", out["store"], "a tier role, staff anywhere, or an operator, names no store")
					} else {
						assert.Equal(t, storeID, out["store"], "the handler gets the store the role read")
					}
					if c.body != "" {
						assert.Equal(t, "kept", out["note"], "the body reaches the handler whole")
					}
				}
			})
		}
		t.Run(c.name+"/no token", func(t *testing.T) {
			status, _ := roleCall(rt, c.method, c.path, "", c.body)
			assert.Equal(t, http.StatusUnauthorized, status)
		})
	}
	t.Run("a deleted caller is 401 before any role", func(t *testing.T) {
		status, _ := roleCall(rt, "PUT", "/v1/stores/elsewhere", "gone", `{}`)
		assert.Equal(t, http.StatusUnauthorized, status)
	})
}

// The store is read beside the caller, not after it: a role costs no
// extra round trip. Each read waits at a rendezvous for the other one, so
// reads made one after the other never meet (the wait is a guard against
// a hang, not a measure).
func TestRoles_StoreReadBesideTheCaller(t *testing.T) {
	var met, missed atomic.Int32
	var mu sync.Mutex
	var waiting chan struct{}
	w := &roleWorld{meet: func() {
		mu.Lock()
		if waiting != nil {
			close(waiting)
			waiting = nil
			mu.Unlock()
			met.Add(1)
			return
		}
		ch := make(chan struct{})
		waiting = ch
		mu.Unlock()
		select {
		case <-ch:
		case <-time.After(5 * time.Second):
			mu.Lock()
			if waiting == ch {
				waiting = nil
			}
			mu.Unlock()
			missed.Add(1)
		}
	}}
	rt := roleRouter(w)
	const n = 3
	for range n {
		status, _ := roleCall(rt, "PUT", "/v1/stores/corner", "owner", `{}`)
		require.Equal(t, http.StatusOK, status)
	}
	assert.EqualValues(t, n, met.Load(), "caller and store read at the same time")
	assert.Zero(t, missed.Load(), "caller and store read one after the other")
	assert.EqualValues(t, n, w.reads.Load(), "one store read per request")
}

// StaffsStore is a NeedAnyStaff handler's check on its record's store.
func TestRoles_StaffsStore(t *testing.T) {
	assert.True(t, StaffsStore(&users.User{ID: "o", StoreID: storeID}, storeID))
	assert.True(t, StaffsStore(&users.User{ID: "s", StaffStoreIDs: []string{"other", storeID}}, storeID))
	assert.False(t, StaffsStore(&users.User{ID: "s", StaffStoreIDs: []string{"other"}}, storeID))
	assert.False(t, StaffsStore(&users.User{ID: "r"}, ""), "no store is nobody's")
	assert.False(t, StaffsStore(nil, storeID))
}

// A refused request never runs its handler.
func TestRoles_RefusedRequestsDoNotRunTheHandler(t *testing.T) {
	var runs atomic.Int32
	w := &roleWorld{}
	rt := NewRouter(Options{Identity: w, Stores: w, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, []Route{
		{Method: "DELETE", Path: "/v1/stores/{slug}", Auth: AuthBearer, Role: StoreOwner(SlugInPath("slug")),
			Handler: func(http.ResponseWriter, *http.Request) error { runs.Add(1); return nil }},
	})
	for _, who := range []string{"staff", "reader", ""} {
		status, _ := roleCall(rt, "DELETE", "/v1/stores/corner", who, "")
		assert.Contains(t, []int{401, 403}, status)
	}
	assert.Zero(t, runs.Load())
}

// A role the table cannot mean stops the router at start.
func TestRoles_MisdeclaredRolesStopTheRouter(t *testing.T) {
	nop := func(http.ResponseWriter, *http.Request) error { return nil }
	bad := []Route{
		{Method: "GET", Path: "/v1/stores/{slug}", Auth: AuthNone, Role: StoreOwner(SlugInPath("slug")), Handler: nop},
		{Method: "GET", Path: "/v1/stores/{slug}", Auth: AuthBearer, Role: StoreOwner(SlugInPath("id")), Handler: nop},
		{Method: "POST", Path: "/v1/sales", Auth: AuthBearer, Role: StoreStaff(IDInBody("storeId")), Handler: nop},
		{Method: "GET", Path: "/v1/x", Auth: AuthBearer, Role: Role{Store: SlugInPath("slug")}, Handler: nop},
		{Method: "GET", Path: "/v1/x", Auth: AuthNone, Role: Role{Need: NeedAnyStaff}, Handler: nop},
		{Method: "GET", Path: "/v1/x", Auth: AuthBearer, Role: Role{Need: NeedAnyStaff, Store: IDInQuery("storeId")}, Handler: nop},
		{Method: "GET", Path: "/v1/x/{slug}", Auth: AuthBearer, Role: StoreStaff(StoreRef{In: InPath, Name: "slug", By: BySlug, OrOwn: true}), Handler: nop},
	}
	for _, r := range bad {
		assert.Panics(t, func() { NewRouter(Options{}, []Route{r}) }, "%s %s %+v", r.Method, r.Path, r.Role)
	}
}

// barrierWorld is roleWorld whose store read cannot end before the
// handler has started (it waits for started), so a request the test
// sees served proves the handler started before admission ended.
type barrierWorld struct {
	roleWorld
	started chan struct{}
}

func (w *barrierWorld) FindStore(ctx context.Context, by StoreKey, v string) (StoreHeader, error) {
	<-w.started
	return w.roleWorld.FindStore(ctx, by, v)
}

// A role GET not marked AfterAdmission reads the role's store and the
// caller's record: it starts before admission (the barrier), its
// Store() and User() wait for admission and return what the router
// read; for a refused request the handler stops in that call, and the
// answer is the refusal, not a 500.
func TestEarlyGet_ReadsStoreAndUserOnceAdmitted(t *testing.T) {
	w := &barrierWorld{}
	var beforeRead, afterRead atomic.Int32
	rt := NewRouter(Options{Identity: w, Stores: w, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, []Route{
		{Method: "GET", Path: "/v1/inventory", Auth: AuthBearer, Role: StoreStaff(IDInQuery("storeId")),
			Handler: func(rw http.ResponseWriter, r *http.Request) error {
				beforeRead.Add(1)
				close(w.started) // the store read cannot have ended before this
				c := CallerOf(r)
				store, user := c.Store(), c.User()
				afterRead.Add(1)
				return JSON(rw, http.StatusOK, map[string]string{"store": store.ID, "owner": store.OwnerID, "user": user.ID})
			}},
	})

	w.started = make(chan struct{})
	status, out := roleCall(rt, "GET", "/v1/inventory?storeId="+storeID, "staff", "")
	require.Equal(t, http.StatusOK, status, "%v", out)
	assert.Equal(t, map[string]any{"store": storeID, "owner": "owner", "user": "staff"}, out)

	w.started = make(chan struct{})
	status, out = roleCall(rt, "GET", "/v1/inventory?storeId="+storeID, "reader", "")
	assert.Equal(t, http.StatusForbidden, status, "%v", out)
	assert.Equal(t, int32(2), beforeRead.Load(), "both handlers started before admission ended")
	assert.Equal(t, int32(1), afterRead.Load(), "the refused request's handler stopped at Store()")
}
