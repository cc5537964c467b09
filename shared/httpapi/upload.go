package httpapi

import (
	"errors"
	"io"
	"mime"
	"net/http"

	"github.com/bookplatform/backend/shared/apperr"
)

// multipartSlack is room for the multipart framing around a file at its
// limit.
const multipartSlack = 64 << 10

// ReadFile reads the file of a multipart/form-data body's field, the one
// upload reader of every image route (avatar, logo, banner). The body is
// streamed: an oversized upload is refused with tooLarge after at most
// max bytes + framing have been read, never buffered whole. Other parts
// are skipped. Errors: ValidationError (not multipart, malformed, no such
// field) and tooLarge.
func ReadFile(w http.ResponseWriter, r *http.Request, field string, max int64, tooLarge error) ([]byte, error) {
	if r.ContentLength > max+multipartSlack {
		return nil, tooLarge
	}
	notMultipart := apperr.Validation("Upload must be multipart/form-data with the file in field "+field, nil)
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "multipart/form-data" {
		return nil, notMultipart
	}
	r.Body = http.MaxBytesReader(w, r.Body, max+multipartSlack)
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, notMultipart
	}
	readError := func(err error) error {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return tooLarge
		}
		return apperr.Validation("Malformed multipart body", nil)
	}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return nil, apperr.Validation("Missing file field "+field, map[string]string{field: "is required"})
		}
		if err != nil {
			return nil, readError(err)
		}
		if part.FormName() != field {
			continue // the reader skips the rest of this part
		}
		data, err := io.ReadAll(io.LimitReader(part, max+1))
		if err != nil {
			return nil, readError(err)
		}
		if int64(len(data)) > max {
			return nil, tooLarge
		}
		return data, nil
	}
}
