package usersapi_test

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/users"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { testenv.Main(m) }

func TestUsers_GetMe(t *testing.T) {
	env := testenv.New(t)
	a := env.Signup(t, "mia")
	res := env.Do("GET", "/v1/users/me", nil, a.Token)
	require.Equal(t, http.StatusOK, res.Status)
	for _, f := range []string{"id", "username", "email", "displayName", "bio", "avatarUrl", "tier", "isGuest", "homeStoreId", "createdAt", "updatedAt"} {
		assert.Contains(t, res.JSON, f)
	}
	assert.Equal(t, a.ID, res.JSON["id"])
	assert.Equal(t, a.Email, res.JSON["email"])
	assert.Nil(t, res.JSON["avatarUrl"])
	assert.Nil(t, res.JSON["homeStoreId"])
	assert.NotContains(t, string(res.Body), "passwordHash")
	assert.NotContains(t, string(res.Body), "$2a$")

	t.Run("free tier responses carry the monthly quota", func(t *testing.T) {
		assert.Equal(t, "50", res.Header.Get("X-Monthly-Limit"))
		assert.Equal(t, "50", res.Header.Get("X-Monthly-Remaining"))
		assert.NotEmpty(t, res.Header.Get("X-Monthly-Reset"))
	})
	t.Run("tier comes from stored data, not the token", func(t *testing.T) {
		_, err := env.App.Users.SetTier(t.Context(), a.ID, "premium")
		require.NoError(t, err)
		res := env.Do("GET", "/v1/users/me", nil, a.Token) // token still says free
		assert.Equal(t, "premium", res.JSON["tier"])
		assert.Equal(t, "300", res.Header.Get("X-RateLimit-Limit"))
		assert.Empty(t, res.Header.Get("X-Monthly-Limit"), "premium is unlimited")
	})
	t.Run("a deleted user's token is 401 User not found", func(t *testing.T) {
		b := env.Signup(t, "gone_soon")
		env.DeleteItem(t, dynamo.UserKey(b.ID)) // no delete-account endpoint exists yet
		res := env.Do("GET", "/v1/users/me", nil, b.Token)
		assert.Equal(t, http.StatusUnauthorized, res.Status)
		assert.Equal(t, "User not found", testenv.ErrorOf(t, res)["message"])
	})
	t.Run("without a token is 401", func(t *testing.T) {
		res := env.Do("GET", "/v1/users/me", nil, "")
		assert.Equal(t, http.StatusUnauthorized, res.Status)
		assert.Equal(t, "Missing or invalid authorization header", testenv.ErrorOf(t, res)["message"])
	})
}

func TestUsers_UpdateMe(t *testing.T) {
	env := testenv.New(t)
	a := env.Signup(t, "nora")
	env.Signup(t, "olga")

	res := env.Do("PUT", "/v1/users/me", map[string]any{"displayName": "  Nora N.  ", "bio": "Reads at night."}, a.Token)
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	assert.Equal(t, "Nora N.", res.JSON["displayName"])
	assert.Equal(t, "Reads at night.", res.JSON["bio"])
	assert.Equal(t, "nora", res.JSON["username"])
	assert.Equal(t, "Nora N.", env.Do("GET", "/v1/users/me", nil, a.Token).JSON["displayName"], "stored")

	t.Run("rename frees the old username", func(t *testing.T) {
		res := env.Do("PUT", "/v1/users/me", map[string]any{"username": "nora_reads"}, a.Token)
		require.Equal(t, http.StatusOK, res.Status, string(res.Body))
		assert.Equal(t, "nora_reads", res.JSON["username"])
		assert.Equal(t, http.StatusNotFound, env.Do("GET", "/v1/users/username/nora", nil, "").Status)
		assert.Equal(t, a.ID, env.Do("GET", "/v1/users/username/nora_reads", nil, "").JSON["id"])
		// Someone else can now take "nora".
		env.Signup(t, "nora")
	})
	t.Run("a change of case keeps the name", func(t *testing.T) {
		res := env.Do("PUT", "/v1/users/me", map[string]any{"username": "Nora_Reads"}, a.Token)
		require.Equal(t, http.StatusOK, res.Status, string(res.Body))
		assert.Equal(t, a.ID, env.Do("GET", "/v1/users/username/nora_reads", nil, "").JSON["id"])
	})
	t.Run("taken username is 409 and changes nothing", func(t *testing.T) {
		res := env.Do("PUT", "/v1/users/me", map[string]any{"username": "OLGA", "bio": "changed"}, a.Token)
		assert.Equal(t, http.StatusConflict, res.Status)
		assert.Equal(t, "Username already taken", testenv.ErrorOf(t, res)["message"])
		assert.Equal(t, "Reads at night.", env.Do("GET", "/v1/users/me", nil, a.Token).JSON["bio"])
	})
	invalid := map[string]string{
		"empty display name":  `{"displayName":"   "}`,
		"bio too long":        `{"bio":"` + strings.Repeat("b", 501) + `"}`,
		"bad username":        `{"username":"no spaces please"}`,
		"reserved username":   `{"username":"username"}`,
		"display name number": `{"displayName":42}`,
		"malformed":           `{"bio":`,
		"empty body":          ``,
		"null body":           `null`,
		"an array":            `[{"bio":"x"}]`,
		"a key twice":         `{"bio":"first","bio":"second"}`,
		"not UTF-8":           "{\"bio\":\"caf\xe9\"}",
		"a lone surrogate":    `{"bio":"half \ud83d of a book"}`,
		"invisible name":      `{"displayName":"\u200b\u200b"}`,
		"bidi override name":  `{"displayName":"\u202enimda\u2066"}`,
		"bidi isolate inside": `{"displayName":"Nora \u2067N\u2069"}`,
		"C1 control in name":  `{"displayName":"Nora\u0085N"}`,
		"username with bidi":  `{"username":"nora\u202e"}`,
	}
	for name, body := range invalid {
		t.Run(name+" is 400", func(t *testing.T) {
			res := env.DoRaw("PUT", "/v1/users/me", "application/json", strings.NewReader(body), a.Token)
			assert.Equal(t, http.StatusBadRequest, res.Status, string(res.Body))
			assert.Equal(t, "ValidationError", testenv.ErrorOf(t, res)["name"])
		})
	}
	t.Run("a body that is not JSON is 415", func(t *testing.T) {
		for _, ct := range []string{"text/plain", "application/x-www-form-urlencoded", "application/xml"} {
			res := env.DoRaw("PUT", "/v1/users/me", ct, strings.NewReader(`{"bio":"sent as `+ct+`"}`), a.Token)
			testenv.AssertError(t, res, http.StatusUnsupportedMediaType, "UnsupportedMediaType", "")
		}
	})
	t.Run("refused bodies changed nothing", func(t *testing.T) {
		me := env.Do("GET", "/v1/users/me", nil, a.Token).JSON
		assert.Equal(t, "Reads at night.", me["bio"])
		assert.Equal(t, "Nora N.", me["displayName"])
	})
	t.Run("right-to-left names are welcome", func(t *testing.T) {
		res := env.Do("PUT", "/v1/users/me", map[string]any{"displayName": "נורה"}, a.Token)
		require.Equal(t, http.StatusOK, res.Status, res)
		assert.Equal(t, "נורה", res.JSON["displayName"])
	})
	t.Run("an invisible bio is no bio", func(t *testing.T) {
		res := env.Do("PUT", "/v1/users/me", map[string]any{"bio": " \u200b\ufeff "}, a.Token)
		require.Equal(t, http.StatusOK, res.Status, res)
		assert.Equal(t, "", res.JSON["bio"])
	})
	t.Run("guests cannot rename", func(t *testing.T) {
		g := env.Do("POST", "/v1/auth/guest", nil, "")
		res := env.Do("PUT", "/v1/users/me", map[string]any{"username": "not_a_guest"}, g.JSON["token"].(string))
		assert.Equal(t, http.StatusBadRequest, res.Status)
		res = env.Do("PUT", "/v1/users/me", map[string]any{"bio": "guest bio"}, g.JSON["token"].(string))
		assert.Equal(t, http.StatusOK, res.Status)
	})
	t.Run("without a token is 401", func(t *testing.T) {
		assert.Equal(t, http.StatusUnauthorized, env.Do("PUT", "/v1/users/me", map[string]any{"bio": "x"}, "").Status)
	})
}

func TestUsers_ChangePassword(t *testing.T) {
	env := testenv.New(t)
	a := env.Signup(t, "pia")
	other := env.Do("POST", "/v1/auth/login", map[string]any{"email": a.Email, "password": "long-enough-pw"}, "")

	t.Run("wrong current password is 401", func(t *testing.T) {
		res := env.Do("PUT", "/v1/users/me/password", map[string]any{"currentPassword": "not-it-at-all", "newPassword": "brand-new-pw"}, a.Token)
		assert.Equal(t, http.StatusUnauthorized, res.Status)
		assert.Equal(t, "Current password is incorrect", testenv.ErrorOf(t, res)["message"])
	})
	t.Run("short new password is 400", func(t *testing.T) {
		res := env.Do("PUT", "/v1/users/me/password", map[string]any{"currentPassword": "long-enough-pw", "newPassword": "short"}, a.Token)
		assert.Equal(t, http.StatusBadRequest, res.Status)
	})
	t.Run("missing fields are 400", func(t *testing.T) {
		res := env.Do("PUT", "/v1/users/me/password", map[string]any{}, a.Token)
		assert.Equal(t, http.StatusBadRequest, res.Status)
	})

	res := env.Do("PUT", "/v1/users/me/password", map[string]any{"currentPassword": "long-enough-pw", "newPassword": "brand-new-pw"}, a.Token)
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	assert.Equal(t, true, res.JSON["success"])

	assert.Equal(t, http.StatusUnauthorized, env.Do("POST", "/v1/auth/login", map[string]any{"email": a.Email, "password": "long-enough-pw"}, "").Status)
	assert.Equal(t, http.StatusOK, env.Do("POST", "/v1/auth/login", map[string]any{"email": a.Email, "password": "brand-new-pw"}, "").Status)
	// Other sessions are signed out; this one keeps working.
	assert.Equal(t, http.StatusUnauthorized, env.Do("POST", "/v1/auth/refresh", map[string]any{"refreshToken": other.JSON["refreshToken"]}, "").Status)
	assert.Equal(t, http.StatusOK, env.Do("POST", "/v1/auth/refresh", map[string]any{"refreshToken": a.Refresh}, "").Status)

	t.Run("guests have no password", func(t *testing.T) {
		g := env.Do("POST", "/v1/auth/guest", nil, "")
		res := env.Do("PUT", "/v1/users/me/password", map[string]any{"currentPassword": "whatever-it-is", "newPassword": "brand-new-pw"}, g.JSON["token"].(string))
		assert.Equal(t, http.StatusBadRequest, res.Status)
	})
}

func pngBytes(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	img.Set(1, 1, color.RGBA{200, 10, 10, 255})
	var buf bytes.Buffer
	require.NoError(t, png.Encode(&buf, img))
	return buf.Bytes()
}

func multipartBody(t *testing.T, field, filename string, data []byte) (string, *bytes.Buffer) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, err := mw.CreateFormFile(field, filename)
	require.NoError(t, err)
	_, err = fw.Write(data)
	require.NoError(t, err)
	require.NoError(t, mw.Close())
	return mw.FormDataContentType(), &buf
}

func TestUsers_Avatar(t *testing.T) {
	env := testenv.New(t)
	a := env.Signup(t, "quinn")
	img := pngBytes(t)

	ct, body := multipartBody(t, "avatar", "me.jpg", img) // the name lies; the bytes decide
	res := env.DoRaw("POST", "/v1/users/me/avatar", ct, body, a.Token)
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	url, _ := res.JSON["avatarUrl"].(string)
	require.NotEmpty(t, url)
	assert.True(t, strings.HasSuffix(url, ".png"), url)
	assert.Equal(t, url, env.Do("GET", "/v1/users/me", nil, a.Token).JSON["avatarUrl"])
	assert.Equal(t, url, env.Do("GET", "/v1/users/"+a.ID, nil, "").JSON["avatarUrl"])

	// The URL is fetchable and serves the same bytes.
	got, err := http.Get(url)
	require.NoError(t, err)
	defer got.Body.Close()
	fetched, _ := io.ReadAll(got.Body)
	assert.Equal(t, http.StatusOK, got.StatusCode)
	assert.Equal(t, "image/png", got.Header.Get("Content-Type"))
	assert.Equal(t, img, fetched)

	gif := append([]byte("GIF89a"), make([]byte, 32)...)
	jpeg := append([]byte{0xFF, 0xD8, 0xFF, 0xE0}, make([]byte, 32)...)
	for name, data := range map[string][]byte{"gif": gif, "jpeg": jpeg} {
		t.Run(name+" is accepted", func(t *testing.T) {
			ct, body := multipartBody(t, "avatar", "x.bin", data)
			res := env.DoRaw("POST", "/v1/users/me/avatar", ct, body, a.Token)
			assert.Equal(t, http.StatusOK, res.Status, string(res.Body))
		})
	}

	bad := []struct {
		name, field, filename string
		data                  []byte
	}{
		{"text named .png", "avatar", "evil.png", []byte("just some text, not an image")},
		{"webp", "avatar", "x.webp", append([]byte("RIFF\x00\x00\x00\x00WEBP"), make([]byte, 16)...)},
		{"empty file", "avatar", "x.png", nil},
		{"wrong field name", "picture", "x.png", img},
	}
	for _, c := range bad {
		t.Run(c.name+" is 400", func(t *testing.T) {
			ct, body := multipartBody(t, c.field, c.filename, c.data)
			res := env.DoRaw("POST", "/v1/users/me/avatar", ct, body, a.Token)
			assert.Equal(t, http.StatusBadRequest, res.Status, string(res.Body))
			assert.Equal(t, "ValidationError", testenv.ErrorOf(t, res)["name"])
		})
	}
	t.Run("not multipart is 400", func(t *testing.T) {
		res := env.DoRaw("POST", "/v1/users/me/avatar", "image/png", bytes.NewReader(img), a.Token)
		assert.Equal(t, http.StatusBadRequest, res.Status)
	})
	t.Run("without a token is 401", func(t *testing.T) {
		ct, body := multipartBody(t, "avatar", "x.png", img)
		assert.Equal(t, http.StatusUnauthorized, env.DoRaw("POST", "/v1/users/me/avatar", ct, body, "").Status)
	})
	t.Run("the avatar is unchanged after refused uploads", func(t *testing.T) {
		assert.NotEqual(t, url, env.Do("GET", "/v1/users/me", nil, a.Token).JSON["avatarUrl"]) // the jpeg/gif replaced it
		assert.True(t, strings.HasPrefix(env.Do("GET", "/v1/users/me", nil, a.Token).JSON["avatarUrl"].(string), env.MediaSettings.BaseURL))
	})
}

// countingReader yields n bytes of a valid multipart file lazily, counting
// how many the server actually read.
type countingReader struct {
	r    io.Reader
	read int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.read += n
	return n, err
}

func TestUsers_AvatarTooLargeIsRefusedWhileStreaming(t *testing.T) {
	env := testenv.New(t)
	a := env.Signup(t, "rex")
	const size = 6 << 20

	// Build the multipart framing around a 6 MB PNG-looking stream without
	// holding it: header, then the bytes, then the trailer.
	var head bytes.Buffer
	mw := multipart.NewWriter(&head)
	_, err := mw.CreateFormFile("avatar", "big.png")
	require.NoError(t, err)
	trailer := "\r\n--" + mw.Boundary() + "--\r\n"
	payload := io.MultiReader(bytes.NewReader(head.Bytes()), strings.NewReader("\x89PNG\r\n\x1a\n"),
		io.LimitReader(zeros{}, size), strings.NewReader(trailer))

	for _, knownLength := range []bool{true, false} {
		name := "chunked"
		if knownLength {
			name = "with Content-Length"
		}
		t.Run(name, func(t *testing.T) {
			cr := &countingReader{r: payload}
			req := httptest.NewRequest("POST", "/v1/users/me/avatar", cr)
			req.Header.Set("Content-Type", mw.FormDataContentType())
			req.Header.Set("Authorization", "Bearer "+a.Token)
			req.ContentLength = -1
			if knownLength {
				req.ContentLength = int64(head.Len() + 8 + size + len(trailer))
			}
			rec := httptest.NewRecorder()
			env.Handler().ServeHTTP(rec, req)
			assert.Equal(t, http.StatusBadRequest, rec.Code, rec.Body.String())
			assert.Contains(t, rec.Body.String(), "at most 5 MB")
			assert.LessOrEqual(t, cr.read, 5<<20+128<<10, "the server read %d bytes of a 6 MB upload", cr.read)
		})
	}
	assert.Nil(t, env.Do("GET", "/v1/users/me", nil, a.Token).JSON["avatarUrl"])
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

func TestUsers_PublicProfiles(t *testing.T) {
	env := testenv.New(t)
	a := env.Signup(t, "Sam_Reads")
	env.Do("PUT", "/v1/users/me", map[string]any{"bio": "Poetry mostly."}, a.Token)

	res := env.Do("GET", "/v1/users/"+a.ID, nil, "")
	require.Equal(t, http.StatusOK, res.Status)
	assert.Equal(t, a.ID, res.JSON["id"])
	assert.Equal(t, "Sam_Reads", res.JSON["username"])
	assert.Equal(t, "Poetry mostly.", res.JSON["bio"])
	assert.Equal(t, "free", res.JSON["tier"])
	for _, f := range []string{"displayName", "avatarUrl", "createdAt"} {
		assert.Contains(t, res.JSON, f)
	}
	for _, secret := range []string{"email", "passwordHash", "token", "refreshToken", "isGuest", "followerCount"} {
		assert.NotContains(t, res.JSON, secret)
	}
	assert.NotContains(t, string(res.Body), a.Email)

	res = env.Do("GET", "/v1/users/username/sam_reads", nil, "")
	require.Equal(t, http.StatusOK, res.Status)
	assert.Equal(t, a.ID, res.JSON["id"])
	assert.EqualValues(t, 0, res.JSON["followerCount"])
	assert.EqualValues(t, 0, res.JSON["followingCount"])
	assert.NotContains(t, res.JSON, "email")

	for name, path := range map[string]string{
		"unknown id":       "/v1/users/00000000-0000-4000-8000-000000000000",
		"not a uuid":       "/v1/users/not-a-uuid",
		"unknown username": "/v1/users/username/nobody_here",
	} {
		t.Run(name+" is 404", func(t *testing.T) {
			res := env.Do("GET", path, nil, "")
			assert.Equal(t, http.StatusNotFound, res.Status)
			assert.Equal(t, "NotFound", testenv.ErrorOf(t, res)["name"])
		})
	}
	t.Run("a guest's public profile shows no email", func(t *testing.T) {
		g := env.Do("POST", "/v1/auth/guest", nil, "")
		res := env.Do("GET", "/v1/users/"+g.JSON["user"].(map[string]any)["id"].(string), nil, "")
		assert.Equal(t, "Guest", res.JSON["displayName"])
	})
}

// A rename between the read of the caller and the write of a new
// password or avatar does not refuse them: only changes of the username,
// email or guest state are conditional on the username read; a new
// password is conditional on the hash whose password the caller proved.
func TestUsers_ChangesBesideARename(t *testing.T) {
	env := testenv.New(t)
	a := env.Signup(t, "quinn")
	ctx := t.Context()
	stale, err := dynamo.NewUsers(env.App.Table).GetUser(ctx, a.ID)
	require.NoError(t, err)

	res := env.Do("PUT", "/v1/users/me", map[string]any{"username": "quinn_renamed"}, a.Token)
	require.Equal(t, http.StatusOK, res.Status, res)

	require.NoError(t, env.App.Users.ChangePassword(ctx, stale, "", testenv.Password, "a-new-password"),
		"a password change read before the rename goes through")
	_, err = env.App.Users.SetAvatar(ctx, stale, pngBytes(t))
	require.NoError(t, err, "an avatar read before the rename goes through")

	me := env.Do("GET", "/v1/users/me", nil, a.Token)
	assert.Equal(t, "quinn_renamed", me.JSON["username"], "and neither undid the rename")
	assert.NotEmpty(t, me.JSON["avatarUrl"])

	t.Run("two password changes from one read: the second is 409", func(t *testing.T) {
		fresh, err := dynamo.NewUsers(env.App.Table).GetUser(ctx, a.ID)
		require.NoError(t, err)
		require.NoError(t, env.App.Users.ChangePassword(ctx, fresh, "", "a-new-password", "third-password"))
		err = env.App.Users.ChangePassword(ctx, fresh, "", "a-new-password", "fourth-password")
		assert.ErrorIs(t, err, users.ErrChanged)
		login := env.Do("POST", "/v1/auth/login", map[string]any{"email": a.Email, "password": "third-password"}, "")
		assert.Equal(t, http.StatusOK, login.Status, "the first change stands")
	})
}
