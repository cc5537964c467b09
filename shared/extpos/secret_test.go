package extpos_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/bookplatform/backend/local/squarelocal"
	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/extpos"
)

// fakeSecrets answers GetSecretValue for one ARN with value, counting the
// reads; fail makes the next reads fail.
type fakeSecrets struct {
	mu         sync.Mutex
	arn, value string
	reads      int
	fail       bool
}

func (f *fakeSecrets) GetSecretValue(_ context.Context, in *secretsmanager.GetSecretValueInput, _ ...func(*secretsmanager.Options)) (*secretsmanager.GetSecretValueOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	if f.fail || aws.ToString(in.SecretId) != f.arn {
		return nil, errors.New("no such secret")
	}
	return &secretsmanager.GetSecretValueOutput{SecretString: aws.String(f.value)}, nil
}

const secretARN = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:extpos-AbCdEf"

// With EXTPOS_CLIENT_SECRET_ARN the code exchange uses the secret's value
// read at run time (the stand-in refuses any other), read once and again
// after SecretRefresh; a failed read keeps the value held.
func TestManagedSecret_exchange(t *testing.T) {
	sq := squarelocal.New()
	srv := httptest.NewServer(sq)
	t.Cleanup(srv.Close)
	env := config.NewEnv(func(n string) string {
		return map[string]string{extpos.EnvBaseURL: srv.URL, extpos.EnvClientID: squarelocal.ClientID, extpos.EnvClientSecretARN: secretARN}[n]
	})
	now := time.Now()
	clock := func() time.Time { return now }
	fake := &fakeSecrets{arn: secretARN, value: squarelocal.ClientSecret}
	s := extpos.ReadSettings(env).WithManagedSecret(fake, clock)
	if err := env.Err(); err != nil {
		t.Fatal(err)
	}
	if s.ClientSecret != "" || s.ClientSecretARN != secretARN {
		t.Fatalf("settings %+v", s)
	}
	q := extpos.NewSquare(s, srv.Client(), clock)
	exchange := func() error {
		u, _ := url.Parse(q.AuthCodeURL("st"))
		if u.Query().Get("client_secret") != "" {
			t.Fatal("the authorisation URL carries the secret")
		}
		_, err := q.Exchange(context.Background(), authorise(t, q, "st"))
		return err
	}
	for range 2 {
		if err := exchange(); err != nil {
			t.Fatal(err)
		}
	}
	if fake.reads != 1 {
		t.Fatalf("%d reads, want 1 (held)", fake.reads)
	}
	now = now.Add(extpos.SecretRefresh)
	fake.fail = true
	if err := exchange(); err != nil {
		t.Fatalf("a failed read dropped the held value: %v", err)
	}
	if fake.reads != 2 {
		t.Fatalf("%d reads, want 2 (read again after SecretRefresh)", fake.reads)
	}
	if err := exchange(); err != nil || fake.reads != 2 {
		t.Fatalf("right after a failed read: %v, %d reads, want the held value and no read", err, fake.reads)
	}
	now = now.Add(extpos.SecretRetry)
	fake.fail = false
	if err := exchange(); err != nil || fake.reads != 3 {
		t.Fatalf("SecretRetry after a failed read: %v, %d reads, want a read again", err, fake.reads)
	}

	// Nothing held and nothing readable: the exchange fails, naming the
	// variable.
	cold := extpos.NewSquare(extpos.ReadSettings(env).WithManagedSecret(fake, clock), srv.Client(), clock)
	if _, err := cold.Exchange(context.Background(), "code"); err == nil {
		t.Fatal("exchanged without a secret")
	}
}

// The value and the ARN together are refused: one replaces the other.
func TestReadSettings_secretAndItsARN(t *testing.T) {
	env := config.NewEnv(func(n string) string {
		return map[string]string{extpos.EnvClientSecret: "s", extpos.EnvClientSecretARN: secretARN}[n]
	})
	extpos.ReadSettings(env)
	if env.Err() == nil {
		t.Fatal("both accepted")
	}
}
