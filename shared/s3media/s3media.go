// Package s3media is the S3 adapter for uploaded images (avatars, store
// logos and banners) and CSV uploads, all in the one private media bucket.
package s3media

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/callstats"
	"github.com/bookplatform/backend/shared/images"
)

// NewClient builds the S3 client. The endpoint comes from the SDK's
// standard AWS_ENDPOINT_URL_S3; path-style addressing works with both AWS
// and the local stand-in.
func NewClient(cfg aws.Config) *s3.Client {
	return s3.NewFromConfig(cfg, func(o *s3.Options) {
		o.UsePathStyle = true
		o.APIOptions = append(o.APIOptions, callstats.Middleware("s3", IAMActions))
	})
}

// NewImages is the images service over the media bucket of s, on an S3
// client of its own built from cfg. The groups that store images (users,
// stores) build it in their constructors, so no other function links the
// S3 client.
func NewImages(cfg aws.Config, s Settings, now func() time.Time) *images.Service {
	return images.NewService(NewStore(NewClient(cfg), s), now)
}

// imageCacheControl: every image has its own key per upload, so its URL
// never changes content.
const imageCacheControl = "public, max-age=31536000, immutable"

// Store writes media objects and builds their public URLs.
type Store struct {
	client  *s3.Client
	bucket  string
	baseURL string // MEDIA_BASE_URL: CloudFront in AWS, /media on the local server
}

// NewStore returns a media store.
func NewStore(client *s3.Client, s Settings) *Store {
	return &Store{client: client, bucket: s.Bucket, baseURL: strings.TrimRight(s.BaseURL, "/")}
}

// PutImage stores an image under key and returns the URL clients fetch it from.
func (s *Store) PutImage(ctx context.Context, key, contentType string, data []byte) (string, error) {
	_, err := s.client.PutObject(ctx, &s3.PutObjectInput{
		Bucket:        aws.String(s.bucket),
		Key:           aws.String(key),
		Body:          bytes.NewReader(data),
		ContentType:   aws.String(contentType),
		ContentLength: aws.Int64(int64(len(data))),
		CacheControl:  aws.String(imageCacheControl),
	})
	if err != nil {
		return "", fmt.Errorf("put object %s: %w", key, err)
	}
	return s.URL(key), nil
}

// PutFile stores a private file under key (a CSV upload): no cache
// policy, and no URL, since such a file is read back by the service
// (Get), never served.
func (s *Store) PutFile(ctx context.Context, key, contentType string, data []byte) error {
	_, err := s.client.PutObject(ctx, &s3.PutObjectInput{
		Bucket:        aws.String(s.bucket),
		Key:           aws.String(key),
		Body:          bytes.NewReader(data),
		ContentType:   aws.String(contentType),
		ContentLength: aws.Int64(int64(len(data))),
	})
	if err != nil {
		return fmt.Errorf("put object %s: %w", key, err)
	}
	return nil
}

// URL is the public address of a key.
func (s *Store) URL(key string) string {
	parts := strings.Split(key, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return s.baseURL + "/" + strings.Join(parts, "/")
}

// Object is a fetched media object.
type Object struct {
	Body          io.ReadCloser
	ContentType   string
	ContentLength int64
}

// ErrNoObject is a key the bucket does not hold.
var ErrNoObject = apperr.NotFound("No such media object")

// Get fetches an object (the local server's /media route uses it).
// Errors: ErrNoObject.
func (s *Store) Get(ctx context.Context, key string) (*Object, error) {
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)})
	var noKey *types.NoSuchKey
	if errors.As(err, &noKey) {
		return nil, fmt.Errorf("get object %s: %w", key, ErrNoObject)
	}
	if err != nil {
		return nil, fmt.Errorf("get object %s: %w", key, err)
	}
	return &Object{Body: out.Body, ContentType: aws.ToString(out.ContentType), ContentLength: aws.ToInt64(out.ContentLength)}, nil
}

// PresignPut returns a URL that accepts one PUT of an object to key for
// ttl (images.Objects). The URL signs no content type: the object's type
// is decided from its bytes when it is attached (images.Service.Attach),
// and the upload itself is never served.
func (s *Store) PresignPut(ctx context.Context, key string, ttl time.Duration) (string, error) {
	req, err := s3.NewPresignClient(s.client, s3.WithPresignExpires(ttl)).PresignPutObject(ctx, &s3.PutObjectInput{
		Bucket: aws.String(s.bucket), Key: aws.String(key),
	})
	if err != nil {
		return "", fmt.Errorf("presign put %s: %w", key, err)
	}
	return req.URL, nil
}

// Stat returns the size of the object at key and its first n bytes, read
// with one ranged GET (images.Objects). Errors: images.ErrNoUpload.
func (s *Store) Stat(ctx context.Context, key string, n int) (int64, []byte, error) {
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{
		Bucket: aws.String(s.bucket), Key: aws.String(key), Range: aws.String(fmt.Sprintf("bytes=0-%d", n-1)),
	})
	var invalidRange interface{ ErrorCode() string }
	switch {
	case missingUpload(err, key):
		return 0, nil, fmt.Errorf("stat %s: %w", key, images.ErrNoUpload)
	case errors.As(err, &invalidRange) && invalidRange.ErrorCode() == "InvalidRange":
		return 0, nil, nil // an empty object: no byte to range over
	case err != nil:
		return 0, nil, fmt.Errorf("stat %s: %w", key, err)
	}
	defer out.Body.Close()
	head, err := io.ReadAll(io.LimitReader(out.Body, int64(n)))
	if err != nil {
		return 0, nil, fmt.Errorf("stat %s: %w", key, err)
	}
	return objectSize(out), head, nil
}

// missingUpload reports whether a GetObject or HeadObject of key failed
// because the object is not there: 404 NoSuchKey (NotFound for a HEAD),
// or, for a key under images.UploadsPrefix, 403 AccessDenied. The role
// may read every object (s3:GetObject), so a refusal there can only be
// S3 hiding a missing key from a caller it does not let list it; infra's
// s3:ListBucket grant, limited by an s3:prefix condition, is meant to
// make S3 answer 404, but how that condition applies to the implicit
// check is not documented (docs/decisions.md), and a missing upload must
// never turn into a 500.
func missingUpload(err error, key string) bool {
	var noKey *types.NoSuchKey
	var notFound *types.NotFound
	var coded interface{ ErrorCode() string }
	switch {
	case err == nil:
		return false
	case errors.As(err, &noKey), errors.As(err, &notFound):
		return true
	}
	return strings.HasPrefix(key, images.UploadsPrefix) && errors.As(err, &coded) && coded.ErrorCode() == "AccessDenied"
}

// objectSize is the whole object's size from a ranged GET's answer
// ("bytes 0-15/52341"), or its length when the answer is not partial.
func objectSize(out *s3.GetObjectOutput) int64 {
	if cr := aws.ToString(out.ContentRange); cr != "" {
		if i := strings.LastIndexByte(cr, '/'); i >= 0 {
			if n, err := strconv.ParseInt(cr[i+1:], 10, 64); err == nil {
				return n
			}
		}
	}
	return aws.ToInt64(out.ContentLength)
}

// Promote copies src to dst with contentType and the images' cache
// policy, deletes src, and returns dst's URL (images.Objects).
func (s *Store) Promote(ctx context.Context, src, dst, contentType string) (string, error) {
	_, err := s.client.CopyObject(ctx, &s3.CopyObjectInput{
		Bucket: aws.String(s.bucket), Key: aws.String(dst),
		CopySource:        aws.String(s.bucket + "/" + src),
		MetadataDirective: types.MetadataDirectiveReplace,
		ContentType:       aws.String(contentType),
		CacheControl:      aws.String(imageCacheControl),
	})
	if err != nil {
		return "", fmt.Errorf("copy %s to %s: %w", src, dst, err)
	}
	if _, err := s.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(src)}); err != nil {
		return "", fmt.Errorf("delete upload %s: %w", src, err)
	}
	return s.URL(dst), nil
}

var _ images.Objects = (*Store)(nil)
