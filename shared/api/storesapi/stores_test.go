package storesapi_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/users"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// storeBody is a valid POST /v1/stores body for slug: a Portland address
// (ZIP 97209) without coordinates.
func storeBody(slug string) map[string]any {
	return map[string]any{
		"name": "Corner Books " + slug, "slug": slug, "description": "Used and new books.",
		"addressLine1": "1005 W Burnside St", "city": "Portland", "state": "OR", "postalCode": "97209", "country": "US",
		"phone": "+1 503-228-4651", "email": "Hello@" + slug + ".example.com", "primaryColor": "#1a2b3c",
	}
}

// bookseller signs up an account of the bookstore tier.
func bookseller(t *testing.T, env *testenv.Env, username string) testenv.Account {
	t.Helper()
	a := env.Signup(t, username)
	env.SetTier(t, a, users.TierBookstore)
	return a
}

// newStore creates a store through the API and returns its body.
func newStore(t *testing.T, env *testenv.Env, owner testenv.Account, body map[string]any) map[string]any {
	t.Helper()
	res := env.Do("POST", "/v1/stores", body, owner.Token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
	return res.JSON
}

func TestStores_Create(t *testing.T) {
	env := testenv.New(t)
	owner := bookseller(t, env, "ana_books")

	res := env.Do("POST", "/v1/stores", storeBody("corner-books"), owner.Token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
	s := res.JSON
	for _, f := range []string{"id", "name", "slug", "description", "logoUrl", "bannerUrl", "primaryColor", "addressLine1", "addressLine2",
		"city", "state", "postalCode", "country", "phone", "email", "website", "hours", "customDomain", "customDomainStatus",
		"followerCount", "inventoryCount", "ownerUserId", "createdAt", "updatedAt", "latitude", "longitude", "taxRate"} {
		assert.Contains(t, s, f)
	}
	assert.Equal(t, owner.ID, s["ownerUserId"])
	assert.Equal(t, "NONE", s["customDomainStatus"])
	assert.Nil(t, s["customDomain"])
	assert.Nil(t, s["addressLine2"])
	assert.Equal(t, "#1A2B3C", s["primaryColor"], "colours are stored upper case")
	assert.Equal(t, "hello@corner-books.example.com", s["email"])
	assert.NotContains(t, s, "distance", "distance only in a list asked with coordinates")
	assert.InDelta(t, 45.53, s["latitude"], 0.02, "derived from ZIP 97209")
	assert.InDelta(t, -122.68, s["longitude"], 0.02)
	assert.EqualValues(t, 0, s["followerCount"])

	t.Run("stored: the store, its slug claim, its listing and the owner's mark", func(t *testing.T) {
		id := s["id"].(string)
		item := env.Item(t, dynamo.StoreKey(id))
		require.NotNil(t, item)
		assert.Equal(t, "corner-books", item["slug"])
		assert.Equal(t, id, env.Item(t, dynamo.StoreSlugClaimKey("corner-books"))["storeId"])
		assert.NotNil(t, env.Item(t, dynamo.StoreListingKey(id)))
		assert.Equal(t, id, env.Item(t, dynamo.UserKey(owner.ID))["storeId"])
	})
	t.Run("GET /stores/my returns it", func(t *testing.T) {
		res := env.Do("GET", "/v1/stores/my", nil, owner.Token)
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		assert.Equal(t, s["id"], res.JSON["id"])
		assert.Contains(t, res.JSON, "taxRate", "the owner's view")
	})
	t.Run("a second store of one owner is 400, naming the store", func(t *testing.T) {
		res := env.Do("POST", "/v1/stores", storeBody("second-shop"), owner.Token)
		testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "")
		assert.Equal(t, map[string]any{"store": "this account owns a store already: an account owns one store at most"}, testenv.FieldErrors(t, res))
		assert.Nil(t, env.Item(t, dynamo.StoreSlugClaimKey("second-shop")), "nothing written")
	})
	t.Run("a second store with a taken slug names both", func(t *testing.T) {
		res := env.Do("POST", "/v1/stores", storeBody("corner-books"), owner.Token)
		testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "")
		f := testenv.FieldErrors(t, res)
		assert.Equal(t, "is already taken", f["slug"])
		assert.Contains(t, f, "store")
	})
	t.Run("a second store with a bad body names every field and the store", func(t *testing.T) {
		b := storeBody("third-shop")
		b["primaryColor"] = "blue"
		res := env.Do("POST", "/v1/stores", b, owner.Token)
		testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "")
		f := testenv.FieldErrors(t, res)
		assert.Contains(t, f, "primaryColor")
		assert.Contains(t, f, "store")
	})
	t.Run("a taken slug is 400, whatever its case", func(t *testing.T) {
		other := bookseller(t, env, "ben_books")
		res := env.Do("POST", "/v1/stores", storeBody("Corner-Books"), other.Token)
		testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "")
		assert.Equal(t, "is already taken", testenv.FieldErrors(t, res)["slug"])
		assert.Nil(t, env.Item(t, dynamo.UserKey(other.ID))["storeId"])
	})
	t.Run("other tiers are 403", func(t *testing.T) {
		for _, tier := range []users.Tier{users.TierFree, users.TierPremium} {
			a := env.Signup(t, "tier_"+string(tier))
			env.SetTier(t, a, tier)
			res := env.Do("POST", "/v1/stores", storeBody("shop-"+string(tier)), a.Token)
			testenv.AssertError(t, res, http.StatusForbidden, "Forbidden", "")
		}
		g := env.Do("POST", "/v1/auth/guest", nil, "")
		res := env.Do("POST", "/v1/stores", storeBody("guest-shop"), g.JSON["token"].(string))
		testenv.AssertError(t, res, http.StatusForbidden, "Forbidden", "")
	})
	t.Run("without a token is 401", func(t *testing.T) {
		testenv.AssertError(t, env.Do("POST", "/v1/stores", storeBody("anon-shop"), ""), http.StatusUnauthorized, "Unauthorized", "Missing or invalid authorization header")
	})
}

// Every bad field is named, with the rest of the body valid; nothing is
// stored.
func TestStores_CreateValidation(t *testing.T) {
	env := testenv.New(t)
	owner := bookseller(t, env, "val_books")
	cases := []struct {
		name  string
		edit  func(b map[string]any)
		field string
	}{
		{"no name", func(b map[string]any) { delete(b, "name") }, "name"},
		{"blank name", func(b map[string]any) { b["name"] = " \u200b " }, "name"},
		{"bidi name", func(b map[string]any) { b["name"] = "Books\u202e" }, "name"},
		{"name too long", func(b map[string]any) { b["name"] = strings.Repeat("n", 101) }, "name"},
		{"no slug", func(b map[string]any) { delete(b, "slug") }, "slug"},
		{"slug with space", func(b map[string]any) { b["slug"] = "corner books" }, "slug"},
		{"slug with double hyphen", func(b map[string]any) { b["slug"] = "corner--books" }, "slug"},
		{"slug ends in hyphen", func(b map[string]any) { b["slug"] = "corner-" }, "slug"},
		{"slug too short", func(b map[string]any) { b["slug"] = "ab" }, "slug"},
		{"slug my", func(b map[string]any) { b["slug"] = "my" }, "slug"},
		{"slug lookup-by-domain", func(b map[string]any) { b["slug"] = "lookup-by-domain" }, "slug"},
		{"slug with accent", func(b map[string]any) { b["slug"] = "librería" }, "slug"},
		{"no address", func(b map[string]any) { delete(b, "addressLine1") }, "addressLine1"},
		{"no city", func(b map[string]any) { b["city"] = "" }, "city"},
		{"no country", func(b map[string]any) { delete(b, "country") }, "country"},
		{"country not ISO", func(b map[string]any) { b["country"] = "USA" }, "country"},
		{"country unknown", func(b map[string]any) { b["country"] = "XX" }, "country"},
		{"US without state", func(b map[string]any) { delete(b, "state") }, "state"},
		{"US state blank", func(b map[string]any) { b["state"] = "  " }, "state"},
		{"US ZIP malformed", func(b map[string]any) { b["postalCode"] = "9720" }, "postalCode"},
		{"no postal code", func(b map[string]any) { delete(b, "postalCode") }, "postalCode"},
		{"email malformed", func(b map[string]any) { b["email"] = "not-an-email" }, "email"},
		{"phone letters", func(b map[string]any) { b["phone"] = "call us" }, "phone"},
		{"phone too short", func(b map[string]any) { b["phone"] = "12345" }, "phone"},
		{"colour without #", func(b map[string]any) { b["primaryColor"] = "1a2b3c" }, "primaryColor"},
		{"colour short form", func(b map[string]any) { b["primaryColor"] = "#abc" }, "primaryColor"},
		{"colour name", func(b map[string]any) { b["primaryColor"] = "red" }, "primaryColor"},
		{"website not http", func(b map[string]any) { b["website"] = "ftp://x.example.com" }, "website"},
		{"website not a host", func(b map[string]any) { b["website"] = "my store" }, "website"},
		{"hours unknown day", func(b map[string]any) { b["hours"] = map[string]any{"funday": "9-5"} }, "hours.funday"},
		{"hours capitalised day", func(b map[string]any) { b["hours"] = map[string]any{"Monday": "9-5"} }, "hours.Monday"},
		{"hours empty value", func(b map[string]any) { b["hours"] = map[string]any{"monday": " "} }, "hours.monday"},
		{"latitude without longitude", func(b map[string]any) { b["latitude"] = 45.5 }, "longitude"},
		{"latitude out of range", func(b map[string]any) { b["latitude"], b["longitude"] = 95.0, 10.0 }, "latitude"},
		{"longitude out of range", func(b map[string]any) { b["latitude"], b["longitude"] = 45.0, -190.0 }, "longitude"},
		{"tax rate negative", func(b map[string]any) { b["taxRate"] = -0.01 }, "taxRate"},
		{"tax rate a percentage", func(b map[string]any) { b["taxRate"] = 8.25 }, "taxRate"},
		{"tax rate too precise", func(b map[string]any) { b["taxRate"] = 0.0862501 }, "taxRate"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := storeBody("valid-shop")
			c.edit(b)
			res := env.Do("POST", "/v1/stores", b, owner.Token)
			testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "")
			assert.Contains(t, testenv.FieldErrors(t, res), c.field, "%s", res)
		})
	}
	t.Run("every bad field at once", func(t *testing.T) {
		b := storeBody("x")
		b["primaryColor"], b["email"], b["country"] = "blue", "nope", "Narnia"
		res := env.Do("POST", "/v1/stores", b, owner.Token)
		f := testenv.FieldErrors(t, res)
		for _, k := range []string{"slug", "primaryColor", "email", "country"} {
			assert.Contains(t, f, k)
		}
	})
	t.Run("wrong JSON types are 400", func(t *testing.T) {
		for _, body := range []string{`{"name": 5}`, `{"latitude": "45"}`, `{"hours": ["monday"]}`, `{"hours": {"monday": 9}}`, `{"taxRate": "0.08"}`} {
			res := env.DoRaw("POST", "/v1/stores", "application/json", strings.NewReader(body), owner.Token)
			testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "")
		}
	})
	assert.Nil(t, env.Item(t, dynamo.StoreSlugClaimKey("valid-shop")), "no refused body stored anything")
	assert.Nil(t, env.Item(t, dynamo.UserKey(owner.ID))["storeId"])

	t.Run("a state code is upper-cased, a state name kept; a bare website host is fine", func(t *testing.T) {
		other := bookseller(t, env, "val_books2")
		b := storeBody("state-shop")
		b["state"], b["website"] = "Oregon", "www.state-shop.example.com"
		s := newStore(t, env, other, b)
		assert.Equal(t, "Oregon", s["state"])
		assert.Equal(t, "www.state-shop.example.com", s["website"])
		res := env.Do("PUT", "/v1/stores/state-shop", map[string]any{"state": "or"}, other.Token)
		assert.Equal(t, "OR", res.JSON["state"])
	})
	t.Run("a non-US address needs no state and keeps its postal code; no coordinates without a US ZIP", func(t *testing.T) {
		b := storeBody("librairie-paris")
		b["country"], b["postalCode"], b["city"], b["addressLine1"] = "fr", "75005", "Paris", "37 Rue de la Bûcherie"
		delete(b, "state")
		s := newStore(t, env, owner, b)
		assert.Equal(t, "FR", s["country"])
		assert.Nil(t, s["latitude"])
		assert.Nil(t, s["longitude"])
	})
}

// Of many owners claiming one slug at once, exactly one gets it; the
// others are told it is taken and own no store.
func TestStores_ConcurrentSlugClaimsHaveOneWinner(t *testing.T) {
	env := testenv.New(t)
	const n = 8
	owners := make([]testenv.Account, n)
	for i := range owners {
		owners[i] = bookseller(t, env, fmt.Sprintf("racer_%d", i))
	}
	statuses := make([]int, n)
	var wg sync.WaitGroup
	for i := range owners {
		wg.Go(func() {
			statuses[i] = env.Do("POST", "/v1/stores", storeBody("the-only-slug"), owners[i].Token).Status
		})
	}
	wg.Wait()
	winners := 0
	var winner string
	for i, s := range statuses {
		switch s {
		case http.StatusCreated:
			winners++
			winner = owners[i].ID
		case http.StatusBadRequest:
			assert.Nil(t, env.Item(t, dynamo.UserKey(owners[i].ID))["storeId"], "a loser owns nothing")
		default:
			t.Errorf("owner %d: HTTP %d", i, s)
		}
	}
	require.Equal(t, 1, winners, "%v", statuses)
	claim := env.Item(t, dynamo.StoreSlugClaimKey("the-only-slug"))
	assert.Equal(t, winner, claim["ownerUserId"])
}

// One owner sending two stores at once gets one: the owner's mark is the
// transaction's condition.
func TestStores_OneStorePerOwnerUnderConcurrency(t *testing.T) {
	env := testenv.New(t)
	owner := bookseller(t, env, "eager_owner")
	statuses := make([]int, 5)
	var wg sync.WaitGroup
	for i := range statuses {
		wg.Go(func() {
			statuses[i] = env.Do("POST", "/v1/stores", storeBody(fmt.Sprintf("eager-%d", i)), owner.Token).Status
		})
	}
	wg.Wait()
	created := 0
	for _, s := range statuses {
		if s == http.StatusCreated {
			created++
		} else {
			assert.Equal(t, http.StatusBadRequest, s, "one store per owner is a 400, as the spec lists for POST /stores")
		}
	}
	assert.Equal(t, 1, created, "%v", statuses)
}

func TestStores_Get(t *testing.T) {
	env := testenv.New(t)
	owner := bookseller(t, env, "get_owner")
	b := storeBody("get-shop")
	b["taxRate"] = 0.0825
	created := newStore(t, env, owner, b)
	assert.InDelta(t, 0.0825, created["taxRate"], 1e-9)

	res := env.Do("GET", "/v1/stores/get-shop", nil, "")
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	assert.Equal(t, created["id"], res.JSON["id"])
	assert.NotContains(t, res.JSON, "taxRate", "owner-only")
	assert.NotContains(t, res.JSON, "staffCount", "owner-only")
	assert.Equal(t, res.JSON["id"], env.Do("GET", "/v1/stores/GET-SHOP", nil, "").JSON["id"], "slugs are case-insensitive")

	t.Run("the owner reading the public route sees the public view", func(t *testing.T) {
		assert.NotContains(t, env.Do("GET", "/v1/stores/get-shop", nil, owner.Token).JSON, "taxRate")
	})
	t.Run("unknown and malformed slugs are 404", func(t *testing.T) {
		for _, slug := range []string{"no-such-shop", "Not%20A%20Slug", strings.Repeat("a", 300)} {
			testenv.AssertError(t, env.Do("GET", "/v1/stores/"+slug, nil, ""), http.StatusNotFound, "NotFound", "")
		}
	})
	t.Run("my and lookup-by-domain beat a slug", func(t *testing.T) {
		testenv.AssertError(t, env.Do("GET", "/v1/stores/my", nil, ""), http.StatusUnauthorized, "Unauthorized", "")
		testenv.AssertError(t, env.Do("GET", "/v1/stores/lookup-by-domain", nil, ""), http.StatusBadRequest, "ValidationError", "")
	})
	t.Run("GET /stores/my without a store is 404", func(t *testing.T) {
		reader := env.Signup(t, "storeless")
		testenv.AssertError(t, env.Do("GET", "/v1/stores/my", nil, reader.Token), http.StatusNotFound, "NotFound", "You own no store")
	})
	t.Run("website-config shows no owner-only data", func(t *testing.T) {
		res := env.Do("GET", "/v1/stores/get-shop/website-config", nil, "")
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		st := res.JSON["store"].(map[string]any)
		assert.Equal(t, created["id"], st["id"])
		assert.Equal(t, "#1A2B3C", st["branding"].(map[string]any)["primaryColor"])
		assert.Equal(t, "97209", st["contact"].(map[string]any)["postalCode"])
		assert.Equal(t, map[string]any{"custom": nil, "status": "NONE"}, st["domain"])
		assert.NotContains(t, string(res.Body), "taxRate")
		assert.NotContains(t, string(res.Body), "staff")
		assert.NotContains(t, string(res.Body), "tenant")
		testenv.AssertError(t, env.Do("GET", "/v1/stores/nope-shop/website-config", nil, ""), http.StatusNotFound, "NotFound", "")
	})
}

func TestStores_Update(t *testing.T) {
	env := testenv.New(t)
	owner := bookseller(t, env, "upd_owner")
	created := newStore(t, env, owner, storeBody("upd-shop"))

	hours := map[string]any{"monday": "9:00-17:00", "sunday": "Closed"}
	res := env.Do("PUT", "/v1/stores/upd-shop", map[string]any{"description": "  Now with coffee. ", "phone": "503 555 0100", "hours": hours, "taxRate": 0.07}, owner.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	for _, f := range []string{"id", "name", "slug", "description", "phone", "hours", "updatedAt"} {
		assert.Contains(t, res.JSON, f, "the spec's fields")
	}
	assert.Equal(t, "Now with coffee.", res.JSON["description"])
	assert.Equal(t, hours, res.JSON["hours"])
	assert.InDelta(t, 0.07, res.JSON["taxRate"], 1e-9)
	assert.Equal(t, created["name"], res.JSON["name"], "a field left out keeps its value")
	assert.NotEqual(t, created["updatedAt"], res.JSON["updatedAt"])
	assert.EqualValues(t, 70000, env.Item(t, dynamo.StoreKey(created["id"].(string)))["taxRateMicros"])

	t.Run("the slug never changes; the same slug is fine", func(t *testing.T) {
		res := env.Do("PUT", "/v1/stores/upd-shop", map[string]any{"slug": "new-slug"}, owner.Token)
		testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "")
		assert.Contains(t, testenv.FieldErrors(t, res), "slug")
		assert.Equal(t, http.StatusOK, env.Do("PUT", "/v1/stores/upd-shop", map[string]any{"slug": "upd-shop"}, owner.Token).Status)
	})
	t.Run("a required field cannot be cleared; an optional one can", func(t *testing.T) {
		res := env.Do("PUT", "/v1/stores/upd-shop", map[string]any{"name": ""}, owner.Token)
		testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "")
		res = env.Do("PUT", "/v1/stores/upd-shop", map[string]any{"phone": "", "addressLine2": "Suite 2"}, owner.Token)
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		assert.Equal(t, "", res.JSON["phone"])
		assert.Equal(t, "Suite 2", res.JSON["addressLine2"])
	})
	t.Run("a new ZIP moves derived coordinates; given ones stay until given again", func(t *testing.T) {
		res := env.Do("PUT", "/v1/stores/upd-shop", map[string]any{"postalCode": "10001", "state": "NY", "city": "New York"}, owner.Token)
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		assert.InDelta(t, 40.75, res.JSON["latitude"], 0.02)
		res = env.Do("PUT", "/v1/stores/upd-shop", map[string]any{"latitude": 40.7128, "longitude": -74.006}, owner.Token)
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		res = env.Do("PUT", "/v1/stores/upd-shop", map[string]any{"postalCode": "10002"}, owner.Token)
		assert.InDelta(t, 40.7128, res.JSON["latitude"], 1e-9, "the owner's coordinates stay")
	})
	t.Run("invalid fields are 400 and change nothing", func(t *testing.T) {
		before := env.Item(t, dynamo.StoreKey(created["id"].(string)))
		for _, body := range []map[string]any{
			{"hours": map[string]any{"mon": "9-5"}}, {"primaryColor": "#12345g"}, {"taxRate": 0.3}, {"email": "x@"}, {"country": "ZZ"},
		} {
			testenv.AssertError(t, env.Do("PUT", "/v1/stores/upd-shop", body, owner.Token), http.StatusBadRequest, "ValidationError", "")
		}
		assert.Equal(t, before, env.Item(t, dynamo.StoreKey(created["id"].(string))))
	})
	t.Run("concurrent updates of different fields all land", func(t *testing.T) {
		fields := []map[string]any{
			{"description": "d1"}, {"phone": "+44 20 7946 0000"}, {"website": "https://upd.example.com"},
			{"primaryColor": "#000000"}, {"addressLine2": "Floor 3"}, {"taxRate": 0.05},
		}
		var wg sync.WaitGroup
		for _, f := range fields {
			wg.Go(func() {
				res := env.Do("PUT", "/v1/stores/upd-shop", f, owner.Token)
				assert.Equal(t, http.StatusOK, res.Status, "%s", res)
			})
		}
		wg.Wait()
		got := env.Do("GET", "/v1/stores/my", nil, owner.Token).JSON
		assert.Equal(t, "d1", got["description"])
		assert.Equal(t, "+44 20 7946 0000", got["phone"])
		assert.Equal(t, "https://upd.example.com", got["website"])
		assert.Equal(t, "#000000", got["primaryColor"])
		assert.Equal(t, "Floor 3", got["addressLine2"])
		assert.InDelta(t, 0.05, got["taxRate"], 1e-9)
	})
}

func urlEscape(s string) string { return url.QueryEscape(s) }
