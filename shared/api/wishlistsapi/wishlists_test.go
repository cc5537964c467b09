package wishlistsapi_test

import (
	"fmt"
	"github.com/bookplatform/backend/shared/api/wishlistsapi"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/users"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// world is a paced environment (additions to a wishlist have distinct,
// ordered times) with a small catalog.
type world struct {
	*testenv.Paced
	books []string // ids of catalog, in order
}

var catalog = []books.Record{
	{ISBN: "0-306-40615-2", Title: "Harry Potter", Authors: []string{"J. K. Rowling"}, Language: "en"},
	{ISBN: "9780198534532", Title: "The Hobbit", Authors: []string{"J. R. R. Tolkien"}, Language: "en"},
	{ISBN: "9780261103573", Title: "The Lord of the Rings", Authors: []string{"J. R. R. Tolkien"}, Language: "en"},
	{ISBN: "9780451524935", Title: "Cien años de soledad", Authors: []string{"Gabriel García Márquez"}, Language: "es"},
	{ISBN: "9780060935467", Title: "The Potter's Field", Authors: []string{"Harry Bosch"}, Language: "en"},
	{ISBN: "9780439785969", Title: "Harry Potter and the Philosopher's Stone", Authors: []string{"J. K. Rowling"}, Language: "en"},
	{ISBN: "978-0-7475-3269-9", Title: "Harry Potter and the Chamber of Secrets", Authors: []string{"J. K. Rowling"}, Language: "en"},
	{ISBN: "0-8044-2957-X", Title: "Potter Meets Harry", Authors: []string{"Anon Writer"}, Language: "en"},
}

func newWorld(t *testing.T, opts ...testenv.Option) *world {
	t.Helper()
	p := testenv.NewPaced(t, opts...)
	return &world{Paced: p, books: p.ImportBooks(t, catalog...)}
}

// create makes a wishlist and returns its JSON.
func (w *world) create(t *testing.T, a testenv.Account, name string, public bool) map[string]any {
	t.Helper()
	res := w.Req("POST", "/v1/wishlists", map[string]any{"name": name, "isPublic": public}, a.Token)
	require.Equal(t, http.StatusCreated, res.Status, res.String())
	return res.JSON
}

// add puts a book on a wishlist and returns the item's JSON.
func (w *world) add(t *testing.T, a testenv.Account, wishlistID string, body map[string]any) map[string]any {
	t.Helper()
	res := w.Req("POST", "/v1/wishlists/"+wishlistID+"/items", body, a.Token)
	require.Equal(t, http.StatusCreated, res.Status, res.String())
	return res.JSON
}

// wishlistCount is the owner's wishlistCount as stored.
func (w *world) wishlistCount(t *testing.T, a testenv.Account) float64 {
	t.Helper()
	n, _ := w.Item(t, dynamo.UserKey(a.ID))["wishlistCount"].(float64)
	return n
}

func names(t *testing.T, res *testenv.Response) []string {
	t.Helper()
	require.Equal(t, http.StatusOK, res.Status, res.String())
	var out []string
	for _, it := range res.JSON["wishlists"].([]any) {
		out = append(out, it.(map[string]any)["name"].(string))
	}
	return out
}

const unknownID = "00000000-0000-4000-8000-000000000000"

func TestWishlists_Create(t *testing.T) {
	w := newWorld(t)
	ann := w.Signup(t, "ann")

	res := w.Req("POST", "/v1/wishlists", map[string]any{"name": "\u200b To read  ", "description": "Next summer.", "isPublic": true}, ann.Token)
	require.Equal(t, http.StatusCreated, res.Status, res.String())
	got := res.JSON
	assert.Equal(t, ann.ID, got["userId"])
	assert.Equal(t, "To read", got["name"], "trimmed of white space and invisible characters (shared/text)")
	assert.Equal(t, "Next summer.", got["description"])
	assert.Equal(t, true, got["isPublic"])
	assert.EqualValues(t, 0, got["itemCount"])
	assert.Equal(t, got["createdAt"], got["updatedAt"])
	assert.Len(t, got["id"], 36)
	assert.EqualValues(t, 1, w.wishlistCount(t, ann), "the owner's count moved in the same transaction")

	t.Run("isPublic left out makes a private wishlist", func(t *testing.T) {
		w.SetTier(t, ann, users.TierPremium)
		res := w.Req("POST", "/v1/wishlists", map[string]any{"name": "Secret"}, ann.Token)
		require.Equal(t, http.StatusCreated, res.Status, res.String())
		assert.Equal(t, false, res.JSON["isPublic"])
		assert.Equal(t, "", res.JSON["description"])
	})

	for _, tc := range []struct {
		name  string
		body  any
		field string
	}{
		{"no name", map[string]any{"isPublic": true}, "name"},
		{"a blank name", map[string]any{"name": " \u200b "}, "name"},
		{"a name over 100 characters", map[string]any{"name": strings.Repeat("n", 101)}, "name"},
		{"a name with a bidi override", map[string]any{"name": "gifts \u202eyadhtrib"}, "name"},
		{"a description over 1000 characters", map[string]any{"name": "x", "description": strings.Repeat("d", 1001)}, "description"},
		{"isPublic not a boolean", map[string]any{"name": "x", "isPublic": "yes"}, "isPublic"},
	} {
		t.Run(tc.name+" is 400", func(t *testing.T) {
			before := w.wishlistCount(t, ann)
			res := w.Req("POST", "/v1/wishlists", tc.body, ann.Token)
			testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "")
			assert.Contains(t, testenv.FieldErrors(t, res), tc.field)
			assert.Equal(t, before, w.wishlistCount(t, ann), "nothing written")
		})
	}
	t.Run("without a token it is 401", func(t *testing.T) {
		testenv.AssertError(t, w.Req("POST", "/v1/wishlists", map[string]any{"name": "x"}, ""), http.StatusUnauthorized, "Unauthorized", "")
	})
}

func TestWishlists_TierLimits(t *testing.T) {
	w := newWorld(t)
	free := w.Signup(t, "free_reader")
	premium := w.Signup(t, "premium_reader")
	w.SetTier(t, premium, users.TierPremium)
	store := w.Signup(t, "store_owner")
	w.SetTier(t, store, users.TierBookstore)

	t.Run("free keeps one", func(t *testing.T) {
		w.create(t, free, "Only", false)
		res := w.Req("POST", "/v1/wishlists", map[string]any{"name": "Second"}, free.Token)
		testenv.AssertError(t, res, http.StatusForbidden, "Forbidden", "Wishlist limit reached: free accounts can keep 1 wishlist")
		d := testenv.ErrorOf(t, res)["details"].(map[string]any)
		assert.Equal(t, map[string]any{"error": "wishlist_limit_reached", "tier": "free", "limit": float64(1), "current": float64(1)}, d)
		assert.Equal(t, []string{"Only"}, names(t, w.Req("GET", "/v1/wishlists", nil, free.Token)))
	})
	t.Run("premium keeps ten", func(t *testing.T) {
		for i := range 10 {
			w.create(t, premium, fmt.Sprintf("List %d", i), false)
		}
		res := w.Req("POST", "/v1/wishlists", map[string]any{"name": "Eleventh"}, premium.Token)
		testenv.AssertError(t, res, http.StatusForbidden, "Forbidden", "Wishlist limit reached: premium accounts can keep 10 wishlists")
		assert.EqualValues(t, 10, w.wishlistCount(t, premium))
	})
	t.Run("bookstore has no limit", func(t *testing.T) {
		for i := range 12 {
			w.create(t, store, fmt.Sprintf("Shelf %d", i), true)
		}
		assert.EqualValues(t, 12, w.wishlistCount(t, store))
	})
	t.Run("deleting one frees its place", func(t *testing.T) {
		list := w.Req("GET", "/v1/wishlists", nil, free.Token).JSON["wishlists"].([]any)
		require.Len(t, list, 1)
		res := w.Req("DELETE", "/v1/wishlists/"+list[0].(map[string]any)["id"].(string), nil, free.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.EqualValues(t, 0, w.wishlistCount(t, free))
		w.create(t, free, "Again", false)
	})
	t.Run("the limits are configuration", func(t *testing.T) {
		w := newWorld(t, testenv.WithEnv(wishlistsapi.EnvWishlistsFree, "2"))
		a := w.Signup(t, "two_lists")
		w.create(t, a, "One", false)
		w.create(t, a, "Two", false)
		res := w.Req("POST", "/v1/wishlists", map[string]any{"name": "Three"}, a.Token)
		testenv.AssertError(t, res, http.StatusForbidden, "Forbidden", "Wishlist limit reached: free accounts can keep 2 wishlists")
	})
}

// Creates racing for the last place: the count's conditional update in
// each create's transaction lets exactly as many through as the limit.
func TestWishlists_TierLimitUnderConcurrency(t *testing.T) {
	w := newWorld(t)
	// race sends n creates at once; created of them must succeed, and
	// the account must then hold total.
	race := func(t *testing.T, a testenv.Account, n, created, total int) {
		t.Helper()
		statuses := make([]int, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				statuses[i] = w.Do("POST", "/v1/wishlists", map[string]any{"name": fmt.Sprintf("Race %d", i)}, a.Token).Status
			})
		}
		wg.Wait()
		made := 0
		for _, s := range statuses {
			switch s {
			case http.StatusCreated:
				made++
			case http.StatusForbidden, http.StatusServiceUnavailable:
			default:
				t.Errorf("unexpected status %d", s)
			}
		}
		assert.Equal(t, created, made, "statuses %v", statuses)
		assert.EqualValues(t, total, w.wishlistCount(t, a), "stored count")
		assert.Len(t, names(t, w.Req("GET", "/v1/wishlists", nil, a.Token)), total, "stored wishlists")
	}
	t.Run("two creates of a free account make one wishlist", func(t *testing.T) {
		race(t, w.Signup(t, "twice"), 2, 1, 1)
	})
	t.Run("eight creates of a free account make one wishlist", func(t *testing.T) {
		race(t, w.Signup(t, "eight_times"), 8, 1, 1)
	})
	t.Run("premium at nine of ten: one more", func(t *testing.T) {
		a := w.Signup(t, "nine_lists")
		w.SetTier(t, a, users.TierPremium)
		for i := range 9 {
			w.create(t, a, fmt.Sprintf("Kept %d", i), false)
		}
		race(t, a, 4, 1, 10)
	})
}

func TestWishlists_Get(t *testing.T) {
	w := newWorld(t)
	ann := w.Signup(t, "ann")
	w.SetTier(t, ann, users.TierPremium)
	bob := w.Signup(t, "bob")
	public := w.create(t, ann, "Public picks", true)["id"].(string)
	private := w.create(t, ann, "Secret picks", false)["id"].(string)

	// Added in this order: priority 3, 1, 3, 2 (the default is 5).
	w.add(t, ann, public, map[string]any{"bookId": w.books[0], "priority": 3, "notes": "first 3"})
	w.add(t, ann, public, map[string]any{"bookId": w.books[1], "priority": 1})
	w.add(t, ann, public, map[string]any{"bookId": w.books[2], "priority": 3, "notes": "second 3"})
	w.add(t, ann, public, map[string]any{"bookId": w.books[3], "priority": 2})
	w.add(t, ann, public, map[string]any{"bookId": w.books[4]})
	// A rating makes averageRating worth checking.
	for _, a := range []testenv.Account{ann, bob} {
		rating := map[string]int{"ann": 5, "bob": 4}[a.Username]
		res := w.Req("POST", "/v1/reviews", map[string]any{"bookId": w.books[1], "rating": rating}, a.Token)
		require.Equal(t, http.StatusCreated, res.Status, res.String())
	}

	t.Run("a public wishlist is read without a token", func(t *testing.T) {
		res := w.Req("GET", "/v1/wishlists/"+public, nil, "")
		require.Equal(t, http.StatusOK, res.Status, res.String())
		v := res.JSON
		assert.Equal(t, public, v["id"])
		assert.Equal(t, "Public picks", v["name"])
		assert.EqualValues(t, 5, v["itemCount"])
		assert.Equal(t, map[string]any{"id": ann.ID, "username": "ann", "displayName": "Reader ann", "avatarUrl": nil}, v["user"])
		items := v["items"].([]any)
		require.Len(t, items, 5)
		var order []string
		for _, it := range items {
			order = append(order, it.(map[string]any)["bookId"].(string))
		}
		assert.Equal(t, []string{w.books[1], w.books[3], w.books[0], w.books[2], w.books[4]}, order, "priority 1 first, then the oldest addition")
		top := items[0].(map[string]any)
		assert.Equal(t, w.books[1], top["id"], "an item's id is its book's")
		assert.Equal(t, public, top["wishlistId"])
		assert.EqualValues(t, 1, top["priority"])
		assert.Equal(t, "", top["notes"])
		assert.Equal(t, map[string]any{
			"id": w.books[1], "isbn": "9780198534532", "title": "The Hobbit", "authors": []any{"J. R. R. Tolkien"},
			"coverUrl": "https://covers.openlibrary.org/b/isbn/9780198534532-L.jpg", "averageRating": 4.5,
		}, top["book"])
		assert.EqualValues(t, 5, items[4].(map[string]any)["priority"], "the default priority")
		assert.Equal(t, "first 3", items[2].(map[string]any)["notes"])
	})
	t.Run("a private wishlist is its owner's", func(t *testing.T) {
		res := w.Req("GET", "/v1/wishlists/"+private, nil, ann.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, []any{}, res.JSON["items"])
		testenv.AssertError(t, w.Req("GET", "/v1/wishlists/"+private, nil, ""), http.StatusUnauthorized, "Unauthorized", "This wishlist is private: sign in as its owner")
		testenv.AssertError(t, w.Req("GET", "/v1/wishlists/"+private, nil, bob.Token), http.StatusForbidden, "Forbidden", "This wishlist is private")
	})
	t.Run("unknown ids are 404", func(t *testing.T) {
		testenv.AssertError(t, w.Req("GET", "/v1/wishlists/"+unknownID, nil, ""), http.StatusNotFound, "NotFound", "Wishlist not found")
		testenv.AssertError(t, w.Req("GET", "/v1/wishlists/not-a-uuid", nil, bob.Token), http.StatusNotFound, "NotFound", "Wishlist not found")
	})
	t.Run("a stale token is 401 even on a public wishlist", func(t *testing.T) {
		testenv.AssertError(t, w.Req("GET", "/v1/wishlists/"+public, nil, "not-a-jwt"), http.StatusUnauthorized, "Unauthorized", "")
	})
}

func TestWishlists_Update(t *testing.T) {
	w := newWorld(t)
	ann := w.Signup(t, "ann")
	bob := w.Signup(t, "bob")
	created := w.create(t, ann, "Mine", false)
	id := created["id"].(string)
	path := "/v1/wishlists/" + id

	t.Run("the owner renames, describes and publishes", func(t *testing.T) {
		res := w.Req("PUT", path, map[string]any{"name": "Ours", "description": "Shared.", "isPublic": true}, ann.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, "Ours", res.JSON["name"])
		assert.Equal(t, "Shared.", res.JSON["description"])
		assert.Equal(t, true, res.JSON["isPublic"])
		assert.Equal(t, created["createdAt"], res.JSON["createdAt"])
		assert.NotEqual(t, created["updatedAt"], res.JSON["updatedAt"])
		assert.Equal(t, []string{"Ours"}, names(t, w.Req("GET", "/v1/users/ann/wishlists", nil, "")), "listed on the profile once public")
		assert.Equal(t, http.StatusOK, w.Req("GET", path, nil, "").Status)
	})
	t.Run("a field left out keeps its value", func(t *testing.T) {
		res := w.Req("PUT", path, map[string]any{"isPublic": false}, ann.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, "Ours", res.JSON["name"])
		assert.Equal(t, "Shared.", res.JSON["description"])
		assert.Equal(t, false, res.JSON["isPublic"])
		assert.Empty(t, names(t, w.Req("GET", "/v1/users/ann/wishlists", nil, "")), "private again: off the profile")
		assert.Equal(t, http.StatusUnauthorized, w.Req("GET", path, nil, "").Status)
	})
	t.Run("an empty description clears it; an empty change answers the wishlist", func(t *testing.T) {
		res := w.Req("PUT", path, map[string]any{"description": ""}, ann.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, "", res.JSON["description"])
		again := w.Req("PUT", path, map[string]any{}, ann.Token)
		require.Equal(t, http.StatusOK, again.Status, again.String())
		assert.Equal(t, res.JSON, again.JSON)
	})
	t.Run("another account is 403, an unknown wishlist 404, a bad name 400", func(t *testing.T) {
		testenv.AssertError(t, w.Req("PUT", path, map[string]any{"name": "Theirs"}, bob.Token), http.StatusForbidden, "Forbidden", "Only the owner can change this wishlist")
		testenv.AssertError(t, w.Req("PUT", path, map[string]any{}, bob.Token), http.StatusForbidden, "Forbidden", "")
		testenv.AssertError(t, w.Req("PUT", "/v1/wishlists/"+unknownID, map[string]any{"name": "x"}, ann.Token), http.StatusNotFound, "NotFound", "")
		res := w.Req("PUT", path, map[string]any{"name": ""}, ann.Token)
		testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "")
		assert.Equal(t, "Ours", w.Item(t, dynamo.WishlistKey(id))["name"], "nothing written")
	})
}

func TestWishlists_Items(t *testing.T) {
	w := newWorld(t)
	ann := w.Signup(t, "ann")
	bob := w.Signup(t, "bob")
	id := w.create(t, ann, "Mine", true)["id"].(string)
	items := "/v1/wishlists/" + id + "/items"
	itemCount := func() float64 { return w.Item(t, dynamo.WishlistKey(id))["itemCount"].(float64) }

	var added map[string]any
	t.Run("the owner adds a book", func(t *testing.T) {
		res := w.Req("POST", items, map[string]any{"bookId": strings.ToUpper(w.books[0]), "priority": 2, "notes": "  a gift  "}, ann.Token)
		require.Equal(t, http.StatusCreated, res.Status, res.String())
		added = res.JSON
		assert.Equal(t, w.books[0], added["id"])
		assert.Equal(t, id, added["wishlistId"])
		assert.Equal(t, w.books[0], added["bookId"])
		assert.EqualValues(t, 2, added["priority"])
		assert.Equal(t, "a gift", added["notes"])
		assert.Equal(t, added["addedAt"], added["updatedAt"])
		assert.Equal(t, "Harry Potter", added["book"].(map[string]any)["title"])
		assert.EqualValues(t, 0, added["book"].(map[string]any)["averageRating"])
		assert.EqualValues(t, 1, itemCount())
	})
	for _, tc := range []struct {
		name   string
		body   any
		token  string
		status int
		field  string
	}{
		{"the same book again is 400", map[string]any{"bookId": w.books[0]}, ann.Token, 400, "bookId"},
		{"no bookId is 400", map[string]any{"priority": 1}, ann.Token, 400, "bookId"},
		{"a bookId that is not a UUID is 400", map[string]any{"bookId": "123"}, ann.Token, 400, "bookId"},
		{"priority 0 is 400", map[string]any{"bookId": w.books[1], "priority": 0}, ann.Token, 400, "priority"},
		{"priority 11 is 400", map[string]any{"bookId": w.books[1], "priority": 11}, ann.Token, 400, "priority"},
		{"priority 2.5 is 400", map[string]any{"bookId": w.books[1], "priority": 2.5}, ann.Token, 400, "priority"},
		{"priority \"3\" is 400", map[string]any{"bookId": w.books[1], "priority": "3"}, ann.Token, 400, "priority"},
		{"notes over 1000 characters are 400", map[string]any{"bookId": w.books[1], "notes": strings.Repeat("n", 1001)}, ann.Token, 400, "notes"},
		{"an unknown book is 404", map[string]any{"bookId": unknownID}, ann.Token, 404, ""},
		{"another account's wishlist is 403", map[string]any{"bookId": w.books[1]}, bob.Token, 403, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := w.Req("POST", items, tc.body, tc.token)
			require.Equal(t, tc.status, res.Status, res.String())
			if tc.field != "" {
				assert.Contains(t, testenv.FieldErrors(t, res), tc.field)
			}
			assert.EqualValues(t, 1, itemCount(), "nothing written")
		})
	}
	t.Run("the same book twice says so", func(t *testing.T) {
		testenv.AssertError(t, w.Req("POST", items, map[string]any{"bookId": w.books[0]}, ann.Token), http.StatusBadRequest, "ValidationError", "Book already in wishlist")
	})
	t.Run("an unknown wishlist is 404", func(t *testing.T) {
		testenv.AssertError(t, w.Req("POST", "/v1/wishlists/"+unknownID+"/items", map[string]any{"bookId": w.books[1]}, ann.Token), http.StatusNotFound, "NotFound", "Wishlist not found")
	})

	itemPath := items + "/" + w.books[0]
	t.Run("the owner changes priority and notes", func(t *testing.T) {
		res := w.Req("PUT", itemPath, map[string]any{"priority": 1}, ann.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, map[string]any{
			"id": w.books[0], "wishlistId": id, "bookId": w.books[0], "priority": float64(1), "notes": "a gift",
			"addedAt": added["addedAt"], "updatedAt": res.JSON["updatedAt"],
		}, res.JSON)
		assert.NotEqual(t, added["updatedAt"], res.JSON["updatedAt"])
		res = w.Req("PUT", itemPath, map[string]any{"notes": ""}, ann.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, "", res.JSON["notes"])
		assert.EqualValues(t, 1, res.JSON["priority"])
		same := w.Req("PUT", itemPath, map[string]any{}, ann.Token)
		require.Equal(t, http.StatusOK, same.Status, same.String())
		assert.Equal(t, res.JSON, same.JSON)
	})
	t.Run("item changes refused", func(t *testing.T) {
		testenv.AssertError(t, w.Req("PUT", itemPath, map[string]any{"priority": nil}, ann.Token), http.StatusBadRequest, "ValidationError", "")
		testenv.AssertError(t, w.Req("PUT", itemPath, map[string]any{"priority": 12}, ann.Token), http.StatusBadRequest, "ValidationError", "")
		testenv.AssertError(t, w.Req("PUT", itemPath, map[string]any{"priority": 3}, bob.Token), http.StatusForbidden, "Forbidden", "")
		testenv.AssertError(t, w.Req("PUT", items+"/"+w.books[5], map[string]any{"priority": 3}, ann.Token), http.StatusNotFound, "NotFound", "Wishlist item not found")
		testenv.AssertError(t, w.Req("PUT", items+"/nope", map[string]any{"priority": 3}, ann.Token), http.StatusNotFound, "NotFound", "Wishlist item not found")
		testenv.AssertError(t, w.Req("PUT", "/v1/wishlists/"+unknownID+"/items/"+w.books[0], map[string]any{"priority": 3}, ann.Token), http.StatusNotFound, "NotFound", "Wishlist not found")
		assert.EqualValues(t, 1, w.Item(t, dynamo.WishlistEntryKey(id, w.books[0]))["priority"])
	})
	t.Run("the owner takes a book off", func(t *testing.T) {
		w.add(t, ann, id, map[string]any{"bookId": w.books[1]})
		require.EqualValues(t, 2, itemCount())
		testenv.AssertError(t, w.Req("DELETE", itemPath, nil, bob.Token), http.StatusForbidden, "Forbidden", "")
		res := w.Req("DELETE", itemPath, nil, ann.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, map[string]any{"success": true, "message": "Book removed from wishlist"}, res.JSON)
		assert.EqualValues(t, 1, itemCount())
		assert.Nil(t, w.Item(t, dynamo.WishlistEntryKey(id, w.books[0])))
		testenv.AssertError(t, w.Req("DELETE", itemPath, nil, ann.Token), http.StatusNotFound, "NotFound", "Wishlist item not found")
		assert.EqualValues(t, 1, itemCount(), "a refused delete counts nothing")
		w.add(t, ann, id, map[string]any{"bookId": w.books[0]})
		assert.EqualValues(t, 2, itemCount(), "a removed book can come back")
	})
}

// Additions and removals in parallel keep itemCount exact, and one book
// added twice at once is on the wishlist once.
func TestWishlists_ItemCountUnderConcurrency(t *testing.T) {
	w := newWorld(t)
	ann := w.Signup(t, "ann")
	id := w.create(t, ann, "Busy", false)["id"].(string)
	items := "/v1/wishlists/" + id + "/items"
	for _, b := range w.books[:3] {
		w.add(t, ann, id, map[string]any{"bookId": b})
	}

	var wg sync.WaitGroup
	statuses := make([]int, len(w.books))
	for i, b := range w.books {
		wg.Go(func() {
			if i < 3 {
				statuses[i] = w.Do("DELETE", items+"/"+b, nil, ann.Token).Status
			} else {
				statuses[i] = w.Do("POST", items, map[string]any{"bookId": b}, ann.Token).Status
			}
		})
	}
	twice := make([]int, 2)
	for i := range twice {
		wg.Go(func() { twice[i] = w.Do("POST", items, map[string]any{"bookId": w.books[3]}, ann.Token).Status })
	}
	wg.Wait()

	stored := w.Item(t, dynamo.WishlistKey(id))["itemCount"].(float64)
	view := w.Req("GET", "/v1/wishlists/"+id, nil, ann.Token)
	require.Equal(t, http.StatusOK, view.Status, view.String())
	assert.Equal(t, stored, float64(len(view.JSON["items"].([]any))), "itemCount is the number of books on it")
	assert.Equal(t, stored, view.JSON["itemCount"])
	for i, s := range statuses {
		if i < 3 {
			assert.Equal(t, http.StatusOK, s, "delete %d", i)
		}
	}
	// books[3] was added by three requests at once: one of them won.
	won := 0
	for _, s := range append([]int{statuses[3]}, twice...) {
		if s == http.StatusCreated {
			won++
		} else {
			assert.Equal(t, http.StatusBadRequest, s)
		}
	}
	assert.Equal(t, 1, won)
	assert.EqualValues(t, len(w.books)-3, stored)
}

func TestWishlists_Full(t *testing.T) {
	w := newWorld(t, testenv.WithEnv(wishlistsapi.EnvWishlistMaxItems, "2"))
	ann := w.Signup(t, "ann")
	id := w.create(t, ann, "Short", false)["id"].(string)
	w.add(t, ann, id, map[string]any{"bookId": w.books[0]})
	w.add(t, ann, id, map[string]any{"bookId": w.books[1]})
	res := w.Req("POST", "/v1/wishlists/"+id+"/items", map[string]any{"bookId": w.books[2]}, ann.Token)
	testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "A wishlist holds at most 2 books")
	assert.EqualValues(t, 2, w.Item(t, dynamo.WishlistKey(id))["itemCount"])
	assert.Nil(t, w.Item(t, dynamo.WishlistEntryKey(id, w.books[2])))
}

func TestWishlists_Delete(t *testing.T) {
	w := newWorld(t)
	ann := w.Signup(t, "ann")
	bob := w.Signup(t, "bob")
	id := w.create(t, ann, "Doomed", true)["id"].(string)
	for _, b := range w.books {
		w.add(t, ann, id, map[string]any{"bookId": b})
	}
	path := "/v1/wishlists/" + id

	testenv.AssertError(t, w.Req("DELETE", path, nil, bob.Token), http.StatusForbidden, "Forbidden", "Only the owner can change this wishlist")
	require.NotNil(t, w.Item(t, dynamo.WishlistKey(id)))

	res := w.Req("DELETE", path, nil, ann.Token)
	require.Equal(t, http.StatusOK, res.Status, res.String())
	assert.Equal(t, map[string]any{"success": true, "message": "Wishlist deleted"}, res.JSON)
	assert.Nil(t, w.Item(t, dynamo.WishlistKey(id)))
	for _, b := range w.books {
		assert.Nil(t, w.Item(t, dynamo.WishlistEntryKey(id, b)), "every item goes with it")
	}
	assert.EqualValues(t, 0, w.wishlistCount(t, ann))
	testenv.AssertError(t, w.Req("GET", path, nil, ann.Token), http.StatusNotFound, "NotFound", "")
	testenv.AssertError(t, w.Req("DELETE", path, nil, ann.Token), http.StatusNotFound, "NotFound", "")
	assert.Empty(t, names(t, w.Req("GET", "/v1/users/ann/wishlists", nil, "")))

	t.Run("a delete that stopped half way is finished by the next", func(t *testing.T) {
		id := w.create(t, ann, "Half", false)["id"].(string)
		w.add(t, ann, id, map[string]any{"bookId": w.books[0]})
		// The first step (the wishlist item) happened, the second did not.
		w.DeleteItem(t, dynamo.WishlistKey(id))
		testenv.AssertError(t, w.Req("DELETE", "/v1/wishlists/"+id, nil, ann.Token), http.StatusNotFound, "NotFound", "")
		assert.Nil(t, w.Item(t, dynamo.WishlistEntryKey(id, w.books[0])))
	})
}

func TestWishlists_Lists(t *testing.T) {
	w := newWorld(t)
	ann := w.Signup(t, "ann")
	w.SetTier(t, ann, users.TierPremium)
	bob := w.Signup(t, "bob")
	for i, public := range []bool{true, false, true, true, false} {
		w.create(t, ann, fmt.Sprintf("List %d", i), public)
	}

	t.Run("mine: private ones included, oldest first, every field", func(t *testing.T) {
		res := w.Req("GET", "/v1/wishlists", nil, ann.Token)
		assert.Equal(t, []string{"List 0", "List 1", "List 2", "List 3", "List 4"}, names(t, res))
		assert.Nil(t, res.JSON["nextCursor"])
		assert.Equal(t, false, res.JSON["hasMore"])
		first := res.JSON["wishlists"].([]any)[0].(map[string]any)
		for _, f := range []string{"id", "userId", "name", "description", "isPublic", "itemCount", "createdAt", "updatedAt"} {
			assert.Contains(t, first, f)
		}
		assert.Empty(t, names(t, w.Req("GET", "/v1/wishlists", nil, bob.Token)), "nobody else's")
	})
	t.Run("a profile lists the public ones to anyone", func(t *testing.T) {
		assert.Equal(t, []string{"List 0", "List 2", "List 3"}, names(t, w.Req("GET", "/v1/users/ann/wishlists", nil, "")))
		assert.Equal(t, []string{"List 0", "List 2", "List 3"}, names(t, w.Req("GET", "/v1/users/ANN/wishlists", nil, ann.Token)), "the owner too sees the public ones there")
		testenv.AssertError(t, w.Req("GET", "/v1/users/nobody_here/wishlists", nil, ""), http.StatusNotFound, "NotFound", "User not found")
	})
	t.Run("both page with limit and cursor, neither skipping nor repeating", func(t *testing.T) {
		for _, tc := range []struct {
			path, token string
			want        []string
		}{
			{"/v1/wishlists", ann.Token, []string{"List 0", "List 1", "List 2", "List 3", "List 4"}},
			{"/v1/users/ann/wishlists", "", []string{"List 0", "List 2", "List 3"}},
		} {
			var got []string
			for _, res := range w.ReadPages(t, tc.path+"?limit=2", tc.token) {
				got = append(got, names(t, res)...)
			}
			assert.Equal(t, tc.want, got, tc.path)
		}
	})
	t.Run("a bad limit or a foreign cursor is 400", func(t *testing.T) {
		testenv.AssertError(t, w.Req("GET", "/v1/wishlists?limit=0", nil, ann.Token), http.StatusBadRequest, "ValidationError", "")
		testenv.AssertError(t, w.Req("GET", "/v1/wishlists?limit=101", nil, ann.Token), http.StatusBadRequest, "ValidationError", "")
		res := w.Req("GET", "/v1/wishlists?limit=1", nil, ann.Token)
		cursor := res.JSON["nextCursor"].(string)
		testenv.AssertError(t, w.Req("GET", "/v1/wishlists?cursor="+cursor, nil, bob.Token), http.StatusBadRequest, "ValidationError", "Invalid cursor")
		testenv.AssertError(t, w.Req("GET", "/v1/users/ann/wishlists?cursor="+cursor, nil, ""), http.StatusBadRequest, "ValidationError", "Invalid cursor")
	})
}

// A free account's retried create (its answer lost) replays the first
// 201 rather than meeting its own wishlist as the tier's limit.
func TestWishlists_RetriedCreateReplays(t *testing.T) {
	w := newWorld(t)
	ann := w.Signup(t, "ann")
	h := map[string]string{"Authorization": "Bearer " + ann.Token, "Idempotency-Key": "create-once"}
	body := map[string]any{"name": "Once", "isPublic": true}
	first := w.DoHeaders("POST", "/v1/wishlists", body, h)
	require.Equal(t, http.StatusCreated, first.Status, first.String())
	again := w.DoHeaders("POST", "/v1/wishlists", body, h)
	require.Equal(t, http.StatusCreated, again.Status, again.String())
	assert.Equal(t, "true", again.Header.Get("Idempotent-Replayed"))
	assert.Equal(t, first.JSON["id"], again.JSON["id"])
	assert.EqualValues(t, 1, w.wishlistCount(t, ann))
}
