// Package pos is the in-store point of sale: a store's staff ring up
// sales at the counter (stock of carried books taken, trade credit
// spent, in the sale's one transaction), look books up by barcode,
// print 48-column receipts, read a period's summary and keep a cash
// drawer per shift. Money is integer cents throughout.
//
// The spec's section is "Point of sale" (base path /api/pos, no version
// segment). The design (docs/decisions.md, "Point of sale") fixes what
// the spec leaves open: tax per sale, the payment methods' consistency
// with the credit applied, sale numbers, the shifts.
package pos

import (
	"errors"
	"time"
)

// PaymentMethod is how a sale was paid.
type PaymentMethod string

// Payment methods. With no trade credit applied a sale is cash or card;
// with credit covering the whole total it is trade_credit; with credit
// and a remainder it is mixed (the remainder paid by card or cash: the
// cash drawer counts only cash sales, docs/decisions.md).
const (
	Cash        PaymentMethod = "cash"
	Card        PaymentMethod = "card"
	TradeCredit PaymentMethod = "trade_credit"
	Mixed       PaymentMethod = "mixed"
)

// PaymentMethods are the methods in the order reports list them.
var PaymentMethods = []PaymentMethod{Cash, Card, TradeCredit, Mixed}

// Limits of one sale.
const (
	// MaxSaleItems is the most lines a sale has: each line that takes
	// stock puts three items in the sale's transaction (the item, its
	// history entry, its event), and the sale, its number's claim, the
	// report counters, the shift, the credit balance, its entry and the
	// sale's event stay within DynamoDB's 100.
	MaxSaleItems    = 25
	MaxQuantity     = 999        // per line
	MaxUnitPrice    = 10_000_000 // cents per unit ($100,000)
	MaxCustomTitle  = 300        // characters of a custom item's title
	MaxCustomAuthor = 200        // characters of one author of a custom item
	MaxAuthors      = 20         // authors of a custom item
)

// Sale is one counter sale (the spec's Sale resource).
type Sale struct {
	ID             string
	StoreID        string
	StaffUserID    string
	CustomerUserID string    // "" for none
	Customer       *Customer // the customer as they were at the sale; nil for none
	Number         string    // saleNumber: STORE-TIMESTAMP-RANDOM
	Items          []Item
	SubtotalCents  int64
	TaxCents       int64
	// TaxRateMicros is the store's rate the tax was computed at, kept so
	// a sale reads the same after the store changes its rate.
	TaxRateMicros           int64
	TradeCreditAppliedCents int64
	TotalCents              int64
	PaymentMethod           PaymentMethod
	// ShiftID is the cash-drawer shift open at the store when the sale
	// was made ("" when none was open).
	ShiftID   string
	CreatedAt time.Time
}

// Customer is a sale's customer as the sale keeps them.
type Customer struct {
	ID          string
	DisplayName string // "" when none
	Email       string // "" when none
}

// Item is one line of a sale.
type Item struct {
	ID          string // the line's id (a UUID)
	BookID      string // "" for a custom item
	InventoryID string // "" when the line took no stock
	Quantity    int
	UnitCents   int64 // unitPrice in the spec, in cents
	IsUsed      bool
	// Book is the line's book as the sale keeps it: the catalog's book
	// at the sale, or the custom item (no id, no ISBNs).
	Book Book
}

// LineCents is the line's total.
func (it Item) LineCents() int64 { return int64(it.Quantity) * it.UnitCents }

// Book is a sale line's book as the sale keeps it.
type Book struct {
	ID      string // "" for a custom item
	ISBN13  string // "" when none
	ISBN10  string // "" when none
	Title   string
	Authors []string
}

// Errors of the point of sale. Storage returns them wrapped; callers
// test them with errors.Is or errors.As.
var (
	ErrNotFound = errors.New("sale not found")
	// ErrNumberTaken is a sale number already claimed (a retry makes a
	// new one).
	ErrNumberTaken = errors.New("sale number taken")
)

// StockError is a sale line asking more of an item than it holds, or of
// an item that is gone: 400, nothing written.
type StockError struct {
	InventoryIDs []string // the items short of stock, in the sale's order
	// Have is what each of them holds.
	Have map[string]int
}

func (e *StockError) Error() string { return "insufficient stock" }
