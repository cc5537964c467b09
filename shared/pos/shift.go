package pos

import (
	"fmt"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
)

// The cash drawer (beyond the spec; docs/decisions.md, "Cash-drawer
// shifts"): a store has at most one open shift. Staff open it with the
// counted float; every sale committed while it is open is in it (the
// sale's transaction adds to the shift, conditional on its being open,
// so membership is exact), cash sales adding their total to the cash the
// drawer should hold; closing records the counted cash and the variance
// against what the sales say. A mixed sale's remainder is not counted as
// cash: the sale does not say how it was paid.

// ShiftStatus is a shift's state.
type ShiftStatus string

// Shift states.
const (
	ShiftOpen   ShiftStatus = "open"
	ShiftClosed ShiftStatus = "closed"
)

// Valid reports whether s is a state.
func (s ShiftStatus) Valid() bool { return s == ShiftOpen || s == ShiftClosed }

// Limits of a shift's figures and notes.
const (
	MaxDrawerCents = 100_000_000 // a float or count: $1,000,000
	MaxShiftNote   = 500         // characters
)

// DrawerCentsMessage is the message of a float or count out of bounds.
var DrawerCentsMessage = fmt.Sprintf("must be a whole number of cents from 0 to %d", MaxDrawerCents)

// Shift is one cash-drawer shift.
type Shift struct {
	ID                string
	StoreID           string
	Status            ShiftStatus
	OpenedByUserID    string
	OpenedAt          time.Time
	OpeningFloatCents int64
	// What the sales in the shift added: every sale counts in SalesCount;
	// cash sales add their total to CashSalesCents.
	SalesCount     int64
	CashSalesCount int64
	CashSalesCents int64
	Note           string // the opening note; "" for none
	// Set when closed.
	ClosedByUserID   string
	ClosedAt         *time.Time
	CountedCashCents *int64
	ClosingNote      string
}

// ExpectedCashCents is what the drawer should hold: the float and the
// cash sales (so far, while open).
func (s *Shift) ExpectedCashCents() int64 { return s.OpeningFloatCents + s.CashSalesCents }

// VarianceCents is counted − expected once closed (negative: cash
// missing); nil while open.
func (s *Shift) VarianceCents() *int64 {
	if s.CountedCashCents == nil {
		return nil
	}
	v := *s.CountedCashCents - s.ExpectedCashCents()
	return &v
}

// Close is what closing a shift records.
type Close struct {
	ByUserID         string
	At               time.Time
	CountedCashCents int64
	Note             string
}

// Errors of the cash drawer.
var (
	ErrShiftNotFound = apperr.NotFound("Shift not found")
	ErrShiftOpen     = apperr.Conflict("The store has an open shift: close it before opening another")
	ErrShiftClosed   = apperr.Validation("The shift is closed already", map[string]string{"id": "is a closed shift"})
)
