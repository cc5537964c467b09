package usersapi_test

// Bookstore applications end to end through the real router: the
// applicant's routes (this group) and the operators' queue (the admin
// group, /v1/admin/bookstore-applications). They live here, beside the
// users group's TestMain, as one journey: apply, be decided, open a store.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/applications"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/users"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	myApplication = "/v1/users/me/bookstore-application"
	queue         = "/v1/admin/bookstore-applications"
)

// application is a valid application body for a store named name.
func application(name string) map[string]any {
	return map[string]any{
		"storeName": name,
		"address": map[string]any{"addressLine1": "1005 W Burnside St", "city": "Portland", "state": "or",
			"postalCode": "97209", "country": "us"},
		"website": "corner-books.example.com",
		"note":    "Used and new books since 1998.\nTwo floors.",
	}
}

func apply(t *testing.T, env *testenv.Env, a testenv.Account, name string) string {
	t.Helper()
	res := env.Do("POST", myApplication, application(name), a.Token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
	return res.JSON["id"].(string)
}

func operator(t *testing.T, env *testenv.Env, name string) testenv.Account {
	t.Helper()
	op := env.Signup(t, name)
	env.MakeOperator(t, op)
	return op
}

// auditOf reads the audit entries about an application (GSI2).
func auditOf(t *testing.T, env *testenv.Env, id string) []map[string]types.AttributeValue {
	t.Helper()
	out, err := env.App.DB.Query(context.Background(), &dynamodb.QueryInput{
		TableName: aws.String(env.Config.TableName), IndexName: aws.String(dynamo.GSI2.Name),
		KeyConditionExpression:    aws.String("#pk = :pk"),
		ExpressionAttributeNames:  map[string]string{"#pk": dynamo.AttrGSI2PK},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: "AUDITON#bookstore_application#" + id}},
	})
	require.NoError(t, err)
	return out.Items
}

func str(v types.AttributeValue) string {
	if s, ok := v.(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}

// A reader applies once: the answer and the latest read show the
// normalized application; a second one while it is pending is 409.
func TestApplications_Apply(t *testing.T) {
	env := testenv.New(t)
	reader := env.Signup(t, "app_reader")

	testenv.AssertError(t, env.Do("GET", myApplication, nil, reader.Token), http.StatusNotFound, "NotFound", "The account has no bookstore application")

	res := env.Do("POST", myApplication, application("  Corner Books  "), reader.Token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
	assert.Equal(t, "pending", res.JSON["status"])
	assert.Equal(t, "Corner Books", res.JSON["storeName"])
	assert.Equal(t, map[string]any{"addressLine1": "1005 W Burnside St", "addressLine2": nil, "city": "Portland", "state": "OR",
		"postalCode": "97209", "country": "US"}, res.JSON["address"])
	assert.Equal(t, "corner-books.example.com", res.JSON["website"])
	assert.Equal(t, "Used and new books since 1998.\nTwo floors.", res.JSON["note"])
	assert.Nil(t, res.JSON["reason"])
	assert.Nil(t, res.JSON["decidedAt"])

	got := env.Do("GET", myApplication, nil, reader.Token)
	require.Equal(t, http.StatusOK, got.Status, "%s", got)
	assert.Equal(t, res.JSON, got.JSON)

	testenv.AssertError(t, env.Do("POST", myApplication, application("Another Shop"), reader.Token), http.StatusConflict, "Conflict",
		"The account already has a pending bookstore application; wait for its decision")

	t.Run("a bookstore account is 409", func(t *testing.T) {
		b := env.Signup(t, "app_bookseller")
		env.SetTier(t, b, users.TierBookstore)
		res := env.Do("POST", myApplication, application("Corner Books"), b.Token)
		testenv.AssertError(t, res, http.StatusConflict, "Conflict", applications.ErrAlreadyBookstore.Message)
	})
	t.Run("a guest is 400", func(t *testing.T) {
		g := env.Do("POST", "/v1/auth/guest", map[string]any{}, "")
		require.Equal(t, http.StatusCreated, g.Status, "%s", g)
		res := env.Do("POST", myApplication, application("Corner Books"), g.JSON["token"].(string))
		assert.Equal(t, http.StatusBadRequest, res.Status, "%s", res)
	})
	t.Run("without a token is 401", func(t *testing.T) {
		assert.Equal(t, http.StatusUnauthorized, env.Do("POST", myApplication, application("X"), "").Status)
		assert.Equal(t, http.StatusUnauthorized, env.Do("GET", myApplication, nil, "").Status)
	})
	t.Run("each bad field is named, as a store's", func(t *testing.T) {
		other := env.Signup(t, "app_fields")
		cases := []struct {
			name  string
			edit  func(b map[string]any)
			field string
		}{
			{"no store name", func(b map[string]any) { delete(b, "storeName") }, "storeName"},
			{"a blank store name", func(b map[string]any) { b["storeName"] = " \u200b " }, "storeName"},
			{"a long store name", func(b map[string]any) { b["storeName"] = strings.Repeat("n", 101) }, "storeName"},
			{"no address line", func(b map[string]any) { delete(b["address"].(map[string]any), "addressLine1") }, "address.addressLine1"},
			{"no city", func(b map[string]any) { b["address"].(map[string]any)["city"] = "" }, "address.city"},
			{"an unknown country", func(b map[string]any) { b["address"].(map[string]any)["country"] = "XX" }, "address.country"},
			{"a US address without a state", func(b map[string]any) { delete(b["address"].(map[string]any), "state") }, "address.state"},
			{"a bad ZIP code", func(b map[string]any) { b["address"].(map[string]any)["postalCode"] = "9720" }, "address.postalCode"},
			{"a bad website", func(b map[string]any) { b["website"] = "ftp://corner.example.com" }, "website"},
			{"a long note", func(b map[string]any) { b["note"] = strings.Repeat("n", 2001) }, "note"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				b := application("Corner Books")
				c.edit(b)
				res := env.Do("POST", myApplication, b, other.Token)
				require.Equal(t, http.StatusBadRequest, res.Status, "%s", res)
				assert.Contains(t, testenv.FieldErrors(t, res), c.field)
			})
		}
		testenv.AssertError(t, env.Do("GET", myApplication, nil, other.Token), http.StatusNotFound, "NotFound", "")
	})
}

// Concurrent applications of one account: exactly one is open.
func TestApplications_OneOpenUnderConcurrency(t *testing.T) {
	env := testenv.New(t)
	reader := env.Signup(t, "app_racer")
	const n = 8
	statuses := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = env.Do("POST", myApplication, application(fmt.Sprintf("Shop %d", i)), reader.Token).Status
		}()
	}
	wg.Wait()
	created := 0
	for _, s := range statuses {
		if s == http.StatusCreated {
			created++
		} else {
			assert.Equal(t, http.StatusConflict, s)
		}
	}
	assert.Equal(t, 1, created, "statuses %v", statuses)
	op := operator(t, env, "app_racer_op")
	list := env.Do("GET", queue, nil, op.Token)
	require.Equal(t, http.StatusOK, list.Status, "%s", list)
	assert.Len(t, list.JSON["items"], 1)
}

// Every operator route answers the operator and refuses a store owner,
// a reader (403) and no token (401), before anything changes.
func TestApplications_RoleMatrix(t *testing.T) {
	env := testenv.New(t)
	op := operator(t, env, "app_matrix_op")
	shop := env.OpenShop(t, "matrix-shop", nil)
	reader := env.Signup(t, "app_matrix_reader")
	id := apply(t, env, reader, "Matrix Books")
	routes := []struct {
		method, path string
		body         any
		want         int
	}{
		{"GET", queue, nil, http.StatusOK},
		{"GET", queue + "/" + id, nil, http.StatusOK},
		{"POST", queue + "/" + id + "/decline", map[string]any{"reason": "No shop at the address"}, http.StatusOK},
		{"POST", queue + "/" + id + "/approve", map[string]any{}, http.StatusConflict}, // decided by then
	}
	for _, rt := range routes {
		t.Run(rt.method+" "+rt.path, func(t *testing.T) {
			for who, token := range map[string]string{"store owner": shop.Owner.Token, "reader": reader.Token} {
				res := env.Do(rt.method, rt.path, rt.body, token)
				require.Equal(t, http.StatusForbidden, res.Status, "%s: %s", who, res)
				testenv.AssertError(t, res, http.StatusForbidden, "Forbidden", "Only the platform's operators may do this")
			}
			assert.Equal(t, http.StatusUnauthorized, env.Do(rt.method, rt.path, rt.body, "").Status)
			res := env.Do(rt.method, rt.path, rt.body, op.Token)
			assert.Equal(t, rt.want, res.Status, "%s", res)
		})
	}
}

// The queue: pending oldest first, paged; decided newest decision first;
// a bad status 400; an unknown id 404.
func TestApplications_Queue(t *testing.T) {
	env := testenv.New(t)
	op := operator(t, env, "app_queue_op")
	var ids []string
	for i := range 3 {
		ids = append(ids, apply(t, env, env.Signup(t, fmt.Sprintf("app_queue_%d", i)), fmt.Sprintf("Queue Books %d", i)))
	}
	var seen []string
	cursor := ""
	for {
		path := queue + "?limit=2"
		if cursor != "" {
			path += "&cursor=" + cursor
		}
		res := env.Do("GET", path, nil, op.Token)
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		for _, it := range res.JSON["items"].([]any) {
			m := it.(map[string]any)
			seen = append(seen, m["id"].(string))
			assert.Equal(t, "pending", m["status"])
			assert.NotEmpty(t, m["applicant"].(map[string]any)["email"])
		}
		if res.JSON["nextCursor"] == nil {
			break
		}
		cursor = res.JSON["nextCursor"].(string)
	}
	assert.Equal(t, ids, seen, "pending: oldest first, across pages")

	for _, id := range []string{ids[1], ids[0]} {
		res := env.Do("POST", queue+"/"+id+"/decline", map[string]any{"reason": "Not a bookstore"}, op.Token)
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
	}
	res := env.Do("GET", queue+"?status=declined", nil, op.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	var declined []string
	for _, it := range res.JSON["items"].([]any) {
		declined = append(declined, it.(map[string]any)["id"].(string))
	}
	assert.Equal(t, []string{ids[0], ids[1]}, declined, "decided: newest decision first")
	res = env.Do("GET", queue, nil, op.Token)
	assert.Len(t, res.JSON["items"], 1, "the declined left the pending queue")
	res = env.Do("GET", queue+"?status=approved", nil, op.Token)
	assert.Empty(t, res.JSON["items"])

	assert.Equal(t, http.StatusBadRequest, env.Do("GET", queue+"?status=open", nil, op.Token).Status)
	testenv.AssertError(t, env.Do("GET", queue+"/0193a8c4-2f6e-7d1a-9b3c-5e7f9a1b3c5d", nil, op.Token), http.StatusNotFound, "NotFound", "Bookstore application not found")
	for _, action := range []string{"approve", "decline"} {
		res := env.Do("POST", queue+"/0193a8c4-2f6e-7d1a-9b3c-5e7f9a1b3c5d/"+action, map[string]any{"reason": "x"}, op.Token)
		assert.Equal(t, http.StatusNotFound, res.Status, "%s", res)
	}
}

// Approval gives the bookstore tier in the decision's transaction, with
// its audit entry and its event: the applicant, refused a store before,
// opens one after. Deciding again is 409 and changes nothing.
func TestApplications_ApproveThenOpenAStore(t *testing.T) {
	env := testenv.New(t)
	op := operator(t, env, "app_approve_op")
	reader := env.Signup(t, "app_approve_reader")
	id := apply(t, env, reader, "Corner Books")
	store := map[string]any{"name": "Corner Books", "slug": "corner-approved", "addressLine1": "1005 W Burnside St",
		"city": "Portland", "state": "OR", "postalCode": "97209", "country": "US"}
	assert.Equal(t, http.StatusForbidden, env.Do("POST", "/v1/stores", store, reader.Token).Status, "no store before approval")

	got := env.Do("GET", queue+"/"+id, nil, op.Token)
	require.Equal(t, http.StatusOK, got.Status, "%s", got)
	assert.Equal(t, map[string]any{"id": reader.ID, "username": reader.Username, "email": reader.Email}, got.JSON["applicant"])
	assert.Nil(t, got.JSON["decidedBy"])

	res := env.Do("POST", queue+"/"+id+"/approve", nil, op.Token) // no body: the reason is optional
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	assert.Equal(t, "approved", res.JSON["status"])
	assert.Equal(t, op.ID, res.JSON["decidedBy"])
	assert.NotNil(t, res.JSON["decidedAt"])
	assert.Nil(t, res.JSON["reason"])

	me := env.Do("GET", "/v1/users/me", nil, reader.Token)
	assert.Equal(t, "bookstore", me.JSON["tier"])
	mine := env.Do("GET", myApplication, nil, reader.Token)
	assert.Equal(t, "approved", mine.JSON["status"])
	assert.NotContains(t, mine.JSON, "decidedBy", "the applicant is not shown which operator decided")
	created := env.Do("POST", "/v1/stores", store, reader.Token)
	assert.Equal(t, http.StatusCreated, created.Status, "%s", created)

	entries := auditOf(t, env, id)
	require.Len(t, entries, 1)
	assert.Equal(t, "application.approve", str(entries[0]["action"]))
	assert.Equal(t, op.ID, str(entries[0]["actorId"]))
	assert.NotContains(t, entries[0], "apart", "written in the decision's transaction")
	var decided []applications.DecidedData
	for _, o := range env.Outbox(t) {
		if o.Event.Type == applications.DecidedEvent.Type {
			var d applications.DecidedData
			require.NoError(t, json.Unmarshal(o.Event.Data, &d))
			decided = append(decided, d)
		}
	}
	require.Len(t, decided, 1)
	assert.Equal(t, applications.DecidedData{ApplicationID: id, UserID: reader.ID, StoreName: "Corner Books", Status: applications.Approved,
		DecidedAt: decided[0].DecidedAt}, decided[0])

	for _, action := range []string{"approve", "decline"} {
		res := env.Do("POST", queue+"/"+id+"/"+action, map[string]any{"reason": "again"}, op.Token)
		testenv.AssertError(t, res, http.StatusConflict, "Conflict", "The bookstore application has been decided already")
	}
	assert.Len(t, auditOf(t, env, id), 1, "a refused decision writes no entry")
	assert.Equal(t, http.StatusConflict, env.Do("POST", myApplication, application("Second Shop"), reader.Token).Status,
		"a bookstore account does not apply again")
}

// A decline needs a reason; the applicant sees it and may apply again.
func TestApplications_DeclineThenApplyAgain(t *testing.T) {
	env := testenv.New(t)
	op := operator(t, env, "app_decline_op")
	reader := env.Signup(t, "app_decline_reader")
	id := apply(t, env, reader, "Corner Books")
	for _, body := range []any{nil, map[string]any{}, map[string]any{"reason": "  "}, map[string]any{"reason": strings.Repeat("r", 1001)}} {
		res := env.Do("POST", queue+"/"+id+"/decline", body, op.Token)
		assert.Equal(t, http.StatusBadRequest, res.Status, "%v: %s", body, res)
	}
	assert.Empty(t, auditOf(t, env, id), "a refused decline writes no entry")
	res := env.Do("POST", queue+"/"+id+"/decline", map[string]any{"reason": "We could not find the shop"}, op.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	mine := env.Do("GET", myApplication, nil, reader.Token)
	assert.Equal(t, "declined", mine.JSON["status"])
	assert.Equal(t, "We could not find the shop", mine.JSON["reason"])
	assert.Equal(t, "free", env.Do("GET", "/v1/users/me", nil, reader.Token).JSON["tier"])
	entries := auditOf(t, env, id)
	require.Len(t, entries, 1)
	assert.Equal(t, "application.decline", str(entries[0]["action"]))
	assert.Equal(t, "We could not find the shop", str(entries[0]["reason"]))

	again := apply(t, env, reader, "Corner Books Two")
	assert.NotEqual(t, id, again)
	assert.Equal(t, again, env.Do("GET", myApplication, nil, reader.Token).JSON["id"], "the latest is the new one")
}

// Approving the application of an account that no longer exists is 404
// and decides nothing: the transaction's parts commit together or not.
func TestApplications_ApproveWhenTheApplicantIsGone(t *testing.T) {
	env := testenv.New(t)
	op := operator(t, env, "app_gone_op")
	reader := env.Signup(t, "app_gone_reader")
	id := apply(t, env, reader, "Gone Books")
	env.DeleteItem(t, dynamo.UserKey(reader.ID)) // no route deletes an account
	res := env.Do("POST", queue+"/"+id+"/approve", map[string]any{}, op.Token)
	testenv.AssertError(t, res, http.StatusNotFound, "NotFound", applications.ErrApplicantGone.Message)
	got := env.Do("GET", queue+"/"+id, nil, op.Token)
	assert.Equal(t, "pending", got.JSON["status"])
	assert.Empty(t, auditOf(t, env, id))
	for _, o := range env.Outbox(t) {
		assert.NotEqual(t, applications.DecidedEvent.Type, o.Event.Type)
	}
}
