package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bookplatform/backend/shared/tradecredit"
	"github.com/guregu/dynamo/v2"
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

// creditEntryItem is one ledger entry, sorted by time in its balance's
// partition (newest first when listed).
type creditEntryItem struct {
	PK             string    `dynamo:"PK"`
	SK             string    `dynamo:"SK"`
	Type           string    `dynamo:"type"`
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

func toCreditEntryItem(e tradecredit.Entry) creditEntryItem {
	k := TradeCreditEntryKey(e.StoreID, e.CustomerUserID, e.CreatedAt, e.ID)
	return creditEntryItem{
		PK: k.PK, SK: k.SK, Type: typeCreditEntry, ID: e.ID, StoreID: e.StoreID, CustomerUserID: e.CustomerUserID,
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
func (s *TradeCredit) addChange(x *tx, prev creditBalanceItem, e tradecredit.Entry) (tradecredit.Entry, error) {
	next := prev.BalanceCents + e.AmountCents
	if next < 0 {
		return e, tradecredit.ErrInsufficient
	}
	e.BalanceCents = next
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
	x.put(put, errCreditMoved).put(s.t.put(toCreditEntryItem(e)).If("attribute_not_exists(PK)"), errCreditEntryTaken)
	return e, nil
}

// errCreditEntryTaken is an entry id in use: ids are random UUIDs.
var errCreditEntryTaken = errors.New("trade credit entry already exists")

// Change writes entry e (a grant or a correction; its id, store,
// customer, kind, amount, reason, actor and time set by the caller) and
// returns it with the balance after it, trying again from a fresh read
// when another change came between (bounded). Errors:
// tradecredit.ErrInsufficient, apperr.ErrContention.
func (s *TradeCredit) Change(ctx context.Context, e tradecredit.Entry) (tradecredit.Entry, error) {
	for attempt := 1; ; attempt++ {
		prev, err := s.readBalance(ctx, e.StoreID, e.CustomerUserID)
		if err != nil {
			return e, err
		}
		x := s.t.tx()
		out, err := s.addChange(x, prev, e)
		if err != nil {
			return e, err
		}
		err = x.run(ctx)
		if err == nil {
			return out, nil
		}
		if !(errors.Is(err, errCreditMoved) || retryable(err)) || attempt == changeAttempts {
			return e, fmt.Errorf("change the trade credit of %s at store %s: %w", e.CustomerUserID, e.StoreID, err)
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
