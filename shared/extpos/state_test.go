package extpos_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bookplatform/backend/shared/extpos"
)

// usedSet is an in-memory UsedStates.
type usedSet struct {
	mu   sync.Mutex
	seen map[string]bool
}

func (u *usedSet) UseState(_ context.Context, nonce string, _ time.Time) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.seen[nonce] {
		return extpos.ErrStateReused
	}
	u.seen[nonce] = true
	return nil
}

var (
	keyA = []byte("state-key-a-at-least-thirty-two-bytes!")
	keyB = []byte("state-key-b-at-least-thirty-two-bytes!")
)

func TestStates(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	keys := [][]byte{keyA}
	s := &extpos.States{Keys: func() [][]byte { return keys }, TTL: 10 * time.Minute, Used: &usedSet{seen: map[string]bool{}}, Now: func() time.Time { return now }}
	ctx := context.Background()

	st, bind, err := s.New("store-1", "owner-1")
	if err != nil {
		t.Fatal(err)
	}
	// Another browser's binding, or none: refused, and the state is not
	// used up by it.
	_, otherBind, _ := s.New("store-1", "owner-1")
	for _, b := range []string{"", otherBind} {
		if _, err := s.Open(ctx, st, b); !errors.Is(err, extpos.ErrStateBrowser) {
			t.Fatalf("binding %q: %v", b, err)
		}
	}
	c, err := s.Open(ctx, st, bind)
	if err != nil || c.StoreID != "store-1" || c.UserID != "owner-1" {
		t.Fatalf("open: %+v, %v", c, err)
	}
	if _, err := s.Open(ctx, st, bind); !errors.Is(err, extpos.ErrStateReused) {
		t.Fatalf("reused: %v", err)
	}

	// Forged: another store's id with the old signature, another key,
	// garbage.
	st2, bind2, _ := s.New("store-1", "owner-1")
	payload, sig, _ := strings.Cut(st2, ".")
	other := &extpos.States{Keys: func() [][]byte { return [][]byte{keyB} }, TTL: time.Minute, Used: s.Used, Now: s.Now}
	st3, _, _ := other.New("store-1", "owner-1")
	for name, forged := range map[string]string{
		"payload changed": strings.Replace(payload, payload[2:4], "zz", 1) + "." + sig,
		"other key":       st3,
		"no signature":    payload,
		"garbage":         "%%%.###",
		"empty":           "",
	} {
		if _, err := s.Open(ctx, forged, bind2); !errors.Is(err, extpos.ErrStateForged) {
			t.Errorf("%s: %v", name, err)
		}
	}

	// A rotation: the previous key still opens what it signed.
	keys = [][]byte{keyB, keyA}
	if _, err := s.Open(ctx, st2, bind2); err != nil {
		t.Fatalf("after rotation: %v", err)
	}

	// Expired.
	st4, bind4, _ := s.New("store-1", "owner-1")
	now = now.Add(10 * time.Minute)
	if _, err := s.Open(ctx, st4, bind4); !errors.Is(err, extpos.ErrStateExpired) {
		t.Fatalf("expired: %v", err)
	}
}

func TestLocalSealer(t *testing.T) {
	keys := [][]byte{keyA}
	s := extpos.LocalSealer{Keys: func() [][]byte { return keys }}
	ctx := context.Background()
	secret := []byte(`{"access_token":"EAAA-secret"}`)
	sealed, err := s.Seal(ctx, secret, "store-1")
	if err != nil || bytes.Contains(sealed, []byte("EAAA-secret")) {
		t.Fatalf("sealed %q, %v", sealed, err)
	}
	if out, err := s.Open(ctx, sealed, "store-1"); err != nil || !bytes.Equal(out, secret) {
		t.Fatalf("open: %q, %v", out, err)
	}
	if _, err := s.Open(ctx, sealed, "store-2"); !errors.Is(err, extpos.ErrUnsealable) {
		t.Fatalf("another store's context opened it: %v", err)
	}
	tampered := bytes.Clone(sealed)
	tampered[len(tampered)-1] ^= 1
	if _, err := s.Open(ctx, tampered, "store-1"); !errors.Is(err, extpos.ErrUnsealable) {
		t.Fatalf("tampered: %v", err)
	}
	keys = [][]byte{keyB, keyA}
	if _, err := s.Open(ctx, sealed, "store-1"); err != nil {
		t.Fatalf("after rotation: %v", err)
	}
	keys = [][]byte{keyB}
	if _, err := s.Open(ctx, sealed, "store-1"); !errors.Is(err, extpos.ErrUnsealable) {
		t.Fatalf("key dropped: %v", err)
	}
}
