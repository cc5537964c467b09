package notify

import (
	"bytes"
	"embed"
	"fmt"
	htmltemplate "html/template"
	"strings"
	"sync"
	texttemplate "text/template"

	"github.com/bookplatform/backend/shared/orders"
)

// The templates, one pair per kind of email: <kind>.txt.tmpl
// (text/template: the subject, as the template "subject", and the plain
// body) and <kind>.html.tmpl (html/template, which escapes what readers
// and stores typed: titles, names, addresses). Each has a golden file
// under testdata (render_test.go; go test -update rewrites them).
//
//go:embed templates/*.tmpl
var templateFS embed.FS

var funcs = map[string]any{
	"money": Money,
	"add":   func(a, b int) int { return a + b },
}

// templates parses the templates on the first email rendered, not when
// a function starts: every function linking this package would
// otherwise pay half a millisecond of cold start for templates most
// never render. They are embedded and checked by the tests, so a parse
// failure is a build mistake.
var templates = sync.OnceValues(func() (*texttemplate.Template, *htmltemplate.Template) {
	return texttemplate.Must(texttemplate.New("").Funcs(funcs).ParseFS(templateFS, "templates/*.txt.tmpl")),
		htmltemplate.Must(htmltemplate.New("").Funcs(funcs).ParseFS(templateFS, "templates/*.html.tmpl"))
})

// Money is cents as dollars: 1234 is "$12.34".
func Money(cents int64) string {
	sign := ""
	if cents < 0 {
		sign, cents = "-", -cents
	}
	return fmt.Sprintf("%s$%d.%02d", sign, cents/100, cents%100)
}

// Rendered is an email's subject and bodies.
type Rendered struct {
	Subject, Text, HTML string
}

// Render renders kind's templates with data.
func Render(kind string, data any) (Rendered, error) {
	var subject, text, html bytes.Buffer
	textTemplates, htmlTemplates := templates()
	t := textTemplates.Lookup(kind + ".txt.tmpl")
	h := htmlTemplates.Lookup(kind + ".html.tmpl")
	if t == nil || h == nil {
		return Rendered{}, fmt.Errorf("notify: no templates for %s", kind)
	}
	// The subject is defined in the text template; each file's "subject"
	// is its own, so it is executed through the file's own tree.
	if err := t.ExecuteTemplate(&subject, kind+".subject", data); err != nil {
		return Rendered{}, fmt.Errorf("render %s subject: %w", kind, err)
	}
	if err := t.Execute(&text, data); err != nil {
		return Rendered{}, fmt.Errorf("render %s text: %w", kind, err)
	}
	if err := h.Execute(&html, data); err != nil {
		return Rendered{}, fmt.Errorf("render %s HTML: %w", kind, err)
	}
	return Rendered{Subject: strings.Join(strings.Fields(subject.String()), " "), Text: text.String(), HTML: html.String()}, nil
}

// OrderMail is the data of the buyer's emails and the store's new-order
// email: the order, and for a part's email the part and its items.
type OrderMail struct {
	Order orders.Data
	// Part is the store part the email is about (nil: the whole order).
	Part *orders.PartData
	// Items are the part's items (the whole order's without a part).
	Items []orders.ItemData
	// Parts are the order's parts with their items (the confirmation).
	Parts []PartItems
}

// PartItems is one store part with its items.
type PartItems struct {
	Part  orders.PartData
	Items []orders.ItemData
}

// itemsOf are the items of storeID in o.
func itemsOf(o orders.Data, storeID string) []orders.ItemData {
	var out []orders.ItemData
	for _, it := range o.Items {
		if it.StoreID == storeID {
			out = append(out, it)
		}
	}
	return out
}

// OrderMailOf is the data of an email about o (part: about that store's part).
func OrderMailOf(o orders.Data, part *orders.PartData) OrderMail {
	m := OrderMail{Order: o, Part: part, Items: o.Items}
	if part != nil {
		m.Items = itemsOf(o, part.StoreID)
	}
	for _, p := range o.Fulfilment {
		m.Parts = append(m.Parts, PartItems{Part: p, Items: itemsOf(o, p.StoreID)})
	}
	return m
}

// DigestMail is the data of a store's daily digest.
type DigestMail struct {
	StoreName      string
	Day            string
	Entries        []DigestEntry
	TotalCents     int64
	UnsubscribeURL string
}
