package dynamo

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/bookplatform/backend/shared/users"
	"github.com/guregu/dynamo/v2"
)

// Attempts counts attempts with a password per account, in fixed windows
// (AttemptKey), each an item that goes by TTL after its window.
type Attempts struct{ t *table }

var _ users.Attempts = (*Attempts)(nil)

// Take adds one to the window's count if it is under limit and returns
// the count with it: one conditional UpdateItem returning the new count,
// so concurrent attempts cannot pass the limit and only one of them is
// a window's first.
func (s *Attempts) Take(ctx context.Context, key string, now time.Time, window time.Duration, limit int) (int, time.Time, error) {
	start := now.Truncate(window)
	end := start.Add(window)
	var it struct {
		Count int `dynamo:"count"`
	}
	err := s.t.update(AttemptKey(key, start)).
		Add("count", 1).
		SetIfNotExists("type", typeAttempts).
		SetIfNotExists(AttrTTL, end.Add(time.Minute).Unix()).
		If("attribute_not_exists($) OR $ < ?", "count", "count", limit).
		OnlyUpdatedValue(ctx, &it)
	if dynamo.IsCondCheckFailed(err) {
		return 0, end, nil
	}
	if err != nil {
		return 0, time.Time{}, fmt.Errorf("count attempt %s: %w", key, err)
	}
	return it.Count, end, nil
}

// Refund takes one back from the window's count, if there is one above
// zero: one conditional UpdateItem; a count that is gone (its window
// ended, or it was cleared) is left alone.
func (s *Attempts) Refund(ctx context.Context, key string, now time.Time, window time.Duration) error {
	err := s.t.update(AttemptKey(key, now.Truncate(window))).
		Add("count", -1).
		If("$ > ?", "count", 0).
		Run(ctx)
	if err != nil && !dynamo.IsCondCheckFailed(err) {
		return fmt.Errorf("refund attempt %s: %w", key, err)
	}
	return nil
}

// Clear deletes the window's count.
func (s *Attempts) Clear(ctx context.Context, key string, now time.Time, window time.Duration) error {
	err := s.t.del(AttemptKey(key, now.Truncate(window))).Run(ctx)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return fmt.Errorf("clear attempts %s: %w", key, err)
	}
	return nil
}

// loginItem is what a sign-in's take reads of its account's window: the
// account's count, this source's (in the item) and whether sources are
// counted apart (over).
type loginItem struct {
	Count  int
	Source int
	Has    bool // the source has its count in the item
	Over   bool
}

// loginSourceAttr names a source's count in its account's item. The
// prefix keeps it apart from the item's own attributes.
func loginSourceAttr(source string) string { return "from:" + source }

// LoginSourcesHeld is how many sources at most an account's sign-in item
// holds counts of, whatever the account's limit (none included): about
// 1.5 KB at most, so every take stays a write of one or two units, far
// from DynamoDB's 400 KB item limit where the update would fail and
// attempts would go uncounted.
const LoginSourcesHeld = 30

// TakeLogin counts one sign-in at k.Account from k.Source against the
// source's limit and the account's accountLimit (none when zero or less),
// as two counts taken one after the other would, the source's first
// (users.Attempts). The account's item holds the account's count and one
// count per source, so the usual sign-in is one conditional UpdateItem
// (source under its limit, account under its). Only sources first seen
// while the account's count is under min(accountLimit, LoginSourcesHeld)
// are held in the item: each held source holds at least one of the
// account's count, so that bounds them. A source first seen past it is
// counted apart, in an item of its own (k.Apart), else a spray from many
// addresses would grow the item towards DynamoDB's 400 KB, each write
// billed by its size, and at that size fail. From the first source
// counted apart on, the item carries over, and the in-item update is
// conditional on the source being in the item or over being absent, so
// no source is ever counted in both places.
func (s *Attempts) TakeLogin(ctx context.Context, k users.LoginKeys, now time.Time, window time.Duration, limit, accountLimit int) (users.LoginCount, time.Time, error) {
	start := now.Truncate(window)
	end := start.Add(window)
	if accountLimit <= 0 {
		accountLimit = math.MaxInt32
	}
	held := min(accountLimit, LoginSourcesHeld)
	key, attr := AttemptKey(k.Account, start), loginSourceAttr(k.Source)
	fail := func(err error) (users.LoginCount, time.Time, error) {
		return users.LoginCount{}, time.Time{}, fmt.Errorf("count sign-in %s: %w", k.Account, err)
	}
	// A read that finds the item changed so that the update would pass
	// (a right password gave an attempt back meanwhile) tries again; a
	// few times, then the attempt is refused as past the source's limit:
	// an error would let it through uncounted, as a failing counter does.
	for range 4 {
		var out map[string]types.AttributeValue
		err := s.t.update(key).
			Add("count", 1).
			SetExpr("$ = if_not_exists($, ?) + ?", attr, attr, 0, 1).
			SetIfNotExists("type", typeAttempts).
			SetIfNotExists(AttrTTL, end.Add(time.Minute).Unix()).
			If("(attribute_not_exists($) OR $ < ?) AND (attribute_not_exists($) OR $ < ?) AND "+
				"(attribute_exists($) OR (attribute_not_exists($) AND (attribute_not_exists($) OR $ < ?)))",
				"count", "count", accountLimit, attr, attr, limit, attr, "over", "count", "count", held).
			OnlyUpdatedValue(ctx, &out)
		if err == nil {
			return users.LoginCount{Source: numberOf(out[attr]), Account: numberOf(out["count"])}, end, nil
		}
		if !dynamo.IsCondCheckFailed(err) {
			return fail(err)
		}
		it, err := s.readLogin(ctx, key, attr)
		if err != nil {
			return fail(err)
		}
		switch {
		case it.Has && it.Source >= limit:
			return users.LoginCount{}, end, nil // the source's limit
		case it.Has && it.Count < accountLimit, !it.Has && !it.Over && it.Count < held:
			continue // changed since the update: it would pass now
		case it.Has:
			// Under the source's limit, at the account's: the source's
			// count takes it, the account's refuses it. A source that
			// reached its limit or was forgotten (a right password)
			// meanwhile is read again.
			var out map[string]types.AttributeValue
			err := s.t.update(key).SetExpr("$ = $ + ?", attr, attr, 1).
				If("attribute_exists($) AND $ < ?", attr, attr, limit).OnlyUpdatedValue(ctx, &out)
			if dynamo.IsCondCheckFailed(err) {
				continue
			}
			if err != nil {
				return fail(err)
			}
			return users.LoginCount{Source: numberOf(out[attr])}, end, nil
		}
		// Not in the item, and the account at its limit, or at the
		// sources the item holds, or sources counted apart: mark the item (before any count apart, so that
		// from now on the in-item update refuses a source not in it), and
		// if the source made it into the item meanwhile, count it there.
		if !it.Over {
			var after map[string]types.AttributeValue
			err := s.t.update(key).Set("over", true).SetIfNotExists("type", typeAttempts).
				SetIfNotExists(AttrTTL, end.Add(time.Minute).Unix()).Value(ctx, &after)
			if err != nil {
				return fail(err)
			}
			if _, ok := after[attr]; ok {
				continue
			}
			it.Count = numberOf(after["count"])
		}
		n, _, err := s.Take(ctx, k.Apart, now, window, limit)
		if err != nil {
			return fail(err)
		}
		c := users.LoginCount{Source: n, Apart: true}
		if n == 0 || it.Count >= accountLimit {
			return c, end, nil
		}
		var out2 struct {
			Count int `dynamo:"count"`
		}
		err = s.t.update(key).Add("count", 1).If("attribute_not_exists($) OR $ < ?", "count", "count", accountLimit).OnlyUpdatedValue(ctx, &out2)
		if err != nil && !dynamo.IsCondCheckFailed(err) {
			return fail(err)
		}
		c.Account = out2.Count
		return c, end, nil
	}
	return users.LoginCount{}, end, nil
}

// readLogin reads the account's window item for a take whose update
// failed its condition: strongly consistent, only the counts it needs.
func (s *Attempts) readLogin(ctx context.Context, key Key, attr string) (loginItem, error) {
	var out map[string]types.AttributeValue
	err := s.t.get(key).Consistent(true).
		ProjectExpr("$, $, $", "count", "over", attr).
		One(ctx, &out)
	if errors.Is(err, dynamo.ErrNotFound) {
		return loginItem{}, nil
	}
	if err != nil {
		return loginItem{}, err
	}
	it := loginItem{Count: numberOf(out["count"])}
	if v, ok := out[attr]; ok {
		it.Has, it.Source = true, numberOf(v)
	}
	if v, ok := out["over"].(*types.AttributeValueMemberBOOL); ok {
		it.Over = v.Value
	}
	return it, nil
}

// LoginSucceeded forgets the source's attempts after a right password
// and, when the account's count took the attempt (counted), gives that
// one back: one UpdateItem of the account's item when the source is
// counted there, as before a DeleteItem and a conditional UpdateItem when
// it is counted apart. A take that failed to count (c.Source 0) leaves
// where the source is unknown: both are cleared.
func (s *Attempts) LoginSucceeded(ctx context.Context, k users.LoginKeys, c users.LoginCount, counted bool, now time.Time, window time.Duration) error {
	key, attr := AttemptKey(k.Account, now.Truncate(window)), loginSourceAttr(k.Source)
	var g errgroup.Group
	if !c.Apart {
		g.Go(func() error {
			// Conditional on the item existing, as an update would create
			// it without its TTL; the account's count holds this attempt
			// when it was counted.
			u := s.t.update(key).RemoveExpr("$", attr)
			if counted {
				u = u.Add("count", -1)
			}
			err := u.If("attribute_exists(PK)").Run(ctx)
			if err != nil && !dynamo.IsCondCheckFailed(err) {
				return fmt.Errorf("give back sign-in %s: %w", k.Account, err)
			}
			return nil
		})
	}
	if c.Apart || c.Source == 0 {
		g.Go(func() error { return s.Clear(ctx, k.Apart, now, window) })
		if counted && c.Apart {
			g.Go(func() error { return s.Refund(ctx, k.Account, now, window) })
		}
	}
	return g.Wait()
}

// numberOf is a number attribute's value as an int; 0 when absent.
func numberOf(v types.AttributeValue) int {
	n, ok := v.(*types.AttributeValueMemberN)
	if !ok {
		return 0
	}
	i, _ := strconv.Atoi(n.Value)
	return i
}
