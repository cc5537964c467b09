// Package earnings is what stores earn from orders: affiliate
// commissions (a configured share of the subtotal of each order
// attributed to a store) and the monthly pool (a configured share of the
// orders attributed to no store, split among the stores in proportion to
// what each sold that month). The order and cancel transactions write
// the commissions and the pool's accumulators (shared/dynamo,
// orders_earnings.go); this package reads them for the earnings group,
// runs the monthly split (RunPool) and records payouts made (MarkPaid).
//
// Money is integer cents everywhere: rates are basis points (1/10,000)
// and every division rounds down, except the pool's split, which gives
// the cents its divisions leave over by largest remainder, so the shares
// add up to the pool exactly.
package earnings

import (
	"errors"
	"fmt"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/config"
)

// Status is a payout record's state (spec: Payout status).
type Status string

// The payout statuses. A record is created pending; an operator's
// MarkPaid moves it to paid, once.
const (
	Pending Status = "pending"
	Paid    Status = "paid"
)

// Valid reports whether s is Pending or Paid.
func (s Status) Valid() bool { return s == Pending || s == Paid }

// Configuration variables of the rates, in basis points, read where the
// order transaction computes what it writes (the orders group) through
// SettingsFrom.
const (
	EnvAffiliateCommissionBPS = "AFFILIATE_COMMISSION_BPS"
	EnvPoolShareBPS           = "POOL_SHARE_BPS"
)

// Default rates: 5% of an attributed order's subtotal to its store, 2%
// of an unattributed order's subtotal to the month's pool.
const (
	DefaultCommissionBPS int64 = 500
	DefaultPoolShareBPS  int64 = 200
	// MaxBPS is 100%.
	MaxBPS int64 = 10_000
)

// Settings are the two rates.
type Settings struct {
	CommissionBPS int64
	PoolShareBPS  int64
}

// DefaultSettings are the default rates.
var DefaultSettings = Settings{CommissionBPS: DefaultCommissionBPS, PoolShareBPS: DefaultPoolShareBPS}

// SettingsFrom reads the rates from env, each 0 to 10,000 basis points.
func SettingsFrom(env *config.Env) Settings {
	return Settings{
		CommissionBPS: env.Int(EnvAffiliateCommissionBPS, DefaultCommissionBPS, 0, MaxBPS),
		PoolShareBPS:  env.Int(EnvPoolShareBPS, DefaultPoolShareBPS, 0, MaxBPS),
	}
}

// CommissionCents is an attributed order's commission: bps of its
// subtotal, rounded down to the cent (toward zero).
func CommissionCents(subtotalCents, bps int64) int64 { return subtotalCents * bps / MaxBPS }

// PoolCents is what an unattributed order adds to its month's pool: bps
// of its subtotal, rounded down to the cent (toward zero). A
// cancellation adds the negative of the same figure, so the pool nets
// to what the remaining orders gave.
func PoolCents(subtotalCents, bps int64) int64 { return subtotalCents * bps / MaxBPS }

// Commission is s's commission of an order of this subtotal.
func (s Settings) Commission(subtotalCents int64) int64 {
	return CommissionCents(subtotalCents, s.CommissionBPS)
}

// Pool is what an unattributed order of this subtotal adds to the pool.
func (s Settings) Pool(subtotalCents int64) int64 { return PoolCents(subtotalCents, s.PoolShareBPS) }

// Commission is an affiliate commission payout record: one per order
// attributed to the store, or the reversal of one already paid when its
// order was cancelled or refunded (Reversal: negative CommissionCents,
// pending, so it nets against the store's next payout).
type Commission struct {
	ID              string
	StoreID         string
	OrderID         string
	OrderNumber     string
	OrderTotalCents int64
	OrderCreatedAt  time.Time
	CommissionCents int64
	Status          Status
	Reversal        bool
	PaidAt          *time.Time
	PaidReference   string
	CreatedAt       time.Time
}

// CommissionID is the id of the commission of an order; ReversalID the
// id of its reversal.
func CommissionID(orderID string) string { return "com_" + orderID }
func ReversalID(orderID string) string   { return "com_" + orderID + "_reversal" }

// PoolPayout is one store's share of one month's pool.
type PoolPayout struct {
	ID                string
	StoreID           string
	Month             string // YYYY-MM
	PayoutAmountCents int64
	Status            Status
	PaidAt            *time.Time
	PaidReference     string
	CreatedAt         time.Time
}

// PoolPayoutID is the id of a store's payout of a month.
func PoolPayoutID(month, storeID string) string { return "pool_" + month + "_" + storeID }

// Totals are a store's running totals, added to in the same transaction
// as every change of one of its records, so they are the sums of what
// its two lists hold, exactly.
type Totals struct {
	AffiliatePendingCents int64
	AffiliatePaidCents    int64
	PoolPendingCents      int64
	PoolPaidCents         int64
}

// Errors.
var (
	// ErrNotFound: no such record (MarkPaid), or none pending.
	ErrNotFound = apperr.NotFound("Payout record not found")
	// ErrAlreadyPaid: the record was paid already (MarkPaid).
	ErrAlreadyPaid = apperr.Validation("The payout record is paid already", nil)
	// ErrChanged: the record changed between its read and its write.
	ErrChanged = errors.New("earnings: the record changed meanwhile")
	// ErrPayoutExists: the store's payout of the month exists (a rerun).
	ErrPayoutExists = errors.New("earnings: the pool payout exists already")
	// ErrStoreGone: the store was deleted (its share stays unpaid).
	ErrStoreGone = errors.New("earnings: the store no longer exists")
	// ErrMonthNotComplete: RunPool of the current month or a later one.
	ErrMonthNotComplete = errors.New("earnings: the month is not complete yet")
)

// MonthLayout is the form of a month: YYYY-MM.
const MonthLayout = "2006-01"

// MonthOf is the UTC month of t.
func MonthOf(t time.Time) string { return t.UTC().Format(MonthLayout) }

// PreviousMonth is the month before the UTC month of now: what the
// monthly schedule runs.
func PreviousMonth(now time.Time) string {
	y, m, _ := now.UTC().Date()
	return time.Date(y, m-1, 1, 0, 0, 0, 0, time.UTC).Format(MonthLayout)
}

// ParseMonth checks a YYYY-MM month and returns its first instant (UTC).
func ParseMonth(s string) (time.Time, error) {
	t, err := time.Parse(MonthLayout, s)
	if err != nil || t.Format(MonthLayout) != s {
		return time.Time{}, fmt.Errorf("earnings: month %q is not of the form YYYY-MM", s)
	}
	return t, nil
}
