package dynamo

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/pos"
	"github.com/guregu/dynamo/v2"
)

// errShiftMoved is the store's open shift closed (or another opened)
// between the sale's read of it and its transaction: the sale is built
// again from a fresh read.
var errShiftMoved = errors.New("the store's open shift moved on since it was read")

// Item types of the reports and the cash drawer (data-model.md).
const (
	typePOSStats     = "PosHourStats"
	typePOSShift     = "PosShift"
	typePOSOpenShift = "PosOpenShift"
)

// The hour counters' attributes: the totals, per payment method a pair,
// and per catalog book its quantity, revenue and title as sold (the
// book's id in the names: an hour's counters grow by some 170 bytes per
// distinct book sold in it, so an item's 400 KB hold some 2,400 distinct
// books an hour, beyond any counter's pace). The titles are kept so that
// a summary reads no catalog: its depth stays one Query after the
// caller's read.
const (
	statSales     = "sales"
	statRevenue   = "revenueCents"
	statSubtotal  = "subtotalCents"
	statTax       = "taxCents"
	statCredit    = "creditCents"
	statItems     = "itemsSold"
	statMethodN   = "mc_" // + method: count
	statMethodC   = "mt_" // + method: cents
	statBookQty   = "bq_" // + book id: quantity
	statBookCents = "br_" // + book id: revenue (Σ quantity × unit)
	statBookTitle = "bt_" // + book id: its title as last sold
)

// openShiftRecord is a store's pointer to its open shift.
type openShiftRecord struct {
	PK      string `dynamo:"PK"`
	SK      string `dynamo:"SK"`
	Type    string `dynamo:"type"`
	ShiftID string `dynamo:"shiftId"`
	StoreID string `dynamo:"storeId"`
}

// addSaleEffects adds to s's transaction what the summary reports and
// the cash drawer keep of it, and sets s.ShiftID to the store's open
// shift (if any) before the sale is put: the sale's transaction calls it
// after building the sale's lines and before putting the sale. Its
// conditions fail as errShiftMoved (the sale retries from a fresh read).
//
// The shift: one consistent GetItem of the store's pointer. With a shift
// open, the sale ADDs to it (every sale to salesCount, a cash sale its
// total to cashSalesCents) on condition that it is still open; with none,
// a ConditionCheck that still none is. Either way the sale is in the
// shift open when it commits, exactly, and a close, which is conditional
// on the shift's salesCount as it read it, never misses one.
//
// The report: the sale's UTC hour's counters, ADDed (no condition: a
// counter never refuses a sale).
func (p *POS) addSaleEffects(ctx context.Context, x *tx, s *pos.Sale) error {
	var ptr openShiftRecord
	err := p.t.get(POSOpenShiftKey(s.StoreID)).Consistent(true).One(ctx, &ptr)
	switch {
	case errors.Is(err, dynamo.ErrNotFound):
		s.ShiftID = ""
		x.check(p.t.check(POSOpenShiftKey(s.StoreID)).If("attribute_not_exists(PK)"), errShiftMoved)
	case err != nil:
		return fmt.Errorf("read the open shift of store %s: %w", s.StoreID, err)
	default:
		s.ShiftID = ptr.ShiftID
		u := p.t.update(POSShiftKey(ptr.ShiftID)).Add("salesCount", 1)
		if s.PaymentMethod == pos.Cash {
			u = u.Add("cashSalesCount", 1).Add("cashSalesCents", s.TotalCents)
		}
		x.update(u.If("$ = ?", "status", string(pos.ShiftOpen)), errShiftMoved)
	}
	x.update(p.hourAdds(s), nil)
	return nil
}

// hourAdds is the update of s's hour counters that adds s.
func (p *POS) hourAdds(s *pos.Sale) *dynamo.Update {
	var t pos.Tally
	t.AddSale(s)
	u := p.t.update(POSStatsKey(s.StoreID, s.CreatedAt)).
		SetIfNotExists("type", typePOSStats).SetIfNotExists("storeId", s.StoreID).
		SetIfNotExists("hour", s.CreatedAt.UTC().Format("2006-01-02T15")).
		Add(statSales, t.Sales).Add(statRevenue, t.RevenueCents).Add(statSubtotal, t.SubtotalCents).
		Add(statTax, t.TaxCents).Add(statCredit, t.CreditCents).Add(statItems, t.ItemsSold)
	for m, v := range t.Methods {
		u = u.Add(statMethodN+string(m), v.Count).Add(statMethodC+string(m), v.Cents)
	}
	// In a fixed order: the same sale makes the same request.
	for _, id := range slices.Sorted(maps.Keys(t.Books)) {
		b := t.Books[id]
		// Quoted: a book id's hyphens are no expression's (guregu/dynamo
		// substitutes a quoted name).
		u = u.Add("'"+statBookQty+id+"'", b.Quantity).Add("'"+statBookCents+id+"'", b.RevenueCents)
		if title := t.Titles[id]; title != "" {
			u = u.Set("'"+statBookTitle+id+"'", title)
		}
	}
	return u
}

// PutReportSale writes s with what the reports and the cash drawer keep
// of it (addSaleEffects) in one transaction, retried when the open shift
// moved: a sale as the reports see it, without stock taken, credit spent
// or a number claimed. It serves the reports' tests and benchmark, which
// need many sales at chosen times; the counter's sales are POST
// /api/pos/sales's, whose transaction adds the same effects. Sets
// s.ShiftID.
func (p *POS) PutReportSale(ctx context.Context, s *pos.Sale) error {
	for range closeAttempts {
		x := p.t.tx()
		if err := p.addSaleEffects(ctx, x, s); err != nil {
			return err
		}
		it := toSaleItem(s) // the record POST /api/pos/sales writes
		err := x.put(p.t.put(it).If("attribute_not_exists(PK)"), pos.ErrNumberTaken).run(ctx)
		if !errors.Is(err, errShiftMoved) {
			return err
		}
	}
	return fmt.Errorf("put sale %s: %w", s.ID, apperr.ErrContention)
}
