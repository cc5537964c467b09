package httpapi

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/bookplatform/backend/shared/apperr"
)

// The multipart file reader of every image route takes any body and
// content type: it never panics, and it either gives the field's bytes
// (at most the limit) or a 400 ValidationError.
func FuzzReadFile(f *testing.F) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	_ = mw.WriteField("caption", "me")
	fw, _ := mw.CreateFormFile("avatar", "a.png")
	_, _ = fw.Write([]byte("\x89PNG\r\n\x1a\nrest"))
	_ = mw.Close()
	f.Add(mw.FormDataContentType(), body.Bytes())
	f.Add("multipart/form-data; boundary=x", []byte("--x\r\nContent-Disposition: form-data; name=\"avatar\"\r\n\r\nGIF89a\r\n--x--\r\n"))
	f.Add("multipart/form-data; boundary=x", []byte("--x\r\nContent-Disposition: form-data; name=\"avatar\"\r\n\r\nunterminated"))
	f.Add("multipart/form-data; boundary=x", []byte("--x--\r\n"))
	f.Add("multipart/form-data", []byte("no boundary"))
	f.Add("image/png", []byte("\x89PNG\r\n\x1a\n"))
	f.Add("", []byte{})
	f.Fuzz(func(t *testing.T, contentType string, data []byte) {
		r := httptest.NewRequest(http.MethodPost, "/v1/users/me/avatar", bytes.NewReader(data))
		r.Header.Set("Content-Type", contentType)
		const max = 5 << 20
		got, err := ReadFile(httptest.NewRecorder(), r, "avatar", max, apperr.Validation("too large", nil))
		if err != nil {
			if apperr.CodeOf(err) != apperr.CodeValidation {
				t.Fatalf("error %v is not a ValidationError", err)
			}
			return
		}
		if len(got) > max {
			t.Fatalf("read %d bytes, over the limit", len(got))
		}
		// (The bytes need not appear in the body as sent: a part may be
		// quoted-printable, which the reader decodes.)
	})
}
