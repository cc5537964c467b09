package tradecredit_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/tradecredit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const customer = "7f1c5a0e-2b3d-4e5f-8a9b-0c1d2e3f4a5b"

func TestNewChange_Entry(t *testing.T) {
	at := time.Date(2026, 11, 2, 10, 0, 0, 0, time.FixedZone("PST", -8*3600))
	c := tradecredit.NewChange{StoreID: "store", CustomerUserID: strings.ToUpper(customer), AmountCents: 2500, Reason: "  Traded in 5 paperbacks  ", ActorUserID: "clerk"}
	e, err := c.Entry("entry-1", at)
	require.NoError(t, err)
	assert.Equal(t, tradecredit.Entry{ID: "entry-1", StoreID: "store", CustomerUserID: customer, Kind: tradecredit.Grant, AmountCents: 2500,
		Reason: "Traded in 5 paperbacks", ActorUserID: "clerk", CreatedAt: at.UTC()}, e)

	c.AmountCents = -1
	e, err = c.Entry("entry-2", at)
	require.NoError(t, err)
	assert.Equal(t, tradecredit.Adjust, e.Kind, "a negative amount is a correction")

	for _, amount := range []int64{tradecredit.MaxAmountCents, -tradecredit.MaxAmountCents} {
		c.AmountCents = amount
		_, err = c.Entry("e", at)
		assert.NoError(t, err, "%d is within the limit", amount)
	}
	c.Reason = strings.Repeat("ü", tradecredit.MaxReasonLen)
	_, err = c.Entry("e", at)
	assert.NoError(t, err, "500 characters, 1000 bytes")
}

func TestNewChange_EntryRefusals(t *testing.T) {
	ok := tradecredit.NewChange{StoreID: "store", CustomerUserID: customer, AmountCents: 100, Reason: "x", ActorUserID: "clerk"}
	for _, tc := range []struct {
		name   string
		change func(*tradecredit.NewChange)
		fields []string
	}{
		{"zero", func(c *tradecredit.NewChange) { c.AmountCents = 0 }, []string{"amountCents"}},
		{"over", func(c *tradecredit.NewChange) { c.AmountCents = tradecredit.MaxAmountCents + 1 }, []string{"amountCents"}},
		{"under", func(c *tradecredit.NewChange) { c.AmountCents = -tradecredit.MaxAmountCents - 1 }, []string{"amountCents"}},
		{"no reason", func(c *tradecredit.NewChange) { c.Reason = " \t " }, []string{"reason"}},
		{"long reason", func(c *tradecredit.NewChange) { c.Reason = strings.Repeat("a", tradecredit.MaxReasonLen+1) }, []string{"reason"}},
		{"no customer", func(c *tradecredit.NewChange) { c.CustomerUserID = "" }, []string{"customerUserId"}},
		{"bad customer", func(c *tradecredit.NewChange) { c.CustomerUserID = "reader" }, []string{"customerUserId"}},
		{"all", func(c *tradecredit.NewChange) { *c = tradecredit.NewChange{StoreID: "store"} }, []string{"amountCents", "customerUserId", "reason"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := ok
			tc.change(&c)
			_, err := c.Entry("e", time.Now())
			e, isApp := apperr.As(err)
			require.True(t, isApp, "%v", err)
			assert.Equal(t, apperr.CodeValidation, e.Code)
			fields := e.Details["fields"].(map[string]string)
			var got []string
			for f := range fields {
				got = append(got, f)
			}
			assert.ElementsMatch(t, tc.fields, got)
		})
	}
}

// An InsufficientError is ErrInsufficient to errors.Is, and a 400 naming
// the balance to the HTTP adapter (apperr.As).
func TestInsufficientError(t *testing.T) {
	err := error(&tradecredit.InsufficientError{BalanceCents: 420})
	wrapped := errors.Join(errors.New("context"), err)
	assert.ErrorIs(t, wrapped, tradecredit.ErrInsufficient)
	e, ok := apperr.As(wrapped)
	require.True(t, ok)
	assert.Equal(t, apperr.CodeValidation, e.Code)
	assert.Equal(t, "Insufficient trade credit", e.Message)
	assert.EqualValues(t, 420, e.Details["balanceCents"])
	assert.NotErrorIs(t, errors.New("insufficient trade credit"), tradecredit.ErrInsufficient)
}
