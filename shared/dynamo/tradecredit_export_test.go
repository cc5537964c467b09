package dynamo

import (
	"context"

	"github.com/bookplatform/backend/shared/tradecredit"
)

// The ledger's core, for the storage tests (package dynamo_test): a
// change built from a read the test chooses, run when the test says, as
// a sale's transaction builds and runs it.

// ErrCreditMoved is errCreditMoved.
var ErrCreditMoved = errCreditMoved

// CreditRead is a balance as read, for AddCreditChange.
type CreditRead = creditBalanceItem

// ReadCreditBalance is readBalance.
func (s *TradeCredit) ReadCreditBalance(ctx context.Context, storeID, customerID string) (CreditRead, error) {
	return s.readBalance(ctx, storeID, customerID)
}

// AddCreditChange adds e over prev to a new transaction (addChange) and
// returns the entry, how many items it added and the transaction's run.
func (s *TradeCredit) AddCreditChange(prev CreditRead, e tradecredit.Entry) (tradecredit.Entry, int, func(context.Context) error, error) {
	x := s.t.tx()
	out, err := s.addChange(x, prev, e)
	return out, x.len(), x.run, err
}
