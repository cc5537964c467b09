package s3media

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/bookplatform/backend/shared/images"
	"github.com/stretchr/testify/assert"
)

// A copy reads and writes; a read of an upload, which may be missing,
// also needs the listing that lets S3 answer 404 rather than 403.
func TestIAMActions(t *testing.T) {
	upload := aws.String(images.UploadsPrefix + "avatar/u1/k")
	final := aws.String("avatars/u1/k.png")
	for _, c := range []struct {
		op    string
		input any
		want  []string
	}{
		{"CopyObject", &s3.CopyObjectInput{Key: final}, []string{"s3:GetObject", "s3:PutObject"}},
		{"GetObject", &s3.GetObjectInput{Key: upload}, []string{"s3:GetObject", "s3:ListBucket"}},
		{"HeadObject", &s3.HeadObjectInput{Key: upload}, []string{"s3:GetObject", "s3:ListBucket"}},
		{"GetObject", &s3.GetObjectInput{Key: final}, []string{"s3:GetObject"}},
		{"HeadObject", &s3.HeadObjectInput{Key: final}, []string{"s3:GetObject"}},
		{"PutObject", &s3.PutObjectInput{Key: final}, []string{"s3:PutObject"}},
		{"DeleteObject", &s3.DeleteObjectInput{Key: upload}, []string{"s3:DeleteObject"}},
	} {
		assert.Equal(t, c.want, IAMActions(c.op, c.input), c.op)
	}
}
