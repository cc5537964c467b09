package pos

import (
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// update rewrites the golden receipts: go test ./shared/pos -run TestReceipt_golden -update
var update = flag.Bool("update", false, "rewrite the golden files in testdata/receipts")

var goldenStore = ReceiptStore{
	Name: "Corner Books", AddressLine1: "123 Main Street", AddressLine2: "Suite 4",
	City: "Portland", State: "OR", PostalCode: "97201", Phone: "(503) 555-0100",
}

// goldenSale is a sale of items with the totals of a 8.25% rate, as the
// sales code computes them (per sale, half up).
func goldenSale(items ...Item) *Sale {
	s := &Sale{
		ID: "5c0e8f5e-8a57-4a43-9d6c-3f1f2b7f9a10", Number: "CORNERBO-20261127143005-482915",
		CreatedAt: time.Date(2026, 11, 27, 14, 30, 5, 0, time.UTC), PaymentMethod: Card, Items: items,
		TaxRateMicros: 82500,
	}
	for _, it := range items {
		s.SubtotalCents += it.LineCents()
	}
	s.TaxCents = (s.SubtotalCents*s.TaxRateMicros + 500000) / 1000000
	s.TotalCents = s.SubtotalCents + s.TaxCents
	return s
}

func book(title string, authors ...string) Book {
	return Book{ID: "b", ISBN13: "9780441478125", Title: title, Authors: authors}
}

func TestReceipt_golden(t *testing.T) {
	withCredit := goldenSale(
		Item{Quantity: 1, UnitCents: 1899, Book: book("The Left Hand of Darkness", "Ursula K. Le Guin")},
		Item{Quantity: 2, UnitCents: 750, IsUsed: true, Book: book("Kindred", "Octavia E. Butler")},
	)
	withCredit.CustomerUserID = "c"
	withCredit.Customer = &Customer{ID: "c", DisplayName: "Ada Reader", Email: "reader@example.com"}
	withCredit.TradeCreditAppliedCents = 1000
	withCredit.TotalCents -= 1000
	withCredit.PaymentMethod = Mixed

	allCredit := goldenSale(Item{Quantity: 1, UnitCents: 500, IsUsed: true, Book: book("Dune", "Frank Herbert")})
	allCredit.Customer = &Customer{ID: "c", Email: "no.name@example.com"}
	allCredit.TradeCreditAppliedCents = allCredit.TotalCents
	allCredit.TotalCents = 0
	allCredit.PaymentMethod = TradeCredit

	big := goldenSale(Item{Quantity: 999, UnitCents: MaxUnitPrice, Book: book("An Expensive Folio Edition", "A. Binder")},
		Item{Quantity: 120, UnitCents: 123456, Book: book("Atlas", "Many Hands")})
	big.PaymentMethod = Cash

	cases := map[string]struct {
		sale  *Sale
		store ReceiptStore
	}{
		"plain": {sale: goldenSale(Item{Quantity: 1, UnitCents: 1899, Book: book("The Left Hand of Darkness", "Ursula K. Le Guin")})},
		"long_titles": {sale: goldenSale(
			Item{Quantity: 3, UnitCents: 2450, Book: book("The Hitchhiker's Guide to the Galaxy: The Trilogy of Five, Complete and Unabridged in One Volume", "Douglas Adams")},
			Item{Quantity: 1, UnitCents: 999, IsUsed: true, Book: book("Supercalifragilisticexpialidociously-hyphenated-compound-words-go-on: a study", "Anon")},
		)},
		"accented": {sale: goldenSale(
			// Precomposed letters, and the same letters as a base and a
			// combining mark (NFC makes them one character each).
			Item{Quantity: 1, UnitCents: 1500, Book: book("Cien años de soledad: edición conmemorativa de la Real Academia Española", "Gabriel García Márquez")},
			Item{Quantity: 2, UnitCents: 1250, Book: book("Les Mise\u0301rables, tome premier : Fantine, e\u0301dition inte\u0301grale", "Victor Hugo")},
			// Combining marks with no precomposed form (each counts).
			Item{Quantity: 1, UnitCents: 800, Book: book("Za\u0338l\u0338g\u0338o\u0338 t\u0338e\u0338x\u0338t\u0338 a\u0338n\u0338d\u0338 o\u0338t\u0338h\u0338e\u0338r\u0338 marks", "Ŝtruck Ŧhrough")},
		)},
		"wide": {sale: goldenSale(
			Item{Quantity: 1, UnitCents: 2200, Book: book("ノルウェイの森", "村上春樹")},
			Item{Quantity: 1, UnitCents: 3000, Book: book("三体：地球往事三部曲之一，中国科幻基石丛书，刘慈欣著，重庆出版社出版发行，二〇〇八年一月第一版第一次印刷", "刘慈欣")},
		)},
		"many_authors": {sale: goldenSale(
			Item{Quantity: 1, UnitCents: 4999, Book: book("The Anthology of Everyone", "Chimamanda Ngozi Adichie", "Margaret Atwood", "James Baldwin", "Jorge Luis Borges", "Italo Calvino", "Ted Chiang", "Fyodor Dostoevsky", "George Eliot", "N. K. Jemisin", "Toni Morrison")},
			Item{Quantity: 1, UnitCents: 1000, Book: book("Two Hands", "Terry Pratchett", "Neil Gaiman")},
		)},
		"used":            {sale: goldenSale(Item{Quantity: 2, UnitCents: 650, IsUsed: true, Book: book("Kindred", "Octavia E. Butler")})},
		"customer_credit": {sale: withCredit},
		"all_credit":      {sale: allCredit},
		"custom_item": {sale: goldenSale(
			Item{Quantity: 4, UnitCents: 350, Book: Book{Title: "Tote bag"}},
			Item{Quantity: 1, UnitCents: 2000, Book: Book{Title: "Local zine, issue 7", Authors: []string{"The Collective"}}},
		)},
		"big_amounts": {sale: big},
		"long_store": {sale: goldenSale(Item{Quantity: 1, UnitCents: 100, Book: book("Short", "A")}), store: ReceiptStore{
			Name: "The Very Long Named Independent Bookshop and Reading Room of Greater Springfield", AddressLine1: "1 Road",
			City: "Springfield", PostalCode: "01101"}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			st := c.store
			if st == (ReceiptStore{}) {
				st = goldenStore
			}
			got := Receipt(c.sale, st)
			checkLines(t, got)
			path := filepath.Join("testdata", "receipts", name+".txt")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to write it)", err)
			}
			if got != string(want) {
				t.Errorf("receipt differs from %s (-update rewrites it):\n--- got\n%s--- want\n%s", path, got, want)
			}
		})
	}
}

// checkLines fails for a receipt line wider than the printers or with
// trailing spaces, or a receipt not ending in a newline.
func checkLines(t *testing.T, r string) {
	t.Helper()
	if !strings.HasSuffix(r, "\n") {
		t.Errorf("receipt does not end with a newline")
	}
	for i, l := range strings.Split(strings.TrimSuffix(r, "\n"), "\n") {
		if n := utf8.RuneCountInString(l); n > ReceiptWidth {
			t.Errorf("line %d has %d characters: %q", i+1, n, l)
		}
		if strings.TrimRight(l, " ") != l {
			t.Errorf("line %d has trailing spaces: %q", i+1, l)
		}
		if !utf8.ValidString(l) {
			t.Errorf("line %d is not UTF-8: %q", i+1, l)
		}
	}
}

// TestReceipt_neverWider: no line of many random sales (random titles,
// authors, names of random lengths in Latin, accented, combining and wide
// characters, any amounts the sale limits allow and beyond) is wider than
// 48 characters.
func TestReceipt_neverWider(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 48))
	alphabets := [][]rune{
		[]rune("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,:;'!?-()"),
		[]rune("áéíóúñçøåäöüßÁÉÎÕÜŁŒœ"),
		{'e', 'a', 'o', '\u0301', '\u0308', '\u0338', '\u20dd', '\u0327'},
		[]rune("漢字かなカナ한국어中文書名ＡＢＣ"),
		{'\u200b', '\u202e', '\t', '\n', '\u00ad', ' ', ' ', ' ', ' ', '\U0001F4DA'},
	}
	str := func(max int) string {
		n := rng.IntN(max + 1)
		// Spaces from none (one long word, broken at the width) to many.
		spaces := []int{0, 3, 6, 40}[rng.IntN(4)]
		var b strings.Builder
		for range n {
			if spaces > 0 && rng.IntN(spaces) == 0 {
				b.WriteByte(' ')
				continue
			}
			a := alphabets[rng.IntN(len(alphabets))]
			b.WriteRune(a[rng.IntN(len(a))])
		}
		return b.String()
	}
	amount := func() int64 {
		switch rng.IntN(4) {
		case 0:
			return rng.Int64N(1000)
		case 1:
			return rng.Int64N(MaxUnitPrice + 1)
		case 2:
			return rng.Int64()
		}
		return -rng.Int64N(1 << 62)
	}
	for i := range 500 {
		s := &Sale{Number: str(40), CreatedAt: time.Unix(rng.Int64N(1<<34), 0), PaymentMethod: PaymentMethods[rng.IntN(4)],
			SubtotalCents: amount(), TaxCents: amount(), TotalCents: amount()}
		if rng.IntN(2) == 0 {
			s.Customer = &Customer{DisplayName: str(120), Email: str(80)}
			s.TradeCreditAppliedCents = amount()
		}
		for range rng.IntN(MaxSaleItems) + 1 {
			it := Item{Quantity: rng.IntN(1_000_000), UnitCents: amount(), IsUsed: rng.IntN(2) == 0, Book: Book{Title: str(400)}}
			for range rng.IntN(MaxAuthors + 1) {
				it.Book.Authors = append(it.Book.Authors, str(MaxCustomAuthor))
			}
			s.Items = append(s.Items, it)
		}
		st := ReceiptStore{Name: str(150), AddressLine1: str(100), AddressLine2: str(60), City: str(50), State: str(5), PostalCode: str(12), Phone: str(60)}
		r := Receipt(s, st)
		checkLines(t, r)
		if t.Failed() {
			t.Fatalf("sale %d: %+v\n%s", i, s, r)
		}
	}
}

func TestMoney(t *testing.T) {
	for cents, want := range map[int64]string{
		0: "$0.00", 5: "$0.05", 99: "$0.99", 100: "$1.00", 123456: "$1,234.56", 100000000: "$1,000,000.00",
		-500: "-$5.00", -1: "-$0.01", -9223372036854775808: "-$92,233,720,368,547,758.08",
		9223372036854775807: "$92,233,720,368,547,758.07",
	} {
		if got := Money(cents); got != want {
			t.Errorf("Money(%d) = %q, want %q", cents, got, want)
		}
	}
}

func TestWrap_breaksLongWordsBeforeTheirMarks(t *testing.T) {
	// 47 letters, then an "x" with a combining mark that has no
	// precomposed form: the mark stays with its x on the next line.
	word := strings.Repeat("a", 47) + "x\u0338" + "yz"
	got := wrap(clean(word), ReceiptWidth)
	want := []string{strings.Repeat("a", 47), "x\u0338yz"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("wrap = %q, want %q", got, want)
	}
}

func TestClean(t *testing.T) {
	for in, want := range map[string]string{
		"  a \t b\n\nc  ":  "a b c",
		"e\u0301":          "é",
		"\u202eevil\u202c": "evil",
		"soft\u00adhyphen": "softhyphen",
		"bad\xffbyte":      "bad\uFFFDbyte",
	} {
		if got := clean(in); got != want {
			t.Errorf("clean(%q) = %q, want %q", in, got, want)
		}
	}
}
