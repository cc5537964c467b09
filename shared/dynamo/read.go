package dynamo

import (
	"context"
	"errors"
	"fmt"

	"github.com/guregu/dynamo/v2"
)

// getOne reads the item at k, strongly consistent (whoever just wrote it
// reads it as written), and returns it as conv makes it. A missing item
// is notFound, the domain's sentinel. what names the item in errors
// ("club <id>", "member <user> of club <club>").
func getOne[T, R any](ctx context.Context, t *table, k Key, conv func(T) R, notFound error, what string) (R, error) {
	return getOneAs(ctx, t, k, true, conv, notFound, what)
}

// getOneAs is getOne with the read's consistency given: eventually
// consistent only where a read a moment old decides the same
// (Users.GetUserEventually says where).
func getOneAs[T, R any](ctx context.Context, t *table, k Key, consistent bool, conv func(T) R, notFound error, what string) (R, error) {
	var (
		it   T
		zero R
	)
	err := t.get(k).Consistent(consistent).One(ctx, &it)
	if errors.Is(err, dynamo.ErrNotFound) {
		return zero, fmt.Errorf("get %s: %w", what, notFound)
	}
	if err != nil {
		return zero, fmt.Errorf("get %s: %w", what, err)
	}
	return conv(it), nil
}

// batch starts one BatchGetItem of keys (guregu/dynamo sends at most 100
// keys a call and retries unprocessed ones); the caller chooses
// Consistent or Project, then reads with batchAll.
func (t *table) batch(keys ...dynamo.Keyed) *dynamo.BatchGet {
	return t.table.Batch(AttrPK, AttrSK).Get(keys...)
}

// batchAll runs a BatchGetItem and decodes what it found into T. Items
// that do not exist are left out: none found at all is no error.
func batchAll[T any](ctx context.Context, get *dynamo.BatchGet) ([]T, error) {
	var items []T
	if err := get.All(ctx, &items); err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return nil, err
	}
	return items, nil
}

// keysOf returns the keys key makes of ids, each id once: BatchGetItem
// refuses a key twice.
func keysOf(ids []string, key func(string) Key) []dynamo.Keyed {
	keys := make([]dynamo.Keyed, 0, len(ids))
	for _, id := range distinct(ids) {
		keys = append(keys, key(id).keyed())
	}
	return keys
}

// distinct drops repeated ids: BatchGetItem refuses a key twice.
func distinct(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// keyed is k as guregu/dynamo names an item in a batch.
func (k Key) keyed() dynamo.Keys { return dynamo.Keys{k.PK, k.SK} }

// inOrder returns the values of byID for ids, in the order of ids,
// leaving out the ids byID lacks (items gone since their ids were read).
func inOrder[T any](ids []string, byID map[string]T) []T {
	out := make([]T, 0, len(ids))
	for _, id := range ids {
		if v, ok := byID[id]; ok {
			out = append(out, v)
		}
	}
	return out
}

// updateOwned runs upd of item id, conditional on the item existing and
// being the caller's, and returns the new item as conv makes it. Only
// when the condition fails is the item read (get answers the domain's
// not-found for an item that is gone), to tell 404 from notOwner (403).
// noun names the item in errors ("line").
func updateOwned[T, R any](ctx context.Context, upd *dynamo.Update, conv func(T) R, get func(context.Context, string) (R, error), notOwner error, noun, id string) (R, error) {
	var (
		it   T
		zero R
	)
	err := upd.Value(ctx, &it)
	if dynamo.IsCondCheckFailed(err) {
		if _, err := get(ctx, id); err != nil {
			return zero, err
		}
		return zero, fmt.Errorf("update %s %s: %w", noun, id, notOwner)
	}
	if err != nil {
		return zero, fmt.Errorf("update %s %s: %w", noun, id, err)
	}
	return conv(it), nil
}
