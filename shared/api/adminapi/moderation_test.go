package adminapi_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/books"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// modWorld is a paced environment with one book, an author with a line,
// a reply, a review and a club, two readers who report them and an
// operator.
type modWorld struct {
	*testenv.Paced
	book                 string
	author, ann, bob, op testenv.Account
	line, reply, review  string
}

func newModWorld(t *testing.T) *modWorld {
	t.Helper()
	p := testenv.NewPaced(t)
	p.Step = 7 * time.Second
	rec := books.Record{ISBN: "9780198534532", Title: "The Hobbit", Authors: []string{"J. R. R. Tolkien"}, Language: "en"}
	w := &modWorld{Paced: p, book: p.ImportBooks(t, rec)[0]}
	w.author, w.ann, w.bob, w.op = w.Signup(t, "author"), w.Signup(t, "ann"), w.Signup(t, "bob"), w.Signup(t, "operator")
	w.MakeOperator(t, w.op)
	w.line = w.created(t, "POST", "/v1/lines", map[string]any{"bookId": w.book, "content": "Spoilers ahead."}, w.author.Token)
	w.reply = w.created(t, "POST", "/v1/lines/"+w.line+"/replies", map[string]any{"content": "Buy cheap pills."}, w.author.Token)
	w.review = w.created(t, "POST", "/v1/reviews", map[string]any{"bookId": w.book, "rating": 1, "content": "Rude words."}, w.author.Token)
	return w
}

func (w *modWorld) created(t *testing.T, method, path string, body any, token string) string {
	t.Helper()
	res := w.Req(method, path, body, token)
	require.Equal(t, http.StatusCreated, res.Status, res.String())
	return res.JSON["id"].(string)
}

func (w *modWorld) report(t *testing.T, by testenv.Account, body map[string]any) string {
	t.Helper()
	return w.created(t, "POST", "/v1/reports", body, by.Token)
}

const unknownID = "00000000-0000-4000-8000-000000000000"

// auditOn reads the audit entries about one target straight from the
// table (GSI2), as the audit log's route reads them.
func auditOn(t *testing.T, w *modWorld, targetType, id string) []map[string]types.AttributeValue {
	t.Helper()
	out, err := w.App.Table.DB.Query(context.Background(), &dynamodb.QueryInput{
		TableName: aws.String(w.App.Table.Table), IndexName: aws.String("GSI2"),
		KeyConditionExpression:    aws.String("GSI2PK = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: "AUDITON#" + targetType + "#" + id}},
	})
	require.NoError(t, err)
	return out.Items
}

func str(av types.AttributeValue) string {
	if s, ok := av.(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}

func ids(res *testenv.Response) []string {
	var out []string
	for _, it := range res.JSON["items"].([]any) {
		out = append(out, it.(map[string]any)["id"].(string))
	}
	return out
}

func TestModeration_Queue(t *testing.T) {
	w := newModWorld(t)
	rLine := w.report(t, w.ann, map[string]any{"targetType": "line", "targetId": w.line, "reason": "Spoils the ending."})
	rReply := w.report(t, w.ann, map[string]any{"targetType": "reply", "targetId": w.reply, "lineId": w.line, "reason": "Spam."})
	rReview := w.report(t, w.bob, map[string]any{"targetType": "review", "targetId": w.review, "reason": "Rude."})

	t.Run("open reports, newest first, with their targets", func(t *testing.T) {
		res := w.Req("GET", "/v1/admin/reports", nil, w.op.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, []string{rReview, rReply, rLine}, ids(res))
		items := res.JSON["items"].([]any)
		review := items[0].(map[string]any)
		assert.Equal(t, "open", review["status"])
		assert.Equal(t, w.bob.ID, review["reporterId"])
		assert.Equal(t, "Rude.", review["reason"])
		assert.Nil(t, review["resolution"])
		assert.Equal(t, map[string]any{"type": "review", "id": w.review, "lineId": nil, "bookId": w.book,
			"authorId": w.author.ID, "excerpt": "Rude words.", "exists": true, "takenDown": false}, review["target"])
		reply := items[1].(map[string]any)["target"].(map[string]any)
		assert.Equal(t, w.line, reply["lineId"])
		assert.Equal(t, "Buy cheap pills.", reply["excerpt"])
		assert.Nil(t, reply["bookId"])
	})

	t.Run("paged", func(t *testing.T) {
		pages := w.ReadPages(t, "/v1/admin/reports?limit=2", w.op.Token)
		require.Len(t, pages, 2)
		assert.Equal(t, []string{rReview, rReply}, ids(pages[0]))
		assert.Equal(t, []string{rLine}, ids(pages[1]))
	})

	t.Run("one report", func(t *testing.T) {
		res := w.Req("GET", "/v1/admin/reports/"+rLine, nil, w.op.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, rLine, res.JSON["id"])
		assert.Equal(t, "Spoilers ahead.", res.JSON["target"].(map[string]any)["excerpt"])
		assert.Equal(t, http.StatusNotFound, w.Req("GET", "/v1/admin/reports/"+unknownID, nil, w.op.Token).Status)
		assert.Equal(t, http.StatusNotFound, w.Req("GET", "/v1/admin/reports/not-a-uuid", nil, w.op.Token).Status)
	})

	t.Run("dismiss", func(t *testing.T) {
		res := w.Req("POST", "/v1/admin/reports/"+rReply+"/resolve", map[string]any{"action": "dismiss", "reason": " Not spam. "}, w.op.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, "resolved", res.JSON["status"])
		resolution := res.JSON["resolution"].(map[string]any)
		assert.Equal(t, "dismiss", resolution["action"])
		assert.Equal(t, "Not spam.", resolution["reason"])
		assert.Equal(t, w.op.ID, resolution["resolvedBy"])
		assert.NotEmpty(t, resolution["resolvedAt"])

		// It left the open queue for the resolved one, and reads resolved.
		assert.Equal(t, []string{rReview, rLine}, ids(w.Req("GET", "/v1/admin/reports", nil, w.op.Token)))
		assert.Equal(t, []string{rReply}, ids(w.Req("GET", "/v1/admin/reports?status=resolved", nil, w.op.Token)))
		got := w.Req("GET", "/v1/admin/reports/"+rReply, nil, w.op.Token)
		assert.Equal(t, res.JSON, got.JSON)
		// The content stays.
		assert.Equal(t, http.StatusOK, w.Req("GET", "/v1/lines/"+w.line+"/replies", nil, w.ann.Token).Status)

		// Its audit entry, written with it.
		entries := auditOn(t, w, "report", rReply)
		require.Len(t, entries, 1)
		e := entries[0]
		assert.Equal(t, "report.dismiss", str(e["action"]))
		assert.Equal(t, w.op.ID, str(e["actorId"]))
		assert.Equal(t, "Not spam.", str(e["reason"]))
		assert.Nil(t, e["apart"], "the entry rode the resolution's transaction")

		t.Run("twice is 409", func(t *testing.T) {
			res := w.Req("POST", "/v1/admin/reports/"+rReply+"/resolve", map[string]any{"action": "dismiss", "reason": "Again."}, w.op.Token)
			assert.Equal(t, http.StatusConflict, res.Status, res.String())
			assert.Len(t, auditOn(t, w, "report", rReply), 1, "no entry for a refused action")
		})
	})

	t.Run("errors", func(t *testing.T) {
		for name, body := range map[string]map[string]any{
			"unknown action": {"action": "ban", "reason": "x"},
			"no action":      {"reason": "x"},
			"no reason":      {"action": "dismiss"},
			"blank reason":   {"action": "dismiss", "reason": "   "},
		} {
			res := w.Req("POST", "/v1/admin/reports/"+rLine+"/resolve", body, w.op.Token)
			assert.Equal(t, http.StatusBadRequest, res.Status, name+": "+res.String())
		}
		res := w.Req("POST", "/v1/admin/reports/"+unknownID+"/resolve", map[string]any{"action": "dismiss", "reason": "x"}, w.op.Token)
		assert.Equal(t, http.StatusNotFound, res.Status, res.String())
		assert.Equal(t, http.StatusBadRequest, w.Req("GET", "/v1/admin/reports?status=closed", nil, w.op.Token).Status)
		assert.Empty(t, auditOn(t, w, "report", rLine))
	})

	t.Run("a deleted target", func(t *testing.T) {
		require.Equal(t, http.StatusOK, w.Req("DELETE", "/v1/reviews/"+w.review, nil, w.author.Token).Status)
		res := w.Req("GET", "/v1/admin/reports/"+rReview, nil, w.op.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, map[string]any{"type": "review", "id": w.review, "lineId": nil, "bookId": nil,
			"authorId": nil, "excerpt": nil, "exists": false, "takenDown": false}, res.JSON["target"])
	})
}

// TestModeration_Roles: the queue is the operators' alone: a store
// owner, a reader and no token are refused before the handler.
func TestModeration_Roles(t *testing.T) {
	w := newModWorld(t)
	rLine := w.report(t, w.ann, map[string]any{"targetType": "line", "targetId": w.line, "reason": "Spoils the ending."})
	owner := w.OpenShop(t, "the-corner", nil).Owner
	routes := []struct {
		method, path string
		body         any
	}{
		{"GET", "/v1/admin/reports", nil},
		{"GET", "/v1/admin/reports/" + rLine, nil},
		{"POST", "/v1/admin/reports/" + rLine + "/resolve", map[string]any{"action": "dismiss", "reason": "x"}},
	}
	for _, rt := range routes {
		for who, token := range map[string]string{"store owner": owner.Token, "reader": w.ann.Token, "author": w.author.Token} {
			assert.Equal(t, http.StatusForbidden, w.Req(rt.method, rt.path, rt.body, token).Status, rt.method+" "+rt.path+" as "+who)
		}
		assert.Equal(t, http.StatusUnauthorized, w.Req(rt.method, rt.path, rt.body, "").Status, rt.method+" "+rt.path+" without a token")
		ok := http.StatusOK
		assert.Equal(t, ok, w.Req(rt.method, rt.path, rt.body, w.op.Token).Status, rt.method+" "+rt.path+" as operator")
	}
}
