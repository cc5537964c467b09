package posapi

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/api/userjson"
	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/pos"
	"github.com/bookplatform/backend/shared/text"
)

// The summary report and the cash drawer's shifts. Calls: the summary
// one consistent Query of the store's hour counters and at most two
// Queries of the sales list's index, in parallel (after a GetItem of the
// shift when asked by shift);
// opening a shift a transaction of two Puts; closing a GetItem and a
// transaction of an Update and a Delete; the list one Query (GSI1 or
// GSI2).

// reportHandler serves the summary and the shifts.
type reportHandler struct {
	pos *dynamo.POS
	now func() time.Time
}

// reportWhy is the Why of the report and shift routes' refusals.
var reportWhy = map[int]string{
	403: "the caller is neither the owner nor staff of the store (or, without a storeId, of any store).",
	404: "no store has the storeId.",
}

func reportRoutes(d api.Deps) []httpapi.Route {
	now := d.Now
	if now == nil {
		now = time.Now
	}
	h := &reportHandler{pos: dynamo.NewPOS(d.Table), now: now}
	storeParam := httpapi.Param{Name: "storeId", Type: "string", About: "the store; default the caller's own (the one it owns, else the one it staffs; required of staff of several stores)"}
	return []httpapi.Route{
		{Method: http.MethodGet, Path: Path("/reports/summary"), Auth: httpapi.AuthBearer, Role: staffOfQueried, Handler: h.summary,
			Doc: httpapi.Doc{Summary: "What the store's sales of a period (or of a cash-drawer shift) add up to: sales, revenue, average sale, items sold, by payment method, the top 10 books",
				Query: []httpapi.Param{
					storeParam,
					{Name: "startDate", Type: "string", About: "the period's start: YYYY-MM-DD (that UTC day's start) or an RFC 3339 timestamp; required without shiftId"},
					{Name: "endDate", Type: "string", About: "the period's end, inclusive: YYYY-MM-DD (that UTC day's end) or an RFC 3339 timestamp; required without shiftId; at most 31 days after startDate"},
					{Name: "shiftId", Type: "string", About: "instead of the dates: the shift's period, from its opening to its closing (or now, while open)"},
				},
				Response: summaryResponse{}, Errors: []int{400, 403, 404},
				Why: map[int]string{
					400: "startDate or endDate missing or not a date or timestamp, endDate before startDate, a period longer than 31 days, or shiftId with dates.",
					403: reportWhy[403], 404: "no store has the storeId, or the store has no shift with the shiftId.",
				}}},
		{Method: http.MethodPost, Path: Path("/shifts"), Auth: httpapi.AuthBearer, Role: staffOfNamed, Idempotent: true, Handler: h.openShift,
			Doc: httpapi.Doc{Summary: "Open a cash-drawer shift at the store with the counted float; sales from now on are in it until it is closed",
				Body: openShiftRequest{}, Response: shiftJSON{}, Status: http.StatusCreated, Errors: []int{400, 403, 404, 409},
				Why: map[int]string{403: reportWhy[403], 404: reportWhy[404], 409: "the store has an open shift already (details.openShiftId): close it first."}}},
		{Method: http.MethodPost, Path: Path("/shifts/{id}/close"), Auth: httpapi.AuthBearer, Role: staffOfRecord, Idempotent: true, Handler: h.closeShift,
			Doc: httpapi.Doc{Summary: "Close a shift with the counted cash: records what the drawer should hold (the float and the cash sales) and the variance",
				Body: closeShiftRequest{}, Response: shiftJSON{}, Errors: []int{400, 403, 404},
				Why: map[int]string{400: "a bad count or note, or the shift is closed already.", 403: "the caller staffs no store.",
					404: "no shift has this id, or it is a shift of a store the caller neither owns nor staffs."}}},
		{Method: http.MethodGet, Path: Path("/shifts"), Auth: httpapi.AuthBearer, Role: staffOfQueried, Handler: h.shifts,
			Doc: httpapi.Doc{Summary: "The store's cash-drawer shifts, newest first",
				Query: []httpapi.Param{
					storeParam,
					{Name: "status", Type: "string", Enum: []string{string(pos.ShiftOpen), string(pos.ShiftClosed)}, About: "only the shifts in this status"},
					{Name: "cursor", Type: "string", About: "nextCursor of the previous page"},
					httpapi.LimitParam(page.DefaultLimit, page.MaxLimit),
				},
				Response: shiftList{}, Errors: []int{400, 403, 404}, Why: reportWhy}},
	}
}

// methodLine is one payment method's sales.
type methodLine struct {
	PaymentMethod string `json:"paymentMethod"`
	Count         int64  `json:"count"`
	TotalCents    int64  `json:"totalCents"`
}

// topBook is one of the period's best-selling catalog books.
type topBook struct {
	BookID       string `json:"bookId"`
	Title        string `json:"title"`
	QuantitySold int64  `json:"quantitySold"`
	RevenueCents int64  `json:"revenueCents" doc:"Σ quantity × unit price of the book's lines, before tax and trade credit."`
}

// summaryResponse answers GET /api/pos/reports/summary: the spec's
// fields, then the parts of the revenue and the period read.
type summaryResponse struct {
	TotalSales              int64        `json:"totalSales"`
	TotalRevenueCents       int64        `json:"totalRevenueCents" doc:"The money taken: Σ totalCents of the sales (after trade credit); the payment methods' totals add up to it."`
	AverageSaleCents        int64        `json:"averageSaleCents" doc:"totalRevenueCents / totalSales rounded half up; 0 without sales."`
	TotalItemsSold          int64        `json:"totalItemsSold" doc:"Σ quantities of every line, custom items included."`
	SalesByPaymentMethod    []methodLine `json:"salesByPaymentMethod" doc:"The methods with sales, in the order cash, card, trade_credit, mixed."`
	TopBooks                []topBook    `json:"topBooks" doc:"Catalog books only, at most 10: by quantitySold, then revenueCents (both highest first), then bookId."`
	SubtotalCents           int64        `json:"subtotalCents"`
	TaxCents                int64        `json:"taxCents"`
	TradeCreditAppliedCents int64        `json:"tradeCreditAppliedCents"`
	StartAt                 string       `json:"startAt" doc:"The period read, from (inclusive): startDate, a date's first instant, or the shift's opening."`
	EndAt                   string       `json:"endAt" doc:"The period read, to (inclusive): endDate, a date's last instant (23:59:59.999999999Z), or the shift's closing (now while it is open)."`
	ShiftID                 *string      `json:"shiftId" doc:"The shift asked for; null for a period by dates."`
}

func newSummaryResponse(s pos.Summary, shiftID string) summaryResponse {
	out := summaryResponse{
		TotalSales: s.Sales, TotalRevenueCents: s.RevenueCents, AverageSaleCents: s.AverageSaleCents, TotalItemsSold: s.ItemsSold,
		SalesByPaymentMethod: make([]methodLine, len(s.ByMethod)), TopBooks: make([]topBook, len(s.TopBooks)),
		SubtotalCents: s.SubtotalCents, TaxCents: s.TaxCents, TradeCreditAppliedCents: s.CreditCents,
		StartAt: reportTime(s.Period.Start), EndAt: reportTime(s.Period.End),
	}
	for i, m := range s.ByMethod {
		out.SalesByPaymentMethod[i] = methodLine{PaymentMethod: string(m.Method), Count: m.Count, TotalCents: m.TotalCents}
	}
	for i, b := range s.TopBooks {
		out.TopBooks[i] = topBook{BookID: b.BookID, Title: b.Title, QuantitySold: b.QuantitySold, RevenueCents: b.RevenueCents}
	}
	if shiftID != "" {
		out.ShiftID = &shiftID
	}
	return out
}

// reportTime is a period's bound with its nanoseconds (a day's end is
// 23:59:59.999999999Z), RFC 3339.
func reportTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// summary serves GET /api/pos/reports/summary. Its reads start beside
// the router's admission (an early GET): the store the query names, or
// the shift's, is read at once and checked against the role's store once
// admitted, so the answer costs one round trip after the caller's read
// at most (the caller's own store, or a shift's period, is known only
// then).
func (h *reportHandler) summary(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	if q.Has("shiftId") {
		if q.Has("startDate") || q.Has("endDate") {
			return apperr.Validation("Give shiftId or startDate and endDate, not both", map[string]string{"shiftId": "is not given with startDate and endDate"})
		}
		return h.shiftSummary(w, r, q.Get("shiftId"))
	}
	per, err := pos.ParseReportPeriod(q.Get("startDate"), q.Get("endDate"))
	if err != nil {
		return err
	}
	storeID, named := ids.Parse(q.Get("storeId"))
	if !named {
		storeID = httpapi.CallerOf(r).Store().ID
	}
	s, err := h.pos.Summary(r.Context(), storeID, per)
	if err != nil {
		return err
	}
	if httpapi.CallerOf(r).Store().ID != storeID { // the role's store is the one named: never
		return apperr.Forbidden("Only the store's owner or its staff may do this")
	}
	return httpapi.JSON(w, http.StatusOK, newSummaryResponse(s, ""))
}

// shiftSummary answers the summary of a shift: the period from its
// opening to its closing (now while open), at its store, which must be
// the role's (404 otherwise).
func (h *reportHandler) shiftSummary(w http.ResponseWriter, r *http.Request, shiftID string) error {
	id, ok := ids.Parse(shiftID)
	if !ok {
		return pos.ErrShiftNotFound
	}
	sh, err := h.pos.Shift(r.Context(), id)
	if err != nil {
		return err
	}
	per := pos.Period{Start: sh.OpenedAt.UTC(), End: h.now().UTC()}
	if sh.ClosedAt != nil {
		per.End = sh.ClosedAt.UTC()
	}
	if per.End.Before(per.Start) {
		per.End = per.Start
	}
	if err := per.Check(); err != nil {
		return err
	}
	s, err := h.pos.Summary(r.Context(), sh.StoreID, per)
	if err != nil {
		return err
	}
	if httpapi.CallerOf(r).Store().ID != sh.StoreID {
		return pos.ErrShiftNotFound
	}
	return httpapi.JSON(w, http.StatusOK, newSummaryResponse(s, sh.ID))
}

// storeShift reads the shift id names, answering 404 for an id that is
// not a shift's or a shift of a store the caller neither owns nor staffs.
func (h *reportHandler) storeShift(r *http.Request, id string) (*pos.Shift, error) {
	id, ok := ids.Parse(id)
	if !ok {
		return nil, pos.ErrShiftNotFound
	}
	sh, err := h.pos.Shift(r.Context(), id)
	if err != nil {
		return nil, err
	}
	if !httpapi.StaffsStore(httpapi.CallerOf(r).User(), sh.StoreID) {
		return nil, pos.ErrShiftNotFound
	}
	return sh, nil
}

// shiftJSON is a cash-drawer shift.
type shiftJSON struct {
	ID                string  `json:"id"`
	StoreID           string  `json:"storeId"`
	Status            string  `json:"status" doc:"open or closed."`
	OpenedByUserID    string  `json:"openedByUserId"`
	OpenedAt          string  `json:"openedAt"`
	OpeningFloatCents int64   `json:"openingFloatCents"`
	SalesCount        int64   `json:"salesCount" doc:"The sales made while the shift was open, every payment method."`
	CashSalesCount    int64   `json:"cashSalesCount"`
	CashSalesCents    int64   `json:"cashSalesCents" doc:"Σ totalCents of the cash sales in the shift (a mixed sale's remainder is not counted as cash)."`
	ExpectedCashCents int64   `json:"expectedCashCents" doc:"openingFloatCents + cashSalesCents: what the drawer should hold (so far, while open)."`
	ClosedByUserID    *string `json:"closedByUserId"`
	ClosedAt          *string `json:"closedAt"`
	CountedCashCents  *int64  `json:"countedCashCents"`
	VarianceCents     *int64  `json:"varianceCents" doc:"countedCashCents − expectedCashCents once closed (negative: cash missing); null while open."`
	Note              *string `json:"note"`
	ClosingNote       *string `json:"closingNote"`
}

func newShiftJSON(s *pos.Shift) shiftJSON {
	out := shiftJSON{
		ID: s.ID, StoreID: s.StoreID, Status: string(s.Status), OpenedByUserID: s.OpenedByUserID, OpenedAt: userjson.Time(s.OpenedAt),
		OpeningFloatCents: s.OpeningFloatCents, SalesCount: s.SalesCount, CashSalesCount: s.CashSalesCount, CashSalesCents: s.CashSalesCents,
		ExpectedCashCents: s.ExpectedCashCents(), CountedCashCents: s.CountedCashCents, VarianceCents: s.VarianceCents(),
		Note: optText(s.Note), ClosingNote: optText(s.ClosingNote),
	}
	if s.ClosedAt != nil {
		out.ClosedByUserID = optText(s.ClosedByUserID)
		at := userjson.Time(*s.ClosedAt)
		out.ClosedAt = &at
	}
	return out
}

func optText(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// openShiftRequest is the body of POST /api/pos/shifts.
type openShiftRequest struct {
	StoreID           string          `json:"storeId"`
	OpeningFloatCents json.RawMessage `json:"openingFloatCents" openapi:"integer" doc:"The cash counted into the drawer, in cents: 0 to 100000000."`
	Note              string          `json:"note,omitempty" doc:"Optional, at most 500 characters."`
}

// closeShiftRequest is the body of POST /api/pos/shifts/{id}/close.
type closeShiftRequest struct {
	CountedCashCents json.RawMessage `json:"countedCashCents" openapi:"integer" doc:"The cash counted in the drawer at closing, in cents: 0 to 100000000."`
	Note             string          `json:"note,omitempty" doc:"Optional, at most 500 characters."`
}

// drawerCents reads a required amount of the drawer.
func drawerCents(f *apperr.Fields, raw json.RawMessage, field string) int64 {
	n, present, err := httpapi.IntField(raw, field, pos.DrawerCentsMessage)
	switch {
	case err != nil:
		f.Add(field, pos.DrawerCentsMessage)
	case !present || n == nil:
		f.Add(field, "is required")
	case *n < 0 || *n > pos.MaxDrawerCents:
		f.Add(field, pos.DrawerCentsMessage)
	default:
		return int64(*n)
	}
	return 0
}

// shiftNote cleans an optional note.
func shiftNote(f *apperr.Fields, note string) string {
	v, msg := text.Prose(note, pos.MaxShiftNote)
	f.Add("note", msg)
	return v
}

// openShift serves POST /api/pos/shifts: 201 with the shift.
func (h *reportHandler) openShift(w http.ResponseWriter, r *http.Request) error {
	var req openShiftRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	var f apperr.Fields
	float := drawerCents(&f, req.OpeningFloatCents, "openingFloatCents")
	note := shiftNote(&f, req.Note)
	if err := f.Err(); err != nil {
		return err
	}
	c := httpapi.CallerOf(r)
	sh := &pos.Shift{ID: ids.New(), StoreID: c.Store().ID, Status: pos.ShiftOpen, OpenedByUserID: c.ID, OpenedAt: h.now().UTC(),
		OpeningFloatCents: float, Note: note}
	if err := h.pos.OpenShift(r.Context(), sh); err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusCreated, newShiftJSON(sh))
}

// closeShift serves POST /api/pos/shifts/{id}/close.
func (h *reportHandler) closeShift(w http.ResponseWriter, r *http.Request) error {
	var req closeShiftRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	sh, err := h.storeShift(r, r.PathValue("id"))
	if err != nil {
		return err
	}
	var f apperr.Fields
	counted := drawerCents(&f, req.CountedCashCents, "countedCashCents")
	note := shiftNote(&f, req.Note)
	if err := f.Err(); err != nil {
		return err
	}
	closed, err := h.pos.CloseShift(r.Context(), sh, pos.Close{ByUserID: httpapi.CallerOf(r).ID, At: h.now(), CountedCashCents: counted, Note: note})
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, newShiftJSON(closed))
}

// shiftList answers GET /api/pos/shifts.
type shiftList struct {
	Shifts []shiftJSON `json:"shifts"`
	httpapi.More
}

// shifts serves GET /api/pos/shifts.
func (h *reportHandler) shifts(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	status := pos.ShiftStatus(q.Get("status"))
	if q.Has("status") && !status.Valid() {
		return apperr.Validation("status must be open or closed", map[string]string{"status": "must be open or closed"})
	}
	c, err := httpapi.CursorPage(r)
	if err != nil {
		return err
	}
	p, err := h.pos.Shifts(r.Context(), httpapi.CallerOf(r).Store().ID, status, c)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, shiftList{Shifts: page.Map(p, newShiftJSON).Items, More: httpapi.NewMore(r, p.Next)})
}
