// Package tradecredit is a store's credit for a customer: stores give it
// for books traded in, staff correct it, and point-of-sale sales spend
// it. Each store and customer has one balance and an append-only ledger
// of entries; every entry changes the balance in its own transaction,
// conditional on the balance as read, so the balance is always the sum
// of its entries and never goes below zero, however many staff spend it
// at once.
package tradecredit

import (
	"errors"
	"time"
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

// Errors.
var (
	// ErrInsufficient is a spend or a correction that would take the
	// balance below zero: 400, nothing written.
	ErrInsufficient = errors.New("insufficient trade credit")
	// ErrNoCustomer is a customerUserId that names no account.
	ErrNoCustomer = errors.New("customer not found")
)
