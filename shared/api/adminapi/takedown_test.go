package adminapi_test

import (
	"net/http"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/reports"
	"github.com/bookplatform/backend/shared/users"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// takeDown resolves report id by taking its content down and returns the
// answer.
func (w *modWorld) takeDown(t *testing.T, id, reason string) map[string]any {
	t.Helper()
	res := w.Req("POST", "/v1/admin/reports/"+id+"/resolve", map[string]any{"action": "takedown", "reason": reason}, w.op.Token)
	require.Equal(t, http.StatusOK, res.Status, res.String())
	return res.JSON
}

// book reads the book's counters as everyone sees them.
func (w *modWorld) bookCounters(t *testing.T) map[string]any {
	t.Helper()
	res := w.Req("GET", "/v1/books/"+w.book, nil, "")
	require.Equal(t, http.StatusOK, res.Status, res.String())
	return map[string]any{"totalLines": res.JSON["totalLines"], "totalReviews": res.JSON["totalReviews"], "averageRating": res.JSON["averageRating"]}
}

// listed is the ids of a list answer's items (under key).
func listed(t *testing.T, w *modWorld, path, key, token string) []string {
	t.Helper()
	res := w.Req("GET", path, nil, token)
	require.Equal(t, http.StatusOK, res.Status, res.String())
	out := []string{}
	for _, it := range res.JSON[key].([]any) {
		out = append(out, it.(map[string]any)["id"].(string))
	}
	return out
}

// assertTakenDownEntry checks the one audit entry of a takedown: by the
// operator, with the reason, written in the takedown's transaction.
func assertTakenDownEntry(t *testing.T, w *modWorld, reportID, reason string) map[string]types.AttributeValue {
	t.Helper()
	entries := auditOn(t, w, "report", reportID)
	require.Len(t, entries, 1)
	assert.Equal(t, "report.takedown", str(entries[0]["action"]))
	assert.Equal(t, w.op.ID, str(entries[0]["actorId"]))
	assert.Equal(t, reason, str(entries[0]["reason"]))
	assert.Nil(t, entries[0]["apart"], "the entry rode the takedown's transaction")
	detail, _ := entries[0]["detail"].(*types.AttributeValueMemberM)
	require.NotNil(t, detail, "the entry names what was taken down")
	assert.NotEmpty(t, str(detail.Value["targetType"]))
	assert.NotEmpty(t, str(detail.Value["targetId"]))
	return detail.Value
}

// TestTakedown_Line: a line taken down leaves its book's list and count
// and its author's list, answers 404 to everyone but its author (who
// reads it with the reason), takes its likes and replies with it, and
// resolves every open report of it.
func TestTakedown_Line(t *testing.T) {
	w := newModWorld(t)
	require.Equal(t, http.StatusOK, w.Req("POST", "/v1/lines/"+w.line+"/like", nil, w.ann.Token).Status)
	rAnn := w.report(t, w.ann, map[string]any{"targetType": "line", "targetId": w.line, "reason": "Spoils the ending."})
	rBob := w.report(t, w.bob, map[string]any{"targetType": "line", "targetId": w.line, "reason": "Spoilers."})
	rOther := w.report(t, w.bob, map[string]any{"targetType": "review", "targetId": w.review, "reason": "Rude."})
	require.Equal(t, []string{w.line}, listed(t, w, "/v1/books/"+w.book+"/lines", "items", ""))
	require.EqualValues(t, 1, w.bookCounters(t)["totalLines"])

	got := w.takeDown(t, rAnn, "Spoilers without warning.")
	assert.Equal(t, "resolved", got["status"])
	assert.Equal(t, "takedown", got["resolution"].(map[string]any)["action"])
	assert.Equal(t, map[string]any{"type": "line", "id": w.line, "lineId": nil, "bookId": w.book, "authorId": w.author.ID,
		"excerpt": "Spoilers ahead.", "exists": false, "takenDown": true}, got["target"], "the answer summarizes what was taken down")

	t.Run("gone from every list and counter", func(t *testing.T) {
		assert.EqualValues(t, 0, w.bookCounters(t)["totalLines"])
		assert.Empty(t, listed(t, w, "/v1/books/"+w.book+"/lines", "items", w.ann.Token))
		assert.Empty(t, listed(t, w, "/v1/users/author/lines", "items", w.author.Token))
	})

	t.Run("404 to everyone but its author", func(t *testing.T) {
		for who, token := range map[string]string{"reader": w.ann.Token, "operator": w.op.Token} {
			assert.Equal(t, http.StatusNotFound, w.Req("GET", "/v1/lines/"+w.line, nil, token).Status, who)
		}
		assert.Equal(t, http.StatusNotFound, w.Req("POST", "/v1/lines/"+w.line+"/like", nil, w.bob.Token).Status)
		assert.Equal(t, http.StatusNotFound, w.Req("POST", "/v1/lines/"+w.line+"/replies", map[string]any{"content": "Hm."}, w.bob.Token).Status)
		assert.Equal(t, http.StatusNotFound, w.Req("GET", "/v1/lines/"+w.line+"/replies", nil, w.bob.Token).Status)

		res := w.Req("GET", "/v1/lines/"+w.line, nil, w.author.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, "Spoilers ahead.", res.JSON["content"])
		td := res.JSON["takenDown"].(map[string]any)
		assert.Equal(t, "Spoilers without warning.", td["reason"])
		assert.NotEmpty(t, td["at"])
		assert.Equal(t, false, res.JSON["isLiked"])
		// The author cannot edit or delete what is no longer there.
		assert.Equal(t, http.StatusNotFound, w.Req("PUT", "/v1/lines/"+w.line, map[string]any{"content": "Edited."}, w.author.Token).Status)
		assert.Equal(t, http.StatusNotFound, w.Req("DELETE", "/v1/lines/"+w.line, nil, w.author.Token).Status)
	})

	t.Run("listed for its author alone", func(t *testing.T) {
		res := w.Req("GET", "/v1/users/me/taken-down", nil, w.author.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		items := res.JSON["items"].([]any)
		require.Len(t, items, 1)
		it := items[0].(map[string]any)
		at := it["takenDownAt"]
		assert.NotEmpty(t, at)
		assert.Equal(t, map[string]any{"type": "line", "id": w.line, "lineId": nil, "bookId": w.book,
			"content": "Spoilers ahead.", "reason": "Spoilers without warning.", "takenDownAt": at}, it)
		assert.Empty(t, listed(t, w, "/v1/users/me/taken-down", "items", w.ann.Token))
	})

	t.Run("its likes and replies went with it", func(t *testing.T) {
		assert.Nil(t, w.Item(t, dynamo.ReplyKey(w.line, w.reply)))
		assert.Nil(t, w.Item(t, dynamo.LikeKey(dynamo.LineKey(w.line), w.ann.ID)))
	})

	t.Run("every open report of it resolved, others left open", func(t *testing.T) {
		bob := w.Req("GET", "/v1/admin/reports/"+rBob, nil, w.op.Token)
		require.Equal(t, http.StatusOK, bob.Status)
		assert.Equal(t, "resolved", bob.JSON["status"])
		assert.Equal(t, "takedown", bob.JSON["resolution"].(map[string]any)["action"])
		assert.Equal(t, []string{rOther}, ids(w.Req("GET", "/v1/admin/reports", nil, w.op.Token)))
		assert.Equal(t, false, bob.JSON["target"].(map[string]any)["exists"])
		assert.Equal(t, true, bob.JSON["target"].(map[string]any)["takenDown"])
		assert.Equal(t, "Spoilers ahead.", bob.JSON["target"].(map[string]any)["excerpt"], "the queue shows the kept copy")
	})

	t.Run("audited once; a second resolution is 409", func(t *testing.T) {
		detail := assertTakenDownEntry(t, w, rAnn, "Spoilers without warning.")
		assert.Equal(t, "line", str(detail["targetType"]))
		assert.Equal(t, w.line, str(detail["targetId"]))
		assert.Empty(t, auditOn(t, w, "report", rBob), "the other report was resolved by the same entry's action")
		res := w.Req("POST", "/v1/admin/reports/"+rBob+"/resolve", map[string]any{"action": "takedown", "reason": "Again."}, w.op.Token)
		assert.Equal(t, http.StatusConflict, res.Status, res.String())
	})

	t.Run("no new report of it", func(t *testing.T) {
		res := w.Req("POST", "/v1/reports", map[string]any{"targetType": "line", "targetId": w.line, "reason": "Late."}, w.op.Token)
		assert.Equal(t, http.StatusNotFound, res.Status, res.String())
	})
}

// TestTakedown_Review: a review taken down leaves the book's statistics
// (count, average, distribution) and both lists, and stays its author's.
func TestTakedown_Review(t *testing.T) {
	w := newModWorld(t)
	five := w.created(t, "POST", "/v1/reviews", map[string]any{"bookId": w.book, "rating": 5, "content": "Lovely."}, w.ann.Token)
	rReview := w.report(t, w.bob, map[string]any{"targetType": "review", "targetId": w.review, "reason": "Rude."})
	require.Equal(t, map[string]any{"totalLines": 1.0, "totalReviews": 2.0, "averageRating": 3.0}, w.bookCounters(t))

	w.takeDown(t, rReview, "Abusive language.")

	assert.Equal(t, map[string]any{"totalLines": 1.0, "totalReviews": 1.0, "averageRating": 5.0}, w.bookCounters(t))
	page := w.Req("GET", "/v1/books/"+w.book+"/reviews", nil, "")
	require.Equal(t, http.StatusOK, page.Status)
	assert.EqualValues(t, 1, page.JSON["totalReviews"])
	assert.Equal(t, map[string]any{"1": 0.0, "2": 0.0, "3": 0.0, "4": 0.0, "5": 1.0}, page.JSON["ratingDistribution"])
	assert.Equal(t, []string{five}, listed(t, w, "/v1/books/"+w.book+"/reviews?sort=rating", "items", ""))
	assert.Empty(t, listed(t, w, "/v1/users/author/reviews", "items", ""))

	assert.Equal(t, http.StatusNotFound, w.Req("GET", "/v1/reviews/"+w.review, nil, w.bob.Token).Status)
	assert.Equal(t, http.StatusNotFound, w.Req("POST", "/v1/reviews/"+w.review+"/like", nil, w.bob.Token).Status)
	res := w.Req("GET", "/v1/reviews/"+w.review, nil, w.author.Token)
	require.Equal(t, http.StatusOK, res.Status, res.String())
	assert.Equal(t, "Rude words.", res.JSON["content"])
	assert.Equal(t, "Abusive language.", res.JSON["takenDown"].(map[string]any)["reason"])
	assertTakenDownEntry(t, w, rReview, "Abusive language.")
	// A review read by someone else carries no takenDown field at all.
	other := w.Req("GET", "/v1/reviews/"+five, nil, w.author.Token)
	require.Equal(t, http.StatusOK, other.Status)
	assert.NotContains(t, other.JSON, "takenDown")
}

// TestTakedown_Reply: a reply taken down leaves its line's list and
// replyCount.
func TestTakedown_Reply(t *testing.T) {
	w := newModWorld(t)
	kept := w.created(t, "POST", "/v1/lines/"+w.line+"/replies", map[string]any{"content": "Agreed."}, w.ann.Token)
	rReply := w.report(t, w.ann, map[string]any{"targetType": "reply", "targetId": w.reply, "lineId": w.line, "reason": "Spam."})

	w.takeDown(t, rReply, "Spam link.")

	assert.Equal(t, []string{kept}, listed(t, w, "/v1/lines/"+w.line+"/replies", "items", w.author.Token))
	line := w.Req("GET", "/v1/lines/"+w.line, nil, w.ann.Token)
	require.Equal(t, http.StatusOK, line.Status)
	assert.EqualValues(t, 1, line.JSON["replyCount"])
	assert.Equal(t, http.StatusNotFound, w.Req("DELETE", "/v1/lines/"+w.line+"/replies/"+w.reply, nil, w.author.Token).Status)
	kept2 := w.Item(t, dynamo.TakedownKey(reports.Target{Type: reports.TargetReply, ID: w.reply, LineID: w.line}))
	require.NotNil(t, kept2, "the reply is kept for its author")
	assert.Equal(t, "Spam link.", kept2["reason"])
	assertTakenDownEntry(t, w, rReply, "Spam link.")

	// A reply has no route of its own: its author finds it in their list.
	rReview := w.report(t, w.ann, map[string]any{"targetType": "review", "targetId": w.review, "reason": "Rude."})
	w.takeDown(t, rReview, "Abusive language.")
	pages := w.ReadPages(t, "/v1/users/me/taken-down?limit=1", w.author.Token)
	require.Len(t, pages, 2)
	assert.Equal(t, []string{w.review}, ids(pages[0]), "most recent first")
	assert.Equal(t, []string{w.reply}, ids(pages[1]))
	reply := pages[1].JSON["items"].([]any)[0].(map[string]any)
	assert.Equal(t, w.line, reply["lineId"])
	assert.Equal(t, "Buy cheap pills.", reply["content"])
	assert.Equal(t, "reply", reply["type"])
}

// TestTakedown_Club: a club taken down leaves the directory and its
// count, its members' lists, and answers 404 to everyone but its host.
func TestTakedown_Club(t *testing.T) {
	w := newModWorld(t)
	w.SetTier(t, w.author, users.TierPremium)
	club := w.created(t, "POST", "/v1/clubs", map[string]any{"name": "Shady deals", "isPublic": true}, w.author.Token)
	require.Equal(t, http.StatusCreated, w.Req("POST", "/v1/clubs/"+club+"/join", nil, w.ann.Token).Status)
	before := w.Req("GET", "/v1/clubs", nil, "")
	require.Equal(t, http.StatusOK, before.Status)
	rClub := w.report(t, w.bob, map[string]any{"targetType": "club", "targetId": club, "reason": "Scam."})

	w.takeDown(t, rClub, "A scam.")

	after := w.Req("GET", "/v1/clubs", nil, "")
	require.Equal(t, http.StatusOK, after.Status)
	assert.Equal(t, before.JSON["total"].(float64)-1, after.JSON["total"])
	assert.NotContains(t, listed(t, w, "/v1/clubs", "clubs", ""), club)
	assert.Empty(t, listed(t, w, "/v1/clubs/me/joined", "clubs", w.ann.Token))
	for who, token := range map[string]string{"member": w.ann.Token, "reader": w.bob.Token, "no token": ""} {
		assert.Equal(t, http.StatusNotFound, w.Req("GET", "/v1/clubs/"+club, nil, token).Status, who)
	}
	assert.Equal(t, http.StatusNotFound, w.Req("POST", "/v1/clubs/"+club+"/join", nil, w.bob.Token).Status)
	res := w.Req("GET", "/v1/clubs/"+club, nil, w.author.Token)
	require.Equal(t, http.StatusOK, res.Status, res.String())
	assert.Equal(t, "Shady deals", res.JSON["name"])
	assert.Equal(t, "A scam.", res.JSON["takenDown"].(map[string]any)["reason"])
	assertTakenDownEntry(t, w, rClub, "A scam.")
}

// TestTakedown_TargetGone: a takedown of content its author deleted
// since is 409 and changes nothing: the report stays open to be
// dismissed, and no audit entry is written.
func TestTakedown_TargetGone(t *testing.T) {
	w := newModWorld(t)
	rLine := w.report(t, w.ann, map[string]any{"targetType": "line", "targetId": w.line, "reason": "Spoils the ending."})
	require.Equal(t, http.StatusOK, w.Req("DELETE", "/v1/lines/"+w.line, nil, w.author.Token).Status)

	res := w.Req("POST", "/v1/admin/reports/"+rLine+"/resolve", map[string]any{"action": "takedown", "reason": "Spoilers."}, w.op.Token)
	assert.Equal(t, http.StatusConflict, res.Status, res.String())
	assert.Equal(t, "open", w.Req("GET", "/v1/admin/reports/"+rLine, nil, w.op.Token).JSON["status"])
	assert.Empty(t, auditOn(t, w, "report", rLine))
	assert.Nil(t, w.Item(t, dynamo.TakedownKey(reports.Target{Type: reports.TargetLine, ID: w.line})))
	// The author's own line is simply gone, for them too.
	assert.Equal(t, http.StatusNotFound, w.Req("GET", "/v1/lines/"+w.line, nil, w.author.Token).Status)
}

// TestTakedown_Concurrent: two operators taking the same line down
// through two reports at once: one takedown, one copy, both reports
// resolved as taken down; the other operator is answered 200 or 409
// "resolved already", never "no longer exists".
func TestTakedown_Concurrent(t *testing.T) {
	w := newModWorld(t)
	op2 := w.Signup(t, "operator2")
	w.MakeOperator(t, op2)
	rAnn := w.report(t, w.ann, map[string]any{"targetType": "line", "targetId": w.line, "reason": "Spoils the ending."})
	rBob := w.report(t, w.bob, map[string]any{"targetType": "line", "targetId": w.line, "reason": "Spoilers."})

	answers := make([]*testenv.Response, 2)
	var wg sync.WaitGroup
	for i, c := range []struct{ report, token string }{{rAnn, w.op.Token}, {rBob, op2.Token}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = w.Do("POST", "/v1/admin/reports/"+c.report+"/resolve", map[string]any{"action": "takedown", "reason": "Spoilers."}, c.token)
		}()
	}
	wg.Wait()
	ok := 0
	for _, res := range answers {
		switch res.Status {
		case http.StatusOK:
			ok++
		case http.StatusConflict:
			testenv.AssertError(t, res, http.StatusConflict, "Conflict", "This report is resolved already")
		default:
			t.Errorf("unexpected answer %s", res)
		}
	}
	assert.GreaterOrEqual(t, ok, 1)
	for _, id := range []string{rAnn, rBob} {
		res := w.Req("GET", "/v1/admin/reports/"+id, nil, w.op.Token)
		require.Equal(t, http.StatusOK, res.Status)
		assert.Equal(t, "takedown", res.JSON["resolution"].(map[string]any)["action"], id)
	}
	assert.EqualValues(t, 0, w.bookCounters(t)["totalLines"], "removed once")
}

// TestTakedown_FinishesWhatWasLeft: a report left open on content taken
// down (its cleanup cut short) is resolved as taken down when an
// operator takes it down, with its own audit entry naming the first
// takedown; dismissing it stays possible too.
func TestTakedown_FinishesWhatWasLeft(t *testing.T) {
	w := newModWorld(t)
	rAnn := w.report(t, w.ann, map[string]any{"targetType": "line", "targetId": w.line, "reason": "Spoils the ending."})
	rBob := w.report(t, w.bob, map[string]any{"targetType": "line", "targetId": w.line, "reason": "Spoilers."})
	w.takeDown(t, rAnn, "Spoilers without warning.")
	// Bob's report as a cut-short cleanup leaves it: still open.
	k := dynamo.ReportKey(reports.Target{Type: reports.TargetLine, ID: w.line}, w.bob.ID)
	item := w.Item(t, k)
	require.NotNil(t, item)
	item["status"], item["GSI1PK"] = "open", "REPORTQUEUE#open"
	for _, a := range []string{"resolution", "resolveReason", "resolvedAt", "resolvedBy"} {
		delete(item, a)
	}
	w.PutItem(t, item)

	got := w.takeDown(t, rBob, "Same spoilers.")
	assert.Equal(t, "takedown", got["resolution"].(map[string]any)["action"])
	assert.Equal(t, true, got["target"].(map[string]any)["takenDown"])
	detail := assertTakenDownEntry(t, w, rBob, "Same spoilers.")
	assert.Equal(t, rAnn, str(detail["takenDownBefore"]))
	assert.EqualValues(t, 0, w.bookCounters(t)["totalLines"], "nothing removed twice")
	assert.Empty(t, ids(w.Req("GET", "/v1/admin/reports", nil, w.op.Token)))
}
