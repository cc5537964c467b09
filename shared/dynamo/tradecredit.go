package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/tradecredit"
	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"
)

// TradeCredit is the storage of trade credit (shared/tradecredit): per
// store and customer, one balance item and its ledger of entries in the
// same partition. Every entry is written in one transaction with the
// balance's put, conditional on the balance's version as read (absent:
// on its absence), so concurrent changes serialize, each entry records
// the exact balance after it, and no change takes the balance below zero
// (the check is on the balance read, which the condition proves current).
// A point-of-sale sale spends credit in its own transaction through
// addChange.
type TradeCredit struct{ t *table }

// NewTradeCredit is the trade credit store.
func NewTradeCredit(h Handle) *TradeCredit { return &TradeCredit{h.table()} }

// Item types of trade credit (data-model.md).
const (
	typeCreditBalance = "TradeCreditBalance"
	typeCreditEntry   = "TradeCreditEntry"
)

// creditBalanceItem is a customer's balance at a store. GSI1 lists a
// customer's balances across stores (GET /trade-credit/me).
type creditBalanceItem struct {
	PK             string    `dynamo:"PK"`
	SK             string    `dynamo:"SK"`
	Type           string    `dynamo:"type"`
	GSI1PK         string    `dynamo:"GSI1PK"`
	GSI1SK         string    `dynamo:"GSI1SK"`
	StoreID        string    `dynamo:"storeId"`
	CustomerUserID string    `dynamo:"customerUserId"`
	BalanceCents   int64     `dynamo:"balanceCents"`
	Entries        int       `dynamo:"entries"`
	Version        int       `dynamo:"version"` // 0: no item yet
	UpdatedAt      time.Time `dynamo:"updatedAt"`
}

func (b creditBalanceItem) balance() tradecredit.Balance {
	return tradecredit.Balance{StoreID: b.StoreID, CustomerUserID: b.CustomerUserID, BalanceCents: b.BalanceCents, UpdatedAt: b.UpdatedAt}
}

// creditEntryItem is one ledger entry, sorted by its place in the
// ledger (Seq: the balance's entry count once it is written) in its
// balance's partition, newest first when listed. The place, not the
// time, orders it: two clerks' changes that read the same balance
// commit one after the other, the later one from a fresh read, so its
// time may be the earlier; listed by Seq, each entry's balanceCents is
// the one before it plus its amount.
type creditEntryItem struct {
	PK             string    `dynamo:"PK"`
	SK             string    `dynamo:"SK"`
	Type           string    `dynamo:"type"`
	Seq            int       `dynamo:"seq"`
	ID             string    `dynamo:"id"`
	StoreID        string    `dynamo:"storeId"`
	CustomerUserID string    `dynamo:"customerUserId"`
	Kind           string    `dynamo:"kind"`
	AmountCents    int64     `dynamo:"amountCents"`
	BalanceCents   int64     `dynamo:"balanceCents"`
	Reason         string    `dynamo:"reason"`
	ActorUserID    string    `dynamo:"actorUserId"`
	SaleID         string    `dynamo:"saleId,omitempty"`
	CreatedAt      time.Time `dynamo:"createdAt"`
}

func toCreditEntryItem(e tradecredit.Entry, seq int) creditEntryItem {
	k := TradeCreditEntryKey(e.StoreID, e.CustomerUserID, seq)
	return creditEntryItem{
		PK: k.PK, SK: k.SK, Type: typeCreditEntry, Seq: seq, ID: e.ID, StoreID: e.StoreID, CustomerUserID: e.CustomerUserID,
		Kind: string(e.Kind), AmountCents: e.AmountCents, BalanceCents: e.BalanceCents, Reason: e.Reason,
		ActorUserID: e.ActorUserID, SaleID: e.SaleID, CreatedAt: e.CreatedAt.UTC(),
	}
}

func (it creditEntryItem) entry() tradecredit.Entry {
	return tradecredit.Entry{
		ID: it.ID, StoreID: it.StoreID, CustomerUserID: it.CustomerUserID, Kind: tradecredit.Kind(it.Kind),
		AmountCents: it.AmountCents, BalanceCents: it.BalanceCents, Reason: it.Reason, ActorUserID: it.ActorUserID,
		SaleID: it.SaleID, CreatedAt: it.CreatedAt,
	}
}

// errCreditMoved is a balance changed since it was read: read it again.
var errCreditMoved = errors.New("trade credit balance moved on since it was read")

// readBalance reads storeID's balance for customerID, strongly
// consistent; a customer with no entry has the zero balance (Version 0).
func (s *TradeCredit) readBalance(ctx context.Context, storeID, customerID string) (creditBalanceItem, error) {
	var b creditBalanceItem
	err := s.t.get(TradeCreditBalanceKey(storeID, customerID)).Consistent(true).One(ctx, &b)
	switch {
	case errors.Is(err, dynamo.ErrNotFound):
		return creditBalanceItem{StoreID: storeID, CustomerUserID: customerID}, nil
	case err != nil:
		return b, fmt.Errorf("read the trade credit of %s at store %s: %w", customerID, storeID, err)
	}
	return b, nil
}

// addChange adds to x entry e (its AmountCents signed) over the balance
// prev as read: the balance's put, conditional on prev's version
// (errCreditMoved), and the entry, whose BalanceCents it sets. A change
// that would take the balance below zero adds nothing and is
// tradecredit.ErrInsufficient. It returns the entry as written.
//
// The entry's time is never before the previous entry's (prev's
// UpdatedAt): a change built from a read that lost to another commits
// after it, and the ledger reads in order by time as by place.
func (s *TradeCredit) addChange(x *tx, prev creditBalanceItem, e tradecredit.Entry) (tradecredit.Entry, error) {
	next := prev.BalanceCents + e.AmountCents
	if next < 0 {
		return e, &tradecredit.InsufficientError{BalanceCents: prev.BalanceCents}
	}
	e.BalanceCents = next
	if e.CreatedAt.Before(prev.UpdatedAt) {
		e.CreatedAt = prev.UpdatedAt
	}
	k := TradeCreditBalanceKey(e.StoreID, e.CustomerUserID)
	row := creditBalanceItem{
		PK: k.PK, SK: k.SK, Type: typeCreditBalance, GSI1PK: customerCredits(e.CustomerUserID).pk, GSI1SK: e.StoreID,
		StoreID: e.StoreID, CustomerUserID: e.CustomerUserID, BalanceCents: next, Entries: prev.Entries + 1,
		Version: prev.Version + 1, UpdatedAt: e.CreatedAt.UTC(),
	}
	put := s.t.put(row).If("attribute_not_exists(PK)")
	if prev.Version > 0 {
		put = s.t.put(row).If("version = ?", prev.Version)
	}
	x.put(put, errCreditMoved).put(s.t.put(toCreditEntryItem(e, row.Entries)).If("attribute_not_exists(PK)"), errCreditEntryTaken)
	return e, nil
}

// errCreditEntryTaken is an entry's place in the ledger taken: the
// balance's version condition fails first whenever it is, so this names
// a ledger written behind the balance's back.
var errCreditEntryTaken = errors.New("trade credit entry already exists")

// Change writes entry e (a grant or a correction; its id, store,
// customer, kind, amount, reason, actor and time set by the caller) and
// returns it with the balance after it, trying again from a fresh read
// when another change came between (bounded). The customer's account is
// checked in the same transaction (a ConditionCheck), so credit is never
// given to an id that names nobody. Errors: tradecredit.ErrNoCustomer,
// tradecredit.ErrInsufficient (an *InsufficientError),
// apperr.ErrContention.
func (s *TradeCredit) Change(ctx context.Context, e tradecredit.Entry) (tradecredit.Entry, error) {
	for attempt := 1; ; attempt++ {
		prev, err := s.readBalance(ctx, e.StoreID, e.CustomerUserID)
		if err != nil {
			return e, err
		}
		// The account first: an unknown customer is reported before a
		// moved balance.
		x := s.t.tx().check(s.t.check(UserKey(e.CustomerUserID)).If("attribute_exists(PK)"), tradecredit.ErrNoCustomer)
		out, err := s.addChange(x, prev, e)
		if err != nil {
			return e, err
		}
		err = x.run(ctx)
		switch {
		case err == nil:
			return out, nil
		case !(errors.Is(err, errCreditMoved) || retryable(err)):
			return e, fmt.Errorf("change the trade credit of %s at store %s: %w", e.CustomerUserID, e.StoreID, err)
		case attempt == changeAttempts:
			return e, fmt.Errorf("change the trade credit of %s at store %s: %w", e.CustomerUserID, e.StoreID, apperr.ErrContention)
		}
		if err := backoff(ctx, attempt); err != nil {
			return e, err
		}
	}
}

// Balance reads storeID's balance for customerID (zero when none).
func (s *TradeCredit) Balance(ctx context.Context, storeID, customerID string) (tradecredit.Balance, error) {
	b, err := s.readBalance(ctx, storeID, customerID)
	return b.balance(), err
}

// Ledger reads storeID's balance for customerID and one page of its
// entries, newest first (both strongly consistent, side by side). A
// customer with no entry at the store has the zero balance; when the id
// names no account at all (one more read, only then) it is
// tradecredit.ErrNoCustomer. The two reads may straddle a change: on
// the first page, whose newest entry must be the balance's last, they
// are read again (at most twice more) until they agree, so the balance
// shown is the first entry's.
func (s *TradeCredit) Ledger(ctx context.Context, storeID, customerID string, c page.Cursor) (tradecredit.Balance, page.Page[tradecredit.Entry], error) {
	var (
		b creditBalanceItem
		p page.Page[creditEntryItem]
	)
	for range 3 {
		var g errgroup.Group
		g.Go(func() (err error) {
			b, err = s.readBalance(ctx, storeID, customerID)
			return err
		})
		g.Go(func() (err error) {
			p, err = queryPage[creditEntryItem](ctx, s.t, creditEntries(storeID, customerID), c)
			return err
		})
		if err := g.Wait(); err != nil {
			return tradecredit.Balance{}, page.Page[tradecredit.Entry]{}, err
		}
		if c.After != "" || len(p.Items) == 0 && b.Entries == 0 || len(p.Items) > 0 && p.Items[0].Seq == b.Entries {
			break
		}
	}
	if b.Version == 0 && len(p.Items) == 0 {
		if err := s.accountExists(ctx, customerID); err != nil {
			return tradecredit.Balance{}, page.Page[tradecredit.Entry]{}, err
		}
	}
	return b.balance(), page.Map(p, creditEntryItem.entry), nil
}

// accountExists is nil when userID has an account (its profile item),
// else tradecredit.ErrNoCustomer.
func (s *TradeCredit) accountExists(ctx context.Context, userID string) error {
	var it struct {
		PK string `dynamo:"PK"`
	}
	err := s.t.get(UserKey(userID)).Project(AttrPK).Consistent(true).One(ctx, &it)
	switch {
	case errors.Is(err, dynamo.ErrNotFound):
		return fmt.Errorf("trade credit of %s: %w", userID, tradecredit.ErrNoCustomer)
	case err != nil:
		return fmt.Errorf("read the account %s: %w", userID, err)
	}
	return nil
}

// creditStoreItem is what a customer's list of balances shows of each
// store.
type creditStoreItem struct {
	ID   string `dynamo:"id"`
	Name string `dynamo:"name"`
	Slug string `dynamo:"slug"`
}

// CustomerBalances reads one page of customerID's balances at every
// store, by store id (GSI1), with each store's name and slug (one
// BatchGetItem for the page's stores). A store deleted since keeps its
// balance in the list, without a name.
func (s *TradeCredit) CustomerBalances(ctx context.Context, customerID string, c page.Cursor) (page.Page[tradecredit.StoreBalance], error) {
	p, err := queryMapped(ctx, s.t, customerCredits(customerID), c, creditBalanceItem.balance)
	if err != nil || len(p.Items) == 0 {
		return page.Page[tradecredit.StoreBalance]{Next: p.Next, Items: []tradecredit.StoreBalance{}}, err
	}
	storeIDs := make([]string, len(p.Items))
	for i, b := range p.Items {
		storeIDs[i] = b.StoreID
	}
	found, err := batchAll[creditStoreItem](ctx, s.t.batch(keysOf(storeIDs, StoreKey)...).Project("id", "name", "slug"))
	if err != nil {
		return page.Page[tradecredit.StoreBalance]{}, fmt.Errorf("read the stores of %s's trade credit: %w", customerID, err)
	}
	byID := make(map[string]creditStoreItem, len(found))
	for _, st := range found {
		byID[st.ID] = st
	}
	return page.Map(p, func(b tradecredit.Balance) tradecredit.StoreBalance {
		st := byID[b.StoreID]
		return tradecredit.StoreBalance{Balance: b, StoreName: st.Name, StoreSlug: st.Slug}
	}), nil
}
