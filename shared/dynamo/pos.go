package dynamo

// POS is the storage of the point of sale (shared/pos): sales, their
// numbers' claims, the report counters and the cash-drawer shifts. A
// sale is one transaction: the sale, its number's claim, per line that
// names an inventory item the item's stock taken (with its history entry
// and inventory.updated event, as an order takes it), the trade credit
// spent (TradeCredit.addChange), and what the reports and the open
// shift keep of it (addSaleEffects).
type POS struct {
	t      *table
	inv    *Inventory
	credit *TradeCredit
}

// NewPOS is the point-of-sale store.
func NewPOS(h Handle) *POS {
	t := h.table()
	return &POS{t: t, inv: &Inventory{t}, credit: &TradeCredit{t}}
}
