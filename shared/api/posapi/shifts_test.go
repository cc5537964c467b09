package posapi_test

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/pos"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func openShift(t *testing.T, env *testenv.Env, storeID string, float int, token string) map[string]any {
	t.Helper()
	res := env.Do("POST", "/api/pos/shifts", map[string]any{"storeId": storeID, "openingFloatCents": float, "note": "  morning  "}, token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
	return res.JSON
}

func TestShifts_OpenSellClose(t *testing.T) {
	clock := testenv.NewClock(time.Date(2026, 10, 5, 9, 0, 0, 0, time.UTC))
	env := testenv.New(t, testenv.WithClock(clock))
	shop := openShop(t, env, "drawer-shop", 0)
	other := openShop(t, env, "drawer-other", 0)
	reader := env.Signup(t, "drawer_reader")
	p := dynamo.NewPOS(env.App.Table)
	// advance moves the clock on, with new tokens for everyone.
	advance := func(d time.Duration) {
		clock.Advance(d)
		shop.Owner, shop.Staff, other.Owner, other.Staff = env.Login(t, shop.Owner), env.Login(t, shop.Staff), env.Login(t, other.Owner), env.Login(t, other.Staff)
		reader = env.Login(t, reader)
	}
	book := reportBooks(t, env, 200, 1)[0]

	before := ring(t, p, shop.ID, clock.Now().Add(-time.Minute), pos.Cash, 0, bookLine(book, 1, 1000))
	assert.Empty(t, before.ShiftID, "no shift open")

	sh := openShift(t, env, shop.ID, 10000, shop.Staff.Token)
	id := sh["id"].(string)
	assert.Equal(t, map[string]any{
		"id": id, "storeId": shop.ID, "status": "open", "openedByUserId": shop.Staff.ID, "openedAt": "2026-10-05T09:00:00.000Z",
		"openingFloatCents": float64(10000), "salesCount": float64(0), "cashSalesCount": float64(0), "cashSalesCents": float64(0),
		"expectedCashCents": float64(10000), "closedByUserId": nil, "closedAt": nil, "countedCashCents": nil, "varianceCents": nil,
		"note": "morning", "closingNote": nil,
	}, sh)

	t.Run("one open shift per store", func(t *testing.T) {
		res := env.Do("POST", "/api/pos/shifts", map[string]any{"storeId": shop.ID, "openingFloatCents": 0}, shop.Owner.Token)
		testenv.AssertError(t, res, http.StatusConflict, "Conflict", "")
		assert.Equal(t, id, testenv.ErrorOf(t, res)["details"].(map[string]any)["openShiftId"])
		// Another store's is its own.
		openShift(t, env, other.ID, 500, other.Owner.Token)
	})

	t.Run("validation and roles of opening", func(t *testing.T) {
		for _, body := range []map[string]any{
			{"storeId": other.ID},
			{"storeId": other.ID, "openingFloatCents": -1},
			{"storeId": other.ID, "openingFloatCents": 1.5},
			{"storeId": other.ID, "openingFloatCents": "100"},
			{"storeId": other.ID, "openingFloatCents": pos.MaxDrawerCents + 1},
		} {
			testenv.AssertError(t, env.Do("POST", "/api/pos/shifts", body, other.Staff.Token), http.StatusBadRequest, "ValidationError", "")
		}
		body := map[string]any{"storeId": shop.ID, "openingFloatCents": 1}
		testenv.AssertError(t, env.Do("POST", "/api/pos/shifts", body, other.Staff.Token), http.StatusForbidden, "Forbidden", "")
		testenv.AssertError(t, env.Do("POST", "/api/pos/shifts", body, reader.Token), http.StatusForbidden, "Forbidden", "")
		testenv.AssertError(t, env.Do("POST", "/api/pos/shifts", body, ""), http.StatusUnauthorized, "Unauthorized", "")
	})

	// Sales in the shift: cash, card, a mixed sale (its remainder is not
	// cash), a trade-credit one.
	advance(time.Hour)
	s1 := ring(t, p, shop.ID, clock.Now(), pos.Cash, 0, bookLine(book, 2, 1000))           // 2200
	s2 := ring(t, p, shop.ID, clock.Now(), pos.Card, 0, bookLine(book, 1, 1000))           // 1100
	s3 := ring(t, p, shop.ID, clock.Now(), pos.Mixed, 100, bookLine(book, 1, 1000))        // 1000
	s4 := ring(t, p, shop.ID, clock.Now(), pos.Cash, 0, customLine(1, 455))                // 500
	s5 := ring(t, p, shop.ID, clock.Now(), pos.TradeCredit, 1100, bookLine(book, 1, 1000)) // 0
	for _, s := range []*pos.Sale{s1, s2, s3, s4, s5} {
		assert.Equal(t, id, s.ShiftID)
	}

	t.Run("while open: expected so far", func(t *testing.T) {
		res := env.Do("GET", "/api/pos/shifts?storeId="+shop.ID+"&status=open", nil, shop.Staff.Token)
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		list := res.JSON["shifts"].([]any)
		require.Len(t, list, 1)
		got := list[0].(map[string]any)
		assert.EqualValues(t, 5, got["salesCount"])
		assert.EqualValues(t, 2, got["cashSalesCount"])
		assert.EqualValues(t, 2200+500, got["cashSalesCents"])
		assert.EqualValues(t, 10000+2700, got["expectedCashCents"])
		assert.Nil(t, got["varianceCents"])
	})

	t.Run("the summary of the shift so far", func(t *testing.T) {
		res := env.Do("GET", summaryPath("", "shiftId", id), nil, shop.Owner.Token)
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		assert.EqualValues(t, 5, res.JSON["totalSales"], "the sale before the shift is not in it")
		assert.EqualValues(t, 2200+1100+1000+500+0, res.JSON["totalRevenueCents"])
		assert.Equal(t, id, res.JSON["shiftId"])
		assert.Equal(t, "2026-10-05T09:00:00Z", res.JSON["startAt"])
		assert.Equal(t, "2026-10-05T10:00:00Z", res.JSON["endAt"], "now, while open")
	})

	t.Run("closing: staff of another store see no such shift", func(t *testing.T) {
		body := map[string]any{"countedCashCents": 12500}
		testenv.AssertError(t, env.Do("POST", "/api/pos/shifts/"+id+"/close", body, other.Staff.Token), http.StatusNotFound, "NotFound", "Shift not found")
		testenv.AssertError(t, env.Do("POST", "/api/pos/shifts/"+ids.New()+"/close", body, shop.Staff.Token), http.StatusNotFound, "NotFound", "Shift not found")
		testenv.AssertError(t, env.Do("POST", "/api/pos/shifts/nope/close", body, shop.Staff.Token), http.StatusNotFound, "NotFound", "Shift not found")
		testenv.AssertError(t, env.Do("POST", "/api/pos/shifts/"+id+"/close", body, reader.Token), http.StatusForbidden, "Forbidden", "")
		testenv.AssertError(t, env.Do("POST", "/api/pos/shifts/"+id+"/close", body, ""), http.StatusUnauthorized, "Unauthorized", "")
		for _, bad := range []map[string]any{{}, {"countedCashCents": -5}, {"countedCashCents": 12.5}, {"countedCashCents": 1, "note": string(make([]byte, 600))}} {
			testenv.AssertError(t, env.Do("POST", "/api/pos/shifts/"+id+"/close", bad, shop.Staff.Token), http.StatusBadRequest, "ValidationError", "")
		}
	})

	advance(8 * time.Hour)
	res := env.Do("POST", "/api/pos/shifts/"+id+"/close", map[string]any{"countedCashCents": 12500, "note": "short 2 dollars"}, shop.Owner.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	assert.Equal(t, "closed", res.JSON["status"])
	assert.Equal(t, shop.Owner.ID, res.JSON["closedByUserId"])
	assert.Equal(t, "2026-10-05T18:00:00.000Z", res.JSON["closedAt"])
	assert.EqualValues(t, 12500, res.JSON["countedCashCents"])
	assert.EqualValues(t, 12700, res.JSON["expectedCashCents"], "the float and the cash sales")
	assert.EqualValues(t, -200, res.JSON["varianceCents"], "counted − expected")
	assert.Equal(t, "short 2 dollars", res.JSON["closingNote"])

	t.Run("closed: closing again is 400, sales join no shift, a new one opens", func(t *testing.T) {
		testenv.AssertError(t, env.Do("POST", "/api/pos/shifts/"+id+"/close", map[string]any{"countedCashCents": 1}, shop.Staff.Token),
			http.StatusBadRequest, "ValidationError", "The shift is closed already")
		after := ring(t, p, shop.ID, clock.Now().Add(time.Minute), pos.Cash, 0, bookLine(book, 1, 1000))
		assert.Empty(t, after.ShiftID)
		next := openShift(t, env, shop.ID, 0, shop.Staff.Token)
		again := ring(t, p, shop.ID, clock.Now().Add(2*time.Minute), pos.Cash, 0, bookLine(book, 1, 1000))
		assert.Equal(t, next["id"], again.ShiftID)

		res := env.Do("GET", summaryPath(shop.ID, "shiftId", id), nil, shop.Staff.Token)
		assert.EqualValues(t, 5, res.JSON["totalSales"], "a closed shift's period ends at its closing")
		assert.Equal(t, "2026-10-05T18:00:00Z", res.JSON["endAt"])
	})

	t.Run("the list: newest first, by status, paged", func(t *testing.T) {
		all := env.ReadPages(t, "/api/pos/shifts?limit=1", shop.Staff.Token)
		var got []string
		for _, page := range all {
			for _, s := range page.JSON["shifts"].([]any) {
				got = append(got, s.(map[string]any)["status"].(string))
			}
		}
		assert.Equal(t, []string{"open", "closed"}, got)
		closed := env.Do("GET", "/api/pos/shifts?status=closed", nil, shop.Owner.Token).JSON["shifts"].([]any)
		require.Len(t, closed, 1)
		assert.Equal(t, id, closed[0].(map[string]any)["id"])
		testenv.AssertError(t, env.Do("GET", "/api/pos/shifts?status=done", nil, shop.Owner.Token), http.StatusBadRequest, "ValidationError", "")
		testenv.AssertError(t, env.Do("GET", "/api/pos/shifts?storeId="+shop.ID, nil, other.Staff.Token), http.StatusForbidden, "Forbidden", "")
		testenv.AssertError(t, env.Do("GET", "/api/pos/shifts", nil, reader.Token), http.StatusForbidden, "Forbidden", "")
		testenv.AssertError(t, env.Do("GET", "/api/pos/shifts", nil, ""), http.StatusUnauthorized, "Unauthorized", "")
	})
}

// Sales committed while a shift closes: each is in the shift exactly
// when it committed before the closing, and the closed shift's cash is
// theirs to the cent.
func TestShifts_CashSalesDuringACloseAreCountedExactly(t *testing.T) {
	env := testenv.New(t)
	shop := openShop(t, env, "busy-drawer", 0)
	p := dynamo.NewPOS(env.App.Table)
	book := reportBooks(t, env, 300, 1)[0]
	id := openShift(t, env, shop.ID, 5000, shop.Staff.Token)["id"].(string)

	const workers, each = 4, 8
	var (
		mu    sync.Mutex
		sales []*pos.Sale
		wg    sync.WaitGroup
	)
	start := make(chan struct{})
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for i := range each {
				m := []pos.PaymentMethod{pos.Cash, pos.Card, pos.Cash}[(w+i)%3]
				s := ring(t, p, shop.ID, time.Now(), m, 0, bookLine(book, 1+i%2, int64(100*(w+1)+i)))
				mu.Lock()
				sales = append(sales, s)
				mu.Unlock()
			}
		}()
	}
	close(start)
	for { // close once a third of the sales are in: the rest race it
		mu.Lock()
		n := len(sales)
		mu.Unlock()
		if n >= workers*each/3 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	res := env.Do("POST", "/api/pos/shifts/"+id+"/close", map[string]any{"countedCashCents": 0}, shop.Owner.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	wg.Wait()

	var n, cashN, cash int64
	for _, s := range sales {
		if s.ShiftID != id {
			assert.Empty(t, s.ShiftID)
			continue
		}
		n++
		if s.PaymentMethod == pos.Cash {
			cashN++
			cash += s.TotalCents
		}
	}
	t.Logf("%d of %d sales joined the shift before it closed", n, len(sales))
	assert.EqualValues(t, n, res.JSON["salesCount"])
	assert.EqualValues(t, cashN, res.JSON["cashSalesCount"])
	assert.EqualValues(t, cash, res.JSON["cashSalesCents"])
	assert.EqualValues(t, 5000+cash, res.JSON["expectedCashCents"])
	assert.EqualValues(t, -(5000 + cash), res.JSON["varianceCents"])
	stored, err := p.Shift(t.Context(), id)
	require.NoError(t, err)
	assert.Equal(t, n, stored.SalesCount, "no sale joined after the close")

	// And the hour counters hold every sale, in the shift or not.
	var total int64
	for _, s := range sales {
		total += s.TotalCents
	}
	day := time.Now().UTC().Format(time.DateOnly)
	sum := env.Do("GET", summaryPath(shop.ID, "startDate", day, "endDate", day), nil, shop.Staff.Token)
	assert.EqualValues(t, len(sales), sum.JSON["totalSales"])
	assert.EqualValues(t, total, sum.JSON["totalRevenueCents"])
}
