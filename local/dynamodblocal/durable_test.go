package dynamodblocal

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// call sends one DynamoDB API call (a JSON body) and returns the answer's
// body; anything but 200 fails the test.
func call(t *testing.T, endpoint, op, body string) string {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, endpoint+"/", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=local/20200101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", op, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: HTTP %d %s", op, resp.StatusCode, data)
	}
	return string(data)
}

// An acknowledged write survives SIGKILL of DynamoDB Local right after
// its answer, as it does when `make run` is killed (the JVM then gets
// SIGKILL from the kernel): a plain put and, the one DynamoDB Local
// commits after answering, a transaction, twice, since without the
// barrier a single transaction is lost about two times in three. Three
// JVM starts on one data directory: 15-40 s.
func TestDataDir_anAcknowledgedWriteSurvivesSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("starts DynamoDB Local three times")
	}
	dir := t.TempDir()
	start := func() *Instance {
		t.Helper()
		inst, err := Start(context.Background(), Options{DBPath: dir})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = inst.Stop() })
		return inst
	}
	// killNow is SIGKILL to the JVM the moment the answer is in, then the
	// barrier's end (a killed `make run` takes it along).
	killNow := func(inst *Instance) {
		t.Helper()
		if err := kill(inst.cmd); err != nil {
			t.Fatal(err)
		}
		<-inst.Done()
		_ = inst.Stop()
	}
	has := func(endpoint, pk string) bool {
		t.Helper()
		return strings.Contains(call(t, endpoint, "GetItem", `{"TableName":"durable","Key":{"PK":{"S":"`+pk+`"}},"ConsistentRead":true}`), `"Item"`)
	}
	put := func(pk string) string { return `{"TableName":"durable","Item":{"PK":{"S":"` + pk + `"}}}` }
	tx := func(pks ...string) string {
		parts := make([]string, len(pks))
		for i, pk := range pks {
			parts[i] = `{"Put":` + put(pk) + `}`
		}
		return `{"TransactItems":[` + strings.Join(parts, ",") + `]}`
	}

	began := time.Now()
	inst := start()
	call(t, inst.Endpoint, "CreateTable", `{"TableName":"durable","AttributeDefinitions":[{"AttributeName":"PK","AttributeType":"S"}],`+
		`"KeySchema":[{"AttributeName":"PK","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}`)
	call(t, inst.Endpoint, "PutItem", put("put-1"))
	call(t, inst.Endpoint, "TransactWriteItems", tx("tx-1a", "tx-1b"))
	killNow(inst)

	inst = start()
	for _, pk := range []string{"put-1", "tx-1a", "tx-1b"} {
		if !has(inst.Endpoint, pk) {
			t.Errorf("%s was acknowledged, then lost to SIGKILL", pk)
		}
	}
	call(t, inst.Endpoint, "TransactWriteItems", tx("tx-2"))
	killNow(inst)

	inst = start()
	if !has(inst.Endpoint, "tx-2") {
		t.Errorf("tx-2 was acknowledged, then lost to SIGKILL")
	}
	t.Logf("three starts, two kills: %s", time.Since(began).Round(time.Second))
}
