package testenv

import (
	"context"
	"slices"

	"github.com/bookplatform/backend/shared/storehost"
)

// StoreHosts is a storehost.Directory of stores a test declares: each
// store's brief and the accounts that may host for it (its owner and
// staff). Give it to New with WithStoreHosts; its maps may be filled
// after New (hosts are accounts the test signs up), before the requests
// that read them.
type StoreHosts struct {
	Stores map[string]storehost.Brief // by store id
	Hosts  map[string][]string        // store id → account ids
}

var _ storehost.Directory = StoreHosts{}

// Host answers as the stores domain does: an unknown store is
// storehost.ErrStoreNotFound, an account that is not among its hosts
// storehost.ErrNotStoreStaff.
func (s StoreHosts) Host(_ context.Context, storeID, userID string) (storehost.Brief, error) {
	b, ok := s.Stores[storeID]
	if !ok {
		return storehost.Brief{}, storehost.ErrStoreNotFound
	}
	if !slices.Contains(s.Hosts[storeID], userID) {
		return storehost.Brief{}, storehost.ErrNotStoreStaff
	}
	return b, nil
}

// StoreID finds a declared store by its slug.
func (s StoreHosts) StoreID(_ context.Context, slug string) (string, error) {
	for id, b := range s.Stores {
		if b.Slug == slug {
			return id, nil
		}
	}
	return "", storehost.ErrStoreNotFound
}

// Briefs returns the declared stores among ids.
func (s StoreHosts) Briefs(_ context.Context, ids []string) (map[string]storehost.Brief, error) {
	out := map[string]storehost.Brief{}
	for _, id := range ids {
		if b, ok := s.Stores[id]; ok {
			out[id] = b
		}
	}
	return out, nil
}
