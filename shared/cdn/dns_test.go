package cdn

import (
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/dns/dnsmessage"
)

// A resolver on a local UDP port: books.example.com is a CNAME of the
// store's target, which is a CNAME of the CDN endpoint (the answer also
// carries that second record, as a resolver may); plain.example.com has
// an address only; anything else does not exist.
func fakeResolver(t *testing.T) string {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { pc.Close() })
	cname := func(owner, target string) dnsmessage.Resource {
		return dnsmessage.Resource{
			Header: dnsmessage.ResourceHeader{Name: dnsmessage.MustNewName(owner), Type: dnsmessage.TypeCNAME, Class: dnsmessage.ClassINET, TTL: 60},
			Body:   &dnsmessage.CNAMEResource{CNAME: dnsmessage.MustNewName(target)},
		}
	}
	go func() {
		buf := make([]byte, 512)
		for {
			n, addr, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			var q dnsmessage.Message
			if q.Unpack(buf[:n]) != nil || len(q.Questions) != 1 {
				continue
			}
			a := dnsmessage.Message{Header: dnsmessage.Header{ID: q.ID, Response: true, RecursionAvailable: true}, Questions: q.Questions}
			switch q.Questions[0].Name.String() {
			case "books.example.com.":
				a.Answers = []dnsmessage.Resource{
					cname("shop.stores.example.net.", "d111.cloudfront.net."),
					cname("books.example.com.", "Shop.Stores.Example.net."),
				}
			case "plain.example.com.":
				a.Answers = []dnsmessage.Resource{{
					Header: dnsmessage.ResourceHeader{Name: q.Questions[0].Name, Type: dnsmessage.TypeA, Class: dnsmessage.ClassINET, TTL: 60},
					Body:   &dnsmessage.AResource{A: [4]byte{192, 0, 2, 1}},
				}}
			default:
				a.RCode = dnsmessage.RCodeNameError
			}
			// A stray message first, as a spoofer would send: ignored.
			stray := dnsmessage.Message{Header: dnsmessage.Header{ID: q.ID + 1, Response: true}}
			if b, err := stray.Pack(); err == nil {
				_, _ = pc.WriteTo(b, addr)
			}
			if b, err := a.Pack(); err == nil {
				_, _ = pc.WriteTo(b, addr)
			}
		}
	}()
	return pc.LocalAddr().String()
}

// The resolver answers a host's own CNAME record, lowercased and without
// its dot, whatever else the answer carries; "" for a name with no
// record or no name at all; an error when nobody answers.
func TestDNS_CNAME(t *testing.T) {
	d := DNS{Server: fakeResolver(t), Timeout: time.Second}
	got, err := d.CNAME(t.Context(), "books.example.com")
	require.NoError(t, err)
	assert.Equal(t, "shop.stores.example.net", got)
	got, err = d.CNAME(t.Context(), "plain.example.com.")
	require.NoError(t, err)
	assert.Empty(t, got)
	got, err = d.CNAME(t.Context(), "missing.example.com")
	require.NoError(t, err)
	assert.Empty(t, got)

	silent, err := net.ListenPacket("udp", "127.0.0.1:0")
	require.NoError(t, err)
	defer silent.Close()
	_, err = DNS{Server: silent.LocalAddr().String(), Timeout: 100 * time.Millisecond}.CNAME(t.Context(), "books.example.com")
	assert.Error(t, err)
}
