// Package devserver is the HTTP front shared by the local run and the test
// environment: every endpoint group of the app, plus the /media/ route that
// stands in for the CDN in front of the media bucket. In AWS, CloudFront
// serves MEDIA_BASE_URL; here the same keys are read from the local S3, so
// an avatarUrl returned by the API can be fetched like in production.
//
// The local run (`make run`) puts a Front before that handler: it answers
// at once while the stack starts, and it enforces the limits API Gateway
// enforces in AWS (header size, request deadline); NewServer adds the
// connection timeouts.
package devserver

import (
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/bookplatform/backend/local/dnslocal"
	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/app"
	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/s3media"
	"github.com/bookplatform/backend/shared/text"
)

// MediaPrefix is the path under which media keys are served; the local
// MEDIA_BASE_URL ends with it (without the trailing slash).
const MediaPrefix = "/media/"

// Handler serves the router of gs (groups.All(a.Deps()): the local run
// builds them once, for this router and its queue workers), with
// MediaPrefix answered from a's media bucket. It matches the prefix
// itself rather than through http.ServeMux: ServeMux cleans and
// redirects paths, which API Gateway does not, and the router must see
// every other path exactly as sent.
//
// When the app's DNS is the local stand-in (dnslocal), its records are
// served under dnslocal.Prefix, so a developer can point a custom domain
// at a store the way a DNS provider would (README, "Custom domains
// locally"). That path exists only on the local server.
//
// Each mount serves its prefix (the path itself and every path under it)
// beside the API: the local stand-ins' pages a developer opens in a
// browser, such as the recorded email (local/maillocal, "Email
// locally"). They exist only on the local server too.
func Handler(a *app.App, gs []api.Group, mounts ...Mount) http.Handler {
	router := a.Router(gs...)
	media := Media(s3media.NewStore(s3media.NewClient(a.AWS), s3media.ReadSettings(a.Config.Env())), a.Logger)
	dns, _ := a.DNS.(*dnslocal.Resolver)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.URL.Path, MediaPrefix):
			media.ServeHTTP(w, r)
		case dns != nil && strings.HasPrefix(r.URL.Path, dnslocal.Prefix):
			dns.ServeHTTP(w, r)
		default:
			for _, m := range mounts {
				if r.URL.Path == m.Prefix || strings.HasPrefix(r.URL.Path, m.Prefix+"/") {
					m.Handler.ServeHTTP(w, r)
					return
				}
			}
			router.ServeHTTP(w, r)
		}
	})
}

// Mount is a local page served beside the API: Handler answers Prefix
// (no trailing slash) and every path under it, as it was requested.
type Mount struct {
	Prefix  string
	Handler http.Handler
}

// Media serves GET and HEAD MediaPrefix{key...} from the store: the bytes
// and content type that were uploaded, 404 in the error envelope for an
// unknown key. Every answer carries X-Request-Id, as the router's do, and
// is logged with it.
func Media(store *s3media.Store, logger *slog.Logger) http.Handler {
	if logger == nil {
		logger = slog.Default()
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start, id := time.Now(), httpapi.NewRequestID(r)
		r = httpapi.WithRequestID(r, id)
		status := serveMedia(w, r, store, logger)
		logRequest(logger, r, id, status, start)
	})
}

// serveMedia answers one media request and returns its status.
func serveMedia(w http.ResponseWriter, r *http.Request, store *s3media.Store, logger *slog.Logger) int {
	id := httpapi.RequestID(r)
	// A web app may fetch media from script, errors included.
	w.Header().Set("Access-Control-Allow-Origin", "*")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		return writeError(w, r, logger, apperr.New(apperr.CodeMethodNotAllowed, "Method %s is not allowed on %s; allowed: GET, HEAD", text.Prefix(r.Method), text.Quote(r.URL.Path)))
	}
	// r.URL.Path is already unescaped: s3media.URL escapes each
	// segment, so this is the key that was stored.
	key := strings.TrimPrefix(r.URL.Path, MediaPrefix)
	if key == "" {
		return writeError(w, r, logger, apperr.NotFound("No media at %s", text.Quote(r.URL.Path)))
	}
	obj, err := store.Get(r.Context(), key)
	if err != nil {
		if errors.Is(err, s3media.ErrNoObject) {
			err = apperr.NotFound("No media at %s", text.Quote(r.URL.Path))
		}
		return writeError(w, r, logger, err)
	}
	defer obj.Body.Close()
	h := w.Header()
	h.Set("X-Request-Id", id)
	if obj.ContentType != "" {
		h.Set("Content-Type", obj.ContentType)
	}
	if obj.ContentLength > 0 {
		h.Set("Content-Length", strconv.FormatInt(obj.ContentLength, 10))
	}
	// Uploads are user content: never let a browser guess another type.
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return http.StatusOK
	}
	if _, err := io.Copy(w, obj.Body); err != nil {
		logger.Warn("media: copy interrupted", "requestId", id, "key", key, "error", err.Error())
	}
	return http.StatusOK
}

// writeError answers err in the API's error envelope under r's request
// id (httpapi.WithRequestID), also sent as X-Request-Id, and returns the
// status.
func writeError(w http.ResponseWriter, r *http.Request, logger *slog.Logger, err error) int {
	sw := &statusWriter{ResponseWriter: w}
	sw.Header().Set("X-Request-Id", httpapi.RequestID(r))
	httpapi.WriteError(sw, r, logger, err)
	return sw.status
}

// statusWriter remembers the status written.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// logRequest is the access-log line of a request answered outside the
// router, in the router's shape, so every X-Request-Id a client reports
// can be found in the log.
func logRequest(logger *slog.Logger, r *http.Request, id string, status int, start time.Time) {
	logger.Info("request", "requestId", id, "method", r.Method, "path", r.URL.Path, "status", status,
		"durationMs", float64(time.Since(start).Microseconds())/1000)
}
