package importsapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	dbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/api/importjob"
	"github.com/bookplatform/backend/shared/api/importsapi/importsapitest"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/booksearch"
	"github.com/bookplatform/backend/shared/booksearch/opensearch/opensearchtest"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/groups"
	"github.com/bookplatform/backend/shared/inventory"
	"github.com/bookplatform/backend/shared/inventory/csvimport"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/queues"
	"github.com/bookplatform/backend/shared/queues/sqsqueue"
	"github.com/bookplatform/backend/shared/relay/registry"
	"github.com/bookplatform/backend/shared/users"
	"github.com/bookplatform/backend/shared/worker"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// The catalog's books of the tests.
var (
	hobbit = books.Record{ISBN: "9780198534532", Title: "The Hobbit", Authors: []string{"J. R. R. Tolkien"}}
	emma   = books.Record{ISBN: "0306406152", Title: "Emma", Authors: []string{"Jane Austen"}} // 9780306406157
)

// shop is an environment with a store, its owner, a staff member, a
// reader and two books in the catalog.
type shop struct {
	*testenv.Env
	owner, staff, other testenv.Account
	storeID             string
	hobbitID, emmaID    string
	inventory           *dynamo.Inventory
}

func newShop(t *testing.T, opts ...testenv.Option) *shop {
	t.Helper()
	env := testenv.New(t, opts...)
	s := &shop{Env: env, inventory: dynamo.NewInventory(env.App.Table)}
	s.owner = env.Signup(t, "owner")
	env.SetTier(t, s.owner, users.TierBookstore)
	res := env.Do("POST", "/v1/stores", map[string]any{
		"name": "Corner Books", "slug": "corner-books", "addressLine1": "1005 W Burnside St", "city": "Portland",
		"state": "OR", "postalCode": "97209", "country": "US",
	}, s.owner.Token)
	require.Equal(t, http.StatusCreated, res.Status, res.String())
	s.storeID = res.JSON["id"].(string)
	s.staff = env.Signup(t, "clerk")
	res = env.Do("POST", "/v1/stores/corner-books/staff", map[string]any{"userId": s.staff.ID}, s.owner.Token)
	require.Equal(t, http.StatusCreated, res.Status, res.String())
	s.staff = env.Login(t, s.staff) // its token's record names the store now
	s.other = env.Signup(t, "reader")
	ids := env.ImportBooks(t, hobbit, emma)
	s.hobbitID, s.emmaID = ids[0], ids[1]
	return s
}

// upload posts file as the multipart field file.
func (s *shop) upload(file, token string) *testenv.Response {
	body, ctype := importsapitest.Upload("stock.csv", []byte(file))
	return s.DoRaw("POST", "/v1/inventory/bulk-import?storeId="+s.storeID, ctype, body, token)
}

// item is the store's item of a book, nil when there is none.
func (s *shop) item(t *testing.T, bookID string) *inventory.Item {
	t.Helper()
	items, err := s.inventory.ByBooks(context.Background(), s.storeID, []string{bookID})
	require.NoError(t, err)
	return items[bookID]
}

// history is an item's history, newest first.
func (s *shop) history(t *testing.T, bookID string) []inventory.Change {
	t.Helper()
	p, err := s.inventory.History(context.Background(), s.storeID, inventory.ItemID(s.storeID, bookID), page.Cursor{Limit: 100})
	require.NoError(t, err)
	return p.Items
}

// answer is an import's answer.
type answer struct {
	Success   bool   `json:"success"`
	JobID     string `json:"jobId"`
	Status    string `json:"status"`
	Total     int    `json:"total"`
	Processed int    `json:"processed"`
	Imported  int    `json:"imported"`
	Failed    int    `json:"failed"`
	Errors    []struct {
		Row    int    `json:"row"`
		Column string `json:"column"`
		Value  string `json:"value"`
		Reason string `json:"reason"`
	} `json:"errors"`
	Reason string `json:"reason"`
}

func decode(t *testing.T, res *testenv.Response) answer {
	t.Helper()
	var a answer
	require.NoError(t, json.Unmarshal(res.Body, &a), res.String())
	return a
}

// The spec's file, with what spreadsheets write: a BOM, CRLF, columns in
// their own order and case, an unknown column, quoted cells with commas
// and line breaks, prices in decimal units; and bad rows beside good
// ones, none stopping the others.
const mixedFile = "\uFEFFPrice,ISBN,Condition,Quantity,Shelf,Notes,Location,Cost,Title,Author\r\n" +
	"12.99,978-0-19-853453-2,new,3,X,\"Signed, first printing\",Front,7.50,,\r\n" + // row 2: the Hobbit
	"0.29,0306406152,Used - Good,1,X,\"foxed\r\nedges\",Back,,,\r\n" + // row 3: Emma (ISBN-10), notes on two lines
	"4.00,9780198534533,new,1,,,,,,\r\n" + // row 5: a wrong check digit
	"4.00,9780141439518,mint,1,,,,,,\r\n" + // row 6: no such condition
	"12.999,9780141439518,new,1,,,,,,\r\n" + // row 7: three decimals
	"-1,9780141439518,new,1,,,,,,\r\n" + // row 8: a negative price
	"5.00,9780141439518,new,1,,,,,,\r\n" + // row 9: not in the catalog, no title
	"6.50,9780141439600,new,2,,,,,Pride and Prejudice,Jane Austen\r\n" + // row 10: added by its title
	"1.00,9780198534532,new,9,,,,,,\r\n" // row 11: the Hobbit again

func TestBulkImport_inline(t *testing.T) {
	s := newShop(t)
	res := s.upload(mixedFile, s.owner.Token)
	require.Equal(t, http.StatusOK, res.Status, res.String())
	a := decode(t, res)
	assert.True(t, a.Success)
	assert.Equal(t, "done", a.Status)
	assert.Len(t, a.JobID, 36)
	assert.Equal(t, 9, a.Total)
	assert.Equal(t, 9, a.Processed)
	assert.Equal(t, 3, a.Imported)
	assert.Equal(t, 6, a.Failed)
	type e struct {
		row           int
		column, value string
		reason        string
	}
	var got []e
	for _, x := range a.Errors {
		got = append(got, e{x.Row, x.Column, x.Value, x.Reason})
	}
	assert.Equal(t, []e{
		{5, "isbn", "9780198534533", "is not a valid ISBN: wrong check digit"},
		{6, "condition", "mint", "is not a condition: use one of new, used_like_new, used_very_good, used_good, used_acceptable"},
		{7, "price", "12.999", "has more than two decimals"},
		{8, "price", "-1", "is negative"},
		{9, "isbn", "9780141439518", "is not in the catalog: give the row a title (and author) to add the book"},
		{11, "isbn", "9780198534532", "is the same book as row 2: a store has one item per book"},
	}, got)

	hob := s.item(t, s.hobbitID)
	require.NotNil(t, hob)
	assert.Equal(t, 3, hob.Quantity)
	assert.Equal(t, 1299, hob.PriceCents, "12.99 is 1299 cents exactly")
	require.NotNil(t, hob.CostCents)
	assert.Equal(t, 750, *hob.CostCents)
	assert.Equal(t, inventory.New, hob.Condition)
	assert.Equal(t, "Front", hob.Location)
	assert.Equal(t, "Signed, first printing", hob.Notes)
	em := s.item(t, s.emmaID)
	require.NotNil(t, em)
	assert.Equal(t, 29, em.PriceCents, "0.29 is 29 cents, never 28")
	assert.Equal(t, inventory.UsedGood, em.Condition)
	assert.Equal(t, "foxed\nedges", em.Notes)
	assert.Nil(t, em.CostCents)

	pride, err := s.App.Books.GetByISBN(context.Background(), "9780141439600")
	require.NoError(t, err, "the row's title added the book through the catalog importer")
	assert.Equal(t, "Pride and Prejudice", pride.Title)
	assert.Equal(t, []string{"Jane Austen"}, pride.Authors)
	assert.Equal(t, 2, s.item(t, pride.ID).Quantity)

	h := s.history(t, s.hobbitID)
	require.Len(t, h, 1)
	assert.Equal(t, inventory.CauseImport, h[0].Cause.Kind)
	assert.Equal(t, s.owner.ID, h[0].Cause.UserID)
	assert.Equal(t, a.JobID, h[0].Cause.Ref, "the history names the import")
	assert.Equal(t, 3, h[0].Delta)

	t.Run("the job endpoint reports the same", func(t *testing.T) {
		res := s.Do("GET", "/v1/inventory/bulk-import/"+a.JobID+"?storeId="+s.storeID, nil, s.owner.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		j := decode(t, res)
		assert.Equal(t, a, j)
	})

	t.Run("a re-import of the same file changes nothing", func(t *testing.T) {
		before := *s.item(t, s.hobbitID)
		res := s.upload(mixedFile, s.owner.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		again := decode(t, res)
		assert.NotEqual(t, a.JobID, again.JobID)
		assert.Equal(t, a.Imported, again.Imported, "the same counts")
		assert.Equal(t, a.Failed, again.Failed)
		assert.Len(t, again.Errors, len(a.Errors))
		assert.Equal(t, before, *s.item(t, s.hobbitID), "quantities are set, not added")
		assert.Len(t, s.history(t, s.hobbitID), 1, "no history entry: nothing changed")
	})

	t.Run("a file with new quantities sets them", func(t *testing.T) {
		res := s.upload("isbn,quantity,price,condition\n9780198534532,5,12.99,new\n", s.owner.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		hob := s.item(t, s.hobbitID)
		assert.Equal(t, 5, hob.Quantity, "set to the file's, not 3+5")
		assert.Equal(t, "Front", hob.Location, "a column the file lacks keeps its value")
		h := s.history(t, s.hobbitID)
		require.Len(t, h, 2)
		assert.Equal(t, 2, h[0].Delta)
		assert.Equal(t, 3, h[0].Before)
	})
}

func TestBulkImport_fileErrors(t *testing.T) {
	s := newShop(t, testenv.WithEnv(importjob.EnvMaxBytes, "2048"), testenv.WithEnv(importjob.EnvMaxRows, "20"))
	row := "9780198534532,1,1.00,new\n"
	header := "isbn,quantity,price,condition\n"
	for _, tc := range []struct {
		name, file, msg string
	}{
		{"an empty file", "", "header row"},
		{"missing columns", "isbn,qty,price\n9780198534532,1,1\n", "lacks required columns: quantity, condition"},
		{"a column twice", "isbn,quantity,price,condition,price\n", "more than once: price"},
		{"too many rows", header + strings.Repeat(row, 21), "more than 20 rows"},
		{"too many bytes", header + strings.Repeat(",,,\n", 600), "larger than 2048 bytes"},
	} {
		t.Run(tc.name+" is 400", func(t *testing.T) {
			res := s.upload(tc.file, s.owner.Token)
			require.Equal(t, http.StatusBadRequest, res.Status, res.String())
			assert.Contains(t, testenv.ErrorOf(t, res)["message"], tc.msg)
		})
	}
	t.Run("the limits themselves are accepted", func(t *testing.T) {
		res := s.upload(header+strings.Repeat(row, 20), s.owner.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		a := decode(t, res)
		assert.Equal(t, 1, a.Imported)
		assert.Equal(t, 19, a.Failed, "the same book again and again")
	})
	t.Run("no file field is 400", func(t *testing.T) {
		res := s.DoRaw("POST", "/v1/inventory/bulk-import?storeId="+s.storeID, "multipart/form-data; boundary=x", strings.NewReader("--x--\r\n"), s.owner.Token)
		require.Equal(t, http.StatusBadRequest, res.Status, res.String())
	})
	t.Run("no storeId is 400", func(t *testing.T) {
		body, ctype := importsapitest.Upload("stock.csv", []byte(header+row))
		res := s.DoRaw("POST", "/v1/inventory/bulk-import", ctype, body, s.owner.Token)
		require.Equal(t, http.StatusBadRequest, res.Status, res.String())
	})
	t.Run("nothing was imported", func(t *testing.T) {
		assert.Equal(t, 1, s.item(t, s.hobbitID).Quantity, "only the accepted file's row")
	})
}

// Owner only: staff, another account and no token are refused, and so
// is an unknown store; the job is the owner's too.
func TestBulkImport_roles(t *testing.T) {
	s := newShop(t)
	file := "isbn,quantity,price,condition\n9780198534532,1,1.00,new\n"
	res := s.upload(file, s.owner.Token)
	require.Equal(t, http.StatusOK, res.Status, res.String())
	job := decode(t, res).JobID
	for _, tc := range []struct {
		name   string
		token  string
		status int
	}{
		{"staff", s.staff.Token, http.StatusForbidden},
		{"another account", s.other.Token, http.StatusForbidden},
		{"no token", "", http.StatusUnauthorized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.status, s.upload(file, tc.token).Status)
			assert.Equal(t, tc.status, s.Do("GET", "/v1/inventory/bulk-import/"+job+"?storeId="+s.storeID, nil, tc.token).Status)
		})
	}
	t.Run("an unknown store is 404", func(t *testing.T) {
		body, ctype := importsapitest.Upload("stock.csv", []byte(file))
		res := s.DoRaw("POST", "/v1/inventory/bulk-import?storeId=00000000-0000-4000-8000-000000000000", ctype, body, s.owner.Token)
		assert.Equal(t, http.StatusNotFound, res.Status)
	})
	t.Run("another store's job is 404", func(t *testing.T) {
		other := s.Signup(t, "owner2")
		s.SetTier(t, other, users.TierBookstore)
		res := s.Do("POST", "/v1/stores", map[string]any{
			"name": "Other Books", "slug": "other-books", "addressLine1": "1 Main St", "city": "Portland",
			"state": "OR", "postalCode": "97209", "country": "US",
		}, other.Token)
		require.Equal(t, http.StatusCreated, res.Status, res.String())
		res = s.Do("GET", "/v1/inventory/bulk-import/"+job+"?storeId="+res.JSON["id"].(string), nil, other.Token)
		assert.Equal(t, http.StatusNotFound, res.Status)
		res = s.Do("GET", "/v1/inventory/bulk-import/not-a-job?storeId="+s.storeID, nil, s.owner.Token)
		assert.Equal(t, http.StatusNotFound, res.Status)
	})
	assert.Equal(t, 1, s.item(t, s.hobbitID).Quantity)
}

// bigFile is a file of n rows over books the catalog has: the first two
// are the shop's, the others added by title.
func bigFile(n int) string {
	var b strings.Builder
	b.WriteString("isbn,quantity,price,condition,title,author\n")
	for i := range n {
		d12 := fmt.Sprintf("979100%06d", i)
		fmt.Fprintf(&b, "%s,%d,%d.%02d,new,Book %d,Author %d\n", books.CompleteISBN13(d12), i%7, i, i%100, i, i)
	}
	b.WriteString("bad-isbn,1,1,new,,\n")
	return b.String()
}

// waitDone polls the job until it is no longer running.
func (s *shop) waitDone(t *testing.T, job string) answer {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		res := s.Do("GET", "/v1/inventory/bulk-import/"+job+"?storeId="+s.storeID, nil, s.owner.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		a := decode(t, res)
		if a.Status != "running" {
			return a
		}
		require.True(t, time.Now().Before(deadline), "the job is still running: %+v", a)
		time.Sleep(100 * time.Millisecond)
	}
}

// A file over the inline threshold is answered 202 with its job, and the
// csv-import worker applies it through the local queue, a chunk per
// checkpoint, a stretch per message; the job reports its progress.
func TestBulkImport_async(t *testing.T) {
	s := newShop(t, testenv.WithQueues(),
		testenv.WithEnv(importjob.EnvInlineRows, "10"), testenv.WithEnv(importjob.EnvChunkRows, "7"), testenv.WithEnv(importjob.EnvSlice, "1ns"))
	file := bigFile(40)
	res := s.upload(file, s.owner.Token)
	require.Equal(t, http.StatusAccepted, res.Status, res.String())
	a := decode(t, res)
	assert.Equal(t, "running", a.Status)
	assert.Equal(t, 41, a.Total)
	assert.Equal(t, 0, a.Processed)
	assert.True(t, a.Success)

	t.Run("without a worker it waits", func(t *testing.T) {
		res := s.Do("GET", "/v1/inventory/bulk-import/"+a.JobID+"?storeId="+s.storeID, nil, s.owner.Token)
		require.Equal(t, http.StatusOK, res.Status)
		assert.Equal(t, "running", decode(t, res).Status)
	})

	s.StartWorkers(t)
	done := s.waitDone(t, a.JobID)
	assert.Equal(t, "done", done.Status)
	assert.Equal(t, 41, done.Processed)
	assert.Equal(t, 40, done.Imported)
	assert.Equal(t, 1, done.Failed)
	require.Len(t, done.Errors, 1)
	assert.Equal(t, 42, done.Errors[0].Row)
	assert.Equal(t, "isbn", done.Errors[0].Column)
	b, err := s.App.Books.GetByISBN(context.Background(), books.CompleteISBN13("979100000039"))
	require.NoError(t, err)
	it := s.item(t, b.ID)
	require.NotNil(t, it)
	assert.Equal(t, 39%7, it.Quantity)
	assert.Equal(t, 3939, it.PriceCents)

	t.Run("a redelivered message applies nothing twice", func(t *testing.T) {
		sender, err := sqsqueue.NewSender(s.SQS, func(k string) string {
			if k == queues.CSVImport.URLEnv() {
				return s.QueueURLs[queues.CSVImport]
			}
			return ""
		}, queues.CSVImport)
		require.NoError(t, err)
		before := s.history(t, b.ID)
		// The first message again, with its key (the idempotency record
		// skips it) and under another key (the job is done: nothing to do).
		for _, key := range []string{importjob.Message{JobID: a.JobID}.Key(), "another-key"} {
			body, _ := json.Marshal(importjob.Message{JobID: a.JobID, From: 0})
			require.NoError(t, sender.Send(context.Background(), queues.CSVImport, body, key))
		}
		waitEmpty(t, s)
		again := s.waitDone(t, a.JobID)
		assert.Equal(t, done, again, "the same counts")
		assert.Equal(t, before, s.history(t, b.ID), "no new history")
	})
}

// waitEmpty waits until the csv-import queue has no message left.
func waitEmpty(t *testing.T, s *shop) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		out, err := s.SQS.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{
			QueueUrl: aws.String(s.QueueURLs[queues.CSVImport]), AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameAll}})
		require.NoError(t, err)
		if out.Attributes["ApproximateNumberOfMessages"] == "0" && out.Attributes["ApproximateNumberOfMessagesNotVisible"] == "0" {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("the queue did not empty")
}

// The worker resumes a job at its checkpoint, whichever message brings
// it; a message for a job handed on past it sends the newer one again;
// a body that is no job message fails (to reach the dead-letter queue).
func TestWorker_handle(t *testing.T) {
	s := newShop(t, testenv.WithQueues(), testenv.WithEnv(importjob.EnvInlineRows, "1"))
	var handle worker.Handler
	for _, g := range groups.All(s.App.Deps()) {
		if g.Worker != nil && g.Worker.Queue == queues.CSVImport {
			handle = g.Worker.Handle
		}
	}
	require.NotNil(t, handle)
	ctx := context.Background()
	require.Error(t, handle(ctx, worker.Message{ID: "m1", Body: []byte("not json")}))
	require.Error(t, handle(ctx, worker.Message{ID: "m2", Body: []byte(`{"from":0}`)}))
	require.NoError(t, handle(ctx, worker.Message{ID: "m3", Body: []byte(`{"jobId":"00000000-0000-4000-8000-000000000000"}`)}), "a job that is gone: nothing to do")

	res := s.upload("isbn,quantity,price,condition\n9780198534532,4,1.00,new\n9780306406157,2,1.00,new\n", s.owner.Token)
	require.Equal(t, http.StatusAccepted, res.Status, res.String())
	job := decode(t, res).JobID
	body, _ := json.Marshal(importjob.Message{JobID: job})
	require.NoError(t, handle(ctx, worker.Message{ID: "m4", Body: body}), "the worker's handler, called as a delivery would")
	a := s.waitDone(t, job)
	assert.Equal(t, 2, a.Imported)
	assert.Equal(t, 4, s.item(t, s.hobbitID).Quantity)
	require.NoError(t, handle(ctx, worker.Message{ID: "m5", Body: body}), "a done job: nothing to do")
	assert.Len(t, s.history(t, s.hobbitID), 1)
}

// The sample file of local/data (README) does what it says: four rows
// imported (one adding its book by title), seven refused.
func TestBulkImport_sampleFile(t *testing.T) {
	s := newShop(t)
	s.ImportBooks(t,
		books.Record{ISBN: "9780439785969", Title: "Harry Potter and the Half-Blood Prince"},
		books.Record{ISBN: "9780439358071", Title: "Harry Potter and the Order of the Phoenix"},
		books.Record{ISBN: "043965548X", Title: "Harry Potter and the Prisoner of Azkaban"},
		books.Record{ISBN: "9780439554893", Title: "Harry Potter and the Chamber of Secrets"},
		books.Record{ISBN: "9780439682589", Title: "Harry Potter Boxed Set, Books 1-5"},
		books.Record{ISBN: "9780439827607", Title: "Harry Potter Collection"},
	)
	data, err := os.ReadFile("../../../local/data/inventory-import-sample.csv")
	require.NoError(t, err)
	res := s.upload(string(data), s.owner.Token)
	require.Equal(t, http.StatusOK, res.Status, res.String())
	a := decode(t, res)
	assert.Equal(t, 11, a.Total)
	assert.Equal(t, 4, a.Imported)
	assert.Equal(t, 7, a.Failed)
	var rows []int
	for _, e := range a.Errors {
		rows = append(rows, e.Row)
	}
	assert.Equal(t, []int{7, 8, 9, 10, 11, 12, 13}, rows, "%+v", a.Errors)
}

// An upload whose job cannot be handed to the worker (the queue
// unreachable: this environment has no queues) is a 500, and its job says
// it failed rather than running for ever with no message to run it.
func TestBulkImport_unqueuedJobFails(t *testing.T) {
	s := newShop(t, testenv.WithEnv(importjob.EnvInlineRows, "0"))
	res := s.upload("isbn,quantity,price,condition\n9780198534532,1,1.00,new\n", s.owner.Token)
	require.Equal(t, http.StatusInternalServerError, res.Status, res.String())

	out, err := s.App.DB.Scan(context.Background(), &dynamodb.ScanInput{
		TableName: aws.String(s.Config.TableName), FilterExpression: aws.String("begins_with(PK, :p) AND SK = :sk"),
		ExpressionAttributeValues: map[string]dbtypes.AttributeValue{
			":p": &dbtypes.AttributeValueMemberS{Value: "IMPORT#"}, ":sk": &dbtypes.AttributeValueMemberS{Value: "JOB"},
		},
	})
	require.NoError(t, err)
	require.Len(t, out.Items, 1)
	jobID := strings.TrimPrefix(out.Items[0]["PK"].(*dbtypes.AttributeValueMemberS).Value, "IMPORT#")
	res = s.Do("GET", "/v1/inventory/bulk-import/"+jobID+"?storeId="+s.storeID, nil, s.owner.Token)
	require.Equal(t, http.StatusOK, res.Status, res.String())
	a := decode(t, res)
	assert.Equal(t, "failed", a.Status)
	assert.False(t, a.Success)
	assert.NotEmpty(t, a.Reason)
}

// A job whose worker stopped recording progress (each receipt of its
// message timed out, or failed without marking it) is no longer reported
// running once idle for importjob.StaleAfter: its endpoint reports it
// failed, with the reason, and a late message stores it so and applies
// nothing.
func TestBulkImport_staleJobFails(t *testing.T) {
	clock := testenv.NewClock(time.Now().UTC())
	s := newShop(t, testenv.WithClock(clock), testenv.WithQueues(), testenv.WithEnv(importjob.EnvInlineRows, "0"))
	res := s.upload("isbn,quantity,price,condition\n9780198534532,1,1.00,new\n", s.owner.Token)
	require.Equal(t, http.StatusAccepted, res.Status, res.String())
	jobID := decode(t, res).JobID
	get := func() answer {
		t.Helper()
		res := s.Do("GET", "/v1/inventory/bulk-import/"+jobID+"?storeId="+s.storeID, nil, s.owner.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		return decode(t, res)
	}

	clock.Advance(importjob.StaleAfter)
	assert.Equal(t, "running", get().Status, "idle for StaleAfter: its last receipt may still run")
	clock.Advance(time.Second)
	a := get()
	assert.Equal(t, "failed", a.Status)
	assert.False(t, a.Success)
	assert.Contains(t, a.Reason, "no progress")

	runner := importjob.NewRunner(s.App.Deps(), csvimport.Limits{})
	body, _ := json.Marshal(importjob.Message{JobID: jobID})
	require.NoError(t, runner.Handle(context.Background(), worker.Message{ID: "late", Body: body, ReceiveCount: 1}))
	assert.Nil(t, s.item(t, s.hobbitID), "a late message applies nothing")
	job, err := dynamo.NewImportJobs(s.App.Table).GetJob(context.Background(), jobID)
	require.NoError(t, err)
	assert.Equal(t, csvimport.Failed, job.Status, "the late message stored it failed")
	assert.Equal(t, a.Reason, job.Reason)
}

// A message that comes when its job has been idle for nearly StaleAfter
// does not run it: its stretch's first checkpoint could land after the
// endpoint had reported the job failed, which would then read running
// again. It marks the job failed, as the endpoint is about to report.
func TestBulkImport_nearlyStaleJobIsNotRun(t *testing.T) {
	clock := testenv.NewClock(time.Now().UTC())
	s := newShop(t, testenv.WithClock(clock), testenv.WithQueues(), testenv.WithEnv(importjob.EnvInlineRows, "0"))
	res := s.upload("isbn,quantity,price,condition\n9780198534532,1,1.00,new\n", s.owner.Token)
	require.Equal(t, http.StatusAccepted, res.Status, res.String())
	jobID := decode(t, res).JobID

	clock.Advance(importjob.StaleAfter - queues.VisibilityTimeout + time.Second)
	runner := importjob.NewRunner(s.App.Deps(), csvimport.Limits{})
	body, _ := json.Marshal(importjob.Message{JobID: jobID})
	require.NoError(t, runner.Handle(context.Background(), worker.Message{ID: "late", Body: body, ReceiveCount: 2}))
	assert.Nil(t, s.item(t, s.hobbitID), "nothing applied")
	res = s.Do("GET", "/v1/inventory/bulk-import/"+jobID+"?storeId="+s.storeID, nil, s.owner.Token)
	require.Equal(t, http.StatusOK, res.Status, res.String())
	assert.Equal(t, "failed", decode(t, res).Status, "stored failed before the endpoint's own staleness")
}

// failingReads is the jobs' store with every read of a job failing.
type failingReads struct{ csvimport.Jobs }

func (failingReads) GetJob(context.Context, string) (*csvimport.Job, error) {
	return nil, errors.New("read throttled")
}

// A message whose job cannot even be read fails each receipt; on the
// last receipt before the dead-letter queue the job is marked failed all
// the same, so it does not stay running.
func TestWorker_lastReceiptFailsUnreadableJob(t *testing.T) {
	s := newShop(t, testenv.WithQueues(), testenv.WithEnv(importjob.EnvInlineRows, "0"))
	res := s.upload("isbn,quantity,price,condition\n9780198534532,1,1.00,new\n", s.owner.Token)
	require.Equal(t, http.StatusAccepted, res.Status, res.String())
	jobID := decode(t, res).JobID
	status := func() answer {
		t.Helper()
		res := s.Do("GET", "/v1/inventory/bulk-import/"+jobID+"?storeId="+s.storeID, nil, s.owner.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		return decode(t, res)
	}

	runner := importjob.NewRunner(s.App.Deps(), csvimport.Limits{})
	runner.Jobs = failingReads{runner.Jobs}
	body, _ := json.Marshal(importjob.Message{JobID: jobID})
	ctx := context.Background()
	for n := 1; n < queues.MaxReceiveCount; n++ {
		require.Error(t, runner.Handle(ctx, worker.Message{ID: "m", Body: body, ReceiveCount: n}))
		assert.Equal(t, "running", status().Status, "receipt %d: a later one may still read it", n)
	}
	require.Error(t, runner.Handle(ctx, worker.Message{ID: "m", Body: body, ReceiveCount: queues.MaxReceiveCount}), "the message still goes to the dead-letter queue")
	a := status()
	assert.Equal(t, "failed", a.Status)
	assert.False(t, a.Success)
	assert.NotEmpty(t, a.Reason)
}

// A book a store's import adds by its title is a change of the catalog:
// the import records a book.changed naming it (after the book, outside
// the rows' transactions), and where the catalog is searched on
// OpenSearch the relay's search feed writes its document, through the
// registered consumers as the relay function builds them. A re-import
// adds no book and records none.
func TestBulkImport_addedBookFeedsTheSearchIndex(t *testing.T) {
	url, _ := opensearchtest.StandIn(t,
		opensearchtest.IndexExists("books"),
		opensearchtest.Exchange{Method: "POST", Path: "/books/_bulk", Request: "feed_bulk_request.ndjson", Status: 200, Answer: "bulk_answer.json"},
		opensearchtest.Exchange{Method: "POST", Path: "/books/_bulk", Request: "feed_pride_request.ndjson", Status: 200, Answer: "bulk_answer.json"},
	)
	s := newShop(t, testenv.WithStream(), testenv.WithEnv(booksearch.EnvEngine, booksearch.EngineOpenSearch),
		testenv.WithEnv(booksearch.EnvOpenSearchEndpoint, url))
	s.StartRelay(registry.Consumers(s.App.Deps())...)
	s.WaitDelivered(t, len(s.Outbox(t))) // the shop's two books, indexed first

	const file = "isbn,quantity,price,condition,title,author\n9780141439600,2,6.50,new,Pride and Prejudice,Jane Austen\n"
	res := s.upload(file, s.owner.Token)
	require.Equal(t, http.StatusOK, res.Status, res.String())
	require.Equal(t, 1, decode(t, res).Imported)
	var named [][]string
	for _, it := range s.WaitDelivered(t, len(s.Outbox(t))) {
		if it.Event.Type == books.ChangedEvent.Type {
			var d books.ChangedData
			require.NoError(t, json.Unmarshal(it.Event.Data, &d))
			named = append(named, d.BookIDs)
		}
	}
	pride := books.BookIDOf("9780141439600")
	assert.ElementsMatch(t, [][]string{{s.hobbitID, s.emmaID}, {pride}}, named)

	res = s.upload(file, s.owner.Token)
	require.Equal(t, http.StatusOK, res.Status, res.String())
	n := 0
	for _, it := range s.Outbox(t) {
		if it.Event.Type == books.ChangedEvent.Type {
			n++
		}
	}
	assert.Equal(t, 2, n, "the book exists: no event")
}
