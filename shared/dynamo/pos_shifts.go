package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/pos"
)

// The cash drawer's shifts (pos/shift.go). A shift is its own item; the
// store's pointer to its open shift (POSOpenShiftKey), put only if
// absent in the opening's transaction and deleted in the closing's,
// makes one open shift per store, and is what a sale reads to join the
// shift (addSaleEffects).

// shiftRecord is a shift as stored.
type shiftRecord struct {
	PK                string     `dynamo:"PK"`
	SK                string     `dynamo:"SK"`
	Type              string     `dynamo:"type"`
	GSI1PK            string     `dynamo:"GSI1PK"`
	GSI1SK            string     `dynamo:"GSI1SK"`
	GSI2PK            string     `dynamo:"GSI2PK"`
	GSI2SK            string     `dynamo:"GSI2SK"`
	ID                string     `dynamo:"id"`
	StoreID           string     `dynamo:"storeId"`
	Status            string     `dynamo:"status"`
	OpenedByUserID    string     `dynamo:"openedByUserId"`
	OpenedAt          time.Time  `dynamo:"openedAt"`
	OpeningFloatCents int64      `dynamo:"openingFloatCents"`
	SalesCount        int64      `dynamo:"salesCount"`
	CashSalesCount    int64      `dynamo:"cashSalesCount"`
	CashSalesCents    int64      `dynamo:"cashSalesCents"`
	Note              string     `dynamo:"note,omitempty"`
	ClosedByUserID    string     `dynamo:"closedByUserId,omitempty"`
	ClosedAt          *time.Time `dynamo:"closedAt,omitempty"`
	CountedCashCents  *int64     `dynamo:"countedCashCents,omitempty"`
	ClosingNote       string     `dynamo:"closingNote,omitempty"`
}

func (r shiftRecord) shift() *pos.Shift {
	return &pos.Shift{
		ID: r.ID, StoreID: r.StoreID, Status: pos.ShiftStatus(r.Status), OpenedByUserID: r.OpenedByUserID, OpenedAt: r.OpenedAt,
		OpeningFloatCents: r.OpeningFloatCents, SalesCount: r.SalesCount, CashSalesCount: r.CashSalesCount, CashSalesCents: r.CashSalesCents,
		Note: r.Note, ClosedByUserID: r.ClosedByUserID, ClosedAt: r.ClosedAt, CountedCashCents: r.CountedCashCents, ClosingNote: r.ClosingNote,
	}
}

// errShiftIDTaken: a new shift's id is taken (never, for a random UUID).
var errShiftIDTaken = errors.New("shift id taken")

// OpenShift opens sh (Status open, no sales yet) at its store: one
// transaction puts the shift and the store's open-shift pointer, the
// pointer only if absent. Errors: pos.ErrShiftOpen (409, naming the open
// shift in its details when it can read it).
func (p *POS) OpenShift(ctx context.Context, sh *pos.Shift) error {
	k, sk := POSShiftKey(sh.ID), timeIDKey(sh.OpenedAt, sh.ID)
	r := shiftRecord{PK: k.PK, SK: k.SK, Type: typePOSShift,
		GSI1PK: storeShifts(sh.StoreID).pk, GSI1SK: sk, GSI2PK: storeShiftsIn(sh.StoreID, string(pos.ShiftOpen)).pk, GSI2SK: sk,
		ID: sh.ID, StoreID: sh.StoreID, Status: string(pos.ShiftOpen), OpenedByUserID: sh.OpenedByUserID, OpenedAt: sh.OpenedAt.UTC(),
		OpeningFloatCents: sh.OpeningFloatCents, Note: sh.Note}
	pk := POSOpenShiftKey(sh.StoreID)
	ptr := openShiftRecord{PK: pk.PK, SK: pk.SK, Type: typePOSOpenShift, ShiftID: sh.ID, StoreID: sh.StoreID}
	err := p.t.tx().
		put(p.t.put(ptr).If("attribute_not_exists(PK)"), pos.ErrShiftOpen).
		put(p.t.put(r).If("attribute_not_exists(PK)"), errShiftIDTaken).
		run(ctx)
	if errors.Is(err, pos.ErrShiftOpen) {
		var open openShiftRecord
		if p.t.get(pk).Consistent(true).One(ctx, &open) == nil {
			return fmt.Errorf("open a shift at store %s: %w", sh.StoreID, pos.ErrShiftOpen.WithDetails(map[string]any{"openShiftId": open.ShiftID}))
		}
	}
	if err != nil {
		return fmt.Errorf("open a shift at store %s: %w", sh.StoreID, err)
	}
	sh.Status = pos.ShiftOpen
	return nil
}

// Shift reads a shift, strongly consistent. Errors: pos.ErrShiftNotFound.
func (p *POS) Shift(ctx context.Context, id string) (*pos.Shift, error) {
	return getOne(ctx, p.t, POSShiftKey(id), shiftRecord.shift, pos.ErrShiftNotFound, "shift "+id)
}

// closeAttempts bounds the retries of a sale whose shift moved
// (PutReportSale).
const closeAttempts = 8

// CloseShift closes the shift sh names (sh as the caller read it, to
// check its store): one transaction sets it closed with the count, on
// condition that it is open, and deletes the store's pointer to it. It
// does not depend on the sales figures read: a sale joins only an open
// shift, so once closed they are final, and the shift is read back
// (consistent) for them. Sales never starve a close. The expected cash
// and the variance follow from the stored figures (pos.Shift). Errors:
// pos.ErrShiftClosed.
func (p *POS) CloseShift(ctx context.Context, sh *pos.Shift, c pos.Close) (*pos.Shift, error) {
	u := p.t.update(POSShiftKey(sh.ID)).
		Set("status", string(pos.ShiftClosed)).Set(AttrGSI2PK, storeShiftsIn(sh.StoreID, string(pos.ShiftClosed)).pk).
		Set("closedByUserId", c.ByUserID).Set("closedAt", c.At.UTC()).Set("countedCashCents", c.CountedCashCents)
	if c.Note != "" {
		u = u.Set("closingNote", c.Note)
	}
	err := p.t.tx().
		update(u.If("$ = ?", "status", string(pos.ShiftOpen)), pos.ErrShiftClosed).
		delete(p.t.del(POSOpenShiftKey(sh.StoreID)).If("shiftId = ?", sh.ID), pos.ErrShiftClosed).
		run(ctx)
	if err != nil {
		return nil, fmt.Errorf("close shift %s: %w", sh.ID, err)
	}
	return p.Shift(ctx, sh.ID)
}

// Shifts reads a page of the store's shifts, newest first: all (GSI1)
// or those in one status (GSI2).
func (p *POS) Shifts(ctx context.Context, storeID string, status pos.ShiftStatus, c page.Cursor) (page.Page[*pos.Shift], error) {
	l := storeShifts(storeID)
	if status != "" {
		l = storeShiftsIn(storeID, string(status))
	}
	return queryMapped(ctx, p.t, l, c, shiftRecord.shift)
}
