package dynamo

import (
	"context"

	"github.com/bookplatform/backend/shared/pos"
)

// SaleEffectsTx is addSaleEffects for the external tests: it reads what
// a sale's transaction reads and returns the transaction to run later,
// so a test can move the shift in between.
func (p *POS) SaleEffectsTx(ctx context.Context, s *pos.Sale) (run func() error, err error) {
	x := p.t.tx()
	if err := p.addSaleEffects(ctx, x, s); err != nil {
		return nil, err
	}
	return func() error { return x.run(ctx) }, nil
}

// ErrShiftMoved is errShiftMoved for the external tests.
var ErrShiftMoved = errShiftMoved
