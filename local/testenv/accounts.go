package testenv

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/users"
)

// Password is the password of every account Signup makes.
const Password = "long-enough-pw"

// Account is an account a test signed up, with its current tokens.
type Account struct {
	ID, Username, Email string
	Token, Refresh      string
}

// signups numbers the emails of Signup, so that a username can be signed
// up again once its first owner renamed.
var signups atomic.Int64

// Signup signs up username through the API (email
// <username>.<n>@example.com, display name "Reader <username>", password
// Password) and returns the account with its tokens. It fails the test on
// anything but 201.
func (e *Env) Signup(tb testing.TB, username string) Account {
	tb.Helper()
	email := fmt.Sprintf("%s.%d@example.com", strings.ToLower(username), signups.Add(1))
	res := e.Do("POST", "/v1/auth/signup", map[string]any{
		"username": username, "email": email, "password": Password, "displayName": "Reader " + username,
	}, "")
	if res.Status != http.StatusCreated {
		tb.Fatalf("testenv: sign up %s: %s", username, res)
	}
	return accountOf(tb, res, username, email)
}

// Login signs a in again and returns it with fresh tokens.
func (e *Env) Login(tb testing.TB, a Account) Account {
	tb.Helper()
	res := e.Do("POST", "/v1/auth/login", map[string]any{"email": a.Email, "password": Password}, "")
	if res.Status != http.StatusOK {
		tb.Fatalf("testenv: log in %s: %s", a.Username, res)
	}
	return accountOf(tb, res, a.Username, a.Email)
}

// SetTier changes a's tier behind the API (no endpoint does).
func (e *Env) SetTier(tb testing.TB, a Account, tier users.Tier) {
	tb.Helper()
	if _, err := e.App.Users.SetTier(context.Background(), a.ID, tier); err != nil {
		tb.Fatalf("testenv: set tier of %s: %v", a.Username, err)
	}
}

// MakeOperator grants a the operator role behind the API, as the first
// operator's command does (no route grants it to someone who has none).
func (e *Env) MakeOperator(tb testing.TB, a Account) {
	tb.Helper()
	store := dynamo.NewUsers(e.App.Table)
	u, err := store.GetUser(context.Background(), a.ID)
	if err == nil {
		err = store.SetOperator(context.Background(), u, true, time.Now())
	}
	if err != nil {
		tb.Fatalf("testenv: make %s an operator: %v", a.Username, err)
	}
}

func accountOf(tb testing.TB, res *Response, username, email string) Account {
	tb.Helper()
	u, _ := res.JSON["user"].(map[string]any)
	id, _ := u["id"].(string)
	token, _ := res.JSON["token"].(string)
	refresh, _ := res.JSON["refreshToken"].(string)
	if id == "" || token == "" {
		tb.Fatalf("testenv: no account in %s", res)
	}
	return Account{ID: id, Username: username, Email: email, Token: token, Refresh: refresh}
}

// ErrorOf returns the error object of an envelope, failing the test when
// the body is none.
func ErrorOf(tb testing.TB, res *Response) map[string]any {
	tb.Helper()
	e, ok := res.JSON["error"].(map[string]any)
	if !ok {
		tb.Fatalf("testenv: no error envelope in %s", res)
	}
	return e
}

// AssertError checks an error answer: its status, the envelope's name
// and, when message is not empty, its message. The envelope's requestId
// must be the X-Request-Id header.
func AssertError(tb testing.TB, res *Response, status int, name, message string) {
	tb.Helper()
	if res.Status != status {
		tb.Fatalf("testenv: want HTTP %d, got %s", status, res)
	}
	e := ErrorOf(tb, res)
	if e["name"] != name {
		tb.Errorf("testenv: want error name %s, got %v in %s", name, e["name"], res)
	}
	if message != "" && e["message"] != message {
		tb.Errorf("testenv: want message %q, got %q", message, e["message"])
	}
	if id := res.Header.Get("X-Request-Id"); id == "" || e["requestId"] != id {
		tb.Errorf("testenv: requestId %v is not X-Request-Id %q", e["requestId"], id)
	}
}

// FieldErrors returns a validation error's per-field messages.
func FieldErrors(tb testing.TB, res *Response) map[string]any {
	tb.Helper()
	d, _ := ErrorOf(tb, res)["details"].(map[string]any)
	f, ok := d["fields"].(map[string]any)
	if !ok {
		tb.Fatalf("testenv: no field errors in %s", res)
	}
	return f
}

// Shop is a store opened for a test: its id and slug, its owner (signed
// in again after the bookstore tier, so the token carries it) and one
// staff member.
type Shop struct {
	ID, Slug     string
	Owner, Staff Account
}

// OpenShop opens a store with slug in Portland, OR, owned by a new
// bookstore-tier account, with a new account as its staff; fields
// (a tax rate, a phone) are added to the store's body.
func (e *Env) OpenShop(tb testing.TB, slug string, fields map[string]any) Shop {
	tb.Helper()
	name := strings.ReplaceAll(slug, "-", "_")
	owner := e.Signup(tb, "own_"+name)
	e.SetTier(tb, owner, users.TierBookstore)
	body := map[string]any{
		"name": "Shop " + slug, "slug": slug, "addressLine1": "1 Main St", "city": "Portland", "state": "OR",
		"postalCode": "97209", "country": "US",
	}
	maps.Copy(body, fields)
	res := e.Do("POST", "/v1/stores", body, owner.Token)
	if res.Status != http.StatusCreated {
		tb.Fatalf("open shop %s: %s", slug, res)
	}
	owner = e.Login(tb, owner)
	staff := e.Signup(tb, "staff_"+name)
	if r := e.Do("POST", "/v1/stores/"+slug+"/staff", map[string]any{"userId": staff.ID}, owner.Token); r.Status != http.StatusCreated {
		tb.Fatalf("add staff to shop %s: %s", slug, r)
	}
	id, _ := res.JSON["id"].(string)
	return Shop{ID: id, Slug: slug, Owner: owner, Staff: e.Login(tb, staff)}
}
