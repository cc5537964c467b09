package webhooks

import (
	"net/http"
	"net/netip"
	"strconv"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSignVerifiesWithStandardWebhooks: a signature made with either
// secret of a rotation verifies with the Standard Webhooks library, and
// one made with another secret does not.
func TestSignVerifiesWithStandardWebhooks(t *testing.T) {
	current, previous, other := NewSecret(), NewSecret(), NewSecret()
	body := []byte(`{"id":"e1","type":"webhook.test"}`)
	at := time.Now()
	sig, err := Sign([]string{current, previous}, "msg_1", at, body)
	require.NoError(t, err)
	h := http.Header{}
	h.Set(HeaderID, "msg_1")
	h.Set(HeaderTimestamp, strconv.FormatInt(at.Unix(), 10))
	h.Set(HeaderSignature, sig)
	for _, s := range []string{current, previous} {
		wh, err := standardwebhooks.NewWebhook(s)
		require.NoError(t, err)
		assert.NoError(t, wh.Verify(body, h))
	}
	wh, err := standardwebhooks.NewWebhook(other)
	require.NoError(t, err)
	assert.Error(t, wh.Verify(body, h))
	wh, _ = standardwebhooks.NewWebhook(current)
	assert.Error(t, wh.Verify([]byte(`{"id":"e2"}`), h), "another body")
}

func TestDeliveryID(t *testing.T) {
	at := time.Date(2026, 11, 28, 4, 0, 0, 0, time.UTC)
	a := DeliveryID("ev1", "ep1", at)
	assert.Equal(t, a, DeliveryID("ev1", "ep1", at), "stable")
	assert.NotEqual(t, a, DeliveryID("ev1", "ep2", at))
	assert.NotEqual(t, a, DeliveryID("ev2", "ep1", at))
	assert.Less(t, a, DeliveryID("ev0", "ep1", at.Add(time.Millisecond)), "ordered by time")
	assert.Equal(t, byte('7'), a[14], "version 7: %s", a)
	assert.Len(t, a, 36)
}

func TestForbiddenIP(t *testing.T) {
	for _, s := range []string{"127.0.0.1", "10.1.2.3", "172.20.0.1", "192.168.1.1", "169.254.169.254", "::1", "fe80::1",
		"fd00:ec2::254", "::ffff:127.0.0.1", "0.0.0.0", "100.64.0.1", "fc00::1",
		// A zone does not make an address another: netip's Prefix.Contains
		// never matches a zoned address, and the kernel dials ::1%lo.
		"::1%lo", "fe80::1%eth0", "::ffff:127.0.0.1%lo"} {
		assert.True(t, ForbiddenIP(netip.MustParseAddr(s)), s)
	}
	for _, s := range []string{"8.8.8.8", "52.94.236.248", "2606:4700:4700::1111"} {
		assert.False(t, ForbiddenIP(netip.MustParseAddr(s)), s)
	}
}
