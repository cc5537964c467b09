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

// CanHost answers as the stores domain will: an unknown store is
// storehost.ErrStoreNotFound, an account that is not among its hosts
// storehost.ErrNotStoreStaff.
func (s StoreHosts) CanHost(_ context.Context, storeID, userID string) error {
	if _, ok := s.Stores[storeID]; !ok {
		return storehost.ErrStoreNotFound
	}
	if !slices.Contains(s.Hosts[storeID], userID) {
		return storehost.ErrNotStoreStaff
	}
	return nil
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
