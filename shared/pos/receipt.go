package pos

// ReceiptWidth is the receipt printers' width in characters (runes, as
// a printer counts them, not bytes).
const ReceiptWidth = 48

// ReceiptStore is what a receipt shows of its store.
type ReceiptStore struct {
	Name                       string
	AddressLine1, AddressLine2 string
	City, State, PostalCode    string
	Phone                      string
}

// Receipt renders s as the 48-column text receipt of the spec's rule 9
// (docs/decisions.md, "Receipts"). Every line is at most ReceiptWidth
// characters; lines end with "\n".
//
// SKELETON: the receipt helper replaces this body (shared/pos/receipt.go
// and its golden tests are its own).
func Receipt(s *Sale, st ReceiptStore) string {
	return ""
}
