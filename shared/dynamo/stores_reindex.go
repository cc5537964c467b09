package dynamo

import (
	"context"
	"errors"
	"fmt"

	"github.com/guregu/dynamo/v2"
)

// Reindex repairs a table whose stores were written before the position
// list and the directory's count item existed (a local data directory
// from an older version): when the count item is missing, it puts every
// listed store's position entry and then the count of listings. It does
// nothing on a table that has the count item. Not safe beside store
// creations or deletions: the local run calls it before it serves.
// It returns how many stores it counted (0 when it did nothing).
func (s *Bookstores) Reindex(ctx context.Context) (int, error) {
	err := s.t.get(StoreDirCountKey()).Consistent(true).Project("count").One(ctx, &dirCountItem{})
	if err == nil {
		return 0, nil
	}
	if !errors.Is(err, dynamo.ErrNotFound) {
		return 0, fmt.Errorf("reindex stores: %w", err)
	}
	var listings []listingItem
	if err := s.t.table.Get(GSI2.PartitionKey, storeDirectory).Index(GSI2.Name).Project("storeId").All(ctx, &listings); err != nil {
		return 0, fmt.Errorf("reindex stores: directory: %w", err)
	}
	if len(listings) == 0 {
		return 0, nil
	}
	ids := make([]string, len(listings))
	for i, l := range listings {
		ids[i] = l.StoreID
	}
	byID, err := s.GetStores(ctx, ids)
	if err != nil {
		return 0, fmt.Errorf("reindex stores: %w", err)
	}
	for _, st := range byID {
		if st.Location == nil {
			continue
		}
		if err := s.t.put(toPositionItem(st)).Run(ctx); err != nil {
			return 0, fmt.Errorf("reindex store %s: %w", st.ID, err)
		}
	}
	count := map[string]any{AttrPK: StoreDirCountKey().PK, AttrSK: StoreDirCountKey().SK, "type": typeDirCount, "count": len(listings)}
	if err := s.t.put(count).If("attribute_not_exists(PK)").Run(ctx); err != nil {
		return 0, fmt.Errorf("reindex stores: count: %w", err)
	}
	return len(listings), nil
}
