package posapi_test

import (
	"fmt"
	"net/http"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/pos"
	"github.com/stretchr/testify/require"
)

// TestSummaryBench measures GET /api/pos/reports/summary through the
// router over a day of 2,000 sales of 3 lines each (written as the sale's
// transaction records them for the reports): p50 and p99 of the whole
// day (hour counters only) and of a period with partial hours at both
// ends (the edge hours' sales read too). Bench mode only
// (POS_SUMMARY_BENCH=1): it writes 2,000 sales.
//
//	POS_SUMMARY_BENCH=1 go run ./local/withdynamodb go test -count=1 -run TestSummaryBench -v ./shared/api/posapi/
func TestSummaryBench(t *testing.T) {
	if os.Getenv("POS_SUMMARY_BENCH") == "" {
		t.Skip("bench mode: set POS_SUMMARY_BENCH=1")
	}
	env := testenv.New(t)
	shop := openShop(t, env, "bench-summary", 0)
	p := dynamo.NewPOS(env.App.Table)
	bookIDs := reportBooks(t, env, 500, 50)
	day := time.Date(2026, 10, 5, 0, 0, 0, 0, time.UTC)

	const sales, workers = 2000, 8
	began := time.Now()
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w * sales / workers; i < (w+1)*sales/workers; i++ {
				at := day.Add(time.Duration(i) * 24 * time.Hour / sales)
				m := pos.PaymentMethods[i%len(pos.PaymentMethods)]
				var credit int64
				if m == pos.TradeCredit || m == pos.Mixed {
					credit = 100
				}
				lines := []pos.Item{bookLine(bookIDs[i%50], 1, 1299), bookLine(bookIDs[(i*7)%50], 2, 899), customLine(1, 250)}
				if m == pos.TradeCredit {
					credit = 1299 + 2*899 + 250 + (1299+2*899+250)/10
				}
				ring(t, p, shop.ID, at, m, credit, lines...)
			}
		}()
	}
	wg.Wait()
	t.Logf("wrote %d sales in %s", sales, time.Since(began).Round(time.Millisecond))

	for _, c := range []struct{ name, start, end string }{
		{"the day (hour counters)", "2026-10-05", "2026-10-05"},
		{"09:30-17:15 (two partial hours)", "2026-10-05T09:30:00Z", "2026-10-05T17:15:00Z"},
	} {
		path := summaryPath(shop.ID, "startDate", c.start, "endDate", c.end)
		res := env.Do("GET", path, nil, shop.Staff.Token)
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		if c.start == c.end {
			require.EqualValues(t, sales, res.JSON["totalSales"])
			require.EqualValues(t, sales*4, res.JSON["totalItemsSold"])
		}
		const n = 200
		d := make([]time.Duration, n)
		for i := range d {
			t0 := time.Now()
			res := env.Do("GET", path, nil, shop.Staff.Token)
			d[i] = time.Since(t0)
			require.Equal(t, http.StatusOK, res.Status)
		}
		slices.Sort(d)
		msg := fmt.Sprintf("summary of %s over %d sales: p50 %s, p99 %s (n=%d)", c.name, sales, d[n/2].Round(10*time.Microsecond), d[n*99/100].Round(10*time.Microsecond), n)
		t.Log(msg)
		if d[n*99/100] > 100*time.Millisecond {
			t.Errorf("p99 above 100 ms: %s", msg)
		}
	}
}
