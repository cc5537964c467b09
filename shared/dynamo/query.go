package dynamo

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/bookplatform/backend/shared/page"
	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"
)

// list is one list the table serves: a partition of the table or of one
// of its indexes, optionally narrowed to the sort keys that begin with
// prefix, read in one order. keys.go builds every list.
type list struct {
	index      Index
	pk         string
	prefix     string // begins_with on the sort key; "" for the whole partition
	desc       bool   // newest (highest sort key) first
	consistent bool   // strongly consistent: the table only, not an index
	// filter, when set, keeps only the items it holds for (a filter
	// expression with its arguments): a page still has up to its limit
	// of them, read in as many round trips as that takes.
	filter     string
	filterArgs []any
	// from and to, when set (with no prefix), bound the sort key, both
	// inclusive (a time range of the audit log).
	from, to string
}

// name identifies the list in its page tokens: the index, the partition,
// the prefix and the order. A token names the list it was issued for,
// and queryPage refuses it for any other, so a cursor cannot page another
// user's list, another sort order or another index.
func (l list) name() string {
	order := "asc"
	if l.desc {
		order = "desc"
	}
	name := strings.Join([]string{l.index.Name, l.pk, l.prefix, order}, "|")
	if l.filter != "" {
		name += "|" + l.filter + fmt.Sprint(l.filterArgs...)
	}
	if l.from != "" || l.to != "" {
		name += "|" + l.from + ".." + l.to
	}
	return name
}

// pageToken is the storage's next-page token: the list it belongs to and
// the key of the last item served (the exclusive start of the next
// Query). The HTTP adapter seals it into the cursor clients see.
type pageToken struct {
	List string            `json:"l"`
	Key  map[string]string `json:"k"`
}

// queryMapped reads one page of l (queryPage) and returns it as conv
// makes each item.
func queryMapped[T, R any](ctx context.Context, t *table, l list, c page.Cursor, conv func(T) R) (page.Page[R], error) {
	p, err := queryPage[T](ctx, t, l, c)
	if err != nil {
		return page.Page[R]{}, err
	}
	return page.Map(p, conv), nil
}

// queryPage reads one page of l into items of type T. It asks DynamoDB
// for one item more than the page: only when that item exists is there a
// next page, which starts after the page's last item, so a list that ends
// exactly at a page boundary has no empty page after it and nextCursor is
// null on the last page. Lists are sorted by keys that never change while
// the item lives (creation time and id) or that move only with the item
// (a review's rating), so items added while a client pages land before
// its position and never shift a later page.
func queryPage[T any](ctx context.Context, t *table, l list, c page.Cursor) (page.Page[T], error) {
	start, err := l.startKey(c.After)
	if err != nil {
		return page.Page[T]{}, err
	}
	q := t.table.Get(l.index.PartitionKey, l.pk).Consistent(l.consistent).Limit(c.Limit + 1)
	if l.index.Name != "" {
		q = q.Index(l.index.Name)
	}
	switch {
	case l.prefix != "":
		q = q.Range(l.index.SortKey, dynamo.BeginsWith, l.prefix)
	case l.from != "" || l.to != "":
		q = q.Range(l.index.SortKey, dynamo.Between, l.from, l.to)
	}
	if l.desc {
		q = q.Order(dynamo.Descending)
	}
	if l.filter != "" {
		q = q.Filter(l.filter, l.filterArgs...)
	}
	if start != nil {
		q = q.StartFrom(start)
	}
	var raw []dynamo.Item
	if err := q.All(ctx, &raw); err != nil {
		return page.Page[T]{}, fmt.Errorf("query %s: %w", l.name(), err)
	}
	var p page.Page[T]
	if len(raw) > c.Limit {
		raw = raw[:c.Limit]
		if p.Next, err = l.token(raw[len(raw)-1]); err != nil {
			return page.Page[T]{}, err
		}
	}
	p.Items = make([]T, len(raw))
	for i, it := range raw {
		if err := dynamo.UnmarshalItem(it, &p.Items[i]); err != nil {
			return page.Page[T]{}, fmt.Errorf("decode item of %s: %w", l.name(), err)
		}
	}
	return p, nil
}

// queryOffset reads the items from o.Offset to o.Offset+o.Limit of l (an
// offset page; a cursor list is queryPage's). DynamoDB has no offset: the
// Query reads the first offset+limit items, in as many 1 MB pages as
// that takes, and the page is the tail. So offset lists are read from
// partitions of small items (directory entries, about 150 bytes: some
// 6,000 per round trip), and projected to attrs when given.
func queryOffset[T any](ctx context.Context, t *table, l list, o page.Offset, attrs ...string) ([]T, error) {
	q := t.table.Get(l.index.PartitionKey, l.pk).Consistent(l.consistent).Limit(o.Offset + o.Limit)
	if l.index.Name != "" {
		q = q.Index(l.index.Name)
	}
	if l.prefix != "" {
		q = q.Range(l.index.SortKey, dynamo.BeginsWith, l.prefix)
	}
	if l.desc {
		q = q.Order(dynamo.Descending)
	}
	if len(attrs) > 0 {
		q = q.Project(attrs...)
	}
	var items []T
	if err := q.All(ctx, &items); err != nil {
		return nil, fmt.Errorf("query %s from %d: %w", l.name(), o.Offset, err)
	}
	if len(items) <= o.Offset {
		return []T{}, nil
	}
	return items[o.Offset:], nil
}

// keyAttrs are the attributes of an item's position in l: the table key
// and, on an index, the index key.
func (l list) keyAttrs() []string {
	attrs := []string{AttrPK, AttrSK}
	if l.index.Name != "" {
		attrs = append(attrs, l.index.PartitionKey, l.index.SortKey)
	}
	return attrs
}

// token is the next-page token after item.
func (l list) token(item dynamo.Item) (string, error) {
	t := pageToken{List: l.name(), Key: map[string]string{}}
	for _, a := range l.keyAttrs() {
		v, ok := item[a].(*types.AttributeValueMemberS)
		if !ok {
			return "", fmt.Errorf("page token of %s: key attribute %s is not a string", l.name(), a)
		}
		t.Key[a] = v.Value
	}
	b, err := json.Marshal(t)
	if err != nil {
		return "", fmt.Errorf("encode page token: %w", err)
	}
	return string(b), nil
}

// startKey reads a token back into the exclusive start key of the next
// Query; "" is the first page. A token of another list, or one whose key
// is not a position in this list, is page.ErrInvalidCursor: DynamoDB
// would otherwise answer a start key outside the partition with an error
// (a 500), or worse, page from it.
func (l list) startKey(token string) (dynamo.PagingKey, error) {
	if token == "" {
		return nil, nil
	}
	var t pageToken
	if err := json.Unmarshal([]byte(token), &t); err != nil || t.List != l.name() {
		return nil, page.ErrInvalidCursor
	}
	attrs := l.keyAttrs()
	if len(t.Key) != len(attrs) || t.Key[l.index.PartitionKey] != l.pk ||
		!strings.HasPrefix(t.Key[l.index.SortKey], l.prefix) {
		return nil, page.ErrInvalidCursor
	}
	k := make(dynamo.PagingKey, len(attrs))
	for _, a := range attrs {
		v, ok := t.Key[a]
		if !ok || v == "" {
			return nil, page.ErrInvalidCursor
		}
		k[a] = &types.AttributeValueMemberS{Value: v}
	}
	return k, nil
}

// walkPageSize is how many items eachPage reads at a time.
const walkPageSize = 100

// eachPage runs f on every page of l, walkPageSize items at a time, each
// page after the last key of the one before: a walk over a list that the
// walk itself empties (a store's deletion releasing its clubs) neither
// skips nor repeats an item, since a page starts after a key whether or
// not its item is still there.
func eachPage[T any](ctx context.Context, t *table, l list, f func(context.Context, []T) error) error {
	c := page.First(walkPageSize)
	for {
		p, err := queryPage[T](ctx, t, l, c)
		if err != nil {
			return err
		}
		if err := f(ctx, p.Items); err != nil {
			return err
		}
		if p.Next == "" {
			return nil
		}
		c.After = p.Next
	}
}

// eachItem runs f on every item, up to 8 at once, and returns the first
// error.
func eachItem[T any](ctx context.Context, items []T, f func(context.Context, T) error) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	for _, it := range items {
		g.Go(func() error { return f(gctx, it) })
	}
	return g.Wait()
}
