package runinfo

import (
	"os"
	"path/filepath"
	"runtime"
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

// The run info holds the local signing key: only its owner may read it,
// also where an earlier run left the file readable by all.
func TestWrite_ownerOnly(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix file modes")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, fileName)
	require.NoError(t, os.WriteFile(path, []byte("{}"), 0o644))
	require.NoError(t, Write(dir, Info{PID: os.Getpid(), JWTSecret: "local-development-jwt-secret-not-for-production"}))
	st, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
}
