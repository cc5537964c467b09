package dynamo

import (
	"context"
	"errors"

	"github.com/bookplatform/backend/shared/pos"
)

// errShiftMoved is the store's open shift closed (or another opened)
// between the sale's read of it and its transaction: the sale is built
// again from a fresh read.
var errShiftMoved = errors.New("the store's open shift moved on since it was read")

// addSaleEffects adds to s's transaction what the summary reports and
// the cash drawer keep of it, and sets s.ShiftID to the store's open
// shift (if any) before the sale is put: the sale's transaction calls it
// after building the sale's lines and before putting the sale. Its
// conditions fail as errShiftMoved (the sale retries from a fresh read).
//
// SKELETON: the reports helper replaces this body (pos_effects.go is
// its own).
func (p *POS) addSaleEffects(ctx context.Context, x *tx, s *pos.Sale) error {
	return nil
}
