package notificationsapi_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/notify"
	"github.com/bookplatform/backend/shared/notify/notifydeps"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// The owner reads the defaults, changes one field at a time (the other
// stays), clears the address with null; bad values are 400 naming the
// field and change nothing; staff and strangers are 403, an unknown
// store 404.
func TestSettings(t *testing.T) {
	env := testenv.New(t)
	shop := env.OpenShop(t, "mail-books", nil)
	path := "/v1/stores/mail-books/notification-settings"

	res := env.Do("GET", path, nil, shop.Owner.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	assert.Equal(t, map[string]any{"storeId": shop.ID, "newOrderEmail": "immediate", "email": nil, "updatedAt": nil}, res.JSON)

	res = env.Do("PUT", path, map[string]any{"newOrderEmail": "daily"}, shop.Owner.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	assert.Equal(t, "daily", res.JSON["newOrderEmail"])
	assert.Nil(t, res.JSON["email"])
	assert.NotNil(t, res.JSON["updatedAt"])

	res = env.Do("PUT", path, map[string]any{"email": " Orders@Mail-Books.Example "}, shop.Owner.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	assert.Equal(t, "daily", res.JSON["newOrderEmail"], "left out: unchanged")
	assert.Equal(t, "orders@mail-books.example", res.JSON["email"])

	for _, bad := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"newOrderEmail": "hourly"}, "newOrderEmail"},
		{map[string]any{"email": "not an address"}, "email"},
		{map[string]any{"email": 42}, "email"},
	} {
		res = env.Do("PUT", path, bad.body, shop.Owner.Token)
		require.Equal(t, http.StatusBadRequest, res.Status, "%v: %s", bad.body, res)
		assert.Contains(t, testenv.FieldErrors(t, res), bad.field)
	}
	res = env.Do("GET", path, nil, shop.Owner.Token)
	assert.Equal(t, "orders@mail-books.example", res.JSON["email"], "a refused change changes nothing")

	res = env.Do("PUT", path, map[string]any{"email": nil, "newOrderEmail": "off"}, shop.Owner.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	assert.Nil(t, res.JSON["email"])
	assert.Equal(t, "off", res.JSON["newOrderEmail"])

	assert.Equal(t, http.StatusForbidden, env.Do("GET", path, nil, shop.Staff.Token).Status, "staff are not the owner")
	stranger := env.Signup(t, "stranger")
	assert.Equal(t, http.StatusForbidden, env.Do("PUT", path, map[string]any{"newOrderEmail": "daily"}, stranger.Token).Status)
	assert.Equal(t, http.StatusNotFound, env.Do("GET", "/v1/stores/no-such-store/notification-settings", nil, shop.Owner.Token).Status)
	assert.Equal(t, http.StatusUnauthorized, env.Do("GET", path, nil, "").Status)

	// The store's deletion takes its settings with it.
	require.Equal(t, http.StatusOK, env.Do("DELETE", "/v1/stores/mail-books", nil, shop.Owner.Token).Status)
	assert.Nil(t, env.Item(t, dynamo.StoreNotificationSettingsKey(shop.ID)))
}

// The digest's link turns a daily store's digest off, by GET (the link)
// or by the mail client's one-click POST (RFC 8058), and again changes
// nothing; a store on immediate stays on it; a forged, altered or
// missing token is 400 and changes nothing.
func TestUnsubscribe(t *testing.T) {
	env := testenv.New(t)
	shop := env.OpenShop(t, "digest-books", nil)
	other := env.OpenShop(t, "instant-books", nil)
	path := "/v1/stores/digest-books/notification-settings"
	require.Equal(t, http.StatusOK, env.Do("PUT", path, map[string]any{"newOrderEmail": "daily"}, shop.Owner.Token).Status)
	tokens := notifydeps.Tokens(env.App.Deps())
	tok, err := tokens.Sign(shop.ID)
	require.NoError(t, err)
	link := notify.UnsubscribeURL("", tok)

	for _, bad := range []string{"/v1/notifications/unsubscribe", "/v1/notifications/unsubscribe?token=x.y", link + "A",
		"/v1/notifications/unsubscribe?token=" + url.QueryEscape(strings.Replace(tok, tok[:4], "AAAA", 1))} {
		res := env.Do("GET", bad, nil, "")
		require.Equal(t, http.StatusBadRequest, res.Status, "%s: %s", bad, res)
		assert.Contains(t, testenv.FieldErrors(t, res), "token")
	}
	assert.Equal(t, "daily", env.Do("GET", path, nil, shop.Owner.Token).JSON["newOrderEmail"], "nothing changed")

	res := env.Do("GET", link, nil, "")
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	assert.Equal(t, shop.ID, res.JSON["storeId"])
	assert.Equal(t, "off", res.JSON["newOrderEmail"])
	assert.Equal(t, "off", env.Do("GET", path, nil, shop.Owner.Token).JSON["newOrderEmail"])

	res = env.DoRaw("POST", link, "application/x-www-form-urlencoded", strings.NewReader("List-Unsubscribe=One-Click"), "")
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	assert.Equal(t, "off", res.JSON["newOrderEmail"])

	// A store that chose immediate since its last digest stays on it.
	tok2, err := tokens.Sign(other.ID)
	require.NoError(t, err)
	res = env.DoRaw("POST", notify.UnsubscribeURL("", tok2), "application/x-www-form-urlencoded", strings.NewReader("List-Unsubscribe=One-Click"), "")
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	assert.Equal(t, "immediate", res.JSON["newOrderEmail"])
	assert.Nil(t, env.Item(t, dynamo.StoreNotificationSettingsKey(other.ID)), "nothing written")
}
