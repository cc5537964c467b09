// Package images is the one upload mechanism of the service's images:
// avatars, store logos and store banners. Each Kind says which formats it
// takes (decided by magic bytes, never by name or declared type), its size
// limit and where its objects live. Two ways in share every check:
//
//   - Put stores bytes the API received in a multipart body (the spec's
//     upload endpoints, streamed and cut at the limit by the HTTP adapter);
//   - Presign hands the client a short-lived URL to PUT the file to object
//     storage directly (an image near 5 MB cannot pass API Gateway's
//     payload limit once base64-encoded), and Attach then checks the
//     uploaded object (size, then type by its first bytes) before copying
//     it to its final key under the type it really has.
//
// Either way an image gets a new key per upload, so its URL can be cached
// forever. The package imports no AWS and no HTTP package: object storage
// is its Objects interface (s3media.Store in the service).
package images

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/google/uuid"
)

// MaxBytes is every image's size limit (spec: Other limits, 5 MB).
const MaxBytes = 5 << 20

// Format is an image format the service knows by its magic bytes.
type Format struct {
	ContentType, Ext string
}

// The formats.
var (
	JPEG = Format{"image/jpeg", "jpg"}
	PNG  = Format{"image/png", "png"}
	GIF  = Format{"image/gif", "gif"}
)

// Sniff returns the format of data by its first bytes; ok is false when
// it is none the service knows.
func Sniff(head []byte) (Format, bool) {
	switch {
	case bytes.HasPrefix(head, []byte{0xFF, 0xD8, 0xFF}):
		return JPEG, true
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		return PNG, true
	case bytes.HasPrefix(head, []byte("GIF87a")), bytes.HasPrefix(head, []byte("GIF89a")):
		return GIF, true
	}
	return Format{}, false
}

// sniffBytes is how much of an uploaded object Attach reads for Sniff.
const sniffBytes = 16

// Kind is one kind of image: the field that names it in requests and
// answers, the formats it takes and where its objects are kept.
type Kind struct {
	// Field is the multipart field and the name used in messages
	// ("avatar", "logo", "banner").
	Field   string
	Formats []Format
	// dir is the final keys' prefix below the owner: avatars/<user>/,
	// stores/<store>/logo/.
	dir func(owner string) string
}

// The kinds (spec: Other limits, Image uploads).
var (
	Avatar = Kind{Field: "avatar", Formats: []Format{JPEG, PNG, GIF}, dir: func(o string) string { return "avatars/" + o + "/" }}
	Logo   = Kind{Field: "logo", Formats: []Format{JPEG, PNG}, dir: func(o string) string { return "stores/" + o + "/logo/" }}
	Banner = Kind{Field: "banner", Formats: []Format{JPEG, PNG}, dir: func(o string) string { return "stores/" + o + "/banner/" }}
)

// formatNames writes "JPG or PNG", "JPG, PNG or GIF".
func (k Kind) formatNames() string {
	names := make([]string, len(k.Formats))
	for i, f := range k.Formats {
		names[i] = strings.ToUpper(f.Ext)
	}
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// ContentTypes lists the media types the kind takes.
func (k Kind) ContentTypes() []string {
	out := make([]string, len(k.Formats))
	for i, f := range k.Formats {
		out[i] = f.ContentType
	}
	return out
}

// The kind's refusals, each naming its field.
func (k Kind) errEmpty() error {
	return apperr.Validation(k.Field+" file is empty", map[string]string{k.Field: "is empty"})
}

// ErrTooLarge is the refusal of a file over MaxBytes.
func (k Kind) ErrTooLarge() error {
	return apperr.Validation(k.Field+" must be at most 5 MB", map[string]string{k.Field: "must be at most 5 MB"})
}

func (k Kind) errFormat() error {
	msg := "must be a " + k.formatNames() + " image"
	return apperr.Validation(k.Field+" "+msg, map[string]string{k.Field: msg})
}

// Check returns the format of an image of this kind with size bytes
// beginning with head, or the refusal naming the field: empty, over 5 MB,
// or not one of the kind's formats.
func (k Kind) Check(head []byte, size int64) (Format, error) {
	switch {
	case size <= 0:
		return Format{}, k.errEmpty()
	case size > MaxBytes:
		return Format{}, k.ErrTooLarge()
	}
	f, ok := Sniff(head)
	if !ok || !slices.Contains(k.Formats, f) {
		return Format{}, k.errFormat()
	}
	return f, nil
}

// Objects is the object storage images live in (s3media.Store).
type Objects interface {
	// PutImage stores data under key with its content type and returns
	// the URL clients fetch it from.
	PutImage(ctx context.Context, key, contentType string, data []byte) (string, error)
	// PresignPut returns a URL that accepts one HTTP PUT of an object to
	// key until expires.
	PresignPut(ctx context.Context, key string, ttl time.Duration) (string, error)
	// Stat returns the size of the object at key and its first n bytes.
	// Errors: ErrNoUpload when there is none.
	Stat(ctx context.Context, key string, n int) (size int64, head []byte, err error)
	// Promote copies the object at src to dst with its content type and
	// the cache policy of images, removes src, and returns dst's URL.
	Promote(ctx context.Context, src, dst, contentType string) (string, error)
}

// ErrNoUpload is an upload key with no object behind it: never uploaded,
// expired (the bucket's lifecycle removes uploads after a day) or
// already attached.
var ErrNoUpload = apperr.Validation("No file was uploaded at uploadKey: PUT it to the uploadUrl first (before it expires); a key is attached once",
	map[string]string{"uploadKey": "has no uploaded file"})

// Service stores images of every kind.
type Service struct {
	objects Objects
	ttl     time.Duration
	now     func() time.Time
}

// UploadTTL is how long a presigned upload URL works.
const UploadTTL = 15 * time.Minute

// NewService returns the image service; now may be nil for the wall clock.
func NewService(objects Objects, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{objects: objects, ttl: UploadTTL, now: now}
}

// Put checks data as an image of kind k and stores it under a new key of
// owner (a user id for avatars, a store id for logos and banners).
// Errors: the kind's ValidationErrors.
func (s *Service) Put(ctx context.Context, k Kind, owner string, data []byte) (string, error) {
	head := data[:min(len(data), sniffBytes)]
	f, err := k.Check(head, int64(len(data)))
	if err != nil {
		return "", err
	}
	return s.objects.PutImage(ctx, k.dir(owner)+uuid.NewString()+"."+f.Ext, f.ContentType, data)
}

// Upload is a presigned upload: PUT the file's bytes to URL before
// ExpiresAt, then attach Key.
type Upload struct {
	URL       string
	Key       string
	ExpiresAt time.Time
}

// UploadsPrefix is where presigned uploads land; the bucket's lifecycle
// rule (infra) removes what is never attached after a day.
const UploadsPrefix = "uploads/"

// uploadPrefix is the slots' prefix of one kind and owner.
func uploadPrefix(k Kind, owner string) string { return UploadsPrefix + k.Field + "/" + owner + "/" }

// Presign returns a new upload slot for an image of kind k for owner.
func (s *Service) Presign(ctx context.Context, k Kind, owner string) (Upload, error) {
	key := uploadPrefix(k, owner) + uuid.NewString()
	url, err := s.objects.PresignPut(ctx, key, s.ttl)
	if err != nil {
		return Upload{}, fmt.Errorf("presign %s upload: %w", k.Field, err)
	}
	return Upload{URL: url, Key: key, ExpiresAt: s.now().Add(s.ttl).UTC()}, nil
}

// Attach checks the object uploaded at key as an image of kind k (size,
// then format by its first bytes: the same checks as Put) and moves it to
// a new final key under its real content type; it returns the image's
// URL. A key that is not one of owner's upload slots of this kind is a
// ValidationError. Errors: ValidationError, ErrNoUpload.
func (s *Service) Attach(ctx context.Context, k Kind, owner, key string) (string, error) {
	prefix := uploadPrefix(k, owner)
	if _, err := uuid.Parse(strings.TrimPrefix(key, prefix)); err != nil || !strings.HasPrefix(key, prefix) {
		return "", apperr.Validation("uploadKey is not an upload of this "+k.Field, map[string]string{"uploadKey": "must be the key given with the upload URL"})
	}
	size, head, err := s.objects.Stat(ctx, key, sniffBytes)
	if errors.Is(err, ErrNoUpload) {
		return "", err
	}
	if err != nil {
		return "", fmt.Errorf("read %s upload: %w", k.Field, err)
	}
	f, err := k.Check(head, size)
	if err != nil {
		return "", err
	}
	return s.objects.Promote(ctx, key, k.dir(owner)+uuid.NewString()+"."+f.Ext, f.ContentType)
}
