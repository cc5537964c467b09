package app_test

import (
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/auth"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rotatingKeys is a keyring a test rotates, as the Secrets Manager
// keyring does when it reads a rotated secret.
type rotatingKeys struct {
	mu  sync.Mutex
	set auth.KeySet
}

func (k *rotatingKeys) Keys() auth.KeySet {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.set
}

func (k *rotatingKeys) rotate(t *testing.T, signing []byte, accepted ...[]byte) {
	t.Helper()
	s, err := auth.NewKeySet(signing, accepted...)
	require.NoError(t, err)
	k.mu.Lock()
	k.set = s
	k.mu.Unlock()
}

// kidOf is the key id a token names.
func kidOf(t *testing.T, token string) string {
	t.Helper()
	parsed, _, err := jwt.NewParser().ParseUnverified(token, jwt.MapClaims{})
	require.NoError(t, err)
	kid, _ := parsed.Header["kid"].(string)
	return kid
}

// A rotation of the signing key logs nobody out: through the real router,
// what was issued under the old key (an access token, a cursor, a kept
// idempotency answer) keeps working after the rotation, the access token
// until it expires; new ones are issued under the new key. Once the old
// key is dropped (the rotation after), a token naming it is the spec's 401.
func TestKeyRotation_NobodyIsLoggedOut(t *testing.T) {
	oldKey := []byte("rotation-test-old-key-0123456789abcdef")
	newKey := []byte("rotation-test-new-key-0123456789abcdef")
	nextKey := []byte("rotation-test-next-key-0123456789abcdef")
	keys := &rotatingKeys{}
	keys.rotate(t, oldKey, newKey)
	clock := testenv.NewClock(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC))
	env := testenv.New(t, testenv.WithClock(clock), testenv.WithKeys(keys))

	// Before the rotation: a session, a line posted under an idempotency
	// key, and the first page of the book's lines.
	ann := env.Signup(t, "ann_rotates")
	require.Equal(t, auth.KeyID(oldKey), kidOf(t, ann.Token))
	book := bookOf(t, env)
	for _, content := range []string{"first", "second"} {
		res := post(env, "/v1/lines", ann.Token, "", map[string]any{"bookId": book, "content": content})
		require.Equal(t, http.StatusCreated, res.Status, res.String())
	}
	body := map[string]any{"bookId": book, "content": "posted once"}
	first := post(env, "/v1/lines", ann.Token, "rotation-key-1", body)
	require.Equal(t, http.StatusCreated, first.Status, first.String())
	page1 := env.Do("GET", "/v1/books/"+book+"/lines?limit=1", nil, ann.Token)
	require.Equal(t, http.StatusOK, page1.Status, page1.String())
	cursor, _ := page1.JSON["nextCursor"].(string)
	require.NotEmpty(t, cursor)

	// The rotation: the new key signs, the old one is still accepted.
	keys.rotate(t, newKey, oldKey, nextKey)
	clock.Advance(time.Minute)

	t.Run("the token signed before the rotation is still valid", func(t *testing.T) {
		res := env.Do("GET", "/v1/users/me", nil, ann.Token)
		assert.Equal(t, http.StatusOK, res.Status, res.String())
	})
	t.Run("a new session is signed with the new key", func(t *testing.T) {
		again := env.Login(t, ann)
		assert.Equal(t, auth.KeyID(newKey), kidOf(t, again.Token))
		res := env.Do("GET", "/v1/users/me", nil, again.Token)
		assert.Equal(t, http.StatusOK, res.Status, res.String())
	})
	t.Run("the cursor issued before the rotation pages on", func(t *testing.T) {
		res := env.Do("GET", "/v1/books/"+book+"/lines?limit=1&cursor="+url.QueryEscape(cursor), nil, ann.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		items, _ := res.JSON["items"].([]any)
		assert.Len(t, items, 1)
	})
	t.Run("a retry after the rotation gets the answer kept before it", func(t *testing.T) {
		again := post(env, "/v1/lines", ann.Token, "rotation-key-1", body)
		require.Equal(t, http.StatusCreated, again.Status, again.String())
		assert.Equal(t, "true", again.Header.Get(httpapi.ReplayedHeader))
		assert.JSONEq(t, string(first.Body), string(again.Body))
		assert.EqualValues(t, 3, env.Item(t, dynamo.BookKey(book))["totalLines"], "the retry posted nothing")
		other := post(env, "/v1/lines", ann.Token, "rotation-key-1", map[string]any{"bookId": book, "content": "another"})
		testenv.AssertError(t, other, http.StatusUnprocessableEntity, "UnprocessableEntity", "")
	})

	t.Run("the old token expires as it would have", func(t *testing.T) {
		clock.Advance(env.Config.AccessTokenTTL)
		res := env.Do("GET", "/v1/users/me", nil, ann.Token)
		testenv.AssertError(t, res, http.StatusUnauthorized, "Unauthorized", httpapi.MsgInvalidToken)
	})

	t.Run("a token naming a key no longer held is 401", func(t *testing.T) {
		clock.Advance(-env.Config.AccessTokenTTL) // the old token is current again
		keys.rotate(t, nextKey, newKey)
		res := env.Do("GET", "/v1/users/me", nil, ann.Token)
		testenv.AssertError(t, res, http.StatusUnauthorized, "Unauthorized", httpapi.MsgInvalidToken)
		res = env.Do("GET", "/v1/books/"+book+"/lines?limit=1&cursor="+url.QueryEscape(cursor), nil, "")
		testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "Invalid cursor")
	})
}

// A token that names no key, or a key the server never held, is the
// spec's 401 "Invalid or expired token", even with a signature that would
// verify under the current key.
func TestKeyRotation_UnknownKeyID(t *testing.T) {
	env := testenv.New(t)
	ann := env.Signup(t, "ann_unknown_kid")
	claims := jwt.MapClaims{}
	_, _, err := jwt.NewParser().ParseUnverified(ann.Token, claims)
	require.NoError(t, err)
	for name, kid := range map[string]any{"an unknown key id": "0123456789abcdef", "no key id": nil, "a key id that is not a string": 7} {
		t.Run(name, func(t *testing.T) {
			tok := jwt.NewWithClaims(jwt.SigningMethodHS256, claims)
			if kid != nil {
				tok.Header["kid"] = kid
			}
			signed, err := tok.SignedString([]byte(testenv.JWTSecret))
			require.NoError(t, err)
			res := env.Do("GET", "/v1/users/me", nil, signed)
			testenv.AssertError(t, res, http.StatusUnauthorized, "Unauthorized", httpapi.MsgInvalidToken)
		})
	}
	t.Run("the same claims under the key's id verify", func(t *testing.T) {
		tok := jwt.NewWithClaims(jwt.SigningMethodHS256, claims)
		tok.Header["kid"] = auth.KeyID([]byte(testenv.JWTSecret))
		signed, err := tok.SignedString([]byte(testenv.JWTSecret))
		require.NoError(t, err)
		res := env.Do("GET", "/v1/users/me", nil, signed)
		assert.Equal(t, http.StatusOK, res.Status, res.String())
	})
}
