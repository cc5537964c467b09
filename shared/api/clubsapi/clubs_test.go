package clubsapi_test

import (
	"context"
	"fmt"
	"github.com/bookplatform/backend/shared/api/clubsapi"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/clubs"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/storehost"
	"github.com/bookplatform/backend/shared/users"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// world is a test environment with a fake clock, a small catalog, one
// declared store and helpers for the clubs group. Every request moves the
// clock on by a little over a second, so creation times are distinct and
// lists have a predictable order.
type world struct {
	*testenv.Env
	clock  *testenv.Clock
	books  []string // ids of the catalog, in catalogRecords order
	stores testenv.StoreHosts
}

var catalogRecords = []books.Record{
	{ISBN: "0-306-40615-2", Title: "Harry Potter", Authors: []string{"J. K. Rowling"}, Language: "en"},
	{ISBN: "9780198534532", Title: "The Hobbit", Authors: []string{"J. R. R. Tolkien"}, Language: "en"},
	{ISBN: "9780261103573", Title: "The Lord of the Rings", Authors: []string{"J. R. R. Tolkien"}, Language: "en"},
	{ISBN: "9780439785969", Title: "Harry Potter and the Philosopher's Stone", Authors: []string{"J. K. Rowling"}, Language: "en"},
	{ISBN: "9780140449136", Title: "Crime and Punishment", Authors: []string{"Fyodor Dostoevsky"}, Language: "en"},
	{ISBN: "9780141439518", Title: "Pride and Prejudice", Authors: []string{"Jane Austen"}, Language: "en"},
	{ISBN: "9780142437230", Title: "Don Quixote", Authors: []string{"Miguel de Cervantes"}, Language: "en"},
	{ISBN: "9780143039433", Title: "The Grapes of Wrath", Authors: []string{"John Steinbeck"}, Language: "en"},
}

// storeID is the one store the world declares (testenv.StoreHosts).
const storeID = "5a1e0c3e-0000-4000-8000-00000000a001"

const unknownID = "00000000-0000-4000-8000-000000000000"

func newWorld(t *testing.T, opts ...testenv.Option) *world {
	t.Helper()
	stores := testenv.StoreHosts{
		Stores: map[string]storehost.Brief{storeID: {ID: storeID, Name: "Corner Books", Slug: "corner-books", LogoURL: "https://cdn.example/logo.png"}},
		Hosts:  map[string][]string{},
	}
	p := testenv.NewPaced(t, append([]testenv.Option{testenv.WithStoreHosts(stores)}, opts...)...)
	env := p.Env
	w := &world{Env: env, clock: p.Clock, stores: stores}
	w.books = env.ImportBooks(t, catalogRecords...)
	return w
}

// signup signs up a free account.
func (w *world) signup(t *testing.T, username string) testenv.Account {
	t.Helper()
	w.clock.Advance(1100 * time.Millisecond)
	return w.Signup(t, username)
}

// premium signs up an account and makes it premium.
func (w *world) premium(t *testing.T, username string) testenv.Account {
	t.Helper()
	a := w.signup(t, username)
	w.SetTier(t, a, users.TierPremium)
	return a
}

// req sends a request a moment after the previous one.
func (w *world) req(method, path string, body any, token string) *testenv.Response {
	w.clock.Advance(1100 * time.Millisecond)
	return w.Do(method, path, body, token)
}

// club creates a club as host and returns its JSON.
func (w *world) club(t *testing.T, host testenv.Account, name string, public bool) map[string]any {
	t.Helper()
	res := w.req("POST", "/v1/clubs", map[string]any{"name": name, "description": "About " + name, "isPublic": public}, host.Token)
	require.Equal(t, http.StatusCreated, res.Status, res.String())
	return res.JSON
}

// join makes a join a club.
func (w *world) join(t *testing.T, a testenv.Account, clubID string) {
	t.Helper()
	res := w.req("POST", "/v1/clubs/"+clubID+"/join", nil, a.Token)
	require.Equal(t, http.StatusCreated, res.Status, res.String())
}

// counts reads a club's stored counters.
func (w *world) counts(t *testing.T, clubID string) (members, books float64) {
	t.Helper()
	item := w.Item(t, dynamo.ClubKey(clubID))
	require.NotNil(t, item, "club %s", clubID)
	return item["memberCount"].(float64), item["bookCount"].(float64)
}

// dirCount reads the stored count of a directory of GET /clubs.
func (w *world) dirCount(t *testing.T, f clubs.Filter) float64 {
	t.Helper()
	item := w.Item(t, dynamo.DirCountKey(dynamo.ClubDir(f)))
	if item == nil {
		return 0
	}
	return item["count"].(float64)
}

func ids(list any) []string {
	var out []string
	for _, it := range list.([]any) {
		out = append(out, it.(map[string]any)["id"].(string))
	}
	return out
}

func TestClubs_Create(t *testing.T) {
	w := newWorld(t)
	pam := w.premium(t, "pam")

	res := w.req("POST", "/v1/clubs", map[string]any{
		"name": "  Tuesday Readers ", "description": "We read slowly.", "isPublic": true,
	}, pam.Token)
	require.Equal(t, http.StatusCreated, res.Status, res.String())
	c := res.JSON
	id := c["id"].(string)
	assert.Regexp(t, `^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`, id)
	assert.Equal(t, "Tuesday Readers", c["name"], "trimmed")
	assert.Equal(t, "We read slowly.", c["description"])
	assert.Equal(t, true, c["isPublic"])
	assert.Equal(t, pam.ID, c["hostId"])
	assert.Equal(t, map[string]any{"id": pam.ID, "username": "pam", "displayName": "Reader pam", "avatarUrl": nil, "tier": "premium"}, c["host"])
	assert.Nil(t, c["storeId"])
	assert.Nil(t, c["store"])
	assert.Equal(t, 1.0, c["memberCount"], "the creator is the first member")
	assert.Equal(t, 0.0, c["bookCount"])
	assert.Equal(t, []any{}, c["books"])
	assert.Equal(t, true, c["isMember"])
	assert.Equal(t, "host", c["memberRole"])
	assert.Equal(t, "2026-03-02T09:00:02.200Z", c["createdAt"])
	assert.Equal(t, c["createdAt"], c["updatedAt"])

	t.Run("stored: the club, the host's membership, its directory entries", func(t *testing.T) {
		m := w.Item(t, dynamo.ClubMemberKey(id, pam.ID))
		require.NotNil(t, m)
		assert.Equal(t, "host", m["role"])
		all := clubs.Filter{Scope: clubs.ScopeAll}
		assert.Equal(t, 1.0, w.dirCount(t, all))
		assert.Equal(t, 1.0, w.dirCount(t, clubs.Filter{Scope: clubs.ScopeUser, Public: new(true)}))
		assert.Equal(t, 0.0, w.dirCount(t, clubs.Filter{Scope: clubs.ScopeStore}))
	})
	t.Run("the single view reads back as created", func(t *testing.T) {
		res := w.req("GET", "/v1/clubs/"+id, nil, pam.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, c, res.JSON)
	})
	t.Run("isPublic left out makes a public club; description is optional", func(t *testing.T) {
		res := w.req("POST", "/v1/clubs", map[string]any{"name": "Open"}, pam.Token)
		require.Equal(t, http.StatusCreated, res.Status, res.String())
		assert.Equal(t, true, res.JSON["isPublic"])
		assert.Equal(t, "", res.JSON["description"])
	})
	t.Run("bookstore tier may create clubs", func(t *testing.T) {
		bo := w.signup(t, "boris")
		w.SetTier(t, bo, users.TierBookstore)
		res := w.req("POST", "/v1/clubs", map[string]any{"name": "Shop club", "isPublic": false}, bo.Token)
		require.Equal(t, http.StatusCreated, res.Status, res.String())
		assert.Equal(t, false, res.JSON["isPublic"])
	})
	t.Run("free tier is 403 and creates nothing", func(t *testing.T) {
		fred := w.signup(t, "fred")
		before := w.dirCount(t, clubs.Filter{Scope: clubs.ScopeAll})
		res := w.req("POST", "/v1/clubs", map[string]any{"name": "Mine", "isPublic": true}, fred.Token)
		testenv.AssertError(t, res, http.StatusForbidden, "Forbidden", clubs.ErrTier.Message)
		assert.Equal(t, before, w.dirCount(t, clubs.Filter{Scope: clubs.ScopeAll}))
	})
	invalid := []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"missing name", map[string]any{"isPublic": true}, "name"},
		{"blank name", map[string]any{"name": " \u200b "}, "name"},
		{"101-character name", map[string]any{"name": strings.Repeat("n", 101)}, "name"},
		{"control character in the name", map[string]any{"name": "a\u0007b"}, "name"},
		{"2001-character description", map[string]any{"name": "x", "description": strings.Repeat("d", 2001)}, "description"},
		{"storeId not a UUID", map[string]any{"name": "x", "storeId": "corner-books"}, "storeId"},
		{"isPublic not a boolean", map[string]any{"name": "x", "isPublic": "yes"}, "isPublic"},
	}
	for _, iv := range invalid {
		t.Run(iv.name+" is 400", func(t *testing.T) {
			res := w.req("POST", "/v1/clubs", iv.body, pam.Token)
			testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "")
			assert.Contains(t, testenv.FieldErrors(t, res), iv.field)
		})
	}
	t.Run("an unknown store is 404", func(t *testing.T) {
		res := w.req("POST", "/v1/clubs", map[string]any{"name": "x", "storeId": unknownID}, pam.Token)
		testenv.AssertError(t, res, http.StatusNotFound, "NotFound", "Store not found")
	})
	t.Run("a store the caller does not staff is 403", func(t *testing.T) {
		res := w.req("POST", "/v1/clubs", map[string]any{"name": "x", "storeId": storeID}, pam.Token)
		testenv.AssertError(t, res, http.StatusForbidden, "Forbidden", storehost.ErrNotStoreStaff.Message)
	})
	t.Run("its staff host a store club", func(t *testing.T) {
		w.stores.Hosts[storeID] = []string{pam.ID}
		res := w.req("POST", "/v1/clubs", map[string]any{"name": "Corner club", "storeId": strings.ToUpper(storeID)}, pam.Token)
		require.Equal(t, http.StatusCreated, res.Status, res.String())
		assert.Equal(t, storeID, res.JSON["storeId"])
		assert.Equal(t, map[string]any{"id": storeID, "name": "Corner Books", "slug": "corner-books", "logoUrl": "https://cdn.example/logo.png"}, res.JSON["store"])
		assert.Equal(t, 1.0, w.dirCount(t, clubs.Filter{Scope: clubs.ScopeStore, StoreID: storeID}))
	})
	t.Run("a store whose deletion has begun refuses the club in its transaction", func(t *testing.T) {
		// The directory allowed the host (it read the store before the
		// deletion began); the creating transaction checks it again, so
		// the deletion, which lets the store's clubs go, misses none.
		k := dynamo.StoreKey(storeID)
		w.PutItem(t, map[string]any{dynamo.AttrPK: k.PK, dynamo.AttrSK: k.SK, "deleting": true})
		defer w.DeleteItem(t, k)
		res := w.req("POST", "/v1/clubs", map[string]any{"name": "Too late", "storeId": storeID}, pam.Token)
		testenv.AssertError(t, res, http.StatusNotFound, "NotFound", "Store not found")
		assert.Equal(t, 1.0, w.dirCount(t, clubs.Filter{Scope: clubs.ScopeStore, StoreID: storeID}), "nothing created")
	})
	t.Run("without a token is 401", func(t *testing.T) {
		res := w.req("POST", "/v1/clubs", map[string]any{"name": "x"}, "")
		testenv.AssertError(t, res, http.StatusUnauthorized, "Unauthorized", "")
	})
	t.Run("the creator tiers are configuration", func(t *testing.T) {
		w := newWorld(t, testenv.WithEnv(clubsapi.EnvCreatorTiers, "free"))
		fred := w.signup(t, "fred")
		res := w.req("POST", "/v1/clubs", map[string]any{"name": "Free for all"}, fred.Token)
		require.Equal(t, http.StatusCreated, res.Status, res.String())
		pam := w.premium(t, "pam")
		testenv.AssertError(t, w.req("POST", "/v1/clubs", map[string]any{"name": "x"}, pam.Token), http.StatusForbidden, "Forbidden", "")
	})
}

func TestClubs_List(t *testing.T) {
	w := newWorld(t)
	pam, ann := w.premium(t, "pam"), w.signup(t, "ann")
	w.stores.Hosts[storeID] = []string{pam.ID}
	var created []map[string]any // oldest first
	for i := range 5 {
		created = append(created, w.club(t, pam, fmt.Sprintf("Club %d", i), i%2 == 0))
	}
	res := w.req("POST", "/v1/clubs", map[string]any{"name": "Corner club", "storeId": storeID, "isPublic": true}, pam.Token)
	require.Equal(t, http.StatusCreated, res.Status, res.String())
	store := res.JSON
	newestFirst := []string{store["id"].(string)}
	for i := len(created) - 1; i >= 0; i-- {
		newestFirst = append(newestFirst, created[i]["id"].(string))
	}

	res = w.req("GET", "/v1/clubs", nil, "")
	require.Equal(t, http.StatusOK, res.Status, res.String())
	assert.Equal(t, 6.0, res.JSON["total"])
	assert.Equal(t, 20.0, res.JSON["limit"])
	assert.Equal(t, 0.0, res.JSON["offset"])
	assert.Equal(t, newestFirst, ids(res.JSON["clubs"]), "newest first, private clubs listed too")
	first := res.JSON["clubs"].([]any)[0].(map[string]any)
	assert.Equal(t, map[string]any{
		"id": store["id"], "name": "Corner club", "description": "", "isPublic": true, "hostId": pam.ID,
		"host":    map[string]any{"id": pam.ID, "username": "pam", "displayName": "Reader pam", "avatarUrl": nil},
		"storeId": storeID, "store": map[string]any{"id": storeID, "name": "Corner Books", "slug": "corner-books"},
		"memberCount": 1.0, "bookCount": 0.0, "createdAt": store["createdAt"], "updatedAt": store["updatedAt"],
	}, first, "the listing: host without tier, store without logo")

	t.Run("offset pages neither skip nor repeat", func(t *testing.T) {
		var got []string
		for offset := 0; offset < 8; offset += 4 {
			res := w.req("GET", fmt.Sprintf("/v1/clubs?limit=4&offset=%d", offset), nil, ann.Token)
			require.Equal(t, http.StatusOK, res.Status, res.String())
			assert.Equal(t, 6.0, res.JSON["total"])
			got = append(got, ids(res.JSON["clubs"])...)
		}
		assert.Equal(t, newestFirst, got)
		res := w.req("GET", "/v1/clubs?offset=50", nil, "")
		assert.Equal(t, []any{}, res.JSON["clubs"])
		assert.Equal(t, 6.0, res.JSON["total"])
	})
	filters := []struct {
		query string
		want  []string
	}{
		{"isPublic=true", []string{newestFirst[0], newestFirst[1], newestFirst[3], newestFirst[5]}},
		{"isPublic=false", []string{newestFirst[2], newestFirst[4]}},
		{"scope=user", newestFirst[1:]},
		{"scope=user&isPublic=false", []string{newestFirst[2], newestFirst[4]}},
		{"scope=store", newestFirst[:1]},
		{"scope=store&storeId=" + storeID, newestFirst[:1]},
		{"storeId=" + storeID, newestFirst[:1]},
		{"scope=store&storeId=" + storeID + "&isPublic=false", nil},
		{"scope=store&storeId=" + unknownID, nil},
		{"scope=all&isPublic=true&limit=2&offset=1", []string{newestFirst[1], newestFirst[3]}},
	}
	for _, f := range filters {
		t.Run(f.query, func(t *testing.T) {
			res := w.req("GET", "/v1/clubs?"+f.query, nil, "")
			require.Equal(t, http.StatusOK, res.Status, res.String())
			assert.Equal(t, f.want, ids(res.JSON["clubs"]))
			if !strings.Contains(f.query, "limit") {
				assert.Equal(t, float64(len(f.want)), res.JSON["total"], "the total is exact")
			}
		})
	}
	for _, q := range []string{"scope=mine", "isPublic=yes", "storeId=corner-books", "storeId=", "scope=user&storeId=" + storeID, "limit=0", "limit=101", "offset=-1"} {
		t.Run(q+" is 400", func(t *testing.T) {
			testenv.AssertError(t, w.req("GET", "/v1/clubs?"+q, nil, ""), http.StatusBadRequest, "ValidationError", "")
		})
	}
	t.Run("a visibility change moves the club between the filters; a delete leaves them", func(t *testing.T) {
		id := created[0]["id"].(string) // public
		res := w.req("PUT", "/v1/clubs/"+id, map[string]any{"isPublic": false}, pam.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		res = w.req("GET", "/v1/clubs?isPublic=false", nil, "")
		assert.Equal(t, 3.0, res.JSON["total"])
		assert.Contains(t, ids(res.JSON["clubs"]), id)
		res = w.req("GET", "/v1/clubs?isPublic=true", nil, "")
		assert.Equal(t, 3.0, res.JSON["total"])
		assert.NotContains(t, ids(res.JSON["clubs"]), id)
		assert.Equal(t, 6.0, w.dirCount(t, clubs.Filter{Scope: clubs.ScopeAll}), "the unfiltered list keeps it")

		require.Equal(t, http.StatusOK, w.req("DELETE", "/v1/clubs/"+id, nil, pam.Token).Status)
		res = w.req("GET", "/v1/clubs", nil, "")
		assert.Equal(t, 5.0, res.JSON["total"])
		assert.NotContains(t, ids(res.JSON["clubs"]), id)
		assert.Equal(t, 2.0, w.dirCount(t, clubs.Filter{Scope: clubs.ScopeAll, Public: new(false)}))
	})
}

func TestClubs_Get(t *testing.T) {
	w := newWorld(t)
	pam, ann, bob := w.premium(t, "pam"), w.signup(t, "ann"), w.signup(t, "bob")
	open := w.club(t, pam, "Open", true)["id"].(string)
	closed := w.club(t, pam, "Closed", false)["id"].(string)
	res := w.req("POST", "/v1/clubs/"+closed+"/members", map[string]any{"userId": ann.ID}, pam.Token)
	require.Equal(t, http.StatusCreated, res.Status, res.String())
	res = w.req("POST", "/v1/clubs/"+open+"/books", map[string]any{"bookId": w.books[1], "status": "current", "startDate": "2026-03-01", "endDate": "2026-03-31", "notes": "Chapters 1-5"}, pam.Token)
	require.Equal(t, http.StatusCreated, res.Status, res.String())
	res = w.req("POST", "/v1/clubs/"+open+"/books", map[string]any{"bookId": w.books[0], "status": "upcoming"}, pam.Token)
	require.Equal(t, http.StatusCreated, res.Status, res.String())

	t.Run("a public club without a token", func(t *testing.T) {
		res := w.req("GET", "/v1/clubs/"+open, nil, "")
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, false, res.JSON["isMember"])
		assert.Nil(t, res.JSON["memberRole"])
		assert.Contains(t, res.JSON, "memberRole")
		assert.Equal(t, 2.0, res.JSON["bookCount"])
		books := res.JSON["books"].([]any)
		require.Len(t, books, 2)
		assert.Equal(t, map[string]any{
			"id": w.books[1], "clubId": open, "bookId": w.books[1],
			"book": map[string]any{
				"id": w.books[1], "isbn": "9780198534532", "title": "The Hobbit", "authors": []any{"J. R. R. Tolkien"},
				"coverUrl": "https://covers.openlibrary.org/b/isbn/9780198534532-L.jpg",
			},
			"status": "current", "startDate": "2026-03-01", "endDate": "2026-03-31", "notes": "Chapters 1-5",
			"addedAt": books[0].(map[string]any)["addedAt"], "updatedAt": books[0].(map[string]any)["addedAt"],
		}, books[0], "in the order books were added")
		assert.Equal(t, w.books[0], books[1].(map[string]any)["id"])
		assert.Nil(t, books[1].(map[string]any)["startDate"])
	})
	t.Run("a private club: 401 without a token, 403 to a non-member, 200 to a member", func(t *testing.T) {
		testenv.AssertError(t, w.req("GET", "/v1/clubs/"+closed, nil, ""), http.StatusUnauthorized, "Unauthorized", clubs.ErrSignInRequired.Message)
		testenv.AssertError(t, w.req("GET", "/v1/clubs/"+closed, nil, bob.Token), http.StatusForbidden, "Forbidden", clubs.ErrPrivate.Message)
		res := w.req("GET", "/v1/clubs/"+closed, nil, ann.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, true, res.JSON["isMember"])
		assert.Equal(t, "member", res.JSON["memberRole"])
		assert.Equal(t, 2.0, res.JSON["memberCount"])
	})
	for name, id := range map[string]string{"unknown id": unknownID, "non-uuid id": "tuesday-readers"} {
		t.Run(name+" is 404", func(t *testing.T) {
			testenv.AssertError(t, w.req("GET", "/v1/clubs/"+id, nil, ""), http.StatusNotFound, "NotFound", "Club not found")
		})
	}
	t.Run("a bad token is 401 even on a public club", func(t *testing.T) {
		testenv.AssertError(t, w.req("GET", "/v1/clubs/"+open, nil, "not-a-jwt"), http.StatusUnauthorized, "Unauthorized", "")
	})
}

func TestClubs_Update(t *testing.T) {
	w := newWorld(t)
	pam, ann, bob := w.premium(t, "pam"), w.signup(t, "ann"), w.signup(t, "bob")
	c := w.club(t, pam, "Tuesday", true)
	id := c["id"].(string)
	w.join(t, ann, id)

	res := w.req("PUT", "/v1/clubs/"+id, map[string]any{"name": "Wednesday", "description": "  Moved.  "}, pam.Token)
	require.Equal(t, http.StatusOK, res.Status, res.String())
	assert.Equal(t, map[string]any{
		"id": id, "name": "Wednesday", "description": "Moved.", "isPublic": true, "hostId": pam.ID,
		"memberCount": 2.0, "updatedAt": res.JSON["updatedAt"],
	}, res.JSON)
	assert.NotEqual(t, c["updatedAt"], res.JSON["updatedAt"])

	t.Run("a field left out or null stays", func(t *testing.T) {
		res := w.req("PUT", "/v1/clubs/"+id, map[string]any{"description": nil, "isPublic": false}, pam.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, "Wednesday", res.JSON["name"])
		assert.Equal(t, "Moved.", res.JSON["description"])
		assert.Equal(t, false, res.JSON["isPublic"])
		assert.Equal(t, 2.0, res.JSON["memberCount"])
		assert.Equal(t, 1.0, w.dirCount(t, clubs.Filter{Scope: clubs.ScopeAll, Public: new(false)}))
		assert.Equal(t, 0.0, w.dirCount(t, clubs.Filter{Scope: clubs.ScopeAll, Public: new(true)}))
		assert.Equal(t, 1.0, w.dirCount(t, clubs.Filter{Scope: clubs.ScopeAll}))
	})
	t.Run("a member who is not the host is 403", func(t *testing.T) {
		testenv.AssertError(t, w.req("PUT", "/v1/clubs/"+id, map[string]any{"name": "Mine"}, ann.Token), http.StatusForbidden, "Forbidden", clubs.ErrNotHost.Message)
		testenv.AssertError(t, w.req("PUT", "/v1/clubs/"+id, map[string]any{"name": "Mine"}, bob.Token), http.StatusForbidden, "Forbidden", clubs.ErrNotHost.Message)
	})
	t.Run("a moderator is not the host either", func(t *testing.T) {
		require.Equal(t, http.StatusOK, w.req("PUT", "/v1/clubs/"+id+"/members/"+ann.ID+"/role", map[string]any{"role": "moderator"}, pam.Token).Status)
		testenv.AssertError(t, w.req("PUT", "/v1/clubs/"+id, map[string]any{"isPublic": true}, ann.Token), http.StatusForbidden, "Forbidden", "")
	})
	for name, body := range map[string]map[string]any{
		"blank name": {"name": "  "}, "long description": {"description": strings.Repeat("x", 2001)}, "isPublic a string": {"isPublic": "no"},
	} {
		t.Run(name+" is 400", func(t *testing.T) {
			testenv.AssertError(t, w.req("PUT", "/v1/clubs/"+id, body, pam.Token), http.StatusBadRequest, "ValidationError", "")
		})
	}
	t.Run("unknown club is 404", func(t *testing.T) {
		testenv.AssertError(t, w.req("PUT", "/v1/clubs/"+unknownID, map[string]any{"name": "x"}, pam.Token), http.StatusNotFound, "NotFound", "Club not found")
	})
}

func TestClubs_Delete(t *testing.T) {
	w := newWorld(t)
	pam, ann := w.premium(t, "pam"), w.signup(t, "ann")
	id := w.club(t, pam, "Short-lived", false)["id"].(string)
	require.Equal(t, http.StatusCreated, w.req("POST", "/v1/clubs/"+id+"/members", map[string]any{"userId": ann.ID}, pam.Token).Status)
	require.Equal(t, http.StatusCreated, w.req("POST", "/v1/clubs/"+id+"/books", map[string]any{"bookId": w.books[0], "status": "current"}, pam.Token).Status)
	res := w.req("POST", "/v1/lines", map[string]any{"bookId": w.books[0], "content": "Said in the club.", "clubId": id}, ann.Token)
	require.Equal(t, http.StatusCreated, res.Status, res.String())
	lineID := res.JSON["id"].(string)

	testenv.AssertError(t, w.req("DELETE", "/v1/clubs/"+id, nil, ann.Token), http.StatusForbidden, "Forbidden", clubs.ErrNotHost.Message)
	res = w.req("DELETE", "/v1/clubs/"+id, nil, pam.Token)
	require.Equal(t, http.StatusOK, res.Status, res.String())
	assert.Equal(t, map[string]any{"success": true, "message": "Club deleted"}, res.JSON)

	t.Run("the club, its memberships, its reading list and its listing are gone", func(t *testing.T) {
		testenv.AssertError(t, w.req("GET", "/v1/clubs/"+id, nil, pam.Token), http.StatusNotFound, "NotFound", "")
		assert.Nil(t, w.Item(t, dynamo.ClubKey(id)))
		assert.Nil(t, w.Item(t, dynamo.ClubMemberKey(id, pam.ID)))
		assert.Nil(t, w.Item(t, dynamo.ClubMemberKey(id, ann.ID)))
		assert.Nil(t, w.Item(t, dynamo.ClubBookKey(id, w.books[0])))
		assert.Equal(t, 0.0, w.dirCount(t, clubs.Filter{Scope: clubs.ScopeAll}))
		res := w.req("GET", "/v1/clubs/me/joined", nil, ann.Token)
		assert.Equal(t, []any{}, res.JSON["clubs"])
	})
	t.Run("its lines stay their authors' only", func(t *testing.T) {
		res := w.req("GET", "/v1/lines/"+lineID, nil, ann.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, id, res.JSON["clubId"])
		testenv.AssertError(t, w.req("GET", "/v1/lines/"+lineID, nil, pam.Token), http.StatusNotFound, "NotFound", "Line not found")
		testenv.AssertError(t, w.req("GET", "/v1/lines/club/"+id, nil, ann.Token), http.StatusNotFound, "NotFound", "Club not found")
	})
	t.Run("again is 404; so is an unknown club", func(t *testing.T) {
		testenv.AssertError(t, w.req("DELETE", "/v1/clubs/"+id, nil, pam.Token), http.StatusNotFound, "NotFound", "Club not found")
		testenv.AssertError(t, w.req("DELETE", "/v1/clubs/not-a-club", nil, pam.Token), http.StatusNotFound, "NotFound", "")
	})
	t.Run("a repeated DELETE removes what a delete that stopped half way left", func(t *testing.T) {
		id := w.club(t, pam, "Interrupted", true)["id"].(string)
		w.join(t, ann, id)
		// The first step of a delete, without the second.
		c, err := dynamo.NewClubs(w.App.Table).GetClub(t.Context(), id)
		require.NoError(t, err)
		require.NoError(t, dynamo.NewClubs(w.App.Table).DeleteClub(t.Context(), c))
		require.NotNil(t, w.Item(t, dynamo.ClubMemberKey(id, ann.ID)))
		res := w.req("GET", "/v1/clubs/me/joined", nil, ann.Token)
		assert.NotContains(t, ids(res.JSON["clubs"]), id, "a leftover membership is not shown")
		testenv.AssertError(t, w.req("DELETE", "/v1/clubs/"+id, nil, pam.Token), http.StatusNotFound, "NotFound", "")
		assert.Nil(t, w.Item(t, dynamo.ClubMemberKey(id, ann.ID)))
		assert.Nil(t, w.Item(t, dynamo.ClubMemberKey(id, pam.ID)))
	})
}

func TestClubs_Books(t *testing.T) {
	w := newWorld(t)
	pam, mo, ann, bob := w.premium(t, "pam"), w.signup(t, "moira"), w.signup(t, "ann"), w.signup(t, "bob")
	id := w.club(t, pam, "Readers", true)["id"].(string)
	w.join(t, mo, id)
	w.join(t, ann, id)
	require.Equal(t, http.StatusOK, w.req("PUT", "/v1/clubs/"+id+"/members/"+mo.ID+"/role", map[string]any{"role": "moderator"}, pam.Token).Status)

	res := w.req("POST", "/v1/clubs/"+id+"/books", map[string]any{
		"bookId": strings.ToUpper(w.books[2]), "status": "upcoming", "startDate": "2026-04-01", "endDate": "2026-04-30", "notes": " Bring tea. ",
	}, pam.Token)
	require.Equal(t, http.StatusCreated, res.Status, res.String())
	assert.Equal(t, map[string]any{
		"id": w.books[2], "clubId": id, "bookId": w.books[2],
		"book": map[string]any{
			"id": w.books[2], "isbn": "9780261103573", "title": "The Lord of the Rings", "authors": []any{"J. R. R. Tolkien"},
			"coverUrl": "https://covers.openlibrary.org/b/isbn/9780261103573-L.jpg",
		},
		"status": "upcoming", "startDate": "2026-04-01", "endDate": "2026-04-30", "notes": "Bring tea.",
		"addedAt": res.JSON["addedAt"], "updatedAt": res.JSON["addedAt"],
	}, res.JSON)
	_, bookCount := w.counts(t, id)
	assert.Equal(t, 1.0, bookCount)
	bookPath := "/v1/clubs/" + id + "/books/" + w.books[2]

	t.Run("a moderator manages books too", func(t *testing.T) {
		res := w.req("POST", "/v1/clubs/"+id+"/books", map[string]any{"bookId": w.books[3], "status": "current"}, mo.Token)
		require.Equal(t, http.StatusCreated, res.Status, res.String())
		require.Equal(t, http.StatusOK, w.req("DELETE", "/v1/clubs/"+id+"/books/"+w.books[3], nil, mo.Token).Status)
	})
	t.Run("a member or a non-member is 403 and changes nothing", func(t *testing.T) {
		for _, a := range []testenv.Account{ann, bob} {
			testenv.AssertError(t, w.req("POST", "/v1/clubs/"+id+"/books", map[string]any{"bookId": w.books[0], "status": "current"}, a.Token), http.StatusForbidden, "Forbidden", clubs.ErrNotManager.Message)
			testenv.AssertError(t, w.req("PUT", bookPath, map[string]any{"status": "current"}, a.Token), http.StatusForbidden, "Forbidden", "")
			testenv.AssertError(t, w.req("DELETE", bookPath, nil, a.Token), http.StatusForbidden, "Forbidden", "")
		}
		_, bookCount := w.counts(t, id)
		assert.Equal(t, 1.0, bookCount)
		assert.Nil(t, w.Item(t, dynamo.ClubBookKey(id, w.books[0])))
	})
	t.Run("the same book twice is 400", func(t *testing.T) {
		res := w.req("POST", "/v1/clubs/"+id+"/books", map[string]any{"bookId": w.books[2], "status": "current"}, mo.Token)
		testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", clubs.ErrBookOnList.Message)
	})
	t.Run("unknown book and unknown club are 404", func(t *testing.T) {
		testenv.AssertError(t, w.req("POST", "/v1/clubs/"+id+"/books", map[string]any{"bookId": unknownID, "status": "current"}, pam.Token), http.StatusNotFound, "NotFound", "Book not found")
		testenv.AssertError(t, w.req("POST", "/v1/clubs/"+unknownID+"/books", map[string]any{"bookId": w.books[0], "status": "current"}, pam.Token), http.StatusNotFound, "NotFound", "Club not found")
		_, bookCount := w.counts(t, id)
		assert.Equal(t, 1.0, bookCount)
	})
	invalid := []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"missing status", map[string]any{"bookId": w.books[0]}, "status"},
		{"unknown status", map[string]any{"bookId": w.books[0], "status": "reading"}, "status"},
		{"missing bookId", map[string]any{"status": "current"}, "bookId"},
		{"bookId not a UUID", map[string]any{"bookId": "9780306406157", "status": "current"}, "bookId"},
		{"a timestamp for a date", map[string]any{"bookId": w.books[0], "status": "current", "startDate": "2026-04-01T00:00:00Z"}, "startDate"},
		{"a day that does not exist", map[string]any{"bookId": w.books[0], "status": "current", "endDate": "2026-02-30"}, "endDate"},
		{"end before start", map[string]any{"bookId": w.books[0], "status": "current", "startDate": "2026-04-02", "endDate": "2026-04-01"}, "endDate"},
		{"1001-character notes", map[string]any{"bookId": w.books[0], "status": "current", "notes": strings.Repeat("n", 1001)}, "notes"},
	}
	for _, iv := range invalid {
		t.Run(iv.name+" is 400", func(t *testing.T) {
			res := w.req("POST", "/v1/clubs/"+id+"/books", iv.body, pam.Token)
			testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "")
			assert.Contains(t, testenv.FieldErrors(t, res), iv.field)
		})
	}
	t.Run("a full reading list is 400", func(t *testing.T) {
		setBookCount(t, w, id, clubs.MaxBooks)
		res := w.req("POST", "/v1/clubs/"+id+"/books", map[string]any{"bookId": w.books[0], "status": "current"}, pam.Token)
		testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", clubs.ErrListFull.Message)
		setBookCount(t, w, id, 1)
	})

	t.Run("PUT changes the status; a field left out stays", func(t *testing.T) {
		res := w.req("PUT", bookPath, map[string]any{"status": "current"}, mo.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, map[string]any{
			"id": w.books[2], "clubId": id, "bookId": w.books[2], "status": "current",
			"startDate": "2026-04-01", "endDate": "2026-04-30", "notes": "Bring tea.", "updatedAt": res.JSON["updatedAt"],
		}, res.JSON)
	})
	t.Run("PUT moves a date alone only within the stored period", func(t *testing.T) {
		res := w.req("PUT", bookPath, map[string]any{"startDate": "2026-05-01"}, pam.Token)
		testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "")
		assert.Contains(t, testenv.FieldErrors(t, res), "endDate")
		res = w.req("PUT", bookPath, map[string]any{"endDate": "2026-03-31"}, pam.Token)
		testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "")
		res = w.req("PUT", bookPath, map[string]any{"endDate": "2026-04-01"}, pam.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, "2026-04-01", res.JSON["endDate"], "a one-day period")
	})
	t.Run("PUT with null clears a date, then either may move", func(t *testing.T) {
		res := w.req("PUT", bookPath, map[string]any{"endDate": nil, "notes": ""}, pam.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Nil(t, res.JSON["endDate"])
		assert.Equal(t, "", res.JSON["notes"])
		res = w.req("PUT", bookPath, map[string]any{"startDate": "2026-06-01"}, pam.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, "2026-06-01", res.JSON["startDate"])
		stored := w.Item(t, dynamo.ClubBookKey(id, w.books[2]))
		assert.NotContains(t, stored, "endDate")
		assert.NotContains(t, stored, "notes")
	})
	for name, body := range map[string]map[string]any{
		"an unknown status": {"status": "finished"}, "a malformed date": {"startDate": "June"}, "a number for a date": {"endDate": 20260601},
		"both dates out of order": {"startDate": "2026-06-02", "endDate": "2026-06-01"},
	} {
		t.Run("PUT with "+name+" is 400", func(t *testing.T) {
			testenv.AssertError(t, w.req("PUT", bookPath, body, pam.Token), http.StatusBadRequest, "ValidationError", "")
		})
	}
	t.Run("PUT and DELETE of a book not on the list are 404", func(t *testing.T) {
		for _, path := range []string{"/v1/clubs/" + id + "/books/" + w.books[5], "/v1/clubs/" + id + "/books/not-a-book"} {
			testenv.AssertError(t, w.req("PUT", path, map[string]any{"status": "current"}, pam.Token), http.StatusNotFound, "NotFound", "Club book not found")
			testenv.AssertError(t, w.req("DELETE", path, nil, pam.Token), http.StatusNotFound, "NotFound", "Club book not found")
		}
		testenv.AssertError(t, w.req("PUT", "/v1/clubs/"+unknownID+"/books/"+w.books[2], map[string]any{"status": "current"}, pam.Token), http.StatusNotFound, "NotFound", "Club not found")
		_, bookCount := w.counts(t, id)
		assert.Equal(t, 1.0, bookCount)
	})
	t.Run("DELETE takes it off and counts it", func(t *testing.T) {
		res := w.req("DELETE", bookPath, nil, pam.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, true, res.JSON["success"])
		_, bookCount := w.counts(t, id)
		assert.Equal(t, 0.0, bookCount)
		testenv.AssertError(t, w.req("DELETE", bookPath, nil, pam.Token), http.StatusNotFound, "NotFound", "")
	})
}

// setBookCount sets a club's bookCount behind the API (a full list
// without adding a hundred books).
func setBookCount(t *testing.T, w *world, clubID string, n int) {
	t.Helper()
	k := dynamo.ClubKey(clubID)
	_, err := w.App.DB.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{
		TableName: aws.String(w.Config.TableName),
		Key: map[string]types.AttributeValue{
			dynamo.AttrPK: &types.AttributeValueMemberS{Value: k.PK}, dynamo.AttrSK: &types.AttributeValueMemberS{Value: k.SK},
		},
		UpdateExpression:          aws.String("SET bookCount = :n"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":n": &types.AttributeValueMemberN{Value: fmt.Sprint(n)}},
	})
	require.NoError(t, err)
}

func TestClubs_Membership(t *testing.T) {
	w := newWorld(t)
	pam, ann, bob := w.premium(t, "pam"), w.signup(t, "ann"), w.signup(t, "bob")
	open := w.club(t, pam, "Open", true)["id"].(string)
	closed := w.club(t, pam, "Closed", false)["id"].(string)

	res := w.req("POST", "/v1/clubs/"+open+"/join", nil, ann.Token)
	require.Equal(t, http.StatusCreated, res.Status, res.String())
	assert.Equal(t, map[string]any{"success": true, "membership": map[string]any{
		"clubId": open, "userId": ann.ID, "role": "member", "joinedAt": res.JSON["membership"].(map[string]any)["joinedAt"],
	}}, res.JSON)
	members, _ := w.counts(t, open)
	assert.Equal(t, 2.0, members)

	t.Run("joining twice is 400 and counts once", func(t *testing.T) {
		testenv.AssertError(t, w.req("POST", "/v1/clubs/"+open+"/join", nil, ann.Token), http.StatusBadRequest, "ValidationError", clubs.ErrAlreadyMember.Message)
		testenv.AssertError(t, w.req("POST", "/v1/clubs/"+open+"/join", nil, pam.Token), http.StatusBadRequest, "ValidationError", clubs.ErrAlreadyMember.Message)
		members, _ := w.counts(t, open)
		assert.Equal(t, 2.0, members)
	})
	t.Run("a private club cannot be joined: its host or a moderator adds members", func(t *testing.T) {
		testenv.AssertError(t, w.req("POST", "/v1/clubs/"+closed+"/join", nil, bob.Token), http.StatusForbidden, "Forbidden", clubs.ErrPrivateJoin.Message)
		testenv.AssertError(t, w.req("POST", "/v1/clubs/"+closed+"/members", map[string]any{"userId": bob.ID}, ann.Token), http.StatusForbidden, "Forbidden", clubs.ErrNotManager.Message)
		res := w.req("POST", "/v1/clubs/"+closed+"/members", map[string]any{"userId": bob.ID}, pam.Token)
		require.Equal(t, http.StatusCreated, res.Status, res.String())
		assert.Equal(t, "member", res.JSON["membership"].(map[string]any)["role"])
		assert.Equal(t, bob.ID, res.JSON["membership"].(map[string]any)["userId"])
		testenv.AssertError(t, w.req("POST", "/v1/clubs/"+closed+"/join", nil, bob.Token), http.StatusBadRequest, "ValidationError", clubs.ErrAlreadyMember.Message)
		testenv.AssertError(t, w.req("POST", "/v1/clubs/"+closed+"/members", map[string]any{"userId": bob.ID}, pam.Token), http.StatusBadRequest, "ValidationError", clubs.ErrUserAlreadyMember.Message)
		testenv.AssertError(t, w.req("POST", "/v1/clubs/"+closed+"/members", map[string]any{"userId": pam.ID}, pam.Token), http.StatusBadRequest, "ValidationError", clubs.ErrUserAlreadyMember.Message)
		members, _ := w.counts(t, closed)
		assert.Equal(t, 2.0, members)
	})
	t.Run("adding an unknown account is 404, a malformed one 400", func(t *testing.T) {
		testenv.AssertError(t, w.req("POST", "/v1/clubs/"+closed+"/members", map[string]any{"userId": unknownID}, pam.Token), http.StatusNotFound, "NotFound", "User not found")
		res := w.req("POST", "/v1/clubs/"+closed+"/members", map[string]any{"userId": "bob"}, pam.Token)
		testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "")
		assert.Contains(t, testenv.FieldErrors(t, res), "userId")
		members, _ := w.counts(t, closed)
		assert.Equal(t, 2.0, members)
	})
	t.Run("an unknown club is 404", func(t *testing.T) {
		testenv.AssertError(t, w.req("POST", "/v1/clubs/"+unknownID+"/join", nil, bob.Token), http.StatusNotFound, "NotFound", "Club not found")
		testenv.AssertError(t, w.req("DELETE", "/v1/clubs/"+unknownID+"/leave", nil, bob.Token), http.StatusNotFound, "NotFound", "Club not found")
		testenv.AssertError(t, w.req("POST", "/v1/clubs/"+unknownID+"/members", map[string]any{"userId": bob.ID}, pam.Token), http.StatusNotFound, "NotFound", "Club not found")
	})
	t.Run("leave, then leaving again is 400; the host cannot leave", func(t *testing.T) {
		res := w.req("DELETE", "/v1/clubs/"+open+"/leave", nil, ann.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, true, res.JSON["success"])
		members, _ := w.counts(t, open)
		assert.Equal(t, 1.0, members)
		assert.Nil(t, w.Item(t, dynamo.ClubMemberKey(open, ann.ID)))
		testenv.AssertError(t, w.req("DELETE", "/v1/clubs/"+open+"/leave", nil, ann.Token), http.StatusBadRequest, "ValidationError", clubs.ErrNotMember.Message)
		testenv.AssertError(t, w.req("DELETE", "/v1/clubs/"+open+"/leave", nil, pam.Token), http.StatusBadRequest, "ValidationError", clubs.ErrHostCannotLeave.Message)
		members, _ = w.counts(t, open)
		assert.Equal(t, 1.0, members)
	})
	t.Run("roles: the host makes a moderator, who may add members but not change roles", func(t *testing.T) {
		path := "/v1/clubs/" + closed + "/members/" + bob.ID + "/role"
		res := w.req("PUT", path, map[string]any{"role": "moderator"}, pam.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, map[string]any{"success": true, "membership": map[string]any{
			"userId": bob.ID, "role": "moderator", "updatedAt": res.JSON["membership"].(map[string]any)["updatedAt"],
		}}, res.JSON)
		assert.Equal(t, "moderator", w.Item(t, dynamo.ClubMemberKey(closed, bob.ID))["role"])
		require.Equal(t, http.StatusCreated, w.req("POST", "/v1/clubs/"+closed+"/members", map[string]any{"userId": ann.ID}, bob.Token).Status)
		testenv.AssertError(t, w.req("PUT", "/v1/clubs/"+closed+"/members/"+ann.ID+"/role", map[string]any{"role": "moderator"}, bob.Token), http.StatusForbidden, "Forbidden", clubs.ErrNotHost.Message)
		res = w.req("PUT", path, map[string]any{"role": "member"}, pam.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, "member", res.JSON["membership"].(map[string]any)["role"])
		members, _ := w.counts(t, closed)
		assert.Equal(t, 3.0, members, "a role change counts nobody")
	})
	t.Run("role errors", func(t *testing.T) {
		base := "/v1/clubs/" + closed + "/members/"
		for _, role := range []any{"host", "admin", "", 1} {
			testenv.AssertError(t, w.req("PUT", base+bob.ID+"/role", map[string]any{"role": role}, pam.Token), http.StatusBadRequest, "ValidationError", "")
		}
		testenv.AssertError(t, w.req("PUT", base+pam.ID+"/role", map[string]any{"role": "member"}, pam.Token), http.StatusBadRequest, "ValidationError", clubs.ErrHostRole.Message)
		testenv.AssertError(t, w.req("PUT", base+unknownID+"/role", map[string]any{"role": "member"}, pam.Token), http.StatusNotFound, "NotFound", "Member not found")
		testenv.AssertError(t, w.req("PUT", base+"not-a-user/role", map[string]any{"role": "member"}, pam.Token), http.StatusNotFound, "NotFound", "Member not found")
		testenv.AssertError(t, w.req("PUT", "/v1/clubs/"+unknownID+"/members/"+bob.ID+"/role", map[string]any{"role": "member"}, pam.Token), http.StatusNotFound, "NotFound", "Club not found")
		outsider := w.signup(t, "outsider")
		testenv.AssertError(t, w.req("PUT", base+bob.ID+"/role", map[string]any{"role": "moderator"}, outsider.Token), http.StatusForbidden, "Forbidden", clubs.ErrNotHost.Message)
		assert.Equal(t, "member", w.Item(t, dynamo.ClubMemberKey(closed, bob.ID))["role"])
	})
}

func TestClubs_Members(t *testing.T) {
	w := newWorld(t)
	pam, bob := w.premium(t, "pam"), w.signup(t, "bob")
	open := w.club(t, pam, "Open", true)["id"].(string)
	closed := w.club(t, pam, "Closed", false)["id"].(string)
	var joined []testenv.Account
	for i := range 4 {
		a := w.signup(t, fmt.Sprintf("reader%d", i))
		w.join(t, a, open)
		joined = append(joined, a)
	}

	res := w.req("GET", "/v1/clubs/"+open+"/members", nil, "")
	require.Equal(t, http.StatusOK, res.Status, res.String())
	assert.Equal(t, 5.0, res.JSON["total"])
	assert.Nil(t, res.JSON["nextCursor"])
	assert.Equal(t, false, res.JSON["hasMore"])
	ms := res.JSON["members"].([]any)
	require.Len(t, ms, 5)
	host := ms[0].(map[string]any)
	assert.Equal(t, map[string]any{
		"userId": pam.ID, "role": "host", "joinedAt": host["joinedAt"],
		"user": map[string]any{"id": pam.ID, "username": "pam", "displayName": "Reader pam", "avatarUrl": nil, "tier": "premium"},
	}, host, "the host first, with the UserBrief's tier")
	for i, a := range joined {
		m := ms[i+1].(map[string]any)
		assert.Equal(t, a.ID, m["userId"], "in the order they joined")
		assert.Equal(t, "member", m["role"])
	}

	t.Run("pages neither skip nor repeat", func(t *testing.T) {
		var got []string
		path := "/v1/clubs/" + open + "/members?limit=2"
		for range 5 {
			res := w.req("GET", path, nil, bob.Token)
			require.Equal(t, http.StatusOK, res.Status, res.String())
			assert.Equal(t, 5.0, res.JSON["total"])
			for _, m := range res.JSON["members"].([]any) {
				got = append(got, m.(map[string]any)["userId"].(string))
			}
			if res.JSON["hasMore"] != true {
				break
			}
			path = "/v1/clubs/" + open + "/members?limit=2&cursor=" + url.QueryEscape(res.JSON["nextCursor"].(string))
		}
		assert.Equal(t, []string{pam.ID, joined[0].ID, joined[1].ID, joined[2].ID, joined[3].ID}, got)
	})
	t.Run("a cursor of another club's list is 400", func(t *testing.T) {
		res := w.req("GET", "/v1/clubs/"+open+"/members?limit=1", nil, "")
		cursor := res.JSON["nextCursor"].(string)
		res = w.req("GET", "/v1/clubs/"+closed+"/members?cursor="+url.QueryEscape(cursor), nil, pam.Token)
		testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "Invalid cursor")
	})
	t.Run("a private club's members: 401, 403, then 200 for a member", func(t *testing.T) {
		testenv.AssertError(t, w.req("GET", "/v1/clubs/"+closed+"/members", nil, ""), http.StatusUnauthorized, "Unauthorized", "")
		testenv.AssertError(t, w.req("GET", "/v1/clubs/"+closed+"/members", nil, bob.Token), http.StatusForbidden, "Forbidden", "")
		res := w.req("GET", "/v1/clubs/"+closed+"/members", nil, pam.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, 1.0, res.JSON["total"])
	})
	t.Run("unknown club is 404, a bad limit 400", func(t *testing.T) {
		testenv.AssertError(t, w.req("GET", "/v1/clubs/"+unknownID+"/members", nil, ""), http.StatusNotFound, "NotFound", "")
		testenv.AssertError(t, w.req("GET", "/v1/clubs/"+open+"/members?limit=101", nil, ""), http.StatusBadRequest, "ValidationError", "")
	})
}

func TestClubs_ReaderLists(t *testing.T) {
	w := newWorld(t)
	pam, ann := w.premium(t, "pam"), w.signup(t, "ann")
	open := w.club(t, pam, "Open", true)
	closed := w.club(t, pam, "Closed", false)
	other := w.club(t, pam, "Other", true)
	w.join(t, ann, open["id"].(string))
	require.Equal(t, http.StatusCreated, w.req("POST", "/v1/clubs/"+closed["id"].(string)+"/members", map[string]any{"userId": ann.ID}, pam.Token).Status)
	w.join(t, ann, other["id"].(string))
	require.Equal(t, http.StatusOK, w.req("DELETE", "/v1/clubs/"+other["id"].(string)+"/leave", nil, ann.Token).Status)

	t.Run("GET /clubs/me/joined: every club with the caller's role, latest joined first", func(t *testing.T) {
		res := w.req("GET", "/v1/clubs/me/joined", nil, ann.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, []any{
			map[string]any{"id": closed["id"], "name": "Closed", "description": "About Closed", "isPublic": false, "memberCount": 2.0, "memberRole": "member", "createdAt": closed["createdAt"]},
			map[string]any{"id": open["id"], "name": "Open", "description": "About Open", "isPublic": true, "memberCount": 2.0, "memberRole": "member", "createdAt": open["createdAt"]},
		}, res.JSON["clubs"])
		assert.Equal(t, false, res.JSON["hasMore"])
		res = w.req("GET", "/v1/clubs/me/joined", nil, pam.Token)
		assert.Len(t, res.JSON["clubs"], 3)
		assert.Equal(t, "host", res.JSON["clubs"].([]any)[0].(map[string]any)["memberRole"])
	})
	t.Run("GET /users/me/clubs: the same clubs with hostId", func(t *testing.T) {
		res := w.req("GET", "/v1/users/me/clubs", nil, ann.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, []any{
			map[string]any{"id": closed["id"], "name": "Closed", "description": "About Closed", "isPublic": false, "memberCount": 2.0, "hostId": pam.ID, "createdAt": closed["createdAt"]},
			map[string]any{"id": open["id"], "name": "Open", "description": "About Open", "isPublic": true, "memberCount": 2.0, "hostId": pam.ID, "createdAt": open["createdAt"]},
		}, res.JSON["clubs"])
	})
	t.Run("GET /users/{username}/clubs: public clubs only, without a token", func(t *testing.T) {
		res := w.req("GET", "/v1/users/ANN/clubs", nil, "")
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, []any{
			map[string]any{"id": open["id"], "name": "Open", "description": "About Open", "isPublic": true, "memberCount": 2.0, "createdAt": open["createdAt"]},
		}, res.JSON["clubs"])
		testenv.AssertError(t, w.req("GET", "/v1/users/nobody_here/clubs", nil, ""), http.StatusNotFound, "NotFound", "User not found")
	})
	t.Run("the lists page: limit 1 gives one club and a cursor", func(t *testing.T) {
		res := w.req("GET", "/v1/clubs/me/joined?limit=1", nil, ann.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Len(t, res.JSON["clubs"], 1)
		assert.Equal(t, true, res.JSON["hasMore"])
		res = w.req("GET", "/v1/clubs/me/joined?limit=1&cursor="+url.QueryEscape(res.JSON["nextCursor"].(string)), nil, ann.Token)
		assert.Equal(t, []string{open["id"].(string)}, ids(res.JSON["clubs"]))
		assert.Equal(t, false, res.JSON["hasMore"])
		testenv.AssertError(t, w.req("GET", "/v1/users/me/clubs?limit=0", nil, ann.Token), http.StatusBadRequest, "ValidationError", "")
	})
	t.Run("without a token the caller's lists are 401", func(t *testing.T) {
		testenv.AssertError(t, w.req("GET", "/v1/clubs/me/joined", nil, ""), http.StatusUnauthorized, "Unauthorized", "")
		testenv.AssertError(t, w.req("GET", "/v1/users/me/clubs", nil, ""), http.StatusUnauthorized, "Unauthorized", "")
	})
}

// Parallel joins and leaves keep memberCount equal to the memberships
// stored: each change and its count are one transaction.
func TestClubs_ConcurrentJoinsAndLeaves(t *testing.T) {
	w := newWorld(t)
	pam := w.premium(t, "pam")
	id := w.club(t, pam, "Busy", true)["id"].(string)
	var readers []testenv.Account
	for i := range 24 {
		readers = append(readers, w.signup(t, fmt.Sprintf("r%02d", i)))
	}
	for _, a := range readers[:12] {
		w.join(t, a, id)
	}

	var wg sync.WaitGroup
	statuses := make([]int, len(readers)*2)
	for i, a := range readers {
		wg.Add(2)
		go func() { // the first 12 leave, the others join; everyone also joins twice
			defer wg.Done()
			if i < 12 {
				statuses[2*i] = w.Do("DELETE", "/v1/clubs/"+id+"/leave", nil, a.Token).Status
			} else {
				statuses[2*i] = w.Do("POST", "/v1/clubs/"+id+"/join", nil, a.Token).Status
			}
		}()
		go func() {
			defer wg.Done()
			if i >= 12 {
				statuses[2*i+1] = w.Do("POST", "/v1/clubs/"+id+"/join", nil, a.Token).Status
			}
		}()
	}
	wg.Wait()
	for i := range readers {
		if i < 12 {
			assert.Equal(t, http.StatusOK, statuses[2*i], "leave %d", i)
			continue
		}
		got := []int{statuses[2*i], statuses[2*i+1]}
		assert.ElementsMatch(t, []int{http.StatusCreated, http.StatusBadRequest}, got, "one of two parallel joins by %d wins", i)
	}
	members, _ := w.counts(t, id)
	assert.Equal(t, 13.0, members)
	res := w.req("GET", "/v1/clubs/"+id+"/members", nil, "")
	require.Equal(t, http.StatusOK, res.Status, res.String())
	assert.Equal(t, 13.0, res.JSON["total"])
	assert.Len(t, res.JSON["members"], 13, "the count is the memberships stored")
}

// Parallel adds of club books keep bookCount exact, and the same book
// added twice at once lands once.
func TestClubs_ConcurrentBookAdds(t *testing.T) {
	w := newWorld(t)
	pam, mo := w.premium(t, "pam"), w.signup(t, "moira")
	id := w.club(t, pam, "Busy", true)["id"].(string)
	w.join(t, mo, id)
	require.Equal(t, http.StatusOK, w.req("PUT", "/v1/clubs/"+id+"/members/"+mo.ID+"/role", map[string]any{"role": "moderator"}, pam.Token).Status)

	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		created = make([]int, len(w.books))
	)
	for i, b := range w.books {
		for _, a := range []testenv.Account{pam, mo} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res := w.Do("POST", "/v1/clubs/"+id+"/books", map[string]any{"bookId": b, "status": "upcoming"}, a.Token)
				if res.Status == http.StatusCreated {
					mu.Lock()
					created[i]++
					mu.Unlock()
				} else if res.Status != http.StatusBadRequest {
					t.Errorf("add %s: %s", b, res)
				}
			}()
		}
	}
	wg.Wait()
	for i := range w.books {
		assert.Equal(t, 1, created[i], "book %d lands once", i)
	}
	_, bookCount := w.counts(t, id)
	assert.Equal(t, float64(len(w.books)), bookCount)
	res := w.req("GET", "/v1/clubs/"+id, nil, "")
	assert.Len(t, res.JSON["books"], len(w.books))

	// And parallel removes bring it back to exactly zero.
	for _, b := range w.books {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.Do("DELETE", "/v1/clubs/"+id+"/books/"+b, nil, mo.Token)
		}()
	}
	wg.Wait()
	_, bookCount = w.counts(t, id)
	assert.Equal(t, 0.0, bookCount)
}
