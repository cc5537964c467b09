package reportsapi_test

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/reports"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// world is a paced environment with one book.
type world struct {
	*testenv.Paced
	book string
}

func newWorld(t *testing.T, opts ...testenv.Option) *world {
	t.Helper()
	p := testenv.NewPaced(t, opts...)
	p.Step = 7 * time.Second // spaced for create_line when limits are on
	rec := books.Record{ISBN: "9780198534532", Title: "The Hobbit", Authors: []string{"J. R. R. Tolkien"}, Language: "en"}
	return &world{Paced: p, book: p.ImportBooks(t, rec)[0]}
}

func (w *world) created(t *testing.T, method, path string, body any, token string) string {
	t.Helper()
	res := w.Req(method, path, body, token)
	require.Equal(t, http.StatusCreated, res.Status, res.String())
	return res.JSON["id"].(string)
}

const unknownID = "00000000-0000-4000-8000-000000000000"

func TestReports_Create(t *testing.T) {
	w := newWorld(t)
	author := w.Signup(t, "author")
	ann := w.Signup(t, "ann")
	bob := w.Signup(t, "bob")
	line := w.created(t, "POST", "/v1/lines", map[string]any{"bookId": w.book, "content": "Spoilers ahead."}, author.Token)
	reply := w.created(t, "POST", "/v1/lines/"+line+"/replies", map[string]any{"content": "Buy cheap pills."}, author.Token)
	review := w.created(t, "POST", "/v1/reviews", map[string]any{"bookId": w.book, "rating": 1, "content": "Rude words."}, author.Token)

	t.Run("a line", func(t *testing.T) {
		res := w.Req("POST", "/v1/reports", map[string]any{"targetType": "line", "targetId": line, "reason": "  Spoils the ending.  "}, ann.Token)
		require.Equal(t, http.StatusCreated, res.Status, res.String())
		r := res.JSON
		assert.Len(t, r["id"], 36)
		assert.Equal(t, "line", r["targetType"])
		assert.Equal(t, line, r["targetId"])
		assert.Nil(t, r["lineId"])
		assert.Equal(t, "Spoils the ending.", r["reason"])
		assert.Equal(t, "open", r["status"])
		assert.NotEmpty(t, r["createdAt"])
		stored := w.Item(t, dynamo.ReportKey(reports.Target{Type: reports.TargetLine, ID: line}, ann.ID))
		require.NotNil(t, stored, "stored for moderation in the line's report partition")
		assert.Equal(t, ann.ID, stored["reporterId"])
		assert.Equal(t, "Spoils the ending.", stored["reason"])
		assert.Equal(t, "REPORTQUEUE#open", stored["GSI1PK"])
	})
	t.Run("a second report of the same target is 409", func(t *testing.T) {
		res := w.Req("POST", "/v1/reports", map[string]any{"targetType": "line", "targetId": strings.ToUpper(line), "reason": "Again."}, ann.Token)
		testenv.AssertError(t, res, http.StatusConflict, "Conflict", "You have already reported this")
		stored := w.Item(t, dynamo.ReportKey(reports.Target{Type: reports.TargetLine, ID: line}, ann.ID))
		assert.Equal(t, "Spoils the ending.", stored["reason"], "the first report stands")
	})
	t.Run("another reader may report it too", func(t *testing.T) {
		w.created(t, "POST", "/v1/reports", map[string]any{"targetType": "line", "targetId": line, "reason": "Me too."}, bob.Token)
	})
	t.Run("a reply, through its line", func(t *testing.T) {
		res := w.Req("POST", "/v1/reports", map[string]any{"targetType": "reply", "targetId": reply, "lineId": line, "reason": "Spam."}, ann.Token)
		require.Equal(t, http.StatusCreated, res.Status, res.String())
		assert.Equal(t, line, res.JSON["lineId"])
		assert.NotNil(t, w.Item(t, dynamo.ReportKey(reports.Target{Type: reports.TargetReply, ID: reply, LineID: line}, ann.ID)))
	})
	t.Run("a review", func(t *testing.T) {
		w.created(t, "POST", "/v1/reports", map[string]any{"targetType": "review", "targetId": review, "reason": "Abusive."}, ann.Token)
	})
	host := w.Signup(t, "host")
	w.SetTier(t, host, "premium")
	club := w.created(t, "POST", "/v1/clubs", map[string]any{"name": "Reported club", "isPublic": true}, host.Token)
	t.Run("a club", func(t *testing.T) {
		w.created(t, "POST", "/v1/reports", map[string]any{"targetType": "club", "targetId": club, "reason": "Hate group."}, ann.Token)
	})

	for _, tc := range []struct {
		name    string
		body    map[string]any
		token   string
		status  int
		field   string
		message string
	}{
		{"an unknown type", map[string]any{"targetType": "user", "targetId": author.ID, "reason": "x"}, ann.Token, 400, "targetType", ""},
		{"no type", map[string]any{"targetId": line, "reason": "x"}, ann.Token, 400, "targetType", ""},
		{"no target id", map[string]any{"targetType": "line", "reason": "x"}, ann.Token, 400, "targetId", ""},
		{"a target id that is not a UUID", map[string]any{"targetType": "review", "targetId": "abc", "reason": "x"}, ann.Token, 400, "targetId", ""},
		{"a reply id of the wrong form", map[string]any{"targetType": "reply", "targetId": line, "lineId": line, "reason": "x"}, ann.Token, 400, "targetId", ""},
		{"a reply without its line", map[string]any{"targetType": "reply", "targetId": reply, "reason": "x"}, ann.Token, 400, "lineId", ""},
		{"no reason", map[string]any{"targetType": "line", "targetId": line}, bob.Token, 400, "reason", ""},
		{"a blank reason", map[string]any{"targetType": "review", "targetId": review, "reason": " \u200b "}, bob.Token, 400, "reason", ""},
		{"a reason over 1000 characters", map[string]any{"targetType": "review", "targetId": review, "reason": strings.Repeat("r", 1001)}, bob.Token, 400, "reason", ""},
		{"one's own line", map[string]any{"targetType": "line", "targetId": line, "reason": "x"}, author.Token, 400, "targetId", "You cannot report your own content"},
		{"one's own reply", map[string]any{"targetType": "reply", "targetId": reply, "lineId": line, "reason": "x"}, author.Token, 400, "targetId", "You cannot report your own content"},
		{"an unknown line", map[string]any{"targetType": "line", "targetId": unknownID, "reason": "x"}, bob.Token, 404, "", "Line not found"},
		{"an unknown review", map[string]any{"targetType": "review", "targetId": unknownID, "reason": "x"}, bob.Token, 404, "", "Review not found"},
		{"an unknown reply", map[string]any{"targetType": "reply", "targetId": "0123456789ab0123456789ab", "lineId": line, "reason": "x"}, bob.Token, 404, "", "Reply not found"},
		{"an unknown club", map[string]any{"targetType": "club", "targetId": unknownID, "reason": "x"}, bob.Token, 404, "", "Club not found"},
		{"one's own club", map[string]any{"targetType": "club", "targetId": club, "reason": "x"}, host.Token, 400, "targetId", "You cannot report your own content"},
		{"without a token", map[string]any{"targetType": "line", "targetId": line, "reason": "x"}, "", 401, "", ""},
	} {
		t.Run(tc.name+" is refused", func(t *testing.T) {
			res := w.Req("POST", "/v1/reports", tc.body, tc.token)
			require.Equal(t, tc.status, res.Status, res.String())
			if tc.field != "" {
				assert.Contains(t, testenv.FieldErrors(t, res), tc.field)
			}
			if tc.message != "" {
				assert.Equal(t, tc.message, testenv.ErrorOf(t, res)["message"])
			}
		})
	}
	t.Run("refusals stored nothing", func(t *testing.T) {
		assert.Nil(t, w.Item(t, dynamo.ReportKey(reports.Target{Type: reports.TargetLine, ID: line}, author.ID)))
		assert.Nil(t, w.Item(t, dynamo.ReportKey(reports.Target{Type: reports.TargetReview, ID: review}, bob.ID)))
	})
	t.Run("two reports of one target at once store one", func(t *testing.T) {
		carl := w.Signup(t, "carl")
		statuses := make([]int, 2)
		var wg sync.WaitGroup
		for i := range statuses {
			wg.Go(func() {
				statuses[i] = w.Do("POST", "/v1/reports", map[string]any{"targetType": "review", "targetId": review, "reason": "Twice."}, carl.Token).Status
			})
		}
		wg.Wait()
		assert.ElementsMatch(t, []int{http.StatusCreated, http.StatusConflict}, statuses)
	})
}

func TestReports_RateLimit(t *testing.T) {
	w := newWorld(t, testenv.WithRateLimits())
	ann, author := w.Signup(t, "ann"), w.Signup(t, "author")
	var lineIDs []string
	for i := range 12 {
		lineIDs = append(lineIDs, w.created(t, "POST", "/v1/lines", map[string]any{"bookId": w.book, "content": "line " + strconv.Itoa(i)}, author.Token))
	}
	// report allows 10 an hour.
	for i := range 10 {
		res := w.Req("POST", "/v1/reports", map[string]any{"targetType": "line", "targetId": lineIDs[i], "reason": "Spam."}, ann.Token)
		require.Equal(t, http.StatusCreated, res.Status, "report %d: %s", i, res)
	}
	res := w.Req("POST", "/v1/reports", map[string]any{"targetType": "line", "targetId": lineIDs[10], "reason": "Spam."}, ann.Token)
	testenv.AssertError(t, res, http.StatusTooManyRequests, "TooManyRequests", "")
	assert.Equal(t, "report", testenv.ErrorOf(t, res)["details"].(map[string]any)["action"])
	w.Clock.Advance(time.Hour)
	w.created(t, "POST", "/v1/reports", map[string]any{"targetType": "line", "targetId": lineIDs[11], "reason": "Spam."}, ann.Token)
}

// A private club and its lines are hidden from outsiders everywhere else
// (403): a report of them must not confirm that they exist, so it is the
// 404 of an unknown id and stores nothing; a member reports them as any
// other target.
func TestReports_HiddenTargetsAreMissing(t *testing.T) {
	w := newWorld(t)
	host, member, outsider := w.Signup(t, "host"), w.Signup(t, "member"), w.Signup(t, "outsider")
	w.SetTier(t, host, "premium")
	club := w.created(t, "POST", "/v1/clubs", map[string]any{"name": "Closed circle", "isPublic": false}, host.Token)
	require.Equal(t, http.StatusCreated, w.Req("POST", "/v1/clubs/"+club+"/members", map[string]any{"userId": member.ID}, host.Token).Status)
	line := w.created(t, "POST", "/v1/lines", map[string]any{"bookId": w.book, "content": "Members only.", "clubId": club}, host.Token)
	reply := w.created(t, "POST", "/v1/lines/"+line+"/replies", map[string]any{"content": "Quiet here."}, host.Token)
	require.Equal(t, http.StatusForbidden, w.Req("GET", "/v1/lines/"+line, nil, outsider.Token).Status, "the line is hidden from the outsider")

	hidden := []struct {
		target  reports.Target
		body    map[string]any
		message string
	}{
		{reports.Target{Type: reports.TargetLine, ID: line}, map[string]any{"targetType": "line", "targetId": line}, "Line not found"},
		{reports.Target{Type: reports.TargetReply, ID: reply, LineID: line}, map[string]any{"targetType": "reply", "targetId": reply, "lineId": line}, "Reply not found"},
		{reports.Target{Type: reports.TargetClub, ID: club}, map[string]any{"targetType": "club", "targetId": club}, "Club not found"},
	}
	for _, h := range hidden {
		t.Run("an outsider's report of the "+string(h.target.Type)+" is 404 and stores nothing", func(t *testing.T) {
			h.body["reason"] = "Probing."
			res := w.Req("POST", "/v1/reports", h.body, outsider.Token)
			testenv.AssertError(t, res, http.StatusNotFound, "NotFound", h.message)
			assert.Nil(t, w.Item(t, dynamo.ReportKey(h.target, outsider.ID)))
		})
	}
	t.Run("the same answer as an unknown id", func(t *testing.T) {
		res := w.Req("POST", "/v1/reports", map[string]any{"targetType": "line", "targetId": unknownID, "reason": "Probing."}, outsider.Token)
		testenv.AssertError(t, res, http.StatusNotFound, "NotFound", "Line not found")
	})
	for _, h := range hidden {
		t.Run("a member reports the "+string(h.target.Type), func(t *testing.T) {
			h.body["reason"] = "Off topic."
			w.created(t, "POST", "/v1/reports", h.body, member.Token)
			assert.NotNil(t, w.Item(t, dynamo.ReportKey(h.target, member.ID)))
		})
	}
	t.Run("the host's own line in their private club is still their own", func(t *testing.T) {
		res := w.Req("POST", "/v1/reports", map[string]any{"targetType": "line", "targetId": line, "reason": "Mine."}, host.Token)
		require.Equal(t, http.StatusBadRequest, res.Status, res.String())
	})
}
