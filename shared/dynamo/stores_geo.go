package dynamo

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/bookplatform/backend/shared/geo"
	"github.com/bookplatform/backend/shared/stores"
	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"
)

// cellEntry is a store's value in its cell's item.
func cellEntry(s *stores.Store) string {
	return s.ID + "," + strconv.FormatFloat(s.Location.Lat, 'f', -1, 64) + "," + strconv.FormatFloat(s.Location.Lng, 'f', -1, 64)
}

// positionItem is a store's entry in the position list
// (StorePositionKey), which a wide search reads by ranges.
type positionItem struct {
	PK        string  `dynamo:"PK"`
	SK        string  `dynamo:"SK"`
	Type      string  `dynamo:"type"`
	StoreID   string  `dynamo:"storeId"`
	Latitude  float64 `dynamo:"latitude"`
	Longitude float64 `dynamo:"longitude"`
}

// toPositionItem is st's entry in the position list (st has a position).
func toPositionItem(st *stores.Store) positionItem {
	k := StorePositionKey(*st.Location, st.ID)
	return positionItem{PK: k.PK, SK: k.SK, Type: typeStorePosition, StoreID: st.ID, Latitude: st.Location.Lat, Longitude: st.Location.Lng}
}

// enterIndex adds to x the writes that put st in the two indexes of
// positions: its cell's item and the position list (none without a
// position).
func (s *Bookstores) enterIndex(x *tx, st *stores.Store) {
	if st.Location == nil {
		return
	}
	x.update(s.t.update(StoreCellKey(geo.Cell(*st.Location))).Set(storeCellAttr(st.ID), cellEntry(st)).Set("type", typeStoreCell), nil)
	x.put(s.t.put(toPositionItem(st)), nil)
}

// leaveIndex adds to x the writes that take a store at a position out of
// both indexes: from its cell's item unless keepCell (one transaction
// may change an item once: a move within a cell is one update of its
// entry), and from the position list unless keepPosition (a move within
// the same geohash of geo.HashPrecision is one put).
func (s *Bookstores) leaveIndex(x *tx, storeID string, at *geo.Point, keepCell, keepPosition bool) {
	if at == nil {
		return
	}
	if !keepCell {
		x.update(s.t.update(StoreCellKey(geo.Cell(*at))).Remove(storeCellAttr(storeID)), nil)
	}
	if !keepPosition {
		x.delete(s.t.del(StorePositionKey(*at, storeID)), nil)
	}
}

func samePoint(a, b *geo.Point) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// ListingsIn reads the stores a search plan holds (geo.Plan): its cells,
// one BatchGetItem per 100 side by side (a cell without stores has no
// item); or its ranges of the position list, one Query each side by side
// (at most geo.Parts), each reading the small entries of the stores in
// it.
func (s *Bookstores) ListingsIn(ctx context.Context, plan geo.Plan) ([]stores.Listing, error) {
	if len(plan.Ranges) > 0 {
		return s.listingsInRanges(ctx, plan.Ranges)
	}
	return s.listingsInCells(ctx, plan.Cells)
}

func (s *Bookstores) listingsInRanges(ctx context.Context, ranges []geo.Range) ([]stores.Listing, error) {
	results := make([][]positionItem, len(ranges))
	g, gctx := errgroup.WithContext(ctx)
	for i, r := range ranges {
		g.Go(func() error {
			// A range of cells is every geohash from its first cell's to
			// the end of its last one's ("~" sorts after every geohash
			// character).
			return s.t.table.Get(AttrPK, storePositionPK(r.Part())).Range(AttrSK, dynamo.Between, r.From, r.To+"~").
				Project("storeId", "latitude", "longitude").All(gctx, &results[i])
		})
	}
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("read %d ranges of store positions: %w", len(ranges), err)
	}
	var out []stores.Listing
	for _, items := range results {
		for _, it := range items {
			out = append(out, stores.Listing{StoreID: it.StoreID, Location: geo.Point{Lat: it.Latitude, Lng: it.Longitude}})
		}
	}
	return out, nil
}

func (s *Bookstores) listingsInCells(ctx context.Context, cells []string) ([]stores.Listing, error) {
	var chunks [][]dynamo.Keyed
	for i, c := range cells {
		if i%100 == 0 {
			chunks = append(chunks, nil)
		}
		k := StoreCellKey(c)
		chunks[len(chunks)-1] = append(chunks[len(chunks)-1], dynamo.Keys{k.PK, k.SK})
	}
	results := make([][]dynamo.Item, len(chunks))
	g, gctx := errgroup.WithContext(ctx)
	for i, keys := range chunks {
		g.Go(func() error {
			err := s.t.table.Batch(AttrPK, AttrSK).Get(keys...).All(gctx, &results[i])
			if errors.Is(err, dynamo.ErrNotFound) {
				return nil
			}
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("read %d store cells: %w", len(cells), err)
	}
	var out []stores.Listing
	for _, items := range results {
		for _, item := range items {
			for name, av := range item {
				v, ok := av.(*types.AttributeValueMemberS)
				if !ok || len(name) != 33 || name[0] != 's' {
					continue
				}
				if l, ok := parseCellEntry(v.Value); ok {
					out = append(out, l)
				}
			}
		}
	}
	return out, nil
}

// parseCellEntry reads "<id>,<latitude>,<longitude>".
func parseCellEntry(v string) (stores.Listing, bool) {
	parts := strings.Split(v, ",")
	if len(parts) != 3 {
		return stores.Listing{}, false
	}
	lat, err1 := strconv.ParseFloat(parts[1], 64)
	lng, err2 := strconv.ParseFloat(parts[2], 64)
	if err1 != nil || err2 != nil {
		return stores.Listing{}, false
	}
	return stores.Listing{StoreID: parts[0], Location: geo.Point{Lat: lat, Lng: lng}}, true
}
