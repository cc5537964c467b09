package earnings

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/bookplatform/backend/shared/page"
)

// Reader is what the earnings routes read (dynamo.Earnings).
type Reader interface {
	// Totals are the store's totals; a store that never earned has
	// zeros.
	Totals(ctx context.Context, storeID string) (Totals, error)
	// Commissions is a page of the store's commission records, newest
	// first; status "" is every record, else those in that status.
	Commissions(ctx context.Context, storeID string, status Status, c page.Cursor) (page.Page[Commission], error)
	// PoolPayouts is a page of the store's pool payouts, latest month
	// first.
	PoolPayouts(ctx context.Context, storeID string, c page.Cursor) (page.Page[PoolPayout], error)
}

// Storer is what the pool's run and the operator's payouts need of the
// table (dynamo.Earnings).
type Storer interface {
	// PoolRunDone reports whether the month's run completed.
	PoolRunDone(ctx context.Context, month string) (bool, error)
	// PoolMonth is the month's pool and every store's sales of it.
	PoolMonth(ctx context.Context, month string) (poolCents int64, sales []Weight, err error)
	// PutPoolPayout writes a pending payout with its store's totals.
	// Errors: ErrPayoutExists, ErrStoreGone.
	PutPoolPayout(ctx context.Context, p PoolPayout) error
	// CompletePoolRun records the month's run as done.
	CompletePoolRun(ctx context.Context, r Run) error
	// PayableCommission is the order's pending record (its commission,
	// else its reversal). Errors: ErrNotFound, ErrAlreadyPaid.
	PayableCommission(ctx context.Context, storeID, orderID string) (Commission, error)
	// MarkCommissionPaid moves that record to paid with its store's
	// totals, if it is still as read (ErrChanged); MarkPoolPayoutPaid
	// the store's payout of the month. Errors: ErrNotFound,
	// ErrAlreadyPaid.
	MarkCommissionPaid(ctx context.Context, c Commission, reference string, at time.Time) (Commission, error)
	MarkPoolPayoutPaid(ctx context.Context, storeID, month, reference string, at time.Time) (PoolPayout, error)
}

// Service runs the pool and records payouts.
type Service struct {
	Store  Storer
	Now    func() time.Time
	Logger *slog.Logger
}

// Run is what one RunPool did.
type Run struct {
	Month string
	// AlreadyDone: the month's run had completed before; nothing was
	// written.
	AlreadyDone bool
	PoolCents   int64
	// Shares is the split of the pool (Split).
	Shares []Share
	// Created are the payouts this run wrote; Existing counts those a
	// run before it had (a run cut short, then run again).
	Created  []PoolPayout
	Existing int
	// Unpaid are the shares of stores deleted since: not paid.
	Unpaid      []Share
	CompletedAt time.Time
}

// PaidCents is the sum of the payouts this run wrote.
func (r Run) PaidCents() int64 {
	var n int64
	for _, p := range r.Created {
		n += p.PayoutAmountCents
	}
	return n
}

// RunPool splits a complete month's pool among the stores that sold in
// it (Split) and writes each store's payout, pending, with its totals,
// one small transaction per store; then it marks the month run. It runs
// a month once: a month marked run writes nothing, and a run cut short
// and started again skips the payouts it wrote (each is put only if
// absent). The month must be over (before the current UTC month):
// orders of a month still open would change its split. A store deleted
// since is skipped: its share stays unpaid (Run.Unpaid). Errors:
// ErrMonthNotComplete, a malformed month.
func (s *Service) RunPool(ctx context.Context, month string) (Run, error) {
	if _, err := ParseMonth(month); err != nil {
		return Run{}, err
	}
	now := s.Now().UTC()
	if month >= MonthOf(now) {
		return Run{}, fmt.Errorf("pool %s: %w (it is %s)", month, ErrMonthNotComplete, MonthOf(now))
	}
	r := Run{Month: month}
	done, err := s.Store.PoolRunDone(ctx, month)
	if err != nil {
		return Run{}, err
	}
	if done {
		r.AlreadyDone = true
		return r, nil
	}
	if r.PoolCents, r.Shares, err = s.split(ctx, month); err != nil {
		return Run{}, err
	}
	for _, sh := range r.Shares {
		if sh.AmountCents <= 0 {
			continue // no payout of nothing
		}
		p := PoolPayout{ID: PoolPayoutID(month, sh.StoreID), StoreID: sh.StoreID, Month: month,
			PayoutAmountCents: sh.AmountCents, Status: Pending, CreatedAt: now}
		switch err := s.Store.PutPoolPayout(ctx, p); {
		case err == nil:
			r.Created = append(r.Created, p)
		case errors.Is(err, ErrPayoutExists):
			r.Existing++
		case errors.Is(err, ErrStoreGone):
			r.Unpaid = append(r.Unpaid, sh)
			s.log().Warn("pool share of a deleted store left unpaid", "month", month, "storeId", sh.StoreID, "cents", sh.AmountCents)
		default:
			return Run{}, fmt.Errorf("pool %s: payout of store %s: %w", month, sh.StoreID, err)
		}
	}
	r.CompletedAt = s.Now().UTC()
	if err := s.Store.CompletePoolRun(ctx, r); err != nil {
		return Run{}, fmt.Errorf("pool %s: %w", month, err)
	}
	return r, nil
}

func (s *Service) split(ctx context.Context, month string) (int64, []Share, error) {
	pool, sales, err := s.Store.PoolMonth(ctx, month)
	if err != nil {
		return 0, nil, fmt.Errorf("pool %s: %w", month, err)
	}
	return pool, Split(pool, sales), nil
}

// MarkCommissionPaid records that the order's commission (or, once it
// was paid, its pending reversal) was paid to the store, with the
// operator's reference (a transfer's id).
func (s *Service) MarkCommissionPaid(ctx context.Context, storeID, orderID, reference string) (Commission, error) {
	c, err := s.PayableCommission(ctx, storeID, orderID)
	if err != nil {
		return Commission{}, err
	}
	return s.MarkCommissionPaidOf(ctx, c, reference)
}

// PayableCommission is the record of the order MarkCommissionPaid would
// mark paid: the commission while it is pending, else its pending
// reversal. The back office reads it first, so that its audit entry
// names the record it marks.
func (s *Service) PayableCommission(ctx context.Context, storeID, orderID string) (Commission, error) {
	return s.Store.PayableCommission(ctx, storeID, orderID)
}

// MarkCommissionPaidOf is MarkCommissionPaid of the record c its caller
// read with PayableCommission (ErrChanged if it is no longer pending).
func (s *Service) MarkCommissionPaidOf(ctx context.Context, c Commission, reference string) (Commission, error) {
	return s.Store.MarkCommissionPaid(ctx, c, reference, s.Now().UTC())
}

// MarkPoolPayoutPaid records that the store's payout of the month was
// paid, with the operator's reference.
func (s *Service) MarkPoolPayoutPaid(ctx context.Context, storeID, month, reference string) (PoolPayout, error) {
	if _, err := ParseMonth(month); err != nil {
		return PoolPayout{}, err
	}
	return s.Store.MarkPoolPayoutPaid(ctx, storeID, month, reference, s.Now().UTC())
}

func (s *Service) log() *slog.Logger {
	if s.Logger == nil {
		return slog.Default()
	}
	return s.Logger
}
