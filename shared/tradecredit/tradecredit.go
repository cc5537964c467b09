// Package tradecredit is a store's credit for a customer: stores give it
// for books traded in, staff correct it, and point-of-sale sales spend
// it. Each store and customer has one balance and an append-only ledger
// of entries; every entry changes the balance in its own transaction,
// conditional on the balance as read, so the balance is always the sum
// of its entries and never goes below zero, however many staff spend it
// at once.
package tradecredit

import (
	"fmt"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/text"
)

// Kind is what made an entry.
type Kind string

// Entry kinds.
const (
	Grant  Kind = "grant"  // staff gave credit (amount > 0)
	Adjust Kind = "adjust" // staff corrected the balance (amount < 0)
	Sale   Kind = "sale"   // a point-of-sale sale spent it (amount < 0)
)

// Limits.
const (
	MaxAmountCents = 1_000_000 // one entry's amount, either sign ($10,000)
	MaxReasonLen   = 500       // characters of a reason
)

// Entry is one change of a balance.
type Entry struct {
	ID             string
	StoreID        string
	CustomerUserID string
	Kind           Kind
	AmountCents    int64 // signed: credit given is positive
	// BalanceCents is the balance after the entry.
	BalanceCents int64
	Reason       string
	ActorUserID  string // the staff member or owner
	SaleID       string // the sale that spent it ("" otherwise)
	CreatedAt    time.Time
}

// Balance is a customer's credit at one store.
type Balance struct {
	StoreID        string
	CustomerUserID string
	BalanceCents   int64
	UpdatedAt      time.Time // zero when no entry was ever made
}

// StoreBalance is a balance with the store's name and slug, as its
// customer lists them ("" for a store deleted since).
type StoreBalance struct {
	Balance
	StoreName, StoreSlug string
}

// Errors. Both are apperr values, so they answer their status wherever
// they surface (a grant here, a sale's spend in the point of sale).
var (
	// ErrInsufficient is a spend or a correction that would take the
	// balance below zero: 400, nothing written. Storage returns it as an
	// *InsufficientError, which names the balance and still matches it
	// (errors.Is).
	ErrInsufficient = apperr.Validation("Insufficient trade credit", map[string]string{"amountCents": "would take the balance below zero"})
	// ErrNoCustomer is a customerUserId that names no account: 404, as
	// orders answer an unknown id they are given.
	ErrNoCustomer = apperr.NotFound("Customer not found")
)

// InsufficientError is ErrInsufficient with the balance the change met,
// so the answer tells the clerk how much there is to spend.
type InsufficientError struct {
	BalanceCents int64
}

func (e *InsufficientError) Error() string {
	return fmt.Sprintf("insufficient trade credit: the balance is %d cents", e.BalanceCents)
}

// Is makes errors.Is(err, ErrInsufficient) hold.
func (e *InsufficientError) Is(target error) bool { return target == ErrInsufficient }

// Unwrap is the 400 the client gets: the message, the field and the
// balance in details.
func (e *InsufficientError) Unwrap() error {
	return &apperr.Error{Code: apperr.CodeValidation, Message: "Insufficient trade credit",
		Details: map[string]any{
			"fields":       map[string]string{"amountCents": fmt.Sprintf("would take the balance of %d cents below zero", e.BalanceCents)},
			"balanceCents": e.BalanceCents,
		}}
}

// AmountMessage is the message of a bad amountCents.
const AmountMessage = "must be a non-zero integer from -1000000 to 1000000 (cents)"

// NewChange is a grant or a correction as staff ask for it: the store
// and the actor come from the route's role check, the rest from the
// request.
type NewChange struct {
	StoreID        string
	CustomerUserID string
	AmountCents    int64
	Reason         string
	ActorUserID    string
}

// Entry validates c and makes the entry it writes: a positive amount is a
// grant, a negative one a correction (Adjust); the reason trimmed, 1 to
// MaxReasonLen characters of one line. id and at are the entry's. Errors:
// a 400 naming each bad field.
func (c NewChange) Entry(id string, at time.Time) (Entry, error) {
	var f apperr.Fields
	customer, msg := ids.Required(c.CustomerUserID)
	f.Add("customerUserId", msg)
	if c.AmountCents == 0 || c.AmountCents < -MaxAmountCents || c.AmountCents > MaxAmountCents {
		f.Add("amountCents", AmountMessage)
	}
	reason, msg := text.Name(c.Reason, MaxReasonLen)
	f.Add("reason", msg)
	if err := f.Err(); err != nil {
		return Entry{}, err
	}
	kind := Grant
	if c.AmountCents < 0 {
		kind = Adjust
	}
	return Entry{ID: id, StoreID: c.StoreID, CustomerUserID: customer, Kind: kind, AmountCents: c.AmountCents,
		Reason: reason, ActorUserID: c.ActorUserID, CreatedAt: at.UTC()}, nil
}
