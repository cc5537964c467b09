package pos

import (
	"testing"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/inventory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Tax is per sale, half up, exact in integer cents.
func TestTax(t *testing.T) {
	assert.Equal(t, int64(350), Tax(4248, 82_500)) // 350.46
	assert.Equal(t, int64(1), Tax(5, 100_000))     // 0.5 rounds up
	assert.Equal(t, int64(0), Tax(4, 100_000))     // 0.4 rounds down
	assert.Equal(t, int64(0), Tax(12345, 0))
	// Per sale, not per line: three lines of 5 cents at 10% are 1.5 → 2,
	// where per-line rounding would give 3.
	assert.Equal(t, int64(2), Tax(15, 100_000))
	// The largest sale: 25 lines of 999 × $100,000 at 25% does not overflow.
	assert.Equal(t, int64(25*999*MaxUnitPrice/4), Tax(25*999*MaxUnitPrice, 250_000))
}

func TestPrefixAndNumber(t *testing.T) {
	assert.Equal(t, "CORNERBO", Prefix("corner-books"))
	assert.Equal(t, "B2B", Prefix("b-2-b"))
	assert.Equal(t, "POS", Prefix("---"))
	at := time.Date(2026, 11, 28, 1, 2, 3, 0, time.FixedZone("x", 3600))
	n := NewNumber("corner-books", at)
	assert.Regexp(t, `^CORNERBO-20261128000203-\d{6}$`, n, "the UTC time")
	seen := map[string]bool{}
	for range 200 {
		seen[NewNumber("a", at)] = true
	}
	assert.Greater(t, len(seen), 190, "the random part varies")
}

func TestExpectedMethod(t *testing.T) {
	for _, c := range []struct {
		m              PaymentMethod
		applied, total int64
		ok             bool
	}{
		{Cash, 0, 100, true}, {Card, 0, 100, true}, {Card, 0, 0, true}, {TradeCredit, 0, 100, false}, {Mixed, 0, 100, false},
		{TradeCredit, 100, 0, true}, {Mixed, 100, 0, false}, {Cash, 100, 0, false},
		{Mixed, 50, 50, true}, {TradeCredit, 50, 50, false}, {Card, 50, 50, false}, {Cash, 50, 50, false},
	} {
		assert.Equal(t, c.ok, checkMethod(c.m, c.applied, c.total) == "", "%+v", c)
	}
}

func yes() *bool { b := true; return &b }
func no() *bool  { b := false; return &b }

func fields(t *testing.T, err error) map[string]string {
	t.Helper()
	e, ok := apperr.As(err)
	require.True(t, ok, "%v", err)
	f, _ := e.Details["fields"].(apperr.Fields)
	if f == nil {
		m, _ := e.Details["fields"].(map[string]string)
		return m
	}
	return f
}

func TestValidate(t *testing.T) {
	store, book := "8a7f5c3e-1111-4222-8333-444455556666", "0b7f5c3e-1111-4222-8333-444455556666"
	inv := inventory.ItemID(store, book)
	ok := SaleRequest{StoreID: store, PaymentMethod: Cash, Items: []ItemRequest{
		{BookID: book, InventoryID: inv, Quantity: 1, UnitPriceCents: 100, IsUsed: no()},
		{Custom: &CustomItem{Title: "  Card  ", Authors: []string{" A "}}, Quantity: 2, UnitPriceCents: 0, IsUsed: yes()},
	}}
	require.NoError(t, ok.Validate())
	assert.Equal(t, "Card", ok.Items[1].Custom.Title, "trimmed")
	assert.Equal(t, "A", ok.Items[1].Custom.Authors[0])

	r := SaleRequest{StoreID: store, PaymentMethod: "cheque", TradeCreditAppliedCents: 5, Items: []ItemRequest{
		{Quantity: 1, IsUsed: no()},
		{BookID: book, Custom: &CustomItem{Title: "x"}, Quantity: 1, IsUsed: no()},
		{BookID: book, InventoryID: inventory.ItemID("other", book), Quantity: 1000, UnitPriceCents: -1},
	}}
	f := fields(t, r.Validate())
	assert.Contains(t, f, "items[0]")
	assert.Contains(t, f, "items[1]")
	assert.Contains(t, f, "items[2].inventoryId")
	assert.Contains(t, f, "items[2].quantity")
	assert.Contains(t, f, "items[2].unitPriceCents")
	assert.Contains(t, f, "items[2].isUsed")
	assert.Contains(t, f, "customerUserId")
	assert.Contains(t, f, "paymentMethod")
}

// Build: the totals, credit after tax, and the refusals that need the
// facts read.
func TestBuild(t *testing.T) {
	store, book := "8a7f5c3e-1111-4222-8333-444455556666", "0b7f5c3e-1111-4222-8333-444455556666"
	inv := inventory.ItemID(store, book)
	facts := Facts{TaxRateMicros: 82_500, StoreSlug: "corner-books", BalanceCents: 1000,
		Books: map[string]Book{book: {ID: book, Title: "Dune"}}, Stock: map[string]Stock{inv: {BookID: book, Quantity: 2, Condition: inventory.UsedGood}}}
	req := func(qty int, applied int64, m PaymentMethod) *SaleRequest {
		return &SaleRequest{StoreID: store, CustomerUserID: "c", PaymentMethod: m, TradeCreditAppliedCents: applied,
			Items: []ItemRequest{{BookID: book, InventoryID: inv, Quantity: qty, UnitPriceCents: 1000, IsUsed: yes()}}}
	}
	now := time.Now()
	s, err := Build(req(2, 500, Mixed), facts, "staff", "sale", now)
	require.NoError(t, err)
	assert.Equal(t, int64(2000), s.SubtotalCents)
	assert.Equal(t, int64(165), s.TaxCents)
	assert.Equal(t, int64(1665), s.TotalCents)
	assert.Equal(t, LineID("sale", 0), s.Items[0].ID)

	var se *StockError
	_, err = Build(req(3, 0, Cash), facts, "staff", "sale", now)
	require.ErrorAs(t, err, &se)
	assert.Equal(t, map[string]int{inv: 2}, se.Have)
	_, err = Build(req(2, 1001, Mixed), facts, "staff", "sale", now)
	e, _ := apperr.As(err)
	require.NotNil(t, e)
	assert.Equal(t, "Insufficient trade credit", e.Message)
	assert.Equal(t, int64(1000), e.Details["balanceCents"])
	_, err = Build(req(1, 1083, Mixed), facts, "staff", "sale", now)
	assert.Contains(t, fields(t, err), "paymentMethod")
	_, err = Build(req(1, 1084, TradeCredit), facts, "staff", "sale", now)
	assert.Contains(t, fields(t, err), "tradeCreditAppliedCents")
	used := req(1, 0, Cash)
	used.Items[0].IsUsed = no()
	_, err = Build(used, facts, "staff", "sale", now)
	assert.Contains(t, fields(t, err), "items[0].isUsed")
	unknown := req(1, 0, Cash)
	unknown.Items[0].BookID, unknown.Items[0].InventoryID = "nope", ""
	_, err = Build(unknown, facts, "staff", "sale", now)
	assert.Contains(t, fields(t, err), "items[0].bookId")
}
