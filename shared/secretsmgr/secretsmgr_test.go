package secretsmgr

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/bookplatform/backend/shared/auth"
	"github.com/bookplatform/backend/shared/config"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func rotationEvent(step, token string) events.SecretsManagerSecretRotationEvent {
	return events.SecretsManagerSecretRotationEvent{Step: step, SecretID: fakeARN, ClientRequestToken: token}
}

// freshKeys draws numbered keys, so a test can tell them apart.
func freshKeys() func() (string, error) {
	var mu sync.Mutex
	n := 0
	return func() (string, error) {
		mu.Lock()
		defer mu.Unlock()
		n++
		return fmt.Sprintf("fresh-key-%02d-%s", n, strings.Repeat("x", 40)), nil
	}
}

func key(name string) string { return name + "-" + strings.Repeat("k", 40) }

func TestParseValue(t *testing.T) {
	v, err := ParseValue(`{"current":"` + key("a") + `","previous":"` + key("b") + `"}`)
	require.NoError(t, err)
	assert.Equal(t, Value{Current: key("a"), Previous: key("b")}, v)
	set, err := v.KeySet()
	require.NoError(t, err)
	assert.Equal(t, auth.KeyID([]byte(key("a"))), set.Signing().ID)
	_, ok := set.Find(auth.KeyID([]byte(key("b"))))
	assert.True(t, ok)

	for name, s := range map[string]string{
		"the raw key of an older stack": key("a"),
		"no current":                    `{"previous":"` + key("b") + `"}`,
		"a short key":                   `{"current":"short"}`,
		"an unknown member":             `{"current":"` + key("a") + `","nxt":"` + key("c") + `"}`,
		"two objects":                   `{"current":"` + key("a") + `"}{}`,
	} {
		_, err := ParseValue(s)
		assert.Error(t, err, name)
	}
}

func TestNewKey(t *testing.T) {
	a, err := NewKey()
	require.NoError(t, err)
	b, err := NewKey()
	require.NoError(t, err)
	assert.Len(t, a, 64)
	assert.NotEqual(t, a, b)
	assert.Equal(t, "", strings.Trim(a, keyAlphabet), "letters and digits only")
}

// The stack's first value holds current only; each rotation after that
// promotes next, keeps current as previous and draws a new next.
func TestRotator_Rotations(t *testing.T) {
	ctx := context.Background()
	f, client := newFakeSecretsManager(t, `{"current":"`+key("generated")+`"}`)
	r := &Rotator{API: client, Fresh: freshKeys(), Logger: quiet}

	rotate(t, ctx, f, r, "token-1")
	first := f.current(t)
	assert.Equal(t, Value{Previous: key("generated"), Current: "fresh-key-02-" + strings.Repeat("x", 40), Next: "fresh-key-01-" + strings.Repeat("x", 40)}, first)

	rotate(t, ctx, f, r, "token-2")
	second := f.current(t)
	assert.Equal(t, Value{Previous: first.Current, Current: first.Next, Next: "fresh-key-03-" + strings.Repeat("x", 40)}, second)
}

// Secrets Manager retries a step that failed or timed out: each step
// done twice leaves what it left once.
func TestRotator_StepsRepeat(t *testing.T) {
	ctx := context.Background()
	f, client := newFakeSecretsManager(t, `{"current":"`+key("a")+`","next":"`+key("b")+`"}`)
	r := &Rotator{API: client, Fresh: freshKeys(), Logger: quiet}
	f.startRotation("token-1")
	for _, step := range []string{"createSecret", "createSecret", "setSecret", "testSecret", "testSecret", "finishSecret", "finishSecret"} {
		require.NoError(t, r.Handle(ctx, rotationEvent(step, "token-1")), step)
	}
	assert.Equal(t, Value{Previous: key("a"), Current: key("b"), Next: "fresh-key-01-" + strings.Repeat("x", 40)}, f.current(t),
		"the second createSecret kept the pending value of the first")
}

func TestRotator_Refuses(t *testing.T) {
	ctx := context.Background()
	f, client := newFakeSecretsManager(t, `{"current":"`+key("a")+`"}`)
	r := &Rotator{API: client, Fresh: freshKeys(), Logger: quiet}

	err := r.Handle(ctx, rotationEvent("createSecret", "never-started"))
	assert.ErrorContains(t, err, "no version never-started")

	f.startRotation("token-1")
	err = r.Handle(ctx, rotationEvent("rollBack", "token-1"))
	assert.ErrorContains(t, err, "unknown rotation step")

	err = r.Handle(ctx, rotationEvent("testSecret", "token-1"))
	assert.Error(t, err, "nothing pending to test before createSecret")

	f.mu.Lock()
	f.rotation = false
	f.mu.Unlock()
	err = r.Handle(ctx, rotationEvent("createSecret", "token-1"))
	assert.ErrorContains(t, err, "does not have rotation enabled")
	assert.Equal(t, Value{Current: key("a")}, f.current(t), "nothing changed")
}

// A current value the rotation cannot read is not rotated over.
func TestRotator_MalformedCurrent(t *testing.T) {
	f, client := newFakeSecretsManager(t, key("raw"))
	r := &Rotator{API: client, Fresh: freshKeys(), Logger: quiet}
	f.startRotation("token-1")
	err := r.Handle(context.Background(), rotationEvent("createSecret", "token-1"))
	assert.ErrorContains(t, err, "not the JSON object")
}

// A running process picks a rotation up at its next read: until then it
// signs with the old key, and every token either side signs verifies on
// both sides (the old current is the new previous, the new current was
// the old next).
func TestKeyring_FollowsRotation(t *testing.T) {
	ctx := context.Background()
	f, client := newFakeSecretsManager(t, `{"current":"`+key("a")+`","next":"`+key("b")+`"}`)
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }

	running, err := NewKeyring(ctx, client, fakeARN, 5*time.Minute, quiet, clock)
	require.NoError(t, err)
	assert.Equal(t, auth.KeyID([]byte(key("a"))), running.Keys().Signing().ID)
	oldTokens := auth.NewTokens(running, 15*time.Minute, clock)
	before, err := oldTokens.Issue(auth.Claims{UserID: "u1", Tier: "free"})
	require.NoError(t, err)

	rotate(t, ctx, f, &Rotator{API: client, Fresh: freshKeys(), Logger: quiet}, "token-1")

	started, err := NewKeyring(ctx, client, fakeARN, 5*time.Minute, quiet, clock)
	require.NoError(t, err)
	assert.Equal(t, auth.KeyID([]byte(key("b"))), started.Keys().Signing().ID, "a process started after the rotation signs with the promoted key")
	newTokens := auth.NewTokens(started, 15*time.Minute, clock)
	after, err := newTokens.Issue(auth.Claims{UserID: "u2", Tier: "free"})
	require.NoError(t, err)
	for name, tk := range map[string]*auth.Tokens{"running": oldTokens, "started": newTokens} {
		for _, tok := range []string{before, after} {
			_, err := tk.Verify(tok)
			assert.NoError(t, err, name)
		}
	}

	// Within the interval the running process keeps its keys and reads nothing.
	reads := func() int {
		f.mu.Lock()
		defer f.mu.Unlock()
		n := 0
		for _, c := range f.calls {
			if c == "GetSecretValue" {
				n++
			}
		}
		return n
	}
	n := reads()
	advance(4 * time.Minute)
	assert.Equal(t, auth.KeyID([]byte(key("a"))), running.Keys().Signing().ID)
	assert.Equal(t, n, reads())

	// Past it, the next Keys starts one read in the background.
	advance(2 * time.Minute)
	running.Keys()
	running.Keys()
	require.Eventually(t, func() bool { return running.Keys().Signing().ID == auth.KeyID([]byte(key("b"))) }, 5*time.Second, 10*time.Millisecond)
	assert.Equal(t, n+1, reads(), "one read, however many calls")
}

// A read that fails keeps the keys held; the process goes on serving.
func TestKeyring_FailedReadKeepsKeys(t *testing.T) {
	ctx := context.Background()
	f, client := newFakeSecretsManager(t, `{"current":"`+key("a")+`"}`)
	k, err := NewKeyring(ctx, client, fakeARN, time.Minute, quiet, nil)
	require.NoError(t, err)
	f.mu.Lock()
	f.versions["v0"].value = new(string) // the secret becomes unreadable
	*f.versions["v0"].value = "{}"
	f.mu.Unlock()
	assert.Error(t, k.Refresh(ctx))
	assert.Equal(t, auth.KeyID([]byte(key("a"))), k.Keys().Signing().ID)
}

func TestKeyring_StartFails(t *testing.T) {
	_, client := newFakeSecretsManager(t, `{"current":"short"}`)
	_, err := NewKeyring(context.Background(), client, fakeARN, time.Minute, quiet, nil)
	assert.ErrorContains(t, err, "at least 32 bytes")
	_, err = NewKeyring(context.Background(), client, "arn:aws:secretsmanager:eu-west-1:1:secret:other", time.Minute, quiet, nil)
	assert.ErrorContains(t, err, "ResourceNotFoundException")
}

func TestLoadKeyring_FromVariables(t *testing.T) {
	k, err := LoadKeyring(context.Background(), config.JWTKeys{JWTSecret: []byte(key("a")), JWTPreviousSecret: []byte(key("b"))}, nil, quiet)
	require.NoError(t, err)
	assert.Equal(t, auth.KeyID([]byte(key("a"))), k.Keys().Signing().ID)
	assert.Len(t, k.Keys().Secrets(), 2)
}

// A plain-string secret's current and previous values are both held, and
// a value put later reaches a running holder at its next read.
func TestVersions_CurrentAndPrevious(t *testing.T) {
	ctx := context.Background()
	const first = "front-door-secret-of-48-alphanumeric-characters"
	const second = "front-door-secret-two-of-48-alphanumeric-chars00"
	// GIVEN a secret holding a plain string never changed
	f, client := newFakeSecretsManager(t, first)
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	running, err := NewVersions(ctx, client, fakeARN, 5*time.Minute, nil, quiet, clock)
	require.NoError(t, err)
	// THEN its one value is held
	assert.Equal(t, []string{first}, running.Values())

	// WHEN a new value is put by hand
	f.mu.Lock()
	f.moveStage(stagePrevious, "v0")
	f.moveStage(stageCurrent, "v1")
	f.versions["v1"].value = aws.String(second)
	f.mu.Unlock()
	// THEN a holder made now has both, the current first
	started, err := NewVersions(ctx, client, fakeARN, 5*time.Minute, nil, quiet, clock)
	require.NoError(t, err)
	assert.Equal(t, []string{second, first}, started.Values())
	// AND the running one keeps its value within the interval, then reads again
	assert.Equal(t, []string{first}, running.Values())
	mu.Lock()
	now = now.Add(6 * time.Minute)
	mu.Unlock()
	running.Values()
	require.Eventually(t, func() bool { return len(running.Values()) == 2 }, 5*time.Second, 10*time.Millisecond)
	assert.Equal(t, []string{second, first}, running.Values())
}

func TestVersions_Refused(t *testing.T) {
	ctx := context.Background()
	_, client := newFakeSecretsManager(t, "short")
	check := func(v string) error {
		if len(v) < 32 {
			return errors.New("too short")
		}
		return nil
	}
	_, err := NewVersions(ctx, client, fakeARN, time.Minute, check, quiet, nil)
	assert.ErrorContains(t, err, "too short")
	// AND a secret that does not exist is an error naming it
	_, err = NewVersions(ctx, client, fakeARN+"-other", time.Minute, nil, quiet, nil)
	assert.ErrorContains(t, err, fakeARN+"-other")
}
