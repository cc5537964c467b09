package notify_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/bookplatform/backend/shared/notify"
	"github.com/bookplatform/backend/shared/orders"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var testKeys = notify.Tokens{Keys: func() [][]byte {
	return [][]byte{[]byte("current-key-0123456789abcdef"), []byte("previous-key-0123456789abcdef")}
}}

// The day's digest goes once to each store with entries: its orders,
// their total, List-Unsubscribe headers (RFC 8058) and the link in both
// bodies, whose token names the store; a second run sends nothing; a
// store that turned its email off since gets none.
func TestDigest_oncePerStoreAndDay(t *testing.T) {
	w := newWorld(t)
	w.settings(t, w.a, notify.Daily, "")
	w.settings(t, w.b, notify.Daily, "books@south.example")
	o1, o2 := w.order(), w.order()
	o2.OrderNumber = "BW-20261127-2B8C4D"
	for _, o := range []orders.Data{o1, o2} {
		require.NoError(t, w.c.Consume(t.Context(), updated(t, o)))
	}
	w.mailed.sent = nil

	g := notify.NewDigest(w.deps, func(storeID string) string {
		tok, err := testKeys.Sign(storeID)
		require.NoError(t, err)
		return notify.UnsubscribeURL("https://api.example.test", tok)
	})
	res, err := g.Handle(t.Context(), notify.DigestEvent{Day: "2026-11-27"})
	require.NoError(t, err)
	assert.Equal(t, notify.DigestResult{Day: "2026-11-27", Stores: 2, Sent: 2}, res)
	assert.ElementsMatch(t, []string{w.a.Owner.Email, "books@south.example"}, w.mailed.byTag()[notify.KindStoreDigest])
	assert.Len(t, w.mailed.byTag(), 1)

	for _, m := range w.mailed.messages() {
		assert.Contains(t, m.Text, "BW-20261127-7K3M9Q")
		assert.Contains(t, m.Text, "BW-20261127-2B8C4D")
		link := strings.Trim(m.Headers["List-Unsubscribe"], "<>")
		assert.Equal(t, "List-Unsubscribe=One-Click", m.Headers["List-Unsubscribe-Post"])
		assert.Contains(t, m.Text, link)
		assert.Contains(t, m.HTML, strings.ReplaceAll(link, "&", "&amp;"))
		u, err := url.Parse(link)
		require.NoError(t, err)
		assert.Equal(t, "/v1/notifications/unsubscribe", u.Path)
		storeID, err := testKeys.Open(u.Query().Get("token"))
		require.NoError(t, err)
		want := w.a.ID
		if m.To == "books@south.example" {
			want = w.b.ID
			assert.Contains(t, m.Text, "$17.86", "two pickups of $8.93")
		}
		assert.Equal(t, want, storeID)
	}

	res, err = g.Handle(t.Context(), notify.DigestEvent{Day: "2026-11-27"})
	require.NoError(t, err)
	assert.Equal(t, 0, res.Sent, "a run again sends nothing")
	assert.Len(t, w.mailed.messages(), 2)

	// Unsubscribed before the run: no digest.
	w.settings(t, w.b, notify.Off, "")
	res, err = g.Handle(t.Context(), notify.DigestEvent{Day: "2026-11-28"})
	require.NoError(t, err)
	assert.Equal(t, notify.DigestResult{Day: "2026-11-28"}, res, "no entries that day")
	_, err = g.Handle(t.Context(), notify.DigestEvent{Day: "27/11/2026"})
	assert.Error(t, err)
}

// A token verifies with the key that signed it while that key is among
// the keys; a forged or altered one, or one for another store, does not.
func TestTokens(t *testing.T) {
	tok, err := testKeys.Sign("store-1")
	require.NoError(t, err)
	id, err := testKeys.Open(tok)
	require.NoError(t, err)
	assert.Equal(t, "store-1", id)

	rotated := notify.Tokens{Keys: func() [][]byte { return [][]byte{[]byte("next-key"), []byte("current-key-0123456789abcdef")} }}
	id, err = rotated.Open(tok)
	require.NoError(t, err, "the previous key still verifies")
	assert.Equal(t, "store-1", id)

	other, err := testKeys.Sign("store-2")
	require.NoError(t, err)
	p1, _, _ := strings.Cut(tok, ".")
	_, s2, _ := strings.Cut(other, ".")
	for _, bad := range []string{"", "abc", tok + "x", p1 + "." + s2, "c3RvcmUtMg." + strings.SplitN(tok, ".", 2)[1]} {
		_, err := testKeys.Open(bad)
		assert.ErrorIs(t, err, notify.ErrBadToken, bad)
	}
	gone := notify.Tokens{Keys: func() [][]byte { return [][]byte{[]byte("another")} }}
	_, err = gone.Open(tok)
	assert.ErrorIs(t, err, notify.ErrBadToken, "once its key rotated out")
}
