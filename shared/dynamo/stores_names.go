package dynamo

import (
	"context"
	"errors"
	"fmt"

	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/stores"
	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"
)

// listingItem is a store's entry in the directory by name
// (StoreListingKey).
type listingItem struct {
	PK      string `dynamo:"PK"`
	SK      string `dynamo:"SK"`
	Type    string `dynamo:"type"`
	GSI2PK  string `dynamo:"GSI2PK"`
	GSI2SK  string `dynamo:"GSI2SK"`
	StoreID string `dynamo:"storeId"`
}

func toListingItem(s *stores.Store) listingItem {
	k := StoreListingKey(s.ID)
	return listingItem{
		PK: k.PK, SK: k.SK, Type: typeStoreListing, StoreID: s.ID,
		GSI2PK: storeDirectory, GSI2SK: storeDirectorySK(s.Name, s.ID),
	}
}

// ListByName reads one offset page of the directory (GSI2, by folded
// name) and its count item beside it: total is exact (the count changes
// in the transactions that add and remove listings), and an offset page
// is the listings from offset, read after skipping offset keys (small
// items; fine for the directory's thousands of stores).
func (s *Bookstores) ListByName(ctx context.Context, o page.Offset) ([]string, int, error) {
	var (
		items []listingItem
		count dirCountItem
		g     errgroup.Group
	)
	g.Go(func() error {
		return s.t.table.Get(GSI2.PartitionKey, storeDirectory).Index(GSI2.Name).Project("storeId").Limit(o.Offset+o.Limit).All(ctx, &items)
	})
	g.Go(func() error {
		err := s.t.get(StoreDirCountKey()).Consistent(true).Project("count").One(ctx, &count)
		if errors.Is(err, dynamo.ErrNotFound) {
			return nil // no store was ever created
		}
		return err
	})
	if err := g.Wait(); err != nil {
		return nil, 0, fmt.Errorf("store directory: %w", err)
	}
	out := make([]string, 0, o.Limit)
	for i := o.Offset; i < len(items); i++ {
		out = append(out, items[i].StoreID)
	}
	return out, count.Count, nil
}
