package s3media

import (
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/bookplatform/backend/shared/images"
)

// IAMActions are the IAM actions one S3 call needs (callstats.Actions,
// recorded for every call of NewClient's client):
//
//   - CopyObject reads its source and writes its target: s3:GetObject
//     and s3:PutObject;
//   - HeadObject is authorized as s3:GetObject;
//   - a GetObject or HeadObject of a presigned upload (under
//     images.UploadsPrefix) reads a key that may hold nothing (never
//     uploaded, expired, already attached), and S3 answers a missing key
//     with 404 NoSuchKey only to a caller that may also list it
//     (s3:ListBucket, for that key as s3:prefix), with 403 AccessDenied
//     otherwise: the call needs s3:ListBucket to tell images.ErrNoUpload
//     from a failure. infra grants it on the uploads prefix alone;
//   - every other call, the action of its own name (a presigned PUT
//     counts as the s3:PutObject its URL is signed for).
func IAMActions(operation string, input any) []string {
	switch operation {
	case "CopyObject":
		return []string{"s3:GetObject", "s3:PutObject"}
	case "GetObject", "HeadObject":
		var key string
		switch in := input.(type) {
		case *s3.GetObjectInput:
			key = aws.ToString(in.Key)
		case *s3.HeadObjectInput:
			key = aws.ToString(in.Key)
		}
		if strings.HasPrefix(key, images.UploadsPrefix) {
			return []string{"s3:GetObject", "s3:ListBucket"}
		}
		return []string{"s3:GetObject"}
	}
	return []string{"s3:" + operation}
}
