package pos

import (
	"crypto/rand"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/inventory"
	"github.com/google/uuid"
)

// SaleRequest is POST /api/pos/sales as the handler read it: its
// integers known to be integers, nothing else checked yet (Validate).
type SaleRequest struct {
	StoreID                 string
	CustomerUserID          string
	Items                   []ItemRequest
	PaymentMethod           PaymentMethod
	TradeCreditAppliedCents int64
}

// ItemRequest is one line of a sale request: a catalog book (BookID) or
// a custom item (Custom), exactly one of the two.
type ItemRequest struct {
	BookID         string
	Custom         *CustomItem
	InventoryID    string
	Quantity       int
	UnitPriceCents int64
	IsUsed         *bool // nil: absent
}

// CustomItem is a line's item that is no catalog book (a used book
// without an ISBN, a bookmark): its title and authors as the clerk typed
// them.
type CustomItem struct {
	Title   string
	Authors []string
}

// Valid reports whether m is one of the four methods.
func (m PaymentMethod) Valid() bool {
	switch m {
	case Cash, Card, TradeCredit, Mixed:
		return true
	}
	return false
}

// Validate checks what the request says on its own and puts its ids in
// canonical form: 400 ValidationError naming every bad field
// (items[2].quantity). What needs a read (the books, the items, the
// customer, the balance) is Build's.
func (r *SaleRequest) Validate() error {
	var f apperr.Fields
	switch n := len(r.Items); {
	case n == 0:
		f.Add("items", "must list at least one item")
	case n > MaxSaleItems:
		f.Add("items", "at most "+strconv.Itoa(MaxSaleItems)+" items per sale")
	}
	seen := map[string]bool{}
	for i := range r.Items {
		it := &r.Items[i]
		at := "items[" + strconv.Itoa(i) + "]"
		switch {
		case it.BookID == "" && it.Custom == nil:
			f.Add(at, "needs a bookId or a customItem")
		case it.BookID != "" && it.Custom != nil:
			f.Add(at, "has both a bookId and a customItem: one of the two")
		case it.Custom != nil:
			checkCustom(&f, at+".customItem", it.Custom)
			if it.InventoryID != "" {
				f.Add(at+".inventoryId", "only a catalog book (bookId) takes stock")
			}
		default:
			id, ok := ids.Parse(it.BookID)
			if !ok {
				f.Add(at+".bookId", "must be a book id (a UUID)")
				break
			}
			it.BookID = id
			if it.InventoryID == "" {
				break
			}
			inv, ok := ids.Parse(it.InventoryID)
			switch {
			case !ok:
				f.Add(at+".inventoryId", "must be an inventory item id (a UUID)")
			case inv != inventory.ItemID(r.StoreID, id):
				f.Add(at+".inventoryId", "is not this store's item for the book")
			case seen[inv]:
				f.Add(at+".inventoryId", "is listed twice: one line per item")
			}
			seen[inv] = true
			it.InventoryID = inv
		}
		if it.IsUsed == nil {
			f.Add(at+".isUsed", "is required: true or false")
		}
		if it.Quantity < 1 || it.Quantity > MaxQuantity {
			f.Add(at+".quantity", QuantityMessage)
		}
		if it.UnitPriceCents < 0 || it.UnitPriceCents > MaxUnitPrice {
			f.Add(at+".unitPriceCents", UnitPriceMessage)
		}
	}
	if n := customTextBytes(r.Items); n > MaxCustomTextBytes {
		f.Add("items", "the custom items' titles and authors are "+strconv.Itoa(n)+" bytes: at most "+
			strconv.Itoa(MaxCustomTextBytes)+" per sale")
	}
	if r.CustomerUserID != "" {
		id, ok := ids.Parse(r.CustomerUserID)
		if !ok {
			f.Add("customerUserId", "must be a user id (a UUID)")
		}
		r.CustomerUserID = id
	}
	switch {
	case r.TradeCreditAppliedCents < 0:
		f.Add("tradeCreditAppliedCents", "must be an integer of 0 or more")
	case r.TradeCreditAppliedCents > 0 && r.CustomerUserID == "" && f["customerUserId"] == "":
		f.Add("customerUserId", "is required when trade credit is applied")
	}
	if !r.PaymentMethod.Valid() {
		f.Add("paymentMethod", "must be one of cash, card, trade_credit, mixed")
	}
	return f.Err()
}

// MaxCustomTextBytes bounds the UTF-8 bytes of a sale's custom items'
// titles and authors together. A sale is one DynamoDB item (400 KB at
// most): each custom item alone is within its character limits, but 25
// of them at their limits in 4-byte characters are some 430 KB, which
// DynamoDB refuses (a 500). 200 KB leaves room for the catalog lines and
// the rest of the sale; no counter's sale comes near it.
const MaxCustomTextBytes = 200_000

// customTextBytes is the UTF-8 size of items' custom titles and authors.
func customTextBytes(items []ItemRequest) int {
	n := 0
	for _, it := range items {
		if it.Custom == nil {
			continue
		}
		n += len(it.Custom.Title)
		for _, a := range it.Custom.Authors {
			n += len(a)
		}
	}
	return n
}

// Messages of the integer fields' ranges (the handler's too, for a value
// that is no integer).
var (
	QuantityMessage  = "must be an integer from 1 to " + strconv.Itoa(MaxQuantity)
	UnitPriceMessage = "must be an integer from 0 to " + strconv.Itoa(MaxUnitPrice) + " (cents)"
	CreditMessage    = "must be an integer of 0 or more (cents)"
)

// checkCustom checks a custom item, trimming its texts.
func checkCustom(f *apperr.Fields, at string, c *CustomItem) {
	c.Title = strings.TrimSpace(c.Title)
	if n := utf8.RuneCountInString(c.Title); n == 0 || n > MaxCustomTitle {
		f.Add(at+".title", "must be 1 to "+strconv.Itoa(MaxCustomTitle)+" characters")
	}
	if len(c.Authors) > MaxAuthors {
		f.Add(at+".authors", "at most "+strconv.Itoa(MaxAuthors)+" authors")
	}
	for i := range c.Authors {
		c.Authors[i] = strings.TrimSpace(c.Authors[i])
		if n := utf8.RuneCountInString(c.Authors[i]); n == 0 || n > MaxCustomAuthor {
			f.Add(at+".authors["+strconv.Itoa(i)+"]", "must be 1 to "+strconv.Itoa(MaxCustomAuthor)+" characters")
		}
	}
}

// Facts are what a sale is built from, read at once by storage: the
// store's tax rate and slug, the catalog books and inventory items the
// lines name (those found), the customer (nil when none is named) and
// their trade credit balance at the store.
type Facts struct {
	TaxRateMicros int64
	StoreSlug     string
	Books         map[string]Book
	Stock         map[string]Stock
	Customer      *Customer
	BalanceCents  int64
}

// Stock is an inventory item as a sale sees it.
type Stock struct {
	BookID    string
	Quantity  int
	Condition inventory.Condition
}

// Tax is the tax on a sale's subtotal at rate (millionths), rounded half
// up to the cent: computed once on the whole subtotal, not per line, as
// orders compute theirs (docs/decisions.md, "Tax per sale"), so a sale's
// tax never drifts from the rate by the rounding of many lines.
func Tax(subtotalCents, rateMicros int64) int64 {
	return (subtotalCents*rateMicros + 500_000) / 1_000_000
}

// ExpectedMethod is the payment method a sale's credit and total call
// for: none applied, cash or card (the clerk's choice; "" here); credit
// covering the whole total, trade_credit; credit and a remainder, mixed.
func ExpectedMethod(appliedCents, totalCents int64) PaymentMethod {
	switch {
	case appliedCents == 0:
		return ""
	case totalCents == 0:
		return TradeCredit
	}
	return Mixed
}

// checkMethod refuses a payment method the credit applied contradicts.
func checkMethod(m PaymentMethod, appliedCents, totalCents int64) string {
	want := ExpectedMethod(appliedCents, totalCents)
	switch {
	case want == "" && (m == Cash || m == Card):
		return ""
	case want == "":
		return "must be cash or card: no trade credit is applied"
	case m != want && want == TradeCredit:
		return "must be trade_credit: the credit applied pays the whole total"
	case m != want:
		return "must be mixed: the credit applied pays part of the total"
	}
	return ""
}

// Build makes the sale of req, made by staffID at now with id saleID, from
// facts: 400 naming each line whose book is not in the catalog, whose
// inventory item does not exist or whose isUsed contradicts the item's
// condition; 400 for credit above the subtotal and tax, a payment method
// the credit contradicts or credit above the customer's balance
// (details.balanceCents); *StockError for lines asking more than their
// item holds. Its number is drawn here (NewNumber); storage draws another
// when it is taken.
func Build(req *SaleRequest, facts Facts, staffID, saleID string, now time.Time) (*Sale, error) {
	s := &Sale{
		ID: saleID, StoreID: req.StoreID, StaffUserID: staffID, CustomerUserID: req.CustomerUserID,
		Customer: facts.Customer, TaxRateMicros: facts.TaxRateMicros, PaymentMethod: req.PaymentMethod,
		TradeCreditAppliedCents: req.TradeCreditAppliedCents, CreatedAt: now.UTC(),
		Number: NewNumber(facts.StoreSlug, now),
	}
	var f apperr.Fields
	short := &StockError{Have: map[string]int{}}
	for i, l := range req.Items {
		at := "items[" + strconv.Itoa(i) + "]"
		it := Item{ID: LineID(saleID, i), Quantity: l.Quantity, UnitCents: l.UnitPriceCents, IsUsed: *l.IsUsed}
		if l.Custom != nil {
			it.Book = Book{Title: l.Custom.Title, Authors: l.Custom.Authors}
			s.Items = append(s.Items, it)
			continue
		}
		b, ok := facts.Books[l.BookID]
		if !ok {
			f.Add(at+".bookId", "names no book of the catalog")
			continue
		}
		it.BookID, it.Book = l.BookID, b
		if l.InventoryID != "" {
			st, ok := facts.Stock[l.InventoryID]
			switch {
			case !ok:
				f.Add(at+".inventoryId", "no such inventory item")
			case (st.Condition == inventory.New) == *l.IsUsed:
				f.Add(at+".isUsed", "must be "+strconv.FormatBool(st.Condition != inventory.New)+": the item's condition is "+string(st.Condition))
			case st.Quantity < l.Quantity:
				short.InventoryIDs = append(short.InventoryIDs, l.InventoryID)
				short.Have[l.InventoryID] = max(st.Quantity, 0)
			}
			it.InventoryID = l.InventoryID
		}
		s.Items = append(s.Items, it)
	}
	if err := f.Err(); err != nil {
		return nil, err
	}
	for _, it := range s.Items {
		s.SubtotalCents += it.LineCents()
	}
	s.TaxCents = Tax(s.SubtotalCents, s.TaxRateMicros)
	due := s.SubtotalCents + s.TaxCents
	if s.TradeCreditAppliedCents > due {
		return nil, apperr.Validation("Invalid request", map[string]string{"tradeCreditAppliedCents": fmt.Sprintf(
			"at most the sale's subtotal plus tax (%d cents)", due)})
	}
	s.TotalCents = due - s.TradeCreditAppliedCents
	if msg := checkMethod(s.PaymentMethod, s.TradeCreditAppliedCents, s.TotalCents); msg != "" {
		return nil, apperr.Validation("Invalid request", map[string]string{"paymentMethod": msg})
	}
	if s.TradeCreditAppliedCents > facts.BalanceCents {
		return nil, InsufficientCredit(facts.BalanceCents)
	}
	if len(short.InventoryIDs) > 0 {
		return nil, short
	}
	return s, nil
}

// InsufficientCredit is the 400 of credit applied above the customer's
// balance (details.balanceCents: the balance), nothing written.
func InsufficientCredit(balanceCents int64) error {
	msg := fmt.Sprintf("more than the customer's balance of %d cents", balanceCents)
	return apperr.Validation("Insufficient trade credit", nil).WithDetails(map[string]any{
		"fields": map[string]string{"tradeCreditAppliedCents": msg}, "balanceCents": balanceCents,
	})
}

// ErrCustomerNotFound is a customerUserId that names no account: 404, as
// orders answer an id that names nothing.
var ErrCustomerNotFound = apperr.NotFound("Customer not found")

// lineSpace is the namespace of sale lines' ids.
var lineSpace = uuid.MustParse("5f0c8f0e-4f4e-4d8a-9c55-0d6b1f3f7a21")

// LineID is the id of line i of sale saleID: a UUID derived from both,
// so a sale built again (a retry of its transaction) keeps its lines' ids.
func LineID(saleID string, i int) string {
	return uuid.NewSHA1(lineSpace, []byte(saleID+"/"+strconv.Itoa(i))).String()
}

// Prefix is the store part of a sale number: the letters and digits of
// the store's slug, upper case, at most 8 ("corner-books" → "CORNERBO";
// "POS" for a slug with none).
func Prefix(slug string) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(slug) {
		if (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			if b.Len() == 8 {
				break
			}
		}
	}
	if b.Len() == 0 {
		return "POS"
	}
	return b.String()
}

// NewNumber is a sale number, STORE-TIMESTAMP-RANDOM: the store's
// Prefix, the sale's UTC time to the second (YYYYMMDDHHMMSS) and 6 random
// digits. One store's sales in one second share the first two parts, so
// the random part (a million values) keeps them apart; a sale claims its
// number in its transaction and draws another when it is taken
// (ErrNumberTaken), so numbers are unique however unlikely a collision.
func NewNumber(slug string, at time.Time) string {
	n, err := rand.Int(rand.Reader, big.NewInt(1_000_000))
	if err != nil {
		panic("pos: no randomness: " + err.Error())
	}
	return fmt.Sprintf("%s-%s-%06d", Prefix(slug), at.UTC().Format("20060102150405"), n.Int64())
}

// ListFilter selects the sales a list shows: a store's, optionally one
// staff member's there, made from From to To, both inclusive (a zero
// time: no bound).
type ListFilter struct {
	StoreID, StaffUserID string
	From, To             time.Time
}
