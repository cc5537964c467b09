package pos

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/bookplatform/backend/shared/text"
)

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
// Width is counted in runes of the NFC form (every piece of text is
// normalized first, so "e" + a combining acute counts as one character
// wherever Unicode has the precomposed letter). A wide (CJK) character
// counts as one, as the spec measures: the receipt printers' width is in
// characters. Text is word-wrapped at spaces; a word longer than the
// width is broken at the width (never inside a base letter and its
// combining marks when avoidable). No line has trailing spaces.
//
// The layout:
//
//	              centred store name
//	         centred address line(s), city
//	                 centred phone
//	------------------------------------------------
//	Sale: <saleNumber>
//	Date: YYYY-MM-DD HH:MM UTC
//	Customer: <name>            (when a customer is present)
//	<email>
//	------------------------------------------------
//	<title> (Used)              (per item, wrapped)
//	by A, B and C               (wrapped; none without authors)
//	2 x $12.50                                $25.00
//	------------------------------------------------
//	Subtotal                                  $25.00
//	Tax                                        $2.06
//	Trade Credit                              -$5.00  (only when applied)
//	TOTAL                                     $22.06
//	Paid by: Mixed
//	------------------------------------------------
//	        Thank you for shopping with us!
func Receipt(s *Sale, st ReceiptStore) string {
	var r receipt
	for _, l := range []string{st.Name, st.AddressLine1, st.AddressLine2, cityLine(st), st.Phone} {
		r.centred(l)
	}
	r.rule()
	r.wrapped("Sale: " + s.Number)
	r.wrapped("Date: " + s.CreatedAt.UTC().Format("2006-01-02 15:04") + " UTC")
	if c := s.Customer; c != nil {
		name, email := clean(c.DisplayName), clean(c.Email)
		switch {
		case name != "":
			r.wrapped("Customer: " + name)
			r.wrapped(email)
		case email != "":
			r.wrapped("Customer: " + email)
		}
	}
	r.rule()
	for _, it := range s.Items {
		title := clean(it.Book.Title)
		if it.IsUsed {
			title = strings.TrimSpace(title + " (Used)")
		}
		r.wrapped(title)
		r.wrapped(byLine(it.Book.Authors))
		r.amount(strconv.Itoa(it.Quantity)+" x "+Money(it.UnitCents), it.LineCents())
	}
	r.rule()
	r.amount("Subtotal", s.SubtotalCents)
	r.amount("Tax", s.TaxCents)
	if s.TradeCreditAppliedCents != 0 {
		r.amount("Trade Credit", -s.TradeCreditAppliedCents)
	}
	r.amount("TOTAL", s.TotalCents)
	r.wrapped("Paid by: " + paymentLabel(s.PaymentMethod))
	r.rule()
	r.centred("Thank you for shopping with us!")
	return r.b.String()
}

// receipt accumulates a receipt's lines.
type receipt struct{ b strings.Builder }

func (r *receipt) line(l string) {
	r.b.WriteString(l)
	r.b.WriteByte('\n')
}

func (r *receipt) rule() { r.line(strings.Repeat("-", ReceiptWidth)) }

// wrapped writes s (clean text) word-wrapped; nothing for "".
func (r *receipt) wrapped(s string) {
	for _, l := range wrap(s, ReceiptWidth) {
		r.line(l)
	}
}

// centred writes s wrapped, each line centred (the extra space of an odd
// remainder on the right, which is not written).
func (r *receipt) centred(s string) {
	for _, l := range wrap(clean(s), ReceiptWidth) {
		r.line(strings.Repeat(" ", (ReceiptWidth-width(l))/2) + l)
	}
}

// amount writes label and the amount right-aligned to the last column;
// a label too long to share the line (never with the sale limits) is
// wrapped and the amount gets a line of its own.
func (r *receipt) amount(label string, cents int64) {
	m := Money(cents)
	lines := wrap(label, ReceiptWidth)
	last := ""
	if n := len(lines); n > 0 {
		last = lines[n-1]
		lines = lines[:n-1]
	}
	for _, l := range lines {
		r.line(l)
	}
	if width(last)+1+width(m) > ReceiptWidth {
		r.line(last)
		last = ""
	}
	r.line(last + strings.Repeat(" ", ReceiptWidth-width(last)-width(m)) + m)
}

// cityLine is "City, ST 12345", leaving out the parts a store lacks.
func cityLine(st ReceiptStore) string {
	tail := strings.TrimSpace(clean(st.State) + " " + clean(st.PostalCode))
	city := clean(st.City)
	if city != "" && tail != "" {
		return city + ", " + tail
	}
	return city + tail
}

// byLine is "by A", "by A and B", "by A, B and C"; "" without authors.
func byLine(authors []string) string {
	var names []string
	for _, a := range authors {
		if a = clean(a); a != "" {
			names = append(names, a)
		}
	}
	switch n := len(names); n {
	case 0:
		return ""
	case 1:
		return "by " + names[0]
	default:
		return "by " + strings.Join(names[:n-1], ", ") + " and " + names[n-1]
	}
}

// paymentLabel is how the receipt names a payment method.
func paymentLabel(m PaymentMethod) string {
	switch m {
	case Cash:
		return "Cash"
	case Card:
		return "Card"
	case TradeCredit:
		return "Trade credit"
	case Mixed:
		return "Mixed"
	}
	return clean(string(m))
}

// Money formats cents as dollars with thousands separators: $1,234.56,
// and -$5.00 for a negative amount.
func Money(cents int64) string {
	sign := ""
	u := uint64(cents)
	if cents < 0 {
		sign, u = "-", uint64(-cents) // -MinInt64 wraps to its own magnitude as a uint64
	}
	d := strconv.FormatUint(u/100, 10)
	var b strings.Builder
	b.WriteString(sign + "$")
	for i, c := range d {
		if i > 0 && (len(d)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	b.WriteString("." + strconv.FormatUint(u%100/10, 10) + strconv.FormatUint(u%10, 10))
	return b.String()
}

// clean makes text fit for one printed line: NFC, controls, line breaks
// and every run of white space one space, bidi controls and other
// invisible format characters dropped (they would move or hide text on a
// printer that ignores them, or count as characters it does not print),
// trimmed.
func clean(s string) string {
	s = norm.NFC.String(strings.ToValidUTF8(s, "\uFFFD"))
	var b strings.Builder
	space := false
	for _, c := range s {
		switch {
		case unicode.IsSpace(c) || text.IsControl(c):
			space = b.Len() > 0
			continue
		case unicode.Is(unicode.Cf, c):
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(c)
	}
	return b.String()
}

// width is the printed width of clean text: its characters.
func width(s string) int { return utf8.RuneCountInString(s) }

// wrap breaks clean text (single spaces, none at the ends) into lines of
// at most w characters at its spaces, breaking a word longer than w.
func wrap(s string, w int) []string {
	var lines []string
	var cur []string // the current line's words
	curW := 0        // its width
	flush := func() {
		if len(cur) > 0 {
			lines = append(lines, strings.Join(cur, " "))
		}
		cur, curW = cur[:0], 0
	}
	for _, word := range strings.Fields(s) {
		ww := width(word)
		for ww > w {
			// A word too long for any line starts its own, and is broken
			// at the width.
			flush()
			head, tail := breakWord(word, w)
			lines = append(lines, head)
			word, ww = tail, width(tail)
		}
		if len(cur) > 0 && curW+1+ww > w {
			flush()
		}
		if len(cur) > 0 {
			curW++
		}
		cur, curW = append(cur, word), curW+ww
	}
	flush()
	return lines
}

// breakWord splits word after at most w characters, moving the break
// back before the base letter of combining marks that would otherwise
// start the next line (unless the head would be empty).
func breakWord(word string, w int) (head, tail string) {
	rs := []rune(word)
	at := w
	for at > 0 && isMark(rs[at]) {
		at--
	}
	if at == 0 {
		at = w
	}
	return string(rs[:at]), string(rs[at:])
}

func isMark(r rune) bool { return unicode.In(r, unicode.Mn, unicode.Me, unicode.Mc) }
