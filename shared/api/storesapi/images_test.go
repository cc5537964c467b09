package storesapi_test

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/images"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func pngBytes(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 8, 8))
	img.Set(1, 1, color.RGBA{R: 200, A: 255})
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, img))
	return b.Bytes()
}

func jpegBytes(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, jpeg.Encode(&b, image.NewGray(image.Rect(0, 0, 8, 8)), nil))
	return b.Bytes()
}

var gifBytes = []byte("GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;")

func multipartBody(t *testing.T, field string, data []byte) (io.Reader, string) {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	fw, err := mw.CreateFormFile(field, "image.bin")
	require.NoError(t, err)
	_, _ = fw.Write(data)
	require.NoError(t, mw.Close())
	return &b, mw.FormDataContentType()
}

// fetch reads a URL the API answered (an image, a presigned upload).
func fetch(t *testing.T, method, url, ctype string, body []byte) (int, string, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	require.NoError(t, err)
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	if method == http.MethodPut {
		req.ContentLength = int64(len(body))
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header.Get("Content-Type"), data
}

// The logo and banner take the avatar's path: one reader, one set of
// checks (JPG or PNG by magic bytes, at most 5 MB).
func TestImages_Multipart(t *testing.T) {
	env := testenv.New(t)
	owner := bookseller(t, env, "img_owner")
	store := newStore(t, env, owner, storeBody("img-shop"))

	for _, kind := range []string{"logo", "banner"} {
		t.Run(kind, func(t *testing.T) {
			body, ctype := multipartBody(t, kind, pngBytes(t))
			res := env.DoRaw("POST", "/v1/stores/img-shop/"+kind, ctype, body, owner.Token)
			require.Equal(t, http.StatusOK, res.Status, "%s", res)
			url := res.JSON[kind+"Url"].(string)
			assert.Contains(t, url, "/stores/"+store["id"].(string)+"/"+kind+"/")
			assert.Equal(t, url, env.Item(t, dynamo.StoreKey(store["id"].(string)))[kind+"Url"])
			status, got, data := fetch(t, "GET", url, "", nil)
			assert.Equal(t, http.StatusOK, status)
			assert.Equal(t, "image/png", got)
			assert.Equal(t, pngBytes(t), data)
			assert.Equal(t, url, env.Do("GET", "/v1/stores/img-shop", nil, "").JSON[kind+"Url"])

			refused := map[string]struct {
				field string
				data  []byte
			}{
				"a GIF":              {kind, gifBytes},
				"text named .png":    {kind, []byte("<html>not an image</html>")},
				"empty":              {kind, nil},
				"over 5 MB":          {kind, append(pngBytes(t), make([]byte, images.MaxBytes)...)},
				"in another field":   {"file", pngBytes(t)},
				"the avatar's field": {"avatar", pngBytes(t)},
			}
			for name, c := range refused {
				body, ctype := multipartBody(t, c.field, c.data)
				res := env.DoRaw("POST", "/v1/stores/img-shop/"+kind, ctype, body, owner.Token)
				testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "")
				assert.NotEmpty(t, testenv.ErrorOf(t, res)["message"], name)
			}
			res = env.DoRaw("POST", "/v1/stores/img-shop/"+kind, "application/json", strings.NewReader(`{}`), owner.Token)
			testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "")
			assert.Equal(t, url, env.Item(t, dynamo.StoreKey(store["id"].(string)))[kind+"Url"], "refusals changed nothing")
		})
	}
	t.Run("the avatar still takes a GIF", func(t *testing.T) {
		body, ctype := multipartBody(t, "avatar", gifBytes)
		res := env.DoRaw("POST", "/v1/users/me/avatar", ctype, body, owner.Token)
		assert.Equal(t, http.StatusOK, res.Status, "%s", res)
	})
	t.Run("only the owner", func(t *testing.T) {
		other := env.Signup(t, "img_other")
		body, ctype := multipartBody(t, "logo", pngBytes(t))
		testenv.AssertError(t, env.DoRaw("POST", "/v1/stores/img-shop/logo", ctype, body, other.Token), http.StatusForbidden, "Forbidden", "")
	})
}

// The presigned path: a slot, the file PUT straight to object storage,
// then attached after the same checks as a multipart upload; the image is
// served with the type its bytes have, not the one the upload claimed.
func TestImages_Presigned(t *testing.T) {
	env := testenv.New(t)
	owner := bookseller(t, env, "pre_owner")
	store := newStore(t, env, owner, storeBody("pre-shop"))
	storeID := store["id"].(string)

	slot := func(path, token string) map[string]any {
		t.Helper()
		res := env.Do("POST", path, nil, token)
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		return res.JSON
	}
	upload := func(s map[string]any, data []byte) {
		t.Helper()
		status, _, body := fetch(t, http.MethodPut, s["uploadUrl"].(string), "text/html", data)
		require.Equal(t, http.StatusOK, status, "%s", body)
	}

	s := slot("/v1/stores/pre-shop/logo/upload-url", owner.Token)
	assert.Equal(t, "PUT", s["method"])
	assert.EqualValues(t, images.MaxBytes, s["maxBytes"])
	assert.Equal(t, []any{"image/jpeg", "image/png"}, s["contentTypes"])
	assert.NotEmpty(t, s["expiresAt"])
	upload(s, jpegBytes(t))
	res := env.Do("PUT", "/v1/stores/pre-shop/logo", map[string]any{"uploadKey": s["uploadKey"]}, owner.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	url := res.JSON["logoUrl"].(string)
	_, ctype, data := fetch(t, "GET", url, "", nil)
	assert.Equal(t, "image/jpeg", ctype, "the type of its bytes, not the upload's text/html")
	assert.Equal(t, jpegBytes(t), data)
	assert.Equal(t, url, env.Item(t, dynamo.StoreKey(storeID))["logoUrl"])

	t.Run("a slot is attached once", func(t *testing.T) {
		res := env.Do("PUT", "/v1/stores/pre-shop/logo", map[string]any{"uploadKey": s["uploadKey"]}, owner.Token)
		testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "")
		assert.Contains(t, testenv.FieldErrors(t, res), "uploadKey")
	})
	t.Run("the multipart route's checks", func(t *testing.T) {
		for name, data := range map[string][]byte{
			"a GIF": gifBytes, "text": []byte("plain text"), "empty": {},
			"over 5 MB": append(jpegBytes(t), make([]byte, images.MaxBytes)...),
		} {
			s := slot("/v1/stores/pre-shop/banner/upload-url", owner.Token)
			upload(s, data)
			res := env.Do("PUT", "/v1/stores/pre-shop/banner", map[string]any{"uploadKey": s["uploadKey"]}, owner.Token)
			testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "")
			assert.Contains(t, testenv.FieldErrors(t, res), "banner", name)
		}
		assert.Nil(t, env.Item(t, dynamo.StoreKey(storeID))["bannerUrl"], "no refused file was attached")
	})
	t.Run("a key that is not this store's slot of this kind", func(t *testing.T) {
		logoSlot := slot("/v1/stores/pre-shop/logo/upload-url", owner.Token)
		upload(logoSlot, pngBytes(t))
		other := bookseller(t, env, "pre_other")
		newStore(t, env, other, storeBody("pre-other"))
		for _, c := range []struct{ path, key, token string }{
			{"/v1/stores/pre-shop/banner", logoSlot["uploadKey"].(string), owner.Token},    // another kind
			{"/v1/stores/pre-other/logo", logoSlot["uploadKey"].(string), other.Token},     // another store
			{"/v1/stores/pre-shop/logo", "avatars/" + owner.ID + "/x.png", owner.Token},    // not a slot
			{"/v1/stores/pre-shop/logo", "uploads/logo/" + storeID + "/../x", owner.Token}, // not a slot id
			{"/v1/stores/pre-shop/logo", "", owner.Token},
		} {
			res := env.Do("PUT", c.path, map[string]any{"uploadKey": c.key}, c.token)
			testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "")
		}
	})
	t.Run("the avatar takes the same path", func(t *testing.T) {
		reader := env.Signup(t, "pre_reader")
		s := slot("/v1/users/me/avatar/upload-url", reader.Token)
		assert.Equal(t, []any{"image/jpeg", "image/png", "image/gif"}, s["contentTypes"])
		upload(s, gifBytes)
		res := env.Do("PUT", "/v1/users/me/avatar", map[string]any{"uploadKey": s["uploadKey"]}, reader.Token)
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		assert.Equal(t, res.JSON["avatarUrl"], env.Do("GET", "/v1/users/me", nil, reader.Token).JSON["avatarUrl"])
		_, ctype, _ := fetch(t, "GET", res.JSON["avatarUrl"].(string), "", nil)
		assert.Equal(t, "image/gif", ctype)
	})
}
