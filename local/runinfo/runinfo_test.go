package runinfo

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteReadRemove(t *testing.T) {
	dir := t.TempDir()
	_, err := Read(dir)
	assert.ErrorIs(t, err, ErrNotRunning, "no file")

	want := Info{PID: os.Getpid(), DynamoDB: "http://127.0.0.1:8000", Table: "bookplatform-local"}
	require.NoError(t, Write(dir, want))
	got, err := Read(dir)
	require.NoError(t, err)
	assert.Equal(t, want, got)

	require.NoError(t, Remove(dir))
	require.NoError(t, Remove(dir), "removing twice is fine")
	_, err = Read(dir)
	assert.ErrorIs(t, err, ErrNotRunning)
}

func TestRead_fileOfAStoppedRunIsIgnored(t *testing.T) {
	dir := t.TempDir()
	// Far above any pid the kernel hands out (pid_max is at most 2^22).
	require.NoError(t, Write(dir, Info{PID: 1 << 30, DynamoDB: "http://127.0.0.1:8000"}))
	_, err := Read(dir)
	assert.ErrorIs(t, err, ErrNotRunning)
}
