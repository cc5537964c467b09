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
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/callstats"
)

// NewClient builds the S3 client. The endpoint comes from the SDK's
// standard AWS_ENDPOINT_URL_S3; path-style addressing works with both AWS
// and the local stand-in.
func NewClient(cfg aws.Config) *s3.Client {
	return s3.NewFromConfig(cfg, func(o *s3.Options) {
		o.UsePathStyle = true
		o.APIOptions = append(o.APIOptions, callstats.Middleware("s3"))
	})
}

// Store writes media objects and builds their public URLs.
type Store struct {
	client  *s3.Client
	bucket  string
	baseURL string // MEDIA_BASE_URL: CloudFront in AWS, /media on the local server
}

// NewStore returns a media store.
func NewStore(client *s3.Client, bucket, baseURL string) *Store {
	return &Store{client: client, bucket: bucket, baseURL: strings.TrimRight(baseURL, "/")}
}

// PutImage stores an image under key and returns the URL clients fetch it from.
func (s *Store) PutImage(ctx context.Context, key, contentType string, data []byte) (string, error) {
	_, err := s.client.PutObject(ctx, &s3.PutObjectInput{
		Bucket:        aws.String(s.bucket),
		Key:           aws.String(key),
		Body:          bytes.NewReader(data),
		ContentType:   aws.String(contentType),
		ContentLength: aws.Int64(int64(len(data))),
		CacheControl:  aws.String("public, max-age=31536000, immutable"),
	})
	if err != nil {
		return "", fmt.Errorf("put object %s: %w", key, err)
	}
	return s.URL(key), nil
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
