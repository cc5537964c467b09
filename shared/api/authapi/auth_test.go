package authapi_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	awsdynamodb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/auth"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// signup creates a full account and returns the response.
func signup(t *testing.T, env *testenv.Env, username, email string) *testenv.Response {
	t.Helper()
	res := env.Do("POST", "/v1/auth/signup", map[string]any{
		"username": username, "email": email, "password": "long-enough-pw", "displayName": "Reader " + username,
	}, "")
	require.Equal(t, http.StatusCreated, res.Status, string(res.Body))
	return res
}

func str(v any) string { s, _ := v.(string); return s }

func errorOf(t *testing.T, res *testenv.Response) map[string]any {
	t.Helper()
	e, ok := res.JSON["error"].(map[string]any)
	require.True(t, ok, "no error envelope in %s", res.Body)
	assert.NotEmpty(t, e["requestId"])
	return e
}

func assertTokens(t *testing.T, body map[string]any) {
	t.Helper()
	assert.NotEmpty(t, body["token"])
	assert.Equal(t, body["token"], body["access_token"])
	assert.NotEmpty(t, body["refreshToken"])
	assert.Equal(t, body["refreshToken"], body["refresh_token"])
	assert.Equal(t, "Bearer", body["tokenType"])
}

func TestAuth_Guest(t *testing.T) {
	env := testenv.New(t)
	for name, body := range map[string]any{"form A {}": map[string]any{}, "form B device_id": map[string]any{"device_id": "ios-1234"}, "no body": nil} {
		t.Run(name, func(t *testing.T) {
			res := env.Do("POST", "/v1/auth/guest", body, "")
			require.Equal(t, http.StatusCreated, res.Status, string(res.Body))
			assertTokens(t, res.JSON)
			u := res.JSON["user"].(map[string]any)
			assert.Regexp(t, regexp.MustCompile(`^guest_\d{10}$`), u["username"])
			assert.Equal(t, "Guest", u["displayName"])
			assert.Equal(t, "free", u["tier"])
			assert.Equal(t, true, u["isGuest"])
			assert.Nil(t, u["email"])
			assert.Contains(t, u, "email")
			assert.NotEmpty(t, u["id"])
			assert.NotEmpty(t, u["createdAt"])

			// The token carries the spec's claims.
			var claims jwt.MapClaims
			_, _, err := jwt.NewParser().ParseUnverified(str(res.JSON["token"]), &claims)
			require.NoError(t, err)
			assert.Equal(t, u["id"], claims["userId"])
			assert.Equal(t, true, claims["isGuest"])
			assert.Equal(t, "free", claims["tier"])
			assert.Contains(t, claims, "iat")
			assert.Contains(t, claims, "exp")
		})
	}
	t.Run("device_id of the wrong type is 400", func(t *testing.T) {
		res := env.Do("POST", "/v1/auth/guest", map[string]any{"device_id": 12}, "")
		assert.Equal(t, http.StatusBadRequest, res.Status)
		assert.Equal(t, "ValidationError", errorOf(t, res)["name"])
	})
}

func TestAuth_Signup(t *testing.T) {
	env := testenv.New(t)
	res := signup(t, env, "Ann_Reader", "Ann@Example.com")
	assertTokens(t, res.JSON)
	u := res.JSON["user"].(map[string]any)
	assert.Equal(t, "Ann_Reader", u["username"])
	assert.Equal(t, "ann@example.com", u["email"], "emails are stored lower-cased")
	assert.Equal(t, "Reader Ann_Reader", u["displayName"])
	assert.Equal(t, "free", u["tier"])
	assert.Equal(t, false, u["isGuest"])
	assert.NotContains(t, string(res.Body), "passwordHash")

	t.Run("form B: display_name and no username", func(t *testing.T) {
		res := env.Do("POST", "/v1/auth/signup", map[string]any{"email": "bee.keeper@example.com", "password": "long-enough-pw", "display_name": "Bee"}, "")
		require.Equal(t, http.StatusCreated, res.Status, string(res.Body))
		u := res.JSON["user"].(map[string]any)
		assert.Equal(t, "Bee", u["displayName"])
		assert.Regexp(t, regexp.MustCompile(`^bee_keeper_\d{4}$`), u["username"])
	})

	conflicts := []struct{ name, username, email, message string }{
		{"same email in other case", "someone_else", "ANN@example.COM", "Email already registered"},
		{"same username in other case", "ann_reader", "other@example.com", "Username already taken"},
	}
	for _, c := range conflicts {
		t.Run(c.name+" is 409", func(t *testing.T) {
			res := env.Do("POST", "/v1/auth/signup", map[string]any{"username": c.username, "email": c.email, "password": "long-enough-pw"}, "")
			assert.Equal(t, http.StatusConflict, res.Status)
			e := errorOf(t, res)
			assert.Equal(t, "Conflict", e["name"])
			assert.Equal(t, c.message, e["message"])
		})
	}

	invalid := []struct {
		name  string
		body  string
		field string
	}{
		{"missing email", `{"username":"valid_name","password":"long-enough-pw"}`, "email"},
		{"bad email", `{"username":"valid_name","email":"not-an-email","password":"long-enough-pw"}`, "email"},
		{"email with display name", `{"username":"valid_name","email":"Ann <ann@x.org>","password":"long-enough-pw"}`, "email"},
		{"short password", `{"username":"valid_name","email":"v@example.com","password":"short"}`, "password"},
		{"missing password", `{"username":"valid_name","email":"v@example.com"}`, "password"},
		{"password over 72 bytes", `{"username":"valid_name","email":"v@example.com","password":"` + strings.Repeat("p", 73) + `"}`, "password"},
		{"username with a space", `{"username":"bad name","email":"v@example.com","password":"long-enough-pw"}`, "username"},
		{"username too short", `{"username":"ab","email":"v@example.com","password":"long-enough-pw"}`, "username"},
		{"reserved username", `{"username":"me","email":"v@example.com","password":"long-enough-pw"}`, "username"},
		{"guest_ namespace", `{"username":"guest_123","email":"v@example.com","password":"long-enough-pw"}`, "username"},
		{"display name too long", `{"username":"valid_name","email":"v@example.com","password":"long-enough-pw","displayName":"` + strings.Repeat("n", 101) + `"}`, "displayName"},
		{"wrong type", `{"username":"valid_name","email":"v@example.com","password":12345678}`, "password"},
	}
	for _, c := range invalid {
		t.Run(c.name+" is 400", func(t *testing.T) {
			res := env.DoRaw("POST", "/v1/auth/signup", "application/json", strings.NewReader(c.body), "")
			assert.Equal(t, http.StatusBadRequest, res.Status, string(res.Body))
			e := errorOf(t, res)
			assert.Equal(t, "VALIDATION_ERROR", e["code"])
			assert.Contains(t, e["details"].(map[string]any)["fields"], c.field)
		})
	}
	t.Run("malformed JSON is 400", func(t *testing.T) {
		res := env.DoRaw("POST", "/v1/auth/signup", "application/json", strings.NewReader(`{"email":`), "")
		assert.Equal(t, http.StatusBadRequest, res.Status)
		assert.Contains(t, errorOf(t, res)["message"], "Malformed JSON body")
	})
	t.Run("nothing was stored for refused sign-ups", func(t *testing.T) {
		res := env.Do("POST", "/v1/auth/login", map[string]any{"email": "v@example.com", "password": "long-enough-pw"}, "")
		assert.Equal(t, http.StatusUnauthorized, res.Status)
	})
}

func TestAuth_ConcurrentSignupsMakeOneAccount(t *testing.T) {
	env := testenv.New(t)
	const n = 12
	statuses := make([]int, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Same email, different usernames: the email claim decides.
			res := env.Do("POST", "/v1/auth/signup", map[string]any{
				"username": fmt.Sprintf("racer_%d", i), "email": "race@example.com", "password": "long-enough-pw",
			}, "")
			statuses[i] = res.Status
		}()
	}
	wg.Wait()
	created, conflicts := 0, 0
	for _, s := range statuses {
		switch s {
		case http.StatusCreated:
			created++
		case http.StatusConflict:
			conflicts++
		}
	}
	assert.Equal(t, 1, created, "statuses %v", statuses)
	assert.Equal(t, n-1, conflicts, "statuses %v", statuses)

	// Exactly one username claim stands: the losers' usernames are free.
	free := 0
	for i := 0; i < n; i++ {
		if env.Do("GET", "/v1/users/username/racer_"+fmt.Sprint(i), nil, "").Status == http.StatusNotFound {
			free++
		}
	}
	assert.Equal(t, n-1, free)
}

func TestAuth_Login(t *testing.T) {
	env := testenv.New(t)
	signup(t, env, "lena", "lena@example.com")

	res := env.Do("POST", "/v1/auth/login", map[string]any{"email": "LENA@example.com", "password": "long-enough-pw"}, "")
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	assertTokens(t, res.JSON)
	assert.Equal(t, "lena", res.JSON["user"].(map[string]any)["username"])

	for name, body := range map[string]map[string]any{
		"wrong password":               {"email": "lena@example.com", "password": "wrong-password"},
		"unknown email":                {"email": "nobody@example.com", "password": "long-enough-pw"},
		"an email of 3,000 characters": {"email": strings.Repeat("a", 3000) + "@example.com", "password": "long-enough-pw"},
	} {
		t.Run(name+" is 401", func(t *testing.T) {
			res := env.Do("POST", "/v1/auth/login", body, "")
			assert.Equal(t, http.StatusUnauthorized, res.Status)
			e := errorOf(t, res)
			assert.Equal(t, "Unauthorized", e["name"])
			assert.Equal(t, "Invalid email or password", e["message"])
		})
	}
	t.Run("missing fields are 400", func(t *testing.T) {
		res := env.Do("POST", "/v1/auth/login", map[string]any{"email": ""}, "")
		assert.Equal(t, http.StatusBadRequest, res.Status)
		assert.Len(t, errorOf(t, res)["details"].(map[string]any)["fields"], 2)
	})
}

func TestAuth_Refresh(t *testing.T) {
	clock := testenv.NewClock(time.Now())
	env := testenv.New(t, testenv.WithClock(clock))
	first := signup(t, env, "rita", "rita@example.com")
	r1 := str(first.JSON["refreshToken"])

	// Form A field name; the new pair replaces the old.
	res := env.Do("POST", "/v1/auth/refresh", map[string]any{"refreshToken": r1}, "")
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	assertTokens(t, res.JSON)
	assert.NotContains(t, res.JSON, "user")
	r2 := str(res.JSON["refresh_token"])
	assert.NotEqual(t, r1, r2)
	assert.Equal(t, http.StatusOK, env.Do("GET", "/v1/users/me", nil, str(res.JSON["token"])).Status)

	// Form B field name.
	res = env.Do("POST", "/v1/auth/refresh", map[string]any{"refresh_token": r2}, "")
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	r3 := str(res.JSON["refreshToken"])

	t.Run("reusing a rotated token after the reuse interval revokes the whole family", func(t *testing.T) {
		clock.Advance(env.Config.RefreshReuseInterval + time.Second)
		res := env.Do("POST", "/v1/auth/refresh", map[string]any{"refreshToken": r1}, "")
		assert.Equal(t, http.StatusUnauthorized, res.Status)
		// The newest token of that session is now dead too.
		res = env.Do("POST", "/v1/auth/refresh", map[string]any{"refreshToken": r3}, "")
		assert.Equal(t, http.StatusUnauthorized, res.Status)
	})
	t.Run("other sessions are untouched", func(t *testing.T) {
		login := env.Do("POST", "/v1/auth/login", map[string]any{"email": "rita@example.com", "password": "long-enough-pw"}, "")
		res := env.Do("POST", "/v1/auth/refresh", map[string]any{"refreshToken": login.JSON["refreshToken"]}, "")
		assert.Equal(t, http.StatusOK, res.Status)
	})
	t.Run("missing token is 400", func(t *testing.T) {
		res := env.Do("POST", "/v1/auth/refresh", map[string]any{}, "")
		assert.Equal(t, http.StatusBadRequest, res.Status)
	})
	t.Run("unknown token is 401", func(t *testing.T) {
		res := env.Do("POST", "/v1/auth/refresh", map[string]any{"refreshToken": "made-up"}, "")
		assert.Equal(t, http.StatusUnauthorized, res.Status)
		assert.Equal(t, "UNAUTHORIZED", errorOf(t, res)["code"])
	})
}

func TestAuth_RefreshTokenExpires(t *testing.T) {
	clock := testenv.NewClock(time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC))
	env := testenv.New(t, testenv.WithClock(clock))
	res := signup(t, env, "tess", "tess@example.com")
	clock.Advance(env.Config.RefreshTokenTTL + time.Minute)
	res = env.Do("POST", "/v1/auth/refresh", map[string]any{"refreshToken": res.JSON["refreshToken"]}, "")
	assert.Equal(t, http.StatusUnauthorized, res.Status)
}

// Two tabs refreshing at once: within the reuse interval every use of one
// token gets a valid pair of its own and nothing is revoked; presented
// again after the interval it is a replay, and the session ends.
func TestAuth_ConcurrentRefreshesWithinTheReuseInterval(t *testing.T) {
	clock := testenv.NewClock(time.Now())
	env := testenv.New(t, testenv.WithClock(clock))
	res := signup(t, env, "twin", "twin@example.com")
	tok := res.JSON["refreshToken"]
	const n = 10
	statuses := make([]int, n)
	bodies := make([]map[string]any, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			r := env.Do("POST", "/v1/auth/refresh", map[string]any{"refreshToken": tok}, "")
			statuses[i], bodies[i] = r.Status, r.JSON
		})
	}
	wg.Wait()
	seen := map[any]bool{}
	for i, s := range statuses {
		require.Equal(t, http.StatusOK, s, "refresh %d: %v", i, bodies[i])
		seen[bodies[i]["refreshToken"]] = true
	}
	assert.Len(t, seen, n, "each use got a token of its own")
	clock.Advance(5 * time.Second)
	for i := range n {
		r := env.Do("POST", "/v1/auth/refresh", map[string]any{"refreshToken": bodies[i]["refreshToken"]}, "")
		require.Equal(t, http.StatusOK, r.Status, "the pair of refresh %d is valid: %s", i, r)
		bodies[i] = r.JSON
	}

	clock.Advance(env.Config.RefreshReuseInterval)
	r := env.Do("POST", "/v1/auth/refresh", map[string]any{"refreshToken": tok}, "")
	assert.Equal(t, http.StatusUnauthorized, r.Status, "a replay after the interval")
	r = env.Do("POST", "/v1/auth/refresh", map[string]any{"refreshToken": bodies[0]["refreshToken"]}, "")
	assert.Equal(t, http.StatusUnauthorized, r.Status, "and the session is revoked")
}

// A password cannot be guessed faster than PASSWORD_ATTEMPT_LIMIT tries
// per window, account and address (TestAuth_PasswordAttemptsFromManyAddresses
// for many), and the answer is the same whether or not an account has
// the email.
func TestAuth_PasswordAttemptsPerAccount(t *testing.T) {
	clock := testenv.NewClock(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))
	env := testenv.New(t, testenv.WithClock(clock))
	signup(t, env, "guessed", "guessed@example.com")
	login := func(email, password string) *testenv.Response {
		return env.Do("POST", "/v1/auth/login", map[string]any{"email": email, "password": password}, "")
	}
	limit := env.Config.PasswordAttempts
	require.Equal(t, 10, limit)

	t.Run("a right password resets the count", func(t *testing.T) {
		for range limit - 1 {
			require.Equal(t, http.StatusUnauthorized, login("guessed@example.com", "wrong-password").Status)
		}
		require.Equal(t, http.StatusOK, login("guessed@example.com", "long-enough-pw").Status)
		for range limit - 1 {
			require.Equal(t, http.StatusUnauthorized, login("guessed@example.com", "wrong-password").Status)
		}
		require.Equal(t, http.StatusOK, login("guessed@example.com", "long-enough-pw").Status)
	})
	for name, email := range map[string]string{"an account": "guessed@example.com", "no account": "nobody@example.com"} {
		t.Run(name+": after the limit even the right password is 429 until the window ends", func(t *testing.T) {
			statuses := make([]int, limit+5)
			var wg sync.WaitGroup
			for i := range statuses {
				wg.Go(func() { statuses[i] = login(email, "wrong-password").Status })
			}
			wg.Wait()
			count := map[int]int{}
			for _, s := range statuses {
				count[s]++
			}
			assert.Equal(t, map[int]int{http.StatusUnauthorized: limit, http.StatusTooManyRequests: 5}, count, "concurrent attempts cannot pass the limit")
			res := login(email, "long-enough-pw")
			testenv.AssertError(t, res, http.StatusTooManyRequests, "TooManyRequests", "")
			assert.NotEmpty(t, res.Header.Get("Retry-After"))
			assert.Equal(t, "rate_limit_exceeded", testenv.ErrorOf(t, res)["details"].(map[string]any)["error"])
		})
	}
	clock.Advance(env.Config.PasswordAttemptWindow)
	require.Equal(t, http.StatusOK, login("guessed@example.com", "long-enough-pw").Status, "a new window")

	t.Run("the current password of a password change too", func(t *testing.T) {
		acct := env.Signup(t, "changer")
		change := func(current string) int {
			return env.Do("PUT", "/v1/users/me/password", map[string]any{"currentPassword": current, "newPassword": "a-new-password"}, acct.Token).Status
		}
		for range limit {
			require.Equal(t, http.StatusUnauthorized, change("wrong-password"))
		}
		assert.Equal(t, http.StatusTooManyRequests, change(testenv.Password))
	})
}

// loginFrom signs in through the router as a client at addr (its
// address as API Gateway or the socket gives it) and returns the status.
func loginFrom(t *testing.T, env *testenv.Env, addr, email, password string) int {
	t.Helper()
	body := fmt.Sprintf(`{"email":%q,"password":%q}`, email, password)
	req := httptest.NewRequest(http.MethodPost, "/v1/auth/login", strings.NewReader(body))
	req.RemoteAddr = addr
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	env.Handler().ServeHTTP(rec, req)
	return rec.Code
}

// failAccountTake fails, while on is set, the DynamoDB call that counts a
// sign-in on its account's item (dynamo.Attempts.TakeLogin's conditional
// UpdateItem on a login: key), as a throttled or unreachable table would.
func failAccountTake(on *atomic.Bool) func(*middleware.Stack) error {
	return func(stack *middleware.Stack) error {
		return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("failAccountTake",
			func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				if up, ok := in.Parameters.(*awsdynamodb.UpdateItemInput); ok && on.Load() {
					pk, _ := up.Key[dynamo.AttrPK].(*types.AttributeValueMemberS)
					take := up.ConditionExpression != nil && strings.Contains(*up.ConditionExpression, "attribute_not_exists")
					if pk != nil && strings.HasPrefix(pk.Value, "ATTEMPTS#login:") && take {
						return middleware.InitializeOutput{}, middleware.Metadata{}, errors.New("injected: table unavailable")
					}
				}
				return next.HandleInitialize(ctx, in)
			}), middleware.After)
	}
}

// Attempts with a password are counted per account and address, and per
// account from every address: a guesser at one address cannot lock the
// owner out, and a guesser with many addresses still gets no more than
// PASSWORD_ATTEMPT_ACCOUNT_LIMIT tries a window (docs/decisions.md,
// "Attempts with a password").
func TestAuth_PasswordAttemptsFromManyAddresses(t *testing.T) {
	clock := testenv.NewClock(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))
	var failAccountCount atomic.Bool
	env := testenv.New(t, testenv.WithClock(clock), testenv.WithAPIOptions(failAccountTake(&failAccountCount)))
	perSource, perAccount := env.Config.PasswordAttempts, env.Config.PasswordAccountAttempts
	require.Equal(t, 10, perSource)
	require.Equal(t, 30, perAccount)
	const owner = "198.51.100.2:50000"

	t.Run("a guesser at one address does not lock the owner out", func(t *testing.T) {
		signup(t, env, "targeted", "targeted@example.com")
		for i := range perSource {
			require.Equal(t, http.StatusUnauthorized, loginFrom(t, env, "203.0.113.7:4000", "targeted@example.com", "wrong-password"), "try %d", i)
		}
		for range 5 {
			require.Equal(t, http.StatusTooManyRequests, loginFrom(t, env, "203.0.113.7:4001", "targeted@example.com", "long-enough-pw"),
				"that address is refused, even with the right password")
		}
		assert.Equal(t, http.StatusOK, loginFrom(t, env, owner, "targeted@example.com", "long-enough-pw"), "the owner signs in from elsewhere")
	})
	t.Run("an IPv6 address counts by its /64", func(t *testing.T) {
		signup(t, env, "six", "six@example.com")
		for i := range perSource {
			addr := fmt.Sprintf("[2001:db8:1:2::%x]:4000", i+1)
			require.Equal(t, http.StatusUnauthorized, loginFrom(t, env, addr, "six@example.com", "wrong-password"), "try %d", i)
		}
		assert.Equal(t, http.StatusTooManyRequests, loginFrom(t, env, "[2001:db8:1:2:ffff::1]:4000", "six@example.com", "wrong-password"),
			"a fresh address in the same /64")
		assert.Equal(t, http.StatusOK, loginFrom(t, env, "[2001:db8:1:3::1]:4000", "six@example.com", "long-enough-pw"), "another /64")
	})
	t.Run("an owner signing in often never meets the account limit", func(t *testing.T) {
		signup(t, env, "frequent", "frequent@example.com")
		for i := range perAccount + 5 {
			require.Equal(t, http.StatusOK, loginFrom(t, env, owner, "frequent@example.com", "long-enough-pw"), "sign-in %d", i)
		}
	})
	t.Run("a spray from many addresses gets the account limit, then 429, but not the owner", func(t *testing.T) {
		signup(t, env, "sprayed", "sprayed@example.com")
		count := map[int]int{}
		for i := range 45 {
			count[loginFrom(t, env, fmt.Sprintf("192.0.2.%d:4000", i+1), "sprayed@example.com", "wrong-password")]++
		}
		assert.Equal(t, map[int]int{http.StatusUnauthorized: perAccount, http.StatusTooManyRequests: 45 - perAccount}, count,
			"no more wrong passwords pass than the account allows")
		assert.Equal(t, http.StatusOK, loginFrom(t, env, owner, "sprayed@example.com", "long-enough-pw"),
			"the owner signs in from an address without attempts")
		assert.Equal(t, http.StatusOK, loginFrom(t, env, owner, "sprayed@example.com", "long-enough-pw"),
			"and again: the right password cleared its address's count")
		assert.Equal(t, http.StatusTooManyRequests, loginFrom(t, env, "192.0.2.1:4001", "sprayed@example.com", "long-enough-pw"),
			"an address that tried this window is refused unchecked, even with the right password")
		assert.Equal(t, http.StatusTooManyRequests, loginFrom(t, env, "192.0.2.200:4000", "sprayed@example.com", "wrong-password"),
			"a fresh address gets one guess checked and refused")
		assert.Equal(t, http.StatusTooManyRequests, loginFrom(t, env, "192.0.2.200:4000", "sprayed@example.com", "long-enough-pw"),
			"and no second")
		clock.Advance(env.Config.PasswordAttemptWindow)
		assert.Equal(t, http.StatusUnauthorized, loginFrom(t, env, "192.0.2.1:4000", "sprayed@example.com", "wrong-password"), "a new window")
	})
	t.Run("a right password gives back only an attempt the account's count took", func(t *testing.T) {
		// At the account's limit, the owner's sign-in from a clean
		// address was not counted: giving one back would hand the
		// sprayer another checked guess.
		signup(t, env, "refunded", "refunded@example.com")
		for i := range perAccount {
			require.Equal(t, http.StatusUnauthorized, loginFrom(t, env, fmt.Sprintf("192.0.2.%d:4000", i+1), "refunded@example.com", "wrong-password"))
		}
		require.Equal(t, http.StatusOK, loginFrom(t, env, owner, "refunded@example.com", "long-enough-pw"))
		assert.Equal(t, http.StatusTooManyRequests, loginFrom(t, env, "192.0.2.100:4000", "refunded@example.com", "wrong-password"),
			"the account's count is still at its limit")

		// Nor was one let through by a failing counter.
		signup(t, env, "unsteady", "unsteady@example.com")
		for i := range perAccount - 1 {
			require.Equal(t, http.StatusUnauthorized, loginFrom(t, env, fmt.Sprintf("192.0.2.%d:4000", i+1), "unsteady@example.com", "wrong-password"))
		}
		failAccountCount.Store(true)
		require.Equal(t, http.StatusOK, loginFrom(t, env, owner, "unsteady@example.com", "long-enough-pw"), "a failing counter lets the attempt through")
		failAccountCount.Store(false)
		assert.Equal(t, http.StatusUnauthorized, loginFrom(t, env, "192.0.2.100:4000", "unsteady@example.com", "wrong-password"), "the last of the account's")
		assert.Equal(t, http.StatusTooManyRequests, loginFrom(t, env, "192.0.2.101:4000", "unsteady@example.com", "wrong-password"),
			"the count lost nothing to the right password")
	})
	t.Run("no email counts on another's count from an address", func(t *testing.T) {
		signup(t, env, "collided", "collided@example.com")
		// Emails that end like the owner's address: with a key such as
		// login:<email>@<source>, their account counts would be the
		// owner's count from that address.
		for _, sep := range []string{"@", "|", "#"} {
			crafted := "collided@example.com" + sep + "198.51.100.2"
			for i := range perSource {
				loginFrom(t, env, fmt.Sprintf("203.0.113.%d:4000", 100+i), crafted, "wrong-password")
			}
		}
		assert.Equal(t, http.StatusOK, loginFrom(t, env, owner, "collided@example.com", "long-enough-pw"))
	})
}

// countAttemptWrites counts the DynamoDB writes of attempt counters
// (items under ATTEMPTS#) into n.
func countAttemptWrites(n *atomic.Int64) func(*middleware.Stack) error {
	return func(stack *middleware.Stack) error {
		return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("countAttemptWrites",
			func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				var key map[string]types.AttributeValue
				switch p := in.Parameters.(type) {
				case *awsdynamodb.UpdateItemInput:
					key = p.Key
				case *awsdynamodb.DeleteItemInput:
					key = p.Key
				case *awsdynamodb.PutItemInput:
					key = p.Item
				}
				if pk, ok := key[dynamo.AttrPK].(*types.AttributeValueMemberS); ok && strings.HasPrefix(pk.Value, "ATTEMPTS#") {
					n.Add(1)
				}
				return next.HandleInitialize(ctx, in)
			}), middleware.After)
	}
}

// A sign-in's two counts (per address, per account) are one item per
// account and window: a sign-in writes it once, and a right one once
// more to give back (docs/decisions.md, "Attempts with a password"). A
// spray from many addresses does not grow it past the sources counted
// under the account's limit: later ones are counted apart, each in its
// own item. A window's account count written by the earlier layout (the
// same item, its count) still limits the account.
func TestAuth_PasswordAttemptsAreOneItemPerAccount(t *testing.T) {
	clock := testenv.NewClock(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))
	var writes atomic.Int64
	env := testenv.New(t, testenv.WithClock(clock), testenv.WithAPIOptions(countAttemptWrites(&writes)))
	perSource, perAccount := env.Config.PasswordAttempts, env.Config.PasswordAccountAttempts
	start := clock.Now().Truncate(env.Config.PasswordAttemptWindow)
	item := func(email string) map[string]any {
		return env.Item(t, dynamo.AttemptKey("login:"+email, start))
	}
	written := func(f func()) int64 {
		before := writes.Load()
		f()
		return writes.Load() - before
	}

	signup(t, env, "oneitem", "oneitem@example.com")
	assert.EqualValues(t, 1, written(func() {
		require.Equal(t, http.StatusUnauthorized, loginFrom(t, env, "203.0.113.7:4000", "oneitem@example.com", "wrong-password"))
	}), "a wrong password writes one counter")
	it := item("oneitem@example.com")
	require.NotNil(t, it)
	assert.EqualValues(t, 1, it["count"])
	assert.EqualValues(t, 1, it["from:203.0.113.7"])
	assert.Nil(t, env.Item(t, dynamo.AttemptKey("login-from:oneitem@example.com|203.0.113.7", start)), "no item of the address's own")
	assert.EqualValues(t, 2, written(func() {
		require.Equal(t, http.StatusOK, loginFrom(t, env, "203.0.113.7:4000", "oneitem@example.com", "long-enough-pw"))
	}), "a right one writes it and gives back")
	it = item("oneitem@example.com")
	assert.EqualValues(t, 1, it["count"], "the right one's attempt is given back, the wrong one's stays")
	assert.NotContains(t, it, "from:203.0.113.7", "the address's count is forgotten")
	for range perSource - 1 {
		require.Equal(t, http.StatusUnauthorized, loginFrom(t, env, "203.0.113.7:4000", "oneitem@example.com", "wrong-password"))
	}
	require.Equal(t, http.StatusUnauthorized, loginFrom(t, env, "203.0.113.7:4000", "oneitem@example.com", "wrong-password"), "the address's count started again")
	assert.Equal(t, http.StatusTooManyRequests, loginFrom(t, env, "203.0.113.7:4000", "oneitem@example.com", "long-enough-pw"))

	t.Run("a spray does not grow the item", func(t *testing.T) {
		signup(t, env, "grown", "grown@example.com")
		const spray = 60
		statuses := make([]int, spray)
		var wg sync.WaitGroup
		for i := range statuses {
			wg.Go(func() {
				statuses[i] = loginFrom(t, env, fmt.Sprintf("192.0.2.%d:4000", i+1), "grown@example.com", "wrong-password")
			})
		}
		wg.Wait()
		count := map[int]int{}
		for _, s := range statuses {
			count[s]++
		}
		assert.Equal(t, map[int]int{http.StatusUnauthorized: perAccount, http.StatusTooManyRequests: spray - perAccount}, count,
			"concurrent wrong passwords from many addresses pass no more than the account allows")
		it := item("grown@example.com")
		sources := 0
		for name := range it {
			if strings.HasPrefix(name, "from:") {
				sources++
			}
		}
		assert.Equal(t, perAccount, sources, "only the sources the account's count took are in the item")
		apart := 0
		for i := range spray {
			src := fmt.Sprintf("192.0.2.%d", i+1)
			if env.Item(t, dynamo.AttemptKey("login-from:grown@example.com|"+src, start)) != nil {
				apart++
				assert.NotContains(t, it, "from:"+src, "no source is counted in both")
			}
		}
		assert.Equal(t, spray-perAccount, apart, "the others are counted apart")
		assert.Equal(t, http.StatusTooManyRequests, loginFrom(t, env, "192.0.2.1:4001", "grown@example.com", "long-enough-pw"),
			"an address that tried is refused unchecked")
		assert.Equal(t, http.StatusOK, loginFrom(t, env, "198.51.100.2:4000", "grown@example.com", "long-enough-pw"),
			"the owner from a clean address signs in")
	})

	t.Run("the earlier layout's account count still limits", func(t *testing.T) {
		signup(t, env, "carried", "carried@example.com")
		old := dynamo.NewAttempts(env.App.Table)
		for range perAccount {
			n, _, err := old.Take(t.Context(), "login:carried@example.com", clock.Now(), env.Config.PasswordAttemptWindow, perAccount)
			require.NoError(t, err)
			require.Positive(t, n)
		}
		assert.Equal(t, http.StatusTooManyRequests, loginFrom(t, env, "192.0.2.77:4000", "carried@example.com", "wrong-password"))
	})
}

func TestAuth_MigrateGuest(t *testing.T) {
	env := testenv.New(t)
	guest := env.Do("POST", "/v1/auth/guest", map[string]any{}, "")
	require.Equal(t, http.StatusCreated, guest.Status)
	gid := guest.JSON["user"].(map[string]any)["id"]
	gtoken := str(guest.JSON["token"])

	signup(t, env, "taken_name", "taken@example.com")
	t.Run("taken email is 409 and the guest stays a guest", func(t *testing.T) {
		res := env.Do("POST", "/v1/auth/migrate-guest", map[string]any{"username": "fresh_name", "email": "taken@example.com", "password": "long-enough-pw"}, gtoken)
		assert.Equal(t, http.StatusConflict, res.Status)
		me := env.Do("GET", "/v1/users/me", nil, gtoken)
		assert.Equal(t, true, me.JSON["isGuest"])
		assert.Equal(t, http.StatusNotFound, env.Do("GET", "/v1/users/username/fresh_name", nil, "").Status)
	})
	t.Run("taken username is 409", func(t *testing.T) {
		res := env.Do("POST", "/v1/auth/migrate-guest", map[string]any{"username": "TAKEN_NAME", "email": "new@example.com", "password": "long-enough-pw"}, gtoken)
		assert.Equal(t, http.StatusConflict, res.Status)
	})
	t.Run("invalid body is 400", func(t *testing.T) {
		res := env.Do("POST", "/v1/auth/migrate-guest", map[string]any{"email": "new@example.com", "password": "short"}, gtoken)
		assert.Equal(t, http.StatusBadRequest, res.Status)
	})
	t.Run("without a token is 401", func(t *testing.T) {
		res := env.Do("POST", "/v1/auth/migrate-guest", map[string]any{}, "")
		assert.Equal(t, http.StatusUnauthorized, res.Status)
		assert.Equal(t, "Missing or invalid authorization header", errorOf(t, res)["message"])
	})

	res := env.Do("POST", "/v1/auth/migrate-guest", map[string]any{
		"username": "grown_up", "email": "grown@example.com", "password": "long-enough-pw", "displayName": "Grown Up",
	}, gtoken)
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	assertTokens(t, res.JSON)
	u := res.JSON["user"].(map[string]any)
	assert.Equal(t, gid, u["id"], "migration keeps the user id")
	assert.Equal(t, false, u["isGuest"])
	assert.Equal(t, "grown_up", u["username"])
	assert.Equal(t, "grown@example.com", u["email"])
	assert.Equal(t, "Grown Up", u["displayName"])

	// The new account signs in; the guest's refresh token is revoked.
	login := env.Do("POST", "/v1/auth/login", map[string]any{"email": "grown@example.com", "password": "long-enough-pw"}, "")
	assert.Equal(t, http.StatusOK, login.Status)
	assert.Equal(t, gid, login.JSON["user"].(map[string]any)["id"])
	assert.Equal(t, http.StatusUnauthorized, env.Do("POST", "/v1/auth/refresh", map[string]any{"refreshToken": guest.JSON["refreshToken"]}, "").Status)
	// The session the migration started survives the revocation of the
	// guest's, which runs at the same time.
	assert.Equal(t, http.StatusOK, env.Do("POST", "/v1/auth/refresh", map[string]any{"refreshToken": res.JSON["refreshToken"]}, "").Status)

	t.Run("a full account cannot migrate: 401", func(t *testing.T) {
		res := env.Do("POST", "/v1/auth/migrate-guest", map[string]any{"username": "again_name", "email": "again@example.com", "password": "long-enough-pw"}, str(login.JSON["token"]))
		assert.Equal(t, http.StatusUnauthorized, res.Status)
		assert.Equal(t, "Only guest accounts can be migrated", errorOf(t, res)["message"])
	})
}

func TestAuth_Logout(t *testing.T) {
	env := testenv.New(t)
	a := signup(t, env, "leo", "leo@example.com")
	b := env.Do("POST", "/v1/auth/login", map[string]any{"email": "leo@example.com", "password": "long-enough-pw"}, "")

	// Form A: empty body ends the session of the access token.
	res := env.Do("POST", "/v1/auth/logout", map[string]any{}, str(a.JSON["token"]))
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	assert.Equal(t, true, res.JSON["success"])
	assert.NotEmpty(t, res.JSON["message"])
	assert.Equal(t, http.StatusUnauthorized, env.Do("POST", "/v1/auth/refresh", map[string]any{"refreshToken": a.JSON["refreshToken"]}, "").Status)

	// Session b is still alive; Form B names its refresh token.
	c := env.Do("POST", "/v1/auth/login", map[string]any{"email": "leo@example.com", "password": "long-enough-pw"}, "")
	res = env.Do("POST", "/v1/auth/logout", map[string]any{"refresh_token": b.JSON["refreshToken"]}, str(c.JSON["token"]))
	require.Equal(t, http.StatusOK, res.Status)
	assert.Equal(t, http.StatusUnauthorized, env.Do("POST", "/v1/auth/refresh", map[string]any{"refreshToken": b.JSON["refreshToken"]}, "").Status)
	assert.Equal(t, http.StatusUnauthorized, env.Do("POST", "/v1/auth/refresh", map[string]any{"refreshToken": c.JSON["refreshToken"]}, "").Status)

	t.Run("another account's refresh token is left alone", func(t *testing.T) {
		mia := signup(t, env, "mia", "mia@example.com")
		leo := env.Do("POST", "/v1/auth/login", map[string]any{"email": "leo@example.com", "password": "long-enough-pw"}, "")
		res := env.Do("POST", "/v1/auth/logout", map[string]any{"refresh_token": mia.JSON["refreshToken"]}, str(leo.JSON["token"]))
		require.Equal(t, http.StatusOK, res.Status)
		assert.Equal(t, http.StatusOK, env.Do("POST", "/v1/auth/refresh", map[string]any{"refreshToken": mia.JSON["refreshToken"]}, "").Status)
		assert.Equal(t, http.StatusUnauthorized, env.Do("POST", "/v1/auth/refresh", map[string]any{"refreshToken": leo.JSON["refreshToken"]}, "").Status)
	})

	t.Run("without a token is 401", func(t *testing.T) {
		assert.Equal(t, http.StatusUnauthorized, env.Do("POST", "/v1/auth/logout", map[string]any{}, "").Status)
	})
}

func TestAuth_AccessTokenChecks(t *testing.T) {
	clock := testenv.NewClock(time.Now())
	env := testenv.New(t, testenv.WithClock(clock))
	res := signup(t, env, "vera", "vera@example.com")
	token := str(res.JSON["token"])
	uid := str(res.JSON["user"].(map[string]any)["id"])

	forge := func(method jwt.SigningMethod, key any) string {
		s, err := jwt.NewWithClaims(method, jwt.MapClaims{
			"userId": uid, "sub": uid, "iss": "bookplatform", "isGuest": false, "tier": "premium",
			"iat": clock.Now().Unix(), "exp": clock.Now().Add(time.Hour).Unix(),
		}).SignedString(key)
		require.NoError(t, err)
		return s
	}
	cases := []struct {
		name, header, message string
	}{
		{"no header", "", "Missing or invalid authorization header"},
		{"not Bearer", "Token " + token, "Missing or invalid authorization header"},
		{"Bearer without token", "Bearer ", "Missing or invalid authorization header"},
		{"garbage token", "Bearer abc.def.ghi", "Invalid or expired token"},
		{"alg none", "Bearer " + forge(jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType), "Invalid or expired token"},
		{"wrong key", "Bearer " + forge(jwt.SigningMethodHS256, []byte("an-attacker-key-an-attacker-key!")), "Invalid or expired token"},
	}
	for _, c := range cases {
		t.Run(c.name+" is 401", func(t *testing.T) {
			res := env.DoHeaders("GET", "/v1/users/me", nil, map[string]string{"Authorization": c.header})
			assert.Equal(t, http.StatusUnauthorized, res.Status)
			assert.Equal(t, c.message, errorOf(t, res)["message"])
		})
	}
	t.Run("expired token is 401", func(t *testing.T) {
		clock.Advance(env.Config.AccessTokenTTL + time.Minute)
		res := env.Do("GET", "/v1/users/me", nil, token)
		assert.Equal(t, http.StatusUnauthorized, res.Status)
		assert.Equal(t, "Invalid or expired token", errorOf(t, res)["message"])
	})
}

func TestAuth_RateLimitGuest(t *testing.T) {
	clock := testenv.NewClock(time.Date(2026, 11, 21, 10, 0, 5, 0, time.UTC))
	env := testenv.New(t, testenv.WithClock(clock), testenv.WithRateLimits())
	guest := env.Do("POST", "/v1/auth/guest", map[string]any{}, "") // counts as request 1 from this address
	require.Equal(t, http.StatusCreated, guest.Status)
	token := str(guest.JSON["token"])
	var last *testenv.Response
	for i := 2; i <= 60; i++ {
		last = env.Do("GET", "/v1/users/me", nil, token)
		require.Equal(t, http.StatusOK, last.Status, "request %d", i)
	}
	assert.Equal(t, "60", last.Header.Get("X-RateLimit-Limit"))
	assert.Equal(t, "0", last.Header.Get("X-RateLimit-Remaining"))

	res := env.Do("GET", "/v1/users/me", nil, token)
	require.Equal(t, http.StatusTooManyRequests, res.Status)
	assert.Equal(t, "60", res.Header.Get("X-RateLimit-Limit"))
	assert.Equal(t, "0", res.Header.Get("X-RateLimit-Remaining"))
	reset := time.Date(2026, 11, 21, 10, 1, 0, 0, time.UTC)
	assert.Equal(t, fmt.Sprint(reset.Unix()), res.Header.Get("X-RateLimit-Reset"))
	assert.Equal(t, "55", res.Header.Get("Retry-After"))
	e := errorOf(t, res)
	assert.Equal(t, "RATE_LIMITED", e["code"])
	assert.Equal(t, "TooManyRequests", e["name"])
	d := e["details"].(map[string]any)
	assert.Equal(t, "rate_limit_exceeded", d["error"])
	assert.EqualValues(t, 55000, d["retryAfter"])
	assert.EqualValues(t, 60, d["limit"])
	assert.EqualValues(t, 0, d["remaining"])

	// A refused write changes nothing: its handler never starts.
	res = env.Do("PUT", "/v1/users/me", map[string]any{"bio": "written while limited"}, token)
	require.Equal(t, http.StatusTooManyRequests, res.Status)
	clock.Advance(time.Minute)
	me := env.Do("GET", "/v1/users/me", nil, token)
	require.Equal(t, http.StatusOK, me.Status, "a new window admits again")
	assert.Equal(t, "", me.JSON["bio"])
	assert.Equal(t, "59", me.Header.Get("X-RateLimit-Remaining"))
}

func TestAuth_RateLimitFullAccountsByUser(t *testing.T) {
	env := testenv.New(t, testenv.WithRateLimits())
	res := signup(t, env, "frank", "frank@example.com")
	me := env.Do("GET", "/v1/users/me", nil, str(res.JSON["token"]))
	require.Equal(t, http.StatusOK, me.Status)
	// Free tier: 120 a minute, counted for this user alone.
	assert.Equal(t, "120", me.Header.Get("X-RateLimit-Limit"))
	assert.Equal(t, "119", me.Header.Get("X-RateLimit-Remaining"))
}

// Refresh tokens are stored only as their hash, and every record that must
// go away carries the table's TTL attribute: the token, its session and the
// rate-limit window. DynamoDB deletes them after expiresAt.
func TestAuth_StoredRecordsExpireByTTL(t *testing.T) {
	now := time.Date(2026, 11, 21, 10, 0, 30, 0, time.UTC)
	env := testenv.New(t, testenv.WithClock(testenv.NewClock(now)), testenv.WithRateLimits())
	res := signup(t, env, "ttl_reader", "ttl@example.com")
	refresh := str(res.JSON["refreshToken"])
	var claims jwt.MapClaims
	_, _, err := jwt.NewParser().ParseUnverified(str(res.JSON["token"]), &claims)
	require.NoError(t, err)
	userID, sessionID := str(claims["userId"]), str(claims["sid"])
	require.NotEmpty(t, sessionID)

	wantExpiry := float64(now.Add(env.Config.RefreshTokenTTL).Unix())
	tok := env.Item(t, dynamo.RefreshTokenKey(auth.HashRefreshToken(refresh)))
	require.NotNil(t, tok, "the token is found by its hash")
	assert.Equal(t, wantExpiry, tok["expiresAt"])
	assert.Nil(t, env.Item(t, dynamo.RefreshTokenKey(refresh)), "the raw token is no key")
	for _, v := range tok {
		assert.NotEqual(t, refresh, v, "the raw token is stored nowhere in its record")
	}

	sess := env.Item(t, dynamo.SessionKey(userID, sessionID))
	require.NotNil(t, sess)
	assert.Equal(t, float64(now.Add(2*env.Config.RefreshTokenTTL).Unix()), sess["expiresAt"],
		"one token life beyond its token, so most rotations only read it")

	// The sign-up's request counted in the anonymous caller's record of
	// the hour, which expires a minute after the hour ends.
	hour := now.Truncate(time.Hour)
	rl := env.Item(t, dynamo.RateBucketKey("ip:127.0.0.1", hour))
	require.NotNil(t, rl)
	assert.Equal(t, float64(hour.Add(time.Hour+time.Minute).Unix()), rl["expiresAt"])
}

// The rate-limit headers of a 429 describe the limit that refused it, as
// its body does: a login refused for the account's password attempts
// says limit 10, none remaining, reset when that window ends, not the
// tier rate the request also counted against (limit 60, 48 remaining).
func TestAuth_PasswordAttemptsHeadersDescribeTheRefusingLimit(t *testing.T) {
	clock := testenv.NewClock(time.Date(2026, 3, 2, 9, 0, 30, 0, time.UTC))
	env := testenv.New(t, testenv.WithClock(clock), testenv.WithRateLimits())
	signup(t, env, "headers", "headers@example.com")
	login := func() *testenv.Response {
		return env.Do("POST", "/v1/auth/login", map[string]any{"email": "headers@example.com", "password": "wrong-password"}, "")
	}
	limit := env.Config.PasswordAttempts
	for range limit {
		require.Equal(t, http.StatusUnauthorized, login().Status)
	}
	res := login()
	require.Equal(t, http.StatusTooManyRequests, res.Status, "%s", res)
	details := testenv.ErrorOf(t, res)["details"].(map[string]any)
	require.Equal(t, "password_attempts", details["action"])
	assert.Equal(t, strconv.Itoa(limit), res.Header.Get("X-RateLimit-Limit"))
	assert.Equal(t, fmt.Sprint(details["limit"]), res.Header.Get("X-RateLimit-Limit"))
	assert.Equal(t, "0", res.Header.Get("X-RateLimit-Remaining"))
	retry, err := strconv.Atoi(res.Header.Get("Retry-After"))
	require.NoError(t, err)
	assert.Equal(t, strconv.FormatInt(clock.Now().Unix()+int64(retry), 10), res.Header.Get("X-RateLimit-Reset"),
		"the window ends when Retry-After says")

	// An answer that is not a refusal still reports the tightest limit
	// the router counted.
	ok := env.Do("GET", "/v1/books?q=dune", nil, "")
	require.Equal(t, http.StatusOK, ok.Status, "%s", ok)
	assert.NotEqual(t, "0", ok.Header.Get("X-RateLimit-Remaining"))
}
