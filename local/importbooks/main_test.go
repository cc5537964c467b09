package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/config"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// useTable points the command at a fresh testenv table through the
// variables a developer would set (so these tests cannot run in parallel).
func useTable(t *testing.T) *testenv.Env {
	t.Helper()
	env := testenv.New(t)
	for k, v := range map[string]string{
		"AWS_ENDPOINT_URL_DYNAMODB": testenv.DynamoDBEndpoint(t), config.EnvTableName: env.Config.TableName,
		"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test", "AWS_REGION": testenv.Region,
		"AWS_SESSION_TOKEN": "", "AWS_PROFILE": "", "AWS_ENDPOINT_URL": "",
	} {
		t.Setenv(k, v)
	}
	return env
}

func runCmd(t *testing.T, args ...string) (int, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	code, err := run(args, &out, &errOut)
	return code, out.String() + errOut.String(), err
}

func TestImportBooks_CSVSampleThenAgain(t *testing.T) {
	env := useTable(t)
	sample := filepath.Join("..", "data", "catalog-sample.csv")

	code, out, err := runCmd(t, "-file", sample)
	require.NoError(t, err, out)
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "22 created, 0 updated, 0 unchanged, 0 failed")

	code, out, err = runCmd(t, "-file", sample)
	require.NoError(t, err, out)
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "0 created, 0 updated, 22 unchanged, 0 failed", "an import is an upsert by ISBN")

	// The sample's ISBN-10 row is found by either form.
	b, err := env.App.Books.GetByISBN(context.Background(), "9780439655484")
	require.NoError(t, err)
	assert.Equal(t, "Harry Potter and the Prisoner of Azkaban", b.Title)
}

func TestImportBooks_reportsBadLinesAndStrictFails(t *testing.T) {
	useTable(t)
	file := filepath.Join(t.TempDir(), "books.jsonl")
	require.NoError(t, os.WriteFile(file, []byte(
		`{"isbn":"9780140449136","title":"Crime and Punishment","authors":["Fyodor Dostoevsky"]}`+"\n"+
			`{"isbn":"9780140449137","title":"Wrong check digit"}`+"\n"+
			`not json`+"\n"), 0o644))

	code, out, err := runCmd(t, "-file", file)
	require.NoError(t, err, out)
	assert.Equal(t, 0, code, "failed records are reported, not fatal")
	assert.Contains(t, out, "1 created, 0 updated, 0 unchanged, 2 failed")
	assert.Contains(t, out, "books.jsonl:2 (ISBN 9780140449137): ")
	assert.Contains(t, out, "books.jsonl:3: ")

	code, out, err = runCmd(t, "-file", file, "-strict")
	assert.Error(t, err, out)
	assert.Equal(t, 1, code)
}

func TestImportBooks_fatalAndUsageErrors(t *testing.T) {
	useTable(t)
	code, _, err := runCmd(t)
	assert.Equal(t, 2, code, "no -file")
	assert.NoError(t, err)

	code, _, err = runCmd(t, "-file", filepath.Join(t.TempDir(), "missing.jsonl"))
	assert.Equal(t, 1, code)
	assert.ErrorContains(t, err, "open catalog")

	code, _, err = runCmd(t, "-file", "books.txt")
	assert.Equal(t, 1, code)
	assert.ErrorContains(t, err, "unknown format")
}
