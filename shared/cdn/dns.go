package cdn

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/bookplatform/backend/shared/stores"
	"golang.org/x/net/dns/dnsmessage"
)

// DNS reads a host's own CNAME record from a recursive resolver
// (stores.Resolver): one query of type CNAME, which a resolver answers
// with that record alone, not the chain behind it. The net package
// cannot say this: its LookupCNAME follows the chain to the last name,
// and every store's target ends at the one CDN endpoint.
type DNS struct {
	// Server is the resolver's address (host:port); empty: the first
	// nameserver of /etc/resolv.conf (Lambda's resolver in AWS).
	Server string
	// Timeout bounds one query (default 3 s).
	Timeout time.Duration
}

var _ stores.Resolver = DNS{}

// CNAME returns the target of host's CNAME record, without its trailing
// dot; "" when host has none (or does not exist).
func (d DNS) CNAME(ctx context.Context, host string) (string, error) {
	server := d.Server
	if server == "" {
		server = systemNameserver()
	}
	timeout := d.Timeout
	if timeout <= 0 {
		timeout = 3 * time.Second
	}
	name, err := dnsmessage.NewName(strings.TrimSuffix(host, ".") + ".")
	if err != nil {
		return "", fmt.Errorf("dns: %q: %w", host, err)
	}
	var idb [2]byte
	_, _ = rand.Read(idb[:])
	id := binary.BigEndian.Uint16(idb[:])
	b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: id, RecursionDesired: true})
	b.EnableCompression()
	if err := b.StartQuestions(); err != nil {
		return "", err
	}
	if err := b.Question(dnsmessage.Question{Name: name, Type: dnsmessage.TypeCNAME, Class: dnsmessage.ClassINET}); err != nil {
		return "", err
	}
	query, err := b.Finish()
	if err != nil {
		return "", err
	}

	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var dialer net.Dialer
	conn, err := dialer.DialContext(ctx, "udp", server)
	if err != nil {
		return "", fmt.Errorf("dns: %w", err)
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	if _, err := conn.Write(query); err != nil {
		return "", fmt.Errorf("dns: query %s: %w", host, err)
	}
	buf := make([]byte, 1232)
	for {
		n, err := conn.Read(buf)
		if err != nil {
			return "", fmt.Errorf("dns: answer for %s: %w", host, err)
		}
		target, ok, err := cnameIn(buf[:n], id, name)
		if !ok { // not the answer to this query: keep reading
			continue
		}
		return target, err
	}
}

// cnameIn reads the answer to query id about name: ok is false for a
// message that is not that answer.
func cnameIn(msg []byte, id uint16, name dnsmessage.Name) (target string, ok bool, err error) {
	var p dnsmessage.Parser
	h, err := p.Start(msg)
	if err != nil || h.ID != id || !h.Response {
		return "", false, nil
	}
	switch h.RCode {
	case dnsmessage.RCodeSuccess:
	case dnsmessage.RCodeNameError:
		return "", true, nil
	default:
		return "", true, fmt.Errorf("dns: %s: %s", name, h.RCode)
	}
	if h.Truncated {
		return "", true, errors.New("dns: truncated answer")
	}
	if err := p.SkipAllQuestions(); err != nil {
		return "", true, fmt.Errorf("dns: %w", err)
	}
	for {
		ah, err := p.AnswerHeader()
		if errors.Is(err, dnsmessage.ErrSectionDone) {
			return "", true, nil
		}
		if err != nil {
			return "", true, fmt.Errorf("dns: %w", err)
		}
		if ah.Type != dnsmessage.TypeCNAME || !strings.EqualFold(ah.Name.String(), name.String()) {
			if err := p.SkipAnswer(); err != nil {
				return "", true, fmt.Errorf("dns: %w", err)
			}
			continue
		}
		r, err := p.CNAMEResource()
		if err != nil {
			return "", true, fmt.Errorf("dns: %w", err)
		}
		return strings.ToLower(strings.TrimSuffix(r.CNAME.String(), ".")), true, nil
	}
}

// systemNameserver is the first nameserver of /etc/resolv.conf, or the
// local one: read once per process, not for every record of a chain.
var systemNameserver = sync.OnceValue(func() string {
	f, err := os.Open("/etc/resolv.conf")
	if err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) >= 2 && fields[0] == "nameserver" {
				return net.JoinHostPort(fields[1], "53")
			}
		}
	}
	return "127.0.0.1:53"
})
