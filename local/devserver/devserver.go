// Package devserver is the HTTP front shared by the local run and the test
// environment: every endpoint group of the app, plus the /media/ route that
// stands in for the CDN in front of the media bucket. In AWS, CloudFront
// serves MEDIA_BASE_URL; here the same keys are read from the local S3, so
// an avatarUrl returned by the API can be fetched like in production.
package devserver

import (
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/bookplatform/backend/shared/app"
	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/s3media"
)

// MediaPrefix is the path under which media keys are served; the local
// MEDIA_BASE_URL ends with it (without the trailing slash).
const MediaPrefix = "/media/"

// Handler serves a's router, with MediaPrefix answered from a's media
// bucket. It matches the prefix itself rather than through http.ServeMux:
// ServeMux cleans and redirects paths, which API Gateway does not, and the
// router must see every other path exactly as sent.
func Handler(a *app.App) http.Handler {
	router := a.Router()
	media := Media(a.Media, a.Logger)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, MediaPrefix) {
			media.ServeHTTP(w, r)
			return
		}
		router.ServeHTTP(w, r)
	})
}

// Media serves GET and HEAD MediaPrefix{key...} from the store: the bytes
// and content type that were uploaded, 404 in the error envelope for an
// unknown key.
func Media(store *s3media.Store, logger *slog.Logger) http.Handler {
	if logger == nil {
		logger = slog.Default()
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			httpapi.WriteError(w, r, logger, apperr.New(apperr.CodeMethodNotAllowed, "Method %s is not allowed on %s; allowed: GET, HEAD", r.Method, r.URL.Path))
			return
		}
		// r.URL.Path is already unescaped: s3media.URL escapes each
		// segment, so this is the key that was stored.
		key := strings.TrimPrefix(r.URL.Path, MediaPrefix)
		if key == "" {
			httpapi.WriteError(w, r, logger, apperr.NotFound("No media at %s", r.URL.Path))
			return
		}
		obj, err := store.Get(r.Context(), key)
		if err != nil {
			if errors.Is(err, s3media.ErrNoObject) {
				err = apperr.NotFound("No media at %s", r.URL.Path)
			}
			httpapi.WriteError(w, r, logger, err)
			return
		}
		defer obj.Body.Close()
		h := w.Header()
		if obj.ContentType != "" {
			h.Set("Content-Type", obj.ContentType)
		}
		if obj.ContentLength > 0 {
			h.Set("Content-Length", strconv.FormatInt(obj.ContentLength, 10))
		}
		// Uploads are user content: never let a browser guess another type.
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Access-Control-Allow-Origin", "*")
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodHead {
			return
		}
		if _, err := io.Copy(w, obj.Body); err != nil {
			logger.Warn("media: copy interrupted", "key", key, "error", err.Error())
		}
	})
}
