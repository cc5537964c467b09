package inventory

import (
	"fmt"
	"strings"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/text"
)

// Bounds of an item's fields. Quantities and prices fit comfortably in
// every client's integers; location and notes are short free text.
const (
	MaxQuantity   = 1_000_000
	MaxPriceCents = 100_000_000 // one million in currency units
	MaxLocation   = 100
	MaxNotes      = 1000
	MaxReason     = 500
)

// conditionMessage names the accepted conditions.
var conditionMessage = "must be one of " + strings.Join(conditionNames(), ", ")

func conditionNames() []string {
	out := make([]string, len(Conditions))
	for i, c := range Conditions {
		out[i] = string(c)
	}
	return out
}

// ConditionMessage is the message of a condition that is not one of
// Conditions.
func ConditionMessage() string { return conditionMessage }

// QuantityMessage, CentsMessage: the messages of a bad quantity or amount.
var (
	QuantityMessage = fmt.Sprintf("must be an integer from 0 to %d", MaxQuantity)
	CentsMessage    = fmt.Sprintf("must be a whole number of cents from 0 to %d", MaxPriceCents)
)

// checkQuantity, checkCents and checkCondition add a field's problem.
func checkQuantity(f *apperr.Fields, field string, q int) {
	if q < 0 || q > MaxQuantity {
		f.Add(field, QuantityMessage)
	}
}

func checkCents(f *apperr.Fields, field string, c int) {
	if c < 0 || c > MaxPriceCents {
		f.Add(field, CentsMessage)
	}
}

func checkCondition(f *apperr.Fields, field string, c Condition) {
	if !c.Valid() {
		f.Add(field, conditionMessage)
	}
}

// cleanText checks and cleans an optional short text (location, notes).
func cleanText(f *apperr.Fields, field string, s *string, max int) {
	if s == nil {
		return
	}
	v, msg := text.Prose(*s, max)
	f.Add(field, msg)
	*s = v
}

// Validate checks a Stock as import and sync give it and cleans its
// texts: a non-negative quantity, price and cost within bounds, one of
// the conditions. Errors: a 400 ValidationError naming each bad field.
func (s *Stock) Validate() error {
	var f apperr.Fields
	if s.BookID == "" {
		f.Add("bookId", "is required")
	}
	checkQuantity(&f, "quantity", s.Quantity)
	checkCents(&f, "priceCents", s.PriceCents)
	if s.CostCents != nil {
		checkCents(&f, "costCents", *s.CostCents)
	}
	checkCondition(&f, "condition", s.Condition)
	cleanText(&f, "location", s.Location, MaxLocation)
	cleanText(&f, "notes", s.Notes, MaxNotes)
	return f.Err()
}

// Validate checks an update's given fields and cleans its texts.
func (u *Update) Validate() error {
	var f apperr.Fields
	if u.PriceCents != nil {
		checkCents(&f, "priceCents", *u.PriceCents)
	}
	if u.CostCents != nil {
		checkCents(&f, "costCents", *u.CostCents)
	}
	if u.Condition != nil {
		checkCondition(&f, "condition", *u.Condition)
	}
	cleanText(&f, "location", u.Location, MaxLocation)
	cleanText(&f, "notes", u.Notes, MaxNotes)
	return f.Err()
}

// Apply is it with u's fields set.
func (u Update) Apply(it Item) Item {
	if u.PriceCents != nil {
		it.PriceCents = *u.PriceCents
	}
	if u.CostCents != nil {
		c := *u.CostCents
		it.CostCents = &c
	} else if u.ClearCost {
		it.CostCents = nil
	}
	if u.Condition != nil {
		it.Condition = *u.Condition
	}
	if u.Location != nil {
		it.Location = *u.Location
	}
	if u.Notes != nil {
		it.Notes = *u.Notes
	}
	return it
}

// Apply is it set to s (import and sync: the quantity is set, not added;
// nil cost, location and notes keep theirs).
func (s Stock) Apply(it Item) Item {
	it.Quantity, it.PriceCents, it.Condition = s.Quantity, s.PriceCents, s.Condition
	if s.CostCents != nil {
		c := *s.CostCents
		it.CostCents = &c
	}
	if s.Location != nil {
		it.Location = *s.Location
	}
	if s.Notes != nil {
		it.Notes = *s.Notes
	}
	if s.ExternalItemID != "" {
		it.ExternalItemID = s.ExternalItemID
	}
	return it
}

// SameStock reports whether a and b hold the same stored state (all but
// their timestamps).
func SameStock(a, b *Item) bool {
	ca, cb := -1, -1
	if a.CostCents != nil {
		ca = *a.CostCents
	}
	if b.CostCents != nil {
		cb = *b.CostCents
	}
	return a.Quantity == b.Quantity && a.PriceCents == b.PriceCents && ca == cb && a.Condition == b.Condition &&
		a.Location == b.Location && a.Notes == b.Notes && a.ExternalItemID == b.ExternalItemID
}
