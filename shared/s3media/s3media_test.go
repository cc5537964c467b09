package s3media

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/bookplatform/backend/shared/images"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// refusing is an S3 endpoint that answers every request 403
// AccessDenied, as S3 answers a read of a missing key to a caller it
// does not let list the key.
func refusing(t *testing.T) *Store {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Access Denied</Message><RequestId>r1</RequestId></Error>`))
	}))
	t.Cleanup(srv.Close)
	client := s3.NewFromConfig(aws.Config{
		Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("k", "s", ""), BaseEndpoint: aws.String(srv.URL),
	}, func(o *s3.Options) { o.UsePathStyle = true })
	return NewStore(client, Settings{Bucket: "media", BaseURL: "https://media.example"})
}

// A 403 on an upload's key is the missing upload (the role may read every
// object, so only a missing key is refused), whatever the ListBucket
// grant's condition makes S3 answer; on any other key it stays a failure.
func TestStat_AccessDeniedOnAnUploadIsTheMissingUpload(t *testing.T) {
	s := refusing(t)
	_, _, err := s.Stat(context.Background(), images.UploadsPrefix+"avatar/u1/k", 16)
	require.Error(t, err)
	assert.ErrorIs(t, err, images.ErrNoUpload)

	_, _, err = s.Stat(context.Background(), "avatars/u1/k.png", 16)
	require.Error(t, err)
	assert.NotErrorIs(t, err, images.ErrNoUpload, "outside the uploads a refusal is a refusal")
}
