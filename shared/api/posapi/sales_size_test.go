package posapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/bookplatform/backend/local/testenv"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The largest sale the validation admits must be storable: 25 custom
// items, each with a 300-character title and 20 authors of 200
// characters, in 4-byte characters (emoji), is over DynamoDB's 400 KB
// item limit as one sale item. Such a request is the client's mistake
// (a 400 naming the sale's size, nothing written), never a 500.
func TestSales_LargestAdmittedSaleIsNo500(t *testing.T) {
	w := newWorld(t)
	author := strings.Repeat("😀", 200)
	authors := make([]string, 20)
	for i := range authors {
		authors[i] = author
	}
	items := make([]map[string]any, 25)
	for i := range items {
		items[i] = custom(strings.Repeat("😀", 300), 1, 100, authors...)
	}
	res := w.env.Do("POST", "/api/pos/sales", sale(w.a.ID, "cash", items...), w.a.Staff.Token)
	require.Equal(t, http.StatusBadRequest, res.Status, "%.600s", res)
	assert.Contains(t, testenv.FieldErrors(t, res), "items", "%.600s", res)
	list, _ := w.listSales(t, "")
	assert.Empty(t, list, "nothing written")
}
